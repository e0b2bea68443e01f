/* gnubg's 0-ply evaluation: classification, the class
 * evaluators, the race-backgammon override and the sanity check, plus a
 * thread-safe position cache. n-ply search builds on bg_eval0. */
#ifndef BG_EVAL_H
#define BG_EVAL_H

#include "bearoff.h"
#include "inputs.h"
#include "nnet.h"
#include "types.h"

/* The engine context: immutable after bg_engine_load, shared by threads. */
struct bg_engine {
    bg_netset nets;
    bg_bearoff_os os;
    bg_bearoff_ts ts;
    bg_escape_tables esc;
    bg_forward_fn forward;
};

/* gnubg's position class of b (standard variant, no hypergammon, no large
 * bearoff databases). */
int bg_classify_board(const bg_board b);

/* What the classification finds of each side: its chequer total and its
 * highest occupied index (24 = bar, -1 for none). */
typedef struct {
    int total[2], back[2];
} bg_board_scan;

/* bg_classify_board, also writing the scan (for bg_sanity_check_scan). */
int bg_classify_scan(const bg_board b, bg_board_scan *scan);

/* bg_classify_scan of a result b of a move (sides swapped, results.h) from
 * the board whose scan is before: rescans only the side that moved. */
int bg_classify_result(const bg_board b, const bg_board_scan *before, bg_board_scan *scan);

/* 0-ply cubeless outputs of b for the side on roll; returns the class. */
int bg_eval0(const struct bg_engine *e, const bg_board b, float out[5]);

/* The same before the sanity check: raw net outputs (race: after the
 * race-backgammon override), what gnubg adds evaluation noise to; the
 * database classes and OVER as in bg_eval0. */
int bg_eval0_raw(const struct bg_engine *e, const bg_board b, float out[5]);

/* Same as bg_eval0, through a cache (cache may be NULL). */
struct bg_cache;
int bg_eval0_cached(const struct bg_engine *e, struct bg_cache *cache, const bg_board b,
                    float out[5]);

/* bg_eval0_cached on k boards b[pick[j]] (b[j] when pick is NULL): out[j],
 * cls[j]. known_cls >= 0 is the class of every one of them (saves the
 * classification), -1 when unknown. */
void bg_eval0_cached_many(const struct bg_engine *e, struct bg_cache *cache, const bg_board *b,
                          const int *pick, int k, int known_cls, float (*out)[5], int *cls);

/* gnubg's sanity check on net outputs; needs the one-sided db. */
void bg_sanity_check(const bg_bearoff_os *os, const bg_board b, float out[5]);

/* bg_sanity_check with b's scan from bg_classify_scan. */
void bg_sanity_check_scan(const bg_bearoff_os *os, const bg_board b, const bg_board_scan *scan,
                          float out[5]);

#endif
