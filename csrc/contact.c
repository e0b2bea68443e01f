/* The contact extras (contact.h): gnubg's extra inputs of the contact and crashed nets. */
#include "contact.h"

#include <stdint.h>
#include <string.h>

#include "hitting.h"
#include "sidebits.h"

/* ---- escape tables ----------------------------------------------------- */

void bg_escape_tables_init(bg_escape_tables *t, int wide)
{
    t->wide = wide && bg_hitting_wide_supported();
    t->home_occupied = 0;
    for (int m = 0; m < 4096; m++) {
        int n = 0, n1 = 0;
        int low = -1;
        for (int b = 0; b < 12; b++) {
            if (m & (1 << b)) {
                low = b;
                break;
            }
        }
        for (int d1 = 1; d1 <= 6; d1++) {
            for (int d2 = 1; d2 <= d1; d2++) {
                int w = d1 == d2 ? 1 : 2;
                int s = d1 + d2 - 1;
                if ((m & (1 << s)) || ((m & (1 << (d1 - 1))) && (m & (1 << (d2 - 1)))))
                    continue;
                n += w;
                if (m && s > low)
                    n1 += w;
            }
        }
        t->esc[m] = (unsigned char)n;
        t->esc1[m] = (unsigned char)n1;
    }
    /* ENTER: pips lost by 1 or 2+ chequers on the bar against the
     * opponent's made home points (bit i: point i has two or more) */
    for (int bar = 0; bar < 3; bar++) {
        for (int m = 0; m < 64; m++) {
            int loss = 0, two = bar > 1;
            for (int i = 0; i < 6 && bar; i++) {
                if (m >> i & 1) {
                    loss += 4 * (i + 1);
                    for (int j = i + 1; j < 6; j++)
                        loss += m >> j & 1 ? 2 * (i + j + 2) : two * 2 * (i + 1);
                } else if (two) {
                    for (int j = i + 1; j < 6; j++)
                        loss += (m >> j & 1) * 2 * (j + 1);
                }
            }
            t->enter_loss[bar][m] = (unsigned short)loss;
        }
    }
}

/* Sums over a side's points thr+1..23 (the bar excluded): chequers c, and
 * chequers weighted by i (l) and by i * i (q). Exact integers, so any
 * grouping gives gnubg's loop results; the features below are written as a
 * few of these instead of loops whose length depends on the position. */
typedef struct {
    int c, l, q;
} pt_sums;

#if defined(__SSE2__)
/* Points 0..23 as 16-bit lanes, for pmaddwd. */
typedef struct {
    __m128i v[3];
} side_pts;

static inline side_pts side_pts_of(const unsigned int *b)
{
    const __m128i *p = (const __m128i *)b;
    side_pts s;
    for (int k = 0; k < 3; k++)
        s.v[k] = _mm_packs_epi32(_mm_loadu_si128(p + 2 * k), _mm_loadu_si128(p + 2 * k + 1));
    return s;
}

static inline int hsum32(__m128i x)
{
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(x);
}

static inline pt_sums sums_above(const side_pts *s, int thr, int with_q)
{
    /* c and l at once: weights 1024 + i give 1024 c + l, and l <= 15 * 23
     * < 1024 */
    static const short IDX[3][8] __attribute__((aligned(16))) = {
        {0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}, {16, 17, 18, 19, 20, 21, 22, 23}};
    static const short IDX2[3][8] __attribute__((aligned(16))) = {
        {0, 1, 4, 9, 16, 25, 36, 49},
        {64, 81, 100, 121, 144, 169, 196, 225},
        {256, 289, 324, 361, 400, 441, 484, 529}};
    const __m128i t = _mm_set1_epi16((short)thr), base = _mm_set1_epi16(1024);
    __m128i cl = _mm_setzero_si128(), q = cl;
    for (int k = 0; k < 3; k++) {
        __m128i i = _mm_load_si128((const __m128i *)IDX[k]);
        __m128i v = _mm_and_si128(s->v[k], _mm_cmpgt_epi16(i, t));
        cl = _mm_add_epi32(cl, _mm_madd_epi16(v, _mm_add_epi16(i, base)));
        if (with_q)
            q = _mm_add_epi32(q, _mm_madd_epi16(v, _mm_load_si128((const __m128i *)IDX2[k])));
    }
    int sum = hsum32(cl);
    return (pt_sums){sum >> 10, sum & 1023, with_q ? hsum32(q) : 0};
}
#else
typedef struct {
    const unsigned int *b;
} side_pts;

