/* Rollouts as gnubg does them (gnubg's manual, "Rollouts").
 *
 * A trial plays one game (or its first `truncate` half-moves) from an
 * alternative's board with the dice of its index (dice.c), each side with its
 * own chequer and cube contexts, and returns 7 outputs from the root's side
 * (the side on roll at ply 0). With variance reduction every ply also looks
 * at all 21 rolls: the mean of their evaluations minus the evaluation of the
 * roll that came is the luck of that ply, and the trial's value is its end
 * value plus the luck so far.
 *
 * Threads take trial indices from a shared counter and write each trial's
 * outputs to its own slot; nothing in a trial depends on another trial or on
 * the thread, so the values (and the statistics, added in index order) do not
 * depend on the thread count or on how a range is split. */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "cubepos.h"
#include "dice.h"
#include "eval.h"
#include "pool.h"
#include "position.h"
#include "rollout.h"
#include "search.h"

enum { CL = BG_RO_CL, CF = BG_RO_CF, NOUT = BG_RO_OUTPUTS };

typedef struct {
    const struct bg_engine *e;
    struct bg_cache *cache;
    bg_rollout_settings s;      /* the caller's, every context on one thread */
    const bg_dice_tables *quasi; /* NULL: quasi-random dice off */
    bg_search_settings zero[2]; /* variance reduction: the move choice (0 ply) */
    bg_search_settings vr[2];   /* variance reduction: the evaluation after it */
    bg_search_settings exact;   /* bearoff truncation (0 ply) */
} roller;

/* The same outcome seen by the other side (W' = 1-W, gammons and backgammons
 * swapped, equities negated; a match CF becomes 1-CF). */
static void invert7(float v[NOUT], int match)
{
    search_invert(v);
    v[CL] = -v[CL];
    v[CF] = match ? 1.0f - v[CF] : -v[CF];
}

static int low_ply_efficiency(const bg_search_settings *s)
{
    return bg_low_ply_efficiency(s->efficiency_set, s->plies);
}

/* The 7 outputs of b (side on roll = ci->move) evaluated with context s
 * (its cubeful flag replaced by `cubeful`); known: b's 0-ply outputs when
 * already computed. */
static int evaluate7(const roller *R, const bg_board b, const bg_cubeinfo *ci,
                     const bg_search_settings *s, int cubeful, const float *known, int known_cls,
                     float out[NOUT])
{
    /* a noisy context (a noisy truncation level) goes through the search, which adds the noise */
    if (s->plies == 0 && s->noise == 0.0f) {
        int cls = known_cls;
        if (known)
            memcpy(out, known, 5 * sizeof(float));
        else
            cls = bg_eval0_cached(R->e, R->cache, b, out);
        out[CL] = search_utility(out, ci);
        out[CF] = cubeful ? bg_cubepos_value0(R->e, b, cls, out, ci, low_ply_efficiency(s)) : 0.0f;
        return 0;
    }
    bg_search_settings x = *s;
    x.cubeful = cubeful;
    unsigned int flat[50];
    float eq[2];
    board_to_flat(b, flat);
    int rc = bg_evaluate_nply(R->e, R->cache, flat, &x, ci, out, eq);
    if (rc)
        return rc;
    out[CL] = search_utility(out, ci);
    /* the search reports EMG; the trial keeps an MWC in match play */
    out[CF] = cubeful ? bg_cube_emg_to_mwc(eq[1], ci) : 0.0f;
    return 0;
}

/* The play of the side on roll with context s: the board after it, swapped. */
static int play(const roller *R, const bg_board b, const int d[2], const bg_cubeinfo *ci,
                const bg_search_settings *s, bg_board out)
{
    float known[5];
    int kc;
    if (s->plies == 0) {
        int rc = bg_search_choose0(R->e, R->cache, s, b, d[0], d[1], ci, out, known, &kc);
        return rc < 0 ? rc : 0;
    }
    unsigned int flat[50], result[50];
    board_to_flat(b, flat);
    int n = bg_best_move(R->e, R->cache, flat, d[0], d[1], s, ci, NULL, result, NULL, NULL, NULL,
                         NULL, 1);
    if (n < 0)
        return n;
    if (n == 0)
        memcpy(out, b, sizeof(bg_board));
    else
        board_from_flat(result, out);
    board_swap(out);
    return 0;
}

static int is_take(int code)
{
    return code == BG_CUBE_DOUBLE_TAKE || code == BG_CUBE_DOUBLE_BEAVER ||
           code == BG_CUBE_REDOUBLE_TAKE;
}

