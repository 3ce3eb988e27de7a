/* skeleton/lump.c: which copies of a placed skeleton are interchangeable
 * (skel_lump_find), so that gen.c emits each such group as one aggregated
 * array and the chain is lumped exactly.
 *
 * The copies are the members of one farm (farm(n, ...) tasks, or the
 * sub-skeletons of an xfarm). Two copies are interchangeable when swapping
 * them maps the model onto itself: same shape, same flows up to the swap,
 * same compute rates, work distributions and move rates (nodes of one
 * class), and every task outside treats them alike (every step of its
 * flows holds as many members of one as of the other, at the same
 * alternative and group). The chain is then invariant under permuting the
 * copies and counting copies per local state is an exact (strong) lumping,
 * as for the PEPA arrays P[n] (Hillston 2005, Gilmore et al. 2001).
 *
 * A deal is never lumped: its round robin gives copy k the k-th item, so a
 * sender's cycle names one copy per step and no swap maps it onto itself.
 * Nor are copies that exchange items with another group (two lumped groups
 * cooperating on a move would need a rate proportional to both counts,
 * which an array cooperation cannot give), copies cut by a loop's gate,
 * copies sharing a node with other tasks under Sharing=ps, or copies whose
 * moves have phases or buffers (their Link_ components are per edge). */
#include "skeleton.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct finder {
    const skel_lump_in *in;
    skel_lump *out;
    int *in_first, *in_edges;  /* per task: edges into it (CSR) */
    const skel_node *node;     /* the farm whose members are compared */
    int lo_c, lo_d;            /* the first copy and the candidate */
    int size;
} finder;

/* phi: the swap of the candidate copy onto the first one. */
static int phi(const finder *f, int x)
{
    return x >= f->lo_d && x < f->lo_d + f->size ? x - f->lo_d + f->lo_c : x;
}

static int find_edge(const finder *f, int a, int b)
{
    if (a >= 0 || b < 0)
        return skel_dag_edge(f->in->dag, a, b);
    for (int k = f->in_first[b]; k < f->in_first[b + 1]; k++)
        if (f->in->dag->edges[f->in_edges[k]].from == a)
            return f->in_edges[k];
    return -1;
}

static int same_member(const skel_flow *F, int j, const skel_flow *G, int k)
{
    return (F->alt ? F->alt[j] : 0) == (G->alt ? G->alt[k] : 0) &&
           (F->grp ? F->grp[j] : 0) == (G->grp ? G->grp[k] : 0) &&
           (F->weight ? F->weight[j] : 1) == (G->weight ? G->weight[k] : 1);
}

/* Does step s of G hold phi(member j of F's step s), at the same place? */
static int has_image(const finder *f, const skel_flow *F, int j, const skel_flow *G, int s)
{
    int y = phi(f, F->tasks[j]);
    for (int k = G->start[s]; k < G->start[s + 1]; k++)
        if (G->tasks[k] == y && same_member(F, j, G, k))
            return 1;
    return 0;
}

/* Flow F of a candidate's task is flow G of its image, up to the swap. */
static int flow_match(const finder *f, const skel_flow *F, const skel_flow *G)
{
    if (F->nsteps != G->nsteps)
        return 0;
    for (int s = 0; s < F->nsteps; s++) {
        if (F->start[s + 1] - F->start[s] != G->start[s + 1] - G->start[s])
            return 0;
        for (int j = F->start[s]; j < F->start[s + 1]; j++)
            if (!has_image(f, F, j, G, s))
                return 0;
    }
    return 1;
}

static int in_copy(int x, int lo, int size)
{
    return x >= lo && x < lo + size;
}

/* Edge e of the candidate: its image exists at the same rate, and it
 * leads neither to another member of the farm nor into a group. */
static int edge_match(const finder *f, int e)
{
    const skel_dag *d = f->in->dag;
    skel_edge ed = d->edges[e];
    int other = in_copy(ed.from, f->lo_d, f->size) ? ed.to : ed.from;
    if (other >= 0 && !in_copy(other, f->lo_d, f->size) &&
        ((other >= f->node->lo && other < f->node->hi) || f->out->group[other] >= 0))
        return 0;
    int img = find_edge(f, phi(f, ed.from), phi(f, ed.to));
    return img >= 0 && f->in->lambda[img] == f->in->lambda[e] && f->in->plain[e] &&
           f->in->plain[img];
}

