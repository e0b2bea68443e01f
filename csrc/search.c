/* The n-ply search, written from gnubg-play-spec sections 1-4.
 *
 * A node is a board with the side on roll in b[1], a ply budget, the real
 * cube state of the side on roll (ci_move: used for every move choice in the
 * node's subtree, only `move` alternates) and a list of cube positions whose
 * cubeful values are wanted. At a leaf the 0-ply outputs (plus noise) are
 * turned into a cubeful value per cube position (Janowski, cube.c); an
 * internal node averages its 21 rolls: the side on roll plays its best 0-ply
 * move (or the pruning nets' pick), the child is the swapped board one ply
 * shallower with each cube position split into "no double" and "doubled".
 * Every node then collapses each pair into the value of the better cube
 * action for its side on roll.
 *
 * Arithmetic is single precision in gnubg's order (rolls 11, 21, 22, 31, ...;
 * doubles weight 1, others 2; divide by 36, then invert), so that close
 * moves sort as gnubg sorts them.
 *
 * Threads: the 21 rolls below each top-level node are tasks handed out to
 * the threads; each task writes its own slot and the slots are summed in roll
 * order afterwards, so results never depend on the thread count (the shared
 * position cache holds exact 0-ply outputs, so hits and misses agree).
 *
 * gnubg 1.1 (the `gnubg` package) picks its cube-efficiency parameters by the
 * depth of the evaluation context (cube.c): the leaves of an n-ply search use
 * the context's set; the 0-ply move choices inside the tree use it too when
 * pruning, else those of a 0-ply context (found by matching gnubg). */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bearoff.h"
#include "cube.h"
#include "eval.h"
#include "inputs.h"
#include "met.h"
#include "movegen.h"
#include "nnet.h"
#include "noise.h"
#include "position.h"
#include "prune.h"
#include "search.h"

enum { W = 0, WG = 1, WBG = 2, LG = 3, LBG = 4 };

/* The 21 rolls in gnubg's order: first die 1..6, second die 1..first. */
static const unsigned char ROLL[21][2] = {
    {1, 1}, {2, 1}, {2, 2}, {3, 1}, {3, 2}, {3, 3}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {5, 1},
    {5, 2}, {5, 3}, {5, 4}, {5, 5}, {6, 1}, {6, 2}, {6, 3}, {6, 4}, {6, 5}, {6, 6}};

/* ---- per-thread state ------------------------------------------------------ */

/* Hash table of the results generator (> 2 * BG_MAX_MOVES slots). */
#define GEN_TABLE_LOG2 13
#define GEN_TABLE (1 << GEN_TABLE_LOG2)

/* The key of a board reached from the start board: lo holds the mover's
 * points 0..15 and hi points 16..24 (bits 0..35), a nibble each (boards hold
 * at most 15 chequers a side, load_board), and hi bit GEN_HIT + t is set when
 * the play hit the opponent's blot on point t (mover's numbering). With the
 * start board the key determines the board and the board the key, so equal
 * keys are equal boards: the table's comparison stays exact. */
#define GEN_HIT 36
#define GEN_EMPTY (~(uint64_t)0) /* no key sets bit 63 */
typedef struct {
    uint64_t lo, hi;
} gen_key;

typedef struct {
    bg_move *moves;
    bg_board *results;
    float *pscore;
    int *order;
    gen_key *gen_table; /* [GEN_TABLE]: hi == GEN_EMPTY marks a free slot */
    int *gen_slot;      /* [BG_MAX_MOVES]: the table slot of each result, to free it */
} scratch;

typedef struct {
    const struct bg_engine *e;
    struct bg_cache *cache; /* NULL when noise is on */
    const bg_search_settings *s;
    int cubeful;            /* cubeful tree (cube positions, cubeful move scores) */
    int prune;              /* pruning nets usable (prune and no noise) */
    int low_eff;            /* gnubg 1.1's 0-1 ply cube efficiencies at the leaves */
    int low_eff_choice;     /* the same for the 0-ply move choices inside the tree */
    int reuse;              /* a chosen move's 0-ply outputs serve as the child leaf */
    bg_isaac *rng;          /* random noise only (one thread) */
    scratch *sc;            /* this thread's */
} worker;

static void scratch_free(scratch *sc);

static int scratch_alloc(scratch *sc)
{
    sc->moves = malloc(sizeof(bg_move) * BG_MAX_MOVES);
    sc->results = malloc(sizeof(bg_board) * BG_MAX_MOVES);
    sc->pscore = malloc(sizeof(float) * BG_MAX_MOVES);
    sc->order = malloc(sizeof(int) * BG_MAX_MOVES);
    sc->gen_table = malloc(sizeof(gen_key) * GEN_TABLE);
    sc->gen_slot = malloc(sizeof(int) * BG_MAX_MOVES);
    if (sc->moves && sc->results && sc->pscore && sc->order && sc->gen_table && sc->gen_slot) {
        for (int i = 0; i < GEN_TABLE; i++)
            sc->gen_table[i].hi = GEN_EMPTY;
        return 0;
    }
    scratch_free(sc);
    return -1;
}

static void scratch_free(scratch *sc)
{
    free(sc->moves);
    free(sc->results);
    free(sc->pscore);
    free(sc->order);
    free(sc->gen_table);
    free(sc->gen_slot);
    memset(sc, 0, sizeof *sc);
}

/* The calling thread keeps its scratch between calls (freed at thread exit). */
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_destroy(void *p)
{
    scratch_free(p);
    free(p);
}

static void tls_init(void) { pthread_key_create(&tls_key, tls_destroy); }

static scratch *thread_scratch(void)
{
    pthread_once(&tls_once, tls_init);
    scratch *sc = pthread_getspecific(tls_key);
    if (sc)
        return sc;
    sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    if (scratch_alloc(sc)) {
        free(sc);
        return NULL;
    }
    pthread_setspecific(tls_key, sc);
    return sc;
}