static int is_pass(int code) { return code == BG_CUBE_DOUBLE_PASS || code == BG_CUBE_REDOUBLE_PASS; }

/* The index of roll a-c (a >= c) in gnubg's order: 1-1, 2-1, 2-2, 3-1, ... */
static int roll_index(int a, int c) { return a * (a - 1) / 2 + c - 1; }

/* Variance reduction's values at one ply: for each roll, its 0-ply
 * play (swapped) and the evaluation after it from the root's side. */
static int ply_values(const roller *R, const bg_board b, const bg_cubeinfo *ci, int ply,
                      float v[21][NOUT], bg_board chosen[21])
{
    int me = ci->move, match = ci->match_to > 0;
    int no_doubles = R->s.initial && ply == 0;
    bg_cubeinfo opp = *ci;
    opp.move = !me;
    for (int a = 1; a <= 6; a++)
        for (int c = 1; c <= a; c++) {
            if (no_doubles && a == c)
                continue;
            int r = roll_index(a, c);
            float known[5];
            int kc = 0;
            int rc = bg_search_choose0(R->e, R->cache, &R->zero[me], b, a, c, ci, chosen[r], known,
                                       &kc);
            if (rc < 0)
                return rc;
            const bg_search_settings *vr = &R->vr[!me];
            if ((rc = evaluate7(R, chosen[r], &opp, vr, vr->cubeful, rc ? known : NULL, kc, v[r])))
                return rc;
            if (!(ply & 1))
                invert7(v[r], match); /* the root moved: its view */
        }
    return 0;
}

/* Adds the luck of roll d at one ply: the mean of the rolls' values minus its value. */
static void add_luck(const roller *R, const bg_cubeinfo *ci, int ply, int c0,
                     const float v[21][NOUT], const int d[2], float luck[NOUT])
{
    int match = ci->match_to > 0, no_doubles = R->s.initial && ply == 0;
    float acc[NOUT] = {0};
    for (int a = 1; a <= 6; a++)
        for (int c = 1; c <= a; c++) {
            if (no_doubles && a == c)
                continue;
            const float *x = v[roll_index(a, c)];
            for (int k = 0; k < NOUT; k++)
                acc[k] += a == c ? x[k] : x[k] * 2.0f;
        }
    const float *vstar = v[roll_index(d[0], d[1])];
    float div = no_doubles ? 30.0f : 36.0f;
    for (int k = 0; k < NOUT; k++) {
        float mean = acc[k] / div;
        if (k == CF && !match)
            luck[k] += (mean - vstar[k]) * (float)(ci->cube / c0);
        else
            luck[k] += mean - vstar[k];
    }
}

/* Every trial of an alternative starts from its board, and the dice alone
 * decide what follows (the plays, the cube, the positions): ply 0 is the same
 * in every trial and ply 1 one of 21 (by the first roll). Their variance
 * reduction values and the play of each roll are computed once per call, by
 * the first thread to get there; a thread that finds a slot being filled
 * computes its own. */
enum { MEMO_PLIES = 2, MEMO_ENTRIES = 22, MEMO_EMPTY = 0, MEMO_FILLING = 1, MEMO_READY = 2 };

typedef struct {
    atomic_int state; /* of v and chosen */
    float v[21][NOUT];
    bg_board chosen[21];
    atomic_int played_state[21];
    bg_board played[21]; /* the play of each roll with the chequer context */
} ply_memo;

/* MEMO_READY: read the slot; MEMO_FILLING: this thread fills it, then
 * memo_publish; MEMO_EMPTY: another thread is at it, compute without it. */
static int memo_claim(atomic_int *state)
{
    int empty = MEMO_EMPTY;
    if (atomic_load_explicit(state, memory_order_acquire) == MEMO_READY)
        return MEMO_READY;
    return atomic_compare_exchange_strong(state, &empty, MEMO_FILLING) ? MEMO_FILLING : MEMO_EMPTY;
}

static void memo_publish(atomic_int *state, int rc)
{
    atomic_store_explicit(state, rc ? MEMO_EMPTY : MEMO_READY, memory_order_release);
}

/* ply_values of memo entry m (NULL: none), in v and chosen. */
static int memo_values(const roller *R, ply_memo *m, const bg_board b, const bg_cubeinfo *ci,
                       int ply, float (**v)[NOUT], bg_board **chosen, float own_v[21][NOUT],
                       bg_board own_chosen[21])
{
    int how = m ? memo_claim(&m->state) : MEMO_EMPTY;
    if (how == MEMO_EMPTY) {
        *v = own_v;
        *chosen = own_chosen;
        return ply_values(R, b, ci, ply, own_v, own_chosen);
    }
    *v = m->v;
    *chosen = m->chosen;
    if (how == MEMO_READY)
        return 0;
    int rc = ply_values(R, b, ci, ply, m->v, m->chosen);
    memo_publish(&m->state, rc);
    return rc;
}

