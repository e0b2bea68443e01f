/* Board validation, position IDs (gnubg's 14-character base64 key). */
#ifndef BG_POSITION_H
#define BG_POSITION_H

#include "types.h"

enum {
    BG_OK = 0,
    BG_ERR_ID_LENGTH = -1,
    BG_ERR_ID_CHAR = -2,
    BG_ERR_TOO_MANY = -3,
    BG_ERR_OVERLAP = -4,
    BG_ERR_BOTH_BARS_CLOSED = -5,
    BG_ERR_NO_CHECKER = -6,
    BG_ERR_BLOCKED = -7,
    BG_ERR_BAR_FIRST = -8,
    BG_ERR_BEAROFF = -9,
    BG_ERR_BAD_STEP = -10,
    BG_ERR_NEGATIVE = -11
};

void board_from_flat(const unsigned int *flat, bg_board b);
void board_to_flat(const bg_board b, unsigned int *flat);
int board_check(const bg_board b);
/* b from 50 flat counts (board[0] then board[1]); -1 when a count or a side's
 * total is over 15, nothing else checked (the search takes any such board). */
int board_load(const unsigned int *flat, bg_board b);
void board_swap(bg_board b);

#endif
