/* Board validation and gnubg position IDs. */
#include <stdint.h>
#include <string.h>

#include "position.h"

static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void board_from_flat(const unsigned int *flat, bg_board b)
{
    memcpy(b, flat, sizeof(bg_board));
}

void board_to_flat(const bg_board b, unsigned int *flat)
{
    memcpy(flat, b, sizeof(bg_board));
}

void board_swap(bg_board b)
{
    for (int i = 0; i < 25; i++) {
        unsigned int t = b[0][i];
        b[0][i] = b[1][i];
        b[1][i] = t;
    }
}

int board_load(const unsigned int *flat, bg_board b)
{
    int bad = 0; /* no early exit: a branch per count costs more than the loop */
    for (int s = 0; s < 2; s++) {
        unsigned int t = 0;
        for (int i = 0; i < 25; i++) {
            unsigned int n = flat[25 * s + i];
            bad |= n > 15;
            t += n > 15 ? 16 : n;
            b[s][i] = n;
        }
        bad |= t > 15;
    }
    return bad ? -1 : 0;
}

int board_check(const bg_board b)
{
    /* a valid board passes without a branch per point */
    unsigned int big = 0, t0 = 0, t1 = 0, overlap = 0;
    for (int i = 0; i < 25; i++) {
        big |= (b[0][i] > BG_CHECKERS) | (b[1][i] > BG_CHECKERS);
        t0 += b[0][i];
        t1 += b[1][i];
    }
    for (int i = 0; i < 24; i++)
        overlap |= b[0][i] && b[1][23 - i];
    if (!big && t0 <= BG_CHECKERS && t1 <= BG_CHECKERS && !overlap && !(b[0][24] && b[1][24]))
        return BG_OK;
    for (int s = 0; s < 2; s++) {
        unsigned int total = 0;
        for (int i = 0; i < 25; i++) {
            /* counts arrive as unsigned: a "negative" one is a huge value */
            if (b[s][i] > BG_CHECKERS)
                return b[s][i] > 0x7fffffffu ? BG_ERR_NEGATIVE : BG_ERR_TOO_MANY;
            total += b[s][i];
        }
        if (total > BG_CHECKERS)
            return BG_ERR_TOO_MANY;
    }
    for (int i = 0; i < 24; i++)
        if (b[0][i] && b[1][23 - i])
            return BG_ERR_OVERLAP;
    /* Both sides on the bar facing closed home boards is unreachable. */
    if (b[0][24] && b[1][24]) {
        int closed0 = 1, closed1 = 1;
        for (int i = 0; i < 6; i++) {
            if (b[0][i] < 2) closed0 = 0;
            if (b[1][i] < 2) closed1 = 0;
        }
        if (closed0 && closed1)
            return BG_ERR_BOTH_BARS_CLOSED;
    }
    return BG_OK;
}

void bg_position_id(const unsigned int *flat, char *out)
{
    unsigned char key[10] = {0};
    int bit = 0;
    /* side not on roll first, then the side on roll; bar last */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 25; i++) {
            unsigned int n = flat[s * 25 + i];
            for (unsigned int k = 0; k < n && bit < 80; k++, bit++)
                key[bit >> 3] |= (unsigned char)(1u << (bit & 7));
            bit++;
        }
    /* 10 bytes -> 14 base64 digits: 3 full groups, then one byte as 2 digits */
    int o = 0;
    for (int g = 0; g < 3; g++) {
        unsigned int v = (unsigned)key[3 * g] << 16 | (unsigned)key[3 * g + 1] << 8 | key[3 * g + 2];
        out[o++] = B64[(v >> 18) & 63];
        out[o++] = B64[(v >> 12) & 63];
        out[o++] = B64[(v >> 6) & 63];
        out[o++] = B64[v & 63];
    }
    out[o++] = B64[key[9] >> 2];
    out[o++] = B64[(key[9] & 3) << 4];
    out[o] = '\0';
}

/* Base64 digit + 1 of each character, 0 for the rest. */
static const unsigned char B64_PLUS1[256] = {
    ['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8, ['I'] =
    9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16, ['Q'] =
    17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] =
    25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] =
    33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] =
    41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] =
    49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] =
    57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64};

