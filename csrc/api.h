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
/* The same with boards as 50 bytes (each a chequer count), the Python key:
 * bg_position_id of one board; n IDs of 14 characters each, end to end, into
 * n boards (0, or the first ID's negative error code). */
void bg_position_id8(const char *board8, char *out);
int bg_boards8_from_position_ids(const char *ids, int n, char *boards8);
const char *bg_error_text(int code);

/* ---- movegen.c: legal plays ---- */
/* Fills up to max plays and their resulting boards (50 uints each, seen from
 * the mover, not swapped). Returns the count, or -1 if max is too small. */
int bg_legal_moves(const unsigned int *board, int die1, int die2,
                   bg_move *moves, unsigned int *results, int max);
/* The same with boards as 50 bytes (the Python key): results8 gets 50 bytes
 * per play; scratch holds max boards of 50 uints. */
int bg_legal_moves8(const char *board8, int die1, int die2, bg_move *moves, unsigned int *scratch,
                    char *results8, int max);
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
/* Digests of the weights (FNV-1a 64 of the parsed floats), os and ts files (bg_file_digest). */
void bg_engine_digests(const bg_engine *engine, unsigned long long *out3);
/* The forward-pass kernel picked for this CPU: "avx512", "avx2", "sse2" or
 * "generic" (FIBSBOT_KERNEL=generic|sse2|avx2 in the environment forces one). */
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
/* The same with boards as 50 bytes each (a Python bytes object can be passed
 * as is: each byte is a chequer count). */
int bg_evaluate_many8(const bg_engine *engine, bg_cache *cache, const char *boards, int n,
                      float *out, int *classes);
int bg_classify_many8(const char *boards, int n, int *classes);
/* Outputs before gnubg's sanity check (what evaluation noise is added to):
 * raw net outputs (race: after the race-backgammon override); database
 * classes and OVER as bg_evaluate_many. No cache. */
int bg_evaluate_raw_many(const bg_engine *engine, const unsigned int *boards, int n, float *out,
                         int *classes);
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

/* ==== cube.c, met.c, noise.c: match equity, cubeful equities, cube
 * decisions, evaluation noise, as gnubg's ==== */

/* A match equity table as gnubg holds it, extended to 64 points (built by
 * engine/met.py): pre[i][j] = MWC of player 0 needing i+1 points against
 * player 1 needing j+1 before the Crawford game (row/column 0 = the Crawford
 * game itself); post[p][i] = MWC of player p, trailing and needing i+1
 * points, after the Crawford game (the other player is 1-away). */
typedef struct {
    float pre[64][64];
    float post[2][64];
} bg_met;

/* Cube state for the side on roll (`move`, whose probabilities are given).
 * Fill with bg_cubeinfo_set, which also sets the gammon prices. */
typedef struct {
    const bg_met *met;     /* needed in match play; NULL allowed for money */
    int cube;              /* cube value 1, 2, 4, ... */
    int owner;             /* -1 centred, else player 0 or 1 */
    int move;              /* player on roll (0 or 1) */
    int match_to;          /* match length; 0 = money */
    int score[2];
    int crawford;          /* this game is the Crawford game (match only) */
    int jacoby;            /* money only */
    int beavers;           /* money only: beavers allowed */
    float gammon_price[4]; /* gammon price player 0, player 1, backgammon price 0, 1 */
} bg_cubeinfo;

void bg_cubeinfo_set(bg_cubeinfo *ci, const bg_met *met, int cube, int owner, int move,
                     int match_to, int score0, int score1, int crawford, int jacoby, int beavers);
/* MWC of `player` after `winner` wins `points` (gnubg's getME). */
float bg_met_mwc(const bg_met *met, int score0, int score1, int match_to, int player,
                 int points, int winner, int crawford);