/* play() through memo entry m (NULL: none). */
static int memo_play(const roller *R, ply_memo *m, const bg_board b, const int d[2],
                     const bg_cubeinfo *ci, const bg_search_settings *s, bg_board out)
{
    int r = roll_index(d[0], d[1]);
    int how = m ? memo_claim(&m->played_state[r]) : MEMO_EMPTY;
    if (how == MEMO_EMPTY)
        return play(R, b, d, ci, s, out);
    if (how == MEMO_FILLING) {
        int rc = play(R, b, d, ci, s, m->played[r]);
        memo_publish(&m->played_state[r], rc);
        if (rc)
            return rc;
    }
    memcpy(out, m->played[r], sizeof(bg_board));
    return 0;
}

/* One trial of an alternative: its 7 outputs as stored. */
static int run_trial(const roller *R, const bg_rollout_alt *alt, ply_memo *memo,
                     unsigned long trial, float res[NOUT])
{
    const bg_rollout_settings *s = &R->s;
    bg_board b;
    board_from_flat(alt->board, b);
    bg_cubeinfo ci = alt->ci;
    const int match = ci.match_to > 0, c0 = ci.cube;
    bg_dice_rng rng;
    bg_dice_rng_seed(&rng, s->rng, s->seed + 256u * (unsigned int)trial);
    float luck[NOUT] = {0};
    int limit = s->truncate > 0 ? s->truncate : INT_MAX;
    int ply = 0, rc = 0, entry = 0; /* memo entry of the next ply */
    for (; ply < limit; ply++) {
        int me = ci.move, late = s->late_ply >= 0 && ply >= s->late_ply;
        const bg_search_settings *chequer = late ? &s->chequer_late[me] : &s->chequer[me];
        const bg_search_settings *cube = late ? &s->cube_late[me] : &s->cube[me];
        int cls = bg_classify_board(b);
        int may_double = ply > 0 || (alt->cube_dec_top && !s->initial);
        /* 1: bearoff truncation */
        int at_db = s->cubeful ? !match && s->trunc_bearoff2 && cls <= BG_CLASS_BEAROFF_TS &&
                                     may_double
                               : (s->trunc_bearoff2 && cls <= BG_CLASS_BEAROFF_TS) ||
                                     (s->trunc_bearoff_os && cls <= BG_CLASS_BEAROFF_OS);
        if (at_db || cls == BG_CLASS_OVER) {
            if ((rc = evaluate7(R, b, &ci, &R->exact, s->cubeful, NULL, 0, res)))
                return rc;
            break;
        }
        /* 2: the cube */
        if (s->cubeful && may_double && bg_cube_available(&ci)) {
            unsigned int flat[50];
            float out4[4], probs[5];
            board_to_flat(b, flat);
            int code = bg_cube_decide(R->e, R->cache, flat, cube, &ci, out4, probs, NULL);
            if (code < 0)
                return code;
            if (is_take(code)) {
                bg_cubeinfo doubled;
                bg_cubeinfo_doubled(&ci, &doubled);
                ci = doubled;
            } else if (is_pass(code)) {
                memcpy(res, probs, sizeof probs);
                res[CL] = search_utility(probs, &ci);
                res[CF] = match ? bg_met_mwc(ci.met, ci.score[0], ci.score[1], ci.match_to, me,
                                             ci.cube, me, ci.crawford)
                                : 1.0f;
                break;
            }
        }
        /* 3: the dice; 4-5: luck and the play */
        int d[2];
        bg_dice_roll(R->quasi, &rng, s->initial, trial, ply, d);
        bg_board nb;
        int have_play = 0;
        ply_memo *m = memo && ply < MEMO_PLIES ? &memo[entry] : NULL;
        if (s->variance_reduction) {
            float own_v[21][NOUT], (*v)[NOUT];
            bg_board own_chosen[21], *chosen;
            if ((rc = memo_values(R, m, b, &ci, ply, &v, &chosen, own_v, own_chosen)))
                return rc;
            add_luck(R, &ci, ply, c0, (const float(*)[NOUT])v, d, luck);
            memcpy(nb, chosen[roll_index(d[0], d[1])], sizeof nb);
            have_play = chequer->plies == 0 && chequer->noise == 0.0f &&
                        chequer->cubeful == s->cubeful;
        }
        entry = 1 + roll_index(d[0], d[1]);
        if (!have_play && (rc = memo_play(R, m, b, d, &ci, chequer, nb)))
            return rc;
        /* 6: over? the mover's result (the board unswapped) */
        if (bg_classify_board(nb) == BG_CLASS_OVER) {
            board_swap(nb);
            bg_eval0(R->e, nb, res);
            res[CL] = search_utility(res, &ci);
            res[CF] = match ? bg_cube_emg_to_mwc(res[CL], &ci) : res[CL];
            break;
        }
        /* 7: the other side on roll */
        memcpy(b, nb, sizeof b);
        ci.move = !me;
    }
    if (ply == limit && s->truncate > 0) {
        /* played `truncate` half-moves: evaluate with the side on roll then,
         * with the truncation context as it is (its own cube efficiencies).
         * gnubg computes the same when its cache has no entry for the
         * position; with a cache it often reads back the 0-ply value an
         * earlier 2+ ply search stored with the 2+ ply efficiencies (the key
         * leaves them out), so its result depends on the cache's size and
         * history (tests/test_rollout_truncation.py). */
        if ((rc = evaluate7(R, b, &ci, &s->cube_trunc, s->cubeful, NULL, 0, res)))
            return rc;
    }
    if (ply & 1)
        invert7(res, match);
    /* as gnubg: money values per the starting cube, luck, then per the basis cube */
    if (!match)
        res[CF] *= (float)(ci.cube / c0);
    if (s->variance_reduction)
        for (int k = 0; k < NOUT; k++)
            res[k] += luck[k];
    if (!match)
        res[CF] *= (float)(c0 / alt->basis_cube);
    if (alt->invert)
        invert7(res, match);
    return 0;
}

