/* The contact extras (contact.h), written from gnubg-engine-spec section 3.4. */
#include "contact.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define BG_HIT_WIDE 1
#endif

/* ---- escape tables ----------------------------------------------------- */

void bg_escape_tables_init(bg_escape_tables *t, int wide)
{
#ifdef BG_HIT_WIDE
    __builtin_cpu_init();
    t->wide = wide && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
#else
    (void)wide;
    t->wide = 0;
#endif
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

/* Bitmaps of one side's points 0..24 (its own coordinates). */
typedef struct {
    uint32_t occ;  /* at least one chequer */
    uint32_t blot; /* exactly one */
    uint32_t two;  /* exactly two */
    uint32_t made; /* two or more */
} side_bits;

static inline side_bits side_bits_of(const unsigned int *b)
{
    side_bits s = {0, 0, 0, 0};
#if defined(__SSE2__)
    /* points 0..24 as bytes, the bar in byte 24 (no branches on it) */
    const __m128i *p = (const __m128i *)b;
    __m128i lo = _mm_packs_epi16(_mm_packs_epi32(_mm_loadu_si128(p), _mm_loadu_si128(p + 1)),
                                 _mm_packs_epi32(_mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3)));
    __m128i hi = _mm_packs_epi16(_mm_packs_epi32(_mm_loadu_si128(p + 4), _mm_loadu_si128(p + 5)),
                                 _mm_cvtsi32_si128((int)b[24]));
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1), two = _mm_set1_epi8(2);
#define BYTE_MASK(cmp, k) \
    ((uint32_t)_mm_movemask_epi8(cmp(lo, k)) | (uint32_t)_mm_movemask_epi8(cmp(hi, k)) << 16)
    s.occ = ~BYTE_MASK(_mm_cmpeq_epi8, zero) & 0x1ffffffu;
    s.blot = BYTE_MASK(_mm_cmpeq_epi8, one);
    s.two = BYTE_MASK(_mm_cmpeq_epi8, two);
    s.made = BYTE_MASK(_mm_cmpgt_epi8, one);
#undef BYTE_MASK
#else
    for (int i = 0; i < 25; i++) {
        unsigned int n = b[i];
        s.occ |= (uint32_t)(n != 0) << i;
        s.blot |= (uint32_t)(n == 1) << i;
        s.two |= (uint32_t)(n == 2) << i;
        s.made |= (uint32_t)(n >= 2) << i;
    }
#endif
    return s;
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

static inline pt_sums sums_above(const side_pts *s, int thr)
{
    static const short IDX[3][8] __attribute__((aligned(16))) = {
        {0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}, {16, 17, 18, 19, 20, 21, 22, 23}};
    static const short IDX2[3][8] __attribute__((aligned(16))) = {
        {0, 1, 4, 9, 16, 25, 36, 49},
        {64, 81, 100, 121, 144, 169, 196, 225},
        {256, 289, 324, 361, 400, 441, 484, 529}};
    const __m128i t = _mm_set1_epi16((short)thr), one = _mm_set1_epi16(1);
    __m128i c = _mm_setzero_si128(), l = c, q = c;
    for (int k = 0; k < 3; k++) {
        __m128i i = _mm_load_si128((const __m128i *)IDX[k]);
        __m128i v = _mm_and_si128(s->v[k], _mm_cmpgt_epi16(i, t));
        c = _mm_add_epi32(c, _mm_madd_epi16(v, one));
        l = _mm_add_epi32(l, _mm_madd_epi16(v, i));
        q = _mm_add_epi32(q, _mm_madd_epi16(v, _mm_load_si128((const __m128i *)IDX2[k])));
    }
    return (pt_sums){hsum32(c), hsum32(l), hsum32(q)};
}
#else
typedef struct {
    const unsigned int *b;
} side_pts;

static inline side_pts side_pts_of(const unsigned int *b) { return (side_pts){b}; }

