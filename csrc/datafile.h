/* Reading data files (weights, bearoff databases): whole-file reads, error
 * messages that name the file, and the FNV-1a digest used to verify them. */
#ifndef BG_DATAFILE_H
#define BG_DATAFILE_H

#include <stddef.h>
#include <stdint.h>

/* Reads the whole file into a fresh malloc'd buffer (one extra NUL byte is
 * appended, not counted in *len). Returns 0, or -1 with err filled. */
int bg_read_file(const char *path, unsigned char **buf, size_t *len, char *err, int errlen);

/* Writes "<path>: <message>" into err (printf-style message). */
void bg_file_error(char *err, int errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define BG_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t bg_fnv1a(uint64_t h, const void *data, size_t len);

/* The digest of a whole file's bytes: four lanes over little-endian 64-bit
 * words, each step (xor, multiply by an odd constant, xorshift) invertible, so
 * that a change to any one word always changes it; many times faster than
 * byte-wise FNV-1a on the megabytes of a bearoff database. */
uint64_t bg_file_digest(const void *data, size_t len);

#endif
