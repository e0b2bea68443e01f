/* Legal play generation with the full rules: bar first, use both dice when
 * possible (else the larger), four steps for doubles, bear-off restrictions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "movegen.h"
#include "position.h"

/* Duplicate detection: open addressing over the results so far, a table of
 * result indices that starts small and doubles (most rolls have few plays, so
 * no large table is cleared per call). */
#define TABLE_MIN 64
#define TABLE_MAX 8192 /* power of two, > 2 * BG_MAX_MOVES */

typedef struct {
    bg_move *moves;
    bg_board *results;
    int max, n, overflow;
    int best_score;             /* steps * 2 + (one step with the larger die) */
    int larger_die;
    unsigned int mask;          /* table size - 1 */
    uint16_t slots[TABLE_MAX];  /* index+1 into results, 0 = empty */
    uint32_t hashes[BG_MAX_MOVES]; /* of each result (the low half) */
} gen_state;

static int all_home(const bg_board b)
{
    for (int i = 6; i < 25; i++)
        if (b[1][i])
            return 0;
    return 1;
}

static int highest_point(const bg_board b)
{
    for (int i = 24; i >= 0; i--)
        if (b[1][i])
            return i;
    return -1;
}

/* The step's destination index, or BG_OFF for a bear-off; no legality check. */
static int destination(int from, int die)
{
    return from - die < 0 ? BG_OFF : from - die;
}

static int step_legal(const bg_board b, int from, int die)
{
    if (!b[1][from])
        return BG_ERR_NO_CHECKER;
    if (from != BG_BAR && b[1][BG_BAR])
        return BG_ERR_BAR_FIRST;
    int to = from - die;
    if (to >= 0)
        return b[0][23 - to] >= 2 ? BG_ERR_BLOCKED : BG_OK;
    if (!all_home(b))
        return BG_ERR_BEAROFF;
    if (to < -1 && highest_point(b) > from)
        return BG_ERR_BEAROFF;
    return BG_OK;
}

/* Moves a chequer from -> to (BG_OFF: borne off), a legal step; returns 1 if it hit. */
static int apply_step(bg_board b, int from, int to)
{
    b[1][from]--;
    if (to < 0)
        return 0;
    b[1][to]++;
    if (b[0][23 - to] != 1)
        return 0;
    b[0][23 - to] = 0;
    b[0][BG_BAR]++;
    return 1;
}

static void undo_step(bg_board b, int from, int to, int hit)
{
    b[1][from]++;
    if (to < 0)
        return;
    b[1][to]--;
    if (hit) {
        b[0][23 - to] = 1;
        b[0][BG_BAR]--;
    }
}

int movegen_step(bg_board b, int from, int die, int *hit)
{
    if (from < 0 || from > 24 || die < 1 || die > 6)
        return BG_ERR_BAD_STEP;
    int rc = step_legal(b, from, die);
    if (rc != BG_OK)
        return rc;
    *hit = apply_step(b, from, destination(from, die));
    return BG_OK;
}

/* A board's hash is the sum of count * weight over its points (weights: the
 * splitmix64 finaliser of the point's index), so a step updates it in O(1);
 * equal hashes are confirmed by comparing the boards. */
#define MIX1(z) (((z) ^ ((z) >> 30)) * 0xbf58476d1ce4e5b9ULL)
#define MIX2(z) (((z) ^ ((z) >> 27)) * 0x94d049bb133111ebULL)
#define MIX3(z) ((z) ^ ((z) >> 31))
#define W(i) MIX3(MIX2(MIX1(((uint64_t)(i) + 1) * 0x9e3779b97f4a7c15ULL)))
#define W5(i) W(i), W(i + 1), W(i + 2), W(i + 3), W(i + 4)
static const uint64_t WEIGHT[2][25] = {{W5(0), W5(5), W5(10), W5(15), W5(20)},
                                       {W5(25), W5(30), W5(35), W5(40), W5(45)}};
#undef W5
#undef W
#undef MIX3
#undef MIX2
#undef MIX1

static uint64_t board_hash(const bg_board b)
{
    uint64_t h = 0;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 25; i++)
            h += b[s][i] * WEIGHT[s][i];
    return h;
}

