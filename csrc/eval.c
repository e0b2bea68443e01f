/* 0-ply evaluation: classification, class evaluators, race-backgammon
 * override, sanity check, the engine context and a lock-free cache. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#include <sys/mman.h>
#endif

#include "eval.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"
#include "datafile.h"
#include "position.h"
#include "racebg.h"
#include "weights.h"

/* ---- classification (gnubg's position classes) ------------------------ */

/* The highest occupied index (24 = bar) of a side or its bitmap, -1 for none. */
static int highest_of(uint32_t occ) { return occ ? 31 - __builtin_clz(occ) : -1; }

static int highest(const unsigned int *s) { return highest_of(bg_occupied(s)); }

static unsigned int total(const unsigned int *s)
{
#if defined(__SSE2__)
    const __m128i *p = (const __m128i *)s;
    __m128i t = _mm_add_epi32(_mm_add_epi32(_mm_loadu_si128(p), _mm_loadu_si128(p + 1)),
                              _mm_add_epi32(_mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3)));
    t = _mm_add_epi32(t, _mm_add_epi32(_mm_loadu_si128(p + 4), _mm_loadu_si128(p + 5)));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
    return (unsigned int)_mm_cvtsi128_si32(t) + s[24];
#else
    unsigned int t = 0;
    for (int i = 0; i < 25; i++)
        t += s[i];
    return t;
#endif
}

/* Whether a side with tot chequers (s: its points) counts as crashed. */
static int side_crashed(int tot, const unsigned int *s)
{
    int b0 = (int)s[0], b1 = (int)s[1];
    if (tot <= 6)
        return 1;
    if (b0 > 1)
        return tot <= 6 + b0 || (b1 > 1 && 1 + tot - (b0 + b1) <= 6);
    return tot + 1 - b1 <= 6;
}

/* A side's highest occupied index and chequer total. */
static inline void scan_side(const unsigned int *s, int *back, int *tot)
{
#if defined(__SSE2__)
    /* the points packed to bytes once (boards hold at most 15 chequers a
     * side, board_load): their bitmap and their total */
    __m128i lo, hi;
    bg_pack_points(s, &lo, &hi);
    *back = highest_of(bg_occupied_packed(s, lo, hi));
    const __m128i zero = _mm_setzero_si128();
    __m128i t = _mm_add_epi64(_mm_sad_epu8(lo, zero), _mm_sad_epu8(hi, zero));
    *tot = _mm_cvtsi128_si32(_mm_add_epi64(t, _mm_unpackhi_epi64(t, t))) + (int)s[BG_BAR];
#else
    *back = highest(s);
    *tot = (int)total(s);
#endif
}

/* The class of b from its scan. */
static inline int classify_scanned(const bg_board b, const bg_board_scan *scan)
{
    const int *back = scan->back, *tot = scan->total;
    if (back[1] < 0 || back[0] < 0)
        return BG_CLASS_OVER;
    if (back[0] + back[1] > 22)
        return side_crashed(tot[0], b[0]) || side_crashed(tot[1], b[1]) ? BG_CLASS_CRASHED
                                                                        : BG_CLASS_CONTACT;
    if (back[0] < 6 && back[1] < 6)
        return tot[0] <= 6 && tot[1] <= 6 ? BG_CLASS_BEAROFF2 : BG_CLASS_BEAROFF1;
    return BG_CLASS_RACE;
}

int bg_classify_scan(const bg_board b, bg_board_scan *scan)
{
    for (int j = 0; j < 2; j++)
        scan_side(b[j], &scan->back[j], &scan->total[j]);
    return classify_scanned(b, scan);
}

int bg_classify_result(const bg_board b, const bg_board_scan *before, bg_board_scan *scan)
{
    /* side 1 is before's side 0 less the chequers hit: the same total, and
     * its highest point unless one went to the bar */
    scan_side(b[0], &scan->back[0], &scan->total[0]);
    scan->total[1] = before->total[0];
    scan->back[1] = b[1][BG_BAR] ? BG_BAR : before->back[0];
    return classify_scanned(b, scan);
}

