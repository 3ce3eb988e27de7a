/* pepa_space_classify: deadlocks, closed classes and transient states of
 * the chain, from its strongly connected components (Tarjan's algorithm,
 * iterative so that a million-state chain cannot overflow the stack).
 *
 * The chain is stored by target (row j lists the sources of edges into j),
 * so the search runs on the reversed graph: a component is closed in the
 * chain exactly when no edge of the reversed graph enters it from another
 * component. */
#include "space.h"

#include <stdlib.h>

int pepa_space_classify(const pepa_space *sp, pepa_chain_class *cls, diag *err)
{
    return pepa_space_recurrent(sp, cls, NULL, err);
}

int pepa_space_recurrent(const pepa_space *sp, pepa_chain_class *cls, unsigned char *closed,
                         diag *err)
{
    const pepa_ctmc *q = sp->q;
    uint32_t n = q->n;
    const uint32_t UNSEEN = UINT32_MAX;
    uint32_t *index = malloc((size_t)n * sizeof *index);
    uint32_t *low = malloc((size_t)n * sizeof *low);
    uint32_t *comp = malloc((size_t)n * sizeof *comp);
    uint32_t *stack = malloc((size_t)n * sizeof *stack);
    uint32_t *call = malloc((size_t)n * sizeof *call);      /* DFS path */
    uint64_t *edge = malloc((size_t)n * sizeof *edge);      /* next edge per node on the path */
    if (!index || !low || !comp || !stack || !call || !edge) {
        free(index); free(low); free(comp); free(stack); free(call); free(edge);
        return diag_set(err, "out of memory while classifying the chain");
    }
    *cls = (pepa_chain_class){ 0 };
    for (uint32_t v = 0; v < n; v++)
        index[v] = UNSEEN;
    uint32_t counter = 0, sp_top = 0, ncomp = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != UNSEEN)
            continue;
        uint32_t depth = 0;
        call[depth] = root;
        edge[depth] = q->rowp[root];
        index[root] = low[root] = counter++;
        stack[sp_top++] = root;
        comp[root] = UNSEEN;
        while (1) {
            uint32_t v = call[depth];
            if (edge[depth] < q->rowp[v + 1]) {
                uint32_t w = q->col[edge[depth]++];
                if (index[w] == UNSEEN) {
                    index[w] = low[w] = counter++;
                    stack[sp_top++] = w;
                    comp[w] = UNSEEN;
                    call[++depth] = w;
                    edge[depth] = q->rowp[w];
                } else if (comp[w] == UNSEEN && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--sp_top];
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
            if (depth == 0)
                break;
            depth--;
            uint32_t u = call[depth];
            if (low[v] < low[u])
                low[u] = low[v];
        }
    }
    /* A component is closed in the chain when no state of it has an edge
     * to another component, i.e. in the reversed graph no edge enters it. */
    unsigned char *open = calloc(ncomp, 1);
    uint32_t *size = calloc(ncomp, sizeof *size);
    if (!open || !size) {
        free(open); free(size);
        free(index); free(low); free(comp); free(stack); free(call); free(edge);
        return diag_set(err, "out of memory while classifying the chain");
    }
    uint32_t *member = calloc(ncomp, sizeof *member);
    if (!member) {
        free(open); free(size);
        free(index); free(low); free(comp); free(stack); free(call); free(edge);
        return diag_set(err, "out of memory while classifying the chain");
    }
    for (uint32_t j = 0; j < n; j++) {
        size[comp[j]]++;
        member[comp[j]] = j;
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            if (comp[q->col[k]] != comp[j])
                open[comp[q->col[k]]] = 1;       /* col[k] -> j leaves col[k]'s component */
    }
    for (uint32_t c = 0; c < ncomp; c++) {
        if (open[c]) {
            cls->transient += size[c];
        } else {
            if (cls->bottom < 2)
                cls->first_bottom[cls->bottom] = member[c];
            cls->bottom++;
        }
    }
    if (closed)
        for (uint32_t j = 0; j < n; j++)
            closed[j] = !open[comp[j]];
    free(member);
    free(open); free(size);
    free(index); free(low); free(comp); free(stack); free(call); free(edge);
    return 0;
}