/* The 32 bits of a hash that the table keeps. */
static uint32_t hash_key(uint64_t h) { return (uint32_t)(h ^ h >> 32); }

/* Empties the table (only its smallest size needs zeroing: it grows by rehashing). */
static void table_clear(gen_state *st)
{
    st->mask = TABLE_MIN - 1;
    memset(st->slots, 0, TABLE_MIN * sizeof st->slots[0]);
    st->n = 0;
}

static void table_grow(gen_state *st)
{
    unsigned int size = 2 * (st->mask + 1);
    memset(st->slots, 0, size * sizeof st->slots[0]);
    st->mask = size - 1;
    for (int k = 0; k < st->n; k++) {
        unsigned int slot = st->hashes[k] & st->mask;
        while (st->slots[slot])
            slot = (slot + 1) & st->mask;
        st->slots[slot] = (uint16_t)(k + 1);
    }
}

static void record(gen_state *st, const bg_board b, uint64_t h, const bg_move *m, int score)
{
    if (score < st->best_score)
        return;
    if (score > st->best_score) {
        st->best_score = score;
        table_clear(st);
    }
    uint32_t key = hash_key(h);
    unsigned int slot = key & st->mask;
    while (st->slots[slot]) {
        int k = st->slots[slot] - 1;
        if (st->hashes[k] == key && !memcmp(st->results[k], b, sizeof(bg_board)))
            return;
        slot = (slot + 1) & st->mask;
    }
    if (st->n >= st->max || st->n >= BG_MAX_MOVES) {
        st->overflow = 1;
        return;
    }
    st->hashes[st->n] = key;
    st->slots[slot] = (uint16_t)(st->n + 1);
    memcpy(st->results[st->n], b, sizeof(bg_board));
    st->moves[st->n] = *m;
    st->n++;
    if (2 * (unsigned int)st->n > st->mask + 1 && st->mask + 1 < TABLE_MAX)
        table_grow(st); /* keeps the load at most one half */
}

/* Depth-first over the remaining dice, sources from the highest down. For
 * doubles, sources never increase, which visits each set of steps once and
 * still reaches every position. h: the hash of b. The legality test is
 * step_legal's, read from the mover's occupied points. */
static void search(gen_state *st, bg_board b, uint64_t h, const int *dice, int n_dice,
                   int depth, int max_from, bg_move *m)
{
    int moved = 0;
    if (depth < n_dice) {
        int die = dice[depth];
        uint32_t occ = bg_occupied(b[1]);
        /* entering: only the bar may move */
        uint32_t c = occ >> BG_BAR & 1 ? 1u << BG_BAR : occ & ((2u << max_from) - 1);
        while (c) {
            int from = 31 - __builtin_clz(c), to = from - die;
            c &= ~(1u << from);
            if (to >= 0 ? b[0][23 - to] >= 2
                        : occ >> 6 || (to < -1 && 31 - __builtin_clz(occ) > from))
                continue; /* blocked; a bear-off before all are home, or past a higher chequer */
            to = destination(from, die);
            int hit = apply_step(b, from, to); /* undone below: no copy per step */
            uint64_t nh = h - WEIGHT[1][from];
            if (to >= 0)
                nh += WEIGHT[1][to];
            if (hit)
                nh += WEIGHT[0][BG_BAR] - WEIGHT[0][23 - to];
            m->src[depth] = (signed char)from;
            m->dst[depth] = (signed char)to;
            m->hit[depth] = (unsigned char)hit;
            m->n_steps = (unsigned char)(depth + 1);
            int next_max = dice[0] == dice[1] ? from : 24;
            search(st, b, nh, dice, n_dice, depth + 1, next_max, m);
            undo_step(b, from, to, hit);
            moved = 1;
        }
    }
    if (!moved) {
        m->n_steps = (unsigned char)depth;
        int score = depth * 2;
        if (depth == 1 && dice[0] != dice[1] && dice[0] == st->larger_die)
            score++;
        record(st, b, h, m, score);
    }
}

int movegen_generate(const bg_board b, int die1, int die2,
                     bg_move *moves, bg_board *results, int max)
{
    return movegen_generate_in(b, die1, die2, 0, moves, results, max);
}

