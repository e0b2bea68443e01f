/* The cube side of the search tree (as gnubg's): each cube position
 * of a node split into "no double" and "doubled" for its children, the
 * cubeful value of a leaf per cube position (Janowski, cube.c), and the
 * value of the better cube action at a node. */
#ifndef BG_CUBEPOS_H
#define BG_CUBEPOS_H

#include "types.h"

struct bg_engine;

/* out[2i] = cps[i] without a double, out[2i + 1] = doubled; a doubled slot
 * is unavailable (cube 0) when top (the root of a cube decision) or when
 * the side on roll may not double. invert_move: the children have the
 * other side on roll. */
void bg_cubepos_split(const bg_cubeinfo *cps, int n, int top, int invert_move, bg_cubeinfo *out);

/* v[j]: the cubeful value of leaf b (class cls, 0-ply outputs p) for kids[j]
 * (0 where unavailable); low_eff: gnubg 1.1's 0-1 ply cube efficiencies. */
void bg_cubepos_leaf(const struct bg_engine *e, const bg_board b, int cls, const float p[5],
                     const bg_cubeinfo *kids, int nk, int low_eff, float *v);

/* cf[i]: the value of cps[i], the better of no double and double (then the
 * opponent's better of take and pass), from the children's values v. */
void bg_cubepos_collapse(const bg_cubeinfo *cps, int n, const bg_cubeinfo *kids, const float *v,
                         float *cf);

/* The 0-ply cubeful value of b (class cls, cubeless outputs p) for ci->move,
 * free to double: money normalised per ci->cube, match MWC (for rollouts). */
float bg_cubepos_value0(const struct bg_engine *e, const bg_board b, int cls, const float p[5],
                        const bg_cubeinfo *ci, int low_eff);

#endif
