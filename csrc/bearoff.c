/* gnubg's bearoff databases; racebg.c reads them for the race-backgammon override. */
#include "bearoff.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"

/* Binomial coefficients C(n, r) for n, r <= 40 (truncated to 32 bits like
 * every index sum): bg_bearoff_index runs for every race evaluation, and a
 * table lookup replaces a loop of 64-bit divisions. Stored as BINOM[r][n]:
 * with r a constant the index's lookups need no multiply. */
#define BINOM_N 41
static unsigned int BINOM[BINOM_N][BINOM_N];
static pthread_once_t binom_once = PTHREAD_ONCE_INIT;

static void binom_init(void)
{
    unsigned long long row[BINOM_N] = {1};
    for (int n = 0; n < BINOM_N; n++) {
        for (int r = n; r > 0; r--)
            row[r] += row[r - 1];
        for (int r = 0; r < BINOM_N; r++)
            BINOM[r][n] = (unsigned int)row[r];
    }
}

static unsigned int binom(int n, int r)
{
    pthread_once(&binom_once, binom_init);
    return BINOM[r][n];
}

static inline __attribute__((always_inline)) unsigned int index_of(const unsigned int *side,
                                                                    int n_points, int n_chequers)
{
    /* gnubg's index: a bit string with bit P-1+total set, then one bit per
     * point boundary going down; each set bit at a position j below P+C adds
     * C(j, r), r = the set bits not yet counted (P at the top). Walking the
     * points visits exactly those bits, top first; gnubg's loop stops once
     * only r positions are left, where C(j, r) = 0 anyway. j only goes
     * down: once below P+C, every later point adds too. */
    int j = n_points - 1;
    for (int i = 0; i < n_points; i++)
        j += (int)side[i];
    if (j >= 64)
        return 0;
    pthread_once(&binom_once, binom_init);
    unsigned int idx = 0;
    int i = 0;
    for (; i < n_points && j >= n_chequers + n_points; i++)
        j -= (int)side[i] + 1;
    for (int r = n_points; i < n_points; i++, r--) {
        idx += BINOM[r][j];
        j -= (int)side[i] + 1;
    }
    return idx;
}

unsigned int bg_bearoff_index(const unsigned int *side, int n_points, int n_chequers)
{
    /* the databases' 6 points (every race evaluation and sanity check): a
     * constant bound lets the compiler unroll the loops */
    if (n_points == 6)
        return index_of(side, 6, n_chequers);
    return index_of(side, n_points, n_chequers);
}

/* ---- loading ---------------------------------------------------------- */

static int header_num(const unsigned char *h, int off, int width)
{
    int v = 0;
    for (int i = 0; i < width; i++) {
        if (h[off + i] < '0' || h[off + i] > '9')
            return -1;
        v = v * 10 + (h[off + i] - '0');
    }
    return v;
}

static unsigned int rd16(const unsigned char *p) { return (unsigned int)p[0] | (unsigned int)p[1] << 8; }

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void bg_bearoff_os_free(bg_bearoff_os *db)
{
    if (!db)
        return;
    free(db->data);
    memset(db, 0, sizeof *db);
}

void bg_bearoff_ts_free(bg_bearoff_ts *db)
{
    if (!db)
        return;
    free(db->data);
    memset(db, 0, sizeof *db);
}

int bg_bearoff_os_load(bg_bearoff_os *db, const char *path, char *err, int errlen)
{
    memset(db, 0, sizeof *db);
    unsigned char *buf;
    size_t len;
    if (bg_read_file(path, &buf, &len, err, errlen))
        return -1;
    const char *why = NULL;
    if (len < 40 || memcmp(buf, "gnubg-OS-", 9) != 0) {
        why = len < 40 ? "truncated: no complete 40-byte header"
                       : "not a gnubg one-sided bearoff database (header is not 'gnubg-OS-')";
        bg_file_error(err, errlen, path, "%s", why);
        free(buf);
        return -1;
    }
    int np = header_num(buf, 9, 2), nc = header_num(buf, 12, 2);
    int gammon = header_num(buf, 15, 1), compressed = header_num(buf, 17, 1),
        nd = header_num(buf, 19, 1);
    if (np != 6 || nc != 15) {
        bg_file_error(err, errlen, path,
                      "one-sided database is %d points x %d chequers; need 6 x 15 (gnubg_os0.bd)", np,
                      nc);
        free(buf);
        return -1;
    }
    if (gammon != 1 || (compressed != 0 && compressed != 1) || nd != 0) {
        bg_file_error(err, errlen, path,
                      "unsupported one-sided database flags (gammon=%d compressed=%d nd=%d); need "
                      "gammon data, no normal-distribution format",
                      gammon, compressed, nd);
        free(buf);
        return -1;
    }
    unsigned int npos = binom(np + nc, np);
    if (compressed) {
        size_t index_end = 40 + (size_t)npos * 8;
        if (len < index_end) {
            bg_file_error(err, errlen, path, "truncated: %zu bytes, the index alone needs %zu", len,
                          index_end);
            free(buf);
            return -1;
        }
        size_t max_end = index_end;
        for (unsigned int id = 0; id < npos; id++) {
            const unsigned char *e = buf + 40 + (size_t)id * 8;
            size_t off = rd32(e);
            unsigned int nz = e[4], ioff = e[5], nzg = e[6], ioffg = e[7];
            if (nz + ioff > 32 || nzg + ioffg > 32) {
                bg_file_error(err, errlen, path, "corrupt index entry %u (counts out of range)", id);
                free(buf);
                return -1;
            }
            size_t end = index_end + 2 * off + 2 * (size_t)(nz + nzg);
            if (off > len || end > len) {
                bg_file_error(err, errlen, path,
                              "truncated or corrupt: entry %u points past the end of the file", id);
                free(buf);
                return -1;
            }
            if (end > max_end)
                max_end = end;
        }
        if (max_end != len) {
            bg_file_error(err, errlen, path, "corrupt: %zu bytes, the index describes %zu", len,
                          max_end);
            free(buf);
            return -1;
        }
    } else {
        size_t want = 40 + (size_t)npos * 128;
        if (len != want) {
            bg_file_error(err, errlen, path, "%s: %zu bytes, expected %zu",
                          len < want ? "truncated" : "wrong size", len, want);
            free(buf);
            return -1;
        }
    }
    db->data = buf;
    db->size = len;
    db->n_points = np;
    db->n_chequers = nc;
    db->gammon = gammon;
    db->compressed = compressed;
    db->n_pos = npos;
    db->digest = bg_file_digest(buf, len);
    return 0;
}