int movegen_generate_in(const bg_board b, int die1, int die2, int as_given,
                        bg_move *moves, bg_board *results, int max)
{
    gen_state st; /* on the stack (~33 KB, little of it touched) */
    st.moves = moves;
    st.results = results;
    st.max = max;
    st.overflow = 0;
    st.best_score = -1;
    st.larger_die = die1 > die2 ? die1 : die2;
    table_clear(&st);

    bg_board start;
    memcpy(start, b, sizeof(bg_board));
    uint64_t h = board_hash(start);
    bg_move m;
    memset(&m, 0, sizeof m);
    if (die1 == die2) {
        int dice[4] = {die1, die1, die1, die1};
        search(&st, start, h, dice, 4, 0, 24, &m);
    } else {
        int hi_first = as_given ? 1 : die1 > die2;
        int order1[2] = {hi_first ? die1 : die2, hi_first ? die2 : die1};
        int order2[2] = {order1[1], order1[0]};
        search(&st, start, h, order1, 2, 0, 24, &m);
        search(&st, start, h, order2, 2, 0, 24, &m);
    }
    return st.overflow ? -1 : st.n;
}

int bg_legal_moves(const unsigned int *flat, int die1, int die2,
                   bg_move *moves, unsigned int *results, int max)
{
    if (die1 < 1 || die1 > 6 || die2 < 1 || die2 > 6)
        return -1;
    bg_board b;
    board_from_flat(flat, b);
    return movegen_generate(b, die1, die2, moves, (bg_board *)results, max);
}

int bg_legal_moves8(const char *board8, int die1, int die2, bg_move *moves, unsigned int *scratch,
                    char *results8, int max)
{
    if (die1 < 1 || die1 > 6 || die2 < 1 || die2 > 6)
        return -1;
    bg_board b;
    for (int i = 0; i < 50; i++)
        b[i / 25][i % 25] = (unsigned char)board8[i];
    int n = movegen_generate(b, die1, die2, moves, (bg_board *)scratch, max);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 50; i++)
            results8[50 * (size_t)k + i] = (char)scratch[50 * (size_t)k + i];
    return n;
}

long long bg_count_moves(const unsigned int *boards, int n_boards,
                         const int *dice, int n_rolls)
{
    bg_move *moves = malloc(sizeof(bg_move) * BG_MAX_MOVES);
    bg_board *results = malloc(sizeof(bg_board) * BG_MAX_MOVES);
    long long total = 0;
    if (moves && results) {
        for (int i = 0; i < n_boards; i++) {
            bg_board b;
            board_from_flat(boards + 50 * i, b);
            for (int r = 0; r < n_rolls; r++) {
                int n = movegen_generate(b, dice[2 * r], dice[2 * r + 1], moves, results, BG_MAX_MOVES);
                total += n > 0 ? n : 0;
            }
        }
    }
    free(moves);
    free(results);
    return total;
}

int bg_apply_move(const unsigned int *flat, const bg_move *move, unsigned int *result)
{
    bg_board b;
    board_from_flat(flat, b);
    for (int i = 0; i < move->n_steps && i < 4; i++) {
        int from = move->src[i], to = move->dst[i];
        if (from < 0 || from > 24 || to < -1 || to >= from)
            return BG_ERR_BAD_STEP;
        /* a bear-off step may use any die that reaches off, the smallest first */
        int die = to >= 0 ? from - to : from + 1;
        if (to < 0 && step_legal(b, from, die) != BG_OK)
            for (int d = die + 1; d <= 6; d++)
                if (step_legal(b, from, d) == BG_OK) {
                    die = d;
                    break;
                }
        if (die > 6) {
            /* a merged chain such as 24/13: move it directly, checking the landing */
            if (!b[1][from]) return BG_ERR_NO_CHECKER;
            if (from != BG_BAR && b[1][BG_BAR]) return BG_ERR_BAR_FIRST;
            b[1][from]--;
            if (to < 0)
                continue;
            if (b[0][23 - to] >= 2) return BG_ERR_BLOCKED;
            b[1][to]++;
            if (b[0][23 - to] == 1) {
                b[0][23 - to] = 0;
                b[0][BG_BAR]++;
            }
            continue;
        }
        int hit, rc = movegen_step(b, from, die, &hit);
        if (rc != BG_OK)
            return rc;
    }
    board_to_flat(b, result);
    return BG_OK;
}
