/* The hitting heuristic of gnubg's contact inputs (hitting.h). */
#include "hitting.h"

#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define BG_HIT_WIDE 1
#endif

int bg_hitting_wide_supported(void)
{
#ifdef BG_HIT_WIDE
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
#else
    return 0;
#endif
}

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

/* Hitting tables. The 39 ways to hit by slot of hit[], laid out
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
 * SLOT_AT24[s] tests for blots on the points k - x (slots 40..47: the
 * vector form's padding). */
static const uint32_t SLOT_AT24[48] __attribute__((aligned(64))) = {
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

/* The direct ways' second chances (another hitter) into *second; returns
 * the rolls both of whose dice hit directly with the same single chequer
 * (no chequer on the bar). */
static uint32_t direct_seconds(const unsigned int *hit, uint32_t made, uint64_t *second)
{
    /* same[k]: the dice whose direct way's rearmost hitter is k */
    unsigned char same[24] = {0};
    int kk[6];
#pragma GCC unroll 6
    for (int d = 0; d < 6; d++) {
        unsigned int h = hit[16 + 4 * d];
        int k = msb32(h | 1u), on = h != 0;
        kk[d] = k;
        same[k] |= (unsigned char)(on << d);
        *second |= (uint64_t)((h & (h - 1)) != 0) << (16 + 4 * d);
    }
    uint32_t shared = 0;
#pragma GCC unroll 6
    for (int d = 0; d < 6; d++) {
        uint32_t g = same[kk[d]] & (((made >> kk[d]) & 1) - 1); /* 0 if made */
        shared |= (uint32_t)(ROLLS_OF[g].lo & ROLLS_OF[g].hi);
    }
    return shared;
}

#ifdef BG_HIT_WIDE
/* hit_ways and combined_second in 16-slot vectors of dwords (slots 40..47
 * unused): per slot, T shifted by the way's pips and B by its
 * intermediates (a shift of 32 gives 0; bits past 31 are no hitter's, H
 * has bits 0..24). Slots 0..14 are blocked when both intermediates are
 * made, the doubles' when any is. */
enum { PIPS, STEP1, STEP2, STEP3 };
static const uint32_t WAY_SHIFT[4][48] __attribute__((aligned(64))) = {
    {3, 4, 5, 5, 6, 7, 6, 7, 8, 9, 7, 8, 9, 10, 11, 32, 1, 2, 3, 4, 2, 4, 6, 8,
     3, 6, 9, 12, 4, 8, 12, 16, 5, 10, 15, 20, 6, 12, 18, 24, 32, 32, 32, 32, 32, 32, 32, 32},
    {32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 1, 1, 1, 32, 2, 2, 2,
     32, 3, 3, 3, 32, 4, 4, 4, 32, 5, 5, 5, 32, 6, 6, 6, 32, 32, 32, 32, 32, 32, 32, 32},
    {2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 0, 32, 32, 2, 2, 32, 32, 4, 4,
     32, 32, 6, 6, 32, 32, 8, 8, 32, 32, 10, 10, 32, 32, 12, 12, 32, 32, 32, 32, 32, 32, 32, 32},
    {1, 1, 2, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4, 5, 0, 32, 32, 32, 3, 32, 32, 32, 6,
     32, 32, 32, 9, 32, 32, 32, 12, 32, 32, 32, 15, 32, 32, 32, 18, 32, 32, 32, 32, 32, 32, 32, 32}};

/* x shifted by slots 16g..16g+15 of a WAY_SHIFT row. */
__attribute__((target("avx512f"), always_inline)) static inline __m512i way_shifted(__m512i x,
                                                                                  int row, int g)
{
    return _mm512_sllv_epi32(x, _mm512_load_si512(WAY_SHIFT[row] + 16 * g));
}

/* Also the direct ways' second chances (another hitter: bit s of *second)
 * and *shared, the rolls both of whose dice hit directly with the same
 * single chequer (own made points made): direct_seconds' numbers. */
__attribute__((target("avx512f,avx512cd"))) static uint64_t
hit_ways_avx512(uint32_t H, uint32_t T, uint32_t B, uint32_t blots, uint32_t made,
                unsigned int *hit, uint64_t *second, uint32_t *shared)
{
    const __m512i h = _mm512_set1_epi32((int)H), t = _mm512_set1_epi32((int)T);
    const __m512i bb = _mm512_set1_epi32((int)B), bl = _mm512_set1_epi32((int)blots);
    const __m512i one = _mm512_set1_epi32(1);
    uint64_t ways = 0, sec = 0, multi = 0;
    __m512i lz[3];
    for (int g = 0; g < 3; g++) {
        __m512i v = _mm512_and_si512(h, way_shifted(t, PIPS, g));
        __m512i b2 = way_shifted(bb, STEP2, g), b3 = way_shifted(bb, STEP3, g);
        __m512i blocked = g == 0 ? _mm512_and_si512(b2, b3)
                                 : _mm512_or_si512(_mm512_or_si512(b2, b3), way_shifted(bb, STEP1, g));
        v = _mm512_andnot_si512(blocked, v);
        if (g < 2)
            _mm512_storeu_si512(hit + 16 * g, v);
        else
            _mm256_storeu_si256((__m256i *)(hit + 32), _mm512_castsi512_si256(v));
        __mmask16 nz = _mm512_test_epi32_mask(v, v);
        ways |= (uint64_t)nz << 16 * g;
        multi |= (uint64_t)_mm512_test_epi32_mask(v, _mm512_sub_epi32(v, one)) << 16 * g;
        /* blots << (24 - k) for the rearmost hitter k = 31 - lzcnt */
        lz[g] = _mm512_lzcnt_epi32(v);
        __m512i shift = _mm512_sub_epi32(lz[g], _mm512_set1_epi32(7));
        __m512i at = _mm512_load_si512(SLOT_AT24 + 16 * g);
        __mmask16 two = _mm512_test_epi32_mask(_mm512_sllv_epi32(bl, shift), at);
        sec |= (uint64_t)(nz & two) << 16 * g;
    }
    *second = (sec & ~DIRECT_SLOTS) | (multi & DIRECT_SLOTS);
    /* die d's rearmost direct hitter k (slot 16 + 4d), or 64 + d where it
     * has none or it is on a made point; then equal k's of the rolls' dice
     * i < j (lane 15: two distinct values) */
    static const int DIE_LANES[16] __attribute__((aligned(64))) = {0, 4, 8, 12, 16, 20, 6, 7,
                                                                   8, 9, 10, 11, 12, 13, 14, 15};
    static const int ROLL_DIE[2][16] __attribute__((aligned(64))) = {
        {0, 0, 1, 0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4, 6}, {1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 7}};
    __m512i z = _mm512_permutex2var_epi32(lz[1], _mm512_load_si512(DIE_LANES), lz[2]);
    __m512i k = _mm512_sub_epi32(_mm512_set1_epi32(31), z);
    __mmask16 single = 0x3f & _mm512_cmpneq_epi32_mask(z, _mm512_set1_epi32(32)) &
                       _mm512_testn_epi32_mask(_mm512_srlv_epi32(_mm512_set1_epi32((int)made), k), one);
    k = _mm512_mask_blend_epi32(single, _mm512_set_epi32(79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64), k);
    *shared = _mm512_cmpeq_epi32_mask(_mm512_permutexvar_epi32(_mm512_load_si512(ROLL_DIE[0]), k),
                                      _mm512_permutexvar_epi32(_mm512_load_si512(ROLL_DIE[1]), k));
    return ways;
}

/* pips_lost from hit[] in the registers of the wide step 1: a slot's pips
 * from its rearmost hitter, 32 - lzcnt - pips + 1, is 0 or less where no
 * way hits (lzcnt 32). A non-double takes the largest of its combined
 * way (slot r) and its dice's direct ways (slot 16 + 4d: index 4d of the
 * registers from slot 16 on); a double the largest of its die's 128-bit
 * lane (slots 16 + 4d .. 19 + 4d). */
__attribute__((target("avx512f,avx512cd"))) static int
pips_lost_avx512(const unsigned int *hit, uint32_t keep_lo, uint32_t keep_hi, uint32_t keep_dbl)
{
    /* the dice i < j of roll r as 4 i and 4 j */
    static const int LOWER[16] __attribute__((aligned(64))) = {0, 0, 4, 0, 4, 8, 0, 4,
                                                               8, 12, 0, 4, 8, 12, 16, 0};
    static const int HIGHER[16] __attribute__((aligned(64))) = {4, 8, 8, 12, 12, 12, 16, 16,
                                                                16, 16, 20, 20, 20, 20, 20, 0};
    const __m512i zero = _mm512_setzero_si512();
    __m512i p[3];
    for (int k = 0; k < 3; k++) {
        /* the loads as hit_ways_avx512 stored (store forwarding) */
        __m512i h = k < 2 ? _mm512_loadu_si512(hit + 16 * k)
                          : _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(hit + 32)));
        __m512i top = _mm512_sub_epi32(_mm512_set1_epi32(32), _mm512_load_si512(WAY_SHIFT[PIPS] + 16 * k));
        p[k] = _mm512_max_epi32(_mm512_sub_epi32(top, _mm512_lzcnt_epi32(h)), zero);
    }
    __m512i a = _mm512_maskz_permutex2var_epi32((__mmask16)(keep_lo & 0x7fffu), p[1],
                                                _mm512_load_si512(LOWER), p[2]);
    __m512i c = _mm512_maskz_permutex2var_epi32((__mmask16)(keep_hi & 0x7fffu), p[1],
                                                _mm512_load_si512(HIGHER), p[2]);
    __m512i m = _mm512_max_epi32(p[0], _mm512_max_epi32(a, c));
    /* doubles: the direct ways (dword 0 of a lane) of the dice not kept cleared */
    uint32_t k4 = keep_dbl & 0xfu, k2 = keep_dbl >> 4 & 3u;
    __mmask16 keep1 = (__mmask16)(0xeeeeu | (k4 & 1) | (k4 & 2) << 3 | (k4 & 4) << 6 | (k4 & 8) << 9);
    __mmask16 keep2 = (__mmask16)(0x00eeu | (k2 & 1) | (k2 & 2) << 3);
    __m512i d1 = _mm512_maskz_mov_epi32(keep1, p[1]), d2 = _mm512_maskz_mov_epi32(keep2, p[2]);
    d1 = _mm512_max_epi32(d1, _mm512_shuffle_epi32(d1, _MM_PERM_BADC));
    d2 = _mm512_max_epi32(d2, _mm512_shuffle_epi32(d2, _MM_PERM_BADC));
    d1 = _mm512_max_epi32(d1, _mm512_shuffle_epi32(d1, _MM_PERM_CDAB));
    d2 = _mm512_max_epi32(d2, _mm512_shuffle_epi32(d2, _MM_PERM_CDAB));
    /* non-doubles twice, doubles once (one dword per lane) */
    __m512i all = _mm512_add_epi32(_mm512_add_epi32(m, m),
                                   _mm512_maskz_add_epi32(0x1111, d1, _mm512_maskz_mov_epi32(0x0011, d2)));
    return _mm512_reduce_add_epi32(all);
}
#endif

