/* The search's results generator (results.h). */
#include "results.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "inputs.h"
#include "movegen.h"
#include "position.h"

/* Hash table of the results generator. Only rolls of two different dice use
 * it, and it holds only the results of the best score so far (gen_score
 * clears it): at most 15 starting points for each die times 15 for the other,
 * in two orders, 450 boards, so 1024 slots stay under half full and linear
 * probing always ends. Small, so that its probes hit the L1 cache (at 8192
 * slots the probe's load was a third of the generator's time). */
#define GEN_TABLE_LOG2 10
#define GEN_TABLE (1 << GEN_TABLE_LOG2)

/* The key of a board reached from the start board: lo holds the mover's
 * points 0..15 and hi points 16..24 (bits 0..35), a nibble each (boards hold
 * at most 15 chequers a side, board_load), and hi bit GEN_HIT + t is set when
 * the play hit the opponent's blot on point t (mover's numbering). With the
 * start board the key determines the board and the board the key, so equal
 * keys are equal boards: the table's comparison stays exact. */
#define GEN_HIT 36
#define GEN_EMPTY (~(uint64_t)0) /* no key sets bit 63 */
typedef struct gen_key {
    uint64_t lo, hi;
} gen_key;

int bg_results_table_alloc(bg_results_table *t)
{
    t->table = malloc(sizeof(gen_key) * GEN_TABLE);
    t->slot = malloc(sizeof(int) * BG_MAX_MOVES);
    if (!t->table || !t->slot) {
        bg_results_table_free(t);
        return -1;
    }
    for (int i = 0; i < GEN_TABLE; i++)
        t->table[i].hi = GEN_EMPTY;
    return 0;
}

void bg_results_table_free(bg_results_table *t)
{
    free(t->table);
    free(t->slot);
    t->table = NULL;
    t->slot = NULL;
}

/* The results generator (results.h). It visits the plays in exactly the
 * order of movegen_generate (movegen.c) and keeps the first occurrence of each
 * board, so the list is the same, board for board; it carries each board as
 * its exact key (gen_key), updated per step, and writes out only the boards it
 * keeps, without allocating (tested against movegen.c). */

typedef struct {
    const unsigned int *opp; /* the opponent's side before the play */
    uint32_t blocked;        /* points (mover's numbering) the opponent has made */
    uint64_t blots;          /* the opponent's blots (mover's numbering) << GEN_HIT */
    const int *dice;
    int n_dice, doubles, larger;
    int best_score, n, overflow;
    bg_results_table *t;
    bg_board *out; /* the results */
} gen;

/* GEN_UNIT[6 + t]: one chequer on point t in a key; t = -6..-1 (borne off): none. */
#define U(t) {(t) < 16 ? 1ULL << (4 * (t) & 63) : 0, (t) < 16 ? 0 : 1ULL << (4 * (t) & 63)}
static const gen_key GEN_UNIT[31] = {
    {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, U(0),  U(1),  U(2),  U(3),  U(4),
    U(5),   U(6),   U(7),   U(8),   U(9),   U(10),  U(11), U(12), U(13), U(14), U(15),
    U(16),  U(17),  U(18),  U(19),  U(20),  U(21),  U(22), U(23), U(24)};
#undef U

/* The mover's chequers on point (0..24) in key k. */
static inline unsigned int gen_count(gen_key k, int point)
{
    return (unsigned int)((point < 16 ? k.lo : k.hi) >> (4 * point & 63) & 15);
}

/* The board of key k, sides swapped (the opponent on roll). */
static void gen_unpack(const gen *g, gen_key k, bg_board r)
{
#if defined(__SSE2__)
    /* the nibbles of even and odd points interleaved as bytes, then widened to
     * ints: points 0..15 from lo, 16..23 from hi */
    const __m128i m = _mm_set1_epi8(15), z = _mm_setzero_si128();
    __m128i x = _mm_set_epi64x((long long)k.hi, (long long)k.lo);
    __m128i ev = _mm_and_si128(x, m), od = _mm_and_si128(_mm_srli_epi64(x, 4), m);
    __m128i p0 = _mm_unpacklo_epi8(ev, od), p1 = _mm_unpackhi_epi8(ev, od);
    __m128i *out = (__m128i *)r[0];
    __m128i w = _mm_unpacklo_epi8(p0, z);
    _mm_storeu_si128(out, _mm_unpacklo_epi16(w, z));
    _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(w, z));
    w = _mm_unpackhi_epi8(p0, z);
    _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(w, z));
    _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(w, z));
    w = _mm_unpacklo_epi8(p1, z);
    _mm_storeu_si128(out + 4, _mm_unpacklo_epi16(w, z));
    _mm_storeu_si128(out + 5, _mm_unpackhi_epi16(w, z));
    r[0][BG_BAR] = gen_count(k, BG_BAR);