/* The board of an ID's 14 characters (no NUL among them): the key's 80 bits,
 * least significant first, are runs of ones (a point's chequers) each closed
 * by a zero, side not on roll first; bits after the 50th zero are ignored. */
static int board_from_id14(const char *id, unsigned int *flat)
{
    uint64_t v[3] = {0, 0, 0}; /* the key's bytes as 4-digit groups, big-endian per group */
    for (int g = 0; g < 4; g++) {
        uint32_t x = 0;
        for (int k = 0; k < 4; k++) {
            /* the last group has two digits; its last 4 bits fall beyond the key */
            unsigned int c = (g == 3 && k >= 2) ? 1 : B64_PLUS1[(unsigned char)id[4 * g + k]];
            if (!c)
                return BG_ERR_ID_CHAR;
            x = x << 6 | (c - 1);
        }
        /* bytes 3g, 3g+1, 3g+2 of the key at bit 24g, little-endian */
        uint64_t le = (uint64_t)(x >> 16 & 0xff) | (uint64_t)(x & 0xff00) | (uint64_t)(x & 0xff) << 16;
        int bit = 24 * g;
        v[bit >> 6] |= le << (bit & 63);
        if ((bit & 63) > 40)
            v[(bit >> 6) + 1] |= le >> (64 - (bit & 63));
    }
    /* a one at bit p with k ones below it is a chequer on slot p - k */
    uint64_t bits[2] = {v[0], v[1] & 0xffff}; /* bits 0..63, 64..79 */
    memset(flat, 0, 50 * sizeof(unsigned int));
    int k = 0;
    for (int word = 0; word < 2; word++)
        for (uint64_t w = bits[word]; w; w &= w - 1, k++) {
            int slot = 64 * word + __builtin_ctzll(w) - k;
            if (slot >= 50)
                break;
            flat[slot]++;
        }
    bg_board b; /* a point over 15 is board_check's BG_ERR_TOO_MANY */
    board_from_flat(flat, b);
    return board_check(b);
}

int bg_board_from_position_id(const char *id, unsigned int *flat)
{
    if (strlen(id) != 14)
        return BG_ERR_ID_LENGTH;
    return board_from_id14(id, flat);
}

void bg_position_id8(const char *board8, char *out)
{
    unsigned int flat[50];
    for (int i = 0; i < 50; i++)
        flat[i] = (unsigned char)board8[i];
    bg_position_id(flat, out);
}

int bg_boards8_from_position_ids(const char *ids, int n, char *boards8)
{
    for (int i = 0; i < n; i++) {
        const char *id = ids + 14 * (size_t)i;
        if (memchr(id, '\0', 14))
            return BG_ERR_ID_LENGTH;
        unsigned int flat[50];
        int rc = board_from_id14(id, flat);
        if (rc)
            return rc;
        for (int j = 0; j < 50; j++)
            boards8[50 * (size_t)i + j] = (char)flat[j];
    }
    return 0;
}

int bg_check_board(const unsigned int *flat)
{
    bg_board b;
    board_from_flat(flat, b);
    return board_check(b);
}

const char *bg_error_text(int code)
{
    switch (code) {
    case BG_OK: return "ok";
    case BG_ERR_ID_LENGTH: return "a position ID has 14 characters";
    case BG_ERR_ID_CHAR: return "a position ID uses only base64 characters";
    case BG_ERR_TOO_MANY: return "a side has more than 15 checkers";
    case BG_ERR_OVERLAP: return "both sides have checkers on the same point";
    case BG_ERR_BOTH_BARS_CLOSED: return "both sides are on the bar against closed boards";
    case BG_ERR_NO_CHECKER: return "no checker of the mover on the source point";
    case BG_ERR_BLOCKED: return "the destination point is held by the opponent";
    case BG_ERR_BAR_FIRST: return "checkers on the bar must enter first";
    case BG_ERR_BEAROFF: return "bearing off needs all checkers home (a higher die only from the highest point)";
    case BG_ERR_BAD_STEP: return "a step goes backwards or off the board";
    case BG_ERR_NEGATIVE: return "a checker count is negative";
    default: return "unknown error";
    }
}
