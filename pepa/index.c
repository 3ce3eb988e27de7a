/* The state index: building it and looking states up. See index.h and
 * space.h. */
#include "internal.h"

#include <stdlib.h>

int pepa_index_resize(pepa_space *sp, uint64_t cap)
{
    pepa_slot *idx = calloc(cap, sizeof *idx), *old = sp->index;
    uint64_t old_cap = sp->index_cap, mask = cap - 1;
    if (!idx)
        return -1;
    if (old) {
        /* every key is distinct: a move needs no comparison, only a free slot */
        for (uint64_t o = 0; o < old_cap; o++) {
            if (!old[o].id)
                continue;
            uint64_t i = pepa_slot_hash(&old[o], sp->nw) & mask;
            while (idx[i].id)
                i = (i + 1) & mask;
            idx[i] = old[o];
        }
        free(old);
        sp->index = idx;
        sp->index_cap = cap;
        return 0;
    }
    sp->index = idx;
    sp->index_cap = cap;
    for (uint32_t k = 0; k < sp->n; k++) {
        const uint64_t *st = pepa_space_state(sp, k);
        uint64_t h = pepa_hash_state(st, sp->nw), i = pepa_probe(sp, st, h);
        idx[i] = (pepa_slot){ pepa_slot_key(st, sp->nw, h), k + 1, 0 };
    }
    return 0;
}

int pepa_space_index(pepa_space *sp, diag *err)
{
    if (sp->index)
        return 0;
    uint64_t cap = 1024;
    while (cap <= 2 * (uint64_t)sp->n)
        cap *= 2;
    if (pepa_index_resize(sp, cap) < 0)
        return diag_set(err, "out of memory while indexing %u states", sp->n);
    return 0;
}

int64_t pepa_space_find(const pepa_space *sp, const uint64_t *st)
{
    return (int64_t)sp->index[pepa_probe(sp, st, pepa_hash_state(st, sp->nw))].id - 1;
}
