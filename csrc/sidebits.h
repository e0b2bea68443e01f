/* Bitmaps of a side's points and the bit counts read from them, shared by
 * the contact extras (contact.c) and the hitting heuristic (hitting.c). */
#ifndef BG_SIDEBITS_H
#define BG_SIDEBITS_H

#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* The highest set bit of x != 0. */
static inline int msb32(uint32_t x) { return 31 - __builtin_clz(x); }

/* Popcount of 6 bits (no POPCNT instruction in baseline x86-64). */
static const unsigned char POP6[64] = {
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
    1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6};

static inline int popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

#endif
