/* Cubeful equities at a leaf, cube efficiency and the cube-decision
 * classification, as gnubg's. Arithmetic is in
 * single precision as in gnubg so that ties and thresholds fall the same way. */
#include <math.h>
#include <stddef.h>

#include "cube.h"

enum { W = 0, WG = 1, WBG = 2, LG = 3, LBG = 4 };

/* ---- cube info ----------------------------------------------------------- */

void bg_cubeinfo_set(bg_cubeinfo *ci, const bg_met *met, int cube, int owner, int move,
                     int match_to, int score0, int score1, int crawford, int jacoby, int beavers)
{
    ci->met = met;
    ci->cube = cube;
    ci->owner = owner;
    ci->move = move;
    ci->match_to = match_to;
    ci->score[0] = score0;
    ci->score[1] = score1;
    if (match_to) {
        /* the Crawford game needs a player 1-away; ignore the flag otherwise */
        ci->crawford = crawford && (match_to - score0 == 1 || match_to - score1 == 1);
        ci->jacoby = 0;
        ci->beavers = 0;
        bg_met_gammon_prices(met, score0, score1, match_to, cube, crawford, ci->gammon_price);
    } else {
        ci->crawford = 0;
        ci->jacoby = jacoby;
        ci->beavers = beavers;
        float g = (jacoby && owner == -1) ? 0.0f : 1.0f;
        for (int i = 0; i < 4; i++)
            ci->gammon_price[i] = g;
    }
}

void bg_cubeinfo_doubled(const bg_cubeinfo *ci, bg_cubeinfo *out)
{
    bg_cubeinfo_set(out, ci->met, 2 * ci->cube, !ci->move, ci->move, ci->match_to, ci->score[0],
                    ci->score[1], ci->crawford, ci->jacoby, ci->beavers);
}

/* ---- utility, MWC <-> EMG ------------------------------------------------ */

float bg_cube_utility(const float *p, const bg_cubeinfo *ci)
{
    const float *gp = ci->gammon_price;
    if (!ci->match_to)
        return p[W] * 2.0f - 1.0f + (p[WG] - p[LG]) * gp[0] + (p[WBG] - p[LBG]) * gp[2];
    int m = ci->move;
    return p[W] * 2.0f - 1.0f + p[WG] * gp[m] - p[LG] * gp[!m] + p[WBG] * gp[2 + m] -
           p[LBG] * gp[2 + !m];
}

static float me(const bg_cubeinfo *ci, int player, int points, int winner)
{
    return bg_met_mwc(ci->met, ci->score[0], ci->score[1], ci->match_to, player, points, winner,
                      ci->crawford);
}

/* The MWCs of one match state, me(ci, player, points, winner) at v[player]
 * [winner][points], points up to the longer away (`top`: from there on the
 * winner has won the match and nothing changes). A search asks a few states
 * for every leaf: each thread keeps its last four. */
typedef struct {
    const bg_met *met;
    int score[2], match_to, crawford, top;
    float v[2][2][BG_MET_MAX + 1];
} met_row;

static _Thread_local met_row met_rows[4];
static _Thread_local unsigned int met_rows_next;

/* ci's row, or NULL when a side is further away than the table reaches. */
static const met_row *met_row_of(const bg_cubeinfo *ci)
{
    for (int i = 0; i < 4; i++) {
        const met_row *r = &met_rows[i];
        if (r->met == ci->met && r->match_to == ci->match_to && r->score[0] == ci->score[0] &&
            r->score[1] == ci->score[1] && r->crawford == ci->crawford && r->met)
            return r;
    }
    int a0 = ci->match_to - ci->score[0], a1 = ci->match_to - ci->score[1];
    int top = a0 > a1 ? a0 : a1;
    if (!ci->met || top < 1 || top > BG_MET_MAX)
        return NULL;
    met_row *r = &met_rows[met_rows_next++ % 4];
    for (int k = 0; k < 2; k++)
        for (int w = 0; w < 2; w++)
            for (int c = 0; c <= top; c++)
                r->v[k][w][c] = me(ci, k, c, w);
    r->met = ci->met;
    r->score[0] = ci->score[0];
    r->score[1] = ci->score[1];
    r->match_to = ci->match_to;
    r->crawford = ci->crawford;
    r->top = top;
    return r;
}