#else
    for (int i = 0; i < 25; i++)
        r[0][i] = gen_count(k, i);
#endif
    memcpy(r[1], g->opp, sizeof r[1]);
    for (uint32_t hits = (uint32_t)(k.hi >> GEN_HIT); hits; hits &= hits - 1) {
        r[1][23 - __builtin_ctz(hits)] = 0;
        r[1][BG_BAR]++;
    }
}

/* Frees the slots of the results so far (the table is empty between calls). */
static void gen_clear(gen *g)
{
    if (!g->doubles)
        for (int i = 0; i < g->n; i++)
            g->t->table[g->t->slot[i]].hi = GEN_EMPTY;
    g->n = 0;
}

/* Whether plays of this score count; a better one discards the results so far. */
static inline int gen_score(gen *g, int score)
{
    if (score > g->best_score) {
        g->best_score = score;
        gen_clear(g);
    }
    return score == g->best_score;
}

/* Whether the board of key k is new; if so it enters the table as the next result. */
static inline int gen_new(gen *g, gen_key k)
{
    gen_key *table = g->t->table;
    uint64_t h = (k.lo ^ k.hi * 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
    unsigned int slot = (unsigned int)(h >> (64 - GEN_TABLE_LOG2));
    for (; table[slot].hi != GEN_EMPTY; slot = (slot + 1) & (GEN_TABLE - 1))
        if (table[slot].lo == k.lo && table[slot].hi == k.hi)
            return 0;
    if (g->n < BG_MAX_MOVES) { /* else gen_add reports the overflow */
        table[slot] = k;
        g->t->slot[g->n] = (int)slot;
    }
    return 1;
}

/* Adds the board of key k to the results unless it is there already. Doubles
 * never repeat a board among plays of the same length, so they skip the
 * table: their plays take the steps from non-increasing points, so two plays
 * differ in the number of steps from some point, and at the highest such
 * point, which chequers reach only from higher points, their boards differ. */
static inline void gen_add(gen *g, gen_key k)
{
    if (!g->doubles && !gen_new(g, k))
        return;
    if (g->n >= BG_MAX_MOVES) {
        g->overflow = 1;
        return;
    }
    gen_unpack(g, k, g->out[g->n++]);
}

/* The mover's points that may play die (descending order is the caller's):
 * from the bar only while it holds chequers; a bear-off needs all chequers
 * home and, beyond the exact die, none on higher points. Free destinations
 * are the points the opponent has not made (hits leave them free). occ: the
 * mover's occupied points (bit 24: the bar). */
static inline uint32_t gen_movable(const gen *g, uint32_t occ, int die, int max_from)
{
    uint32_t cand = occ & ((2u << max_from) - 1);
    /* from - die on a free point: shift the free points up by die */
    uint32_t ok = (~g->blocked & 0xffffffu) << die;
    if (occ >> BG_BAR & 1)
        return cand & ok & 1u << BG_BAR;
    if (occ && occ < 1u << 6) {
        int top = 31 - __builtin_clz(occ); /* all chequers are home */
        ok |= 1u << (die - 1);             /* the exact bear-off */
        if (top < die - 1)
            ok |= 1u << top; /* a larger die takes the highest chequer */
    }
    return cand & ok;
}

/* The key after the step from -> from - die (below 0: borne off); a blot
 * there is hit (off the board the shift lands below the blots' bits). */
static inline gen_key gen_play(const gen *g, gen_key k, int from, int die)
{
    int to = from - die;
    k.lo += GEN_UNIT[6 + to].lo - GEN_UNIT[6 + from].lo;
    k.hi += GEN_UNIT[6 + to].hi - GEN_UNIT[6 + from].hi;
    k.hi |= g->blots & (uint64_t)1 << (GEN_HIT + to);
    return k;
}

/* Plays dice[depth..] from the board of key k (occupied points occ); depth < n_dice. */
static void gen_search(gen *g, int depth, int max_from, gen_key k, uint32_t occ)
{
    int die = g->dice[depth];
    uint32_t c = gen_movable(g, occ, die, max_from);
    if (!c) {
        int score = depth * 2;
        if (depth == 1 && !g->doubles && g->dice[0] == g->larger)
            score++;
        if (gen_score(g, score))
            gen_add(g, k);
        return;
    }
    if (depth + 1 == g->n_dice) { /* the last die: every play has the full score */
        if (gen_score(g, 2 * g->n_dice))
            for (; c; c &= ~(1u << (31 - __builtin_clz(c))))
                gen_add(g, gen_play(g, k, 31 - __builtin_clz(c), die));
        return;
    }
    for (; c; c &= ~(1u << (31 - __builtin_clz(c)))) {
        int from = 31 - __builtin_clz(c), to = from - die;
        gen_key next = gen_play(g, k, from, die);
        /* from may empty; to fills unless borne off */
        uint32_t o = occ & ~((uint32_t)!gen_count(next, from) << from);
        o |= 1u << (6 + to) >> 6;
        gen_search(g, depth + 1, g->doubles ? from : 24, next, o);
    }
}

/* The key of b and, in g, the opponent's side, made points and blots. */
static gen_key gen_start(gen *g, const bg_board b)
{
    gen_key k;
    uint32_t made, blots; /* the opponent's numbering */
#if defined(__SSE2__)
    __m128i lo, hi;
    bg_pack_points(b[1], &lo, &hi);
    /* the low byte of each 16-bit lane becomes b[2i] | b[2i + 1] << 4 */
    const __m128i low = _mm_set1_epi16(0xff);
    lo = _mm_and_si128(_mm_or_si128(lo, _mm_srli_epi16(lo, 4)), low);
    hi = _mm_and_si128(_mm_or_si128(hi, _mm_srli_epi16(hi, 4)), low);
    uint64_t w[2];
    _mm_storeu_si128((__m128i *)w, _mm_packus_epi16(lo, hi));
    k.lo = w[0];
    k.hi = w[1] | (uint64_t)b[1][BG_BAR] << 32;
    bg_pack_points(b[0], &lo, &hi);
    const __m128i one = _mm_set1_epi8(1);
    made = (uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(lo, one)) |
           (uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(hi, one)) << 16;
    blots = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, one)) |
            (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, one)) << 16;