/* ---- settings and threads ---------------------------------------------------------------- */

void bg_rollout_settings_init(bg_rollout_settings *s)
{
    memset(s, 0, sizeof *s);
    bg_search_settings expert;
    bg_search_settings_init(&expert);
    for (int p = 0; p < 2; p++)
        s->chequer[p] = s->cube[p] = s->chequer_late[p] = s->cube_late[p] = expert;
    s->cube_trunc = expert;
    s->late_ply = -1;
    s->trunc_bearoff2 = 1;
    s->trunc_bearoff_os = 1;
    s->cubeful = 1;
    s->variance_reduction = 1;
    s->quasi_random = 1;
}

/* A context for use inside a trial: one thread; gnubg ignores pruning at 0 plies. */
static int trial_context(bg_search_settings *c)
{
    if (c->plies < 0 || c->plies > BG_SEARCH_MAX_PLIES || c->noise < 0.0f ||
        (c->noise > 0.0f && !c->deterministic))
        return -1;
    c->threads = 1;
    if (c->plies == 0)
        c->prune = 0;
    return 0;
}

static int roller_init(roller *R, const bg_engine *e, bg_cache *cache, const bg_rollout_settings *s)
{
    if (!e || !s || s->truncate < 0 || (s->rng != BG_DICE_SFMT && s->rng != BG_DICE_MT19937))
        return BG_ROLLOUT_ERR_SETTINGS;
    memset(R, 0, sizeof *R);
    R->e = e;
    R->cache = cache;
    R->s = *s;
    bg_rollout_settings *x = &R->s;
    int bad = trial_context(&x->cube_trunc);
    for (int p = 0; p < 2; p++) {
        bad |= trial_context(&x->chequer[p]) | trial_context(&x->cube[p]);
        bad |= trial_context(&x->chequer_late[p]) | trial_context(&x->cube_late[p]);
        /* variance reduction: fixed from the early chequer context, noiseless */
        R->zero[p] = x->chequer[p];
        R->zero[p].plies = 0;
        R->zero[p].prune = 0;
        R->zero[p].noise = 0.0f;
        R->vr[p] = R->zero[p];
        R->vr[p].plies = x->chequer[p].plies > 0 ? x->chequer[p].plies - 1 : 0;
        R->vr[p].prune = R->vr[p].plies > 0 && x->chequer[p].prune;
    }
    R->exact = x->cube[0];
    R->exact.plies = 0;
    R->exact.noise = 0.0f;
    return bad ? BG_ROLLOUT_ERR_SETTINGS : 0;
}

typedef struct {
    const roller *R;
    const bg_rollout_alt *alts;
    ply_memo *memo; /* MEMO_ENTRIES per alternative; NULL: none */
    int n_alts, first, n;
    float *out;
    atomic_int next;
    atomic_int error;
} trial_job;