/* me() through ci's row t (NULL: computed). */
static inline float me_in(const met_row *t, const bg_cubeinfo *ci, int player, int points,
                          int winner)
{
    if (!t)
        return me(ci, player, points, winner);
    return t->v[player][winner][points < t->top ? points : t->top];
}

float bg_cube_emg_to_mwc(float emg, const bg_cubeinfo *ci)
{
    if (!ci->match_to)
        return emg;
    float win = me(ci, ci->move, ci->cube, ci->move);
    float lose = me(ci, ci->move, ci->cube, !ci->move);
    return 0.5f * (emg * (win - lose) + (win + lose));
}

float bg_cube_mwc_to_emg(float mwc, const bg_cubeinfo *ci)
{
    if (!ci->match_to)
        return mwc;
    float win = me(ci, ci->move, ci->cube, ci->move);
    float lose = me(ci, ci->move, ci->cube, !ci->move);
    if (win == lose)
        return 0.0f; /* nothing at stake (not reached from a valid match state) */
    return (2.0f * mwc - (win + lose)) / (win - lose);
}

/* ---- efficiency ------------------------------------------------------------ */

int bg_low_ply_efficiency(int efficiency_set, int plies)
{
    return efficiency_set == 1 && plies <= 1;
}

float bg_cube_efficiency(const unsigned int *board, int pos_class, int low_ply)
{
    /* gnubg 1.07 uses one parameter set; gnubg 1.1 keeps it for 2+ ply
     * evaluations and uses a second set (low_ply) for 0- and 1-ply ones. */
    switch (pos_class) {
    case BG_CLASS_OVER:
        return 0.0f;
    case BG_CLASS_CONTACT:
    case BG_CLASS_CRASHED:
        return low_ply ? 0.76f : 0.68f;
    case BG_CLASS_RACE: {
        unsigned int pips = 0;
        for (int i = 0; i < 25; i++)
            pips += board[25 + i] * (unsigned int)(i + 1);
        float x = low_ply ? (float)pips * 0.0025f + 0.6f : (float)pips * 0.00125f + 0.55f;
        float hi = low_ply ? 0.8f : 0.7f;
        return x > hi ? hi : x < 0.6f ? 0.6f : x;
    }
    default: /* bearoff databases, hypergammon */
        return 0.6f;
    }
}

/* ---- money: Janowski -------------------------------------------------------- */

static float money_live(float rw, float rl, float p, const bg_cubeinfo *ci)
{
    if (ci->owner == -1) {
        float tp = (rl - 0.5f) / (rw + rl + 0.5f);
        float cp = (rl + 1.0f) / (rw + rl + 0.5f);
        if (p < tp)
            return ci->jacoby ? -1.0f : -rl + (-1.0f + rl) * p / tp;
        if (p < cp)
            return -1.0f + 2.0f * (p - tp) / (cp - tp);
        return ci->jacoby ? 1.0f : 1.0f + (rw - 1.0f) * (p - cp) / (1.0f - cp);
    }
    if (ci->owner == ci->move) {
        float cp = (rl + 1.0f) / (rw + rl + 0.5f);
        if (p < cp)
            return -rl + (1.0f + rl) * p / cp;
        return 1.0f + (rw - 1.0f) * (p - cp) / (1.0f - cp);
    }
    float tp = (rl - 0.5f) / (rw + rl + 0.5f);
    if (p < tp)
        return -rl + (-1.0f + rl) * p / tp;
    return -1.0f + (rw + 1.0f) * (p - tp) / (1.0f - tp);
}

/* Whether p is too close to a sure result for the live cube (dead only). */
static inline int money_dead_only(const float p[5]) { return p[W] <= 1.0e-7f || p[W] >= 0.9999999f; }

