/* Net inputs, written from gnubg-engine-spec section 3. */
#include "inputs.h"

#include <string.h>

/* Constant divisions as the gnubg reference build computes them: its
 * -ffast-math turns x / c into x * (1/c) with the reciprocal rounded to float. */
#ifndef BG_TRUE_DIVISION
#define DIVC(x, c) ((float)(x) * (1.0f / (float)(c)))
#else
#define DIVC(x, c) ((float)(x) / (float)(c))
#endif

/* ---- base block -------------------------------------------------------- */

static void encode_point(unsigned int n, float *f)
{
    f[0] = f[1] = f[2] = f[3] = 0.0f;
    if (n == 1) {
        f[0] = 1.0f;
    } else if (n == 2) {
        f[1] = 1.0f;
    } else if (n >= 3) {
        f[2] = 1.0f;
        f[3] = DIVC((int)n - 3, 2);
    }
}

static void encode_bar(unsigned int n, float *f)
{
    f[0] = n >= 1 ? 1.0f : 0.0f;
    f[1] = n >= 2 ? 1.0f : 0.0f;
    f[2] = n >= 3 ? 1.0f : 0.0f;
    f[3] = n > 3 ? DIVC((int)n - 3, 2) : 0.0f;
}

static void base_side(const unsigned int *s, float *out)
{
    for (int i = 0; i < 24; i++)
        encode_point(s[i], out + 4 * i);
    encode_bar(s[24], out + 96);
}

void bg_inputs_base(const bg_board b, float *out)
{
    base_side(b[0], out);
    base_side(b[1], out + 100);
}

/* ---- race -------------------------------------------------------------- */

static void race_side(const unsigned int *s, float *out)
{
    unsigned int total = 0;
    for (int i = 0; i < 25; i++)
        total += s[i];
    for (int i = 0; i < 23; i++)
        encode_point(s[i], out + 4 * i);
    unsigned int off = total >= 15 ? 0 : 15 - total;
    for (int k = 0; k < 14; k++)
        out[92 + k] = (off == (unsigned int)k + 1) ? 1.0f : 0.0f;
    int cross = 0;
    for (int q = 1; q <= 3; q++)
        for (int i = 6 * q; i < 6 * q + 6; i++)
            cross += q * (int)s[i];
    out[106] = DIVC(cross, 10);
}

void bg_inputs_race(const bg_board b, float *out)
{
    race_side(b[0], out);
    race_side(b[1], out + 107);
}

/* ---- escape tables ----------------------------------------------------- */

void bg_escape_tables_init(bg_escape_tables *t)
{
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
}