static void trial_loop(trial_job *jb)
{
    for (;;) {
        int t = atomic_fetch_add(&jb->next, 1);
        if (t >= jb->n || atomic_load(&jb->error))
            return;
        for (int a = 0; a < jb->n_alts; a++) {
            float *o = jb->out + ((size_t)t * (size_t)jb->n_alts + (size_t)a) * NOUT;
            ply_memo *memo = jb->memo ? jb->memo + (size_t)a * MEMO_ENTRIES : NULL;
            int rc = run_trial(jb->R, &jb->alts[a], memo, (unsigned long)jb->first + (unsigned long)t, o);
            if (rc) {
                int none = 0;
                atomic_compare_exchange_strong(&jb->error, &none, rc);
                return;
            }
        }
    }
}

static void *trial_thread(void *arg)
{
    trial_loop(arg);
    return NULL;
}

int bg_rollout_trials(const bg_engine *e, bg_cache *cache, const bg_rollout_settings *s,
                      const bg_rollout_alt *alts, int n_alts, int first, int n, int threads,
                      float *out)
{
    if (!alts || n_alts < 1 || first < 0 || n < 0 || !out)
        return BG_ROLLOUT_ERR_SETTINGS;
    for (int a = 0; a < n_alts; a++) {
        bg_board b;
        board_from_flat(alts[a].board, b);
        if (board_check(b) || alts[a].basis_cube < 1 || alts[a].ci.cube < 1)
            return BG_ROLLOUT_ERR_BOARD;
    }
    roller *R = malloc(sizeof *R);
    bg_dice_tables *quasi = NULL;
    if (!R)
        return BG_ROLLOUT_ERR_MEMORY;
    int rc = roller_init(R, e, cache, s);
    if (!rc && s->quasi_random && !s->initial) {
        /* gnubg turns quasi-random dice off for a rollout as the opening position */
        if (!(quasi = malloc(sizeof *quasi)))
            rc = BG_ROLLOUT_ERR_MEMORY;
        else
            bg_dice_tables_build(quasi, s->seed);
    }
    /* without memory for the memo, every trial computes its first plies */
    ply_memo *memo = !rc && n > 1 ? calloc((size_t)n_alts * MEMO_ENTRIES, sizeof *memo) : NULL;
    if (!rc) {
        R->quasi = quasi;
        trial_job jb = {.R = R, .alts = alts, .memo = memo, .n_alts = n_alts, .first = first, .n = n, .out = out};
        atomic_init(&jb.next, 0);
        atomic_init(&jb.error, 0);
        if (threads <= 0)
            threads = bg_pool_cores();
        bg_pool pool;
        bg_pool_start(&pool, threads - 1 < n - 1 ? threads - 1 : n - 1, trial_thread, &jb);
        trial_loop(&jb);
        bg_pool_join(&pool);
        rc = atomic_load(&jb.error);
    }
    free(memo);
    free(quasi);
    free(R);
    return rc;
}

/* ---- statistics (gnubg's running mean and variance, in float) -------------------------------- */

void bg_rollout_stats_add(bg_rollout_stats *st, const float *values, int n, int stride)
{
    for (int i = 0; i < n; i++) {
        const float *x = values + (size_t)i * (size_t)stride;
        int count = ++st->n;
        for (int k = 0; k < NOUT; k++) {
            st->sum[k] += x[k];
            float m = st->sum[k] / (float)count;
            if (count > 1) {
                float d = m - st->mu[k];
                st->var[k] = st->var[k] * (1.0f - 1.0f / (float)(count - 1)) + (float)count * d * d;
            }
            /* probabilities are reported in [0, 1]; the clamped mean feeds the next step */
            st->mu[k] = k < 5 ? fminf(fmaxf(m, 0.0f), 1.0f) : m;
            st->se[k] = sqrtf(st->var[k] / (float)count);
        }
    }
}

/* ---- test hook ---------------------------------------------------------------------------- */

void bg_rollout_dice(unsigned int seed, int quasi_random, int initial, int rng, int first, int n,
                     int plies, int *out)
{
    bg_dice_tables *quasi = NULL;
    if (quasi_random && !initial && (quasi = malloc(sizeof *quasi)))
        bg_dice_tables_build(quasi, seed);
    for (int t = 0; t < n; t++) {
        bg_dice_rng r;
        unsigned long trial = (unsigned long)first + (unsigned long)t;
        bg_dice_rng_seed(&r, rng, seed + 256u * (unsigned int)trial);
        for (int p = 0; p < plies; p++)
            bg_dice_roll(quasi, &r, initial, trial, p, out + ((size_t)t * (size_t)plies + (size_t)p) * 2);
    }
    free(quasi);
}
