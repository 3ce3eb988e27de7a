/* arena: see arena.h. Chunks grow geometrically so that a model of any size
 * costs O(log n) mallocs. */
#include "arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
    arena_chunk *next;
    size_t size, off;
    alignas(max_align_t) unsigned char data[];
};

void arena_init(arena *a)
{
    a->head = NULL;
    a->used = 0;
}

void *arena_alloc(arena *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (n == 0)
        n = align;
    arena_chunk *c = a->head;
    if (!c || c->size - c->off < n) {
        size_t size = c ? c->size * 2 : 4096;
        if (size > ((size_t)1 << 24))
            size = (size_t)1 << 24;
        if (size < n)
            size = n;
        c = malloc(sizeof *c + size);
        if (!c)
            return NULL;
        c->next = a->head;
        c->size = size;
        c->off = 0;
        a->head = c;
    }
    void *p = c->data + c->off;
    c->off += n;
    a->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strdup(arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = arena_alloc(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->used = 0;
}