int bg_classify_board(const bg_board b)
{
    bg_board_scan scan;
    return bg_classify_scan(b, &scan);
}

/* ---- OVER (a game already over) ---------------------------------------- */

static int any_far(const unsigned int *s)
{
    for (int i = 18; i < 25; i++)
        if (s[i])
            return 1;
    return 0;
}

static void eval_over(const bg_board b, float out[5])
{
    memset(out, 0, 5 * sizeof(float));
    if (highest(b[0]) < 0) {
        if (total(b[1]) == 15) {
            out[3] = 1.0f;
            if (any_far(b[1]))
                out[4] = 1.0f;
        }
    } else {
        out[0] = 1.0f;
        if (total(b[0]) == 15) {
            out[1] = 1.0f;
            if (any_far(b[0]))
                out[2] = 1.0f;
        }
    }
}

/* ---- sanity check (gnubg's limits on the net outputs) ------------------ */

/* Sum over a side's chequers of their quarter (points 1-6 = 1, ..., 19-24 =
 * 4, the bar 5): on the points 1 each, plus 1 from point 7, 13 and 19 up. */
static int crossovers(const unsigned int *s)
{
#if defined(__SSE2__)
    const __m128i *p = (const __m128i *)s;
    __m128i v[6];
    for (int i = 0; i < 6; i++)
        v[i] = _mm_loadu_si128(p + i); /* points 4i+1 .. 4i+4 */
    const __m128i last2 = _mm_set_epi32(-1, -1, 0, 0);
    __m128i from13 = _mm_add_epi32(v[3], _mm_add_epi32(v[4], v[5]));
    __m128i from19 = _mm_add_epi32(_mm_and_si128(v[4], last2), v[5]);
    __m128i from7 = _mm_add_epi32(_mm_add_epi32(_mm_and_si128(v[1], last2), v[2]), from13);
    __m128i all = _mm_add_epi32(_mm_add_epi32(v[0], v[1]), _mm_add_epi32(v[2], from13));
    __m128i t = _mm_add_epi32(_mm_add_epi32(all, from7), _mm_add_epi32(from13, from19));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
    return _mm_cvtsi128_si32(t) + 5 * (int)s[24];
#else
    int c = 5 * (int)s[24];
    for (int i = 0; i < 24; i++)
        c += (i / 6 + 1) * (int)s[i];
    return c;
#endif
}

/* The sanity check given each side's chequer count ac and highest point. */
static void sanity_check_known(const bg_bearoff_os *os, const bg_board b, const int ac[2],
                               const int back[2], float out[5])
{
    int cross[2] = {0, 0}, gcross[2] = {0, 0}, maxt[2] = {0, 0};
    /* the crossovers and bearoff lengths matter only without contact */
    int contact = back[0] + back[1] >= 24;
    if (!contact) {
        for (int j = 0; j < 2; j++) {
            /* gcross weighs each chequer one less: 1 + cross - chequers */
            cross[j] = crossovers(b[j]);
            gcross[j] = 1 + cross[j] - ac[j];
        }
        for (int j = 0; j < 2; j++) {
            maxt[j] = back[j] < 6 ? bg_bearoff_os_max_rolls(os, bg_bearoff_index(b[j], 6, 15))
                                  : 2 * cross[j];
        }
        if (maxt[1] == 0)
            maxt[1] = 1;
    }
    float win = out[0], wg = out[1], wbg = out[2], lg = out[3], lbg = out[4];
    if (!contact && cross[0] > 4 * (maxt[1] - 1))
        win = 1.0f;
    if (ac[0] < 15) {
        wg = wbg = 0.0f;
    } else if (!contact) {
        if (cross[1] > 8 * gcross[0])
            wg = 0.0f;
        else if (gcross[0] > 4 * (maxt[1] - 1))
            wg = 1.0f;
        if (back[0] < 18)
            wbg = 0.0f;
    }
    if (!contact && cross[1] > 4 * maxt[0])
        win = 0.0f;
    if (ac[1] < 15) {
        lg = lbg = 0.0f;
    } else if (!contact) {
        if (cross[0] > 8 * gcross[1] - 4)
            lg = 0.0f;
        else if (gcross[1] > 4 * maxt[0])
            lg = 1.0f;
        if (back[1] < 18)
            lbg = 0.0f;
    }
    if (wg > win)
        wg = win;
    if (lg > 1.0f - win)
        lg = 1.0f - win;
    if (wbg > wg)
        wbg = wg;
    if (lbg > lg)
        lbg = lg;
    out[0] = win;
    out[1] = wg;
    out[2] = wbg;
    out[3] = lg;
    out[4] = lbg;
    if (contact) {
        for (int i = 1; i < 5; i++)
            if (out[i] < 1e-4f)
                out[i] = 0.0f;
    }
}