/* ---- small helpers ------------------------------------------------------------ */

static void invert(float p[5])
{
    float t = p[WG];
    p[WG] = p[LG];
    p[LG] = t;
    t = p[WBG];
    p[WBG] = p[LBG];
    p[LBG] = t;
    p[W] = 1.0f - p[W];
}

/* Cubeless score of p for ci->move: money always counts gammons (g = 1, as
 * gnubg's move scores), match uses the gammon prices. */
static float utility(const float p[5], const bg_cubeinfo *ci)
{
    if (!ci->match_to)
        return p[W] * 2.0f - 1.0f + (p[WG] - p[LG]) + (p[WBG] - p[LBG]);
    return bg_cube_utility(p, ci);
}

/* Score (normalised equity / EMG) for the mover from the opponent's cubeful value. */
static float score_from_cubeful(float cf_opp, const bg_cubeinfo *ci_mover)
{
    if (!ci_mover->match_to)
        return -cf_opp;
    return bg_cube_mwc_to_emg(1.0f - cf_opp, ci_mover);
}

static int floor_log2(int n)
{
    int k = 0;
    while (n >>= 1)
        k++;
    return k;
}

/* 0-ply outputs of a leaf, with the settings' noise. */
static int leaf_probs(worker *w, const bg_board b, float p[5])
{
    const bg_search_settings *s = w->s;
    if (s->noise > 0.0f) {
        int c = bg_eval0_raw(w->e, b, p);
        bg_noise_apply(w->e, &b[0][0], c, w->cubeful, s->noise, s->deterministic, s->centred,
                       w->rng, p);
        return c;
    }
    return bg_eval0_cached(w->e, w->cache, b, p);
}

/* leaf_probs of b[pick[j]] (b[j] without pick), all of class known_cls if >= 0. */
static void leaf_probs_many(worker *w, const bg_board *b, const int *pick, int k, int known_cls,
                            float (*p)[5], int *cls)
{
    if (w->s->noise > 0.0f) {
        for (int j = 0; j < k; j++)
            cls[j] = leaf_probs(w, (const unsigned int(*)[25])b[pick ? pick[j] : j], p[j]);
        return;
    }
    bg_eval0_cached_many(w->e, w->cache, b, pick, k, known_cls, p, cls);
}