static inline pt_sums sums_above(const side_pts *s, int thr)
{
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

/* The bits of a byte reversed. */
#define REV2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define REV4(n) REV2(n), REV2(n + 2 * 16), REV2(n + 1 * 16), REV2(n + 3 * 16)
#define REV6(n) REV4(n), REV4(n + 2 * 4), REV4(n + 1 * 4), REV4(n + 3 * 4)
static const unsigned char REV8[256] = {REV6(0), REV6(2), REV6(1), REV6(3)};
#undef REV6
#undef REV4
#undef REV2

/* Points 0..23 seen from the other side: bit i -> bit 23 - i (three
 * look-ups instead of five swap steps). */
static uint32_t flip24(uint32_t x)
{
    return (uint32_t)REV8[x & 0xffu] << 16 | (uint32_t)REV8[x >> 8 & 0xffu] << 8 | REV8[x >> 16 & 0xffu];
}

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

static int msb32(uint32_t x) { return 31 - __builtin_clz(x); }

/* Highest set bit, or none when x == 0. */
/* Highest set bit, or -1 when x == 0: with no test of x (a branch on
 * unpredictable bitmaps). */
static int msb_or_neg(uint32_t x) { return 62 - __builtin_clzll((uint64_t)x << 1 | 1u); }

/* Popcount of 6 bits (no POPCNT instruction in baseline x86-64). */
static const unsigned char POP6[64] = {
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
    1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6};

/* The sum of the positions of the set bits of 6 bits. */
#define IDX6_(x) (((x) >> 1 & 1) + ((x) >> 2 & 1) * 2 + ((x) >> 3 & 1) * 3 + ((x) >> 4 & 1) * 4 + \
                  ((x) >> 5 & 1) * 5)
#define IDX6_4(x) IDX6_(x), IDX6_(x + 1), IDX6_(x + 2), IDX6_(x + 3)
#define IDX6_16(x) IDX6_4(x), IDX6_4(x + 4), IDX6_4(x + 8), IDX6_4(x + 12)
static const unsigned char IDX6[64] = {IDX6_16(0), IDX6_16(16), IDX6_16(32), IDX6_16(48)};
#undef IDX6_16
#undef IDX6_4
#undef IDX6_

static int popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* Hitting tables (spec 3.4). The 39 ways to hit by slot of hit[], laid out
 * for the roll walk: slots 0..14 the combined way of the 15 non-double
 * rolls (dice i < j counted from 0, roll r = j (j - 1) / 2 + i), slot 15
 * unused, slots 16 + 4d .. 19 + 4d die d's direct way, then the ways of 2,
 * 3 and 4 moves of the double d-d. */
#define DIRECT_SLOTS 0x1111110000ULL

/* DIRECT_SLOTS as a mask per slot: all ones for a direct way. */
#define DW(s) (0u - (unsigned int)(DIRECT_SLOTS >> (s) & 1))
#define DW4(s) DW(s), DW(s + 1), DW(s + 2), DW(s + 3)
static const unsigned int DIRECT_WAY[40] = {DW4(0),  DW4(4),  DW4(8),  DW4(12), DW4(16),
                                            DW4(20), DW4(24), DW4(28), DW4(32), DW4(36)};
#undef DW4
#undef DW

/* Combined ways of the non-doubles as {slot, pips, shifts}; a shift is
 * pips - k for an intermediate k. */
static const unsigned char PAIR_WAYS[15][4] = {
    {0, 3, 2, 1},  {1, 4, 3, 1},  {2, 5, 3, 2},  {3, 5, 4, 1},  {4, 6, 4, 2},
    {5, 7, 4, 3},  {6, 6, 5, 1},  {7, 7, 5, 2},  {8, 8, 5, 3},  {9, 9, 5, 4},
    {10, 7, 6, 1}, {11, 8, 6, 2}, {12, 9, 6, 3}, {13, 10, 6, 4}, {14, 11, 6, 5}};

/* Bit (24 - x) for each intermediate x of a way: (blots << (24 - k)) &
 * SLOT_AT24[s] tests for blots on the points k - x. */
static const uint32_t SLOT_AT24[40] = {
    0x0c00000u, 0x0a00000u, 0x0600000u, 0x0900000u, 0x0500000u, 0x0300000u, 0x0880000u,
    0x0480000u, 0x0280000u, 0x0180000u, 0x0840000u, 0x0440000u, 0x0240000u, 0x0140000u,
    0x00c0000u, 0x0000000u, 0x0000000u, 0x0800000u, 0x0c00000u, 0x0e00000u, 0x0000000u,
    0x0400000u, 0x0500000u, 0x0540000u, 0x0000000u, 0x0200000u, 0x0240000u, 0x0248000u,
    0x0000000u, 0x0100000u, 0x0110000u, 0x0111000u, 0x0000000u, 0x0080000u, 0x0084000u,
    0x0084200u, 0x0000000u, 0x0040000u, 0x0041000u, 0x0041040u};

