/* gnubg's weights files: the text gnubg.weights and the binary gnubg.wd, read
 * into the nets of nnet.h (every array carved from one aligned block). */
#ifndef BG_WEIGHTS_H
#define BG_WEIGHTS_H

#include "nnet.h"

/* Loads gnubg.weights (text) or gnubg.wd (binary), told apart by content.
 * Returns 0, or -1 with a message naming the file in err. */
int bg_netset_load(bg_netset *set, const char *path, char *err, int errlen);
void bg_netset_free(bg_netset *set);

/* Digest of gnubg 1.01 weights (both formats give the same value). */
#define BG_WEIGHTS_DIGEST_1_01 0x7fb255610d239027ULL
/* gnubg 1.07's weights (gnubg.wd of format 1.00, as Debian ships it) */
#define BG_WEIGHTS_DIGEST_1_00 0xb68cbc56aae4d9ffULL

#endif