/* ---- resulting positions of a roll --------------------------------------------
 *
 * The search needs only the distinct boards a roll can produce, not the plays,
 * many times per decision: this generator visits the plays in exactly the
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
    scratch *sc;
} gen;

/* r (opponent on roll) is b (mover on roll) with the sides swapped. */
static int same_swapped(const bg_board r, const unsigned int b[2][25])
{
    return !memcmp(r[0], b[1], sizeof r[0]) && !memcmp(r[1], b[0], sizeof r[1]);
}

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
            g->sc->gen_table[g->sc->gen_slot[i]].hi = GEN_EMPTY;
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
    gen_key *table = g->sc->gen_table;
    uint64_t h = (k.lo ^ k.hi * 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
    unsigned int slot = (unsigned int)(h >> (64 - GEN_TABLE_LOG2));
    for (; table[slot].hi != GEN_EMPTY; slot = (slot + 1) & (GEN_TABLE - 1))
        if (table[slot].lo == k.lo && table[slot].hi == k.hi)
            return 0;
    if (g->n < BG_MAX_MOVES) { /* else gen_add reports the overflow */
        table[slot] = k;
        g->sc->gen_slot[g->n] = (int)slot;
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
    gen_unpack(g, k, g->sc->results[g->n++]);
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

/* The distinct results of die1/die2 in sc->results, in movegen_generate's
 * order but with the sides swapped (the opponent on roll, as the search
 * evaluates them); returns their count, -1 on overflow. */
static int gen_results(scratch *sc, const bg_board b, int die1, int die2)
{
    gen g;
    gen_key k = gen_start(&g, b);
    g.sc = sc;
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

/* ---- cube positions --------------------------------------------------------------- */

/* Splits each cube position into "no double" (2i) and "doubled" (2i+1); a
 * doubled slot is unavailable (cube 0) at the top of a cube decision or when
 * the side on roll may not double. invert: the children have the other side
 * on roll. */
static void make_cube_pos(const bg_cubeinfo *cps, int n, int top, int invert_move,
                          bg_cubeinfo *out)
{
    for (int i = 0; i < n; i++) {
        bg_cubeinfo *nd = &out[2 * i], *dt = &out[2 * i + 1];
        if (cps[i].cube > 0) {
            *nd = cps[i];
            if (invert_move)
                nd->move = !nd->move;
        } else {
            nd->cube = 0;
        }
        if (!top && cps[i].cube > 0 && bg_cube_available(&cps[i])) {
            bg_cubeinfo_doubled(&cps[i], dt);
            if (invert_move)
                dt->move = !dt->move;
        } else {
            dt->cube = 0;
        }
    }
}

/* Cubeful value of a leaf for every available cube position. */
static void leaf_cube_values(worker *w, const bg_board b, int cls, const float p[5],
                             const bg_cubeinfo *kids, int nk, int low_eff, float *v)
{
    float x = bg_cube_efficiency(&b[0][0], cls, low_eff);
    float em[3];
    const float *exact = NULL;
    if ((cls == BG_CLASS_BEAROFF2 || cls == BG_CLASS_BEAROFF_TS) &&
        bg_cube_exact_money(w->e, &b[0][0], em) == 0)
        exact = em;
    for (int j = 0; j < nk; j++)
        v[j] = kids[j].cube > 0 ? bg_cube_leaf(p, x, cls, exact, &kids[j]) : 0.0f;
}

/* The value of each cube position: the better of no double and double
 * (then the opponent's better of take and pass). */
static void collapse(const bg_cubeinfo *cps, int n, const bg_cubeinfo *kids, const float *v,
                     float *cf)
{
    for (int i = 0; i < n; i++) {
        const bg_cubeinfo *c = &cps[i];
        if (c->cube <= 0) {
            cf[i] = 0.0f;
            continue;
        }
        float nd = v[2 * i];
        if (kids[2 * i + 1].cube <= 0) {
            cf[i] = nd;
            continue;
        }
        float dt, dp;
        if (!c->match_to) {
            dt = 2.0f * v[2 * i + 1];
            dp = 1.0f;
        } else {
            dt = v[2 * i + 1];
            dp = bg_met_mwc(c->met, c->score[0], c->score[1], c->match_to, c->move, c->cube,
                            c->move, c->crawford);
        }
        cf[i] = (dt >= nd && dp >= nd) ? (dt < dp ? dt : dp) : nd;
    }
}

/* ---- move choice inside the tree ------------------------------------------------ */

/* Scores of a move whose result (opponent on roll) nb has 0-ply outputs p;
 * low_eff: the cube-efficiency set of the context scoring it. */
static void score_leaf(worker *w, const bg_board nb, int cls, const float p[5],
                       const bg_cubeinfo *ci_move, const bg_cubeinfo *ci_opp,
                       const bg_cubeinfo *kids, int low_eff, float *s1, float *s2)
{
    *s2 = -utility(p, ci_opp);
    if (!w->cubeful) {
        *s1 = *s2;
        return;
    }
    float v[2], cf;
    leaf_cube_values(w, nb, cls, p, kids, 2, low_eff, v);
    collapse(ci_opp, 1, kids, v, &cf);
    *s1 = score_from_cubeful(cf, ci_move);
}

/* Pruning (spec 3.3): fills order[0..keep-1] with the moves whose results the
 * pruning net rates worst for the opponent and returns their common class;
 * -1 if pruning does not apply. */
static int prune_select(worker *w, int n, const bg_cubeinfo *ci_opp, int keep)
{
    float *sc = w->sc->pscore; /* sc[t]: the score of order[t] */
    int *order = w->sc->order;
    int c0 = -1, kept = 0;
    for (int i0 = 0; i0 < n; i0 += BG_PRUNE_BATCH) {
        int k = n - i0 < BG_PRUNE_BATCH ? n - i0 : BG_PRUNE_BATCH;
        const bg_board *nb = (const bg_board *)w->sc->results + i0;
        for (int j = 0; j < k; j++) {
            int c = bg_classify_board(nb[j]);
            if (i0 + j == 0) {
                c0 = c;
                if (c0 < BG_CLASS_RACE)
                    return -1;
            } else if (c != c0) {
                return -1;
            }
        }
        float q[BG_PRUNE_BATCH][5];
        bg_eval_prune_many(w->e, nb, k, c0, q);
        for (int j = 0; j < k; j++) {
            float u = utility(q[j], ci_opp);
            /* keep the `keep` lowest sorted, ties in generation order: an
             * equal score comes later, so it goes after (or is dropped) */
            if (kept == keep && !(u < sc[keep - 1]))
                continue;
            int t = kept < keep ? kept++ : keep - 1;
            for (; t > 0 && u < sc[t - 1]; t--) {
                sc[t] = sc[t - 1];
                order[t] = order[t - 1];
            }
            sc[t] = u;
            order[t] = i0 + j;
        }
    }
    return c0;
}

/* The side on roll's play for a roll at 0 ply (spec 3.2, 3.3). Writes the
 * resulting board, swapped (the opponent on roll), to out; returns 1 with
 * its 0-ply outputs in known/known_cls when it computed them. */
static int choose_move(worker *w, const bg_board b, int d0, int d1, const bg_cubeinfo *ci_move,
                       bg_board out, float known[5], int *known_cls)
{
    int n = gen_results(w->sc, b, d0, d1);
    const bg_board *res = (const bg_board *)w->sc->results;
    if (n <= 0) {
        memcpy(out, b, sizeof(bg_board));
        board_swap(out);
        return 0;
    }
    if (n == 1) {
        memcpy(out, res[0], sizeof(bg_board));
        return 0;
    }
    bg_cubeinfo ci_opp = *ci_move, kids[2];
    ci_opp.move = !ci_move->move;
    if (w->cubeful)
        make_cube_pos(&ci_opp, 1, 0, 0, kids);
    int m = n, pruned = 0, pruned_cls = -1;
    if (w->prune) {
        int keep = 5 + floor_log2(n);
        if (n > keep && (pruned_cls = prune_select(w, n, &ci_opp, keep)) >= 0) {
            m = keep;
            pruned = 1;
        }
    }
    int best = -1;
    float bs = 0.0f, bs2 = 0.0f;
    enum { CHUNK = 16 };
    for (int t0 = 0; t0 < m; t0 += CHUNK) {
        int k = m - t0 < CHUNK ? m - t0 : CHUNK;
        const int *pick = pruned ? w->sc->order + t0 : NULL;
        const bg_board *from = pruned ? res : res + t0;
        float p[CHUNK][5];
        int cls[CHUNK];
        leaf_probs_many(w, from, pick, k, pruned_cls, p, cls);
        for (int j = 0; j < k; j++) {
            float s1, s2;
            int idx = pruned ? pick[j] : t0 + j;
            score_leaf(w, res[idx], cls[j], p[j], ci_move, &ci_opp, kids, w->low_eff_choice, &s1,
                       &s2);
            if (best < 0 || s1 > bs || (s1 == bs && s2 > bs2)) {
                best = idx;
                bs = s1;
                bs2 = s2;
                memcpy(known, p[j], 5 * sizeof(float));
                *known_cls = cls[j];
            }
        }
    }
    memcpy(out, res[best], sizeof(bg_board));
    return 1;
}

/* ---- nodes ------------------------------------------------------------------------- */

static int is_internal(const worker *w, int cls, int plies, const bg_cubeinfo *ci_move)
{
    if (plies <= 0 || cls == BG_CLASS_OVER)
        return 0;
    if (cls > BG_CLASS_BEAROFF_TS)
        return 1;
    /* exact bearoff positions: leaves, except in the cubeful evaluator in match play */
    return w->cubeful && ci_move->match_to;
}

static void node_eval(worker *w, const bg_board b, int plies, const bg_cubeinfo *ci_move,
                      const bg_cubeinfo *cps, int n, int top, const float *known, int known_cls,
                      float out[5], float *cf);

/* One roll below an internal node: the side on roll's play, then the child. */
static void roll_child(worker *w, const bg_board b, int r, const bg_cubeinfo *ci_move,
                       const bg_cubeinfo *ci_child, const bg_cubeinfo *kids, int nk,
                       int child_plies, float out[5], float *cfk)
{
    bg_board nb;
    float known[5];
    int kc = 0;
    int has = choose_move(w, b, ROLL[r][0], ROLL[r][1], ci_move, nb, known, &kc);
    node_eval(w, (const unsigned int(*)[25])nb, child_plies, ci_child, kids, nk, 0,
              has && w->reuse ? known : NULL, kc, out, cfk);
}

/* Averages the 21 children (gnubg's order and weights), seen from the node. */
static void finish_node(const float (*rout)[5], const float *rcf, int nk, int match,
                        float out[5], float *v)
{
    float acc[5] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int j = 0; j < nk; j++)
        v[j] = 0.0f;
    for (int r = 0; r < 21; r++) {
        const float *cf = rcf + (size_t)r * nk;
        if (ROLL[r][0] == ROLL[r][1]) {
            for (int i = 0; i < 5; i++)
                acc[i] += rout[r][i];
            for (int j = 0; j < nk; j++)
                v[j] += cf[j];
        } else {
            for (int i = 0; i < 5; i++)
                acc[i] += rout[r][i] * 2.0f;
            for (int j = 0; j < nk; j++)
                v[j] += cf[j] * 2.0f;
        }
    }
    for (int i = 0; i < 5; i++)
        out[i] = acc[i] / 36.0f;
    invert(out);
    for (int j = 0; j < nk; j++) {
        float a = v[j] / 36.0f;
        v[j] = match ? 1.0f - a : -a;
    }
}

/* Evaluates b (side on roll = b[1]) at `plies`: out = cubeless outputs for the
 * side on roll, cf[i] = the cubeful value of cube position cps[i] (money:
 * normalised per its cube; match: MWC of cps[i].move). top: no doubling at
 * this node. known: 0-ply outputs of b already computed (used at a leaf). */
static void node_eval(worker *w, const bg_board b, int plies, const bg_cubeinfo *ci_move,
                      const bg_cubeinfo *cps, int n, int top, const float *known, int known_cls,
                      float out[5], float *cf)
{
    int cls = known ? known_cls : bg_classify_board(b);
    int nk = 2 * n;
    bg_cubeinfo kids[nk > 0 ? nk : 1];
    float v[nk > 0 ? nk : 1];
    if (!is_internal(w, cls, plies, ci_move)) {
        if (known)
            memcpy(out, known, 5 * sizeof(float));
        else
            cls = leaf_probs(w, b, out);
        if (n) {
            make_cube_pos(cps, n, top, 0, kids);
            leaf_cube_values(w, b, cls, out, kids, nk, w->low_eff, v);
            collapse(cps, n, kids, v, cf);
        }
        return;
    }
    bg_cubeinfo ci_child = *ci_move;
    ci_child.move = !ci_move->move;
    if (n)
        make_cube_pos(cps, n, top, 1, kids);
    int stride = nk > 0 ? nk : 1;
    float rout[21][5];
    float rcf[21 * stride];
    for (int r = 0; r < 21; r++)
        roll_child(w, b, r, ci_move, &ci_child, kids, nk, plies - 1, rout[r],
                   rcf + (size_t)r * stride);
    finish_node((const float(*)[5])rout, rcf, nk, ci_move->match_to, out, v);
    if (n)
        collapse(cps, n, kids, v, cf);
}

/* ---- top-level jobs and threads ------------------------------------------------------ */

typedef struct {
    bg_board b;
    bg_cubeinfo ci_move, ci_child;
    bg_cubeinfo cps[2], kids[4];
    int n, top, plies, internal;
    float out[5], cf[2];
    float rout[21][5];
    float rcf[21][4];
} root_node;

typedef struct {
    worker proto; /* settings shared by every worker (scratch excluded) */
    root_node *roots;
    int n_roots;
    int *task_root; /* root index of task t */
    int *task_roll; /* roll of task t, -1 = the whole (leaf) root */
    int n_tasks;
    atomic_int next;
} job;

static void run_task(worker *w, job *jb, int t)
{
    root_node *rn = &jb->roots[jb->task_root[t]];
    int r = jb->task_roll[t];
    if (r < 0) {
        node_eval(w, (const unsigned int(*)[25])rn->b, rn->plies, &rn->ci_move, rn->cps, rn->n,
                  rn->top, NULL, 0, rn->out, rn->cf);
        return;
    }
    roll_child(w, (const unsigned int(*)[25])rn->b, r, &rn->ci_move, &rn->ci_child, rn->kids,
               2 * rn->n, rn->plies - 1, rn->rout[r], rn->rcf[r]);
}

static void job_loop(worker *w, job *jb)
{
    for (;;) {
        int t = atomic_fetch_add(&jb->next, 1);
        if (t >= jb->n_tasks)
            break;
        run_task(w, jb, t);
    }
}

static void *job_thread(void *arg)
{
    job *jb = arg;
    worker w = jb->proto;
    scratch sc;
    if (scratch_alloc(&sc))
        return NULL; /* the other threads do its share */
    w.sc = &sc;
    job_loop(&w, jb);
    scratch_free(&sc);
    return NULL;
}

static int online_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int bg_search_default_threads(void) { return online_cores(); }

/* Prepares root i as a node to evaluate (internal roots get 21 tasks). */
static void root_setup(const worker *w, root_node *rn)
{
    int cls = bg_classify_board((const unsigned int(*)[25])rn->b);
    rn->internal = is_internal(w, cls, rn->plies, &rn->ci_move);
    if (rn->internal) {
        rn->ci_child = rn->ci_move;
        rn->ci_child.move = !rn->ci_move.move;
        if (rn->n)
            make_cube_pos(rn->cps, rn->n, rn->top, 1, rn->kids);
    }
}

static void root_finish(root_node *rn)
{
    if (!rn->internal)
        return;
    int nk = 2 * rn->n;
    float v[4];
    float flat[21 * 4];
    for (int r = 0; r < 21; r++)
        for (int j = 0; j < nk; j++)
            flat[r * nk + j] = rn->rcf[r][j];
    finish_node((const float(*)[5])rn->rout, flat, nk, rn->ci_move.match_to, rn->out, v);
    if (rn->n)
        collapse(rn->cps, rn->n, rn->kids, v, rn->cf);
}

/* Evaluates every root; threads > 1 splits the rolls of internal roots. */
static int run_job(const worker *proto, scratch *sc, root_node *roots, int n_roots, int threads)
{
    int n_tasks = 0;
    for (int i = 0; i < n_roots; i++) {
        root_setup(proto, &roots[i]);
        n_tasks += roots[i].internal ? 21 : 1;
    }
    job jb;
    jb.proto = *proto;
    jb.roots = roots;
    jb.n_roots = n_roots;
    jb.task_root = malloc(sizeof(int) * (size_t)(n_tasks > 0 ? n_tasks : 1));
    jb.task_roll = malloc(sizeof(int) * (size_t)(n_tasks > 0 ? n_tasks : 1));
    if (!jb.task_root || !jb.task_roll) {
        free(jb.task_root);
        free(jb.task_roll);
        return -1;
    }
    /* internal roots first (the long tasks), leaves after */
    int t = 0;
    for (int i = 0; i < n_roots; i++)
        if (roots[i].internal)
            for (int r = 0; r < 21; r++, t++) {
                jb.task_root[t] = i;
                jb.task_roll[t] = r;
            }
    for (int i = 0; i < n_roots; i++)
        if (!roots[i].internal) {
            jb.task_root[t] = i;
            jb.task_roll[t++] = -1;
        }
    jb.n_tasks = n_tasks;
    atomic_init(&jb.next, 0);

    worker me = *proto;
    me.sc = sc;
    int helpers = threads - 1;
    int internal_tasks = 0;
    for (int i = 0; i < n_roots; i++)
        internal_tasks += roots[i].internal ? 21 : 0;
    if (helpers > internal_tasks / 2)
        helpers = internal_tasks / 2; /* leaf-only jobs are not worth a thread */
    pthread_t tid[64];
    if (helpers > 64)
        helpers = 64;
    int started = 0;
    for (int h = 0; h < helpers; h++) {
        if (pthread_create(&tid[h], NULL, job_thread, &jb) != 0)
            break;
        started++;
    }
    job_loop(&me, &jb);
    for (int h = 0; h < started; h++)
        pthread_join(tid[h], NULL);
    free(jb.task_root);
    free(jb.task_roll);
    for (int i = 0; i < n_roots; i++)
        root_finish(&roots[i]);
    return 0;
}

/* ---- settings ---------------------------------------------------------------------------- */

void bg_search_settings_init(bg_search_settings *s)
{
    static const bg_move_filter normal[4][4] = {
        {{0, 8, 0.16f}, {0, 0, 0.0f}, {0, 0, 0.0f}, {0, 0, 0.0f}},
        {{0, 8, 0.16f}, {-1, 0, 0.0f}, {0, 0, 0.0f}, {0, 0, 0.0f}},
        {{0, 8, 0.16f}, {-1, 0, 0.0f}, {0, 2, 0.04f}, {0, 0, 0.0f}},
        {{0, 8, 0.16f}, {-1, 0, 0.0f}, {0, 2, 0.04f}, {-1, 0, 0.0f}}};
    memset(s, 0, sizeof *s);
    s->plies = 0;
    s->cubeful = 1;
    s->prune = 0;
    s->noise = 0.0f;
    s->deterministic = 1;
    s->centred = 0;
    s->seed = 0;
    s->efficiency_set = 1;
    s->threads = 0;
    memcpy(s->filter, normal, sizeof normal);
}

static int load_board(const unsigned int *flat, bg_board b)
{
    for (int s = 0; s < 2; s++) {
        unsigned int t = 0;
        for (int i = 0; i < 25; i++) {
            unsigned int n = flat[25 * s + i];
            if (n > 15)
                return -1;
            t += n;
            b[s][i] = n;
        }
        if (t > 15)
            return -1;
    }
    return 0;
}

typedef struct {
    worker w;
    bg_isaac rng;
    int threads;
} context;

/* Worker settings for a search with s; plies: the evaluation depth that
 * decides the cube-efficiency set. */
static int context_init(context *cx, const bg_engine *e, bg_cache *cache,
                        const bg_search_settings *s, int cubeful)
{
    if (!e || !s || s->plies < 0 || s->plies > BG_SEARCH_MAX_PLIES || s->noise < 0.0f)
        return BG_SEARCH_ERR_SETTINGS;
    memset(cx, 0, sizeof *cx);
    worker *w = &cx->w;
    w->e = e;
    w->s = s;
    w->cubeful = cubeful;
    w->prune = s->prune && s->noise == 0.0f;
    /* gnubg 1.1 picks its cube-efficiency set by the depth of the evaluation
     * context: 0-1 ply contexts use the second set. The leaves of a search
     * belong to the search's context; the move choices inside the tree use
     * it too when pruning, else a 0-ply copy of it. */
    w->low_eff = s->efficiency_set == 1 && s->plies <= 1;
    w->low_eff_choice = w->prune ? w->low_eff : s->efficiency_set == 1;
    w->cache = s->noise > 0.0f ? NULL : cache;
    w->reuse = s->noise == 0.0f || s->deterministic;
    cx->threads = s->threads > 0 ? s->threads : online_cores();
    if (s->noise > 0.0f && !s->deterministic) {
        bg_isaac_seed(&cx->rng, s->seed);
        w->rng = &cx->rng;
        cx->threads = 1; /* one generator, one order of draws */
    }
    if (s->plies == 0)
        cx->threads = 1;
    return 0;
}

/* ---- chequer play ------------------------------------------------------------------------- */

typedef struct {
    int idx;
    float s1, s2;
    float p[5];
    int depth;
    int alive;
    int off;    /* chequers of the mover borne off after the move */
    int back;   /* the mover's rearmost chequer after the move (-1 none) */
} cand;

static int cmp_score(const cand *a, const cand *b)
{
    if (a->s1 != b->s1)
        return a->s1 > b->s1 ? -1 : 1;
    if (a->s2 != b->s2)
        return a->s2 > b->s2 ? -1 : 1;
    return a->idx - b->idx;
}

static int cmp_score_q(const void *x, const void *y) { return cmp_score(x, y); }

/* gnubg's general comparison (spec 3.1 step 4). */
static int cmp_general(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth > b->depth ? -1 : 1;
    int wa = a->off == 15, wb = b->off == 15;
    if (wa != wb)
        return wa ? -1 : 1;
    if (a->s1 != b->s1)
        return a->s1 > b->s1 ? -1 : 1;
    if (a->s2 != b->s2)
        return a->s2 > b->s2 ? -1 : 1;
    if (a->off != b->off)
        return a->off > b->off ? -1 : 1;
    if (a->back != b->back)
        return a->back < b->back ? -1 : 1;
    return a->idx - b->idx;
}

/* Scores the listed candidates at 0 ply: the leaves of score_moves's k = 0
 * roots, evaluated in batches (the same values in the same order). */
static void score_moves0(context *cx, const bg_board *res, cand **list, int n,
                         const bg_cubeinfo *ci)
{
    worker *w = &cx->w;
    bg_cubeinfo ci_opp = *ci, kids[2];
    ci_opp.move = !ci->move;
    if (w->cubeful)
        make_cube_pos(&ci_opp, 1, 0, 0, kids);
    enum { CHUNK = 16 };
    for (int t0 = 0; t0 < n; t0 += CHUNK) {
        int k = n - t0 < CHUNK ? n - t0 : CHUNK;
        bg_board nb[CHUNK];
        float p[CHUNK][5];
        int cls[CHUNK];
        for (int j = 0; j < k; j++) {
            memcpy(nb[j], res[list[t0 + j]->idx], sizeof(bg_board));
            board_swap(nb[j]);
        }
        leaf_probs_many(w, (const bg_board *)nb, NULL, k, -1, p, cls);
        for (int j = 0; j < k; j++) {
            cand *c = list[t0 + j];
            score_leaf(w, (const unsigned int(*)[25])nb[j], cls[j], p[j], ci, &ci_opp, kids,
                       w->low_eff, &c->s1, &c->s2);
            memcpy(c->p, p[j], sizeof c->p);
            invert(c->p);
            c->depth = 0;
        }
    }
}

/* Scores the listed candidates at k plies (from the mover's side). */
static int score_moves(context *cx, scratch *sc, const bg_board *res, cand **list, int n, int k,
                       const bg_cubeinfo *ci)
{
    if (k == 0) {
        score_moves0(cx, res, list, n, ci);
        return 0;
    }
    root_node *roots = malloc(sizeof(root_node) * (size_t)(n > 0 ? n : 1));
    if (!roots)
        return BG_SEARCH_ERR_MEMORY;
    bg_cubeinfo ci_opp = *ci;
    ci_opp.move = !ci->move;
    for (int i = 0; i < n; i++) {
        root_node *rn = &roots[i];
        memcpy(rn->b, res[list[i]->idx], sizeof(bg_board));
        board_swap(rn->b);
        rn->ci_move = ci_opp;
        rn->cps[0] = ci_opp;
        rn->n = cx->w.cubeful ? 1 : 0;
        rn->top = 0;
        rn->plies = k;
    }
    if (run_job(&cx->w, sc, roots, n, k > 0 ? cx->threads : 1)) {
        free(roots);
        return BG_SEARCH_ERR_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        root_node *rn = &roots[i];
        cand *c = list[i];
        c->s2 = -utility(rn->out, &ci_opp);
        c->s1 = cx->w.cubeful ? score_from_cubeful(rn->cf[0], ci) : c->s2;
        memcpy(c->p, rn->out, sizeof c->p);
        invert(c->p);
        c->depth = k;
    }
    free(roots);
    return 0;
}

int bg_best_move(const bg_engine *e, bg_cache *cache, const unsigned int *board, int die1,
                 int die2, const bg_search_settings *s, const bg_cubeinfo *ci, bg_move *moves,
                 unsigned int *results, float *equity, float *equity2, float *probs, int *plies,
                 int max)
{
    bg_board b;
    if (!board || load_board(board, b))
        return BG_SEARCH_ERR_BOARD;
    if (die1 < 1 || die1 > 6 || die2 < 1 || die2 > 6)
        return BG_SEARCH_ERR_DICE;
    context cx;
    int rc = context_init(&cx, e, cache, s, s ? s->cubeful : 1);
    if (rc)
        return rc;
    scratch *sc = thread_scratch();
    if (!sc)
        return BG_SEARCH_ERR_MEMORY;
    int n = movegen_generate((const unsigned int(*)[25])b, die1, die2, sc->moves, sc->results,
                             BG_MAX_MOVES);
    if (n <= 0)
        return 0;
    /* own copies: the scratch is reused by the search */
    bg_move *mv = malloc(sizeof(bg_move) * (size_t)n);
    bg_board *res = malloc(sizeof(bg_board) * (size_t)n);
    cand *cs = malloc(sizeof(cand) * (size_t)n);
    cand **list = malloc(sizeof(cand *) * (size_t)n);
    cand *tmp = malloc(sizeof(cand) * (size_t)n);
    if (!mv || !res || !cs || !list || !tmp) {
        rc = BG_SEARCH_ERR_MEMORY;
        goto done;
    }
    memcpy(mv, sc->moves, sizeof(bg_move) * (size_t)n);
    memcpy(res, sc->results, sizeof(bg_board) * (size_t)n);
    for (int i = 0; i < n; i++) {
        cand *c = &cs[i];
        memset(c, 0, sizeof *c);
        c->idx = i;
        c->alive = 1;
        int tot = 0, back = -1;
        for (int j = 0; j < 25; j++) {
            tot += (int)res[i][1][j];
            if (res[i][1][j])
                back = j;
        }
        c->off = 15 - tot;
        c->back = back;
    }
    int nplies = s->plies;
    int final = 1;
    if (nplies > 0) {
        int row = nplies > 4 ? 3 : nplies - 1;
        for (int k = 0; k < nplies; k++) {
            bg_move_filter f = k < 4 ? s->filter[row][k] : (bg_move_filter){-1, 0, 0.0f};
            if (f.accept < 0)
                continue;
            int m = 0;
            for (int i = 0; i < n; i++)
                if (cs[i].alive)
                    list[m++] = &cs[i];
            if ((rc = score_moves(&cx, sc, (const bg_board *)res, list, m, k, ci)))
                goto done;
            for (int i = 0; i < m; i++)
                tmp[i] = *list[i];
            qsort(tmp, (size_t)m, sizeof(cand), cmp_score_q);
            int keep = f.accept < m ? f.accept : m;
            int limit = keep + f.extra < m ? keep + f.extra : m;
            for (; keep < limit; keep++)
                if (tmp[keep].s1 < tmp[0].s1 - f.threshold)
                    break;
            for (int i = 0; i < m; i++) {
                tmp[i].alive = i < keep;
                cs[tmp[i].idx] = tmp[i];
            }
            if (keep == 1 && f.accept != 1) {
                final = 0;
                break;
            }
        }
    }
    if (final) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (cs[i].alive)
                list[m++] = &cs[i];
        if ((rc = score_moves(&cx, sc, (const bg_board *)res, list, m, nplies, ci)))
            goto done;
    }
    qsort(cs, (size_t)n, sizeof(cand), cmp_general);
    rc = n < max ? n : max;
    for (int i = 0; i < rc; i++) {
        const cand *c = &cs[i];
        if (moves)
            moves[i] = mv[c->idx];
        if (results)
            memcpy(results + 50 * (size_t)i, res[c->idx], sizeof(bg_board));
        if (equity)
            equity[i] = c->s1;
        if (equity2)
            equity2[i] = c->s2;
        if (probs)
            memcpy(probs + 5 * (size_t)i, c->p, 5 * sizeof(float));
        if (plies)
            plies[i] = c->depth;
    }
done:
    free(mv);
    free(res);
    free(cs);
    free(list);
    free(tmp);
    return rc;
}

/* ---- position evaluation and cube decisions ------------------------------------------------ */

/* One root evaluated at s->plies (cubeful: with the given cube positions). */
static int eval_root(context *cx, const bg_board b, const bg_cubeinfo *ci, const bg_cubeinfo *cps,
                     int n, int top, int plies, float out[5], float *cf)
{
    scratch *sc = thread_scratch();
    if (!sc)
        return BG_SEARCH_ERR_MEMORY;
    if (plies == 0) { /* a leaf: evaluated here, as the job's one task would */
        worker w = cx->w;
        w.sc = sc;
        node_eval(&w, b, 0, ci, cps, n, top, NULL, 0, out, cf);
        return 0;
    }
    root_node *rn = malloc(sizeof *rn);
    if (!rn)
        return BG_SEARCH_ERR_MEMORY;
    memcpy(rn->b, b, sizeof(bg_board));
    rn->ci_move = *ci;
    for (int i = 0; i < n; i++)
        rn->cps[i] = cps[i];
    rn->n = n;
    rn->top = top;
    rn->plies = plies;
    int rc = run_job(&cx->w, sc, rn, 1, plies > 0 ? cx->threads : 1);
    if (!rc) {
        memcpy(out, rn->out, 5 * sizeof(float));
        for (int i = 0; i < n; i++)
            cf[i] = rn->cf[i];
    }
    free(rn);
    return rc ? BG_SEARCH_ERR_MEMORY : 0;
}

int bg_evaluate_nply(const bg_engine *e, bg_cache *cache, const unsigned int *board,
                     const bg_search_settings *s, const bg_cubeinfo *ci, float *probs,
                     float *equity)
{
    bg_board b;
    if (!board || !ci || load_board(board, b))
        return BG_SEARCH_ERR_BOARD;
    context cx;
    int rc = context_init(&cx, e, cache, s, s ? s->cubeful : 1);
    if (rc)
        return rc;
    float out[5], cf[1] = {0.0f};
    rc = eval_root(&cx, (const unsigned int(*)[25])b, ci, ci, cx.w.cubeful ? 1 : 0, 0, s->plies,
                   out, cf);
    if (rc)
        return rc;
    if (probs)
        memcpy(probs, out, sizeof out);
    if (equity) {
        equity[0] = utility(out, ci);
        equity[1] = cx.w.cubeful ? bg_cube_mwc_to_emg(cf[0], ci) : equity[0];
    }
    return 0;
}

int bg_cube_decide(const bg_engine *e, bg_cache *cache, const unsigned int *board,
                   const bg_search_settings *s, const bg_cubeinfo *ci, float *out4, float *probs,
                   float *precheck)
{
    bg_board b;
    if (!board || !ci || load_board(board, b))
        return BG_SEARCH_ERR_BOARD;
    context cx;
    int rc = context_init(&cx, e, cache, s, 1);
    if (rc)
        return rc;
    bg_cubeinfo cps[2];
    cps[0] = *ci;
    bg_cubeinfo_doubled(ci, &cps[1]);
    float out[5], cf[2];
    rc = eval_root(&cx, (const unsigned int(*)[25])b, ci, cps, 2, 1, s->plies, out, cf);
    if (rc)
        return rc;
    float v[3];
    v[0] = cf[0];
    if (!ci->match_to) {
        v[1] = 2.0f * cf[1];
        v[2] = 1.0f;
    } else {
        v[1] = cf[1];
        v[2] = bg_met_mwc(ci->met, ci->score[0], ci->score[1], ci->match_to, ci->move, ci->cube,
                          ci->move, ci->crawford);
        for (int i = 0; i < 3; i++)
            v[i] = bg_cube_mwc_to_emg(v[i], ci);
    }
    float optimal;
    int code = bg_cube_classify(ci, v, out[WG], &optimal);
    if (v[1] == v[0] && v[2] > v[1] && out[W] > 0.0f &&
        (code == BG_CUBE_NODOUBLE_TAKE || code == BG_CUBE_NO_REDOUBLE_TAKE)) {
        /* bg_cube_classify reads an exact ND = DT tie as "no double", which
         * is what gnubg says when the side on roll cannot win; otherwise
         * (a dead doubled cube, found by deeper searches) gnubg calls it an
         * optional double. */
        int owned = ci->owner != -1;
        optimal = v[1];
        if (!ci->match_to && ci->beavers && v[1] >= -2.0f && v[1] <= 0.0f)
            code = 2.0f * v[1] < v[0] ? (owned ? BG_CUBE_NO_REDOUBLE_BEAVER : BG_CUBE_NODOUBLE_BEAVER)
                                      : BG_CUBE_OPTIONAL_DOUBLE_BEAVER;
        else
            code = owned ? BG_CUBE_OPTIONAL_REDOUBLE_TAKE : BG_CUBE_OPTIONAL_DOUBLE_TAKE;
    }
    if (out4) {
        out4[0] = optimal;
        out4[1] = v[0];
        out4[2] = v[1];
        out4[3] = v[2];
    }
    if (probs)
        memcpy(probs, out, sizeof out);
    if (precheck) {
        /* the bot's market-window pre-check: cubeless, one ply less (spec 4.6) */
        context pc;
        bg_search_settings s2 = *s;
        s2.plies = s->plies > 0 ? s->plies - 1 : 0;
        s2.cubeful = 0;
        if ((rc = context_init(&pc, e, cache, &s2, 0)))
            return rc;
        float dummy[1];
        if ((rc = eval_root(&pc, (const unsigned int(*)[25])b, ci, NULL, 0, 1, s2.plies, precheck,
                            dummy)))
            return rc;
    }
    return code;
}

/* ---- test hook ------------------------------------------------------------------------------ */

int bg_search_selftest_results(const unsigned int *boards, int n_boards)
{
    scratch a, b;
    if (scratch_alloc(&a))
        return -1;
    if (scratch_alloc(&b)) {
        scratch_free(&a);
        return -1;
    }
    int bad = 0;
    for (int i = 0; i < n_boards; i++) {
        bg_board bd;
        if (load_board(boards + 50 * (size_t)i, bd)) {
            bad++;
            continue;
        }
        for (int r = 0; r < 21; r++) {
            int d0 = ROLL[r][0], d1 = ROLL[r][1];
            for (int swap = 0; swap < 2; swap++) {
                int x = swap ? d1 : d0, y = swap ? d0 : d1;
                int n1 = movegen_generate((const unsigned int(*)[25])bd, x, y, a.moves, a.results,
                                          BG_MAX_MOVES);
                int n2 = gen_results(&b, (const unsigned int(*)[25])bd, x, y);
                int differ = n1 != n2;
                for (int k = 0; k < n1 && !differ; k++)
                    differ = !same_swapped((const unsigned int(*)[25])b.results[k], a.results[k]);
                bad += differ;
            }
        }
    }
    scratch_free(&a);
    scratch_free(&b);
    return bad;
}

/* The base encoding (spec 3.1) written densely and directly, the reference
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
        for (int j = 0; j < chunk; j++)
            if (load_board(boards + 50 * (size_t)(i + j), b[j]))
                return -1;
        for (int cls = BG_CLASS_RACE; cls <= BG_CLASS_CONTACT; cls++) {
            int net = cls == BG_CLASS_RACE      ? BG_NET_PRUNE_RACE
                      : cls == BG_CLASS_CRASHED ? BG_NET_PRUNE_CRASHED
                                                : BG_NET_PRUNE_CONTACT;
            float x[BG_PRUNE_BATCH][5];
            bg_eval_prune_many(e, (const bg_board *)b, chunk, cls, x);
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

/* ---- entry points for rollouts (rollout.c) ---------------------------------------------------- */

int bg_search_choose0(const bg_engine *e, bg_cache *cache, const bg_search_settings *s,
                      const bg_board b, int d0, int d1, const bg_cubeinfo *ci, bg_board out,
                      float known[5], int *known_cls)
{
    context cx;
    int rc = context_init(&cx, e, cache, s, s->cubeful);
    if (rc)
        return rc;
    if (!(cx.w.sc = thread_scratch()))
        return BG_SEARCH_ERR_MEMORY;
    return choose_move(&cx.w, b, d0, d1, ci, out, known, known_cls);
}

float bg_search_cubeful0(const bg_engine *e, const bg_board b, int cls, const float p[5],
                         const bg_cubeinfo *ci, int low_eff)
{
    worker w;
    memset(&w, 0, sizeof w);
    w.e = e;
    bg_cubeinfo kids[2];
    float v[2], cf;
    make_cube_pos(ci, 1, 0, 0, kids);
    leaf_cube_values(&w, b, cls, p, kids, 2, low_eff, v);
    collapse(ci, 1, kids, v, &cf);
    return cf;
}
