/* Match equity lookups and gammon prices, as gnubg's. */
#include <math.h>

#include "met.h"

float bg_met_mwc(const bg_met *met, int score0, int score1, int match_to, int player,
                 int points, int winner, int crawford)
{
    int n0 = match_to - (score0 + (winner == 0 ? points : 0)) - 1;
    int n1 = match_to - (score1 + (winner == 1 ? points : 0)) - 1;
    if (n0 < 0)
        return player ? 0.0f : 1.0f;
    if (n1 < 0)
        return player ? 1.0f : 0.0f;
    if (n0 >= BG_MET_MAX)
        n0 = BG_MET_MAX - 1;
    if (n1 >= BG_MET_MAX)
        n1 = BG_MET_MAX - 1;
    float v;
    if (crawford || match_to - score0 == 1 || match_to - score1 == 1) {
        /* the result is read from the post-Crawford row of the trailer */
        if (n0 == 0) {
            v = met->post[1][n1]; /* player 1 trails */
            return player ? v : 1.0f - v;
        }
        v = met->post[0][n0];
        return player ? 1.0f - v : v;
    }
    v = met->pre[n0][n1];
    return player ? 1.0f - v : v;
}

void bg_met_gammon_prices(const bg_met *met, int score0, int score1, int match_to, int cube,
                          int crawford, float out[4])
{
    out[0] = out[1] = out[2] = out[3] = 0.0f;
    if (!match_to || !met)
        return;
    float win = bg_met_mwc(met, score0, score1, match_to, 0, cube, 0, crawford);
    float win_g = bg_met_mwc(met, score0, score1, match_to, 0, 2 * cube, 0, crawford);
    float win_b = bg_met_mwc(met, score0, score1, match_to, 0, 3 * cube, 0, crawford);
    float lose = bg_met_mwc(met, score0, score1, match_to, 0, cube, 1, crawford);
    float lose_g = bg_met_mwc(met, score0, score1, match_to, 0, 2 * cube, 1, crawford);
    float lose_b = bg_met_mwc(met, score0, score1, match_to, 0, 3 * cube, 1, crawford);
    float centre = (win + lose) / 2.0f;
    float half = win - centre;
    if (fabsf(half) > 1.0e-7f) {
        out[0] = (win_g - centre) / half - 1.0f;
        out[1] = (centre - lose_g) / half - 1.0f;
        out[2] = (win_b - centre) / half - (out[0] + 1.0f);
        out[3] = (centre - lose_b) / half - (out[1] + 1.0f);
    }
    for (int i = 0; i < 4; i++)
        if (out[i] < 0.0f)
            out[i] = 0.0f;
}