/* Cubeless normalised equity of p for ci->move (money: Jacoby-adjusted). */
float bg_cube_utility(const float *p, const bg_cubeinfo *ci);
/* Match: MWC <-> normalised money equity (EMG) at ci's cube; money: identity. */
float bg_cube_mwc_to_emg(float mwc, const bg_cubeinfo *ci);
float bg_cube_emg_to_mwc(float emg, const bg_cubeinfo *ci);
/* Cube efficiency x of a leaf board (50 uints, side on roll = board[25..49])
 * of the given class (two-sided bearoff: 0.6 here, the exact
 * value is derived inside bg_cube_leaf when exact_money is given).
 * low_ply = 0: gnubg 1.07's parameters (contact/crashed 0.68, race
 * 0.55 + 0.00125 pips in [0.6, 0.7]), also gnubg 1.1's for 2+ ply contexts;
 * low_ply = 1: gnubg 1.1's set for 0-1 ply contexts (0.76, race
 * 0.6 + 0.0025 pips in [0.6, 0.8]), what the `gnubg` PyPI package uses. */
/* Whether a context uses gnubg 1.1's 0-1 ply cube efficiencies: efficiency set 1
 * (gnubg 1.1) at 0 or 1 ply. The one statement of the rule (search, rollout, Python). */
int bg_low_ply_efficiency(int efficiency_set, int plies);
float bg_cube_efficiency(const unsigned int *board, int pos_class, int low_ply);
/* Cubeful value at a leaf from cubeless p (5 floats) for ci->move: money =
 * normalised cubeful equity (per ci->cube); match = cubeful MWC.
 * exact_money: NULL, or for two-sided bearoff classes (4, 5) the database's
 * exact money cubeful equities {centred, owned by ci->move, owned by the
 * opponent}: money returns them, match derives the efficiency from them. */
float bg_cube_leaf(const float *p, float x, int pos_class, const float *exact_money,
                   const bg_cubeinfo *ci);
/* The two-sided bearoff database's exact money cubeful equities of a board
 * {centred, owned by the side on roll, owned by the opponent}, the
 * exact_money argument above. 0, or -1 if the board is not in the database
 * or the database has no cubeful values. */
int bg_cube_exact_money(const bg_engine *engine, const unsigned int *board, float *out);
/* 1 if ci->move may double now (gnubg's cube availability). */
int bg_cube_available(const bg_cubeinfo *ci);
/* Classifies ND, DT, DP (normalised, per ci->cube: money DT already x2, match
 * converted to EMG); win_gammon = p[1] of the no-double evaluation. Returns
 * a decision code (csrc/cube.h BG_CUBE_*, gnubg's names in engine/cube.py
 * ACTIONS); *optimal gets the equity of the proper action. */
int bg_cube_classify(const bg_cubeinfo *ci, const float *nd_dt_dp, float win_gammon,
                     float *optimal);
/* 0-ply cube decision from cubeless p: out[4] = optimal, ND, DT, DP
 * (normalised equity / EMG). Returns the decision code. */
int bg_cube_decision(const float *p, float x, int pos_class, const float *exact_money,
                     const bg_cubeinfo *ci, float *out);
/* Dead-cube double point (gnubg's bot's market-window pre-check). */
float bg_cube_double_point_dead(const float *p, const bg_cubeinfo *ci);

/* ISAAC generator state (16 words as in gnubg); per thread, never shared. */
typedef struct {
    unsigned int rsl[16];
    unsigned int mem[16];
    unsigned int a, b, c, cnt;
} bg_isaac;
/* Seeds all 16 seed words with `seed` (gnubg uses the Unix time). */
void bg_isaac_seed(bg_isaac *r, unsigned int seed);
unsigned int bg_isaac_next(bg_isaac *r);
/* Test hook: Jenkins' reference run (256 words, zero seed, 2nd round). */
void bg_isaac_selftest(unsigned int *out, int n);
/* Noise deviate z for output 0..4 of a board (50 uints, side on roll =
 * board[25..49]): deterministic MD5 (signed-char sum as gnubg on x86, or
 * centred = unsigned) or random from rng (Marsaglia polar). */
float bg_noise_deviate(const unsigned int *board, int output, int deterministic, int centred,
                       bg_isaac *rng);
