/* Pruning-net evaluation. The nets read only the base encoding (gnubg's
 * point encoding: per side and point, n=1 -> input 4i, n=2 -> 4i+1, n>=3 -> 4i+2 and
 * (n-3)/2 at 4i+3; the bar cumulative at 96..99), so the hidden sums are
 * taken straight from the board, point by point in input order, without
 * building an input list: the same additions in the same order as the
 * sparse forward pass, hence the same floats (bg_search_selftest_prune).
 *
 * Input 4i+3 is added for every occupied point, times 0 when n <= 3: adding
 * a zero changes no sum (the sigmoid reads -0 and +0 alike) and saves an
 * unpredictable branch. */
#include "prune.h"

#include <string.h>

#include "bearoff.h"
#include "eval.h"
#include "inputs.h"
#include "nnet.h"
#include "position.h"
#include "racebg.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PRUNE_X86 1
#endif

/* (n - 3) / 2 for n >= 4 chequers (n clamped to 15 as the encoding), else 0. */
static const float EXTRA[16] = {0, 0, 0, 0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f, 5, 5.5f, 6};

static inline unsigned int clamp15(unsigned int n) { return n > 15 ? 15 : n; }

/* The row of the first non-zero input of a point with n >= 1 chequers. */
static inline int first_row(int i, unsigned int n) { return 4 * i + (n < 3 ? (int)n - 1 : 2); }

/* The bar's rows: 96.. for the first three chequers, 99 times EXTRA. */
static inline unsigned int bar_rows(unsigned int n) { return n < 3 ? n : 3; }

/* Portable: four hidden units per vector (SSE2 on x86-64). */
typedef float v4f __attribute__((vector_size(16)));

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

#define INLINE static inline __attribute__((always_inline))

/* One side's inputs (rows w, nv vectors per row) into acc. */
INLINE void side_v4(const float *w, int nv, const unsigned int *s, v4f *acc)
{
    const int nh = 4 * nv;
    for (uint32_t o = bg_occupied(s) & 0xffffffu; o; o &= o - 1) {
        int i = __builtin_ctz(o);
        unsigned int n = clamp15(s[i]);
        const float *r1 = w + (size_t)first_row(i, n) * nh, *r3 = w + (size_t)(4 * i + 3) * nh;
        v4f x = {EXTRA[n], EXTRA[n], EXTRA[n], EXTRA[n]};
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++)
            acc[v] = (acc[v] + load4(r1 + 4 * v)) + load4(r3 + 4 * v) * x;
    }
    unsigned int bar = clamp15(s[BG_BAR]);
    for (unsigned int j = 0; j < bar_rows(bar); j++)
        for (int v = 0; v < nv; v++)
            acc[v] += load4(w + (size_t)(96 + j) * nh + 4 * v);
    v4f x = {EXTRA[bar], EXTRA[bar], EXTRA[bar], EXTRA[bar]};
    for (int v = 0; v < nv; v++)
        acc[v] += load4(w + (size_t)99 * nh + 4 * v) * x;
}

INLINE void sums_v4(const bg_net *net, const bg_board b, int nv, float *h)
{
    v4f acc[BG_NET_MAX_HIDDEN / 4];
    for (int v = 0; v < nv; v++)
        acc[v] = load4(net->th_hidden + 4 * v);
    side_v4(net->w_hidden, nv, b[0], acc);
    side_v4(net->w_hidden + (size_t)100 * 4 * nv, nv, b[1], acc);
    memcpy(h, acc, (size_t)nv * sizeof(v4f));
}

static void sums_one(const bg_net *net, const bg_board b, float *h)
{
    if (net->n_hidden == 16)
        sums_v4(net, b, 4, h);
    else if (net->n_hidden == 8)
        sums_v4(net, b, 2, h);
    else
        sums_v4(net, b, net->n_hidden / 4, h);
}

static void sums_portable(const bg_net *net, const bg_board a, const bg_board b, float *ha,
                          float *hb)
{
    sums_one(net, a, ha);
    if (hb != ha)
        sums_one(net, b, hb);
}

#ifdef PRUNE_X86
/* AVX-512 (16 hidden units, one register) and AVX2 (8 units). Two boards go
 * through together while both have points left: their sums are two
 * independent chains of additions (each in its own input order), so the core
 * runs them side by side; the board with more points then finishes alone. */

/* first_row(i, n) - 4 * i for n = 1..15. */
static const unsigned char FIRST_ROW_OFF[16] = {0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};

