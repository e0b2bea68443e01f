/* The forward pass of the nets (nnet.h); their weights are loaded by weights.c. */
#include "nnet.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define BG_X86 1
#include <immintrin.h>
#endif

/* ---- forward pass ----------------------------------------------------- */

/* Output sums as the reference build computes them: four partial sums over
 * hidden units k = L mod 4, combined as (s0 + s2) + (s1 + s3), then added to
 * the threshold (a 4-lane vectorised reduction). */
static inline void output_layer_sums(const bg_net *net, const float *h, float *out, int pairs01)
{
    float s[4][BG_NET_OUT_LANES];
    memset(s, 0, sizeof s);
    for (int k = 0; k < net->n_hidden; k++) {
        const float *v = net->w_out_t + (size_t)k * BG_NET_OUT_LANES;
        for (int o = 0; o < net->n_out; o++)
            s[k & 3][o] = s[k & 3][o] + h[k] * v[o];
    }
    float nb = -net->beta_output;
    for (int o = 0; o < net->n_out; o++) {
        float r = net->th_out[o] + (pairs01 ? (s[0][o] + s[1][o]) + (s[2][o] + s[3][o])
                                            : (s[0][o] + s[2][o]) + (s[1][o] + s[3][o]));
        out[o] = bg_sigmoid(nb * r);
    }
}

static void output_layer_generic(const bg_net *net, const float *h, float *out)
{
    output_layer_sums(net, h, out, 0);
}

#ifdef BG_X86
/* gnubg 1.07's SSE build combines the four partial sums as (s0 + s1) + (s2 + s3). */
static void output_layer_107(const bg_net *net, const float *h, float *out)
{
    output_layer_sums(net, h, out, 1);
}
#endif

/* The hidden sigmoid on the sums h, then the output layer. */
static void finish_generic(const bg_net *net, float *h, float *out)
{
    float nb = -net->beta_hidden;
    for (int k = 0; k < net->n_hidden; k++)
        h[k] = bg_sigmoid(nb * h[k]);
    output_layer_generic(net, h, out);
}

void bg_forward_generic(const bg_net *net, const int *idx, const float *val, int n, float *out)
{
    const int nh = net->n_hidden;
    float acc[BG_NET_MAX_HIDDEN];
    memcpy(acc, net->th_hidden, (size_t)nh * sizeof(float));
    for (int t = 0; t < n; t++) {
        float x = val[t];
        const float *row = net->w_hidden + (size_t)idx[t] * nh;
        if (x == 1.0f) {
            for (int k = 0; k < nh; k++)
                acc[k] += row[k];
        } else {
            for (int k = 0; k < nh; k++)
                acc[k] += row[k] * x;
        }
    }
    finish_generic(net, acc, out);
}

void bg_forward_dense(bg_forward_fn f, const bg_net *net, const float *in, float *out)
{
    int idx[BG_NET_MAX_INPUTS + 1];
    float val[BG_NET_MAX_INPUTS + 1];
    int m = 0;
    for (int i = 0; i < net->n_in; i++) {
        idx[m] = i;
        val[m] = in[i];
        m += in[i] != 0.0f;
    }
    f(net, idx, val, m, out);
}

#ifdef BG_X86

/* SSE2 (baseline x86-64): 4 hidden units per vector, blocks of 32 units. */
static void finish_sse2(const bg_net *net, float *h, float *out)
{
    const int nh = net->n_hidden;
    float nb = -net->beta_hidden;
    for (int k = 0; k < nh; k++)
        h[k] = bg_sigmoid(nb * h[k]);
    __m128 lo[4], hi[4];
    for (int L = 0; L < 4; L++)
        lo[L] = hi[L] = _mm_setzero_ps();
    for (int k = 0; k < nh; k += 4) {
        for (int L = 0; L < 4; L++) {
            const float *v = net->w_out_t + (size_t)(k + L) * BG_NET_OUT_LANES;
            __m128 x = _mm_set1_ps(h[k + L]);
            lo[L] = _mm_add_ps(lo[L], _mm_mul_ps(x, _mm_load_ps(v)));
            hi[L] = _mm_add_ps(hi[L], _mm_mul_ps(x, _mm_load_ps(v + 4)));
        }
    }
    __m128 r0 = _mm_add_ps(_mm_loadu_ps(net->th_out),
                           _mm_add_ps(_mm_add_ps(lo[0], lo[2]), _mm_add_ps(lo[1], lo[3])));
    __m128 r1 = _mm_add_ps(_mm_loadu_ps(net->th_out + 4),
                           _mm_add_ps(_mm_add_ps(hi[0], hi[2]), _mm_add_ps(hi[1], hi[3])));
    float r[8];
    _mm_storeu_ps(r, r0);
    _mm_storeu_ps(r + 4, r1);
    float no = -net->beta_output;
    for (int o = 0; o < net->n_out; o++)
        out[o] = bg_sigmoid(no * r[o]);
}

