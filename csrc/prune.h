/* gnubg's pruning nets: the cheap evaluation that picks
 * which plays a >= 1-ply search scores with the full nets. */
#ifndef BG_PRUNE_H
#define BG_PRUNE_H

#include "eval.h"
#include "types.h"

struct bg_engine;

/* Boards per call in the search and the self-test (any k works). */
#define BG_PRUNE_BATCH 8

/* Outputs of the k boards b[j] with the pruning net of pos_class (RACE,
 * CRASHED or CONTACT: the class shared by all candidates), then for RACE the
 * race-backgammon override, then the sanity check from scan[j]
 * (bg_classify_scan of b[j]). */
void bg_eval_prune_many(const struct bg_engine *e, const bg_board *b, const bg_board_scan *scan,
                        int k, int pos_class, float (*out)[5]);

#endif