/* The live cube's gammon ratios of p: rw[0] for wins, rw[1] for losses. */
static inline void money_ratios(const float p[5], float r[2])
{
    r[0] = 1.0f + (p[WG] + p[WBG]) / p[W];
    r[1] = 1.0f + (p[LG] + p[LBG]) / (1.0f - p[W]);
}

static inline float money_leaf(const float p[5], const float r[2], const bg_cubeinfo *ci, float x)
{
    float dead = bg_cube_utility(p, ci);
    float live = money_live(r[0], r[1], p[W], ci);
    return dead * (1.0f - x) + live * x;
}

float bg_cube_money_leaf(const float p[5], const bg_cubeinfo *ci, float x)
{
    if (money_dead_only(p))
        return bg_cube_utility(p, ci);
    float r[2];
    money_ratios(p, r);
    return money_leaf(p, r, ci, x);
}

void bg_cube_money_leaves(const float p[5], const bg_cubeinfo *kids, int nk, float x, float *v)
{
    int dead_only = money_dead_only(p);
    float r[2] = {0.0f, 0.0f};
    if (!dead_only)
        money_ratios(p, r);
    for (int j = 0; j < nk; j++)
        v[j] = kids[j].cube <= 0 ? 0.0f
               : dead_only       ? bg_cube_utility(p, &kids[j])
                                 : money_leaf(p, r, &kids[j], x);
}

/* ---- match: cash points and Janowski in MWC ------------------------------------ */

/* Gammon and backgammon ratios of each player's wins: g[k], b[k]. */
static void ratios(const float p[5], int move, float g[2], float b[2])
{
    float gw = 0.0f, bw = 0.0f, gl = 0.0f, bl = 0.0f;
    if (p[W] > 0.0f) {
        gw = (p[WG] - p[WBG]) / p[W];
        bw = p[WBG] / p[W];
    }
    if (p[W] < 1.0f) {
        gl = (p[LG] - p[LBG]) / (1.0f - p[W]);
        bl = p[LBG] / (1.0f - p[W]);
    }
    g[move] = gw;
    b[move] = bw;
    g[!move] = gl;
    b[!move] = bl;
}

/* MWC of player k when `winner` wins c points, weighted by the winner's
 * gammon/backgammon ratios (c, 2c, 3c). */
static float weighted(const met_row *t, const bg_cubeinfo *ci, int k, int winner, int c,
                      const float g[2], const float b[2])
{
    return (1.0f - g[winner] - b[winner]) * me_in(t, ci, k, c, winner) +
           g[winner] * me_in(t, ci, k, 2 * c, winner) + b[winner] * me_in(t, ci, k, 3 * c, winner);
}

/* Live-cube cash points of both players at the current cube. */
static void cash_points(const float p[5], const met_row *t, const bg_cubeinfo *ci, float cp[2])
{
    float g[2], b[2];
    ratios(p, ci->move, g, b);
    int away[2] = {ci->match_to - ci->score[0], ci->match_to - ci->score[1]};
    int top = ci->cube, nmax = 0;
    while (away[0] - 2 * top > 0 && away[1] - 2 * top > 0) {
        top *= 2;
        nmax++;
    }
    float live[2][24];
    for (int c = top, n = nmax; c >= ci->cube && n >= 0; c >>= 1, n--) {
        float dead[2];
        for (int k = 0; k < 2; k++) {
            int c2 = (away[k] <= 2 * c && away[!k] > 2 * c) ? 2 * c : c;
            /* k doubles to 2c' : take and lose / take and win, both gammon weighted */
            float dtl = weighted(t, ci, k, !k, 2 * c2, g, b);
            float dp = me_in(t, ci, k, c, k);
            float dtw = weighted(t, ci, k, k, 2 * c2, g, b);
            dead[k] = (dtl - dp) / (dtl - dtw);
        }
        if (away[0] <= 2 * c || away[1] <= 2 * c) {
            live[0][n] = dead[0];
            live[1][n] = dead[1];
        } else {
            for (int k = 0; k < 2; k++) {
                float rdp = me_in(t, ci, k, 2 * c, !k);
                float dp = me_in(t, ci, k, c, k);
                float dtw = weighted(t, ci, k, k, 2 * c, g, b);
                live[k][n] = 1.0f - live[!k][n + 1] * (dp - dtw) / (rdp - dtw);
            }
        }
    }
    cp[0] = live[0][0];
    cp[1] = live[1][0];
}