/* The hidden sums (thresholds plus the weighted inputs, in input order) into h. */
static inline void sums_sse2(const bg_net *net, const int *idx, const float *val, int m, float *h)
{
    const int nh = net->n_hidden;
    for (int base = 0; base < nh; base += 32) {
        int nv = (nh - base) / 4;
        if (nv > 8)
            nv = 8;
        const float *th = net->th_hidden + base;
        if (nv == 8) {
            __m128 a0 = _mm_load_ps(th), a1 = _mm_load_ps(th + 4), a2 = _mm_load_ps(th + 8),
                   a3 = _mm_load_ps(th + 12), a4 = _mm_load_ps(th + 16), a5 = _mm_load_ps(th + 20),
                   a6 = _mm_load_ps(th + 24), a7 = _mm_load_ps(th + 28);
            for (int t = 0; t < m; t++) {
                const float *w = net->w_hidden + (size_t)idx[t] * nh + base;
                __m128 x = _mm_set1_ps(val[t]);
                a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_load_ps(w), x));
                a1 = _mm_add_ps(a1, _mm_mul_ps(_mm_load_ps(w + 4), x));
                a2 = _mm_add_ps(a2, _mm_mul_ps(_mm_load_ps(w + 8), x));
                a3 = _mm_add_ps(a3, _mm_mul_ps(_mm_load_ps(w + 12), x));
                a4 = _mm_add_ps(a4, _mm_mul_ps(_mm_load_ps(w + 16), x));
                a5 = _mm_add_ps(a5, _mm_mul_ps(_mm_load_ps(w + 20), x));
                a6 = _mm_add_ps(a6, _mm_mul_ps(_mm_load_ps(w + 24), x));
                a7 = _mm_add_ps(a7, _mm_mul_ps(_mm_load_ps(w + 28), x));
            }
            _mm_store_ps(h + base, a0);
            _mm_store_ps(h + base + 4, a1);
            _mm_store_ps(h + base + 8, a2);
            _mm_store_ps(h + base + 12, a3);
            _mm_store_ps(h + base + 16, a4);
            _mm_store_ps(h + base + 20, a5);
            _mm_store_ps(h + base + 24, a6);
            _mm_store_ps(h + base + 28, a7);
        } else {
            __m128 a[8];
            for (int v = 0; v < nv; v++)
                a[v] = _mm_load_ps(th + 4 * v);
            for (int t = 0; t < m; t++) {
                const float *w = net->w_hidden + (size_t)idx[t] * nh + base;
                __m128 x = _mm_set1_ps(val[t]);
                for (int v = 0; v < nv; v++)
                    a[v] = _mm_add_ps(a[v], _mm_mul_ps(_mm_load_ps(w + 4 * v), x));
            }
            for (int v = 0; v < nv; v++)
                _mm_store_ps(h + base + 4 * v, a[v]);
        }
    }
}

static void forward_sse2(const bg_net *net, const int *idx, const float *val, int m, float *out)
{
    float h[BG_NET_MAX_HIDDEN] __attribute__((aligned(16)));
    sums_sse2(net, idx, val, m, h);
    finish_sse2(net, h, out);
}

/* AVX2: 8 hidden units per vector, blocks of 64 units, vector sigmoid. */
__attribute__((target("avx2"))) static inline __m256 sigmoid_avx2(__m256 z)
{
    const __m256 one = _mm256_set1_ps(1.0f), ten = _mm256_set1_ps(10.0f);
    __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z);
    __m256 x1 = _mm256_mul_ps(ten, a);
    __m256i i = _mm256_cvttps_epi32(_mm256_min_ps(x1, _mm256_set1_ps(99.0f)));
    __m256 e = _mm256_i32gather_ps(bg_sigmoid_exp_table, i, 4);
    __m256 d = _mm256_add_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_set1_epi32(10), i)), x1);
    __m256 c = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(e, d)));
    __m256 neg = _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_LT_OQ);
    __m256 s = _mm256_blendv_ps(c, _mm256_sub_ps(one, c), neg);
    s = _mm256_blendv_ps(s, _mm256_set1_ps(BG_SIG_HIGH), _mm256_cmp_ps(z, ten, _CMP_GE_OQ));
    s = _mm256_blendv_ps(s, _mm256_set1_ps(BG_SIG_LOW),
                         _mm256_cmp_ps(z, _mm256_set1_ps(-10.0f), _CMP_LE_OQ));
    return s;
}

/* out[o] = S(-beta_output * r[o]): the scalar sigmoid's values, all outputs
 * at once and without its unpredictable sign branch. */
__attribute__((target("avx2"))) static inline void output_sigmoid_avx2(const bg_net *net, __m256 r,
                                                                       float *out)
{
    float s[8];
    _mm256_storeu_ps(s, sigmoid_avx2(_mm256_mul_ps(_mm256_set1_ps(-net->beta_output), r)));
    memcpy(out, s, (size_t)net->n_out * sizeof(float));
}

/* Output layer with 4 partial sums per output (see output_layer_generic),
 * the 5 outputs in the lanes of one vector. */
__attribute__((target("avx2"))) static inline void output_sums_avx2(const bg_net *net, const float *h,
                                                                    float *out, int pairs01)
{
    const int nh = net->n_hidden;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    const float *v = net->w_out_t;
    for (int k = 0; k < nh; k += 4, v += 4 * BG_NET_OUT_LANES) {
        s0 = _mm256_add_ps(s0, _mm256_mul_ps(_mm256_set1_ps(h[k]), _mm256_load_ps(v)));
        s1 = _mm256_add_ps(s1, _mm256_mul_ps(_mm256_set1_ps(h[k + 1]), _mm256_load_ps(v + 8)));
        s2 = _mm256_add_ps(s2, _mm256_mul_ps(_mm256_set1_ps(h[k + 2]), _mm256_load_ps(v + 16)));
        s3 = _mm256_add_ps(s3, _mm256_mul_ps(_mm256_set1_ps(h[k + 3]), _mm256_load_ps(v + 24)));
    }
    __m256 sum = pairs01 ? _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3))
                         : _mm256_add_ps(_mm256_add_ps(s0, s2), _mm256_add_ps(s1, s3));
    output_sigmoid_avx2(net, _mm256_add_ps(_mm256_loadu_ps(net->th_out), sum), out);
}

