/* skeleton/gen_product.c: product components. Node<j>: under Sharing=ps the
 * tasks placed on a node holding several, their processors and the loops'
 * gates that fit, as one component (skel_share_product); Copy<i>: the copies
 * of a lumped group (skel_lump_find) as one component with active rates,
 * so that the array of it is exact. */
#include "gen_int.h"

#include <stdlib.h>

/* Node<j>: the product of the tasks sharing node j (skel_share_product). */
#define SHARE_MAX_STATES 100000L

static void free_graphs(lgraph *gls, int n)
{
    for (int k = 0; gls && k < n; k++)
        free(gls[k].tr);
    free(gls);
}

/* The product of tasks [lo, hi) (those on node `node` when it is not -1,
 * with the loops' gates that fit) and their processors
 * (skel_share_product: 0, 1 too large, -1 memory). */
static int product_of(gen *g, int lo, int hi, int node, int *comp, lgraph *prod)
{
    int n = 0, ng = node >= 0 ? g->dag->ngates : 0;
    const lgraph **lgs = malloc((2 * (size_t)(hi - lo) + (size_t)ng + 1) * sizeof *lgs);
    lgraph *gls = calloc((size_t)ng + 1, sizeof *gls);
    if (!lgs || !gls || gen_gate_graphs(g, gls, ng) < 0) {
        free(lgs);
        free_graphs(gls, ng);
        return -1;
    }
    for (int i = lo; i < hi; i++)
        if (node < 0 || g->node_share[i] == node) {
            lgs[n] = &g->lgs[i];
            comp[n++] = g->comp[i];
            lgs[n] = &g->plgs[i];
            comp[n++] = -1;
        }
    for (int k = 0; k < ng; k++)
        lgs[n + k] = &gls[k];
    skel_share_in in = { n, lgs, comp, pepa_model_nactions(g->pm), SHARE_MAX_STATES,
                         ng, lgs + n };
    int rc = skel_share_product(&in, prod);
    free(lgs);
    free_graphs(gls, ng);
    return rc;
}

static int define_node(gen *g, int j, int *comp)
{
    lgraph prod = { 0 };
    int rc = product_of(g, 0, g->m->ntasks, j, comp, &prod), n = 0;
    for (int i = 0; i < g->m->ntasks; i++)
        n += g->node_share[i] == j;
    if (rc == 0) {
        rc = gen_define_product(g, &prod, "Node", j);
    } else if (rc > 0) {
        rc = diag_set(g->err, "Sharing=ps: the %d tasks on node %s have more than %ld joint "
                      "local states (place fewer there, or use Sharing=static)", n,
                      g->plat->nodes[j].name, SHARE_MAX_STATES);
    } else {
        rc = gen_oom(g);
    }
    free(prod.tr);
    return rc;
}

int gen_define_nodes(gen *g)
{
    int nt = g->m->ntasks, rc = 0;
    int *comp = malloc(2 * (size_t)nt * sizeof *comp);
    if (!comp)
        rc = gen_oom(g);
    for (int i = 0; i < nt && rc == 0; i++) {
        int j = g->node_share[i], first = 1;
        for (int k = 0; k < i && first; k++)
            first = g->node_share[k] != j;
        if (j >= 0 && first)
            rc = define_node(g, j, comp);
    }
    free(comp);
    return rc;
}

/* A lumped copy carries its own rates: each computation at its processor's
 * rate (no node is shared), each move at lambda times its fraction of the
 * copy's weight for that action in that state, which is what Network's
 * active rate would give the copy alone. Then n copies in an array offer
 * n times the rate of one, as the n components of the unlumped model do. */
static int activate(gen *g, lgraph *prod, const int *edge_of)
{
    int n = prod->nstates;
    int *first = malloc((size_t)(n + 1) * sizeof *first);
    ltr *by = malloc((size_t)(prod->ntr ? prod->ntr : 1) * sizeof *by);
    if (!first || !by) {
        free(first);
        free(by);
        return gen_oom(g);
    }
    skel_lg_group(prod, first, by);
    for (int k = 0; k < prod->ntr; k++) {
        ltr *t = &prod->tr[k];
        t->div = 1;
        if (t->task >= 0 || edge_of[t->act] < 0)
            continue;
        double w = 0;
        for (int j = first[t->from]; j < first[t->from + 1]; j++)
            w += by[j].act == t->act ? by[j].w : 0;
        t->rate = edge_of[t->act] + 1;
        t->w /= w;
    }
    free(first);
    free(by);
    return 0;
}

/* Task<i> or Copy<i> (i the first task of group k's first copy): the
 * product of that copy's tasks and their processors (skel_share_product),
 * every activity active (activate), so that the array of it is exact. */
static int define_group(gen *g, int k, int *comp, const int *edge_of)
{
    int lo = g->lump.lo[k], size = g->lump.size[k];
    lgraph prod = { 0 };
    int rc = product_of(g, lo, lo + size, -1, comp, &prod);
    if (rc > 0)
        rc = diag_set(g->err, "the copies of t%d..t%d have more than %ld joint local states "
                      "(generate without lumping)", lo, lo + size - 1, SHARE_MAX_STATES);
    else if (rc < 0)
        rc = gen_oom(g);
    else if ((rc = activate(g, &prod, edge_of)) == 0)
        rc = gen_define_product(g, &prod, size > 1 ? "Copy" : "Task", lo);
    free(prod.tr);
    return rc;
}

int gen_define_groups(gen *g)
{
    int na = pepa_model_nactions(g->pm), rc = 0;
    int *edge_of = malloc((size_t)(na ? na : 1) * sizeof *edge_of);
    int *comp = malloc(2 * (size_t)g->m->ntasks * sizeof *comp);
    if (!edge_of || !comp)
        rc = gen_oom(g);
    for (int a = 0; a < na && rc == 0; a++)
        edge_of[a] = -1;
    for (int e = 0; e < g->m->nedges && rc == 0; e++)
        if (gen_copy_edge(g, e) && !gen_lumped_edge(g, e))
            edge_of[g->move[e]] = e;
    for (int k = 0; k < g->lump.ngroups && rc == 0; k++)
        rc = define_group(g, k, comp, edge_of);
    free(comp);
    free(edge_of);
    return rc;
}