void bg_sanity_check(const bg_bearoff_os *os, const bg_board b, float out[5])
{
    bg_board_scan scan;
    for (int j = 0; j < 2; j++)
        scan_side(b[j], &scan.back[j], &scan.total[j]);
    sanity_check_known(os, b, scan.total, scan.back, out);
}

void bg_sanity_check_scan(const bg_bearoff_os *os, const bg_board b, const bg_board_scan *scan,
                          float out[5])
{
    sanity_check_known(os, b, scan->total, scan->back, out);
}

/* ---- 0-ply ------------------------------------------------------------- */

/* The sanity check of a contact or crashed board, from its inputs' scan. */
static void sanity_check_scanned(const struct bg_engine *e, const bg_board b,
                                 const bg_side_scan scan[2], float out[5])
{
    int ac[2] = {scan[0].total, scan[1].total};
    int back[2] = {highest_of(scan[0].occ), highest_of(scan[1].occ)};
    sanity_check_known(&e->os, b, ac, back, out);
}

/* eval_known (with the sanity check) of two boards of class c, contact or
 * crashed, through one bg_forward_pair. */
static void eval_net_pair(const struct bg_engine *e, const bg_board b1, const bg_board b2, int c,
                          float out1[5], float out2[5])
{
    int crashed = c == BG_CLASS_CRASHED;
    bg_sparse in1, in2;
    bg_side_scan scan1[2], scan2[2];
    bg_sparse_contact(&e->esc, b1, crashed, &in1, scan1);
    bg_sparse_contact(&e->esc, b2, crashed, &in2, scan2);
    bg_forward_pair(e->forward, &e->nets.net[crashed ? BG_NET_CRASHED : BG_NET_CONTACT], in1.idx,
                    in1.val, in1.n, out1, in2.idx, in2.val, in2.n, out2);
    sanity_check_scanned(e, b1, scan1, out1);
    sanity_check_scanned(e, b2, scan2, out2);
}

/* The class evaluation; the sanity check (net classes only) if sanity. */
static int eval_known(const struct bg_engine *e, const bg_board b, int c, float out[5], int sanity)
{
    bg_sparse in;
    switch (c) {
    case BG_CLASS_OVER:
        eval_over(b, out);
        return c;
    case BG_CLASS_BEAROFF2:
        bg_bearoff_ts_eval(&e->ts, b, out);
        return c;
    case BG_CLASS_BEAROFF1:
        bg_bearoff_os_eval(&e->os, b, out);
        return c;
    case BG_CLASS_RACE:
        bg_sparse_race(b, &in);
        e->forward(&e->nets.net[BG_NET_RACE], in.idx, in.val, in.n, out);
        bg_race_bg_override(&e->os, &e->ts, b, out);
        break;
    default: {
        /* the sanity check reuses the inputs' counts and bitmaps */
        int crashed = c == BG_CLASS_CRASHED;
        bg_side_scan scan[2];
        bg_sparse_contact(&e->esc, b, crashed, &in, scan);
        e->forward(&e->nets.net[crashed ? BG_NET_CRASHED : BG_NET_CONTACT], in.idx, in.val, in.n,
                   out);
        if (sanity)
            sanity_check_scanned(e, b, scan, out);
        return c;
    }
    }
    if (sanity)
        bg_sanity_check(&e->os, b, out);
    return c;
}