__attribute__((target("avx2"))) static void output_layer_avx2(const bg_net *net, const float *h,
                                                             float *out)
{
    output_sums_avx2(net, h, out, 0);
}

__attribute__((target("avx2"))) static void finish_avx2(const bg_net *net, float *h, float *out)
{
    const __m256 nb = _mm256_set1_ps(-net->beta_hidden);
    for (int k = 0; k < net->n_hidden; k += 8)
        _mm256_store_ps(h + k, sigmoid_avx2(_mm256_mul_ps(nb, _mm256_load_ps(h + k))));
    output_layer_avx2(net, h, out);
}

/* The hidden sums (thresholds plus the weighted inputs, in input order) into h. */
__attribute__((target("avx2"))) static inline void sums_avx2(const bg_net *net, const int *idx,
                                                             const float *val, int m, float *h)
{
    const int nh = net->n_hidden;
    for (int base = 0; base < nh; base += 64) {
        int nv = (nh - base) / 8;
        if (nv > 8)
            nv = 8;
        const float *th = net->th_hidden + base;
        if (nv == 8) {
            __m256 a0 = _mm256_load_ps(th), a1 = _mm256_load_ps(th + 8),
                   a2 = _mm256_load_ps(th + 16), a3 = _mm256_load_ps(th + 24),
                   a4 = _mm256_load_ps(th + 32), a5 = _mm256_load_ps(th + 40),
                   a6 = _mm256_load_ps(th + 48), a7 = _mm256_load_ps(th + 56);
            for (int t = 0; t < m; t++) {
                const float *w = net->w_hidden + (size_t)idx[t] * nh + base;
                __m256 x = _mm256_set1_ps(val[t]);
                a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_load_ps(w), x));
                a1 = _mm256_add_ps(a1, _mm256_mul_ps(_mm256_load_ps(w + 8), x));
                a2 = _mm256_add_ps(a2, _mm256_mul_ps(_mm256_load_ps(w + 16), x));
                a3 = _mm256_add_ps(a3, _mm256_mul_ps(_mm256_load_ps(w + 24), x));
                a4 = _mm256_add_ps(a4, _mm256_mul_ps(_mm256_load_ps(w + 32), x));
                a5 = _mm256_add_ps(a5, _mm256_mul_ps(_mm256_load_ps(w + 40), x));
                a6 = _mm256_add_ps(a6, _mm256_mul_ps(_mm256_load_ps(w + 48), x));
                a7 = _mm256_add_ps(a7, _mm256_mul_ps(_mm256_load_ps(w + 56), x));
            }
            _mm256_store_ps(h + base, a0);
            _mm256_store_ps(h + base + 8, a1);
            _mm256_store_ps(h + base + 16, a2);
            _mm256_store_ps(h + base + 24, a3);
            _mm256_store_ps(h + base + 32, a4);
            _mm256_store_ps(h + base + 40, a5);
            _mm256_store_ps(h + base + 48, a6);
            _mm256_store_ps(h + base + 56, a7);
        } else {
            __m256 a[8];
            for (int v = 0; v < nv; v++)
                a[v] = _mm256_load_ps(th + 8 * v);
            for (int t = 0; t < m; t++) {
                const float *w = net->w_hidden + (size_t)idx[t] * nh + base;
                __m256 x = _mm256_set1_ps(val[t]);
                for (int v = 0; v < nv; v++)
                    a[v] = _mm256_add_ps(a[v], _mm256_mul_ps(_mm256_load_ps(w + 8 * v), x));
            }
            for (int v = 0; v < nv; v++)
                _mm256_store_ps(h + base + 8 * v, a[v]);
        }
    }
}

__attribute__((target("avx2"))) static void forward_avx2(const bg_net *net, const int *idx,
                                                         const float *val, int m, float *out)
{
    float h[BG_NET_MAX_HIDDEN] __attribute__((aligned(32)));
    sums_avx2(net, idx, val, m, h);
    finish_avx2(net, h, out);
}

/* ---- gnubg 1.07's SSE build: the hidden sigmoid by approximate reciprocal ----
 *
 * Debian's gnubg 1.07 (x86-64, SSE) computes the hidden layer's sigmoid four
 * units at a time as r = RCPPS(1 + e[i] * ((x1 - i) + 10)), with x1 = 10 *
 * min(|z|, 10), i = trunc(x1) and e the table of bg_sigmoid (e[100] = e[99]);
 * S(z) = r for z > 0, 1 - r otherwise. RCPPS is the processor's approximate
 * reciprocal (relative error below 1.5 * 2^-12), so hidden values differ from
 * the division's by up to ~1e-4 and the outputs by up to ~1e-3. The output
 * layer keeps the scalar sigmoid, and sums the four partial sums as (s0 + s1)
 * + (s2 + s3) (output_layer_107). Found by experiment: 0-ply evaluations of
 * race, contact and crashed positions by Debian's gnubg equal this to the 6
 * printed digits (tests/test_serve_gnubg.py). The AVX and SSE forms of the
 * instruction give the same values (checked over [1, 20000] on Intel). */
