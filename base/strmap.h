/* strmap: a string -> integer map (open addressing) for interning names.
 *
 * The map does not own the keys: callers keep them alive (usually in an
 * arena) for the map's lifetime. */
#ifndef SKELSCHED_STRMAP_H
#define SKELSCHED_STRMAP_H

#include <stddef.h>

typedef struct strmap {
    const char **keys;
    int *vals;
    size_t cap, len;
} strmap;

/* Initialise an empty map. */
void strmap_init(strmap *m);

/* The value stored for key, or -1. */
int strmap_get(const strmap *m, const char *key);

/* Store key -> val (val >= 0), replacing any previous value. Returns 0, or
 * -1 when out of memory. */
int strmap_put(strmap *m, const char *key, int val);

/* Free the map's tables (not the keys). */
void strmap_free(strmap *m);

#endif