int bg_eval0(const struct bg_engine *e, const bg_board b, float out[5])
{
    return eval_known(e, b, bg_classify_board(b), out, 1);
}

int bg_eval0_raw(const struct bg_engine *e, const bg_board b, float out[5])
{
    return eval_known(e, b, bg_classify_board(b), out, 0);
}

/* ---- cache ------------------------------------------------------------- */

/* A position's key: its 50 chequer counts as nibbles (25 bytes; a side with
 * a point above 15 is not cached), class + 1 in the last byte once stored,
 * so an empty slot (all zero) never matches. */
#define KEY_WORDS 7

/* One slot: a sequence counter (odd while written) guarding the key and the
 * value. Readers retry never: a busy or torn slot is a miss. */
typedef struct {
    _Atomic uint32_t seq;
    _Atomic uint32_t w[KEY_WORDS + 5]; /* key, then 5 floats */
    uint32_t pad[3];
} cache_slot;

struct bg_cache {
    cache_slot *slots;
    uint32_t mask;
};

/* The slots, in 2 MiB pages where the kernel allows it: every probe lands
 * on a random slot, and with 4 KiB pages nearly each one also missed the
 * TLB (the prefetches stalled on page walks). */
static cache_slot *slots_alloc(size_t n)
{
    size_t bytes = n * sizeof(cache_slot), huge = (size_t)2 << 20;
    size_t align = bytes >= huge ? huge : 64; /* bytes: a power of two */
    cache_slot *p = aligned_alloc(align, bytes);
#ifdef MADV_HUGEPAGE
    if (p && align == huge)
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#endif
    return p;
}

bg_cache *bg_cache_new(unsigned int log2_entries)
{
    if (log2_entries > 26)
        log2_entries = 26;
    bg_cache *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    size_t n = (size_t)1 << log2_entries;
    c->slots = slots_alloc(n);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    c->mask = (uint32_t)(n - 1);
    for (size_t i = 0; i < n; i++) {
        atomic_init(&c->slots[i].seq, 0);
        for (int k = 0; k < KEY_WORDS + 5; k++)
            atomic_init(&c->slots[i].w[k], 0);
    }
    return c;
}

void bg_cache_free(bg_cache *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c);
}