/* Bit w set iff h[w] != 0, for w < 40. */
static inline uint64_t nonzero_bits40(const unsigned int *h)
{
    uint64_t zero = 0;
#if defined(__SSE2__)
    for (int k = 0; k < 10; k++) {
        __m128i z = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)h + k), _mm_setzero_si128());
        zero |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(z)) << 4 * k;
    }
#else
    for (int w = 0; w < 40; w++)
        zero |= (uint64_t)(h[w] == 0) << w;
#endif
    return ~zero & ((1ULL << 40) - 1);
}

/* Bit 4d set iff nibble d of x < 2^24 (die d's four double ways) is
 * non-zero. */
static uint32_t nibble_any(uint32_t x)
{
    x |= x >> 1;
    x |= x >> 2;
    return x & 0x111111u;
}

/* The number of non-zero nibbles: their flags summed into nibble 5 by one
 * multiply. */
static int nonzero_nibbles(uint32_t x) { return (int)(((nibble_any(x) * 0x111111u) >> 20) & 0xfu); }

/* Bits 4d of x (d < 6) gathered to bit d. */
static uint32_t gather_nibbles(uint32_t x)
{
    x = (x | x >> 3) & 0x030303u;
    x = (x | x >> 6) & 0x0f000fu;
    return (x | x >> 12) & 0x3fu;
}

/* The non-double rolls (bits in roll order) whose lower die (lo) or higher
 * die (hi) is in a 6-bit set of dice. */
#define LOWER_IN(x) (((x) & 1) | ((x) & 3) << 1 | ((x) & 7) << 3 | ((x) & 15) << 6 | ((x) & 31) << 10)
#define HIGHER_IN(x)                                                                      \
    (((x) >> 1 & 1) * 0x1 | ((x) >> 2 & 1) * 0x6 | ((x) >> 3 & 1) * 0x38 |               \
     ((x) >> 4 & 1) * 0x3c0 | ((x) >> 5 & 1) * 0x7c00)
#define ROLLS1(x) {LOWER_IN(x), HIGHER_IN(x)}
#define ROLLS4(x) ROLLS1(x), ROLLS1(x + 1), ROLLS1(x + 2), ROLLS1(x + 3)
#define ROLLS16(x) ROLLS4(x), ROLLS4(x + 4), ROLLS4(x + 8), ROLLS4(x + 12)
static const struct {
    uint16_t lo, hi;
} ROLLS_OF[64] = {ROLLS16(0), ROLLS16(16), ROLLS16(32), ROLLS16(48)};
#undef ROLLS16
#undef ROLLS4
#undef ROLLS1
#undef HIGHER_IN
#undef LOWER_IN

/* Sum over the 21 rolls of the largest pips lost (ways that don't hit lose
 * 0), doubles once, the rest twice. A direct way counts only in the rolls
 * of keep_lo (non-doubles, as the lower die), keep_hi (as the higher die)
 * and keep_dbl (doubles, bit d). No way hits from point 0, so hit[] <
 * 2^25 - 1 and its float keeps the exponent of its highest bit. */
#if defined(__SSE2__)
/* Byte k all ones iff bit k of m is set (k < 16). */
static inline __m128i byte_mask16(uint32_t m)
{
    const uint64_t ONES = 0x0101010101010101ULL;
    const __m128i bit = _mm_set1_epi64x((long long)0x8040201008040201ULL);
    __m128i v = _mm_set_epi64x((long long)((m >> 8 & 0xff) * ONES), (long long)((m & 0xff) * ONES));
    return _mm_cmpeq_epi8(_mm_and_si128(v, bit), bit);
}

