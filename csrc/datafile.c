/* Whole-file reads with error messages that name the file. */
#include "datafile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bg_file_error(char *err, int errlen, const char *path, const char *fmt, ...)
{
    if (!err || errlen <= 0)
        return;
    int n = snprintf(err, (size_t)errlen, "%s: ", path ? path : "(null)");
    if (n < 0 || n >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, (size_t)(errlen - n), fmt, ap);
    va_end(ap);
}

int bg_read_file(const char *path, unsigned char **buf, size_t *len, char *err, int errlen)
{
    *buf = NULL;
    *len = 0;
    if (!path || !*path) {
        bg_file_error(err, errlen, "(no path)", "no file name given");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        bg_file_error(err, errlen, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t cap = 1 << 20, n = 0;
    unsigned char *b = malloc(cap + 1);
    if (!b) {
        fclose(f);
        bg_file_error(err, errlen, path, "out of memory");
        return -1;
    }
    for (;;) {
        if (n == cap) {
            if (cap > ((size_t)1 << 30)) {
                free(b);
                fclose(f);
                bg_file_error(err, errlen, path, "file too large");
                return -1;
            }
            unsigned char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                fclose(f);
                bg_file_error(err, errlen, path, "out of memory");
                return -1;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(b);
        bg_file_error(err, errlen, path, "read error: %s", strerror(saved));
        return -1;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    return 0;
}

#define DIGEST_MUL 0x9e3779b97f4a7c15ULL

static uint64_t load_le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static uint64_t digest_step(uint64_t h, uint64_t word)
{
    h = (h ^ word) * DIGEST_MUL;
    return h ^ (h >> 29);
}

uint64_t bg_file_digest(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t lane[4] = {BG_FNV_OFFSET, BG_FNV_OFFSET ^ 1, BG_FNV_OFFSET ^ 2, BG_FNV_OFFSET ^ 3};
    size_t i = 0;
    for (; i + 32 <= len; i += 32)
        for (int k = 0; k < 4; k++)
            lane[k] = digest_step(lane[k], load_le64(p + i + 8 * k));
    uint64_t h = bg_fnv1a(BG_FNV_OFFSET, p + i, len - i); /* the last 0..31 bytes */
    for (int k = 0; k < 4; k++)
        h = digest_step(h, lane[k]);
    return digest_step(h, (uint64_t)len);
}

uint64_t bg_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
