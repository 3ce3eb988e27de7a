/* Measures of a solved chain: action throughputs and local-state
 * probabilities. See space.h. */
#include "space.h"

#include <stdlib.h>
#include <string.h>

#include "enum.h"

int pepa_space_throughput(const pepa_space *sp, const double *pi, double *thr, diag *err)
{
    pepa_enum *en = pepa_enum_new(sp->sys);
    if (!en)
        return diag_set(err, "out of memory");
    memset(thr, 0, (size_t)sp->sys->nactions * sizeof *thr);
    for (uint32_t i = 0; i < sp->n; i++) {
        if (pi[i] == 0)
            continue;
        const pepa_tr *tr;
        const uint64_t *mask;
        long nt = pepa_enum_state(en, pepa_space_state(sp, i), &tr, &mask, err);
        if (nt < 0) {
            pepa_enum_free(en);
            return -1;
        }
        for (long t = 0; t < nt; t++)
            thr[tr[t].action] += pi[i] * tr[t].rate;
    }
    pepa_enum_free(en);
    return 0;
}

void pepa_space_local(const pepa_space *sp, const double *pi, int leaf, double *out)
{
    const pepa_node *nd = &sp->sys->nodes[sp->sys->leaves[leaf]];
    int ns = sp->sys->seqs[nd->seq].nstates;
    memset(out, 0, (size_t)ns * sizeof *out);
    for (uint32_t i = 0; i < sp->n; i++) {
        const uint64_t *st = pepa_space_state(sp, i);
        if (nd->kind == PEPA_N_LEAF)
            out[pepa_field_get(st, nd->field)] += pi[i];
        else
            for (int k = 0; k < ns; k++)
                out[k] += pi[i] * pepa_field_get(st, nd->fields[k]);
    }
}
