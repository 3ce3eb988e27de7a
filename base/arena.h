/* arena: many small allocations freed together.
 *
 * Parsers and model builders allocate thousands of small nodes whose
 * lifetime is the lifetime of the whole model; an arena makes ownership
 * obvious (the arena owns them all) and freeing trivial. */
#ifndef SKELSCHED_ARENA_H
#define SKELSCHED_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct arena {
    arena_chunk *head;    /* newest chunk first */
    size_t used;          /* bytes handed out, for reporting */
} arena;

/* Initialise an empty arena (no allocation yet). */
void arena_init(arena *a);

/* n zeroed bytes aligned for any type, or NULL when out of memory. */
void *arena_alloc(arena *a, size_t n);

/* A copy of s (NUL-terminated) in the arena, or NULL. */
char *arena_strdup(arena *a, const char *s);

/* Free every chunk; the arena is empty and reusable afterwards. */
void arena_free(arena *a);

#endif
