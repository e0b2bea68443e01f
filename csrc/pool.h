/* Threads for one parallel loop, shared by the search, rollouts and the bulk
 * API: the caller starts helper threads on a function that takes tasks from a
 * shared counter, works the same loop itself, then joins them. Results never
 * depend on how many helpers started: a thread that cannot start leaves its
 * share to the others. */
#ifndef BG_POOL_H
#define BG_POOL_H

#include <pthread.h>

#define BG_POOL_MAX_HELPERS 64

typedef struct {
    pthread_t tid[BG_POOL_MAX_HELPERS];
    int started;
} bg_pool;

/* Starts up to `helpers` (at most BG_POOL_MAX_HELPERS) threads running fn(arg)
 * and stops at the first that fails; returns how many started. */
int bg_pool_start(bg_pool *pool, int helpers, void *(*fn)(void *), void *arg);

/* Waits for every thread bg_pool_start started. */
void bg_pool_join(bg_pool *pool);

/* The cores this process may use (its CPU affinity; else the online count), at least 1. */
int bg_pool_cores(void);

#endif