static int cube_live_match(const bg_cubeinfo *ci)
{
    if (ci->score[0] + ci->cube >= ci->match_to && ci->score[1] + ci->cube >= ci->match_to)
        return 0;
    if (ci->score[0] == ci->match_to - 2 && ci->score[1] == ci->match_to - 2)
        return 0;
    return !ci->crawford;
}

float bg_cube_match_leaf(const float p[5], const bg_cubeinfo *ci, float x)
{
    float dead = bg_cube_emg_to_mwc(bg_cube_utility(p, ci), ci);
    if (!cube_live_match(ci))
        return dead;
    int m = ci->move;
    const met_row *t = met_row_of(ci);
    float g[2], b[2], cp[2];
    ratios(p, m, g, b);
    cash_points(p, t, ci, cp);
    float cash = me_in(t, ci, m, ci->cube, m);
    float oppcash = me_in(t, ci, m, ci->cube, !m);
    float win = weighted(t, ci, m, m, ci->cube, g, b);
    float lose = weighted(t, ci, m, !m, ci->cube, g, b);
    float w = p[W], live;
    if (ci->owner == -1) {
        float otg = 1.0f - cp[!m], tg = cp[m];
        if (w <= otg)
            live = otg > 0.0f ? lose + (oppcash - lose) * w / otg : lose;
        else if (w < tg)
            live = oppcash + (cash - oppcash) * (w - otg) / (tg - otg);
        else
            live = tg < 1.0f ? cash + (win - cash) * (w - tg) / (1.0f - tg) : win;
    } else if (ci->owner == m) {
        float tg = cp[m];
        if (w <= tg)
            live = tg > 0.0f ? lose + (cash - lose) * w / tg : lose;
        else
            live = tg < 1.0f ? cash + (win - cash) * (w - tg) / (1.0f - tg) : win;
    } else {
        float otg = 1.0f - cp[!m];
        if (w <= otg)
            live = otg > 0.0f ? lose + (oppcash - lose) * w / otg : lose;
        else
            live = otg < 1.0f ? oppcash + (win - oppcash) * (w - otg) / (1.0f - otg) : win;
    }
    return dead * (1.0f - x) + live * x;
}

/* ---- leaf ------------------------------------------------------------------ */

static const float *exact_for(const float *exact_money, const bg_cubeinfo *ci)
{
    /* exact_money: centred, owned by the side on roll, owned by the opponent */
    if (ci->owner == -1)
        return &exact_money[0];
    return ci->owner == ci->move ? &exact_money[1] : &exact_money[2];
}

float bg_cube_leaf(const float *p, float x, int pos_class, const float *exact_money,
                   const bg_cubeinfo *ci)
{
    int perfect = exact_money && pos_class >= BG_CLASS_BEAROFF2 && pos_class <= BG_CLASS_BEAROFF_TS;
    if (!ci->match_to)
        return perfect ? *exact_for(exact_money, ci) : bg_cube_money_leaf(p, ci, x);
    if (perfect) {
        /* efficiency from the exact money values (two-sided bearoff) */
        bg_cubeinfo mci;
        bg_cubeinfo_set(&mci, ci->met, 1, ci->owner, ci->move, 0, 0, 0, 0, 0, 0);
        float c = *exact_for(exact_money, &mci);
        float l = bg_cube_utility(p, &mci);
        float j = bg_cube_money_leaf(p, &mci, 1.0f);
        if (fabsf(l - j) > 1.0e-4f) {
            x = (c - l) / (j - l);
            x = x < 0.0f ? 0.0f : x > 0.6f ? 0.6f : x;
        } else {
            x = 0.6f;
        }
    }
    return bg_cube_match_leaf(p, ci, x);
}

/* ---- decisions -------------------------------------------------------------- */

