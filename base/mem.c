/* mem: see mem.h. */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mem_grow(void **p, size_t n, size_t elem)
{
    if (elem && n > SIZE_MAX / elem)
        return -1;
    size_t bytes = n * elem;
    void *q = realloc(*p, bytes > 0 ? bytes : 1);   /* realloc(p, 0) may free p */
    if (!q)
        return -1;
    *p = q;
    return 0;
}

char *mem_strndup(const char *s, size_t n)
{
    char *d = n < SIZE_MAX ? malloc(n + 1) : NULL;
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}