static inline int pips_lost(const unsigned int *hit, uint32_t keep_lo, uint32_t keep_hi, uint32_t keep_dbl)
{
    /* pp = msb(hit) - pips + 1 per slot from the float exponent, saturated
     * to 0 for ways that don't hit, as bytes: p[0] slots 0..15, p[1]
     * 16..31, p[2] 32..39. */
    static const int BIAS[40] __attribute__((aligned(16))) = {
#define B(p) (127 + (p) - 1)
        B(3), B(4), B(5), B(5),  B(6), B(7),  B(6),  B(7),  B(8), B(9),  B(7),  B(8),  B(9), B(10),
        B(11), 127, B(1), B(2),  B(3), B(4),  B(2),  B(4),  B(6), B(8),  B(3),  B(6),  B(9), B(12),
        B(4), B(8), B(12), B(16), B(5), B(10), B(15), B(20), B(6), B(12), B(18), B(24)};
#undef B
    __m128i v[10];
    for (int k = 0; k < 10; k++) {
        __m128 f = _mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)hit + k));
        v[k] = _mm_sub_epi32(_mm_srli_epi32(_mm_castps_si128(f), 23),
                             _mm_load_si128((const __m128i *)BIAS + k));
    }
    const __m128i zero = _mm_setzero_si128();
    __m128i e = _mm_packus_epi16(_mm_packs_epi32(v[0], v[1]), _mm_packs_epi32(v[2], v[3]));
    __m128i d03 = _mm_packus_epi16(_mm_packs_epi32(v[4], v[5]), _mm_packs_epi32(v[6], v[7]));
    __m128i d45 = _mm_packus_epi16(_mm_packs_epi32(v[8], v[9]), zero);
    /* Non-doubles: the direct ways' bytes P (die order) spread to roll
     * order, die i in a and die j in c, against the combined way's in e. */
    const __m128i low = _mm_set1_epi32(0xff);
    __m128i pd = _mm_packs_epi32(_mm_and_si128(d03, low), _mm_and_si128(d45, low));
    uint64_t P = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pd, pd));
    const uint64_t ONES = 0x0101010101010101ULL;
    uint64_t p1 = (P >> 8) & 0xff, p2 = (P >> 16) & 0xff, p3 = (P >> 24) & 0xff;
    uint64_t p4 = (P >> 32) & 0xff, p5 = (P >> 40) & 0xff;
    uint64_t a_lo = (P & 0xff) | (P & 0xffff) << 8 | (P & 0xffffff) << 24 | P << 48;
    uint64_t a_hi = ((P >> 16) & 0xffff) | (P & 0xffffffffffULL) << 16;
    uint64_t c_lo = p1 | (p2 * ONES & 0xffff) << 8 | (p3 * ONES & 0xffffff) << 24 | p4 * ONES << 48;
    uint64_t c_hi = (p4 * ONES & 0xffff) | (p5 * ONES & 0xffffffffffULL) << 16;
    __m128i a = _mm_and_si128(_mm_set_epi64x((long long)a_hi, (long long)a_lo), byte_mask16(keep_lo));
    __m128i c = _mm_and_si128(_mm_set_epi64x((long long)c_hi, (long long)c_lo), byte_mask16(keep_hi));
    /* Doubles: the direct ways (byte 0 of each dword) of the dice not in
     * keep_dbl cleared, then the largest byte of each dword (one die's four
     * slots). */
    const __m128i die03 = _mm_set_epi32(8, 4, 2, 1), die45 = _mm_set_epi32(0, 0, 32, 16);
    const __m128i kd = _mm_set1_epi32((int)keep_dbl), ways234 = _mm_set1_epi32(~0xff);
    d03 = _mm_and_si128(d03, _mm_or_si128(_mm_cmpeq_epi32(_mm_and_si128(kd, die03), die03), ways234));
    d45 = _mm_and_si128(d45, _mm_or_si128(_mm_cmpeq_epi32(_mm_and_si128(kd, die45), die45), ways234));
    __m128i m03 = _mm_max_epu8(d03, _mm_srli_epi32(d03, 16));
    __m128i m45 = _mm_max_epu8(d45, _mm_srli_epi32(d45, 16));
    m03 = _mm_and_si128(_mm_max_epu8(m03, _mm_srli_epi32(m03, 8)), low);
    m45 = _mm_and_si128(_mm_max_epu8(m45, _mm_srli_epi32(m45, 8)), low);
    __m128i m = _mm_max_epu8(_mm_max_epu8(a, c), e);
    /* 2 * 24 + 24 + 24 fits a byte: one sum of all bytes. */
    __m128i all = _mm_add_epi8(_mm_add_epi8(m, m), _mm_add_epi8(m03, m45));
    __m128i s = _mm_sad_epu8(all, zero);
    return _mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(_mm_srli_si128(s, 8));
}
#else
static const unsigned char SLOT_PIPS[40] = {
    3, 4, 5, 5, 6, 7, 6, 7, 8, 9, 7, 8, 9,  10, 11, 0,  1, 2,  3,  4,
    2, 4, 6, 8, 3, 6, 9, 12, 4, 8, 12, 16, 5, 10, 15, 20, 6, 12, 18, 24};

