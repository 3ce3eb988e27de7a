/* pepa_space_rate: re-rating a derived chain, and the space's lifetime.
 * See space.h. */
#include "space.h"

#include <stdlib.h>
#include <string.h>

#include "enum.h"
#include "index.h"

/* Position of source i in row j of q (rows are sorted by source). */
static uint64_t slot_of(const pepa_ctmc *q, uint32_t j, uint32_t i)
{
    uint64_t lo = q->rowp[j], hi = q->rowp[j + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (q->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int pepa_space_rate(pepa_space *sp, diag *err)
{
    pepa_ctmc *q = sp->q;
    const int nw = sp->nw;
    uint64_t target[PEPA_MAX_WORDS];
    if (pepa_space_index(sp, err) < 0)
        return -1;
    pepa_enum *en = pepa_enum_new(sp->sys);
    if (!en)
        return diag_set(err, "out of memory");
    memset(q->val, 0, q->nnz * sizeof *q->val);
    memset(q->out, 0, (size_t)q->n * sizeof *q->out);
    for (uint32_t i = 0; i < sp->n; i++) {
        const uint64_t *src = pepa_space_state(sp, i);
        const pepa_tr *tr;
        const uint64_t *mask;
        long nt = pepa_enum_state(en, src, &tr, &mask, err);
        if (nt < 0) {
            pepa_enum_free(en);
            return -1;
        }
        for (long t = 0; t < nt; t++) {
            for (int w = 0; w < nw; w++)
                target[w] = src[w] ^ mask[(size_t)t * nw + w];
            if (pepa_same_state(target, src, nw))
                continue;
            int64_t j = pepa_space_find(sp, target);
            uint64_t k = j < 0 ? 0 : slot_of(q, (uint32_t)j, i);
            if (j < 0 || k >= q->rowp[j + 1] || q->col[k] != i) {
                pepa_enum_free(en);
                return diag_set(err, "internal error: re-rating found a transition that derivation did not");
            }
            q->val[k] += tr[t].rate;
            q->out[i] += tr[t].rate;
        }
    }
    pepa_enum_free(en);
    return 0;
}

void pepa_space_free(pepa_space *sp)
{
    if (!sp)
        return;
    pepa_ctmc_free(sp->q);
    free(sp->index);
    if (sp->blocks)
        for (size_t b = 0; b < PEPA_MAX_BLOCKS && sp->blocks[b]; b++)
            free(sp->blocks[b]);
    free(sp->blocks);
    free(sp);
}

void pepa_space_print_state(const pepa_space *sp, uint32_t k, FILE *f)
{
    pepa_state_print(sp->sys, pepa_space_state(sp, k), f);
}