__attribute__((target("avx2"))) static inline __m256 sigmoid_rcp_avx2(__m256 z)
{
    const __m256 one = _mm256_set1_ps(1.0f), ten = _mm256_set1_ps(10.0f);
    __m256 x1 = _mm256_mul_ps(_mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), z), ten), ten);
    __m256i i = _mm256_cvttps_epi32(x1);
    __m256 e = _mm256_i32gather_ps(bg_sigmoid_exp_table, i, 4);
    __m256 d = _mm256_add_ps(_mm256_sub_ps(x1, _mm256_cvtepi32_ps(i)), ten);
    __m256 r = _mm256_rcp_ps(_mm256_add_ps(_mm256_mul_ps(e, d), one));
    return _mm256_blendv_ps(_mm256_sub_ps(one, r), r, _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_GT_OQ));
}

__attribute__((target("avx2"))) static void finish_avx2_rcp(const bg_net *net, float *h, float *out)
{
    const __m256 nb = _mm256_set1_ps(-net->beta_hidden);
    for (int k = 0; k < net->n_hidden; k += 8)
        _mm256_store_ps(h + k, sigmoid_rcp_avx2(_mm256_mul_ps(nb, _mm256_load_ps(h + k))));
    output_sums_avx2(net, h, out, 1);
}

__attribute__((target("avx2"))) static void forward_avx2_rcp(const bg_net *net, const int *idx,
                                                             const float *val, int m, float *out)
{
    float h[BG_NET_MAX_HIDDEN] __attribute__((aligned(32)));
    sums_avx2(net, idx, val, m, h);
    finish_avx2_rcp(net, h, out);
}

/* The same on SSE2 (no gather: the table read lane by lane). */
static void finish_sse2_rcp(const bg_net *net, float *h, float *out)
{
    const __m128 one = _mm_set1_ps(1.0f), ten = _mm_set1_ps(10.0f);
    const __m128 nb = _mm_set1_ps(-net->beta_hidden);
    for (int k = 0; k < net->n_hidden; k += 4) {
        __m128 z = _mm_mul_ps(nb, _mm_load_ps(h + k));
        __m128 x1 = _mm_mul_ps(_mm_min_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), z), ten), ten);
        __m128i i = _mm_cvttps_epi32(x1);
        int n[4] __attribute__((aligned(16)));
        _mm_store_si128((__m128i *)n, i);
        __m128 e = _mm_setr_ps(bg_sigmoid_exp_table[n[0]], bg_sigmoid_exp_table[n[1]],
                               bg_sigmoid_exp_table[n[2]], bg_sigmoid_exp_table[n[3]]);
        __m128 d = _mm_add_ps(_mm_sub_ps(x1, _mm_cvtepi32_ps(i)), ten);
        __m128 r = _mm_rcp_ps(_mm_add_ps(_mm_mul_ps(e, d), one));
        __m128 pos = _mm_cmpgt_ps(z, _mm_setzero_ps());
        _mm_store_ps(h + k, _mm_or_ps(_mm_and_ps(pos, r), _mm_andnot_ps(pos, _mm_sub_ps(one, r))));
    }
    output_layer_107(net, h, out);
}

static void forward_sse2_rcp(const bg_net *net, const int *idx, const float *val, int m, float *out)
{
    float h[BG_NET_MAX_HIDDEN] __attribute__((aligned(16)));
    sums_sse2(net, idx, val, m, h);
    finish_sse2_rcp(net, h, out);
}

/* bg_sigmoid_exp_table[i] for 0 <= i <= 100, by register permutes (cheaper
 * than a gather): bits 5 and 6 of i pick the 32-entry quarter. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 exp_table_avx512(__m512i i)
{
    const float *t = bg_sigmoid_exp_table;
    __m512 e01 = _mm512_mask_mov_ps(
        _mm512_permutex2var_ps(_mm512_loadu_ps(t), i, _mm512_loadu_ps(t + 16)),
        _mm512_test_epi32_mask(i, _mm512_set1_epi32(32)),
        _mm512_permutex2var_ps(_mm512_loadu_ps(t + 32), i, _mm512_loadu_ps(t + 48)));
    __m512 e23 = _mm512_mask_mov_ps(
        _mm512_permutex2var_ps(_mm512_loadu_ps(t + 64), i, _mm512_loadu_ps(t + 80)),
        _mm512_test_epi32_mask(i, _mm512_set1_epi32(32)),
        _mm512_permutexvar_ps(i, _mm512_maskz_loadu_ps(0x1f, t + 96)));
    __m512 e = _mm512_mask_mov_ps(e01, _mm512_test_epi32_mask(i, _mm512_set1_epi32(64)), e23);
    return e;
}

/* AVX-512: 16 hidden units per vector, all 128 in 8 registers. */
__attribute__((target("avx512f"))) static inline __m512 sigmoid_avx512(__m512 z)
{
    const __m512 one = _mm512_set1_ps(1.0f), ten = _mm512_set1_ps(10.0f);
    __m512 a = _mm512_abs_ps(z);
    __m512 x1 = _mm512_mul_ps(ten, a);
    __m512i i = _mm512_cvttps_epi32(_mm512_min_ps(x1, _mm512_set1_ps(99.0f)));
    __m512 e = exp_table_avx512(i);
    __m512 d = _mm512_add_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_set1_epi32(10), i)), x1);
    __m512 c = _mm512_div_ps(one, _mm512_add_ps(one, _mm512_mul_ps(e, d)));
    /* |z| >= 10: BG_SIG_HIGH, whose 1 - BG_SIG_HIGH is BG_SIG_LOW to the bit */
    c = _mm512_mask_mov_ps(c, _mm512_cmp_ps_mask(a, ten, _CMP_GE_OQ), _mm512_set1_ps(BG_SIG_HIGH));
    return _mm512_mask_sub_ps(c, _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_LT_OQ), one, c);
}