static inline side_pts side_pts_of(const unsigned int *b) { return (side_pts){b}; }

static inline pt_sums sums_above(const side_pts *s, int thr, int with_q)
{
    (void)with_q;
    pt_sums r = {0, 0, 0};
    for (int i = thr < 0 ? 0 : thr + 1; i < 24; i++) {
        int v = (int)s->b[i];
        r.c += v;
        r.l += i * v;
        r.q += i * i * v;
    }
    return r;
}
#endif

/* Escapes mask for distance n: bit t (t < min(n, 12)) set iff point
 * 24 + t - n holds two or more chequers (made = side_bits.made). */
static int escape_mask(unsigned int made, int n)
{
    if (n <= 0)
        return 0;
    int lim = n < 12 ? n : 12;
    return (int)((made >> (24 - n)) & ((1u << lim) - 1));
}

/* ---- contact extras ---------------------------------------------------- */

enum {
    X_OFF1,
    X_OFF2,
    X_OFF3,
    X_BREAK_CONTACT,
    X_BACK_CHEQUER,
    X_BACK_ANCHOR,
    X_FORWARD_ANCHOR,
    X_PIPLOSS,
    X_P1,
    X_P2,
    X_BACKESCAPES,
    X_ACONTAIN,
    X_ACONTAIN2,
    X_CONTAIN,
    X_CONTAIN2,
    X_MOBILITY,
    X_MOMENT2,
    X_ENTER,
    X_ENTER2,
    X_TIMING,
    X_BACKBONE,
    X_BACKG,
    X_BACKG1,
    X_FREEPIP,
    X_BACKRESCAPES,
    X_COUNT
};
_Static_assert(X_COUNT == BG_N_CONTACT_EXTRAS, "contact.h counts the fields");
_Static_assert(X_P1 == X_PIPLOSS + 1 && X_P2 == X_PIPLOSS + 2, "bg_hitting's three fields");

/* Highest set bit, or -1 when x == 0: with no test of x (a branch on
 * unpredictable bitmaps). */
static int msb_or_neg(uint32_t x) { return 62 - __builtin_clzll((uint64_t)x << 1 | 1u); }

/* The sum of the positions of the set bits of 6 bits. */
#define IDX6_(x) (((x) >> 1 & 1) + ((x) >> 2 & 1) * 2 + ((x) >> 3 & 1) * 3 + ((x) >> 4 & 1) * 4 + \
                  ((x) >> 5 & 1) * 5)
#define IDX6_4(x) IDX6_(x), IDX6_(x + 1), IDX6_(x + 2), IDX6_(x + 3)
#define IDX6_16(x) IDX6_4(x), IDX6_4(x + 4), IDX6_4(x + 8), IDX6_4(x + 12)
static const unsigned char IDX6[64] = {IDX6_16(0), IDX6_16(16), IDX6_16(32), IDX6_16(48)};
#undef IDX6_16
#undef IDX6_4
#undef IDX6_

/* ceil(x / d) for 0 <= x <= 15 * 24 * 24 (chequers times squared pips) and
 * 1 <= d <= 15 (chequers) by a multiply: with r = ceil(2^18 / d), floor((x
 * + d - 1) r / 2^18) errs by less than 2^14 / 2^18 = 1/16 above the true
 * quotient, whose fraction is at most 14/15: exact, and no integer division
 * (tens of cycles each). */
static int ceil_div15(int x, int d)
{
    static const uint32_t R[16] = {0,     262144, 131072, 87382, 65536, 52429, 43691, 37450,
                                   32768, 29128,  26215,  23832, 21846, 20165, 18725, 17477};
    return (int)(((uint32_t)(x + d - 1) * R[d]) >> 18);
}

/* b's fields that depend on the opponent only through its rearmost point
 * opp_back (-1 when on the bar): contact breaks, timing, back chequers and
 * anchors, escapes and containment, spread, backbone, back games.
 * Returns b's chequer count, bar included (for the men-off fields). */
