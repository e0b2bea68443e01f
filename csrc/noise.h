/* Evaluation noise of gnubg's levels: deterministic (MD5 of the
 * board) or random (ISAAC + Marsaglia polar), added to 0-ply leaf outputs.
 * The public entry points and bg_isaac are declared in api.h. */
#ifndef BG_NOISE_H
#define BG_NOISE_H

#include "types.h"

/* MD5 (RFC 1321) of len bytes into digest[16]. */
void bg_md5(const unsigned char *data, unsigned long len, unsigned char digest[16]);

/* Adds noise and clamps to [0, 1]; no sanity check (the caller runs it). */
void bg_noise_add(const bg_board b, float noise, int deterministic, int centred, bg_isaac *rng,
                  float out[5]);

#endif
