/* gnubg's rollout dice. SFMT-19937
 * and MT19937 follow their published algorithms (Saito-Matsumoto's SFMT 1.5
 * parameters for exponent 19937; Matsumoto-Nishimura's 2002 MT19937 seeding). */
#include <stdint.h>
#include <string.h>

#include "dice.h"

/* ---- SFMT-19937 ------------------------------------------------------------ */

enum { SFMT_N = 156, SFMT_N32 = 624, SFMT_POS1 = 122, SFMT_SL1 = 18, SFMT_SL2 = 1,
       SFMT_SR1 = 11, SFMT_SR2 = 1 };
static const uint32_t SFMT_MSK[4] = {0xdfffffefu, 0xddfecb7fu, 0xbffaffffu, 0xbffffff6u};
static const uint32_t SFMT_PARITY[4] = {0x00000001u, 0x00000000u, 0x00000000u, 0x13c9e684u};

/* 128-bit shifts by whole bytes of a little-endian word quadruple. */
static void shift128(const uint32_t *in, int bytes, int left, uint32_t *out)
{
    uint64_t hi = (uint64_t)in[3] << 32 | in[2], lo = (uint64_t)in[1] << 32 | in[0];
    uint64_t oh, ol;
    int s = bytes * 8;
    if (left) {
        oh = hi << s | lo >> (64 - s);
        ol = lo << s;
    } else {
        ol = lo >> s | hi << (64 - s);
        oh = hi >> s;
    }
    out[0] = (uint32_t)ol;
    out[1] = (uint32_t)(ol >> 32);
    out[2] = (uint32_t)oh;
    out[3] = (uint32_t)(oh >> 32);
}

static void sfmt_recursion(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                           const uint32_t *d)
{
    uint32_t x[4], y[4];
    shift128(a, SFMT_SL2, 1, x);
    shift128(c, SFMT_SR2, 0, y);
    for (int k = 0; k < 4; k++)
        r[k] = a[k] ^ x[k] ^ ((b[k] >> SFMT_SR1) & SFMT_MSK[k]) ^ y[k] ^ (d[k] << SFMT_SL1);
}

static void sfmt_refill(uint32_t *s)
{
    uint32_t *r1 = s + 4 * (SFMT_N - 2), *r2 = s + 4 * (SFMT_N - 1);
    for (int i = 0; i < SFMT_N; i++) {
        int j = i < SFMT_N - SFMT_POS1 ? i + SFMT_POS1 : i + SFMT_POS1 - SFMT_N;
        sfmt_recursion(s + 4 * i, s + 4 * i, s + 4 * j, r1, r2);
        r1 = r2;
        r2 = s + 4 * i;
    }
}

static void sfmt_seed(uint32_t *s, uint32_t seed)
{
    s[0] = seed;
    for (uint32_t i = 1; i < SFMT_N32; i++)
        s[i] = 1812433253u * (s[i - 1] ^ (s[i - 1] >> 30)) + i;
    /* period certification: fix one bit if the parity check fails */
    uint32_t inner = 0;
    for (int i = 0; i < 4; i++)
        inner ^= s[i] & SFMT_PARITY[i];
    for (int i = 16; i > 0; i >>= 1)
        inner ^= inner >> i;
    if (inner & 1)
        return;
    for (int i = 0; i < 4; i++)
        for (uint32_t work = 1; work; work <<= 1)
            if (work & SFMT_PARITY[i]) {
                s[i] ^= work;
                return;
            }
}

/* ---- MT19937 ----------------------------------------------------------------- */

enum { MT_N = 624, MT_M = 397 };

static void mt_seed(uint32_t *s, uint32_t seed)
{
    s[0] = seed;
    for (uint32_t i = 1; i < MT_N; i++)
        s[i] = 1812433253u * (s[i - 1] ^ (s[i - 1] >> 30)) + i;
}

static void mt_refill(uint32_t *s)
{
    for (int i = 0; i < MT_N; i++) {
        uint32_t y = (s[i] & 0x80000000u) | (s[(i + 1) % MT_N] & 0x7fffffffu);
        s[i] = s[(i + MT_M) % MT_N] ^ (y >> 1) ^ (y & 1u ? 0x9908b0dfu : 0u);
    }
}

static uint32_t mt_temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* ---- the trial generator -------------------------------------------------------- */

void bg_dice_rng_seed(bg_dice_rng *r, int kind, unsigned int seed)
{
    r->kind = kind;
    r->idx = 624;
    if (kind == BG_DICE_MT19937)
        mt_seed(r->state, seed);
    else
        sfmt_seed(r->state, seed);
}

unsigned int bg_dice_rng_next(bg_dice_rng *r)
{
    if (r->idx >= 624) {
        if (r->kind == BG_DICE_MT19937)
            mt_refill(r->state);
        else
            sfmt_refill(r->state);
        r->idx = 0;
    }
    uint32_t v = r->state[r->idx++];
    return r->kind == BG_DICE_MT19937 ? mt_temper(v) : v;
}

/* A die from the generator: reject the top 4 values of 2^32 (as gnubg). */
static int draw_die(bg_dice_rng *r)
{
    uint32_t v;
    do
        v = bg_dice_rng_next(r);
    while (v >= 4294967292u);
    return 1 + (int)(v / 715827882u);
}

/* ---- quasi-random dice ---------------------------------------------------------- */

void bg_dice_tables_build(bg_dice_tables *t, unsigned int seed)
{
    bg_isaac rng;
    bg_isaac_seed(&rng, seed);
    memset(t, 0, sizeof *t);
    for (int g = 0; g < BG_DICE_GENERATIONS; g++)
        for (int ply = g; ply < BG_DICE_QRLEN; ply++) {
            unsigned char *p = t->perm[g][ply];
            for (int k = 0; k < 36; k++)
                p[k] = (unsigned char)k;
            for (int k = 0; k < 35; k++) {
                int j = k + (int)(bg_isaac_next(&rng) % (unsigned int)(36 - k));
                unsigned char x = p[k];
                p[k] = p[j];
                p[j] = x;
            }
        }
}

void bg_dice_roll(const bg_dice_tables *quasi, bg_dice_rng *r, int initial, unsigned long trial,
                  int ply, int d[2])
{
    int a, b;
    if (quasi && !initial && ply < BG_DICE_QRLEN) {
        /* generation g rotates by trial / 36^g: every aligned block of 36^(g+1)
         * trials sees each sequence of g+1 rolls once */
        unsigned int j = 0;
        unsigned long block = trial;
        int top = ply < BG_DICE_GENERATIONS - 1 ? ply : BG_DICE_GENERATIONS - 1;
        for (int g = 0; g <= top; g++, block /= 36)
            j = quasi->perm[g][ply][(block % 36 + j) % 36];
        a = (int)(j / 6) + 1;
        b = (int)(j % 6) + 1;
    } else {
        do {
            a = draw_die(r);
            b = draw_die(r);
        } while (initial && ply == 0 && a == b);
    }
    d[0] = a > b ? a : b;
    d[1] = a > b ? b : a;
}
