/* The hash index of a state space (internal to pepa/): open addressing,
 * linear probing, load <= 1/2. A slot keeps the state itself when it fits
 * one word, else its hash, so a lookup usually touches one cache line.
 * While deriving, the slot also counts the transitions into its state:
 * the lookup has the line in cache anyway, and the counts size the
 * chain's rows by target without another pass over the transitions. */
#ifndef SKELSCHED_PEPA_INDEX_H
#define SKELSCHED_PEPA_INDEX_H

#include "space.h"

typedef struct pepa_slot {
    uint64_t key;             /* the state (one word) or its hash */
    uint32_t id;              /* state number + 1; 0 = empty */
    uint32_t indeg;           /* transitions into the state (derivation) */
} pepa_slot;

static inline uint64_t pepa_hash_state(const uint64_t *st, int nw)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int w = 0; w < nw; w++) {
        uint64_t x = st[w] + h;
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        x ^= x >> 31;
        h = x;
    }
    return h;
}

static inline uint64_t pepa_slot_key(const uint64_t *st, int nw, uint64_t h)
{
    return nw == 1 ? st[0] : h;
}

static inline int pepa_same_state(const uint64_t *a, const uint64_t *b, int nw)
{
    for (int w = 0; w < nw; w++)
        if (a[w] != b[w])
            return 0;
    return 1;
}

/* The slot holding st (hash h), or the empty slot where it would go. */
static inline uint64_t pepa_probe(const pepa_space *sp, const uint64_t *st, uint64_t h)
{
    uint64_t mask = sp->index_cap - 1, key = pepa_slot_key(st, sp->nw, h);
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        const pepa_slot *s = &sp->index[i];
        if (s->id == 0)
            return i;
        if (s->key == key && (sp->nw == 1 || pepa_same_state(pepa_space_state(sp, s->id - 1), st, sp->nw)))
            return i;
    }
}

/* The key's hash (the slot keeps the hash itself when nw > 1). */
static inline uint64_t pepa_slot_hash(const pepa_slot *s, int nw)
{
    return nw == 1 ? pepa_hash_state(&s->key, 1) : s->key;
}

/* Rebuild the index with cap slots (a power of two > 2n): the old slots
 * move over with their counts, or, when there is no index, every state is
 * inserted. Returns 0 or -1 (memory; the old index is kept). */
int pepa_index_resize(pepa_space *sp, uint64_t cap);

#endif