/* acc += the rows of the lowest occupied point in o (side s). */
#define POINT_WIDE(s, o, acc, LOAD, ADD, MUL, SET1)                                            \
    do {                                                                                     \
        int i_ = __builtin_ctz(o);                                                           \
        unsigned int n_ = clamp15((s)[i_]);                                                  \
        const float *p_ = w + (size_t)(4 * i_) * NH;                                         \
        acc = ADD(ADD(acc, LOAD(p_ + FIRST_ROW_OFF[n_] * NH)),                               \
                  MUL(LOAD(p_ + 3 * NH), SET1(EXTRA[n_])));                                  \
    } while (0)

#define BAR_WIDE(s, acc, LOAD, ADD, MUL, SET1)                                                 \
    do {                                                                                     \
        unsigned int bar = clamp15((s)[BG_BAR]);                                             \
        for (unsigned int j = 0; j < bar_rows(bar); j++)                                     \
            acc = ADD(acc, LOAD(w + (size_t)(96 + j) * NH));                                 \
        acc = ADD(acc, MUL(LOAD(w + (size_t)99 * NH), SET1(EXTRA[bar])));                    \
    } while (0)

#define SIDE_PAIR(LOAD, ADD, MUL, SET1)                                                        \
    uint32_t oa = bg_occupied(sa) & 0xffffffu, ob = bg_occupied(sb) & 0xffffffu;             \
    for (; oa && ob; oa &= oa - 1, ob &= ob - 1) {                                           \
        POINT_WIDE(sa, oa, *acc_a, LOAD, ADD, MUL, SET1);                                    \
        POINT_WIDE(sb, ob, *acc_b, LOAD, ADD, MUL, SET1);                                    \
    }                                                                                        \
    for (; oa; oa &= oa - 1)                                                                 \
        POINT_WIDE(sa, oa, *acc_a, LOAD, ADD, MUL, SET1);                                    \
    for (; ob; ob &= ob - 1)                                                                 \
        POINT_WIDE(sb, ob, *acc_b, LOAD, ADD, MUL, SET1);                                    \
    BAR_WIDE(sa, *acc_a, LOAD, ADD, MUL, SET1);                                              \
    BAR_WIDE(sb, *acc_b, LOAD, ADD, MUL, SET1)

#define NH 16
__attribute__((target("avx512f"))) static inline void side_pair_avx512(const float *w,
                                                                      const unsigned int *sa,
                                                                      const unsigned int *sb,
                                                                      __m512 *acc_a, __m512 *acc_b)
{
    SIDE_PAIR(_mm512_loadu_ps, _mm512_add_ps, _mm512_mul_ps, _mm512_set1_ps);
}
#undef NH
#define NH 8
__attribute__((target("avx2"))) static inline void side_pair_avx2(const float *w,
                                                                const unsigned int *sa,
                                                                const unsigned int *sb,
                                                                __m256 *acc_a, __m256 *acc_b)
{
    SIDE_PAIR(_mm256_loadu_ps, _mm256_add_ps, _mm256_mul_ps, _mm256_set1_ps);
}
#undef NH

/* The sums of boards a and b (b may be a itself when alone). */
#define SUMS_PAIR(T, SIDE, LOADU, STOREU, NHID)                                                \
    T acc_a = LOADU(net->th_hidden), acc_b = acc_a;                                          \
    SIDE(net->w_hidden, a[0], b[0], &acc_a, &acc_b);                                         \
    SIDE(net->w_hidden + 100 * NHID, a[1], b[1], &acc_a, &acc_b);                            \
    STOREU(ha, acc_a);                                                                       \
    STOREU(hb, acc_b)

__attribute__((target("avx512f"))) static void sums_avx512(const bg_net *net, const bg_board a,
                                                          const bg_board b, float *ha, float *hb)
{
    SUMS_PAIR(__m512, side_pair_avx512, _mm512_loadu_ps, _mm512_storeu_ps, 16);
}

__attribute__((target("avx2"))) static void sums_avx2(const bg_net *net, const bg_board a,
                                                      const bg_board b, float *ha, float *hb)
{
    SUMS_PAIR(__m256, side_pair_avx2, _mm256_loadu_ps, _mm256_storeu_ps, 8);
}
#endif

/* The hidden sums of boards a and b into ha and hb (hb == ha: a alone). */
typedef void (*sums_fn)(const bg_net *net, const bg_board a, const bg_board b, float *ha,
                        float *hb);

/* The widest code the engine's kernel allows for this net. */
static sums_fn pick_sums(const struct bg_engine *e, const bg_net *net)
{
#ifdef PRUNE_X86
    int isa = bg_forward_isa(e->forward);
    if (net->n_hidden == 16 && isa == BG_ISA_AVX512)
        return sums_avx512;
    if (net->n_hidden == 8 && isa >= BG_ISA_AVX2)
        return sums_avx2;
#else
    (void)e;
#endif
    (void)net;
    return sums_portable;
}

