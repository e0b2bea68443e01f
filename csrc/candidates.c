/* Chequer play as gnubg's bot chooses: every legal play is a candidate, scored
 * at 0 ply and then deeper through the move filters (each round keeps the
 * best few within a threshold), the survivors at the full depth, ranked by
 * gnubg's general comparison. The scoring searches run on the tree of
 * search.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cubepos.h"
#include "inputs.h"
#include "movegen.h"
#include "position.h"
#include "search.h"

typedef struct {
    int idx;
    int rank;   /* place in gnubg 1.07's list: generation order, then each filter's sort */
    float s1, s2;
    float p[5];
    int depth;
    int alive;
    int off;    /* chequers of the mover borne off after the move */
    int back;   /* the mover's rearmost chequer after the move (-1 none) */
} cand;

static int cmp_score(const cand *a, const cand *b)
{
    if (a->s1 != b->s1)
        return a->s1 > b->s1 ? -1 : 1;
    if (a->s2 != b->s2)
        return a->s2 > b->s2 ? -1 : 1;
    return a->idx - b->idx;
}

static int cmp_score_q(const void *x, const void *y) { return cmp_score(x, y); }

/* gnubg 1.07 sorts its list of plays in place, stably (glibc's merge sort),
 * at each filter and at the end: equal scores keep their place of the
 * previous sort, not of generation. */
static int cmp_score_107(const cand *a, const cand *b)
{
    if (a->s1 != b->s1)
        return a->s1 > b->s1 ? -1 : 1;
    if (a->s2 != b->s2)
        return a->s2 > b->s2 ? -1 : 1;
    return a->rank - b->rank;
}

static int cmp_score_107_q(const void *x, const void *y) { return cmp_score_107(x, y); }

/* gnubg's general comparison: deeper (less noisy, unpruned) evaluations first,
 * then bearing off the last chequer, score, secondary score, more borne off,
 * lower rearmost chequer. */
static int cmp_general_new(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth > b->depth ? -1 : 1;
    int wa = a->off == 15, wb = b->off == 15;
    if (wa != wb)
        return wa ? -1 : 1;
    if (a->s1 != b->s1)
        return a->s1 > b->s1 ? -1 : 1;
    if (a->s2 != b->s2)
        return a->s2 > b->s2 ? -1 : 1;
    if (a->off != b->off)
        return a->off > b->off ? -1 : 1;
    if (a->back != b->back)
        return a->back < b->back ? -1 : 1;
    return a->idx - b->idx;
}

/* gnubg 1.07's comparison: depth, then score and secondary score; equal
 * scores keep their place in the list (no bear-off preferences). */
static int cmp_general_107(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth > b->depth ? -1 : 1;
    return cmp_score_107(a, b);
}

/* Puts the first k candidates of the cmp_general order in place (a strict
 * total order, so the prefix is unique): a few by selection, else all by
 * sorting (insertion for short lists, cheaper there than the library's
 * merge sort). */
static void rank_first(cand *cs, int n, int k, int legacy)
{
    int (*cmp_general)(const void *, const void *) = legacy ? cmp_general_107 : cmp_general_new;
    if (k < 8 && k < n) {
        for (int i = 0; i < k; i++) {
            int best = i;
            for (int j = i + 1; j < n; j++)
                if (cmp_general(&cs[j], &cs[best]) < 0)
                    best = j;
            cand t = cs[i];
            cs[i] = cs[best];
            cs[best] = t;
        }
    } else if (n > 32) {
        qsort(cs, (size_t)n, sizeof(cand), cmp_general);
    } else {
        for (int i = 1; i < n; i++) {
            cand t = cs[i];
            int j = i;
            for (; j > 0 && cmp_general(&t, &cs[j - 1]) < 0; j--)
                cs[j] = cs[j - 1];
            cs[j] = t;
        }
    }
}

/* Scores the listed candidates at 0 ply: the leaves of score_moves's k = 0
 * roots, evaluated in batches (the same values in the same order). */