/* Task x of the candidate against its image. */
static int task_match(const finder *f, int x)
{
    const skel_lump_in *in = f->in;
    int y = phi(f, x);
    if (in->mu[x] != in->mu[y] || in->scv[x] != in->scv[y] || in->entry[x] != in->entry[y] ||
        f->out->group[x] >= 0 ||
        (in->node_share && (in->node_share[x] >= 0 || in->node_share[y] >= 0)))
        return 0;
    if (!flow_match(f, &in->dag->src[x], &in->dag->src[y]) ||
        !flow_match(f, &in->dag->dst[x], &in->dag->dst[y]))
        return 0;
    for (int e = in->dag->out_lo[x]; e < in->dag->out_hi[x]; e++)
        if (!edge_match(f, e))
            return 0;
    for (int k = f->in_first[x]; k < f->in_first[x + 1]; k++)
        if (!edge_match(f, f->in_edges[k]))
            return 0;
    return 1;
}

/* A task outside the farm sees both copies alike in every step. */
static int sees_alike(const finder *f, const skel_flow *F)
{
    for (int s = 0; s < F->nsteps; s++) {
        int nc = 0, nd = 0;
        for (int j = F->start[s]; j < F->start[s + 1]; j++) {
            nc += in_copy(F->tasks[j], f->lo_c, f->size);
            if (in_copy(F->tasks[j], f->lo_d, f->size)) {
                nd++;
                if (!has_image(f, F, j, F, s))
                    return 0;
            }
        }
        if (nc != nd)
            return 0;
    }
    return 1;
}

/* The partners outside the farm of copy lo (ends of its edges). */
static int partners_alike(const finder *f, int lo)
{
    const skel_dag *d = f->in->dag;
    for (int x = lo; x < lo + f->size; x++)
        for (int pass = 0; pass < 2; pass++) {
            int a = pass ? f->in_first[x] : d->out_lo[x];
            int b = pass ? f->in_first[x + 1] : d->out_hi[x];
            for (int k = a; k < b; k++) {
                skel_edge ed = d->edges[pass ? f->in_edges[k] : k];
                int y = pass ? ed.from : ed.to;
                if (y >= 0 && (y < f->node->lo || y >= f->node->hi) &&
                    (!sees_alike(f, &d->src[y]) || !sees_alike(f, &d->dst[y])))
                    return 0;
            }
        }
    return 1;
}

static int copies_match(finder *f, const skel_node *c, const skel_node *d)
{
    if (c->hi - c->lo != d->hi - d->lo)
        return 0;
    f->lo_c = c->lo;
    f->lo_d = d->lo;
    f->size = c->hi - c->lo;
    for (int x = d->lo; x < d->hi; x++)
        if (!task_match(f, x))
            return 0;
    return partners_alike(f, c->lo) && partners_alike(f, d->lo);
}

/* Record copy d (at lo_d) as a member of group k. */
static void add_copy(finder *f, int k)
{
    skel_lump *l = f->out;
    const skel_dag *dg = f->in->dag;
    for (int x = f->lo_d; x < f->lo_d + f->size; x++) {
        l->group[x] = k;
        l->rep[x] = phi(f, x);
    }
    if (f->lo_d == f->lo_c)
        return;
    for (int e = 0; e < dg->nedges; e++) {
        skel_edge ed = dg->edges[e];
        if (in_copy(ed.from, f->lo_d, f->size) || in_copy(ed.to, f->lo_d, f->size))
            l->edge_rep[e] = find_edge(f, phi(f, ed.from), phi(f, ed.to));
    }
}

/* The members of farm n interchangeable with member i (unassigned ones
 * after it); a group when there are two or more. */
