/* Net inputs (gnubg-engine-spec section 3): the 200-float base block used by
 * the pruning nets, the 214 race inputs and the 250 contact/crashed inputs. */
#ifndef BG_INPUTS_H
#define BG_INPUTS_H

#include "types.h"

#define BG_N_BASE_INPUTS 200
#define BG_N_RACE_INPUTS 214
#define BG_N_CONTACT_INPUTS 250

/* Escape tables (spec 3.4), built once per engine. */
typedef struct {
    unsigned char esc[4096];
    unsigned char esc1[4096];
} bg_escape_tables;

void bg_escape_tables_init(bg_escape_tables *t);

/* Sparse inputs: the non-zero inputs of a net, indices ascending (the
 * forward pass adds them in this order). idx/val have one spare slot. */
typedef struct {
    int n;
    int idx[BG_N_CONTACT_INPUTS + 1];
    float val[BG_N_CONTACT_INPUTS + 1];
} bg_sparse;

void bg_sparse_base(const bg_board b, bg_sparse *out);
void bg_sparse_race(const bg_board b, bg_sparse *out);
void bg_sparse_contact(const bg_escape_tables *t, const bg_board b, int crashed, bg_sparse *out);

/* Dense forms (for tests and tools): every input, zeros included. */
void bg_inputs_base(const bg_board b, float *out);    /* 200 */
void bg_inputs_race(const bg_board b, float *out);    /* 214 */
/* 250 inputs; crashed selects the crashed net's men-off layout. */
void bg_inputs_contact(const bg_escape_tables *t, const bg_board b, int crashed, float *out);

#endif
