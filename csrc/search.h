/* gnubg's n-ply search: move choice through the
 * move filters, k-ply evaluation over the 21 rolls, pruning nets inside the
 * tree, cubeful propagation over cube positions, cubeless n-ply, noise at the
 * leaves, threads at the top. The public entry points and
 * bg_search_settings are declared in api.h (section "search").
 *
 * The tree (search.c) also serves candidate scoring (candidates.c) and
 * rollouts (rollout.c) through the declarations below. */
#ifndef BG_SEARCH_H
#define BG_SEARCH_H

#include "noise.h"
#include "results.h"
#include "types.h"

/* Deepest search supported (gnubg stores 0..7 plies). */
#define BG_SEARCH_MAX_PLIES 6

/* Cube positions carried through the tree: 2 at the root of a cube decision,
 * doubling at every ply down to the leaves. */
#define BG_SEARCH_MAX_CUBEPOS (2 << (BG_SEARCH_MAX_PLIES + 1))

/* For rollouts (rollout.c). The side on roll's 0-ply play for d0/d1 with the
 * settings' context (plies ignored; threads must be 1 and noise, if any,
 * deterministic): the resulting board, swapped, in out; returns 1 with its
 * 0-ply outputs in known/known_cls when it evaluated it, 0 when not (one or
 * no legal play), or a negative BG_SEARCH_ERR_*. */
int bg_search_choose0(const bg_engine *e, bg_cache *cache, const bg_search_settings *s,
                      const bg_board b, int d0, int d1, const bg_cubeinfo *ci, bg_board out,
                      float known[5], int *known_cls);

/* ---- the tree, for candidate scoring (candidates.c); the helpers serve rollouts too --------- */

/* A thread's buffers (kept between calls, freed at thread exit). */
typedef struct {
    bg_move *moves;
    bg_board *results;
    float *pscore;
    int *order;
    bg_results_table rt; /* the results generator's */
} search_scratch;

/* What a thread searches with: the settings and its scratch. */
typedef struct {
    const struct bg_engine *e;
    struct bg_cache *cache; /* NULL when noise is on */
    const bg_search_settings *s;
    int cubeful;            /* cubeful tree (cube positions, cubeful move scores) */
    int prune;              /* pruning nets usable (prune and no noise) */
    int low_eff;            /* gnubg 1.1's 0-1 ply cube efficiencies at the leaves */
    int low_eff_choice;     /* the same for the 0-ply move choices inside the tree */
    int repeatable;         /* no random noise: a board evaluates the same each time, so a
                               chosen move's 0-ply outputs serve as the child leaf and
                               the equal children of a node are evaluated once */
    bg_isaac *rng;          /* random noise only (one thread) */
    const volatile int *cancel; /* the settings' cancel flag (NULL: none) */
    search_scratch *sc;     /* this thread's */
} search_worker;

/* Whether the search's cancel flag is set: a cut search's values are garbage
 * and never reach a result or the cache (which holds 0-ply outputs only). */
static inline int search_cancelled(const search_worker *w) { return w->cancel && *w->cancel; }

/* The five outputs of a position's probabilities. */
enum { W = 0, WG = 1, WBG = 2, LG = 3, LBG = 4 };

/* A search's settings and threads. */
typedef struct {
    search_worker w;
    bg_isaac rng;
    int threads;
} search_context;

/* A top-level node of a job: internal roots are split into their 21 rolls. */
typedef struct {
    bg_board b;
    bg_cubeinfo ci_move, ci_child;
    bg_cubeinfo reply_kids[2]; /* cubeful: ci_child's split, for the plays of each roll */
    bg_cubeinfo cps[2], kids[4];
    int n, top, plies, internal;
    float out[5], cf[2];
    float rout[21][5];
    float rcf[21][4];
    /* split roots (children internal, repeatable): the plays of all 21 rolls
     * are chosen first, then each distinct child is evaluated once */
    int split;
    bg_board child[21];
    float known[21][5];
    int known_cls[21], has_known[21];
    int same[21]; /* the first roll whose child equals this roll's */
} search_root;

/* The calling thread's scratch (NULL when out of memory). */
search_scratch *search_thread_scratch(void);

/* Worker settings for a search with s (0 or BG_SEARCH_ERR_SETTINGS). */
int search_context_init(search_context *cx, const bg_engine *e, bg_cache *cache,
                        const bg_search_settings *s, int cubeful);

/* Evaluates every root on up to `threads` threads (the caller's with scratch
 * sc among them); 0, BG_SEARCH_ERR_MEMORY, or BG_SEARCH_ERR_CANCELLED (the
 * roots' values are then unset). */
int search_run_job(const search_worker *proto, search_scratch *sc, search_root *roots, int n_roots,
                   int threads);

/* One root b evaluated at `plies` (cubeful: with the n cube positions cps;
 * top: no doubling at the root): its cubeless outputs and cubeful values. 0,
 * BG_SEARCH_ERR_MEMORY or BG_SEARCH_ERR_CANCELLED. */
int search_eval_root(search_context *cx, const bg_board b, const bg_cubeinfo *ci,
                     const bg_cubeinfo *cps, int n, int top, int plies, float out[5], float *cf);

/* p seen by the other side. */
void search_invert(float p[5]);

/* Cubeless score of p for ci->move (money counts gammons; match: gammon prices). */
float search_utility(const float p[5], const bg_cubeinfo *ci);

/* Score (normalised equity / EMG) for the mover from the opponent's cubeful value. */
float search_score_from_cubeful(float cf_opp, const bg_cubeinfo *ci_mover);

/* 0-ply outputs (with the settings' noise) of b[pick[j]] (b[j] without pick),
 * all of class known_cls if >= 0. */
void search_leaf_probs_many(search_worker *w, const bg_board *b, const int *pick, int k,
                            int known_cls, float (*p)[5], int *cls);

/* Scores s1 (cubeful when the tree is) and s2 (cubeless) of a move whose
 * result nb (opponent on roll) has 0-ply outputs p; kids: ci_opp split by
 * bg_cubepos_split; low_eff: the cube-efficiency set of the scoring context. */
void search_score_leaf(search_worker *w, const bg_board nb, int cls, const float p[5],
                       const bg_cubeinfo *ci_move, const bg_cubeinfo *ci_opp,
                       const bg_cubeinfo *kids, int low_eff, float *s1, float *s2);

#endif
