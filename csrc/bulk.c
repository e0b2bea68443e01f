/* Many decisions in one call (the Python bulk API): boards as 50 bytes each
 * (the Python key), the decisions shared out to threads, each decision
 * searched on one thread with the search's own code (search.c), so that a
 * bulk answer equals the one-at-a-time answer bit for bit. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "pool.h"
#include "types.h"

/* Items handed to a thread at a time: small enough to balance uneven
 * decisions, large enough that the shared counter is not contended. */
#define BULK_CHUNK 4

typedef void (*bulk_item)(void *job, int i);

typedef struct {
    bulk_item fn;
    void *job;
    int n;
    atomic_int next;
} bulk_loop;

static void *bulk_run(void *arg)
{
    bulk_loop *lp = arg;
    for (;;) {
        int i0 = atomic_fetch_add(&lp->next, BULK_CHUNK);
        if (i0 >= lp->n)
            return NULL;
        int end = i0 + BULK_CHUNK < lp->n ? i0 + BULK_CHUNK : lp->n;
        for (int i = i0; i < end; i++)
            lp->fn(lp->job, i);
    }
}

/* fn(job, i) for i = 0..n-1 on `threads` threads (0: every core); the caller's
 * thread takes part; a thread that cannot start leaves its share to the others. */
static void parallel_for(int n, int threads, bulk_item fn, void *job)
{
    bulk_loop lp = {fn, job, n, 0};
    if (threads <= 0)
        threads = bg_pool_cores();
    int helpers = threads - 1;
    if (helpers > (n - 1) / BULK_CHUNK)
        helpers = (n - 1) / BULK_CHUNK;
    bg_pool pool;
    bg_pool_start(&pool, helpers, bulk_run, &lp);
    bulk_run(&lp);
    bg_pool_join(&pool);
}

static void widen(const char *board8, unsigned int flat[50])
{
    for (int i = 0; i < 50; i++)
        flat[i] = (unsigned char)board8[i];
}

int bg_best_move8(const bg_engine *engine, bg_cache *cache, const char *board8, int die1, int die2,
                  const bg_search_settings *settings, const bg_cubeinfo *ci, bg_move *moves,
                  unsigned int *results, float *equity, float *equity2, float *probs, int *plies,
                  int max)
{
    unsigned int flat[50];
    widen(board8, flat);
    return bg_best_move(engine, cache, flat, die1, die2, settings, ci, moves, results, equity,
                        equity2, probs, plies, max);
}

int bg_cube_decide8(const bg_engine *engine, bg_cache *cache, const char *board8,
                    const bg_search_settings *settings, const bg_cubeinfo *ci, float *out4,
                    float *probs, float *precheck, float *info3)
{
    unsigned int flat[50];
    widen(board8, flat);
    int code = bg_cube_decide(engine, cache, flat, settings, ci, out4, probs, precheck);
    if (code >= 0 && info3) {
        info3[0] = (float)bg_cube_available(ci);
        info3[1] = bg_cube_double_point_dead(precheck, ci);
        info3[2] = (float)(!ci->match_to && ci->beavers);
    }
    return code;
}

/* ---- chequer play ---- */

typedef struct {
    const bg_engine *e;
    bg_cache *cache;
    const char *boards;
    const int *dice;
    bg_search_settings s; /* one thread per decision */
    const bg_cubeinfo *cis;
    int ci_step;
    bg_move *moves;
    unsigned int *results;
    float *equity, *equity2, *probs;
    int *plies, *status;
} play_job;

static void play_one(void *arg, int i)
{
    play_job *j = arg;
    unsigned int flat[50];
    widen(j->boards + 50 * (size_t)i, flat);
    j->status[i] = bg_best_move(j->e, j->cache, flat, j->dice[2 * i], j->dice[2 * i + 1], &j->s,
                                j->cis + (size_t)i * j->ci_step, j->moves + i,
                                j->results + 50 * (size_t)i, j->equity + i, j->equity2 + i,
                                j->probs + 5 * (size_t)i, j->plies + i, 1);
}

int bg_best_moves8(const bg_engine *engine, bg_cache *cache, const char *boards8, const int *dice,
                   int n, const bg_search_settings *settings, const bg_cubeinfo *cis, int ci_step,
                   int threads, bg_move *moves, unsigned int *results, float *equity,
                   float *equity2, float *probs, int *plies, int *status)
{
    if (!engine || !settings || !cis || n < 0)
        return BG_SEARCH_ERR_SETTINGS;
    play_job j = {engine, cache, boards8, dice, *settings, cis, ci_step ? 1 : 0, moves, results,
                  equity, equity2, probs, plies, status};
    j.s.threads = 1;
    parallel_for(n, threads, play_one, &j);
    return 0;
}

/* ---- cube decisions ---- */

typedef struct {
    const bg_engine *e;
    bg_cache *cache;
    const char *boards;
    bg_search_settings s;
    const bg_cubeinfo *cis;
    int ci_step;
    float *out4, *probs, *precheck, *info;
    int *codes;
} cube_job;

static void cube_one(void *arg, int i)
{
    cube_job *j = arg;
    j->codes[i] = bg_cube_decide8(j->e, j->cache, j->boards + 50 * (size_t)i, &j->s,
                                  j->cis + (size_t)i * j->ci_step, j->out4 + 4 * (size_t)i,
                                  j->probs + 5 * (size_t)i, j->precheck + 5 * (size_t)i,
                                  j->info + 3 * (size_t)i);
}

int bg_cube_decide_many8(const bg_engine *engine, bg_cache *cache, const char *boards8, int n,
                         const bg_search_settings *settings, const bg_cubeinfo *cis, int ci_step,
                         int threads, float *out4, float *probs, float *precheck, float *info,
                         int *codes)
{
    if (!engine || !settings || !cis || n < 0)
        return BG_SEARCH_ERR_SETTINGS;
    cube_job j = {engine, cache, boards8, *settings, cis, ci_step ? 1 : 0, out4, probs, precheck,
                  info, codes};
    j.s.threads = 1;
    parallel_for(n, threads, cube_one, &j);
    return 0;
}

/* ---- evaluation from position IDs ---- */

typedef struct {
    const bg_engine *e;
    bg_cache *cache;
    const char *boards;
    int n;
    float *out;
    int *classes;
} eval_job;

enum { EVAL_BLOCK = 32 };

static void eval_block(void *arg, int blk)
{
    eval_job *j = arg;
    int i0 = blk * EVAL_BLOCK;
    int k = j->n - i0 < EVAL_BLOCK ? j->n - i0 : EVAL_BLOCK;
    /* the boards came from valid IDs: no error to report */
    (void)bg_evaluate_many8(j->e, j->cache, j->boards + 50 * (size_t)i0, k, j->out + 5 * (size_t)i0,
                            j->classes + i0);
}

int bg_evaluate_ids(const bg_engine *engine, bg_cache *cache, const char *ids, int n, int threads,
                    float *out, int *classes)
{
    if (n <= 0)
        return 0;
    char *boards = malloc(50 * (size_t)n);
    if (!boards)
        return BG_SEARCH_ERR_MEMORY;
    int rc = bg_boards8_from_position_ids(ids, n, boards);
    if (!rc) {
        eval_job j = {engine, cache, boards, n, out, classes};
        parallel_for((n + EVAL_BLOCK - 1) / EVAL_BLOCK, threads, eval_block, &j);
    }
    free(boards);
    return rc;
}
