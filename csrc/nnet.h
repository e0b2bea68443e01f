/* Neural nets: their layout in memory and the forward pass (weights.h loads them).
 *
 * Arithmetic follows gnubg's scalar float32 code (builds without SIMD, e.g. the
 * `gnubg` PyPI wheel):
 * hidden accumulators start at their thresholds and add W[i][k]*x[i] in input
 * order (zero inputs skipped), the hidden sigmoid is gnubg's table sigmoid,
 * the output sums run over hidden units in order. The SIMD kernels vectorise
 * across hidden units (or outputs) only, so every float is the same as the
 * scalar code's. */
#ifndef BG_NNET_H
#define BG_NNET_H

#include <stdint.h>

#include "sigmoid.h"

/* Net order inside gnubg's weights files. */
enum {
    BG_NET_CONTACT = 0,
    BG_NET_RACE = 1,
    BG_NET_CRASHED = 2,
    BG_NET_PRUNE_CONTACT = 3,
    BG_NET_PRUNE_CRASHED = 4,
    BG_NET_PRUNE_RACE = 5,
    BG_NET_COUNT = 6
};

#define BG_NET_MAX_INPUTS 250
#define BG_NET_MAX_HIDDEN 128
#define BG_NET_OUT_LANES 8 /* output weights are padded to 8 lanes */

typedef struct {
    int n_in, n_hidden, n_out;
    float beta_hidden, beta_output;
    float *w_hidden;  /* [n_in][n_hidden], input-major (file order), 64-byte aligned */
    float *w_out_t;   /* [n_hidden][8]: output weights transposed, lanes >= n_out are 0 */
    float *w_out_q;   /* [n_hidden/4][16]: lane 4o+L = output o (0..3), hidden 4t+L */
    float *w_out_q4;  /* [n_hidden/4][4]: output 4, hidden 4t+L */
    float *th_hidden; /* [n_hidden] */
    float th_out[BG_NET_OUT_LANES];
} bg_net;

typedef struct {
    bg_net net[BG_NET_COUNT];
    void *block;     /* the single allocation behind every array */
    uint64_t digest; /* FNV-1a over dimensions, betas and every float, file order */
} bg_netset;

/* Forward pass kernel over sparse inputs: the n non-zero inputs idx[t]
 * (ascending) with values val[t] -> out[n_out]. Pure; thread-safe. */
typedef void (*bg_forward_fn)(const bg_net *net, const int *idx, const float *val, int n,
                              float *out);

/* Picks the fastest kernel the CPU supports: AVX-512, AVX2, else SSE2 (the
 * x86-64 baseline) or portable C elsewhere. */
bg_forward_fn bg_forward_select(void);
/* The kernel of gnubg 1.07's SSE build for the instruction set of f: the
 * hidden sigmoid by the approximate reciprocal (nnet.c); x86 only (elsewhere f). */
bg_forward_fn bg_forward_rcp(bg_forward_fn f);
/* "avx512", "avx2", "sse2", "generic", or "avx2-rcp", "sse2-rcp" (bg_forward_rcp). */
const char *bg_forward_name(bg_forward_fn f);
/* The instruction set of kernel f, for code that must use the same one. */
enum { BG_ISA_GENERIC, BG_ISA_SSE2, BG_ISA_AVX2, BG_ISA_AVX512 };
int bg_forward_isa(bg_forward_fn f);
/* The portable kernel (reference). */
void bg_forward_generic(const bg_net *net, const int *idx, const float *val, int n, float *out);
/* The rest of kernel f's pass after the hidden sums: h[n_hidden] holds the
 * thresholds plus the weighted inputs (as the kernel adds them; 64-byte
 * aligned, BG_NET_MAX_HIDDEN floats); applies
 * the hidden sigmoid in place and writes the outputs. For callers that sum
 * the inputs their own way (the pruning nets, prune.c). */
void bg_forward_finish(bg_forward_fn f, const bg_net *net, float *h, float *out);
/* bg_forward_finish of h[j] into out[j] for k boards of a 5-output net; the
 * AVX-512 kernel puts the output sigmoids of three small-net boards (8 or 16
 * hidden units) in one vector (the same values, lane by lane). */
void bg_forward_finish_many(bg_forward_fn f, const bg_net *net, float (*h)[BG_NET_MAX_HIDDEN],
                            int k, float (*out)[5]);
/* f on two boards' sparse inputs, the same outputs as two calls; the
 * AVX-512 kernel overlaps the two finishes of a 128-hidden net. */
void bg_forward_pair(bg_forward_fn f, const bg_net *net, const int *idx1, const float *val1,
                     int m1, float *out1, const int *idx2, const float *val2, int m2, float *out2);
/* Runs kernel f on dense inputs in[n_in] (zeros skipped). */
void bg_forward_dense(bg_forward_fn f, const bg_net *net, const float *in, float *out);

#endif
