/* Cubeful equities at a leaf (Janowski, money and match), cube efficiency,
 * cube-decision classification, as gnubg's. The public
 * entry points and bg_cubeinfo are declared in api.h. */
#ifndef BG_CUBE_H
#define BG_CUBE_H

#include "met.h"
#include "types.h"

/* gnubg's cube decisions (the classes of its enum cubedecision; our numbering,
 * the names gnubg prints are in engine/cube.py ACTIONS). */
enum {
    BG_CUBE_DOUBLE_TAKE = 0,
    BG_CUBE_DOUBLE_PASS,
    BG_CUBE_NODOUBLE_TAKE,
    BG_CUBE_TOOGOOD_TAKE,
    BG_CUBE_TOOGOOD_PASS,
    BG_CUBE_DOUBLE_BEAVER,
    BG_CUBE_NODOUBLE_BEAVER,
    BG_CUBE_REDOUBLE_TAKE,
    BG_CUBE_REDOUBLE_PASS,
    BG_CUBE_NO_REDOUBLE_TAKE,
    BG_CUBE_TOOGOODRE_TAKE,
    BG_CUBE_TOOGOODRE_PASS,
    BG_CUBE_NO_REDOUBLE_BEAVER,
    BG_CUBE_NODOUBLE_DEADCUBE,
    BG_CUBE_NO_REDOUBLE_DEADCUBE,
    BG_CUBE_NOT_AVAILABLE,
    BG_CUBE_OPTIONAL_DOUBLE_TAKE,
    BG_CUBE_OPTIONAL_REDOUBLE_TAKE,
    BG_CUBE_OPTIONAL_DOUBLE_BEAVER,
    BG_CUBE_OPTIONAL_DOUBLE_PASS,
    BG_CUBE_OPTIONAL_REDOUBLE_PASS,
    BG_CUBE_N_DECISIONS
};

/* The cube info after the side on roll doubles (cube x2, owned by the taker). */
void bg_cubeinfo_doubled(const bg_cubeinfo *ci, bg_cubeinfo *out);

/* Janowski conversion for money (normalised cubeful equity; R. Janowski, "Take-Points
 * in Money Games", 1993). */
float bg_cube_money_leaf(const float p[5], const bg_cubeinfo *ci, float x);
/* v[j] = bg_cube_money_leaf(p, &kids[j], x) for the kids with a cube (cube > 0,
 * money), else 0: the gammon ratios of p computed once. */
void bg_cube_money_leaves(const float p[5], const bg_cubeinfo *kids, int nk, float x, float *v);

/* Cubeful MWC for match play, as gnubg: (1 - x) the dead-cube MWC plus x the
 * live-cube MWC, which is linear in W between the cash points. */
float bg_cube_match_leaf(const float p[5], const bg_cubeinfo *ci, float x);

#endif