/* Applies noise to 5 leaf outputs as gnubg does. `out` must hold the RAW net
 * outputs (before the sanity check) for a cubeless evaluation, the
 * sanity-checked ones for a cubeful evaluation (gnubg's cubeful evaluator
 * noises its checked 0-ply outputs; both re-check after): out[i] += noise*z_i*k_i with
 * k = (1, .25, .01, .25, .01), clamp to [0,1], then the sanity check (needs
 * the engine's one-sided database; engine NULL skips it). Nothing happens
 * for noise 0, class OVER, or (cubeful = 1) the exact two-sided bearoff
 * classes. Returns 1 if noise was applied, 0 if not, -1 if a random
 * context has no rng. */
int bg_noise_apply(const bg_engine *engine, const unsigned int *board, int pos_class, int cubeful,
                   float noise, int deterministic, int centred, bg_isaac *rng, float *out);

/* ==== search.c, candidates.c: the n-ply search and the decision API (gnubg's
 * levels, move filters and cube decisions). One call per decision; the GIL is released by cffi. Plies
 * use gnubg's numbering (0 = the raw net). Results do not depend on the
 * thread count. ==== */

/* A move-filter entry: after scoring the surviving moves at a ply, keep the
 * first `accept`, then up to `extra` more within `threshold` of the best;
 * accept -1 skips that ply. */
typedef struct {
    int accept;
    int extra;
    float threshold;
} bg_move_filter;

/* An evaluation context (gnubg's evalcontext, move filters, our switches). */
typedef struct {
    int plies;              /* 0..6 */
    int cubeful;            /* cubeful move scores and tree (gnubg's levels: 1) */
    int prune;              /* pruning nets inside the search (ignored with noise) */
    float noise;            /* standard deviation added at the leaves; 0 = none */
    int deterministic;      /* noise from an MD5 of the position, else ISAAC(seed) */
    int centred;            /* deterministic noise unbiased (1) or as gnubg on x86 (0) */
    unsigned int seed;      /* random noise seed (forces one thread) */
    int efficiency_set;     /* cube efficiencies: 0 = gnubg 1.07, 1 = gnubg 1.1; 0 also
                             * ranks the root's plays as gnubg 1.07: generated with the
                             * dice in the order given, equal scores in that order (no
                             * preference for more chequers off or a lower rearmost one) */
    int threads;            /* search threads; 0 = every core this process may use */
    bg_move_filter filter[4][4]; /* filter[n-1][k] for an n-ply search (n > 4: row 4) */
    const volatile int *cancel; /* NULL (never), or a flag the search polls between rolls and
                                 * tasks: once it reads nonzero the call stops and returns
                                 * BG_SEARCH_ERR_CANCELLED (set it from any thread; clear it
                                 * only between calls) */
} bg_search_settings;

enum {
    BG_SEARCH_ERR_BOARD = -1,    /* a side has more than 15 chequers */
    BG_SEARCH_ERR_DICE = -2,
    BG_SEARCH_ERR_SETTINGS = -3,
    BG_SEARCH_ERR_MEMORY = -4,
    BG_SEARCH_ERR_CANCELLED = -6 /* settings->cancel was set: no result (-5: rollouts' board) */
};

/* Expert (0-ply cubeful, no noise, gnubg 1.1 efficiencies, all cores, Normal filter, no cancel flag). */
void bg_search_settings_init(bg_search_settings *s);
/* The number of cores `threads = 0` uses. */
int bg_search_default_threads(void);

/* Chequer play for the side on roll (board[25..49]; ci->move = that player)
 * and the roll die1/die2: every legal play, ranked as gnubg's bot ranks them
 * (deepest evaluation first, then score). Writes up to max candidates: the
 * play, its resulting board (50 uints, from the mover, not swapped; results
 * may be NULL), its score (cubeful normalised equity, EMG in match play; the
 * cubeless score for cubeless settings), the cubeless score (equity2), the
 * mover's probabilities (5 each) and the plies it was evaluated at. Any
 * output pointer may be NULL. Returns the number written (0: no legal play),
 * or a negative BG_SEARCH_ERR_*. */
int bg_best_move(const bg_engine *engine, bg_cache *cache, const unsigned int *board, int die1,
                 int die2, const bg_search_settings *settings, const bg_cubeinfo *ci,
                 bg_move *moves, unsigned int *results, float *equity, float *equity2,
                 float *probs, int *plies, int max);