static void score_moves0(search_context *cx, const bg_board *res, cand **list, int n,
                         const bg_cubeinfo *ci)
{
    search_worker *w = &cx->w;
    bg_cubeinfo ci_opp = *ci, kids[2];
    ci_opp.move = !ci->move;
    if (w->cubeful)
        bg_cubepos_split(&ci_opp, 1, 0, 0, kids);
    enum { CHUNK = 16 };
    for (int t0 = 0; t0 < n; t0 += CHUNK) {
        int k = n - t0 < CHUNK ? n - t0 : CHUNK;
        bg_board nb[CHUNK];
        float p[CHUNK][5];
        int cls[CHUNK];
        for (int j = 0; j < k; j++) { /* swapped copies: the opponent on roll */
            const unsigned int(*r)[25] = res[list[t0 + j]->idx];
            memcpy(nb[j][0], r[1], sizeof nb[j][0]);
            memcpy(nb[j][1], r[0], sizeof nb[j][1]);
        }
        search_leaf_probs_many(w, (const bg_board *)nb, NULL, k, -1, p, cls);
        for (int j = 0; j < k; j++) {
            cand *c = list[t0 + j];
            search_score_leaf(w, (const unsigned int(*)[25])nb[j], cls[j], p[j], ci, &ci_opp, kids,
                              w->low_eff, &c->s1, &c->s2);
            memcpy(c->p, p[j], sizeof c->p);
            search_invert(c->p);
            c->depth = 0;
        }
    }
}

/* Scores the listed candidates at k plies (from the mover's side). */
static int score_moves(search_context *cx, search_scratch *sc, const bg_board *res, cand **list,
                       int n, int k, const bg_cubeinfo *ci)
{
    if (k == 0) {
        score_moves0(cx, res, list, n, ci);
        return 0;
    }
    search_root *roots = malloc(sizeof(search_root) * (size_t)(n > 0 ? n : 1));
    if (!roots)
        return BG_SEARCH_ERR_MEMORY;
    bg_cubeinfo ci_opp = *ci;
    ci_opp.move = !ci->move;
    for (int i = 0; i < n; i++) {
        search_root *rn = &roots[i];
        memcpy(rn->b, res[list[i]->idx], sizeof(bg_board));
        board_swap(rn->b);
        rn->ci_move = ci_opp;
        rn->cps[0] = ci_opp;
        rn->n = cx->w.cubeful ? 1 : 0;
        rn->top = 0;
        rn->plies = k;
    }
    int rc = search_run_job(&cx->w, sc, roots, n, k > 0 ? cx->threads : 1);
    if (rc) {
        free(roots);
        return rc; /* out of memory or cancelled */
    }
    for (int i = 0; i < n; i++) {
        search_root *rn = &roots[i];
        cand *c = list[i];
        c->s2 = -search_utility(rn->out, &ci_opp);
        c->s1 = cx->w.cubeful ? search_score_from_cubeful(rn->cf[0], ci) : c->s2;
        memcpy(c->p, rn->out, sizeof c->p);
        search_invert(c->p);
        c->depth = k;
    }
    free(roots);
    return 0;
}

