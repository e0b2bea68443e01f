/* gnubg's weights files (weights.h): the text gnubg.weights and the binary
 * gnubg.wd, told apart by content, checked and laid out for the forward pass. */
#include "weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"

static const int net_dims[BG_NET_COUNT][3] = {
    {250, 128, 5}, {214, 128, 5}, {250, 128, 5}, {200, 16, 5}, {200, 16, 5}, {200, 8, 5},
};
static const char *const net_names[BG_NET_COUNT] = {
    "contact", "race", "crashed", "prune contact", "prune crashed", "prune race",
};

/* Arrays start on 64-byte boundaries (AVX-512 aligned loads). */
static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Carves every array out of one 64-byte aligned block. */
static int netset_alloc(bg_netset *set)
{
    size_t total = 0;
    for (int k = 0; k < BG_NET_COUNT; k++) {
        size_t in = (size_t)net_dims[k][0], hid = (size_t)net_dims[k][1];
        total += round16(in * hid) + hid * BG_NET_OUT_LANES + round16(hid) + 4 * hid +
                 round16(hid);
    }
    float *p = aligned_alloc(64, total * sizeof(float));
    if (!p)
        return -1;
    memset(p, 0, total * sizeof(float));
    set->block = p;
    for (int k = 0; k < BG_NET_COUNT; k++) {
        bg_net *n = &set->net[k];
        n->n_in = net_dims[k][0];
        n->n_hidden = net_dims[k][1];
        n->n_out = net_dims[k][2];
        n->w_hidden = p;
        p += round16((size_t)n->n_in * n->n_hidden);
        n->w_out_t = p;
        p += (size_t)n->n_hidden * BG_NET_OUT_LANES;
        n->w_out_q = p;
        p += 4 * (size_t)n->n_hidden;
        n->w_out_q4 = p;
        p += round16((size_t)n->n_hidden);
        n->th_hidden = p;
        p += round16((size_t)n->n_hidden);
        memset(n->th_out, 0, sizeof n->th_out);
    }
    return 0;
}

void bg_netset_free(bg_netset *set)
{
    if (!set)
        return;
    free(set->block);
    memset(set, 0, sizeof *set);
}

/* Stores value v of net k at file position pos (the file's float order:
 * hidden weights input-major, output weights output-major, hidden
 * thresholds, output thresholds). */
static void net_store(bg_net *n, size_t pos, float v)
{
    size_t nw = (size_t)n->n_in * n->n_hidden;
    size_t nv = (size_t)n->n_out * n->n_hidden;
    if (pos < nw) {
        n->w_hidden[pos] = v;
        return;
    }
    pos -= nw;
    if (pos < nv) {
        size_t o = pos / (size_t)n->n_hidden, h = pos % (size_t)n->n_hidden;
        n->w_out_t[h * BG_NET_OUT_LANES + o] = v;
        if (o < 4)
            n->w_out_q[(h / 4) * 16 + 4 * o + h % 4] = v;
        else
            n->w_out_q4[h] = v;
        return;
    }
    pos -= nv;
    if (pos < (size_t)n->n_hidden) {
        n->th_hidden[pos] = v;
        return;
    }
    pos -= (size_t)n->n_hidden;
    n->th_out[pos] = v;
}

static size_t net_floats(const bg_net *n)
{
    return (size_t)n->n_in * n->n_hidden + (size_t)n->n_out * n->n_hidden + (size_t)n->n_hidden +
           (size_t)n->n_out;
}

static uint64_t digest_u32(uint64_t h, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return bg_fnv1a(h, b, 4);
}

static uint64_t digest_f32(uint64_t h, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    return digest_u32(h, v);
}

static uint64_t digest_header(uint64_t h, const bg_net *n)
{
    h = digest_u32(h, (uint32_t)n->n_in);
    h = digest_u32(h, (uint32_t)n->n_hidden);
    h = digest_u32(h, (uint32_t)n->n_out);
    h = digest_f32(h, n->beta_hidden);
    return digest_f32(h, n->beta_output);
}

static int check_header(const char *path, int k, long in, long hid, long out, float bh, float bo,
                        char *err, int errlen)
{
    if (in != net_dims[k][0] || hid != net_dims[k][1] || out != net_dims[k][2]) {
        bg_file_error(err, errlen, path,
                      "net %d (%s) has dimensions %ld x %ld x %ld, expected %d x %d x %d", k + 1,
                      net_names[k], in, hid, out, net_dims[k][0], net_dims[k][1], net_dims[k][2]);
        return -1;
    }
    if (!(isfinite(bh) && isfinite(bo) && bh > 0.0f && bo > 0.0f)) {
        bg_file_error(err, errlen, path, "net %d (%s) has invalid beta values", k + 1, net_names[k]);
        return -1;
    }
    return 0;
}

