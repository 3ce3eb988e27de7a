/* skeleton/internal.h: helpers shared by the files of skeleton/ only. */
#ifndef SKELSCHED_SKELETON_INTERNAL_H
#define SKELSCHED_SKELETON_INTERNAL_H

#include <stddef.h>

#include "../base/diag.h"

/* Least common multiple of a, b >= 1, or -1 when it exceeds cap (so that
 * callers never overflow and always have a bound to report). */
long skel_lcm(long a, long b, long cap);

/* Read a whole file ("-" is standard input) of at most max bytes into a
 * malloc'd, NUL-terminated buffer the caller frees. */
int skel_read_file(const char *path, size_t max, char **text, size_t *len, diag *err);

#endif
