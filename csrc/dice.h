/* gnubg's rollout dice (gnubg's manual, "Rollouts"): the seeded generators
 * (SFMT-19937 as gnubg 1.08 and the `gnubg` package, MT19937 as gnubg 1.07),
 * the die mapping with rejection, and the quasi-random permutation tables
 * (rotation and stratification) built from ISAAC. */
#ifndef BG_DICE_H
#define BG_DICE_H

#include "types.h"

/* Generators of the dice past the quasi-random plies (bg_rollout_settings.rng). */
enum { BG_DICE_SFMT = 0, BG_DICE_MT19937 = 1 };

/* Plies covered by the permutation tables (gnubg's QRLEN) and generations. */
#define BG_DICE_QRLEN 128
#define BG_DICE_GENERATIONS 6

/* One trial's generator: SFMT-19937 (624 words) or MT19937 (624 words). */
typedef struct {
    unsigned int state[624];
    int idx;
    int kind;
} bg_dice_rng;

/* Seeds the generator of trial `trial`: seed + 256 * trial (mod 2^32). */
void bg_dice_rng_seed(bg_dice_rng *r, int kind, unsigned int seed);
unsigned int bg_dice_rng_next(bg_dice_rng *r);

/* The permutation tables of a seed: perm[g][t] for t >= g (others unused). */
typedef struct {
    unsigned char perm[BG_DICE_GENERATIONS][BG_DICE_QRLEN][36];
} bg_dice_tables;

void bg_dice_tables_build(bg_dice_tables *t, unsigned int seed);

/* The roll of trial `trial` at `ply` (larger die first in d[0]). quasi:
 * tables (NULL = quasi-random dice off). initial: ply 0 of a rollout as the
 * opening position re-draws doubles (and quasi-random dice are off). The
 * generator is drawn only at the plies that use it. */
void bg_dice_roll(const bg_dice_tables *quasi, bg_dice_rng *r, int initial, unsigned long trial,
                  int ply, int d[2]);

#endif