/* gnubg 1.07's hidden sigmoid (sigmoid_rcp_avx2) sixteen units at a time: the
 * table read by register permutes (i <= 100 here), 1.07's arithmetic
 * in its order, the reciprocal by RCPPS on each 256-bit half (RCP14PS is not
 * RCPPS). The same bits as sigmoid_rcp_avx2, without its gathers. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 sigmoid_rcp_avx512(__m512 z)
{
    const __m512 one = _mm512_set1_ps(1.0f), ten = _mm512_set1_ps(10.0f);
    __m512 x1 = _mm512_mul_ps(_mm512_min_ps(_mm512_abs_ps(z), ten), ten);
    __m512i i = _mm512_cvttps_epi32(x1);
    __m512 e = exp_table_avx512(i);
    __m512 d = _mm512_add_ps(_mm512_sub_ps(x1, _mm512_cvtepi32_ps(i)), ten);
    __m512d q = _mm512_castps_pd(_mm512_add_ps(_mm512_mul_ps(e, d), one));
    __m256 lo = _mm256_rcp_ps(_mm256_castpd_ps(_mm512_castpd512_pd256(q)));
    __m256 hi = _mm256_rcp_ps(_mm256_castpd_ps(_mm512_extractf64x4_pd(q, 1)));
    __m512 r = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)),
                                                   _mm256_castps_pd(hi), 1));
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_GT_OQ),
                                _mm512_sub_ps(one, r), r);
}

/* -beta_output times the 5 outputs' sums (lanes 0..4) from the output layer's
 * partial sums (output_layer_avx512's acc and acc4), combined in registers as
 * the reference build does: lane 4o = (l0 + l2) + (l1 + l3) (with pairs01, gnubg
 * 1.07's (l0 + l1) + (l2 + l3)), then the threshold. */
__attribute__((target("avx512f"), always_inline)) static inline __m512
output_z_avx512(const bg_net *net, __m512 acc, __m128 acc4, int pairs01)
{
    __m512 p;
    __m128 p4;
    if (pairs01) { /* gnubg 1.07's SSE build: (l0 + l1) + (l2 + l3) */
        p = _mm512_add_ps(acc, _mm512_permute_ps(acc, _MM_SHUFFLE(2, 3, 0, 1)));
        p = _mm512_add_ps(p, _mm512_permute_ps(p, _MM_SHUFFLE(1, 0, 3, 2)));
        p4 = _mm_add_ps(acc4, _mm_shuffle_ps(acc4, acc4, _MM_SHUFFLE(2, 3, 0, 1)));
        p4 = _mm_add_ps(p4, _mm_shuffle_ps(p4, p4, _MM_SHUFFLE(1, 0, 3, 2)));
    } else {
        p = _mm512_add_ps(acc, _mm512_permute_ps(acc, _MM_SHUFFLE(1, 0, 3, 2)));
        p = _mm512_add_ps(p, _mm512_permute_ps(p, _MM_SHUFFLE(2, 3, 0, 1)));
        p4 = _mm_add_ps(acc4, _mm_shuffle_ps(acc4, acc4, _MM_SHUFFLE(1, 0, 3, 2)));
        p4 = _mm_add_ps(p4, _mm_shuffle_ps(p4, p4, _MM_SHUFFLE(2, 3, 0, 1)));
    }
    const __m512i lanes = _mm512_setr_epi32(0, 4, 8, 12, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    __m512 sum = _mm512_maskz_permutex2var_ps(0x1f, p, lanes, _mm512_castps128_ps512(p4));
    __m512 r = _mm512_add_ps(_mm512_maskz_loadu_ps(0x1f, net->th_out), sum);
    return _mm512_mul_ps(_mm512_set1_ps(-net->beta_output), r);
}

/* The output layer's four partial sums of every output at once: lane 4o+L
 * of acc holds output o's sum over hidden units k = L mod 4 (output 4 in
 * acc4), each in k order, exactly as output_layer_generic. */
__attribute__((target("avx512f"))) static void output_layer_avx512(const bg_net *net,
                                                                  const float *h, float *out, int pairs01)
{
    const int nh = net->n_hidden;
    __m512 acc = _mm512_setzero_ps();
    __m128 acc4 = _mm_setzero_ps();
    for (int t = 0; t < nh / 4; t++) {
        __m128 h4 = _mm_load_ps(h + 4 * t);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_broadcast_f32x4(h4),
                                               _mm512_load_ps(net->w_out_q + 16 * t)));
        acc4 = _mm_add_ps(acc4, _mm_mul_ps(h4, _mm_load_ps(net->w_out_q4 + 4 * t)));
    }
    /* the permute sigmoid: no gather */
    _mm512_mask_storeu_ps(out, 0x1f, sigmoid_avx512(output_z_avx512(net, acc, acc4, pairs01)));
}

/* n_hidden a multiple of 8 (the race pruning net has 8 units: half a register). */
__attribute__((target("avx512f"))) static void finish_avx512(const bg_net *net, float *h,
                                                            float *out)
{
    const __m512 nb = _mm512_set1_ps(-net->beta_hidden);
    for (int k = 0; k < net->n_hidden; k += 16) {
        __mmask16 m = net->n_hidden - k >= 16 ? 0xffff : 0xff;
        _mm512_mask_storeu_ps(h + k, m, sigmoid_avx512(_mm512_mul_ps(nb, _mm512_maskz_loadu_ps(m, h + k))));
    }
    if (net->n_out == 5)
        output_layer_avx512(net, h, out, 0);
    else
        output_layer_avx2(net, h, out);
}