/* The 21 rolls as slots: doubles first (weight 1: the direct way, then the
 * combined ones), then the rest (weight 2: both direct ways, then the
 * combined one). */
static const signed char ROLL_SLOTS[21][4] = {
    {16, 17, 18, 19}, {20, 21, 22, 23}, {24, 25, 26, 27}, {28, 29, 30, 31}, {32, 33, 34, 35},
    {36, 37, 38, 39}, {16, 20, 0, -1},  {16, 24, 1, -1},  {20, 24, 2, -1},  {16, 28, 3, -1},
    {20, 28, 4, -1},  {24, 28, 5, -1},  {16, 32, 6, -1},  {20, 32, 7, -1},  {24, 32, 8, -1},
    {28, 32, 9, -1},  {16, 36, 10, -1}, {20, 36, 11, -1}, {24, 36, 12, -1}, {28, 36, 13, -1},
    {32, 36, 14, -1}};

static inline int pips_lost(const unsigned int *hit, uint32_t keep_lo, uint32_t keep_hi, uint32_t keep_dbl)
{
    int pp[40], np = 0;
    for (int s = 0; s < 40; s++)
        pp[s] = hit[s] ? msb32(hit[s]) - SLOT_PIPS[s] + 1 : 0;
    for (int r = 0; r < 21; r++) {
        const signed char *ways = ROLL_SLOTS[r];
        int nd = r < 6 ? 1 : 2;
        /* bit j: direct way j counts */
        uint32_t keep = r < 6 ? keep_dbl >> r & 1
                              : (keep_lo >> ways[2] & 1) | (keep_hi >> ways[2] & 1) << 1;
        int npips = 0;
        for (int j = 0; j < 4 && ways[j] >= 0; j++) {
            int p = j < nd && !(keep >> j & 1) ? 0 : pp[ways[j]];
            npips = p > npips ? p : npips;
        }
        np += nd * npips;
    }
    return np;
}
#endif

/* Step 1 of the hitting heuristic: hit[s] for the 40 slots (hitters H,
 * targets T, the opponent's made points B; see hit_features); returns the
 * slots that hit as bits. */
static uint64_t hit_ways(uint64_t H, uint64_t T, uint64_t B, unsigned int *hit)
{
    /* Double d-d: n moves pass n - 1 intermediates, so the hitters left
     * unblocked shrink from move to move. */
#pragma GCC unroll 6
    for (int d = 1; d <= 6; d++) {
        uint64_t clear = H;
#pragma GCC unroll 4
        for (int n = 1; n <= 4; n++) {
            hit[12 + 4 * d + n - 1] = (unsigned int)(clear & (T << (n * d)));
            clear &= ~(B << (n * d));
        }
    }
#pragma GCC unroll 15
    for (int t = 0; t < 15; t++) {
        const unsigned char *m = PAIR_WAYS[t];
        uint64_t blocked = (B << m[2]) & (B << m[3]);
        hit[m[0]] = (unsigned int)(H & (T << m[1]) & ~blocked);
    }
    hit[15] = 0;
    return nonzero_bits40(hit);
}

/* Second chances of the combined ways (no chequer on the bar): bit s when
 * the landing spot x pips from way s's rearmost hitter k holds a blot. */
static uint64_t combined_second(const unsigned int *hit, uint64_t waymask, uint64_t blots)
{
    uint64_t second = 0;
    for (uint64_t m = waymask & ~DIRECT_SLOTS; m; m &= m - 1) {
        int s = __builtin_ctzll(m), k = msb32(hit[s]);
        second |= (uint64_t)(((blots << (24 - k)) & SLOT_AT24[s]) != 0) << s;
    }
    return second;
}

#ifdef BG_HIT_WIDE
/* hit_ways and combined_second in eight-slot vectors: per slot, T shifted
 * by the way's pips and B by its intermediates (a shift of 64 gives 0).
 * Slots 0..14 are blocked when both intermediates are made, the doubles'
 * when any is. */
