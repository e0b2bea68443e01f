/* Match equity lookups, as gnubg's. The table itself is read
 * and extended to 64 points in Python (engine/met.py) and handed over as a
 * bg_met (api.h). All values are single precision, as in gnubg. */
#ifndef BG_MET_H
#define BG_MET_H

#include "types.h"

#define BG_MET_MAX 64

/* MWC of `player` after `winner` wins `points` from (score0, score1) in a
 * match to match_to (gnubg's getME). `crawford`: the current game is the
 * Crawford game. Results with a player past the length return 1 or 0. */
float bg_met_mwc(const bg_met *met, int score0, int score1, int match_to, int player,
                 int points, int winner, int crawford);

/* Gammon and backgammon prices (gp0, gp1, bp0, bp1, gnubg's order) for a cube
 * value at a score; all zero for money or a dead cube. */
void bg_met_gammon_prices(const bg_met *met, int score0, int score1, int match_to, int cube,
                          int crawford, float out[4]);

#endif
