/* gnubg's net inputs (the contact extras: contact.c). */
#include "inputs.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "contact.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define BG_SPARSE_WIDE 1
#endif

/* ---- base block -------------------------------------------------------- */

/* gnubg's point encoding of n = 0..15 chequers: n=1 -> (1,0,0,0),
 * n=2 -> (0,1,0,0), n>=3 -> (0,0,1,(n-3)/2) (as sparse pairs below); the
 * bar is cumulative. */
static const float BAR_CODE[16][4] __attribute__((aligned(16))) = {
    {0, 0, 0, 0},    {1, 0, 0, 0},    {1, 1, 0, 0},    {1, 1, 1, 0},
    {1, 1, 1, 0.5f}, {1, 1, 1, 1},    {1, 1, 1, 1.5f}, {1, 1, 1, 2},
    {1, 1, 1, 2.5f}, {1, 1, 1, 3},    {1, 1, 1, 3.5f}, {1, 1, 1, 4},
    {1, 1, 1, 4.5f}, {1, 1, 1, 5},    {1, 1, 1, 5.5f}, {1, 1, 1, 6},
};

static unsigned int clamp15(unsigned int n) { return n > 15 ? 15 : n; }

/* Appends the bar's non-zero codes (offset base) to a sparse list. */
static inline int sparse_bar(int *idx, float *val, int m, int base, unsigned int n)
{
    const float *code = BAR_CODE[clamp15(n)];
    for (int k = 0; k < 4; k++) {
        idx[m] = base + k;
        val[m] = code[k];
        m += code[k] != 0.0f;
    }
    return m;
}

/* The non-zero codes of a point (not the bar) holding n >= 1 chequers: one
 * 1 at code FIRST_CODE[n], then (n - 3) / 2 at code 3 when n >= 4. Both
 * entries are written as one pair (8 bytes of idx, 8 of val; the second is
 * overwritten when n < 4) and the count advances by 1 or 2: this runs for
 * every occupied point of every pruning-net, race and contact evaluation. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CODE_PAIR(first) ((uint64_t)(first) << 32 | 3u) /* idx[m] is the high half */
#else
#define CODE_PAIR(first) ((uint64_t)(first) | (uint64_t)3 << 32)
#endif
static const uint64_t CODE_IDX[16] = {
    CODE_PAIR(0), CODE_PAIR(0), CODE_PAIR(1), CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2),
    CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2),
    CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2), CODE_PAIR(2)};
#undef CODE_PAIR
static const float CODE_VAL[16][2] __attribute__((aligned(8))) = {
    {1, 0},    {1, 0}, {1, 0},    {1, 0}, {1, 0.5f}, {1, 1},    {1, 1.5f}, {1, 2},
    {1, 2.5f}, {1, 3}, {1, 3.5f}, {1, 4}, {1, 4.5f}, {1, 5},    {1, 5.5f}, {1, 6}};

/* The point encodings of the occupied points pts (a bitmap, the bar
 * excluded) of a side. The count is pointer-sized: it indexes without a
 * sign extension. */
static inline __attribute__((always_inline)) int sparse_points(const unsigned int *s, uint32_t pts,
                                                               int base, int *idx, float *val,
                                                               int m0)
{
    ptrdiff_t m = m0;
    for (uint32_t o = pts; o; o &= o - 1) {
        int i = __builtin_ctz(o);
        unsigned int n = clamp15(s[i]);
        uint64_t pair = CODE_IDX[n] + (uint64_t)(uint32_t)(base + 4 * i) * 0x100000001ULL;
        memcpy(idx + m, &pair, sizeof pair);
        memcpy(val + m, CODE_VAL[n], sizeof CODE_VAL[n]);
        m += 1 + ((n + 12) >> 4); /* 2 when n >= 4 (n <= 15), arithmetic: no branch */
    }
    return (int)m;
}

/* The base encoding of one side's occupied points (occ: bitmap of 0..24). */
static inline __attribute__((always_inline)) int
sparse_base_side(const unsigned int *s, uint32_t occ, int base, int *idx, float *val, int m0)
{
    int m = sparse_points(s, occ & 0xffffffu, base, idx, val, m0);
    if (occ >> 24)
        return sparse_bar(idx, val, m, base + 96, s[24]);
    return m;
}

void bg_sparse_base(const bg_board b, bg_sparse *out)
{
    int m = sparse_base_side(b[0], bg_occupied(b[0]), 0, out->idx, out->val, 0);
    out->n = sparse_base_side(b[1], bg_occupied(b[1]), 100, out->idx, out->val, m);
}

/* Appends the non-zero entries of a dense block, unrolled and branch-free.
 * Testing the bits without the sign is x != 0.0f (NaN included) without a
 * float compare; a pointer-sized count indexes without a sign extension. */