static int own_features(const bg_escape_tables *tab, const unsigned int *b, const side_bits *sb,
                        int opp_back, float *x)
{
    int back = msb_or_neg(sb->occ);

    side_pts pts = side_pts_of(b);
    pt_sums all = sums_above(&pts, -1, 0);
    int bar = (int)b[24];

    /* BREAK_CONTACT: (i + 1 - opp_back) b[i] over i > opp_back, bar
     * included; FREEPIP: (i + 1) b[i] over i < opp_back. */
    {
        pt_sums past = sums_above(&pts, opp_back, 0);
        int n = past.l + past.c - opp_back * past.c + (opp_back < 24) * (25 - opp_back) * bar;
        int inside = (unsigned int)opp_back < 24; /* selects below, not branches */
        int at = inside * (opp_back + 1) * (int)b[opp_back & -inside];
        int p = all.l + all.c - past.l - past.c - at;
        x[X_BREAK_CONTACT] = BG_DIVC(n, 167);
        x[X_FREEPIP] = BG_DIVC(p, 100);
    }
    /* TIMING: the bar and points 6..23 count whole, except that a made
     * point above m keeps two chequers back; then the home board, point by
     * point. */
    {
        int m = opp_back < 11 ? 11 : opp_back;
        pt_sums out = sums_above(&pts, 5, 0);
        /* the made points above m (m >= 11) as two 6-bit sets: table
         * look-ups, no loop of unpredictable length */
        uint32_t kept = sb->made & 0xffffffu & ~((2u << m) - 1);
        uint32_t k1 = (kept >> 12) & 0x3fu, k2 = kept >> 18;
        int no = bar + out.c - 2 * (POP6[k1] + POP6[k2]);
        int t = 24 * bar + out.l - 2 * (IDX6[k1] + 12 * POP6[k1] + IDX6[k2] + 18 * POP6[k2]);
        if (m == 24) { /* no opponent chequers: the loop form counted the bar twice */
            no += bar;
            t += 24 * bar;
        }
        /* A point gives its chequers above two, or takes the ones it
         * lacks when there are enough (no >= 0 throughout); point 0 adds
         * nothing. */
        for (int i = 5; i > 0; i--) {
            int d = (int)b[i] - 2;
            d &= -(no + d >= 0); /* a select, not a branch */
            t += i * d;
            no += d;
        }
        x[X_TIMING] = BG_DIVC(t, 100);
    }
    /* BACK_CHEQUER, BACK_ANCHOR, FORWARD_ANCHOR */
    x[X_BACK_CHEQUER] = BG_DIVC(back, 24);
    int start = back - (back == 24);
    uint32_t below = start < 0 ? 0 : sb->made & ((2u << start) - 1); /* points 0..start */
    int anchor = msb_or_neg(below);
    x[X_BACK_ANCHOR] = BG_DIVC(anchor, 24);
    {
        /* the lowest made point 18..anchor, else the highest of 12..17:
         * the former's bit alone outranks the latter's */
        uint32_t fwd = below & 0xfc0000u;
        int j = msb_or_neg((fwd & -fwd) | (sb->made & 0x3f000u));
        /* none: 2, which is BG_DIVC(24 - 12, 6) to the bit */
        x[X_FORWARD_ANCHOR] = BG_DIVC(24 - j - 13 * (int)((unsigned int)j >> 31), 6);
    }

    /* BACKESCAPES, BACKRESCAPES, ACONTAIN, CONTAIN */
    {
        int m = escape_mask(sb->made, 23 - opp_back);
        x[X_BACKESCAPES] = BG_DIVC(tab->esc[m], 36);
        x[X_BACKRESCAPES] = BG_DIVC(tab->esc1[m], 36);
    }
    {
        /* Escapes from points 15..24 (a 12-point window from 15 on), as
         * running minima: ACONTAIN stops below 24 - opp_back, CONTAIN
         * always covers 15..23 (gnubg's two loops). */
        int pre[10], n = 36;
        for (int i = 15; i < 25; i++) {
            int e = tab->esc[(sb->made >> (24 - i)) & 0xfffu];
            n = e < n ? e : n;
            pre[i - 15] = n;
        }
        int lim = 24 - opp_back; /* 0..25 */
        int a = lim < 16 ? 36 : pre[lim - 16];
        x[X_ACONTAIN] = BG_DIVC(36 - a, 36);
        x[X_ACONTAIN2] = x[X_ACONTAIN] * x[X_ACONTAIN];
        x[X_CONTAIN] = BG_DIVC(36 - pre[8], 36);
        x[X_CONTAIN2] = x[X_CONTAIN] * x[X_CONTAIN];
    }
    /* MOMENT2: over i > mean (bar included), b[i] (i - mean)^2 expanded */
    {
        int j = all.c + bar, s = all.l + 24 * bar, k = 0;
        if (j > 0) {
            int mean = ceil_div15(s, j); /* <= 24 */
            pt_sums up = sums_above(&pts, mean, 1);
            int j2 = up.c + (mean < 24) * bar;
            k = up.q - 2 * mean * up.l + mean * mean * up.c + (24 - mean) * (24 - mean) * bar;
            if (j2)
                k = ceil_div15(k, j2);
        }
        x[X_MOMENT2] = BG_DIVC(k, 400);
    }
    /* BACKBONE: the rearmost made point pa (never updated, gnubg's quirk)
     * against every made point j below it, down to point 1, weighing 11 up
     * to 6 pips away, then 6, 5, 4, 3, 2 at 7..11, 0 further: table
     * look-ups of the made points shifted so that bit 24 - (pa - j) is j's */
    {
        int pa = msb32((sb->made & 0xfffffeu) | 1u); /* 0 for none */
        uint32_t m = sb->made & ((1u << pa) - 1) & ~1u, y = m << (24 - pa);
        int w = 11 * POP6[(y >> 18) & 0x3fu] + IDX6[(y >> 13) & 0x1fu] + 2 * POP6[(y >> 13) & 0x1fu];
        /* 1 - w / (11 tot), in the reference build's order: (w * (1/11)) / tot */
        int tot = popcount32(m) * (int)b[pa];
        w *= (int)b[pa];
        x[X_BACKBONE] = tot ? 1.0f - BG_DIVC(w, 11) / (float)tot : 0.0f;
    }
    /* BACKG, BACKG1 */
    {
        int nac = POP6[(sb->made >> 18) & 0x3fu], tot = 0;
        for (int i = 18; i < 25; i++)
            tot += (int)b[i];
        /* integer selects (0 gives +0.0f): no branch */
        x[X_BACKG] = BG_DIVC((tot - 3) & -(nac > 1), 4);
        x[X_BACKG1] = BG_DIVC(tot & -(nac == 1), 8);
    }
    return all.c + bar;
}