void bg_eval_prune_many(const struct bg_engine *e, const bg_board *b, const bg_board_scan *scan,
                        int k, int pos_class, float (*out)[5])
{
    int id = pos_class == BG_CLASS_RACE      ? BG_NET_PRUNE_RACE
             : pos_class == BG_CLASS_CRASHED ? BG_NET_PRUNE_CRASHED
                                             : BG_NET_PRUNE_CONTACT;
    const bg_net *net = &e->nets.net[id];
    sums_fn sums = pick_sums(e, net);
    /* in phases, so that the out-of-order core overlaps the positions'
     * chains of dependent operations */
    for (int j0 = 0; j0 < k; j0 += BG_PRUNE_BATCH) {
        int n = k - j0 < BG_PRUNE_BATCH ? k - j0 : BG_PRUNE_BATCH;
        float h[BG_PRUNE_BATCH][BG_NET_MAX_HIDDEN] __attribute__((aligned(64)));
        for (int j = 0; j < n; j += 2)
            if (j + 1 < n)
                sums(net, b[j0 + j], b[j0 + j + 1], h[j], h[j + 1]);
            else
                sums(net, b[j0 + j], b[j0 + j], h[j], h[j]);
        bg_forward_finish_many(e->forward, net, h, n, out + j0);
    }
    for (int j = 0; j < k; j++) {
        if (pos_class == BG_CLASS_RACE)
            bg_race_bg_override(&e->os, &e->ts, b[j], out[j]);
        bg_sanity_check_scan(&e->os, b[j], &scan[j], out[j]);
    }
}

/* ---- test hook ------------------------------------------------------------------------------ */

/* The base encoding written densely and directly, the reference
 * for the sparse builder behind bg_eval_prune_many. */
static void dense_base_reference(const bg_board b, float *in)
{
    memset(in, 0, BG_N_BASE_INPUTS * sizeof(float));
    for (int s = 0; s < 2; s++) {
        float *x = in + 100 * s;
        for (int i = 0; i < 24; i++) {
            unsigned int n = b[s][i];
            if (n >= 1 && n <= 3)
                x[4 * i + (int)n - 1] = 1.0f;
            if (n >= 3) {
                x[4 * i + 2] = 1.0f;
                x[4 * i + 3] = (float)(n - 3) / 2.0f;
            }
        }
        unsigned int n = b[s][24];
        for (unsigned int j = 0; j < 3; j++)
            x[96 + j] = n > j ? 1.0f : 0.0f;
        x[99] = n > 3 ? (float)(n - 3) / 2.0f : 0.0f;
    }
}

int bg_search_selftest_prune(const bg_engine *e, const unsigned int *boards, int n_boards)
{
    int bad = 0;
    /* batches of 1, 2, ..., BG_PRUNE_BATCH boards in turn */
    for (int i = 0, chunk = 0; i < n_boards; i += chunk) {
        chunk = 1 + (i / 3) % BG_PRUNE_BATCH;
        if (chunk > n_boards - i)
            chunk = n_boards - i;
        bg_board b[BG_PRUNE_BATCH];
        bg_board_scan scan[BG_PRUNE_BATCH];
        for (int j = 0; j < chunk; j++) {
            if (board_load(boards + 50 * (size_t)(i + j), b[j]))
                return -1;
            bg_classify_scan((const unsigned int(*)[25])b[j], &scan[j]);
        }
        for (int cls = BG_CLASS_RACE; cls <= BG_CLASS_CONTACT; cls++) {
            int net = cls == BG_CLASS_RACE      ? BG_NET_PRUNE_RACE
                      : cls == BG_CLASS_CRASHED ? BG_NET_PRUNE_CRASHED
                                                : BG_NET_PRUNE_CONTACT;
            float x[BG_PRUNE_BATCH][5];
            bg_eval_prune_many(e, (const bg_board *)b, scan, chunk, cls, x);
            for (int j = 0; j < chunk; j++) {
                const unsigned int(*cb)[25] = (const unsigned int(*)[25])b[j];
                float in[BG_N_BASE_INPUTS], y[5];
                dense_base_reference(cb, in);
                bg_forward_dense(e->forward, &e->nets.net[net], in, y);
                if (cls == BG_CLASS_RACE)
                    bg_race_bg_override(&e->os, &e->ts, cb, y);
                bg_sanity_check(&e->os, cb, y);
                bad += memcmp(x[j], y, sizeof y) != 0;
            }
        }
    }
    return bad;
}