static inline int sparse_append(const float *x, int count, int base, int *idx, float *val, int m0)
{
    ptrdiff_t m = m0;
#pragma GCC unroll 25
    for (int k = 0; k < count; k++) {
        uint32_t u;
        memcpy(&u, &x[k], sizeof u);
        idx[m] = base + k;
        val[m] = x[k];
        m += (u << 1) != 0;
    }
    return (int)m;
}

#ifdef BG_SPARSE_WIDE
/* sparse_append of the two extra blocks by vector compresses: the same
 * entries. The stores run up to 16 slots past the list's end, which stays
 * within idx/val (at most 104 base entries precede the 50 extras). */
__attribute__((target("avx512f,popcnt"))) static int
sparse_extras_avx512(const float (*blk)[BG_N_CONTACT_EXTRAS], int *idx, float *val, int m)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i nosign = _mm512_set1_epi32(0x7fffffff);
    for (int s = 0; s < 2; s++) {
        for (int h = 0; h < 2; h++) {
            const float *x = blk[s] + 16 * h;
            __mmask16 lanes = h ? (1u << (BG_N_CONTACT_EXTRAS - 16)) - 1 : 0xffff;
            __m512 v = _mm512_maskz_loadu_ps(lanes, x);
            __mmask16 nz = _mm512_mask_test_epi32_mask(lanes, _mm512_castps_si512(v), nosign);
            __m512i i = _mm512_add_epi32(iota, _mm512_set1_epi32(200 + BG_N_CONTACT_EXTRAS * s + 16 * h));
            _mm512_storeu_ps(val + m, _mm512_maskz_compress_ps(nz, v));
            _mm512_storeu_si512(idx + m, _mm512_maskz_compress_epi32(nz, i));
            m += _mm_popcnt_u32(nz);
        }
    }
    return m;
}
#endif

static int sparse_race_side(const unsigned int *s, int base, int *idx, float *val, int m)
{
    unsigned int total = 0;
    for (int i = 0; i < 25; i++)
        total += s[i];
    m = sparse_points(s, bg_occupied(s) & 0x7fffffu, base, idx, val, m);
    unsigned int off = total >= 15 ? 0 : 15 - total;
    if (off >= 1 && off <= 14) {
        idx[m] = base + 92 + (int)off - 1;
        val[m++] = 1.0f;
    }
    int cross = 0;
    for (int q = 1; q <= 3; q++)
        for (int i = 6 * q; i < 6 * q + 6; i++)
            cross += q * (int)s[i];
    idx[m] = base + 106;
    val[m] = BG_DIVC(cross, 10);
    return m + (cross != 0);
}

void bg_sparse_race(const bg_board b, bg_sparse *out)
{
    int m = sparse_race_side(b[0], 0, out->idx, out->val, 0);
    out->n = sparse_race_side(b[1], 107, out->idx, out->val, m);
}

static void sparse_to_dense(const bg_sparse *sp, int count, float *out)
{
    memset(out, 0, (size_t)count * sizeof(float));
    for (int k = 0; k < sp->n; k++)
        out[sp->idx[k]] = sp->val[k];
}

void bg_inputs_base(const bg_board b, float *out)
{
    bg_sparse sp;
    bg_sparse_base(b, &sp);
    sparse_to_dense(&sp, BG_N_BASE_INPUTS, out);
}

void bg_inputs_race(const bg_board b, float *out)
{
    bg_sparse sp;
    bg_sparse_race(b, &sp);
    sparse_to_dense(&sp, BG_N_RACE_INPUTS, out);
}

/* ---- contact inputs ---------------------------------------------------- */

void bg_sparse_contact(const bg_escape_tables *t, const bg_board b, int crashed, bg_sparse *out,
                       bg_side_scan scan[2])
{
    float blk[2][BG_N_CONTACT_EXTRAS];
    bg_contact_extras(t, b, crashed, blk, scan);
    int m = sparse_base_side(b[0], scan[0].occ, 0, out->idx, out->val, 0);
    m = sparse_base_side(b[1], scan[1].occ, 100, out->idx, out->val, m);
#ifdef BG_SPARSE_WIDE
    if (t->wide) {
        out->n = sparse_extras_avx512((const float(*)[BG_N_CONTACT_EXTRAS])blk, out->idx, out->val, m);
        return;
    }
#endif
    m = sparse_append(blk[0], BG_N_CONTACT_EXTRAS, 200, out->idx, out->val, m);
    out->n = sparse_append(blk[1], BG_N_CONTACT_EXTRAS, 225, out->idx, out->val, m);
}

void bg_inputs_contact(const bg_escape_tables *t, const bg_board b, int crashed, float *out)
{
    bg_sparse sp;
    bg_side_scan scan[2];
    bg_sparse_contact(t, b, crashed, &sp, scan);
    sparse_to_dense(&sp, BG_N_CONTACT_INPUTS, out);
}