void bg_cache_clear(bg_cache *c)
{
    for (size_t i = 0; i <= c->mask; i++) {
        cache_slot *s = &c->slots[i];
        uint32_t q = atomic_load_explicit(&s->seq, memory_order_relaxed);
        if (q & 1)
            continue;
        if (!atomic_compare_exchange_strong_explicit(&s->seq, &q, q + 1, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;
        atomic_thread_fence(memory_order_release);
        for (int k = 0; k < KEY_WORDS; k++)
            atomic_store_explicit(&s->w[k], 0, memory_order_relaxed);
        atomic_store_explicit(&s->seq, q + 2, memory_order_release);
    }
}

/* The key hash: 64-bit words of the key (the last one short) mixed in turn. */
static inline uint64_t hash_step(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
    return h ^ h >> 29;
}

static inline uint32_t hash_final(uint64_t h)
{
    h *= 0xff51afd7ed558ccdULL;
    return (uint32_t)(h ^ h >> 33);
}

/* The key of b and its hash; -1 if a point holds more than 15 chequers.
 * (Forced inline: it runs for every candidate of every node.) */
static inline __attribute__((always_inline)) int board_key(const bg_board b, uint32_t key[KEY_WORDS],
                                                           uint32_t *hash)
{
    const unsigned int *c = &b[0][0]; /* the 50 counts */
#if defined(__SSE2__)
    /* counts -> bytes, then byte pairs -> one byte lo | hi << 4; the hash
     * from the registers (reading the key back stalled on its stores) */
    const __m128i *p = (const __m128i *)c;
    __m128i any = _mm_cvtsi32_si128((int)(c[48] | c[49]));
    __m128i w[6];
    for (int k = 0; k < 6; k++) {
        __m128i a = _mm_loadu_si128(p + 2 * k), b2 = _mm_loadu_si128(p + 2 * k + 1);
        any = _mm_or_si128(any, _mm_or_si128(a, b2));
        w[k] = _mm_packs_epi32(a, b2);
    }
    any = _mm_or_si128(any, _mm_shuffle_epi32(any, _MM_SHUFFLE(1, 0, 3, 2)));
    any = _mm_or_si128(any, _mm_shuffle_epi32(any, _MM_SHUFFLE(2, 3, 0, 1)));
    if ((uint32_t)_mm_cvtsi128_si32(any) > 15)
        return -1;
    const __m128i low = _mm_set1_epi16(0xff), high = _mm_set1_epi16(0xf0);
    __m128i n[3];
    for (int k = 0; k < 3; k++) {
        __m128i x = _mm_packus_epi16(w[2 * k], w[2 * k + 1]); /* counts 16k..16k+15 */
        n[k] = _mm_or_si128(_mm_and_si128(x, low), _mm_and_si128(_mm_srli_epi16(x, 4), high));
    }
    __m128i k03 = _mm_packus_epi16(n[0], n[1]), k45 = _mm_packus_epi16(n[2], n[2]);
    uint32_t last = c[48] | c[49] << 4;
    _mm_storeu_si128((__m128i *)key, k03);
    _mm_storel_epi64((__m128i *)(key + 4), k45);
    key[6] = last;
    uint64_t h = hash_step(0, (uint64_t)_mm_cvtsi128_si64(k03));
    h = hash_step(h, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(k03, k03)));
    h = hash_step(h, (uint64_t)_mm_cvtsi128_si64(k45));
    *hash = hash_final(hash_step(h, last));
#else
    unsigned int any = 0;
    for (int i = 0; i < 50; i++)
        any |= c[i];
    if (any > 15)
        return -1;
    unsigned char nib[28] = {0};
    for (int i = 0; i < 50; i++)
        nib[i / 2] |= (unsigned char)(c[i] << (4 * (i & 1)));
    memcpy(key, nib, sizeof nib);
    uint64_t h = 0;
    for (int k = 0; k < KEY_WORDS; k += 2)
        h = hash_step(h, key[k] | (k + 1 < KEY_WORDS ? (uint64_t)key[k + 1] << 32 : 0));
    *hash = hash_final(h);
#endif
    return 0;
}

/* The cached outputs of key in s: the class, or -1 on a miss. The key is
 * compared word by word as it is loaded (unrolled: a copy, a loop and a
 * memcmp cost more than the twelve loads). */
static inline __attribute__((always_inline)) int slot_read(cache_slot *s, const uint32_t key[KEY_WORDS], float out[5])
{
    uint32_t q = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (q & 1)
        return -1;
    uint32_t diff = 0, v[5];
#pragma GCC unroll 8
    for (int k = 0; k < KEY_WORDS - 1; k++)
        diff |= atomic_load_explicit(&s->w[k], memory_order_relaxed) ^ key[k];
    uint32_t last = atomic_load_explicit(&s->w[KEY_WORDS - 1], memory_order_relaxed);
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++)
        v[k] = atomic_load_explicit(&s->w[KEY_WORDS + k], memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&s->seq, memory_order_relaxed) != q)
        return -1;
    int cls = (int)(last >> 24) - 1;
    diff |= (last & 0xffffffu) ^ key[KEY_WORDS - 1];
    if (cls < 0 || diff)
        return -1;
    memcpy(out, v, 5 * sizeof(float));
    return cls;
}

