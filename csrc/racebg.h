/* gnubg's race-backgammon probability: in a race where one
 * side still has chequers in the other's home board, the chance of a
 * backgammon, from gnubg's tables and the bearoff databases. */
#ifndef BG_RACEBG_H
#define BG_RACEBG_H

#include "bearoff.h"

/* Race backgammon override, applied to the race net's outputs. */
void bg_race_bg_override(const bg_bearoff_os *os, const bg_bearoff_ts *ts, const bg_board b,
                         float out[5]);

#endif
