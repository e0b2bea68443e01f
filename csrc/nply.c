/* n-ply evaluation of one position and the cube decision built on it
 * (as gnubg's): the search's entry points for a single root. */
#include <string.h>

#include "api.h"
#include "cube.h"
#include "met.h"
#include "position.h"
#include "search.h"

int bg_evaluate_nply(const bg_engine *e, bg_cache *cache, const unsigned int *board,
                     const bg_search_settings *s, const bg_cubeinfo *ci, float *probs,
                     float *equity)
{
    bg_board b;
    if (!board || !ci || board_load(board, b))
        return BG_SEARCH_ERR_BOARD;
    search_context cx;
    int rc = search_context_init(&cx, e, cache, s, s ? s->cubeful : 1);
    if (rc)
        return rc;
    float out[5], cf[1] = {0.0f};
    rc = search_eval_root(&cx, (const unsigned int(*)[25])b, ci, ci, cx.w.cubeful ? 1 : 0, 0, s->plies,
                   out, cf);
    if (rc)
        return rc;
    if (probs)
        memcpy(probs, out, sizeof out);
    if (equity) {
        equity[0] = search_utility(out, ci);
        equity[1] = cx.w.cubeful ? bg_cube_mwc_to_emg(cf[0], ci) : equity[0];
    }
    return 0;
}

int bg_cube_decide(const bg_engine *e, bg_cache *cache, const unsigned int *board,
                   const bg_search_settings *s, const bg_cubeinfo *ci, float *out4, float *probs,
                   float *precheck)
{
    bg_board b;
    if (!board || !ci || board_load(board, b))
        return BG_SEARCH_ERR_BOARD;
    search_context cx;
    int rc = search_context_init(&cx, e, cache, s, 1);
    if (rc)
        return rc;
    bg_cubeinfo cps[2];
    cps[0] = *ci;
    bg_cubeinfo_doubled(ci, &cps[1]);
    float out[5], cf[2];
    rc = search_eval_root(&cx, (const unsigned int(*)[25])b, ci, cps, 2, 1, s->plies, out, cf);
    if (rc)
        return rc;
    float v[3];
    v[0] = cf[0];
    if (!ci->match_to) {
        v[1] = 2.0f * cf[1];
        v[2] = 1.0f;
    } else {
        v[1] = cf[1];
        v[2] = bg_met_mwc(ci->met, ci->score[0], ci->score[1], ci->match_to, ci->move, ci->cube,
                          ci->move, ci->crawford);
        for (int i = 0; i < 3; i++)
            v[i] = bg_cube_mwc_to_emg(v[i], ci);
    }
    float optimal;
    int code = bg_cube_classify(ci, v, out[WG], &optimal);
    if (v[1] == v[0] && v[2] > v[1] && out[W] > 0.0f &&
        (code == BG_CUBE_NODOUBLE_TAKE || code == BG_CUBE_NO_REDOUBLE_TAKE)) {
        /* bg_cube_classify reads an exact ND = DT tie as "no double", which
         * is what gnubg says when the side on roll cannot win; otherwise
         * (a dead doubled cube, found by deeper searches) gnubg calls it an
         * optional double. */
        int owned = ci->owner != -1;
        optimal = v[1];
        if (!ci->match_to && ci->beavers && v[1] >= -2.0f && v[1] <= 0.0f)
            code = 2.0f * v[1] < v[0] ? (owned ? BG_CUBE_NO_REDOUBLE_BEAVER : BG_CUBE_NODOUBLE_BEAVER)
                                      : BG_CUBE_OPTIONAL_DOUBLE_BEAVER;
        else
            code = owned ? BG_CUBE_OPTIONAL_REDOUBLE_TAKE : BG_CUBE_OPTIONAL_DOUBLE_TAKE;
    }
    if (out4) {
        out4[0] = optimal;
        out4[1] = v[0];
        out4[2] = v[1];
        out4[3] = v[2];
    }
    if (probs)
        memcpy(probs, out, sizeof out);
    if (precheck && s->plies == 0 && !(s->noise > 0.0f)) {
        /* the pre-check at 0 ply without noise is the root's own 0-ply evaluation */
        memcpy(precheck, out, sizeof out);
    } else if (precheck) {
        /* gnubg's bot's market-window pre-check: cubeless, one ply less */
        search_context pc;
        bg_search_settings s2 = *s;
        s2.plies = s->plies > 0 ? s->plies - 1 : 0;
        s2.cubeful = 0;
        if ((rc = search_context_init(&pc, e, cache, &s2, 0)))
            return rc;
        float dummy[1];
        if ((rc = search_eval_root(&pc, (const unsigned int(*)[25])b, ci, NULL, 0, 1, s2.plies, precheck,
                            dummy)))
            return rc;
    }
    return code;
}
