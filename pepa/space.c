/* pepa_space: the derived chain's lifetime, its entries, the walk over
 * its transitions and re-rating. See space.h (derive.c builds the space,
 * index.c its state index, classify.c and measure.c read it). */
#include "space.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint64_t pepa_space_entry(const pepa_space *sp, uint32_t i, uint32_t j)
{
    const pepa_ctmc *q = sp->q;
    uint64_t lo = q->rowp[j], hi = q->rowp[j + 1];
    while (lo < hi) {                  /* row j lists its sources sorted */
        uint64_t mid = lo + (hi - lo) / 2;
        if (q->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q->rowp[j + 1] && q->col[lo] == i ? lo : PEPA_NO_ENTRY;
}

/* The entry of transition t of state i (mask: its XOR masks), through
 * the index; PEPA_NO_ENTRY for a self-loop, -1 for a target the chain
 * does not hold. */
static int entry_of(const pepa_space *sp, uint32_t i, const uint64_t *src, const uint64_t *mask,
                    uint64_t *entry)
{
    uint64_t target[PEPA_MAX_WORDS];
    for (int w = 0; w < sp->nw; w++)
        target[w] = src[w] ^ mask[w];
    *entry = PEPA_NO_ENTRY;
    if (pepa_same_state(target, src, sp->nw))
        return 0;
    int64_t j = pepa_space_find(sp, target);
    if (j < 0 || (*entry = pepa_space_entry(sp, i, (uint32_t)j)) == PEPA_NO_ENTRY)
        return -1;
    return 0;
}

int pepa_space_walk(pepa_space *sp, pepa_walk_fn fn, void *ctx, diag *err)
{
    if (pepa_space_index(sp, err) < 0)
        return -1;
    pepa_enum *en = pepa_enum_new(sp->sys);
    if (!en)
        return diag_set(err, "out of memory");
    int rc = 0;
    for (uint32_t i = 0; i < sp->n && rc == 0; i++) {
        if ((i & 63) == 63 && clock_deadline_passed(sp->deadline)) {
            rc = diag_set(err, "re-rating the chain exceeded its time limit after %u of %u states",
                          i, sp->n);
            break;
        }
        const uint64_t *src = pepa_space_state(sp, i);
        const pepa_tr *tr;
        const uint64_t *mask;
        long nt = pepa_enum_state(en, src, &tr, &mask, err);
        if (nt < 0)
            rc = -1;
        for (long t = 0; t < nt && rc == 0; t++) {
            uint64_t k;
            if (entry_of(sp, i, src, mask + (size_t)t * (size_t)sp->nw, &k) < 0)
                rc = diag_set(err, "internal error: re-rating found a transition that derivation did not");
            else
                rc = fn(ctx, i, tr[t].action, tr[t].rate, k);
        }
    }
    pepa_enum_free(en);
    return rc;
}

static int add_rate(void *ctx, uint32_t i, int action, double rate, uint64_t entry)
{
    (void)action;
    pepa_ctmc *q = ctx;
    if (entry != PEPA_NO_ENTRY) {
        q->val[entry] += rate;
        q->out[i] += rate;
    }
    return 0;
}

int pepa_space_rate(pepa_space *sp, diag *err)
{
    pepa_ctmc *q = sp->q;
    memset(q->val, 0, q->nnz * sizeof *q->val);
    memset(q->out, 0, (size_t)q->n * sizeof *q->out);
    return pepa_space_walk(sp, add_rate, q, err) < 0 ? -1 : 0;
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