int bg_best_move(const bg_engine *e, bg_cache *cache, const unsigned int *board, int die1,
                 int die2, const bg_search_settings *s, const bg_cubeinfo *ci, bg_move *moves,
                 unsigned int *results, float *equity, float *equity2, float *probs, int *plies,
                 int max)
{
    bg_board b;
    if (!board || board_load(board, b))
        return BG_SEARCH_ERR_BOARD;
    if (die1 < 1 || die1 > 6 || die2 < 1 || die2 > 6)
        return BG_SEARCH_ERR_DICE;
    search_context cx;
    int rc = search_context_init(&cx, e, cache, s, s ? s->cubeful : 1);
    if (rc)
        return rc;
    if (search_cancelled(&cx.w))
        return BG_SEARCH_ERR_CANCELLED;
    search_scratch *sc = search_thread_scratch();
    if (!sc)
        return BG_SEARCH_ERR_MEMORY;
    int legacy = s && s->efficiency_set == 0;
    int n = movegen_generate_in((const unsigned int(*)[25])b, die1, die2, legacy, sc->moves, sc->results,
                             BG_MAX_MOVES);
    if (n <= 0)
        return 0;
    int nplies = s->plies;
    /* a deeper search reuses the scratch: it needs its own copies */
    bg_move *mv = sc->moves, *mv_own = NULL;
    bg_board *res = sc->results, *res_own = NULL;
    cand *cs = malloc(sizeof(cand) * (size_t)n);
    cand **list = malloc(sizeof(cand *) * (size_t)n);
    cand *tmp = malloc(sizeof(cand) * (size_t)n);
    if (nplies > 0) {
        mv = mv_own = malloc(sizeof(bg_move) * (size_t)n);
        res = res_own = malloc(sizeof(bg_board) * (size_t)n);
    }
    if (!mv || !res || !cs || !list || !tmp) {
        rc = BG_SEARCH_ERR_MEMORY;
        goto done;
    }
    if (nplies > 0) {
        memcpy(mv, sc->moves, sizeof(bg_move) * (size_t)n);
        memcpy(res, sc->results, sizeof(bg_board) * (size_t)n);
    }
    for (int i = 0; i < n; i++) {
        cand *c = &cs[i];
        memset(c, 0, sizeof *c);
        c->idx = i;
        c->rank = i;
        c->alive = 1;
        int tot = 0;
        for (int j = 0; j < 25; j++)
            tot += (int)res[i][1][j];
        uint32_t occ = bg_occupied(res[i][1]);
        c->off = 15 - tot;
        c->back = occ ? 31 - __builtin_clz(occ) : -1;
    }
    int final = 1;
    if (nplies > 0) {
        int row = nplies > 4 ? 3 : nplies - 1;
        for (int k = 0; k < nplies; k++) {
            bg_move_filter f = k < 4 ? s->filter[row][k] : (bg_move_filter){-1, 0, 0.0f};
            if (f.accept < 0)
                continue;
            int m = 0;
            for (int i = 0; i < n; i++)
                if (cs[i].alive)
                    list[m++] = &cs[i];
            if ((rc = score_moves(&cx, sc, (const bg_board *)res, list, m, k, ci)))
                goto done;
            for (int i = 0; i < m; i++)
                tmp[i] = *list[i];
            qsort(tmp, (size_t)m, sizeof(cand), legacy ? cmp_score_107_q : cmp_score_q);
            if (legacy)
                for (int i = 0; i < m; i++)
                    tmp[i].rank = i;
            int keep = f.accept < m ? f.accept : m;
            int limit = keep + f.extra < m ? keep + f.extra : m;
            for (; keep < limit; keep++)
                if (tmp[keep].s1 < tmp[0].s1 - f.threshold)
                    break;
            for (int i = 0; i < m; i++) {
                tmp[i].alive = i < keep;
                cs[tmp[i].idx] = tmp[i];
            }
            if (keep == 1 && f.accept != 1) {
                final = 0;
                break;
            }
        }
    }
    if (final) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (cs[i].alive)
                list[m++] = &cs[i];
        if ((rc = score_moves(&cx, sc, (const bg_board *)res, list, m, nplies, ci)))
            goto done;
    }
    rc = n < max ? n : max;
    rank_first(cs, n, rc, legacy);
    for (int i = 0; i < rc; i++) {
        const cand *c = &cs[i];
        if (moves)
            moves[i] = mv[c->idx];
        if (results)
            memcpy(results + 50 * (size_t)i, res[c->idx], sizeof(bg_board));
        if (equity)
            equity[i] = c->s1;
        if (equity2)
            equity2[i] = c->s2;
        if (probs)
            memcpy(probs + 5 * (size_t)i, c->p, 5 * sizeof(float));
        if (plies)
            plies[i] = c->depth;
    }
done:
    free(mv_own);
    free(res_own);
    free(cs);
    free(list);
    free(tmp);
    return rc;
}