/* -- binary gnubg.wd -- */

static const unsigned char wd_magic[4] = {0x69, 0x30, 0xec, 0x43};   /* 472.3782f */
static const unsigned char wd_v101[4] = {0xae, 0x47, 0x81, 0x3f};    /* 1.01f */
static const unsigned char wd_v100[4] = {0x00, 0x00, 0x80, 0x3f};    /* 1.00f */

static uint32_t rd_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rd_f32(const unsigned char *p)
{
    uint32_t v = rd_u32(p);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static int load_binary(bg_netset *set, const char *path, const unsigned char *buf, size_t len,
                       char *err, int errlen)
{
    if (len < 8) {
        bg_file_error(err, errlen, path, "truncated: %zu bytes, no complete header", len);
        return -1;
    }
    /* 1.00 (gnubg 1.07 and older) has 1.01's layout */
    if (memcmp(buf + 4, wd_v101, 4) != 0 && memcmp(buf + 4, wd_v100, 4) != 0) {
        bg_file_error(err, errlen, path, "unsupported binary weights version %g (need 1.00 or 1.01)",
                      (double)rd_f32(buf + 4));
        return -1;
    }
    size_t pos = 8;
    uint64_t h = BG_FNV_OFFSET;
    for (int k = 0; k < BG_NET_COUNT; k++) {
        bg_net *n = &set->net[k];
        if (len - pos < 24) {
            bg_file_error(err, errlen, path, "truncated in the header of net %d (%s) at byte %zu",
                          k + 1, net_names[k], pos);
            return -1;
        }
        long in = (int32_t)rd_u32(buf + pos), hid = (int32_t)rd_u32(buf + pos + 4),
             out = (int32_t)rd_u32(buf + pos + 8);
        float bh = rd_f32(buf + pos + 16), bo = rd_f32(buf + pos + 20);
        if (check_header(path, k, in, hid, out, bh, bo, err, errlen))
            return -1;
        n->beta_hidden = bh;
        n->beta_output = bo;
        h = digest_header(h, n);
        pos += 24;
        size_t cnt = net_floats(n);
        if ((len - pos) / 4 < cnt) {
            bg_file_error(err, errlen, path,
                          "truncated in net %d (%s): need %zu more bytes, have %zu", k + 1,
                          net_names[k], cnt * 4, len - pos);
            return -1;
        }
        for (size_t i = 0; i < cnt; i++, pos += 4) {
            float v = rd_f32(buf + pos);
            if (!isfinite(v)) {
                bg_file_error(err, errlen, path,
                              "net %d (%s): value %zu is not a finite number (byte %zu)", k + 1,
                              net_names[k], i, pos);
                return -1;
            }
            net_store(n, i, v);
            h = digest_f32(h, v);
        }
    }
    if (pos != len) {
        bg_file_error(err, errlen, path, "%zu unexpected trailing bytes after the last net",
                      len - pos);
        return -1;
    }
    set->digest = h;
    return 0;
}

/* -- text gnubg.weights -- */

typedef struct {
    const char *p, *end;
    int line;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')) {
        if (*c->p == '\n')
            c->line++;
        c->p++;
    }
}