/* Stores unless another thread is writing the slot. */
static inline __attribute__((always_inline)) void slot_write(cache_slot *s, const uint32_t key[KEY_WORDS], int cls, const float out[5])
{
    uint32_t q = atomic_load_explicit(&s->seq, memory_order_relaxed);
    if ((q & 1) || !atomic_compare_exchange_strong_explicit(&s->seq, &q, q + 1, memory_order_acquire,
                                                            memory_order_relaxed))
        return;
    atomic_thread_fence(memory_order_release);
    uint32_t v[5];
    memcpy(v, out, 5 * sizeof(float));
#pragma GCC unroll 8
    for (int k = 0; k < KEY_WORDS - 1; k++)
        atomic_store_explicit(&s->w[k], key[k], memory_order_relaxed);
    atomic_store_explicit(&s->w[KEY_WORDS - 1], key[KEY_WORDS - 1] | (uint32_t)(cls + 1) << 24,
                          memory_order_relaxed);
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++)
        atomic_store_explicit(&s->w[KEY_WORDS + k], v[k], memory_order_relaxed);
    atomic_store_explicit(&s->seq, q + 2, memory_order_release);
}

int bg_eval0_cached(const struct bg_engine *e, struct bg_cache *cache, const bg_board b,
                    float out[5])
{
    int c;
    bg_eval0_cached_many(e, cache, (const bg_board *)b, NULL, 1, -1, (float(*)[5])out, &c);
    return c;
}

void bg_eval0_cached_many(const struct bg_engine *e, struct bg_cache *cache, const bg_board *b,
                          const int *pick, int k, int known_cls, float (*out)[5], int *cls)
{
    enum { AHEAD = 16 };
    for (int j0 = 0; j0 < k; j0 += AHEAD) {
        int n = k - j0 < AHEAD ? k - j0 : AHEAD;
        uint32_t key[AHEAD][KEY_WORDS];
        cache_slot *slot[AHEAD];
        const unsigned int(*board[AHEAD])[25];
        /* every slot is requested before the first is read: the misses overlap */
        for (int j = 0; j < n; j++) {
            board[j] = b[pick ? pick[j0 + j] : j0 + j];
            uint32_t h;
            slot[j] = cache && !board_key(board[j], key[j], &h) ? &cache->slots[h & cache->mask] : NULL;
            if (slot[j])
                __builtin_prefetch(slot[j]);
        }
        int miss[AHEAD], nm = 0;
        for (int j = 0; j < n; j++) {
            int c = slot[j] ? slot_read(slot[j], key[j], out[j0 + j]) : -1;
            if (c < 0) {
                c = known_cls >= 0 ? known_cls : bg_classify_board(board[j]);
                miss[nm++] = j;
            }
            cls[j0 + j] = c;
        }
        /* misses of the same net class go through the net in pairs */
        for (int i = 0; i < nm; i++) {
            int j = miss[i], c = cls[j0 + j];
            if (i + 1 < nm && cls[j0 + miss[i + 1]] == c &&
                (c == BG_CLASS_CONTACT || c == BG_CLASS_CRASHED)) {
                int j2 = miss[++i];
                eval_net_pair(e, board[j], board[j2], c, out[j0 + j], out[j0 + j2]);
                if (slot[j2])
                    slot_write(slot[j2], key[j2], c, out[j0 + j2]);
            } else {
                eval_known(e, board[j], c, out[j0 + j], 1);
            }
            if (slot[j])
                slot_write(slot[j], key[j], c, out[j0 + j]);
        }
    }
}

/* ---- engine ------------------------------------------------------------ */

#define BG_LOAD_VERIFY 1