/* Cube decision of the side on roll (before rolling) at settings->plies:
 * out4 = optimal, no double, double/take, double/pass (normalised equity /
 * EMG); probs = the evaluation's cubeless probabilities; precheck (may be
 * NULL) = the bot's market-window pre-check, a cubeless evaluation one ply
 * shallower. Returns the decision code (csrc/cube.h, engine/cube.py ACTIONS)
 * or a negative BG_SEARCH_ERR_*. */
int bg_cube_decide(const bg_engine *engine, bg_cache *cache, const unsigned int *board,
                   const bg_search_settings *settings, const bg_cubeinfo *ci, float *out4,
                   float *probs, float *precheck);

/* n-ply evaluation of a position before the roll: probs = cubeless
 * probabilities for the side on roll; equity[0] = cubeless score (money:
 * gammons count), equity[1] = cubeful equity with the side on roll free to
 * double (EMG in match play; = equity[0] for cubeless settings). */
int bg_evaluate_nply(const bg_engine *engine, bg_cache *cache, const unsigned int *board,
                     const bg_search_settings *settings, const bg_cubeinfo *ci, float *probs,
                     float *equity);

/* ---- bulk.c: many decisions in one call (boards as 50 bytes each, the
 * Python key). Decisions are shared out to `threads` threads (0 = every
 * core), each searched on one thread: every answer equals the one-at-a-time
 * call's. cis: one cube info per decision (ci_step 1) or one for all (0). ---- */

/* bg_best_move with the board as 50 bytes. */
int bg_best_move8(const bg_engine *engine, bg_cache *cache, const char *board8, int die1, int die2,
                  const bg_search_settings *settings, const bg_cubeinfo *ci, bg_move *moves,
                  unsigned int *results, float *equity, float *equity2, float *probs, int *plies,
                  int max);
/* bg_cube_decide with the board as 50 bytes (precheck may not be NULL) and,
 * in info3 (may be NULL), what the bot's rules read besides: whether the cube
 * is available (bg_cube_available), the dead-cube double point of the
 * precheck, and whether beavers apply (money with beavers). */
int bg_cube_decide8(const bg_engine *engine, bg_cache *cache, const char *board8,
                    const bg_search_settings *settings, const bg_cubeinfo *ci, float *out4,
                    float *probs, float *precheck, float *info3);
/* The chosen play of n decisions (dice[2i], dice[2i+1]): moves[i], results
 * (50 uints each), equity[i], equity2[i], probs (5 each), plies[i] as
 * bg_best_move's first candidate; status[i] = 1, 0 (no legal play) or a
 * negative BG_SEARCH_ERR_*. Returns 0 or BG_SEARCH_ERR_SETTINGS. */
int bg_best_moves8(const bg_engine *engine, bg_cache *cache, const char *boards8, const int *dice,
                   int n, const bg_search_settings *settings, const bg_cubeinfo *cis, int ci_step,
                   int threads, bg_move *moves, unsigned int *results, float *equity,
                   float *equity2, float *probs, int *plies, int *status);
/* bg_cube_decide8 on n boards: out4 (4 each), probs and precheck (5 each),
 * info (3 each), codes[i] = the decision code or a negative BG_SEARCH_ERR_*.
 * Returns 0 or BG_SEARCH_ERR_SETTINGS. */
int bg_cube_decide_many8(const bg_engine *engine, bg_cache *cache, const char *boards8, int n,
                         const bg_search_settings *settings, const bg_cubeinfo *cis, int ci_step,
                         int threads, float *out4, float *probs, float *precheck, float *info,
                         int *codes);
/* 0-ply evaluation of n positions given as 14-character position IDs end to
 * end (out: 5 floats each; classes may not be NULL). Returns 0, a position
 * ID's error code (some ID is invalid), or BG_SEARCH_ERR_MEMORY. */
int bg_evaluate_ids(const bg_engine *engine, bg_cache *cache, const char *ids, int n, int threads,
                    float *out, int *classes);

/* Test hook: the search's own results generator against bg_legal_moves on
 * every roll of n boards (both die orders), and each result's class and
 * scan from the mover's side alone against a whole scan; returns the
 * mismatches. */