#ifdef BG_HIT_WIDE
#define PIPS_LOST(tab, ...) ((tab)->wide ? pips_lost_avx512(__VA_ARGS__) : pips_lost(__VA_ARGS__))
#else
#define PIPS_LOST(tab, ...) pips_lost(__VA_ARGS__)
#endif

/* PIPLOSS, P1, P2 (gnubg's hitting heuristic) for side b against
 * opponent o. Step 1 builds hit[s], bit j set when our chequer on j hits an
 * opponent blot with the way of slot s, with bitmaps; step 2 counts over
 * the 21 rolls with bitmaps in roll order. */
void bg_hitting(const bg_escape_tables *tab, const unsigned int *b, const unsigned int *o,
                const side_bits *sb, const side_bits *so, float out[3])
{
    unsigned int hit[40];
    int nboard = POP6[(tab->home_occupied ? sb->occ : sb->made) & 0x3fu];
    /* Our coordinates: T = opponent blots we may target (point p = 23 - i),
     * H = our chequers that may hit, B = points the opponent has made.
     * Hitter j hits target p = j - d; an intermediate k of a way lands on
     * p + k = j - (d - k): blocked when bit j of B << (d - k) is set. */
    uint64_t blots = flip24(so->blot);
    uint64_t T = blots & (~0ULL << 2 * (nboard <= 2));
    uint64_t B = flip24(so->made);
    uint64_t H = sb->occ & ~(sb->two & 0x3fu); /* bits 0..24, so hit[] fits 25 bits */
    if (!T || !H) {
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    uint64_t second = 0, waymask;
    uint32_t shared = 0;
#ifdef BG_HIT_WIDE
    if (tab->wide)
        waymask = hit_ways_avx512((uint32_t)H, (uint32_t)T, (uint32_t)B, (uint32_t)blots, sb->made, hit,
                                  &second, &shared);
    else
#endif
        waymask = hit_ways(H, T, B, hit);
    if (!waymask) {
        out[0] = out[1] = out[2] = 0.0f;
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
        if (!tab->wide) {
            second = combined_second(hit, waymask, blots);
            shared = direct_seconds(hit, sb->made, &second);
        }
        uint32_t dice = gather_nibbles((uint32_t)(waymask >> 16) & 0x111111u);
        uint32_t lo = ROLLS_OF[dice].lo, hi = ROLLS_OF[dice].hi;
        uint32_t w15 = (uint32_t)waymask & 0x7fffu, s15 = (uint32_t)second & 0x7fffu;
        n1 = nonzero_nibbles((uint32_t)(waymask >> 16)) + 2 * popcount32(lo | hi | w15);
        n2 = nonzero_nibbles((uint32_t)(second >> 16)) + 2 * popcount32((lo & hi & ~shared) | s15);
        np = PIPS_LOST(tab, hit, ~0u, ~0u, ~0u);
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
        np = PIPS_LOST(tab, hit, ai | c0, aj | c1, A | can);
    }
    out[0] = BG_DIVC(np, 432);
    out[1] = BG_DIVC(n1, 36);
    out[2] = BG_DIVC(n2, 36);
}