/* The hidden sums of a 128-unit net (thresholds, then each input's row
 * times its value, in input order) in eight registers, stored to h. */
__attribute__((target("avx512f"), always_inline)) static inline void
sums128_avx512(const bg_net *net, const int *idx, const float *val, int m, float *h)
{
    const float *W = net->w_hidden, *th = net->th_hidden;
    __m512 a0 = _mm512_loadu_ps(th), a1 = _mm512_loadu_ps(th + 16), a2 = _mm512_loadu_ps(th + 32),
           a3 = _mm512_loadu_ps(th + 48), a4 = _mm512_loadu_ps(th + 64),
           a5 = _mm512_loadu_ps(th + 80), a6 = _mm512_loadu_ps(th + 96),
           a7 = _mm512_loadu_ps(th + 112);
    for (int t = 0; t < m; t++) {
        const float *w = W + (size_t)idx[t] * 128;
        /* always multiplied (w * 1 == w): a branch on the value mispredicted */
        __m512 x = _mm512_set1_ps(val[t]);
        a0 = _mm512_add_ps(a0, _mm512_mul_ps(_mm512_load_ps(w), x));
        a1 = _mm512_add_ps(a1, _mm512_mul_ps(_mm512_load_ps(w + 16), x));
        a2 = _mm512_add_ps(a2, _mm512_mul_ps(_mm512_load_ps(w + 32), x));
        a3 = _mm512_add_ps(a3, _mm512_mul_ps(_mm512_load_ps(w + 48), x));
        a4 = _mm512_add_ps(a4, _mm512_mul_ps(_mm512_load_ps(w + 64), x));
        a5 = _mm512_add_ps(a5, _mm512_mul_ps(_mm512_load_ps(w + 80), x));
        a6 = _mm512_add_ps(a6, _mm512_mul_ps(_mm512_load_ps(w + 96), x));
        a7 = _mm512_add_ps(a7, _mm512_mul_ps(_mm512_load_ps(w + 112), x));
    }
    _mm512_store_ps(h, a0);
    _mm512_store_ps(h + 16, a1);
    _mm512_store_ps(h + 32, a2);
    _mm512_store_ps(h + 48, a3);
    _mm512_store_ps(h + 64, a4);
    _mm512_store_ps(h + 80, a5);
    _mm512_store_ps(h + 96, a6);
    _mm512_store_ps(h + 112, a7);
}

__attribute__((target("avx512f"))) static void forward_avx512(const bg_net *net, const int *idx,
                                                             const float *val, int m, float *out)
{
    const int nh = net->n_hidden;
    if (nh % 16) {
        forward_avx2(net, idx, val, m, out);
        return;
    }
    float h[BG_NET_MAX_HIDDEN] __attribute__((aligned(64)));
    const float *W = net->w_hidden;
    if (nh == 128) {
        sums128_avx512(net, idx, val, m, h);
    } else {
        for (int base = 0; base < nh; base += 16) {
            __m512 a = _mm512_loadu_ps(net->th_hidden + base);
            for (int t = 0; t < m; t++)
                a = _mm512_add_ps(a, _mm512_mul_ps(_mm512_loadu_ps(W + (size_t)idx[t] * nh + base),
                                                   _mm512_set1_ps(val[t])));
            _mm512_store_ps(h + base, a);
        }
    }
    finish_avx512(net, h, out);
}

/* Two boards through a 128-hidden, 5-output net: the hidden sums one after
 * the other, then both finishes in one pass, so that the output layer's
 * dependency chains (32 adds deep) of the two overlap. Each board's
 * arithmetic is forward_avx512's, in its order. */
__attribute__((target("avx512f"))) static void pair128_avx512(const bg_net *net, const int *idx1,
                                                             const float *val1, int m1, float *out1,
                                                             const int *idx2, const float *val2,
                                                             int m2, float *out2, int gnubg107)
{
    float h1[128] __attribute__((aligned(64))), h2[128] __attribute__((aligned(64)));
    sums128_avx512(net, idx1, val1, m1, h1);
    sums128_avx512(net, idx2, val2, m2, h2);
    const __m512 nb = _mm512_set1_ps(-net->beta_hidden);
    for (int k = 0; k < 128; k += 16) {
        __m512 z1 = _mm512_mul_ps(nb, _mm512_load_ps(h1 + k)), z2 = _mm512_mul_ps(nb, _mm512_load_ps(h2 + k));
        _mm512_store_ps(h1 + k, gnubg107 ? sigmoid_rcp_avx512(z1) : sigmoid_avx512(z1));
        _mm512_store_ps(h2 + k, gnubg107 ? sigmoid_rcp_avx512(z2) : sigmoid_avx512(z2));
    }
    __m512 acc1 = _mm512_setzero_ps(), acc2 = _mm512_setzero_ps();
    __m128 acc41 = _mm_setzero_ps(), acc42 = _mm_setzero_ps();
    for (int t = 0; t < 32; t++) {
        __m512 w = _mm512_load_ps(net->w_out_q + 16 * t);
        __m128 w4 = _mm_load_ps(net->w_out_q4 + 4 * t);
        __m128 x1 = _mm_load_ps(h1 + 4 * t), x2 = _mm_load_ps(h2 + 4 * t);
        acc1 = _mm512_add_ps(acc1, _mm512_mul_ps(_mm512_broadcast_f32x4(x1), w));
        acc2 = _mm512_add_ps(acc2, _mm512_mul_ps(_mm512_broadcast_f32x4(x2), w));
        acc41 = _mm_add_ps(acc41, _mm_mul_ps(x1, w4));
        acc42 = _mm_add_ps(acc42, _mm_mul_ps(x2, w4));
    }
    _mm512_mask_storeu_ps(out1, 0x1f, sigmoid_avx512(output_z_avx512(net, acc1, acc41, gnubg107)));
    _mm512_mask_storeu_ps(out2, 0x1f, sigmoid_avx512(output_z_avx512(net, acc2, acc42, gnubg107)));
}

