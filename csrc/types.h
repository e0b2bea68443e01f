/* Board type, limits and enums shared by every engine file. */
#ifndef BG_TYPES_H
#define BG_TYPES_H

#include "api.h" /* bg_move and the other public structs */

/* gnubg's convention: board[1] is the side on roll, board[0] the opponent.
 * Each side counts in its own coordinates: index 0..23 = its points 1..24,
 * index 24 = its bar. Borne-off checkers are not stored (15 - sum). */
typedef unsigned int bg_board[2][25];

#define BG_CHECKERS 15
#define BG_BAR 24
#define BG_OFF (-1)
/* Upper bound on distinct plays for one roll (the true maximum is below 3100). */
#define BG_MAX_MOVES 4096

/* Constant divisions as the gnubg reference build computes them: its
 * -ffast-math turns x / c into x * (1/c) with the reciprocal rounded to float. */
#ifndef BG_TRUE_DIVISION
#define BG_DIVC(x, c) ((float)(x) * (1.0f / (float)(c)))
#else
#define BG_DIVC(x, c) ((float)(x) / (float)(c))
#endif

/* Position classes, gnubg's enum values. */
enum {
    BG_CLASS_OVER = 0,
    BG_CLASS_HYPER1 = 1,
    BG_CLASS_HYPER2 = 2,
    BG_CLASS_HYPER3 = 3,
    BG_CLASS_BEAROFF2 = 4,
    BG_CLASS_BEAROFF_TS = 5,
    BG_CLASS_BEAROFF1 = 6,
    BG_CLASS_BEAROFF_OS = 7,
    BG_CLASS_RACE = 8,
    BG_CLASS_CRASHED = 9,
    BG_CLASS_CONTACT = 10
};

#endif
