/* The only header cffi sees. Every export is prefixed bg_. Boards cross the
 * boundary as 50 unsigned ints: board[0][0..24] then board[1][0..24]. */
#ifndef BG_API_H
#define BG_API_H

/* One play: up to four checker steps, src/dst in the mover's 0-based indices
 * (24 = bar, -1 = off); hit[i] is 1 when step i hit a blot. */
typedef struct {
    signed char src[4];
    signed char dst[4];
    unsigned char hit[4];
    unsigned char n_steps;
} bg_move;

/* ---- position.c: IDs and validation ---- */
/* Writes 14 chars + NUL into out. */
void bg_position_id(const unsigned int *board, char *out);
/* Returns 0 on success, else a negative error code (see bg_error_text). */
int bg_board_from_position_id(const char *id, unsigned int *board);
/* 0 if the board is a legal backgammon position, else a negative code. */
int bg_check_board(const unsigned int *board);
const char *bg_error_text(int code);

/* ---- movegen.c: legal plays ---- */
/* Fills up to max plays and their resulting boards (50 uints each, seen from
 * the mover, not swapped). Returns the count, or -1 if max is too small. */
int bg_legal_moves(const unsigned int *board, int die1, int die2,
                   bg_move *moves, unsigned int *results, int max);
/* Counts plays over a set of boards and rolls without returning them (bench). */
long long bg_count_moves(const unsigned int *boards, int n_boards,
                         const int *dice, int n_rolls);
/* Applies a play step by step; returns 0 or a negative code. */
int bg_apply_move(const unsigned int *board, const bg_move *move, unsigned int *result);

#endif
