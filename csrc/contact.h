/* gnubg's contact extras: the 25 fields per side that the
 * contact and crashed nets read after the base block (men off, contact
 * breaks, back chequers and anchors, hitting chances, escapes and
 * containment, mobility, timing, backbone, back games), computed from bitmaps
 * of the points. inputs.c lays them out as net inputs. */
#ifndef BG_CONTACT_H
#define BG_CONTACT_H

#include "inputs.h"

#define BG_N_CONTACT_EXTRAS 25

/* Fills the escape tables (built once per engine); wide: the AVX-512 form
 * of the hitting heuristic where the CPU has it (the same numbers). */
void bg_escape_tables_init(bg_escape_tables *t, int wide);

/* The two extra blocks of the contact inputs, in input order: x[0] holds
 * b[1]'s features against b[0], x[1] b[0]'s against b[1]; crashed selects
 * the crashed net's men-off layout. scan[j]: side b[j]'s bitmap and count. */
void bg_contact_extras(const bg_escape_tables *t, const bg_board b, int crashed,
                       float x[2][BG_N_CONTACT_EXTRAS], bg_side_scan scan[2]);

#endif