static int escape_mask(const unsigned int *b, int n)
{
    int m = 0, lim = n < 12 ? n : 12;
    for (int t = 0; t < lim; t++)
        if (b[24 + t - n] >= 2)
            m |= 1 << t;
    return m;
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

/* Hitting tables (spec 3.4). */
typedef struct {
    unsigned char all, inter[3], faces, pips;
} inter_t;

static const inter_t INTER[39] = {
    {1, {0, 0, 0}, 1, 1},   {1, {0, 0, 0}, 1, 2},   {1, {1, 0, 0}, 2, 2},   {1, {0, 0, 0}, 1, 3},
    {0, {1, 2, 0}, 2, 3},   {1, {1, 2, 0}, 3, 3},   {1, {0, 0, 0}, 1, 4},   {0, {1, 3, 0}, 2, 4},
    {1, {2, 0, 0}, 2, 4},   {1, {1, 2, 3}, 4, 4},   {1, {0, 0, 0}, 1, 5},   {0, {1, 4, 0}, 2, 5},
    {0, {2, 3, 0}, 2, 5},   {1, {0, 0, 0}, 1, 6},   {0, {1, 5, 0}, 2, 6},   {0, {2, 4, 0}, 2, 6},
    {1, {3, 0, 0}, 2, 6},   {1, {2, 4, 0}, 3, 6},   {0, {1, 6, 0}, 2, 7},   {0, {2, 5, 0}, 2, 7},
    {0, {3, 4, 0}, 2, 7},   {0, {2, 6, 0}, 2, 8},   {0, {3, 5, 0}, 2, 8},   {1, {4, 0, 0}, 2, 8},
    {1, {2, 4, 6}, 4, 8},   {0, {3, 6, 0}, 2, 9},   {0, {4, 5, 0}, 2, 9},   {1, {3, 6, 0}, 3, 9},
    {0, {4, 6, 0}, 2, 10},  {1, {5, 0, 0}, 2, 10},  {0, {5, 6, 0}, 2, 11},  {1, {6, 0, 0}, 2, 12},
    {1, {4, 8, 0}, 3, 12},  {1, {3, 6, 9}, 4, 12},  {1, {5, 10, 0}, 3, 15}, {1, {4, 8, 12}, 4, 16},
    {1, {6, 12, 0}, 3, 18}, {1, {5, 10, 15}, 4, 20}, {1, {6, 12, 18}, 4, 24},
};

/* HITWAYS[d] for d = 0..24, -1 terminated (at most 5 ways). */
static const signed char HITWAYS[25][6] = {
    {-1},
    {0, -1},
    {1, 2, -1},
    {3, 4, 5, -1},
    {6, 7, 8, 9, -1},
    {10, 11, 12, -1},
    {13, 14, 15, 16, 17, -1},
    {18, 19, 20, -1},
    {21, 22, 23, 24, -1},
    {25, 26, 27, -1},
    {28, 29, -1},
    {30, -1},
    {31, 32, 33, -1},
    {-1},
    {-1},
    {34, -1},
    {35, -1},
    {-1},
    {36, -1},
    {-1},
    {37, -1},
    {-1},
    {-1},
    {-1},
    {38, -1},
};

/* The 21 rolls: doubles first (weight 1), then the rest (weight 2). */
static const signed char ROLLS[21][4] = {
    {0, 2, 5, 9},    {1, 8, 17, 24},  {3, 16, 27, 33}, {6, 23, 32, 35}, {10, 29, 34, 37},
    {13, 31, 36, 38}, {0, 1, 4, -1},   {0, 3, 7, -1},   {1, 3, 12, -1},  {0, 6, 11, -1},
    {1, 6, 15, -1},  {3, 6, 20, -1},  {0, 10, 14, -1}, {1, 10, 19, -1}, {3, 10, 22, -1},
    {6, 10, 26, -1}, {0, 13, 18, -1}, {1, 13, 21, -1}, {3, 13, 25, -1}, {6, 13, 28, -1},
    {10, 13, 30, -1},
};

static int msb32(unsigned int x) { return 31 - __builtin_clz(x); }

/* PIPLOSS, P1, P2 for side b against opponent o. */
static void hit_features(const unsigned int *b, const unsigned int *o, float *x)
{
    unsigned int hit[39];
    memset(hit, 0, sizeof hit);
    int nboard = 0;
    for (int i = 0; i < 6; i++)
        if (b[i] >= 2)
            nboard++;
    for (int i = nboard > 2 ? 23 : 21; i >= 0; i--) {
        if (o[i] != 1)
            continue;
        for (int j = 24 - i; j <= 24; j++) {
            if (!b[j] || (j < 6 && b[j] == 2))
                continue;
            int d = i + j - 23;
            for (const signed char *w = HITWAYS[d]; *w >= 0; w++) {
                const inter_t *it = &INTER[*w];
                if (it->all) {
                    if (it->faces > 1) {
                        int blocked = 0;
                        for (int t = 0; t < 3; t++) {
                            int k = it->inter[t];
                            if (k && o[i - k] > 1) {
                                blocked = 1;
                                break;
                            }
                        }
                        if (blocked)
                            continue;
                    }
                } else {
                    if (o[i - it->inter[0]] > 1 && o[i - it->inter[1]] > 1)
                        continue;
                }
                hit[*w] |= 1u << j;
            }
        }
    }

    int np = 0, n1 = 0, n2 = 0;
    for (int r = 0; r < 21; r++) {
        int nch = 0, npips = 0;
        const signed char *ways = ROLLS[r];
        int is_double = r < 6;
        if (b[24] == 0) {
            int last = -1;
            for (int j = 0; j < 4 && ways[j] >= 0; j++) {
                int w = ways[j];
                unsigned int h = hit[w];
                if (!h)
                    continue;
                const inter_t *it = &INTER[w];
                int k = msb32(h);
                if (it->faces == 1) {
                    if (last != k || b[k] > 1)
                        nch++;
                    last = k;
                    if (k - it->pips + 1 > npips)
                        npips = k - it->pips + 1;
                    if (is_double && (h & ~(1u << k)))
                        nch++;
                } else {
                    if (nch == 0)
                        nch = 1;
                    if (k - it->pips + 1 > npips)
                        npips = k - it->pips + 1;
                    for (int t = 0; t < 3; t++) {
                        int xx = it->inter[t];
                        if (!xx)
                            continue;
                        if (o[23 - k + xx] == 1) {
                            nch++;
                            break;
                        }
                    }
                }
            }
        } else if (b[24] == 1) {
            int used = 0;
            for (int j = 0; j < 4 && ways[j] >= 0; j++) {
                int w = ways[j];
                unsigned int h = hit[w];
                if (!h)
                    continue;
                const inter_t *it = &INTER[w];
                if (it->faces == 1) {
                    for (int k = msb32(h); k >= 1; k--) {
                        if (!(h & (1u << k)))
                            continue;
                        if (used && k != 24)
                            break;
                        if (k != 24) {
                            int npp = INTER[ways[1 - j]].pips;
                            if (o[npp - 1] > 1)
                                break;
                            used = 1;
                        }
                        nch++;
                        if (k - it->pips + 1 > npips)
                            npips = k - it->pips + 1;
                    }
                } else if (h & (1u << 24)) {
                    if (nch == 0)
                        nch = 1;
                    if (25 - it->pips > npips)
                        npips = 25 - it->pips;
                    for (int t = 0; t < 3; t++) {
                        int xx = it->inter[t];
                        if (!xx)
                            continue;
                        if (o[xx + 1] == 1) {
                            nch++;
                            break;
                        }
                    }
                }
            }
        } else {
            for (int j = 0; j < 2; j++) {
                int w = ways[j];
                if ((hit[w] & (1u << 24)) && INTER[w].faces == 1) {
                    nch++;
                    if (25 - INTER[w].pips > npips)
                        npips = 25 - INTER[w].pips;
                }
            }
        }
        int wt = is_double ? 1 : 2;
        np += wt * npips;
        if (nch > 0)
            n1 += wt;
        if (nch > 1)
            n2 += wt;
    }
    x[X_PIPLOSS] = DIVC(np, 432);
    x[X_P1] = DIVC(n1, 36);
    x[X_P2] = DIVC(n2, 36);
}

static const int BACKBONE_AC[23] = {11, 11, 11, 11, 11, 11, 11, 6, 5, 4, 3, 2,
                                    0,  0,  0,  0,  0,  0,  0,  0, 0, 0, 0};

/* Fields 3..24 of one extra block: b's features against o. */
static void extra_features(const bg_escape_tables *tab, const unsigned int *b,
                           const unsigned int *o, float *x)
{
    int opp_back_raw = -1;
    for (int i = 24; i >= 0; i--)
        if (o[i]) {
            opp_back_raw = i;
            break;
        }
    int opp_back = 23 - opp_back_raw; /* nOppBack */
    int back = -1;
    for (int i = 24; i >= 0; i--)
        if (b[i]) {
            back = i;
            break;
        }

    /* BREAK_CONTACT */
    {
        int n = 0;
        for (int i = opp_back + 1; i <= 24; i++)
            if (i >= 0)
                n += (i + 1 - opp_back) * (int)b[i];
        x[X_BREAK_CONTACT] = DIVC(n, 167);
    }
    /* FREEPIP */
    {
        int p = 0;
        for (int i = 0; i < opp_back; i++)
            p += (i + 1) * (int)b[i];
        x[X_FREEPIP] = DIVC(p, 100);
    }
    /* TIMING */
    {
        int t = 24 * (int)b[24], no = (int)b[24];
        int m = opp_back < 11 ? 11 : opp_back;
        for (int i = 23; i > m; i--) {
            if (b[i] && b[i] != 2) {
                int ns = b[i] > 2 ? (int)b[i] - 2 : 1;
                no += ns;
                t += i * ns;
            }
        }
        for (int i = m; i >= 6; i--) {
            if (b[i]) {
                no += (int)b[i];
                t += i * (int)b[i];
            }
        }
        for (int i = 5; i >= 0; i--) {
            if (b[i] > 2) {
                t += i * ((int)b[i] - 2);
                no += (int)b[i] - 2;
            } else if (b[i] < 2) {
                int nm = 2 - (int)b[i];
                if (no >= nm) {
                    t -= i * nm;
                    no -= nm;
                }
            }
        }
        x[X_TIMING] = DIVC(t, 100);
    }
    /* BACK_CHEQUER, BACK_ANCHOR, FORWARD_ANCHOR */
    x[X_BACK_CHEQUER] = DIVC(back, 24);
    int anchor;
    {
        int i = back == 24 ? 23 : back;
        for (; i >= 0; i--)
            if (b[i] >= 2)
                break;
        anchor = i; /* -1 if none */
        x[X_BACK_ANCHOR] = DIVC(anchor, 24);
    }
    {
        int n = 0;
        for (int j = 18; j <= anchor; j++)
            if (b[j] >= 2) {
                n = 24 - j;
                break;
            }
        if (n == 0)
            for (int j = 17; j >= 12; j--)
                if (b[j] >= 2) {
                    n = 24 - j;
                    break;
                }
        x[X_FORWARD_ANCHOR] = n == 0 ? 2.0f : DIVC(n, 6);
    }

    hit_features(b, o, x);

    /* BACKESCAPES, BACKRESCAPES, ACONTAIN, CONTAIN */
    {
        int m = escape_mask(b, 23 - opp_back);
        x[X_BACKESCAPES] = DIVC(tab->esc[m], 36);
        x[X_BACKRESCAPES] = DIVC(tab->esc1[m], 36);
    }
    {
        int n = 36, i = 15;
        for (; i < 24 - opp_back; i++) {
            int e = tab->esc[escape_mask(b, i)];
            if (e < n)
                n = e;
        }
        x[X_ACONTAIN] = DIVC(36 - n, 36);
        x[X_ACONTAIN2] = x[X_ACONTAIN] * x[X_ACONTAIN];
        if (opp_back < 0) {
            i = 15;
            n = 36;
        }
        for (; i < 24; i++) {
            int e = tab->esc[escape_mask(b, i)];
            if (e < n)
                n = e;
        }
        x[X_CONTAIN] = DIVC(36 - n, 36);
        x[X_CONTAIN2] = x[X_CONTAIN] * x[X_CONTAIN];
    }
    /* MOBILITY */
    {
        int n = 0;
        for (int i = 6; i < 25; i++)
            if (b[i])
                n += (i - 5) * (int)b[i] * tab->esc[escape_mask(o, i)];
        x[X_MOBILITY] = DIVC(n, 3600);
    }
    /* MOMENT2 */
    {
        int j = 0, s = 0;
        for (int i = 0; i < 25; i++) {
            j += (int)b[i];
            s += i * (int)b[i];
        }
        int k = 0;
        if (j > 0) {
            int mean = (s + j - 1) / j, j2 = 0;
            for (int i = mean + 1; i < 25; i++) {
                if (b[i]) {
                    j2 += (int)b[i];
                    k += (int)b[i] * (i - mean) * (i - mean);
                }
            }
            if (j2)
                k = (k + j2 - 1) / j2;
        }
        x[X_MOMENT2] = DIVC(k, 400);
    }
    /* ENTER, ENTER2 */
    {
        int loss = 0;
        if (b[24]) {
            int two = b[24] > 1;
            for (int i = 0; i < 6; i++) {
                if (o[i] > 1) {
                    loss += 4 * (i + 1);
                    for (int j = i + 1; j < 6; j++) {
                        if (o[j] > 1)
                            loss += 2 * (i + j + 2);
                        else if (two)
                            loss += 2 * (i + 1);
                    }
                } else if (two) {
                    for (int j = i + 1; j < 6; j++)
                        if (o[j] > 1)
                            loss += 2 * (j + 1);
                }
            }
        }
        x[X_ENTER] = DIVC(loss, 294);
        int n = 0;
        for (int i = 0; i < 6; i++)
            if (o[i] > 1)
                n++;
        x[X_ENTER2] = DIVC(36 - (n - 6) * (n - 6), 36);
    }
    /* BACKBONE */
    {
        int pa = -1, w = 0, tot = 0;
        for (int p = 23; p >= 1; p--) {
            if (b[p] >= 2) {
                if (pa < 0) {
                    pa = p;
                    continue;
                }
                w += BACKBONE_AC[pa - p] * (int)b[pa];
                tot += (int)b[pa];
            }
        }
        x[X_BACKBONE] = tot ? 1.0f - (float)w / (float)(tot * 11) : 0.0f;
    }
    /* BACKG, BACKG1 */
    {
        int nac = 0, tot = 0;
        for (int i = 18; i < 24; i++)
            if (b[i] > 1)
                nac++;
        for (int i = 18; i < 25; i++)
            tot += (int)b[i];
        x[X_BACKG] = 0.0f;
        x[X_BACKG1] = 0.0f;
        if (nac > 1)
            x[X_BACKG] = DIVC(tot - 3, 4);
        else if (nac == 1)
            x[X_BACKG1] = DIVC(tot, 8);
    }
}

static unsigned int off_count(const unsigned int *s)
{
    unsigned int total = 0;
    for (int i = 0; i < 25; i++)
        total += s[i];
    return total >= 15 ? 0 : 15 - total;
}

static void off_all(unsigned int m, float *f)
{
    if (m <= 5) {
        f[0] = DIVC((int)m, 5);
        f[1] = f[2] = 0.0f;
    } else if (m <= 10) {
        f[0] = 1.0f;
        f[1] = DIVC((int)m - 5, 5);
        f[2] = 0.0f;
    } else {
        f[0] = f[1] = 1.0f;
        f[2] = DIVC((int)m - 10, 5);
    }
}

static void off_noncrashed(unsigned int m, float *f)
{
    if (m <= 2) {
        f[0] = DIVC((int)m, 3);
        f[1] = f[2] = 0.0f;
    } else if (m <= 5) {
        f[0] = 1.0f;
        f[1] = DIVC((int)m - 3, 3);
        f[2] = 0.0f;
    } else {
        f[0] = f[1] = 1.0f;
        f[2] = DIVC((int)m - 6, 3);
    }
}

void bg_inputs_contact(const bg_escape_tables *t, const bg_board b, int crashed, float *out)
{
    bg_inputs_base(b, out);
    float *blk_a = out + 200, *blk_b = out + 225;
    extra_features(t, b[1], b[0], blk_a);
    extra_features(t, b[0], b[1], blk_b);
    if (crashed) {
        off_all(off_count(b[1]), blk_a);
        off_all(off_count(b[0]), blk_b);
    } else {
        off_noncrashed(off_count(b[0]), blk_a);
        off_noncrashed(off_count(b[1]), blk_b);
    }
}