static void form_group(finder *f, const skel_node *n, int i, char *taken)
{
    const skel_node *c = n->children[i];
    int count = 1;
    for (int j = i + 1; j < n->nchildren; j++)
        if (!taken[j] && copies_match(f, c, n->children[j]))
            taken[j] = 2, count++;
    if (count < 2) {
        for (int j = i + 1; j < n->nchildren; j++)
            taken[j] = taken[j] == 2 ? 0 : taken[j];
        return;
    }
    skel_lump *l = f->out;
    int k = l->ngroups++;
    l->lo[k] = c->lo;
    l->size[k] = c->hi - c->lo;
    l->count[k] = count;
    f->lo_c = f->lo_d = c->lo;
    f->size = l->size[k];
    add_copy(f, k);
    for (int j = i + 1; j < n->nchildren; j++)
        if (taken[j] == 2) {
            taken[j] = 1;
            f->lo_d = n->children[j]->lo;
            add_copy(f, k);
        }
}

/* A loop's gate inside the farm, or cutting it, counts items per copy. */
static int gates_allow(const finder *f, const skel_node *n)
{
    const skel_dag *d = f->in->dag;
    for (int k = 0; k < d->ngates; k++) {
        const skel_gate *g = &d->gates[k];
        if (g->lo < n->hi && n->lo < g->hi && !(g->lo <= n->lo && n->hi <= g->hi))
            return 0;
    }
    return 1;
}

static int visit(finder *f, const skel_node *n)
{
    if (n->kind == SKEL_FARM && n->nchildren > 1 && gates_allow(f, n)) {
        char *taken = calloc((size_t)n->nchildren, 1);
        if (!taken)
            return -1;
        f->node = n;
        for (int i = 0; i < n->nchildren; i++)
            if (!taken[i]) {
                taken[i] = 1;
                form_group(f, n, i, taken);
            }
        free(taken);
    }
    for (int i = 0; i < n->nchildren; i++)
        if (f->out->group[n->children[i]->lo] < 0 && visit(f, n->children[i]) < 0)
            return -1;
    return 0;
}

static int index_in_edges(finder *f)
{
    const skel_dag *d = f->in->dag;
    f->in_first = calloc((size_t)d->ntasks + 2, sizeof *f->in_first);
    f->in_edges = malloc((size_t)(d->nedges ? d->nedges : 1) * sizeof *f->in_edges);
    if (!f->in_first || !f->in_edges)
        return -1;
    for (int e = 0; e < d->nedges; e++)
        if (d->edges[e].to >= 0)
            f->in_first[d->edges[e].to + 2]++;
    for (int x = 0; x < d->ntasks; x++)
        f->in_first[x + 2] += f->in_first[x + 1];
    for (int e = 0; e < d->nedges; e++)
        if (d->edges[e].to >= 0)
            f->in_edges[f->in_first[d->edges[e].to + 1]++] = e;
    return 0;
}

int skel_lump_find(const skel_lump_in *in, skel_lump *out)
{
    int nt = in->dag->ntasks, ne = in->dag->nedges;
    size_t n = (size_t)(nt ? nt : 1);
    memset(out, 0, sizeof *out);
    out->group = malloc(n * sizeof *out->group);
    out->rep = malloc(n * sizeof *out->rep);
    out->edge_rep = malloc((size_t)(ne ? ne : 1) * sizeof *out->edge_rep);
    out->lo = malloc(n * sizeof *out->lo);
    out->size = malloc(n * sizeof *out->size);
    out->count = malloc(n * sizeof *out->count);
    finder f = { .in = in, .out = out };
    int rc = -1;
    if (out->group && out->rep && out->edge_rep && out->lo && out->size && out->count &&
        index_in_edges(&f) == 0) {
        for (int x = 0; x < nt; x++)
            out->group[x] = -1, out->rep[x] = x;
        for (int e = 0; e < ne; e++)
            out->edge_rep[e] = e;
        rc = visit(&f, skel_tree_root(in->tree));
    }
    free(f.in_first);
    free(f.in_edges);
    if (rc < 0)
        skel_lump_free(out);
    return rc;
}

void skel_lump_free(skel_lump *l)
{
    free(l->group);
    free(l->rep);
    free(l->edge_rep);
    free(l->lo);
    free(l->size);
    free(l->count);
    memset(l, 0, sizeof *l);
}