/* gnubg 1.07's finish on AVX-512: its hidden sigmoid, its output pairing (the
 * output sigmoid is the division's, as in 1.07). */
__attribute__((target("avx512f"))) static void finish_avx512_rcp(const bg_net *net, float *h, float *out)
{
    if (net->n_hidden % 16) {
        finish_avx2_rcp(net, h, out);
        return;
    }
    const __m512 nb = _mm512_set1_ps(-net->beta_hidden);
    for (int k = 0; k < net->n_hidden; k += 16)
        _mm512_store_ps(h + k, sigmoid_rcp_avx512(_mm512_mul_ps(nb, _mm512_load_ps(h + k))));
    if (net->n_out == 5)
        output_layer_avx512(net, h, out, 1);
    else
        output_sums_avx2(net, h, out, 1);
}

/* AVX-512's hidden sums (the same floats), then 1.07's finish. */
__attribute__((target("avx512f"))) static void forward_avx512_rcp(const bg_net *net, const int *idx,
                                                                 const float *val, int m, float *out)
{
    float h[BG_NET_MAX_HIDDEN] __attribute__((aligned(64)));
    if (net->n_hidden == 128)
        sums128_avx512(net, idx, val, m, h);
    else
        sums_avx2(net, idx, val, m, h);
    finish_avx512_rcp(net, h, out);
}

void bg_forward_finish(bg_forward_fn f, const bg_net *net, float *h, float *out)
{
    if (f == forward_avx512_rcp)
        finish_avx512_rcp(net, h, out);
    else if (f == forward_avx2_rcp)
        finish_avx2_rcp(net, h, out);
    else if (f == forward_sse2_rcp)
        finish_sse2_rcp(net, h, out);
    else if (f == forward_avx512 && net->n_hidden % 8 == 0)
        finish_avx512(net, h, out);
    else if (f == forward_avx512 || f == forward_avx2)
        finish_avx2(net, h, out);
    else if (f == forward_sse2)
        finish_sse2(net, h, out);
    else
        finish_generic(net, h, out);
}

int bg_forward_isa(bg_forward_fn f)
{
    return f == forward_avx512 || f == forward_avx512_rcp ? BG_ISA_AVX512
           : f == forward_avx2 || f == forward_avx2_rcp ? BG_ISA_AVX2
           : f == forward_sse2 || f == forward_sse2_rcp ? BG_ISA_SSE2
                                                        : BG_ISA_GENERIC;
}

const char *bg_forward_name(bg_forward_fn f)
{
    static const char *const names[] = {"generic", "sse2", "avx2", "avx512"};
    if (f == forward_avx512_rcp)
        return "avx512-rcp";
    if (f == forward_avx2_rcp)
        return "avx2-rcp";
    if (f == forward_sse2_rcp)
        return "sse2-rcp";
    return names[bg_forward_isa(f)];
}

bg_forward_fn bg_forward_rcp(bg_forward_fn f)
{
    int isa = bg_forward_isa(f);
    return isa == BG_ISA_AVX512 ? forward_avx512_rcp : isa == BG_ISA_AVX2 ? forward_avx2_rcp : forward_sse2_rcp;
}

/* FIBSBOT_KERNEL=generic|sse2|avx2 forces a kernel (tests, benchmarks). */
bg_forward_fn bg_forward_select(void)
{
    const char *force = getenv("FIBSBOT_KERNEL");
    if (force && strcmp(force, "generic") == 0)
        return bg_forward_generic;
    if (force && strcmp(force, "sse2") == 0)
        return forward_sse2;
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2");
    if (force && strcmp(force, "avx2") == 0 && avx2)
        return forward_avx2;
    if (__builtin_cpu_supports("avx512f") && avx2)
        return forward_avx512;
    if (avx2)
        return forward_avx2;
    return forward_sse2;
}

#else

void bg_forward_finish(bg_forward_fn f, const bg_net *net, float *h, float *out)
{
    (void)f;
    finish_generic(net, h, out);
}

bg_forward_fn bg_forward_select(void) { return bg_forward_generic; }

/* no approximate reciprocal off x86: the division's values */
bg_forward_fn bg_forward_rcp(bg_forward_fn f) { return f; }

int bg_forward_isa(bg_forward_fn f)
{
    (void)f;
    return BG_ISA_GENERIC;
}

const char *bg_forward_name(bg_forward_fn f)
{
    (void)f;
    return "generic";
}

#endif