/* b's fields against the opponent's points: hitting chances, mobility, entering. */
static void against_features(const bg_escape_tables *tab, const unsigned int *b,
                             const unsigned int *o, const side_bits *sb, const side_bits *so,
                             float *x)
{
    bg_hitting(tab, b, o, sb, so, x + X_PIPLOSS);
    /* MOBILITY (escapes through the opponent's points) */
    {
        int n = 0;
        uint32_t made = so->made & 0xffffffu;
        for (uint32_t m = sb->occ & ~0x3fu; m; m &= m - 1) {
            int i = __builtin_ctz(m);
            /* escape_mask(so->made, i) for i >= 6: below 12 the shift
             * leaves only i bits */
            uint32_t w = (made >> (24 - i)) & 0xfffu;
            n += (i - 5) * (int)b[i] * tab->esc[w];
        }
        x[X_MOBILITY] = BG_DIVC(n, 3600);
    }
    /* ENTER, ENTER2 */
    {
        int loss = tab->enter_loss[b[24] > 2 ? 2 : b[24]][so->made & 0x3fu];
        x[X_ENTER] = BG_DIVC(loss, 294);
        int n = POP6[so->made & 0x3fu];
        x[X_ENTER2] = BG_DIVC(36 - (n - 6) * (n - 6), 36);
    }
}

static unsigned int off_count(int total) { return total >= 15 ? 0 : 15 - (unsigned int)total; }

static void off_all(unsigned int m, float *f)
{
    if (m <= 5) {
        f[0] = BG_DIVC((int)m, 5);
        f[1] = f[2] = 0.0f;
    } else if (m <= 10) {
        f[0] = 1.0f;
        f[1] = BG_DIVC((int)m - 5, 5);
        f[2] = 0.0f;
    } else {
        f[0] = f[1] = 1.0f;
        f[2] = BG_DIVC((int)m - 10, 5);
    }
}

