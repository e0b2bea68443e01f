/* Evaluation noise of gnubg's weaker levels.
 *
 * Deterministic noise: the 50 board bytes (opponent, side on roll,
 * interleaved per point; output index added to byte 0) are hashed with MD5 and
 * the 16 digest bytes summed. gnubg sums them as plain `char`, signed on x86,
 * which biases the deviate to a mean of about -6.93; `centred` sums them
 * unsigned (mean 0, as on platforms with unsigned char and in the `gnubg`
 * PyPI build). z = (sum - 2040) / 295.6.
 *
 * Random noise: ISAAC with RANDSIZL 4 (16 words), Marsaglia's polar method,
 * one deviate per output. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "eval.h"
#include "noise.h"

/* ---- MD5 ------------------------------------------------------------------ */

static const uint32_t MD5_K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
static const unsigned char MD5_S[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                        5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static void md5_block(uint32_t h[4], const unsigned char *blk)
{
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] | (uint32_t)blk[4 * i + 1] << 8 |
               (uint32_t)blk[4 * i + 2] << 16 | (uint32_t)blk[4 * i + 3] << 24;
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) & 15;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) & 15;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) & 15;
        }
        uint32_t t = a + f + MD5_K[i] + w[g];
        a = d;
        d = c;
        c = b;
        b = b + (t << MD5_S[i] | t >> (32 - MD5_S[i]));
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

void bg_md5(const unsigned char *data, unsigned long len, unsigned char digest[16])
{
    uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    unsigned long i = 0;
    for (; i + 64 <= len; i += 64)
        md5_block(h, data + i);
    unsigned char tail[128];
    unsigned long rest = len - i;
    memset(tail, 0, sizeof tail);
    memcpy(tail, data + i, rest);
    tail[rest] = 0x80;
    unsigned long n = rest + 1 + 8 <= 64 ? 64UL : 128UL;
    uint64_t bits = (uint64_t)len * 8;
    for (int k = 0; k < 8; k++)
        tail[n - 8 + k] = (unsigned char)(bits >> (8 * k));
    md5_block(h, tail);
    if (n == 128)
        md5_block(h, tail + 64);
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 4; j++)
            digest[4 * k + j] = (unsigned char)(h[k] >> (8 * j));
}

/* ---- ISAAC (Bob Jenkins' public-domain generator) ------------------------------ */

#define MIX(a, b, c, d, e, f, g, h)                                                               \
    do {                                                                                           \
        a ^= b << 11; d += a; b += c;                                                              \
        b ^= c >> 2;  e += b; c += d;                                                              \
        c ^= d << 8;  f += c; d += e;                                                              \
        d ^= e >> 16; g += d; e += f;                                                              \
        e ^= f << 10; h += e; f += g;                                                              \
        f ^= g >> 4;  a += f; g += h;                                                              \
        g ^= h << 8;  b += g; h += a;                                                              \
        h ^= a >> 9;  c += h; a += b;                                                              \
    } while (0)

/* One round over a state of 2^sizl words. */
static void isaac_round(uint32_t *mm, uint32_t *rsl, uint32_t *pa, uint32_t *pb, uint32_t *pc,
                        int sizl)
{
    uint32_t size = 1u << sizl, mask = size - 1;
    uint32_t a = *pa, b = *pb + (++*pc);
    for (uint32_t i = 0; i < size; i++) {
        uint32_t x = mm[i];
        switch (i & 3) {
        case 0: a ^= a << 13; break;
        case 1: a ^= a >> 6; break;
        case 2: a ^= a << 2; break;
        default: a ^= a >> 16; break;
        }
        a += mm[(i + size / 2) & mask];
        uint32_t y = mm[(x >> 2) & mask] + a + b;
        mm[i] = y;
        b = mm[(y >> sizl >> 2) & mask] + x;
        rsl[i] = b;
    }
    *pa = a;
    *pb = b;
}