int bg_bearoff_ts_load(bg_bearoff_ts *db, const char *path, char *err, int errlen)
{
    memset(db, 0, sizeof *db);
    unsigned char *buf;
    size_t len;
    if (bg_read_file(path, &buf, &len, err, errlen))
        return -1;
    if (len < 40 || memcmp(buf, "gnubg-TS-", 9) != 0) {
        bg_file_error(err, errlen, path, "%s",
                      len < 40 ? "truncated: no complete 40-byte header"
                               : "not a gnubg two-sided bearoff database (header is not 'gnubg-TS-')");
        free(buf);
        return -1;
    }
    int np = header_num(buf, 9, 2), nc = header_num(buf, 12, 2), cubeful = header_num(buf, 15, 1);
    if (np != 6 || nc != 6 || (cubeful != 0 && cubeful != 1)) {
        bg_file_error(err, errlen, path,
                      "two-sided database is %d points x %d chequers (cubeful=%d); need 6 x 6 "
                      "(gnubg_ts0.bd)",
                      np, nc, cubeful);
        free(buf);
        return -1;
    }
    unsigned int npos = binom(np + nc, np);
    int k = cubeful ? 4 : 1;
    size_t want = 40 + (size_t)npos * npos * 2 * (size_t)k;
    if (len != want) {
        bg_file_error(err, errlen, path, "%s: %zu bytes, expected %zu",
                      len < want ? "truncated" : "wrong size", len, want);
        free(buf);
        return -1;
    }
    db->data = buf;
    db->size = len;
    db->n_points = np;
    db->n_chequers = nc;
    db->n_values = k;
    db->n_pos = npos;
    db->digest = bg_file_digest(buf, len);
    return 0;
}

/* ---- lookups ---------------------------------------------------------- */

void bg_bearoff_os_dist(const bg_bearoff_os *db, unsigned int id, unsigned short prob[32],
                        unsigned short gammon[32])
{
    memset(prob, 0, 32 * sizeof prob[0]);
    memset(gammon, 0, 32 * sizeof gammon[0]);
    if (id >= db->n_pos)
        return;
    if (db->compressed) {
        const unsigned char *e = db->data + 40 + (size_t)id * 8;
        const unsigned char *p = db->data + 40 + (size_t)db->n_pos * 8 + 2 * (size_t)rd32(e);
        unsigned int nz = e[4], ioff = e[5], nzg = e[6], ioffg = e[7];
        for (unsigned int i = 0; i < nz; i++, p += 2)
            prob[ioff + i] = (unsigned short)rd16(p);
        for (unsigned int i = 0; i < nzg; i++, p += 2)
            gammon[ioffg + i] = (unsigned short)rd16(p);
    } else {
        const unsigned char *p = db->data + 40 + (size_t)id * 128;
        for (int i = 0; i < 32; i++)
            prob[i] = (unsigned short)rd16(p + 2 * i);
        for (int i = 0; i < 32; i++)
            gammon[i] = (unsigned short)rd16(p + 64 + 2 * i);
    }
}

int bg_bearoff_os_max_rolls(const bg_bearoff_os *db, unsigned int id)
{
    if (id >= db->n_pos)
        return 0;
    const unsigned char *p;
    int first = 0, n = 32;
    if (db->compressed) {
        const unsigned char *e = db->data + 40 + (size_t)id * 8;
        p = db->data + 40 + (size_t)db->n_pos * 8 + 2 * (size_t)rd32(e);
        n = e[4];
        first = e[5];
    } else {
        p = db->data + 40 + (size_t)id * 128;
    }
    for (int i = n - 1; i >= 0; i--)
        if (rd16(p + 2 * i))
            return first + i;
    return 0;
}