#else
    k.lo = k.hi = 0;
    for (int i = 0; i < 25; i++) {
        if (i < 16)
            k.lo |= (uint64_t)b[1][i] << (4 * i);
        else
            k.hi |= (uint64_t)b[1][i] << (4 * i - 64);
    }
    made = blots = 0;
    for (int i = 0; i < 24; i++) {
        made |= (uint32_t)(b[0][i] >= 2) << i;
        blots |= (uint32_t)(b[0][i] == 1) << i;
    }
#endif
    /* the mover's point t is the opponent's 23 - t: reverse both 24-bit maps
     * at once (bytes, then the bits of each byte) */
    uint64_t x = __builtin_bswap64((uint64_t)blots << 40 | (uint64_t)made << 8);
    x = (x >> 1 & 0x5555555555555555ULL) | (x & 0x5555555555555555ULL) << 1;
    x = (x >> 2 & 0x3333333333333333ULL) | (x & 0x3333333333333333ULL) << 2;
    x = (x >> 4 & 0x0f0f0f0f0f0f0f0fULL) | (x & 0x0f0f0f0f0f0f0f0fULL) << 4;
    g->blocked = (uint32_t)(x >> 32);
    g->blots = (x & 0xffffff) << GEN_HIT;
    g->opp = b[0];
    return k;
}

