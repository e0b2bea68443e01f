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

/* ---- evaluation (eval.c, nnet.c, inputs.c, bearoff.c) ----
 * Outputs are gnubg's 0-ply cubeless probabilities for the side on roll:
 * win, win gammon, win backgammon, lose gammon, lose backgammon (gammons
 * include backgammons). Classes are gnubg's codes (types.h BG_CLASS_*). */
typedef struct bg_engine bg_engine;
typedef struct bg_cache bg_cache;
/* Loads weights (gnubg.weights text or gnubg.wd binary), gnubg_os0.bd and
 * gnubg_ts0.bd. flags bit 0: verify each file against the digest of gnubg's
 * published file. NULL on failure with a message naming the file in err.
 * The engine is immutable afterwards: share it between threads freely. */
bg_engine *bg_engine_load(const char *weights_path, const char *os_path, const char *ts_path,
                          int flags, char *err, int errlen);
void bg_engine_free(bg_engine *engine);
/* FNV-1a 64 digests of the weights (parsed floats), os and ts files. */
void bg_engine_digests(const bg_engine *engine, unsigned long long *out3);
/* The forward-pass kernel picked for this CPU: "avx2", "sse2" or "generic". */
const char *bg_engine_kernel(const bg_engine *engine);
/* Class of one board; -1 if a side has more than 15 chequers. */
int bg_classify(const unsigned int *board);
/* Classes of n boards; 0, or -(i+1) for the first invalid board i. */
int bg_classify_many(const unsigned int *boards, int n, int *classes);
/* 0-ply evaluation of n boards (50 uints each) into out (5 floats each);
 * classes (may be NULL) receives each board's class; cache may be NULL.
 * Returns 0, or -(i+1) if board i has a side with more than 15 chequers. */
int bg_evaluate_many(const bg_engine *engine, bg_cache *cache, const unsigned int *boards, int n,
                     float *out, int *classes);
/* A position cache shared safely by any number of threads (lock-free;
 * a slot being written reads as a miss). 2^log2_entries slots of 64 bytes.
 * bg_cache_clear must not race with bg_cache_free. */
bg_cache *bg_cache_new(unsigned int log2_entries);
void bg_cache_free(bg_cache *cache);
void bg_cache_clear(bg_cache *cache);
/* Test hooks: the sigmoid's exp table (101 floats), S(z), bearoff index of
 * one side, and the inputs of net 0..5 (contact, race, crashed, prune
 * contact, prune crashed, prune race) for a board; returns the count. */
void bg_sigmoid_table(float *out101);
float bg_sigmoid_value(float z);
unsigned int bg_bearoff_id(const unsigned int *side, int n_points, int n_chequers);
int bg_net_inputs(const bg_engine *engine, const unsigned int *board, int net, float *out);

#endif
