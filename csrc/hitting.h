/* The hitting heuristic of gnubg's contact inputs: how
 * many rolls hit an opponent blot once or twice, and the pips such hits
 * take back; contact.c lays them out as the PIPLOSS, P1 and P2 fields. */
#ifndef BG_HITTING_H
#define BG_HITTING_H

#include "inputs.h"
#include "sidebits.h"

/* 1 where the CPU runs the vector form (AVX-512F with CD), else 0. */
int bg_hitting_wide_supported(void);

/* out[0..2]: PIPLOSS, P1 and P2 of side b (bitmaps sb) against the
 * opponent o (so); tab->wide picks the vector form (the same numbers). */
void bg_hitting(const bg_escape_tables *tab, const unsigned int *b, const unsigned int *o,
                const side_bits *sb, const side_bits *so, float out[3]);

#endif