bg_engine *bg_engine_load(const char *weights_path, const char *os_path, const char *ts_path,
                          int flags, char *err, int errlen)
{
    if (err && errlen > 0)
        err[0] = 0;
    struct bg_engine *e = calloc(1, sizeof *e);
    if (!e) {
        bg_file_error(err, errlen, weights_path, "out of memory");
        return NULL;
    }
    if (bg_netset_load(&e->nets, weights_path, err, errlen))
        goto fail;
    if ((flags & BG_LOAD_VERIFY) && e->nets.digest != BG_WEIGHTS_DIGEST_1_01 &&
        e->nets.digest != BG_WEIGHTS_DIGEST_1_00) {
        bg_file_error(err, errlen, weights_path,
                      "contents differ from gnubg's weights (1.01, or 1.00 of gnubg 1.07; digest "
                      "%016llx); the file is corrupt or not gnubg's",
                      (unsigned long long)e->nets.digest);
        goto fail;
    }
    if (bg_bearoff_os_load(&e->os, os_path, err, errlen))
        goto fail;
    if ((flags & BG_LOAD_VERIFY) && e->os.digest != BG_OS0_DIGEST) {
        bg_file_error(err, errlen, os_path,
                      "contents differ from gnubg's gnubg_os0.bd (digest %016llx); the file is "
                      "corrupt",
                      (unsigned long long)e->os.digest);
        goto fail;
    }
    if (bg_bearoff_ts_load(&e->ts, ts_path, err, errlen))
        goto fail;
    if ((flags & BG_LOAD_VERIFY) && e->ts.digest != BG_TS0_DIGEST) {
        bg_file_error(err, errlen, ts_path,
                      "contents differ from gnubg's gnubg_ts0.bd (digest %016llx); the file is "
                      "corrupt",
                      (unsigned long long)e->ts.digest);
        goto fail;
    }
    e->forward = bg_forward_select();
    bg_escape_tables_init(&e->esc, bg_forward_isa(e->forward) == BG_ISA_AVX512);
    e->esc.home_occupied = e->nets.digest == BG_WEIGHTS_DIGEST_1_00;
    if (e->esc.home_occupied) { /* gnubg 1.07's weights: its build's arithmetic too */
        e->forward = bg_forward_rcp(e->forward);
        e->os.sums107 = 1;
    }
    return e;
fail:
    bg_engine_free(e);
    return NULL;
}

void bg_engine_free(bg_engine *e)
{
    if (!e)
        return;
    bg_netset_free(&e->nets);
    bg_bearoff_os_free(&e->os);
    bg_bearoff_ts_free(&e->ts);
    free(e);
}

void bg_engine_digests(const bg_engine *e, unsigned long long *out3)
{
    out3[0] = e->nets.digest;
    out3[1] = e->os.digest;
    out3[2] = e->ts.digest;
}

const char *bg_engine_kernel(const bg_engine *e) { return bg_forward_name(e->forward); }

/* ---- boundary functions ------------------------------------------------ */

static int load_board8(const char *flat, bg_board b)
{
    const unsigned char *u = (const unsigned char *)flat;
    for (int s = 0; s < 2; s++) {
        unsigned int t = 0;
        for (int i = 0; i < 25; i++) {
            unsigned int n = u[25 * s + i];
            t += n;
            b[s][i] = n;
        }
        if (t > 15)
            return -1;
    }
    return 0;
}

int bg_classify(const unsigned int *board)
{
    bg_board b;
    if (board_load(board, b))
        return -1;
    return bg_classify_board((const unsigned int(*)[25])b);
}

int bg_classify_many(const unsigned int *boards, int n, int *classes)
{
    for (int i = 0; i < n; i++) {
        bg_board b;
        if (board_load(boards + 50 * (size_t)i, b))
            return -(i + 1);
        classes[i] = bg_classify_board((const unsigned int(*)[25])b);
    }
    return 0;
}

/* Board i of a batch into b; non-zero when it is invalid. */
typedef int (*board_loader)(const void *boards, size_t i, bg_board b);

static int load_flat(const void *boards, size_t i, bg_board b)
{
    return board_load((const unsigned int *)boards + 50 * i, b);
}