/* Parses one decimal number (locale independent). Returns 0 or -1. */
static int parse_number(cursor *c, double *out)
{
    skip_space(c);
    const char *p = c->p;
    int neg = 0;
    if (p < c->end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    uint64_t mant = 0;
    int digits = 0, exp10 = 0, sig = 0;
    while (p < c->end && *p >= '0' && *p <= '9') {
        if (sig < 18) {
            mant = mant * 10 + (uint64_t)(*p - '0');
            if (mant)
                sig++;
        } else {
            exp10++;
        }
        p++;
        digits++;
    }
    if (p < c->end && *p == '.') {
        p++;
        while (p < c->end && *p >= '0' && *p <= '9') {
            if (sig < 18) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                if (mant)
                    sig++;
                exp10--;
            }
            p++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    if (p < c->end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0, e = 0, ed = 0;
        if (q < c->end && (*q == '-' || *q == '+'))
            eneg = *q++ == '-';
        while (q < c->end && *q >= '0' && *q <= '9') {
            if (e < 10000)
                e = e * 10 + (*q - '0');
            q++;
            ed++;
        }
        if (!ed)
            return -1;
        exp10 += eneg ? -e : e;
        p = q;
    }
    if (p < c->end && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        return -1;
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double v;
    if (mant < (1ULL << 53) && exp10 >= -22 && exp10 <= 22)
        v = exp10 < 0 ? (double)mant / pow10[-exp10] : (double)mant * pow10[exp10];
    else
        v = (double)mant * pow(10.0, exp10);
    *out = neg ? -v : v;
    c->p = p;
    return 0;
}

static int load_text(bg_netset *set, const char *path, const unsigned char *buf, size_t len,
                     char *err, int errlen)
{
    cursor c = {(const char *)buf, (const char *)buf + len, 1};
    const char *hdr = "GNU Backgammon ";
    c.p += strlen(hdr);
    const char *eol = memchr(c.p, '\n', (size_t)(c.end - c.p));
    if (!eol)
        eol = c.end;
    size_t vlen = (size_t)(eol - c.p);
    while (vlen && (c.p[vlen - 1] == '\r' || c.p[vlen - 1] == ' '))
        vlen--;
    if (!(vlen == 4 && (memcmp(c.p, "1.01", 4) == 0 || memcmp(c.p, "1.00", 4) == 0))) {
        bg_file_error(err, errlen, path, "unsupported weights version '%.*s' (need 1.00 or 1.01)",
                      (int)(vlen > 20 ? 20 : vlen), c.p);
        return -1;
    }
    c.p = eol;
    uint64_t h = BG_FNV_OFFSET;
    for (int k = 0; k < BG_NET_COUNT; k++) {
        bg_net *n = &set->net[k];
        double f[6];
        for (int t = 0; t < 6; t++) {
            if (parse_number(&c, &f[t])) {
                bg_file_error(err, errlen, path, "line %d: %s in the header of net %d (%s)",
                              c.line, c.p >= c.end ? "unexpected end of file" : "bad number",
                              k + 1, net_names[k]);
                return -1;
            }
        }
        for (int t = 0; t < 3; t++) {
            if (f[t] != floor(f[t]) || f[t] < 0 || f[t] > 100000) {
                bg_file_error(err, errlen, path, "line %d: bad net %d (%s) header", c.line, k + 1,
                              net_names[k]);
                return -1;
            }
        }
        if (check_header(path, k, (long)f[0], (long)f[1], (long)f[2], (float)f[4], (float)f[5],
                         err, errlen))
            return -1;
        n->beta_hidden = (float)f[4];
        n->beta_output = (float)f[5];
        h = digest_header(h, n);
        size_t cnt = net_floats(n);
        for (size_t i = 0; i < cnt; i++) {
            double d;
            if (parse_number(&c, &d)) {
                bg_file_error(err, errlen, path, "line %d: %s in net %d (%s), value %zu of %zu",
                              c.line, c.p >= c.end ? "unexpected end of file (truncated)" : "bad number",
                              k + 1, net_names[k], i, cnt);
                return -1;
            }
            float v = (float)d;
            if (!isfinite(v)) {
                bg_file_error(err, errlen, path, "line %d: value out of range in net %d (%s)",
                              c.line, k + 1, net_names[k]);
                return -1;
            }
            net_store(n, i, v);
            h = digest_f32(h, v);
        }
    }
    skip_space(&c);
    if (c.p != c.end) {
        bg_file_error(err, errlen, path, "line %d: unexpected text after the last net", c.line);
        return -1;
    }
    set->digest = h;
    return 0;
}

int bg_netset_load(bg_netset *set, const char *path, char *err, int errlen)
{
    memset(set, 0, sizeof *set);
    unsigned char *buf;
    size_t len;
    if (bg_read_file(path, &buf, &len, err, errlen))
        return -1;
    int rc;
    if (netset_alloc(set)) {
        bg_file_error(err, errlen, path, "out of memory");
        rc = -1;
    } else if (len >= 4 && memcmp(buf, wd_magic, 4) == 0) {
        rc = load_binary(set, path, buf, len, err, errlen);
    } else if (len >= 15 && memcmp(buf, "GNU Backgammon ", 15) == 0) {
        rc = load_text(set, path, buf, len, err, errlen);
    } else if (len == 0) {
        bg_file_error(err, errlen, path, "file is empty");
        rc = -1;
    } else {
        bg_file_error(err, errlen, path,
                      "not a gnubg weights file (no binary magic, no 'GNU Backgammon' header)");
        rc = -1;
    }
    free(buf);
    if (rc)
        bg_netset_free(set);
    return rc;
}
