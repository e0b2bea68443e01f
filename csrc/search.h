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

#endif
