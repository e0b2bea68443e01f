/* Helper threads for one parallel loop (pool.h). */
#define _GNU_SOURCE
#include "pool.h"

#include <sched.h>
#include <unistd.h>

int bg_pool_start(bg_pool *pool, int helpers, void *(*fn)(void *), void *arg)
{
    if (helpers > BG_POOL_MAX_HELPERS)
        helpers = BG_POOL_MAX_HELPERS;
    pool->started = 0;
    while (pool->started < helpers && pthread_create(&pool->tid[pool->started], NULL, fn, arg) == 0)
        pool->started++;
    return pool->started;
}

void bg_pool_join(bg_pool *pool)
{
    for (int h = 0; h < pool->started; h++)
        pthread_join(pool->tid[h], NULL);
    pool->started = 0;
}

int bg_pool_cores(void)
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
