/* gnubg's rollouts (gnubg's manual, "Rollouts"): one trial per (alternative,
 * trial index), variance reduction, truncation, cube play, and gnubg's running
 * statistics. The public entry points and bg_rollout_settings are declared in
 * api.h (section "rollout"). */
#ifndef BG_ROLLOUT_H
#define BG_ROLLOUT_H

#include "types.h"

/* Outputs of a trial: W, WG, WBG, LG, LBG, cubeless equity, cubeful value. */
enum { BG_RO_CL = 5, BG_RO_CF = 6, BG_RO_OUTPUTS = 7 };

#endif
