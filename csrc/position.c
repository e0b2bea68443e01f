/* Board validation and gnubg position IDs. */
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

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int bg_board_from_position_id(const char *id, unsigned int *flat)
{
    if (strlen(id) != 14)
        return BG_ERR_ID_LENGTH;
    unsigned char key[12] = {0};
    for (int g = 0; g < 4; g++) {
        unsigned int v = 0;
        for (int k = 0; k < 4; k++) {
            int c = (g == 3 && k >= 2) ? 0 : b64_value(id[4 * g + k]);
            if (c < 0)
                return BG_ERR_ID_CHAR;
            v = v << 6 | (unsigned)c;
        }
        key[3 * g] = (unsigned char)(v >> 16);
        key[3 * g + 1] = (unsigned char)(v >> 8);
        key[3 * g + 2] = (unsigned char)v;
    }
    memset(flat, 0, 50 * sizeof(unsigned int));
    int slot = 0;
    for (int byte = 0; byte < 10 && slot < 50; byte++)
        for (unsigned int bits = key[byte], k = 0; k < 8 && slot < 50; k++, bits >>= 1) {
            if (bits & 1) {
                if (++flat[slot] > BG_CHECKERS)
                    return BG_ERR_TOO_MANY;
            } else {
                slot++;
            }
        }
    bg_board b;
    board_from_flat(flat, b);
    return board_check(b);
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
        char id[15];
        memcpy(id, ids + 14 * (size_t)i, 14);
        id[14] = '\0';
        unsigned int flat[50];
        int rc = bg_board_from_position_id(id, flat);
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
