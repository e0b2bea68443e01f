/* The n-ply search (gnubg-play-spec sections 1-4): move choice through the
 * move filters, k-ply evaluation over the 21 rolls, pruning nets inside the
 * tree, cubeful propagation over cube positions, cubeless n-ply, noise at the
 * leaves, threads at the top. The public entry points and
 * bg_search_settings are declared in api.h (section "search"). */
#ifndef BG_SEARCH_H
#define BG_SEARCH_H

#include "types.h"

/* Deepest search supported (gnubg stores 0..7 plies). */
#define BG_SEARCH_MAX_PLIES 6

/* Cube positions carried through the tree: 2 at the root of a cube decision,
 * doubling at every ply down to the leaves. */
#define BG_SEARCH_MAX_CUBEPOS (2 << (BG_SEARCH_MAX_PLIES + 1))

/* For rollouts (rollout.c). The side on roll's 0-ply play for d0/d1 with the
 * settings' context (plies ignored; threads must be 1 and noise, if any,
 * deterministic): the resulting board, swapped, in out; returns 1 with its
 * 0-ply outputs in known/known_cls when it evaluated it, 0 when not (one or
 * no legal play), or a negative BG_SEARCH_ERR_*. */
int bg_search_choose0(const bg_engine *e, bg_cache *cache, const bg_search_settings *s,
                      const bg_board b, int d0, int d1, const bg_cubeinfo *ci, bg_board out,
                      float known[5], int *known_cls);

/* The 0-ply cubeful value of b (class cls, cubeless outputs p) for ci->move,
 * free to double: money normalised per ci->cube, match MWC. low_eff: gnubg
 * 1.1's 0-1 ply cube efficiencies. */
float bg_search_cubeful0(const bg_engine *e, const bg_board b, int cls, const float p[5],
                         const bg_cubeinfo *ci, int low_eff);

#endif
