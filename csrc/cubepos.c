/* The cube side of the search tree (cubepos.h). */
#include "cubepos.h"

#include "cube.h"
#include "eval.h"
#include "met.h"

/* Splits each cube position into "no double" (2i) and "doubled" (2i+1); a
 * doubled slot is unavailable (cube 0) at the top of a cube decision or when
 * the side on roll may not double. invert: the children have the other side
 * on roll. */
void bg_cubepos_split(const bg_cubeinfo *cps, int n, int top, int invert_move, bg_cubeinfo *out)
{
    for (int i = 0; i < n; i++) {
        bg_cubeinfo *nd = &out[2 * i], *dt = &out[2 * i + 1];
        if (cps[i].cube > 0) {
            *nd = cps[i];
            if (invert_move)
                nd->move = !nd->move;
        } else {
            nd->cube = 0;
        }
        if (!top && cps[i].cube > 0 && bg_cube_available(&cps[i])) {
            bg_cubeinfo_doubled(&cps[i], dt);
            if (invert_move)
                dt->move = !dt->move;
        } else {
            dt->cube = 0;
        }
    }
}

/* Cubeful value of a leaf for every available cube position. */
void bg_cubepos_leaf(const struct bg_engine *e, const bg_board b, int cls, const float p[5],
                     const bg_cubeinfo *kids, int nk, int low_eff, float *v)
{
    float x = bg_cube_efficiency(&b[0][0], cls, low_eff);
    float em[3];
    const float *exact = NULL;
    if ((cls == BG_CLASS_BEAROFF2 || cls == BG_CLASS_BEAROFF_TS) &&
        bg_cube_exact_money(e, &b[0][0], em) == 0)
        exact = em;
    int money = !exact;
    for (int j = 0; j < nk; j++)
        money &= kids[j].cube <= 0 || !kids[j].match_to;
    if (money) { /* bg_cube_leaf's money case for each, the gammon ratios once */
        bg_cube_money_leaves(p, kids, nk, x, v);
        return;
    }
    for (int j = 0; j < nk; j++)
        v[j] = kids[j].cube > 0 ? bg_cube_leaf(p, x, cls, exact, &kids[j]) : 0.0f;
}

/* The value of each cube position: the better of no double and double
 * (then the opponent's better of take and pass). */
void bg_cubepos_collapse(const bg_cubeinfo *cps, int n, const bg_cubeinfo *kids, const float *v,
                         float *cf)
{
    for (int i = 0; i < n; i++) {
        const bg_cubeinfo *c = &cps[i];
        if (c->cube <= 0) {
            cf[i] = 0.0f;
            continue;
        }
        float nd = v[2 * i];
        if (kids[2 * i + 1].cube <= 0) {
            cf[i] = nd;
            continue;
        }
        float dt, dp;
        if (!c->match_to) {
            dt = 2.0f * v[2 * i + 1];
            dp = 1.0f;
        } else {
            dt = v[2 * i + 1];
            dp = bg_met_mwc(c->met, c->score[0], c->score[1], c->match_to, c->move, c->cube,
                            c->move, c->crawford);
        }
        cf[i] = (dt >= nd && dp >= nd) ? (dt < dp ? dt : dp) : nd;
    }
}

float bg_cubepos_value0(const struct bg_engine *e, const bg_board b, int cls, const float p[5],
                        const bg_cubeinfo *ci, int low_eff)
{
    bg_cubeinfo kids[2];
    float v[2], cf;
    bg_cubepos_split(ci, 1, 0, 0, kids);
    bg_cubepos_leaf(e, b, cls, p, kids, 2, low_eff, v);
    bg_cubepos_collapse(ci, 1, kids, v, &cf);
    return cf;
}
