/* mem: resizing arrays without losing them, and copying strings.
 *
 * The engine grows many arrays as it learns their size; this is the one
 * place that does it, checking the byte count for overflow. */
#ifndef SKELSCHED_MEM_H
#define SKELSCHED_MEM_H

#include <stddef.h>

/* Resize the array *p (NULL: none yet) to n elements of elem bytes. On
 * failure (out of memory, or n * elem beyond SIZE_MAX) *p is left as it
 * was, still owned by the caller. Returns 0 or -1. */
int mem_grow(void **p, size_t n, size_t elem);

/* A copy of the n bytes at s, terminated (the caller frees it), or NULL
 * when out of memory. */
char *mem_strndup(const char *s, size_t n);

#endif