void bg_forward_pair(bg_forward_fn f, const bg_net *net, const int *idx1, const float *val1,
                     int m1, float *out1, const int *idx2, const float *val2, int m2, float *out2)
{
#ifdef BG_X86
    if ((f == forward_avx512 || f == forward_avx512_rcp) && net->n_hidden == 128 && net->n_out == 5) {
        pair128_avx512(net, idx1, val1, m1, out1, idx2, val2, m2, out2, f == forward_avx512_rcp);
        return;
    }
#endif
    f(net, idx1, val1, m1, out1);
    f(net, idx2, val2, m2, out2);
}

/* ---- small nets, many boards -------------------------------------------- */

#ifdef BG_X86
/* -beta_output times the output sums of the 5-output net (n_hidden 8 or 16)
 * whose hidden sums are h: the hidden sigmoid and output layer of
 * finish_avx512, with the hidden values kept in a register. Lanes 0..4. */
__attribute__((target("avx512f"), always_inline)) static inline __m512
small_output_z_avx512(const bg_net *net, const float *h, const int nh, const int gnubg107)
{
    __m512 z = _mm512_mul_ps(_mm512_set1_ps(-net->beta_hidden), _mm512_maskz_loadu_ps(nh >= 16 ? 0xffff : 0xff, h));
    __m512 hs = gnubg107 ? sigmoid_rcp_avx512(z) : sigmoid_avx512(z);
    __m512 acc = _mm512_setzero_ps();
    __m128 acc4 = _mm_setzero_ps();
#pragma GCC unroll 4
    for (int t = 0; t < nh / 4; t++) {
        __m512 hb = t == 0   ? _mm512_shuffle_f32x4(hs, hs, 0x00)
                    : t == 1 ? _mm512_shuffle_f32x4(hs, hs, 0x55)
                    : t == 2 ? _mm512_shuffle_f32x4(hs, hs, 0xaa)
                             : _mm512_shuffle_f32x4(hs, hs, 0xff);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(hb, _mm512_load_ps(net->w_out_q + 16 * t)));
        acc4 = _mm_add_ps(acc4, _mm_mul_ps(_mm512_castps512_ps128(hb),
                                           _mm_load_ps(net->w_out_q4 + 4 * t)));
    }
    return output_z_avx512(net, acc, acc4, gnubg107);
}

/* Three boards' output sigmoids in one vector: board j's 5 lanes at 5j (the
 * sigmoid works lane by lane, so each value is the one-board value). */
__attribute__((target("avx512f"), always_inline)) static inline void
small_finish_many_avx512(const bg_net *net, float (*h)[BG_NET_MAX_HIDDEN], int k, float (*out)[5],
                         const int nh, const int gnubg107)
{
    const __m512i back5 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0);
    const __m512i back10 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0);
    for (int j = 0; j < k; j += 3) {
        __m512 z = small_output_z_avx512(net, h[j], nh, gnubg107);
        if (j + 1 < k)
            z = _mm512_mask_permutexvar_ps(z, 0x3e0, back5, small_output_z_avx512(net, h[j + 1], nh, gnubg107));
        if (j + 2 < k)
            z = _mm512_mask_permutexvar_ps(z, 0x7c00, back10, small_output_z_avx512(net, h[j + 2], nh, gnubg107));
        int nb = k - j < 3 ? k - j : 3;
        _mm512_mask_storeu_ps(&out[j][0], (__mmask16)((1u << (5 * nb)) - 1), sigmoid_avx512(z));
    }
}

/* The finish for a known width (the compiler unrolls its output layer). */
__attribute__((target("avx512f"))) static void small_finish_many_16(const bg_net *net,
                                                                   float (*h)[BG_NET_MAX_HIDDEN],
                                                                   int k, float (*out)[5])
{
    small_finish_many_avx512(net, h, k, out, 16, 0);
}

__attribute__((target("avx512f"))) static void small_finish_many_16_rcp(const bg_net *net,
                                                                       float (*h)[BG_NET_MAX_HIDDEN],
                                                                       int k, float (*out)[5])
{
    small_finish_many_avx512(net, h, k, out, 16, 1);
}

__attribute__((target("avx512f"))) static void small_finish_many_8(const bg_net *net,
                                                                  float (*h)[BG_NET_MAX_HIDDEN],
                                                                  int k, float (*out)[5])
{
    small_finish_many_avx512(net, h, k, out, 8, 0);
}

__attribute__((target("avx512f"))) static void small_finish_many_8_rcp(const bg_net *net,
                                                                      float (*h)[BG_NET_MAX_HIDDEN],
                                                                      int k, float (*out)[5])
{
    small_finish_many_avx512(net, h, k, out, 8, 1);
}
#endif

void bg_forward_finish_many(bg_forward_fn f, const bg_net *net, float (*h)[BG_NET_MAX_HIDDEN],
                            int k, float (*out)[5])
{
#ifdef BG_X86
    if (f == forward_avx512 && net->n_out == 5 && net->n_hidden == 16) {
        small_finish_many_16(net, h, k, out);
        return;
    }
    if (f == forward_avx512 && net->n_out == 5 && net->n_hidden == 8) {
        small_finish_many_8(net, h, k, out);
        return;
    }
    if (f == forward_avx512_rcp && net->n_out == 5 && net->n_hidden == 16) {
        small_finish_many_16_rcp(net, h, k, out);
        return;
    }
    if (f == forward_avx512_rcp && net->n_out == 5 && net->n_hidden == 8) {
        small_finish_many_8_rcp(net, h, k, out);
        return;
    }
#endif
    for (int j = 0; j < k; j++)
        bg_forward_finish(f, net, h[j], out[j]);
}