static const uint64_t WAY_PIPS[40] __attribute__((aligned(64))) = {
    3, 4, 5, 5, 6, 7, 6, 7, 8, 9, 7, 8, 9, 10, 11, 64, 1, 2, 3, 4,
    2, 4, 6, 8, 3, 6, 9, 12, 4, 8, 12, 16, 5, 10, 15, 20, 6, 12, 18, 24};
static const uint64_t WAY_STEP1[40] __attribute__((aligned(64))) = {
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 1, 1, 1,
    64, 2,  2,  2,  64, 3,  3,  3,  64, 4,  4,  4,  64, 5,  5,  5,  64, 6, 6, 6};
static const uint64_t WAY_STEP2[40] __attribute__((aligned(64))) = {
    2,  3,  3,  4,  4,  4, 5,  5,  5,  5,  6,  6,  6, 6,  6,  0,  64, 64, 2,  2,
    64, 64, 4,  4,  64, 64, 6, 6,  64, 64, 8,  8,  64, 64, 10, 10, 64, 64, 12, 12};
static const uint64_t WAY_STEP3[40] __attribute__((aligned(64))) = {
    1,  1,  2,  1,  2,  3,  1,  2,  3,  4,  1,  2,  3,  4,  5,  0,  64, 64, 64, 3,
    64, 64, 64, 6,  64, 64, 64, 9,  64, 64, 64, 12, 64, 64, 64, 15, 64, 64, 64, 18};

__attribute__((target("avx512f,avx512cd"))) static uint64_t
hit_ways_avx512(uint64_t H, uint64_t T, uint64_t B, uint64_t blots, unsigned int *hit,
                uint64_t *second)
{
    const __m512i h = _mm512_set1_epi64((long long)H), t = _mm512_set1_epi64((long long)T);
    const __m512i bb = _mm512_set1_epi64((long long)B), bl = _mm512_set1_epi64((long long)blots);
    uint64_t ways = 0, sec = 0;
    for (int j = 0; j < 5; j++) {
        __m512i v = _mm512_and_si512(h, _mm512_sllv_epi64(t, _mm512_load_si512(WAY_PIPS + 8 * j)));
        __m512i b2 = _mm512_sllv_epi64(bb, _mm512_load_si512(WAY_STEP2 + 8 * j));
        __m512i b3 = _mm512_sllv_epi64(bb, _mm512_load_si512(WAY_STEP3 + 8 * j));
        __m512i blocked = j < 2 ? _mm512_and_si512(b2, b3)
                                : _mm512_or_si512(_mm512_or_si512(b2, b3),
                                                  _mm512_sllv_epi64(bb, _mm512_load_si512(WAY_STEP1 + 8 * j)));
        v = _mm512_andnot_si512(blocked, v);
        _mm256_storeu_si256((__m256i *)(hit + 8 * j), _mm512_cvtepi64_epi32(v));
        __mmask8 nz = _mm512_test_epi64_mask(v, v);
        ways |= (uint64_t)nz << 8 * j;
        /* blots << (24 - k) for the rearmost hitter k = 63 - lzcnt */
        __m512i shift = _mm512_sub_epi64(_mm512_lzcnt_epi64(v), _mm512_set1_epi64(39));
        __m512i at = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(SLOT_AT24 + 8 * j)));
        sec |= (uint64_t)(nz & _mm512_test_epi64_mask(_mm512_sllv_epi64(bl, shift), at)) << 8 * j;
    }
    *second = sec & ~DIRECT_SLOTS;
    return ways;
}
#endif

/* PIPLOSS, P1, P2 (spec 3.4, the hitting heuristic) for side b against
 * opponent o. Step 1 builds hit[s], bit j set when our chequer on j hits an
 * opponent blot with the way of slot s, with bitmaps; step 2 counts over
 * the 21 rolls with bitmaps in roll order. */