int bg_search_selftest_results(const unsigned int *boards, int n_boards);
/* Test hook: the search's pruning-net evaluation (bg_eval_prune_many: sparse
 * inputs, batches of 1..8 boards) against the single-position kernel on a
 * directly written dense base encoding (every prune net on every board);
 * returns the boards x nets that differ in a bit. */
int bg_search_selftest_prune(const bg_engine *engine, const unsigned int *boards, int n_boards);

/* ==== rollout.c, dice.c: gnubg's rollouts (gnubg's manual, "Rollouts"). Trial t of
 * an alternative is fixed by the settings, the seed and t alone, so any split
 * of a trial range over calls, threads or machines gives the same per-trial
 * values; the statistics add them in trial order. The GIL is released. ==== */

/* A rollout's settings (gnubg's rollout context). Contexts are indexed by
 * absolute player (bg_cubeinfo.move); each is used at its plies, cubeful flag,
 * noise (deterministic only) and move filter; prune is ignored at 0 plies. */
typedef struct {
    bg_search_settings chequer[2];      /* plies before late_ply */
    bg_search_settings cube[2];
    bg_search_settings chequer_late[2]; /* plies from late_ply on */
    bg_search_settings cube_late[2];
    bg_search_settings cube_trunc;      /* the evaluation at the truncation point */
    int late_ply;            /* first ply of the late contexts; < 0 = none */
    int truncate;            /* half-moves played before evaluating; 0 = play to the end */
    int trunc_bearoff2;      /* stop at the exact two-sided bearoff database */
    int trunc_bearoff_os;    /* cubeless: stop at the one-sided database */
    int cubeful;
    int variance_reduction;
    int quasi_random;        /* rotation and stratification of the first 128 plies */
    int initial;             /* roll out as the opening position (no doubles at ply 0) */
    int rng;                 /* 0 = SFMT-19937 (gnubg 1.08, the package), 1 = MT19937 (1.07) */
    unsigned int seed;
} bg_rollout_settings;

/* One alternative: a board with the side on roll in board[25..49] and its
 * cube state (ci.move = the side on roll). */
typedef struct {
    unsigned int board[50];
    bg_cubeinfo ci;
    int cube_dec_top;        /* the side on roll may double at ply 0 */
    int invert;              /* results from the other side (a play: the mover's) */
    int basis_cube;          /* money: results are per this cube (cube rollouts: ND's) */
} bg_rollout_alt;

enum { BG_ROLLOUT_ERR_SETTINGS = -3, BG_ROLLOUT_ERR_MEMORY = -4, BG_ROLLOUT_ERR_BOARD = -5 };

/* Defaults: Expert (0-ply cubeful) chequer play and cube decisions for both
 * players, variance reduction, quasi-random dice, bearoff truncation, SFMT. */
void bg_rollout_settings_init(bg_rollout_settings *s);
/* Runs trials first .. first+n-1 of every alternative on `threads` threads
 * (0 = every core): out[(t * n_alts + a) * 7 + k] = output k of trial first+t
 * of alternative a (W WG WBG LG LBG, cubeless equity, cubeful equity or MWC).
 * Returns 0 or a negative BG_ROLLOUT_ERR_*. */
int bg_rollout_trials(const bg_engine *engine, bg_cache *cache, const bg_rollout_settings *s,
                      const bg_rollout_alt *alts, int n_alts, int first, int n, int threads,
                      float *out);

/* gnubg's running statistics of one alternative, in float. */
typedef struct {
    float sum[7], mu[7], var[7], se[7];
    int n;
} bg_rollout_stats;
/* Adds n trials' outputs (7 floats each, `stride` floats apart) in order. */
void bg_rollout_stats_add(bg_rollout_stats *st, const float *values, int n, int stride);

/* Test hook: the rolls of trials first .. first+n-1, plies 0 .. plies-1,
 * larger die first: out[(t * plies + p) * 2 + 0/1]. */
void bg_rollout_dice(unsigned int seed, int quasi_random, int initial, int rng, int first, int n,
                     int plies, int *out);

#endif