int bg_cube_available(const bg_cubeinfo *ci)
{
    if (ci->owner != -1 && ci->owner != ci->move)
        return 0;
    if (!ci->match_to)
        return 1;
    if (ci->crawford)
        return 0;
    if (ci->score[ci->move] + ci->cube >= ci->match_to)
        return 0;
    /* post-Crawford: the 1-away leader never has access (covered above too) */
    if (ci->match_to - ci->score[ci->move] == 1)
        return 0;
    return 1;
}

#define OPTIONAL_EPS 1.0e-5f

int bg_cube_classify(const bg_cubeinfo *ci, const float *ndtp, float win_gammon, float *optimal)
{
    float nd = ndtp[0], dt = ndtp[1], dp = ndtp[2];
    int owned = ci->owner != -1;
    if (!bg_cube_available(ci)) {
        *optimal = nd;
        if (ci->match_to && (ci->owner == -1 || ci->owner == ci->move))
            return owned ? BG_CUBE_NO_REDOUBLE_DEADCUBE : BG_CUBE_NODOUBLE_DEADCUBE;
        return BG_CUBE_NOT_AVAILABLE;
    }
    int beaver_zone = !ci->match_to && ci->beavers && dt >= -2.0f && dt <= 0.0f;
    int gammon = win_gammon > 0.0f;
    if (dt >= nd && dp >= nd) {
        if (dp > dt && dt == nd) {
            /* an exact tie (a lost position whose doubled cube changes nothing):
             * gnubg's 0-ply hint says no double (verified against gnubg 1.1) */
            *optimal = nd;
            return owned ? BG_CUBE_NO_REDOUBLE_TAKE : BG_CUBE_NODOUBLE_TAKE;
        }
        if (dp > dt) {
            *optimal = dt;
            int optional = fabsf(dt - nd) <= OPTIONAL_EPS;
            if (beaver_zone) {
                if (2.0f * dt < nd)
                    return owned ? BG_CUBE_NO_REDOUBLE_BEAVER : BG_CUBE_NODOUBLE_BEAVER;
                return optional ? BG_CUBE_OPTIONAL_DOUBLE_BEAVER : BG_CUBE_DOUBLE_BEAVER;
            }
            if (optional)
                return owned ? BG_CUBE_OPTIONAL_REDOUBLE_TAKE : BG_CUBE_OPTIONAL_DOUBLE_TAKE;
            return owned ? BG_CUBE_REDOUBLE_TAKE : BG_CUBE_DOUBLE_TAKE;
        }
        *optimal = dp;
        if (fabsf(nd - dp) <= OPTIONAL_EPS && gammon &&
            (ci->match_to || owned || !ci->jacoby))
            return owned ? BG_CUBE_OPTIONAL_REDOUBLE_PASS : BG_CUBE_OPTIONAL_DOUBLE_PASS;
        return owned ? BG_CUBE_REDOUBLE_PASS : BG_CUBE_DOUBLE_PASS;
    }
    /* no double: ND > DT or ND > DP */
    if (nd > dt) {
        if (dt > dp) { /* too good, pass */
            *optimal = nd;
            if (!gammon) {
                *optimal = dp;
                return owned ? BG_CUBE_REDOUBLE_PASS : BG_CUBE_DOUBLE_PASS;
            }
            return owned ? BG_CUBE_TOOGOODRE_PASS : BG_CUBE_TOOGOOD_PASS;
        }
        if (nd > dp) { /* DT <= DP < ND: too good, take */
            *optimal = nd;
            if (!gammon)
                return owned ? BG_CUBE_NO_REDOUBLE_TAKE : BG_CUBE_NODOUBLE_TAKE;
            return owned ? BG_CUBE_TOOGOODRE_TAKE : BG_CUBE_TOOGOOD_TAKE;
        }
        *optimal = nd; /* no double, take */
        if (beaver_zone)
            return owned ? BG_CUBE_NO_REDOUBLE_BEAVER : BG_CUBE_NODOUBLE_BEAVER;
        return owned ? BG_CUBE_NO_REDOUBLE_TAKE : BG_CUBE_NODOUBLE_TAKE;
    }
    /* DT >= ND > DP: too good, pass */
    *optimal = nd;
    if (!gammon) {
        *optimal = dp;
        return owned ? BG_CUBE_REDOUBLE_PASS : BG_CUBE_DOUBLE_PASS;
    }
    return owned ? BG_CUBE_TOOGOODRE_PASS : BG_CUBE_TOOGOOD_PASS;
}