int bg_roll_results(bg_results_table *t, const bg_board b, int die1, int die2, bg_board *out)
{
    gen g;
    gen_key k = gen_start(&g, b);
    g.t = t;
    g.out = out;
    g.best_score = -1;
    g.n = 0;
    g.overflow = 0;
    g.larger = die1 > die2 ? die1 : die2;
    uint32_t occ = bg_occupied(b[1]);
    if (die1 == die2) {
        int dice[4] = {die1, die1, die1, die1};
        g.dice = dice;
        g.n_dice = 4;
        g.doubles = 1;
        gen_search(&g, 0, 24, k, occ);
    } else {
        int hi = g.larger, lo = die1 > die2 ? die2 : die1;
        int order1[2] = {hi, lo}, order2[2] = {lo, hi};
        g.n_dice = 2;
        g.doubles = 0;
        g.dice = order1;
        gen_search(&g, 0, 24, k, occ);
        g.dice = order2;
        gen_search(&g, 0, 24, k, occ);
    }
    int n = g.overflow ? -1 : g.n;
    gen_clear(&g);
    return n;
}

/* ---- test hook ------------------------------------------------------------------------------ */

/* r (opponent on roll) is b (mover on roll) with the sides swapped. */
static int same_swapped(const bg_board r, const unsigned int b[2][25])
{
    return !memcmp(r[0], b[1], sizeof r[0]) && !memcmp(r[1], b[0], sizeof r[1]);
}

int bg_search_selftest_results(const unsigned int *boards, int n_boards)
{
    bg_move *moves = malloc(sizeof(bg_move) * BG_MAX_MOVES);
    bg_board *want = malloc(sizeof(bg_board) * BG_MAX_MOVES);
    bg_board *got = malloc(sizeof(bg_board) * BG_MAX_MOVES);
    bg_results_table t;
    int bad = -1;
    if (moves && want && got && !bg_results_table_alloc(&t)) {
        bad = 0;
        for (int i = 0; i < n_boards; i++) {
            bg_board bd;
            if (board_load(boards + 50 * (size_t)i, bd)) {
                bad++;
                continue;
            }
            /* the 21 rolls, each die first */
            for (int d0 = 1; d0 <= 6; d0++)
                for (int d1 = 1; d1 <= d0; d1++)
                    for (int swap = 0; swap < 2; swap++) {
                        int x = swap ? d1 : d0, y = swap ? d0 : d1;
                        int n1 = movegen_generate((const unsigned int(*)[25])bd, x, y, moves,
                                                  want, BG_MAX_MOVES);
                        int n2 = bg_roll_results(&t, (const unsigned int(*)[25])bd, x, y, got);
                        int differ = n1 != n2;
                        bg_board_scan before, quick, full;
                        bg_classify_scan((const unsigned int(*)[25])bd, &before);
                        for (int k = 0; k < n2 && !differ; k++) {
                            const unsigned int(*r)[25] = (const unsigned int(*)[25])got[k];
                            differ = !same_swapped(r, want[k]) ||
                                     bg_classify_result(r, &before, &quick) !=
                                         bg_classify_scan(r, &full) ||
                                     memcmp(&quick, &full, sizeof full) != 0;
                        }
                        bad += differ;
                    }
        }
        bg_results_table_free(&t);
    }
    free(moves);
    free(want);
    free(got);
    return bad;
}