static void hit_features(const bg_escape_tables *tab, const unsigned int *b,
                         const unsigned int *o, const side_bits *sb, const side_bits *so, float *x)
{
    unsigned int hit[40];
    int nboard = POP6[sb->made & 0x3fu];
    /* Our coordinates: T = opponent blots we may target (point p = 23 - i),
     * H = our chequers that may hit, B = points the opponent has made.
     * Hitter j hits target p = j - d; an intermediate k of a way lands on
     * p + k = j - (d - k): blocked when bit j of B << (d - k) is set. */
    uint64_t blots = flip24(so->blot);
    uint64_t T = blots & (~0ULL << 2 * (nboard <= 2));
    uint64_t B = flip24(so->made);
    uint64_t H = sb->occ & ~(sb->two & 0x3fu); /* bits 0..24, so hit[] fits 25 bits */
    if (!T || !H) {
        x[X_PIPLOSS] = x[X_P1] = x[X_P2] = 0.0f;
        return;
    }
    uint64_t second = 0, waymask;
#ifdef BG_HIT_WIDE
    if (tab->wide)
        waymask = hit_ways_avx512(H, T, B, blots, hit, &second);
    else
#endif
        waymask = hit_ways(H, T, B, hit);
    if (!waymask) {
        x[X_PIPLOSS] = x[X_P1] = x[X_P2] = 0.0f;
        return;
    }

    /* A roll has a chance to hit when one of its ways hits (n1); a second
     * when they add one (n2, bit s of second for a combined way). */
    int np, n1, n2;
    if (b[24] == 0) {
        /* A second chance: a direct way with another hitter, a combined way
         * whose landing spot x pips from the rearmost hitter k holds a
         * blot, or (non-doubles) both direct ways, unless with the same
         * single chequer. (The wide step 1 found the combined ways'.) */
        if (!tab->wide)
            second = combined_second(hit, waymask, blots);
        /* same[k]: the dice whose direct way's rearmost hitter is k. */
        unsigned char same[24] = {0};
        int kk[6];
        uint32_t dice = 0;
#pragma GCC unroll 6
        for (int d = 0; d < 6; d++) {
            unsigned int h = hit[16 + 4 * d];
            int k = msb32(h | 1u), on = h != 0;
            kk[d] = k;
            dice |= (uint32_t)on << d;
            same[k] |= (unsigned char)(on << d);
            second |= (uint64_t)((h & (h - 1)) != 0) << (16 + 4 * d);
        }
        /* The rolls both of whose dice hit with the same single chequer. */
        uint32_t shared = 0;
#pragma GCC unroll 6
        for (int d = 0; d < 6; d++) {
            uint32_t g = same[kk[d]] & (((sb->made >> kk[d]) & 1) - 1); /* 0 if made */
            shared |= (uint32_t)(ROLLS_OF[g].lo & ROLLS_OF[g].hi);
        }
        uint32_t lo = ROLLS_OF[dice].lo, hi = ROLLS_OF[dice].hi;
        uint32_t w15 = (uint32_t)waymask & 0x7fffu, s15 = (uint32_t)second & 0x7fffu;
        n1 = nonzero_nibbles((uint32_t)(waymask >> 16)) + 2 * popcount32(lo | hi | w15);
        n2 = nonzero_nibbles((uint32_t)(second >> 16)) + 2 * popcount32((lo & hi & ~shared) | s15);
        np = pips_lost(hit, ~0u, ~0u, ~0u);
    } else {
        /* Chequers on the bar (bit 24 of hit[]: the bar chequer). A
         * combined way counts only the bar chequer alone there, with a
         * second chance when a landing spot x pips in holds a blot (o[x +
         * 1]: bit 24 - x of blots << 2). Per die d (bit d): A the bar
         * chequer hits directly; R another chequer does (one chequer on the
         * bar), which counts once per roll, the lower die first, when the
         * other die enters (E; for doubles the way after the direct one,
         * twice the die: gnubg's quirk, E2). */
        second = 0;
        unsigned int keep = b[24] == 1 ? 1u << 24 : 0;
        for (int s = 0; s < 40; s++)
            hit[s] &= DIRECT_WAY[s] | keep;
        waymask = nonzero_bits40(hit);
        uint32_t A = 0, R = 0, E2 = 0, E = ~so->made & 0x3fu;
#pragma GCC unroll 6
        for (int d = 0; d < 6; d++) {
            unsigned int h = hit[16 + 4 * d];
            A |= (h >> 24) << d;
            R |= (uint32_t)((h & 0xffffffu) != 0) << d;
            E2 |= (uint32_t)(o[2 * d + 1] <= 1) << d;
        }
        R = b[24] == 1 ? R : 0;
        for (uint64_t m = waymask & ~DIRECT_SLOTS; m; m &= m - 1) {
            int s = __builtin_ctzll(m);
            second |= (uint64_t)(((blots << 2) & SLOT_AT24[s]) != 0) << s;
        }
        /* Non-doubles (roll order): the bar chequer hits with the lower die
         * (ai) or the higher (aj), another chequer with the lower die (c0)
         * or else with the higher (c1); two of these make a second chance.
         * Doubles (bit d): A, can (R when E2) and comb (a combined way
         * hits); A with can, or comb2, make a second chance. */
        uint32_t ai = ROLLS_OF[A].lo, aj = ROLLS_OF[A].hi;
        uint32_t c0 = ROLLS_OF[R].lo & ROLLS_OF[E].hi, c1 = ROLLS_OF[R].hi & ROLLS_OF[E].lo & ~c0;
        uint32_t can = R & E2;
        uint32_t comb = gather_nibbles(nibble_any((uint32_t)(waymask >> 16) & 0xeeeeeeu));
        uint32_t comb2 = gather_nibbles(nibble_any((uint32_t)(second >> 16)));
        uint32_t w15 = (uint32_t)waymask & 0x7fffu, s15 = (uint32_t)second & 0x7fffu;
        n1 = POP6[A | can | comb] + 2 * popcount32(ai | aj | c0 | c1 | w15);
        n2 = POP6[(A & can) | comb2] + 2 * popcount32((ai & aj) | ((ai | aj) & (c0 | c1)) | s15);
        np = pips_lost(hit, ai | c0, aj | c1, A | can);
    }
    x[X_PIPLOSS] = BG_DIVC(np, 432);
    x[X_P1] = BG_DIVC(n1, 36);
    x[X_P2] = BG_DIVC(n2, 36);
}

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
 * anchors, escapes and containment, spread, backbone, back games (spec 3.4).
 * Returns b's chequer count, bar included (for the men-off fields). */