int bg_cube_decision(const float *p, float x, int pos_class, const float *exact_money,
                     const bg_cubeinfo *ci, float *out)
{
    bg_cubeinfo dci;
    bg_cubeinfo_doubled(ci, &dci);
    float v[3];
    v[0] = bg_cube_leaf(p, x, pos_class, exact_money, ci);
    v[1] = bg_cube_leaf(p, x, pos_class, exact_money, &dci);
    if (!ci->match_to) {
        v[1] *= 2.0f;
        v[2] = 1.0f;
    } else {
        v[2] = me(ci, ci->move, ci->cube, ci->move);
        for (int i = 0; i < 3; i++)
            v[i] = bg_cube_mwc_to_emg(v[i], ci);
    }
    int d = bg_cube_classify(ci, v, p[WG], &out[0]);
    out[1] = v[0];
    out[2] = v[1];
    out[3] = v[2];
    return d;
}

float bg_cube_double_point_dead(const float *p, const bg_cubeinfo *ci)
{
    if (!ci->match_to) {
        float rw = p[W] > 0.0f ? 1.0f + (p[WG] + p[WBG]) / p[W] : 1.0f;
        float rl = p[W] < 1.0f ? 1.0f + (p[LG] + p[LBG]) / (1.0f - p[W]) : 1.0f;
        if (ci->jacoby && ci->owner == -1) {
            if (ci->beavers)
                return (rl - 0.25f) / (rw + rl - 0.5f);
            return (rl - 0.5f) / (rw + rl - 1.0f);
        }
        return rl / (rl + rw);
    }
    float g[2], b[2];
    int m = ci->move;
    ratios(p, m, g, b);
    float ndw = weighted(NULL, ci, m, m, ci->cube, g, b);
    float ndl = weighted(NULL, ci, m, !m, ci->cube, g, b);
    float dtw = weighted(NULL, ci, m, m, 2 * ci->cube, g, b);
    float dtl = weighted(NULL, ci, m, !m, 2 * ci->cube, g, b);
    float risk = ndl - dtl, gain = dtw - ndw;
    /* nothing at stake: no dead-cube threshold (gnubg's NaN compares false) */
    if (!(risk + gain > 0.0f))
        return 0.0f;
    return risk / (risk + gain);
}

/* ---- exact two-sided bearoff values ---------------------------------------- */

#include "eval.h"

int bg_cube_exact_money(const bg_engine *engine, const unsigned int *board, float *out)
{
    const bg_bearoff_ts *db = &engine->ts;
    if (!db->data || db->n_values < 4)
        return -1;
    for (int s = 0; s < 2; s++) {
        unsigned int total = 0;
        for (int i = 0; i < 25; i++) {
            if (i >= db->n_points && board[25 * s + i])
                return -1;
            total += board[25 * s + i];
        }
        if (total > (unsigned int)db->n_chequers)
            return -1;
    }
    unsigned int us = bg_bearoff_index(board + 25, db->n_points, db->n_chequers);
    unsigned int them = bg_bearoff_index(board, db->n_points, db->n_chequers);
    if (us >= db->n_pos || them >= db->n_pos)
        return -1;
    /* per position: cubeless, owned, centred, opponent owns (uint16, eq+1 scaled) */
    const unsigned char *q =
        db->data + 40 + 2 * (size_t)db->n_values * ((size_t)us * db->n_pos + them);
    float v[4];
    for (int k = 0; k < 4; k++)
        v[k] = (float)((unsigned int)q[2 * k] | (unsigned int)q[2 * k + 1] << 8) / 32767.5f - 1.0f;
    out[0] = v[2];
    out[1] = v[1];
    out[2] = v[3];
    return 0;
}
