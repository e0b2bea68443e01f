/* Legal play generation: every distinct resulting position for a roll. */
#ifndef BG_MOVEGEN_H
#define BG_MOVEGEN_H

#include "types.h"

/* Plays for the side on roll (board[1]); results are seen from the mover.
 * Returns the count, or -1 when more than max plays exist. */
int movegen_generate(const bg_board b, int die1, int die2,
                     bg_move *moves, bg_board *results, int max);

/* movegen_generate with the order of the dice: the larger die first
 * (as_given 0), or die1 first (1; gnubg's order for the dice it is given, so
 * that equal plays come in gnubg's order). */
int movegen_generate_in(const bg_board b, int die1, int die2, int as_given,
                        bg_move *moves, bg_board *results, int max);

/* Applies one step in place; returns BG_OK or a negative code (position.h). */
int movegen_step(bg_board b, int from, int die, int *hit);

#endif
