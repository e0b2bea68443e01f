/* gnubg's n-ply search.
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
 * Threads (pool.c): the 21 rolls below each top-level node are tasks handed
 * out to the threads; each task writes its own slot and the slots are summed in roll
 * order afterwards, so results never depend on the thread count (the shared
 * position cache holds exact 0-ply outputs, so hits and misses agree).
 *
 * Cancelling (settings->cancel): the flag is read before each roll of an
 * internal node and each task; once set, nodes stop with zeros, the threads
 * leave their loops and the job reports BG_SEARCH_ERR_CANCELLED, so no value
 * of a cut subtree is used (the cache only ever receives whole 0-ply outputs).
 *
 * gnubg 1.1 (the `gnubg` package) picks its cube-efficiency parameters by the
 * depth of the evaluation context (cube.c): the leaves of an n-ply search use
 * the context's set; the 0-ply move choices inside the tree use it too when
 * pruning, else those of a 0-ply context (found by matching gnubg). */
#include "search.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "cubepos.h"
#include "eval.h"
#include "met.h"
#include "pool.h"
#include "position.h"
#include "prune.h"

/* The 21 rolls in gnubg's order: first die 1..6, second die 1..first. */
static const unsigned char ROLL[21][2] = {
    {1, 1}, {2, 1}, {2, 2}, {3, 1}, {3, 2}, {3, 3}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {5, 1},
    {5, 2}, {5, 3}, {5, 4}, {5, 5}, {6, 1}, {6, 2}, {6, 3}, {6, 4}, {6, 5}, {6, 6}};

/* ---- per-thread state ------------------------------------------------------ */

static void scratch_free(search_scratch *sc);

static int scratch_alloc(search_scratch *sc)
{
    sc->moves = malloc(sizeof(bg_move) * BG_MAX_MOVES);
    sc->results = malloc(sizeof(bg_board) * BG_MAX_MOVES);
    sc->pscore = malloc(sizeof(float) * BG_MAX_MOVES);
    sc->order = malloc(sizeof(int) * BG_MAX_MOVES);
    int table = bg_results_table_alloc(&sc->rt);
    if (sc->moves && sc->results && sc->pscore && sc->order && table == 0)
        return 0;
    scratch_free(sc);
    return -1;
}

