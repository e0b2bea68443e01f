/* Bearoff databases (gnubg_os0.bd one-sided, gnubg_ts0.bd two-sided): loading,
 * position indices and 0-ply outputs, as gnubg's. */
#ifndef BG_BEAROFF_H
#define BG_BEAROFF_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

typedef struct {
    unsigned char *data; /* whole file */
    size_t size;
    int n_points, n_chequers;
    int gammon, compressed;
    unsigned int n_pos;
    uint64_t digest; /* bg_file_digest of the whole file */
    int sums107;     /* bg_bearoff_os_eval sums as gnubg 1.07 (set with 1.07's weights) */
} bg_bearoff_os;

typedef struct {
    unsigned char *data;
    size_t size;
    int n_points, n_chequers;
    int n_values; /* uint16 values per position: 4 if cubeful, else 1 */
    unsigned int n_pos;
    uint64_t digest;
} bg_bearoff_ts;

/* Digests of the files shipped with gnubg (bg_file_digest of the bytes). */
#define BG_OS0_DIGEST 0xa705695ded639facULL
#define BG_TS0_DIGEST 0x6acebdb645fa84f6ULL

int bg_bearoff_os_load(bg_bearoff_os *db, const char *path, char *err, int errlen);
int bg_bearoff_ts_load(bg_bearoff_ts *db, const char *path, char *err, int errlen);
void bg_bearoff_os_free(bg_bearoff_os *db);
void bg_bearoff_ts_free(bg_bearoff_ts *db);

/* Index of a side's chequers on points 0..n_points-1 (gnubg's bearoff index). */
unsigned int bg_bearoff_index(const unsigned int *side, int n_points, int n_chequers);

/* Raw uint16 distributions of one position id: prob[i] = P(exactly i rolls
 * to bear off) * 65535, gammon[i] the same for the first chequer off. */
void bg_bearoff_os_dist(const bg_bearoff_os *db, unsigned int id, unsigned short prob[32],
                        unsigned short gammon[32]);

/* The largest i with prob[i] != 0 in bg_bearoff_os_dist's prob (0 if none),
 * read without expanding the distribution (the sanity check's bearoff length). */
int bg_bearoff_os_max_rolls(const bg_bearoff_os *db, unsigned int id);

/* 0-ply outputs for BEAROFF1 / BEAROFF2 positions. */
void bg_bearoff_os_eval(const bg_bearoff_os *db, const bg_board b, float out[5]);
void bg_bearoff_ts_eval(const bg_bearoff_ts *db, const bg_board b, float out[5]);

#endif
