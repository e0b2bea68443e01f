/* gnubg's net inputs: the 200-float base block used by
 * the pruning nets, the 214 race inputs and the 250 contact/crashed inputs. */
#ifndef BG_INPUTS_H
#define BG_INPUTS_H

#include <stdint.h>

#include "types.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__)
/* One side's points 0..23 as bytes (counts are small): lo = points 0..15,
 * hi = points 16..23 then zeros; one compare + movemask gives a bitmap. */
static inline void bg_pack_points(const unsigned int *s, __m128i *lo, __m128i *hi)
{
    const __m128i *p = (const __m128i *)s;
    *lo = _mm_packs_epi16(_mm_packs_epi32(_mm_loadu_si128(p), _mm_loadu_si128(p + 1)),
                          _mm_packs_epi32(_mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3)));
    *hi = _mm_packs_epi16(_mm_packs_epi32(_mm_loadu_si128(p + 4), _mm_loadu_si128(p + 5)),
                          _mm_setzero_si128());
}
#endif

#if defined(__SSE2__)
/* Bitmap of side s's occupied points 0..24 (bit 24 = bar) from its points
 * packed by bg_pack_points. */
static inline uint32_t bg_occupied_packed(const unsigned int *s, __m128i lo, __m128i hi)
{
    const __m128i zero = _mm_setzero_si128();
    uint32_t empty = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, zero)) |
                     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, zero)) << 16;
    return (~empty & 0xffffffu) | (uint32_t)(s[24] != 0) << 24;
}
#endif

/* Bitmap of one side's occupied points 0..24 (bit 24 = bar). */
static inline uint32_t bg_occupied(const unsigned int *s)
{
#if defined(__SSE2__)
    __m128i lo, hi;
    bg_pack_points(s, &lo, &hi);
    return bg_occupied_packed(s, lo, hi);
#else
    uint32_t m = 0;
    for (int i = 0; i < 25; i++)
        m |= (uint32_t)(s[i] != 0) << i;
    return m;
#endif
}

#define BG_N_BASE_INPUTS 200
#define BG_N_RACE_INPUTS 214
#define BG_N_CONTACT_INPUTS 250

/* Escape tables, built once per engine, and ENTER's pips lost
 * by bar chequers (0, 1, 2 or more) per set of made opponent home points. */
typedef struct {
    unsigned char esc[4096];
    unsigned char esc1[4096];
    unsigned short enter_loss[3][64];
    int wide; /* the hitting heuristic in AVX-512 vectors (contact.c) */
    /* the hitting heuristic skips blots on the hitter's two lowest points
     * unless it holds more than two home points: counted as occupied points
     * (gnubg 1.07, whose nets were trained so) or as made points (1.08 on) */
    int home_occupied;
} bg_escape_tables;

/* What the contact inputs learn of a side on the way, for the sanity check:
 * its occupied points (bg_occupied's bitmap) and its chequers on the board. */
typedef struct {
    uint32_t occ;
    int total;
} bg_side_scan;

/* Sparse inputs: the non-zero inputs of a net, indices ascending (the
 * forward pass adds them in this order). idx/val have one spare slot. */
typedef struct {
    int n;
    int idx[BG_N_CONTACT_INPUTS + 1];
    float val[BG_N_CONTACT_INPUTS + 1];
} bg_sparse;

void bg_sparse_base(const bg_board b, bg_sparse *out);
void bg_sparse_race(const bg_board b, bg_sparse *out);
/* Also fills scan[j] of side b[j]. */
void bg_sparse_contact(const bg_escape_tables *t, const bg_board b, int crashed, bg_sparse *out,
                       bg_side_scan scan[2]);

/* Dense forms (for tests and tools): every input, zeros included. */
void bg_inputs_base(const bg_board b, float *out);    /* 200 */
void bg_inputs_race(const bg_board b, float *out);    /* 214 */
/* 250 inputs; crashed selects the crashed net's men-off layout. */
void bg_inputs_contact(const bg_escape_tables *t, const bg_board b, int crashed, float *out);

#endif