static void isaac_init(uint32_t *mm, uint32_t *rsl, uint32_t *pa, uint32_t *pb, uint32_t *pc,
                       int sizl)
{
    uint32_t size = 1u << sizl;
    uint32_t a, b, c, d, e, f, g, h;
    a = b = c = d = e = f = g = h = 0x9e3779b9u;
    *pa = *pb = *pc = 0;
    for (int i = 0; i < 4; i++)
        MIX(a, b, c, d, e, f, g, h);
    for (int pass = 0; pass < 2; pass++) {
        const uint32_t *src = pass ? mm : rsl;
        for (uint32_t i = 0; i < size; i += 8) {
            a += src[i]; b += src[i + 1]; c += src[i + 2]; d += src[i + 3];
            e += src[i + 4]; f += src[i + 5]; g += src[i + 6]; h += src[i + 7];
            MIX(a, b, c, d, e, f, g, h);
            mm[i] = a; mm[i + 1] = b; mm[i + 2] = c; mm[i + 3] = d;
            mm[i + 4] = e; mm[i + 5] = f; mm[i + 6] = g; mm[i + 7] = h;
        }
    }
    isaac_round(mm, rsl, pa, pb, pc, sizl);
}

void bg_isaac_seed(bg_isaac *r, unsigned int seed)
{
    for (int i = 0; i < 16; i++)
        r->rsl[i] = seed;
    isaac_init(r->mem, r->rsl, &r->a, &r->b, &r->c, 4);
    r->cnt = 16;
}

unsigned int bg_isaac_next(bg_isaac *r)
{
    if (r->cnt == 0) {
        isaac_round(r->mem, r->rsl, &r->a, &r->b, &r->c, 4);
        r->cnt = 16;
    }
    return r->rsl[--r->cnt];
}

void bg_isaac_selftest(unsigned int *out, int n)
{
    /* Jenkins' reference run: 256 words, zero seed, results of the 2nd round */
    uint32_t mm[256], rsl[256], a, b, c;
    memset(rsl, 0, sizeof rsl);
    isaac_init(mm, rsl, &a, &b, &c, 8);
    isaac_round(mm, rsl, &a, &b, &c, 8);
    for (int i = 0; i < n && i < 256; i++)
        out[i] = rsl[i];
}

/* ---- deviates ------------------------------------------------------------------- */

float bg_noise_deviate(const unsigned int *board, int output, int deterministic, int centred,
                       bg_isaac *rng)
{
    if (deterministic) {
        unsigned char buf[50], dig[16];
        for (int i = 0; i < 25; i++) {
            buf[2 * i] = (unsigned char)board[i];
            buf[2 * i + 1] = (unsigned char)board[25 + i];
        }
        buf[0] = (unsigned char)(buf[0] + output);
        bg_md5(buf, 50, dig);
        float r = 0.0f;
        for (int i = 0; i < 16; i++)
            r += centred ? (float)dig[i] : (float)(signed char)dig[i];
        r -= 2040.0f;
        return r / 295.6f;
    }
    float x, y, s;
    do {
        x = (float)bg_isaac_next(rng) * 2.0f / (float)0xFFFFFFFFu - 1.0f;
        y = (float)bg_isaac_next(rng) * 2.0f / (float)0xFFFFFFFFu - 1.0f;
        s = x * x + y * y;
    } while (s > 1.0f || s == 0.0f);
    return y * sqrtf(-2.0f * logf(s) / s);
}

static const float NOISE_SCALE[5] = {1.0f, 0.25f, 0.01f, 0.25f, 0.01f};

void bg_noise_add(const bg_board b, float noise, int deterministic, int centred, bg_isaac *rng,
                  float out[5])
{
    for (int i = 0; i < 5; i++) {
        float z = bg_noise_deviate(&b[0][0], i, deterministic, centred, rng);
        out[i] += z * noise * NOISE_SCALE[i];
        out[i] = out[i] < 0.0f ? 0.0f : out[i] > 1.0f ? 1.0f : out[i];
    }
}

int bg_noise_apply(const bg_engine *engine, const unsigned int *board, int pos_class, int cubeful,
                   float noise, int deterministic, int centred, bg_isaac *rng, float *out)
{
    if (noise <= 0.0f || pos_class == BG_CLASS_OVER)
        return 0;
    if (cubeful && pos_class <= BG_CLASS_BEAROFF_TS)
        return 0; /* exact databases bypass the net branch in gnubg's cubeful evaluator */
    if (!deterministic && !rng)
        return -1;
    bg_board b;
    memcpy(b, board, sizeof b);
    bg_noise_add((const unsigned int(*)[25])b, noise, deterministic, centred, rng, out);
    if (engine)
        bg_sanity_check(&engine->os, (const unsigned int(*)[25])b, out);
    return 1;
}