static void off_noncrashed(unsigned int m, float *f)
{
    if (m <= 2) {
        f[0] = BG_DIVC((int)m, 3);
        f[1] = f[2] = 0.0f;
    } else if (m <= 5) {
        f[0] = 1.0f;
        f[1] = BG_DIVC((int)m - 3, 3);
        f[2] = 0.0f;
    } else {
        f[0] = f[1] = 1.0f;
        f[2] = BG_DIVC((int)m - 6, 3);
    }
}

/* The plays of one roll leave the side on roll the same board, or one of
 * a few (the plays that hit send different chequers to the bar; a search
 * returns to a board): its own fields are kept per thread for the last
 * MEMO_N boards and opponent's rearmost points, replaced in turn. (World
 * class decisions: 46% of the lookups hit the last board, 72% one of the
 * last four; rollouts 76% and 95%.) */
enum { MEMO_N = 4 };
typedef struct {
    uint32_t key[MEMO_N]; /* memo_key of the entry; 0 for none */
    int total[MEMO_N];
    unsigned int board[MEMO_N][25];
    float x[MEMO_N][BG_N_CONTACT_EXTRAS]; /* the own fields (the others: any, rewritten on use) */
    unsigned int next;                    /* the entry replaced next */
} own_memo;

static _Thread_local own_memo memo;

/* A filter of the entries (never 0): equal for equal boards and rearmost
 * points; the boards are compared whole after. */
static uint32_t memo_key(const side_bits *s, int opp_back)
{
    return (s->occ ^ s->made << 7 ^ (uint32_t)(opp_back + 1) << 26) | 0x80000000u;
}

/* a[0..24] == b[0..24] (memcmp is a library call here) */
static int same_points(const unsigned int *a, const unsigned int *b)
{
#if defined(__SSE2__)
    __m128i d = _mm_cvtsi32_si128((int)(a[24] ^ b[24]));
    for (int k = 0; k < 6; k++)
        d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)a + k),
                                          _mm_loadu_si128((const __m128i *)b + k)));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xffff;
#else
    return !memcmp(a, b, 25 * sizeof *a);
#endif
}

/* The entry holding board b with key, or -1. */
static int memo_find(uint32_t key, const unsigned int *b)
{
    unsigned int m = 0;
    for (int k = 0; k < MEMO_N; k++)
        m |= (unsigned int)(memo.key[k] == key) << k;
    for (; m; m &= m - 1) {
        int k = __builtin_ctz(m);
        if (same_points(memo.board[k], b))
            return k;
    }
    return -1;
}

void bg_contact_extras(const bg_escape_tables *t, const bg_board b, int crashed,
                       float x[2][BG_N_CONTACT_EXTRAS], bg_side_scan scan[2])
{
    side_bits s0 = side_bits_of(b[0]), s1 = side_bits_of(b[1]);
    int back0 = 23 - msb_or_neg(s0.occ), back1 = 23 - msb_or_neg(s1.occ);
    uint32_t key = memo_key(&s1, back0);
    int total1, k = memo_find(key, b[1]), fresh = k < 0;
    if (!fresh) {
        memcpy(x[0], memo.x[k], sizeof memo.x[k]);
        total1 = memo.total[k];
    } else {
        total1 = own_features(t, b[1], &s1, back0, x[0]);
        k = (int)memo.next;
        memo.next = (memo.next + 1) % MEMO_N;
        memcpy(memo.board[k], b[1], sizeof memo.board[k]);
        memo.key[k] = key;
        memo.total[k] = total1;
    }
    against_features(t, b[1], b[0], &s1, &s0, x[0]);
    int total0 = own_features(t, b[0], &s0, back1, x[1]);
    against_features(t, b[0], b[1], &s0, &s1, x[1]);
    /* copied this late, the fields' stores have left the store buffer
     * (wide loads of fresh narrow stores stall) */
    if (fresh)
        memcpy(memo.x[k], x[0], sizeof memo.x[k]);
    scan[0] = (bg_side_scan){s0.occ, total0};
    scan[1] = (bg_side_scan){s1.occ, total1};
    unsigned int off1 = off_count(total1), off0 = off_count(total0);
    if (crashed) {
        off_all(off1, x[0]);
        off_all(off0, x[1]);
    } else {
        off_noncrashed(off0, x[0]);
        off_noncrashed(off1, x[1]);
    }
}
