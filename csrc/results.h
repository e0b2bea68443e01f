/* The distinct boards a roll can produce, for the search (it needs the boards,
 * not the plays, many times per decision): the list of movegen_generate's
 * results, board for board, with the sides swapped, made from packed keys
 * without allocating. */
#ifndef BG_RESULTS_H
#define BG_RESULTS_H

#include "types.h"

struct gen_key;

/* The generator's hash table: one per thread, empty between calls. */
typedef struct {
    struct gen_key *table; /* the generator's hash table (results.c) */
    int *slot;             /* [BG_MAX_MOVES]: the table slot of each result, to free it */
} bg_results_table;

/* 0, or -1 with nothing held (both pointers NULL). */
int bg_results_table_alloc(bg_results_table *t);
void bg_results_table_free(bg_results_table *t);

/* The distinct results of die1/die2 in out[0..] (room for BG_MAX_MOVES), in
 * movegen_generate's order but with the sides swapped (the opponent on roll,
 * as the search evaluates them); returns their count, -1 on overflow. */
int bg_roll_results(bg_results_table *t, const bg_board b, int die1, int die2, bg_board *out);

#endif