static void scratch_free(search_scratch *sc)
{
    free(sc->moves);
    free(sc->results);
    free(sc->pscore);
    free(sc->order);
    bg_results_table_free(&sc->rt);
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

search_scratch *search_thread_scratch(void)
{
    pthread_once(&tls_once, tls_init);
    search_scratch *sc = pthread_getspecific(tls_key);
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

void search_invert(float p[5])
{
    float t = p[WG];
    p[WG] = p[LG];
    p[LG] = t;
    t = p[WBG];
    p[WBG] = p[LBG];
    p[LBG] = t;
    p[W] = 1.0f - p[W];
}

/* Cubeless score of p for ci->move (gnubg's UtilityME): money always counts
 * gammons (g = 1, as gnubg's move scores; no Jacoby), match uses the gammon
 * prices of the score and cube. */
float search_utility(const float p[5], const bg_cubeinfo *ci)
{
    if (!ci->match_to)
        return p[W] * 2.0f - 1.0f + (p[WG] - p[LG]) + (p[WBG] - p[LBG]);
    return bg_cube_utility(p, ci);
}

/* Score (normalised equity / EMG) for the mover from the opponent's cubeful value. */
float search_score_from_cubeful(float cf_opp, const bg_cubeinfo *ci_mover)
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
static int leaf_probs(search_worker *w, const bg_board b, float p[5])
{
    const bg_search_settings *s = w->s;
    if (s->noise > 0.0f) {
        /* gnubg's cubeful evaluator adds the noise to sanity-checked outputs, its cubeless one to raw ones */
        int c = w->cubeful ? bg_eval0(w->e, b, p) : bg_eval0_raw(w->e, b, p);
        bg_noise_apply(w->e, &b[0][0], c, w->cubeful, s->noise, s->deterministic, s->centred,
                       w->rng, p);
        return c;
    }
    return bg_eval0_cached(w->e, w->cache, b, p);
}

/* leaf_probs of b[pick[j]] (b[j] without pick), all of class known_cls if >= 0. */
void search_leaf_probs_many(search_worker *w, const bg_board *b, const int *pick, int k,
                            int known_cls, float (*p)[5], int *cls)
{
    if (w->s->noise > 0.0f) {
        for (int j = 0; j < k; j++)
            cls[j] = leaf_probs(w, (const unsigned int(*)[25])b[pick ? pick[j] : j], p[j]);
        return;
    }
    bg_eval0_cached_many(w->e, w->cache, b, pick, k, known_cls, p, cls);
}

/* ---- move choice inside the tree ------------------------------------------------ */

/* Scores of a move whose result (opponent on roll) nb has 0-ply outputs p;
 * low_eff: the cube-efficiency set of the context scoring it. */
void search_score_leaf(search_worker *w, const bg_board nb, int cls, const float p[5],
                       const bg_cubeinfo *ci_move, const bg_cubeinfo *ci_opp,
                       const bg_cubeinfo *kids, int low_eff, float *s1, float *s2)
{
    *s2 = -search_utility(p, ci_opp);
    if (!w->cubeful) {
        *s1 = *s2;
        return;
    }
    float v[2], cf;
    bg_cubepos_leaf(w->e, nb, cls, p, kids, 2, low_eff, v);
    bg_cubepos_collapse(ci_opp, 1, kids, v, &cf);
    *s1 = search_score_from_cubeful(cf, ci_move);
}

/* Pruning: fills order[0..keep-1] with the moves whose results
 * (from b) the pruning net rates worst for the opponent and returns their
 * common class; -1 if pruning does not apply. */
static int prune_select(search_worker *w, const bg_board b, int n, const bg_cubeinfo *ci_opp,
                        int keep)
{
    bg_board_scan before;
    bg_classify_scan(b, &before);
    float *sc = w->sc->pscore; /* sc[t]: the score of order[t] */
    int *order = w->sc->order;
    int c0 = -1, kept = 0;
    for (int i0 = 0; i0 < n; i0 += BG_PRUNE_BATCH) {
        int k = n - i0 < BG_PRUNE_BATCH ? n - i0 : BG_PRUNE_BATCH;
        const bg_board *nb = (const bg_board *)w->sc->results + i0;
        bg_board_scan scan[BG_PRUNE_BATCH];
        for (int j = 0; j < k; j++) {
            int c = bg_classify_result(nb[j], &before, &scan[j]);
            if (i0 + j == 0) {
                c0 = c;
                if (c0 < BG_CLASS_RACE)
                    return -1;
            } else if (c != c0) {
                return -1;
            }
        }
        float q[BG_PRUNE_BATCH][5];
        bg_eval_prune_many(w->e, nb, scan, k, c0, q);
        for (int j = 0; j < k; j++) {
            float u = search_utility(q[j], ci_opp);
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

/* The cube seen by the opponent after the side on roll plays (ci_opp) and,
 * cubeful, its split (kids): the same for every roll of a node. */
typedef struct {
    bg_cubeinfo ci_opp, kids[2];
} reply_cube;

static void reply_cube_init(const search_worker *w, const bg_cubeinfo *ci_move, reply_cube *rc)
{
    rc->ci_opp = *ci_move;
    rc->ci_opp.move = !ci_move->move;
    if (w->cubeful)
        bg_cubepos_split(&rc->ci_opp, 1, 0, 0, rc->kids);
}

/* The side on roll's play for a roll at 0 ply (pruned when pruning applies). Writes the
 * resulting board, swapped (the opponent on roll), to out; returns 1 with
 * its 0-ply outputs in known/known_cls when it computed them. rc: of ci_move. */
static int choose_move(search_worker *w, const bg_board b, int d0, int d1,
                       const bg_cubeinfo *ci_move, const reply_cube *rc, bg_board out,
                       float known[5], int *known_cls)
{
    int n = bg_roll_results(&w->sc->rt, b, d0, d1, w->sc->results);
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
    int m = n, pruned = 0, pruned_cls = -1;
    if (w->prune) {
        int keep = 5 + floor_log2(n);
        if (n > keep && (pruned_cls = prune_select(w, b, n, &rc->ci_opp, keep)) >= 0) {
            m = keep;
            pruned = 1;
            if (w->e->esc.home_occupied) {
                /* gnubg 1.07 scores the kept plays from the pruning net's worst to
                 * its best, so of plays that tie at 0 ply it keeps the one the
                 * net rates worst (found by experiment: 2-ply scores of lost races) */
                int *o = w->sc->order;
                for (int i = 0; i < keep / 2; i++) {
                    int t = o[i];
                    o[i] = o[keep - 1 - i];
                    o[keep - 1 - i] = t;
                }
            }
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
        search_leaf_probs_many(w, from, pick, k, pruned_cls, p, cls);
        for (int j = 0; j < k; j++) {
            float s1, s2;
            int idx = pruned ? pick[j] : t0 + j;
            search_score_leaf(w, res[idx], cls[j], p[j], ci_move, &rc->ci_opp, rc->kids,
                              w->low_eff_choice, &s1, &s2);
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

static int is_internal(const search_worker *w, int cls, int plies, const bg_cubeinfo *ci_move)
{
    if (plies <= 0 || cls == BG_CLASS_OVER)
        return 0;
    if (cls > BG_CLASS_BEAROFF_TS)
        return 1;
    /* exact bearoff positions: leaves, except in the cubeful evaluator in match play */
    return w->cubeful && ci_move->match_to;
}

static void node_eval(search_worker *w, const bg_board b, int plies, const bg_cubeinfo *ci_move,
                      const bg_cubeinfo *cps, int n, int top, const float *known, int known_cls,
                      float out[5], float *cf);

/* The first roll q < r whose chosen play's board equals nb[r], else r. */
static int first_equal_child(const bg_board *nb, int r)
{
    for (int q = 0; q < r; q++)
        if (!memcmp(nb[q], nb[r], sizeof(bg_board)))
            return q;
    return r;
}

/* The 21 rolls below an internal node: the side on roll's play, then the
 * child, into rout[r] and rcf[r * stride]. A child equal to an earlier roll's
 * (a dance, or plays that end alike) is copied, not evaluated again, when
 * it is a subtree and equal boards evaluate equal. */
static void roll_children(search_worker *w, const bg_board b, const bg_cubeinfo *ci_move,
                          const reply_cube *rc, const bg_cubeinfo *kids, int nk, int child_plies,
                          float (*rout)[5], float *rcf, int stride)
{
    bg_board nb[21];
    int dedupe = w->repeatable && child_plies > 0;
    for (int r = 0; r < 21; r++) {
        if (search_cancelled(w)) { /* cut: the call reports it, these values reach nothing */
            for (; r < 21; r++) {
                memset(rout[r], 0, 5 * sizeof(float));
                memset(rcf + (size_t)r * stride, 0, (size_t)nk * sizeof(float));
            }
            return;
        }
        float known[5];
        int kc = 0;
        int has = choose_move(w, b, ROLL[r][0], ROLL[r][1], ci_move, rc, nb[r], known, &kc);
        int q = dedupe ? first_equal_child((const bg_board *)nb, r) : r;
        if (q < r) {
            memcpy(rout[r], rout[q], 5 * sizeof(float));
            memcpy(rcf + (size_t)r * stride, rcf + (size_t)q * stride, (size_t)nk * sizeof(float));
            continue;
        }
        node_eval(w, (const unsigned int(*)[25])nb[r], child_plies, &rc->ci_opp, kids, nk, 0,
                  has && w->repeatable ? known : NULL, kc, rout[r], rcf + (size_t)r * stride);
    }
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
    search_invert(out);
    for (int j = 0; j < nk; j++) {
        float a = v[j] / 36.0f;
        v[j] = match ? 1.0f - a : -a;
    }
}

/* Evaluates b (side on roll = b[1]) at `plies`: out = cubeless outputs for the
 * side on roll, cf[i] = the cubeful value of cube position cps[i] (money:
 * normalised per its cube; match: MWC of cps[i].move). top: no doubling at
 * this node. known: 0-ply outputs of b already computed (used at a leaf). */
static void node_eval(search_worker *w, const bg_board b, int plies, const bg_cubeinfo *ci_move,
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
            bg_cubepos_split(cps, n, top, 0, kids);
            bg_cubepos_leaf(w->e, b, cls, out, kids, nk, w->low_eff, v);
            bg_cubepos_collapse(cps, n, kids, v, cf);
        }
        return;
    }
    reply_cube rc; /* rc.ci_opp: the children's cube view */
    reply_cube_init(w, ci_move, &rc);
    if (n)
        bg_cubepos_split(cps, n, top, 1, kids);
    int stride = nk > 0 ? nk : 1;
    float rout[21][5];
    float rcf[21 * stride];
    roll_children(w, b, ci_move, &rc, kids, nk, plies - 1, rout, rcf, stride);
    finish_node((const float(*)[5])rout, rcf, nk, ci_move->match_to, out, v);
    if (n)
        bg_cubepos_collapse(cps, n, kids, v, cf);
}

/* ---- top-level jobs and threads ------------------------------------------------------ */

/* Tasks: a whole root (roll -1), a roll of an internal root (0..20: its
 * play, then its child unless the root is split) or the child of a split
 * root's roll (21 + r). The plays of split roots come first; their children
 * are listed, once per distinct board, by the thread that finishes the last
 * play, and the threads that reach them wait until then. */
typedef struct {
    search_worker proto; /* settings shared by every worker (scratch excluded) */
    search_root *roots;
    int n_roots;
    int *task_root; /* root index of task t */
    int *task_roll;
    int n_plays;    /* tasks [0, n_plays): split roots' plays */
    int n_ready;    /* tasks [0, n_ready): listed from the start */
    int n_tasks;    /* all tasks, once children_ready */
    atomic_int next, plays_done, children_ready;
} job;

static void root_play(search_worker *w, search_root *rn, int r)
{
    reply_cube rc;
    rc.ci_opp = rn->ci_child;
    memcpy(rc.kids, rn->reply_kids, sizeof rc.kids);
    rn->has_known[r] = choose_move(w, (const unsigned int(*)[25])rn->b, ROLL[r][0], ROLL[r][1],
                                   &rn->ci_move, &rc, rn->child[r], rn->known[r], &rn->known_cls[r]);
}

static void root_child(search_worker *w, search_root *rn, int r)
{
    node_eval(w, (const unsigned int(*)[25])rn->child[r], rn->plies - 1, &rn->ci_child, rn->kids,
              2 * rn->n, 0, rn->has_known[r] && w->repeatable ? rn->known[r] : NULL,
              rn->known_cls[r], rn->rout[r], rn->rcf[r]);
}

static void run_task(search_worker *w, job *jb, int t)
{
    search_root *rn = &jb->roots[jb->task_root[t]];
    int r = jb->task_roll[t];
    if (r < 0) {
        node_eval(w, (const unsigned int(*)[25])rn->b, rn->plies, &rn->ci_move, rn->cps, rn->n,
                  rn->top, NULL, 0, rn->out, rn->cf);
    } else if (r >= 21) {
        root_child(w, rn, r - 21);
    } else {
        root_play(w, rn, r);
        if (!rn->split)
            root_child(w, rn, r);
    }
}

/* Lists the children of the split roots, each distinct board once. */
static void list_children(job *jb)
{
    int t = jb->n_ready;
    for (int i = 0; i < jb->n_roots; i++) {
        search_root *rn = &jb->roots[i];
        if (!rn->split)
            continue;
        for (int r = 0; r < 21; r++) {
            rn->same[r] = first_equal_child((const bg_board *)rn->child, r);
            if (rn->same[r] == r) {
                jb->task_root[t] = i;
                jb->task_roll[t++] = 21 + r;
            }
        }
    }
    jb->n_tasks = t;
    atomic_store_explicit(&jb->children_ready, 1, memory_order_release);
}

static void job_loop(search_worker *w, job *jb)
{
    for (;;) {
        if (search_cancelled(w))
            return; /* the tasks left are skipped; search_run_job reports the cut */
        int t = atomic_fetch_add(&jb->next, 1);
        if (t >= jb->n_ready) {
            while (!atomic_load_explicit(&jb->children_ready, memory_order_acquire)) {
                if (search_cancelled(w))
                    return; /* a skipped play may leave the children unlisted */
                sched_yield(); /* the last plays are short */
            }
            if (t >= jb->n_tasks)
                break;
        }
        run_task(w, jb, t);
        if (t < jb->n_plays && atomic_fetch_add(&jb->plays_done, 1) + 1 == jb->n_plays)
            list_children(jb);
    }
}

static void *job_thread(void *arg)
{
    job *jb = arg;
    search_worker w = jb->proto;
    search_scratch sc;
    if (scratch_alloc(&sc))
        return NULL; /* the other threads do its share */
    w.sc = &sc;
    job_loop(&w, jb);
    scratch_free(&sc);
    return NULL;
}

int bg_search_default_threads(void) { return bg_pool_cores(); }

/* Prepares root i as a node to evaluate (internal roots get 21 tasks). */
static void root_setup(const search_worker *w, search_root *rn)
{
    int cls = bg_classify_board((const unsigned int(*)[25])rn->b);
    rn->internal = is_internal(w, cls, rn->plies, &rn->ci_move);
    rn->split = rn->internal && rn->plies > 1 && w->repeatable;
    if (rn->internal) {
        reply_cube rc;
        reply_cube_init(w, &rn->ci_move, &rc);
        rn->ci_child = rc.ci_opp;
        memcpy(rn->reply_kids, rc.kids, sizeof rc.kids);
        if (rn->n)
            bg_cubepos_split(rn->cps, rn->n, rn->top, 1, rn->kids);
    }
}

static void root_finish(search_root *rn)
{
    if (!rn->internal)
        return;
    int nk = 2 * rn->n;
    if (rn->split)
        for (int r = 0; r < 21; r++)
            if (rn->same[r] != r) {
                memcpy(rn->rout[r], rn->rout[rn->same[r]], sizeof rn->rout[r]);
                memcpy(rn->rcf[r], rn->rcf[rn->same[r]], sizeof rn->rcf[r]);
            }
    float v[4];
    float flat[21 * 4];
    for (int r = 0; r < 21; r++)
        for (int j = 0; j < nk; j++)
            flat[r * nk + j] = rn->rcf[r][j];
    finish_node((const float(*)[5])rn->rout, flat, nk, rn->ci_move.match_to, rn->out, v);
    if (rn->n)
        bg_cubepos_collapse(rn->cps, rn->n, rn->kids, v, rn->cf);
}

/* Evaluates every root; threads > 1 splits the rolls of internal roots. */
int search_run_job(const search_worker *proto, search_scratch *sc, search_root *roots, int n_roots,
                   int threads)
{
    int n_split = 0, n_rolls = 0, n_leaves = 0;
    for (int i = 0; i < n_roots; i++) {
        root_setup(proto, &roots[i]);
        n_split += roots[i].split;
        n_rolls += roots[i].internal && !roots[i].split;
        n_leaves += !roots[i].internal;
    }
    job jb;
    jb.proto = *proto;
    jb.roots = roots;
    jb.n_roots = n_roots;
    jb.n_plays = 21 * n_split;
    jb.n_ready = jb.n_plays + 21 * n_rolls + n_leaves;
    jb.n_tasks = jb.n_ready;
    size_t most = (size_t)(jb.n_ready + 21 * n_split);
    jb.task_root = malloc(sizeof(int) * (most > 0 ? most : 1));
    jb.task_roll = malloc(sizeof(int) * (most > 0 ? most : 1));
    if (!jb.task_root || !jb.task_roll) {
        free(jb.task_root);
        free(jb.task_roll);
        return BG_SEARCH_ERR_MEMORY;
    }
    /* split roots' plays, the other internal roots' rolls (the long tasks), leaves */
    int t = 0;
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < n_roots; i++) {
            const search_root *rn = &roots[i];
            if (pass < 2 && rn->internal && rn->split == !pass)
                for (int r = 0; r < 21; r++, t++) {
                    jb.task_root[t] = i;
                    jb.task_roll[t] = r;
                }
            else if (pass == 2 && !rn->internal) {
                jb.task_root[t] = i;
                jb.task_roll[t++] = -1;
            }
        }
    atomic_init(&jb.next, 0);
    atomic_init(&jb.plays_done, 0);
    atomic_init(&jb.children_ready, n_split == 0);

    search_worker me = *proto;
    me.sc = sc;
    int helpers = threads - 1;
    int internal_tasks = 21 * (n_split + n_rolls);
    if (helpers > internal_tasks / 2)
        helpers = internal_tasks / 2; /* leaf-only jobs are not worth a thread */
    bg_pool pool;
    bg_pool_start(&pool, helpers, job_thread, &jb);
    job_loop(&me, &jb);
    bg_pool_join(&pool);
    free(jb.task_root);
    free(jb.task_roll);
    if (search_cancelled(proto))
        return BG_SEARCH_ERR_CANCELLED; /* some tasks may have been cut or skipped */
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

/* Worker settings for a search with s; plies: the evaluation depth that
 * decides the cube-efficiency set. */
int search_context_init(search_context *cx, const bg_engine *e, bg_cache *cache,
                        const bg_search_settings *s, int cubeful)
{
    if (!e || !s || s->plies < 0 || s->plies > BG_SEARCH_MAX_PLIES || s->noise < 0.0f)
        return BG_SEARCH_ERR_SETTINGS;
    memset(cx, 0, sizeof *cx);
    search_worker *w = &cx->w;
    w->e = e;
    w->s = s;
    w->cubeful = cubeful;
    w->prune = s->prune && s->noise == 0.0f;
    /* gnubg 1.1 picks its cube-efficiency set by the depth of the evaluation
     * context: 0-1 ply contexts use the second set. The leaves of a search
     * belong to the search's context; the move choices inside the tree use
     * it too when pruning, else a 0-ply copy of it. */
    w->low_eff = bg_low_ply_efficiency(s->efficiency_set, s->plies);
    w->low_eff_choice = w->prune ? w->low_eff : s->efficiency_set == 1;
    w->cache = s->noise > 0.0f ? NULL : cache;
    w->repeatable = s->noise == 0.0f || s->deterministic;
    w->cancel = s->cancel;
    cx->threads = 1; /* 0-ply work is one task: it never asks for the cores (a system call) */
    if (s->noise > 0.0f && !s->deterministic) {
        bg_isaac_seed(&cx->rng, s->seed);
        w->rng = &cx->rng; /* one generator, one order of draws: one thread */
    } else if (s->plies > 0) {
        cx->threads = s->threads > 0 ? s->threads : bg_pool_cores();
    }
    return 0;
}

/* ---- position evaluation and cube decisions ------------------------------------------------ */

int search_eval_root(search_context *cx, const bg_board b, const bg_cubeinfo *ci,
                     const bg_cubeinfo *cps, int n, int top, int plies, float out[5], float *cf)
{
    if (search_cancelled(&cx->w))
        return BG_SEARCH_ERR_CANCELLED;
    search_scratch *sc = search_thread_scratch();
    if (!sc)
        return BG_SEARCH_ERR_MEMORY;
    if (plies == 0) { /* a leaf: evaluated here, as the job's one task would */
        search_worker w = cx->w;
        w.sc = sc;
        node_eval(&w, b, 0, ci, cps, n, top, NULL, 0, out, cf);
        return 0;
    }
    search_root *rn = malloc(sizeof *rn);
    if (!rn)
        return BG_SEARCH_ERR_MEMORY;
    memcpy(rn->b, b, sizeof(bg_board));
    rn->ci_move = *ci;
    for (int i = 0; i < n; i++)
        rn->cps[i] = cps[i];
    rn->n = n;
    rn->top = top;
    rn->plies = plies;
    int rc = search_run_job(&cx->w, sc, rn, 1, plies > 0 ? cx->threads : 1);
    if (!rc) {
        memcpy(out, rn->out, 5 * sizeof(float));
        for (int i = 0; i < n; i++)
            cf[i] = rn->cf[i];
    }
    free(rn);
    return rc;
}

/* ---- entry points for rollouts (rollout.c) ---------------------------------------------------- */

int bg_search_choose0(const bg_engine *e, bg_cache *cache, const bg_search_settings *s,
                      const bg_board b, int d0, int d1, const bg_cubeinfo *ci, bg_board out,
                      float known[5], int *known_cls)
{
    search_context cx;
    int rc = search_context_init(&cx, e, cache, s, s->cubeful);
    if (rc)
        return rc;
    if (!(cx.w.sc = search_thread_scratch()))
        return BG_SEARCH_ERR_MEMORY;
    reply_cube reply;
    reply_cube_init(&cx.w, ci, &reply);
    return choose_move(&cx.w, b, d0, d1, ci, &reply, out, known, known_cls);
}