static int load_bytes(const void *boards, size_t i, bg_board b)
{
    return load_board8((const char *)boards + 50 * i, b);
}

/* Evaluates a batch through bg_eval0_cached_many, a block at a time, so
 * that the cache slots of a block are fetched together (one board at a
 * time, each slot's miss stalled the evaluation). Stops at the first
 * invalid board i (returns -(i + 1)), the boards before it evaluated. */
static int evaluate_batch(const bg_engine *e, bg_cache *cache, const void *boards,
                          board_loader load, int n, float *out, int *classes)
{
    enum { BLOCK = 16 };
    for (int i0 = 0; i0 < n; i0 += BLOCK) {
        bg_board b[BLOCK];
        int cls[BLOCK];
        int lim = n - i0 < BLOCK ? n - i0 : BLOCK, k = 0;
        while (k < lim && !load(boards, (size_t)(i0 + k), b[k]))
            k++;
        bg_eval0_cached_many(e, cache, (const bg_board *)b, NULL, k, -1,
                             (float(*)[5])(out + 5 * (size_t)i0), cls);
        if (classes)
            memcpy(classes + i0, cls, (size_t)k * sizeof(int));
        if (k < lim)
            return -(i0 + k + 1);
    }
    return 0;
}

int bg_evaluate_many(const bg_engine *e, bg_cache *cache, const unsigned int *boards, int n,
                     float *out, int *classes)
{
    return evaluate_batch(e, cache, boards, load_flat, n, out, classes);
}

int bg_evaluate_raw_many(const bg_engine *e, const unsigned int *boards, int n, float *out,
                         int *classes)
{
    for (int i = 0; i < n; i++) {
        bg_board b;
        if (board_load(boards + 50 * (size_t)i, b))
            return -(i + 1);
        int c = bg_eval0_raw(e, (const unsigned int(*)[25])b, out + 5 * (size_t)i);
        if (classes)
            classes[i] = c;
    }
    return 0;
}

int bg_evaluate_many8(const bg_engine *e, bg_cache *cache, const char *boards, int n, float *out,
                      int *classes)
{
    return evaluate_batch(e, cache, boards, load_bytes, n, out, classes);
}

int bg_classify_many8(const char *boards, int n, int *classes)
{
    for (int i = 0; i < n; i++) {
        bg_board b;
        if (load_board8(boards + 50 * (size_t)i, b))
            return -(i + 1);
        classes[i] = bg_classify_board((const unsigned int(*)[25])b);
    }
    return 0;
}

void bg_sigmoid_table(float *out101) { memcpy(out101, bg_sigmoid_exp_table, sizeof bg_sigmoid_exp_table); }

float bg_sigmoid_value(float z) { return bg_sigmoid(z); }

unsigned int bg_bearoff_id(const unsigned int *side, int n_points, int n_chequers)
{
    if (n_points < 1 || n_points > 25 || n_chequers < 0 || n_chequers > 15)
        return 0;
    return bg_bearoff_index(side, n_points, n_chequers);
}

int bg_net_inputs(const bg_engine *e, const unsigned int *board, int net, float *out)
{
    bg_board b;
    if (board_load(board, b))
        return -1;
    const unsigned int(*cb)[25] = (const unsigned int(*)[25])b;
    switch (net) {
    case BG_NET_CONTACT:
        bg_inputs_contact(&e->esc, cb, 0, out);
        return BG_N_CONTACT_INPUTS;
    case BG_NET_CRASHED:
        bg_inputs_contact(&e->esc, cb, 1, out);
        return BG_N_CONTACT_INPUTS;
    case BG_NET_RACE:
        bg_inputs_race(cb, out);
        return BG_N_RACE_INPUTS;
    case BG_NET_PRUNE_CONTACT:
    case BG_NET_PRUNE_CRASHED:
    case BG_NET_PRUNE_RACE:
        bg_inputs_base(cb, out);
        return BG_N_BASE_INPUTS;
    default:
        return -1;
    }
}