static int own_features(const bg_escape_tables *tab, const unsigned int *b, const side_bits *sb,
                        int opp_back, float *x)
{
    int back = msb_or_neg(sb->occ);

    side_pts pts = side_pts_of(b);
    pt_sums all = sums_above(&pts, -1);
    int bar = (int)b[24];

    /* BREAK_CONTACT: (i + 1 - opp_back) b[i] over i > opp_back, bar
     * included; FREEPIP: (i + 1) b[i] over i < opp_back. */
    {
        pt_sums past = sums_above(&pts, opp_back);
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
        pt_sums out = sums_above(&pts, 5);
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
            pt_sums up = sums_above(&pts, mean);
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
    hit_features(tab, b, o, sb, so, x);
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

/* The plays of one roll leave the side on roll the same board: its own
 * fields are kept per thread and reused while that board and the
 * opponent's rearmost point stay the same. */
typedef struct {
    int valid, opp_back, total;
    unsigned int board[25];
    float x[BG_N_CONTACT_EXTRAS]; /* the own fields (others unset) */
} own_memo;

static _Thread_local own_memo memo;

void bg_contact_extras(const bg_escape_tables *t, const bg_board b, int crashed,
                       float x[2][BG_N_CONTACT_EXTRAS], bg_side_scan scan[2])
{
    side_bits s0 = side_bits_of(b[0]), s1 = side_bits_of(b[1]);
    int back0 = 23 - msb_or_neg(s0.occ), back1 = 23 - msb_or_neg(s1.occ);
    int total1;
    if (memo.valid && memo.opp_back == back0 && !memcmp(memo.board, b[1], sizeof memo.board)) {
        memcpy(x[0], memo.x, sizeof memo.x);
        total1 = memo.total;
    } else {
        total1 = own_features(t, b[1], &s1, back0, x[0]);
        memcpy(memo.x, x[0], sizeof memo.x);
        memcpy(memo.board, b[1], sizeof memo.board);
        memo.opp_back = back0;
        memo.total = total1;
        memo.valid = 1;
    }
    against_features(t, b[1], b[0], &s1, &s0, x[0]);
    int total0 = own_features(t, b[0], &s0, back1, x[1]);
    against_features(t, b[0], b[1], &s0, &s1, x[1]);
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