static unsigned int side_total(const unsigned int *s)
{
    unsigned int t = 0;
    for (int i = 0; i < 25; i++)
        t += s[i];
    return t;
}

/* The non-zero entries of a distribution lie in [lo, hi) (lo = hi when none). */
typedef struct {
    int lo, hi;
} dist_span;

static dist_span span_of(const unsigned short x[32])
{
    dist_span s = {0, 0};
    while (s.lo < 32 && !x[s.lo])
        s.lo++;
    for (int i = s.lo; i < 32; i++)
        if (x[i])
            s.hi = i + 1;
    if (s.hi < s.lo)
        s.hi = s.lo;
    return s;
}

/* sum_i sum_{j >= i+off} a[i]*b[j] as the reference build computes it: each
 * inner sum in four partial sums (j - i - off = L mod 4) over the largest
 * multiple of 4 terms, combined as (s0 + s2) + (s1 + s3) and added to the
 * total, then the remaining terms one by one.
 *
 * Only the spans' terms are added: every term is >= +0, so a zero term adds
 * +0.0f to a sum that is never -0.0f, which leaves its bits as they are;
 * each remaining term goes to the partial sum (or the tail) it had. */
static float tri_sum(const float *a, dist_span sa, const float *b, dist_span sb, int off)
{
    float w = 0.0f;
    for (int i = sa.lo; i < sa.hi; i++) {
        int start = i + off, n = 32 - start;
        if (n <= 0)
            break;
        int main_end = start + (n & ~3);
        int j0 = start > sb.lo ? start : sb.lo, j1 = main_end < sb.hi ? main_end : sb.hi;
        float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int j = j0; j < j1; j++)
            l[(j - start) & 3] = l[(j - start) & 3] + a[i] * b[j];
        if (main_end > start)
            w = w + ((l[0] + l[2]) + (l[1] + l[3]));
        for (int j = main_end > sb.lo ? main_end : sb.lo; j < sb.hi; j++)
            w = w + a[i] * b[j];
    }
    return w;
}

/* The same sum as gnubg 1.07's build computes it: one float, term by term in
 * (i, j) order. The bits differ from tri_sum's in the last place now and then,
 * which decides between plays that otherwise tie (a lost position whose plays
 * all score -1 but one of them 1 ulp above): found by experiment, Debian's
 * gnubg picks its plays in such positions as this sum orders them
 * (tests/test_serve_gnubg.py). */
static float tri_sum_107(const float *a, const float *b, int off)
{
    float w = 0.0f;
    for (int i = 0; i < 32; i++)
        for (int j = i + off; j < 32; j++)
            w = w + a[i] * b[j];
    return w;
}

void bg_bearoff_os_eval(const bg_bearoff_os *db, const bg_board b, float out[5])
{
    unsigned short p0r[32], g0r[32], p1r[32], g1r[32];
    bg_bearoff_os_dist(db, bg_bearoff_index(b[0], 6, 15), p0r, g0r);
    bg_bearoff_os_dist(db, bg_bearoff_index(b[1], 6, 15), p1r, g1r);
    float p0[32], g0[32], p1[32], g1[32];
    for (int i = 0; i < 32; i++) {
        p0[i] = BG_DIVC(p0r[i], 65535);
        g0[i] = BG_DIVC(g0r[i], 65535);
        p1[i] = BG_DIVC(p1r[i], 65535);
        g1[i] = BG_DIVC(g1r[i], 65535);
    }
    dist_span sp0 = span_of(p0r), sp1 = span_of(p1r);
    float win, wg = 0.0f, lg = 0.0f;
    int gammons = side_total(b[0]) == 15 || side_total(b[1]) == 15;
    if (db->sums107) {
        win = tri_sum_107(p1, p0, 0);
        if (gammons) {
            wg = tri_sum_107(p1, g0, 0);
            lg = tri_sum_107(p0, g1, 1);
        }
    } else {
        win = tri_sum(p1, sp1, p0, sp0, 0);
        if (gammons) {
            wg = tri_sum(p1, sp1, g0, span_of(g0r), 0);
            lg = tri_sum(p0, sp0, g1, span_of(g1r), 1);
        }
    }
    out[0] = win;
    out[1] = wg;
    out[2] = 0.0f;
    out[3] = lg;
    out[4] = 0.0f;
}

void bg_bearoff_ts_eval(const bg_bearoff_ts *db, const bg_board b, float out[5])
{
    unsigned int i1 = bg_bearoff_index(b[1], 6, 6), i0 = bg_bearoff_index(b[0], 6, 6);
    float win = 0.0f;
    if (i1 < db->n_pos && i0 < db->n_pos) {
        size_t pos = (size_t)i1 * db->n_pos + i0;
        unsigned int v = rd16(db->data + 40 + 2 * (size_t)db->n_values * pos);
        float eq = BG_DIVC(v, 32767.5f) - 1.0f;
        win = eq * 0.5f + 0.5f;
    }
    out[0] = win;
    out[1] = out[2] = out[3] = out[4] = 0.0f;
}
