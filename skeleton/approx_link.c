/* skeleton/approx_link.c: the link components of the approximation's
 * windows (approx_link.h). Each is built by skel_link_graph, the function
 * gen.c builds Link_<i>_<j> with, so that a window holding a link is the
 * generated model's sub-chain, not a second rendering of its semantics. */
#include "approx_link.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

/* gen.c's edge_plain: a rendezvous of exponential time, no component. */
static int plain(double scv, int buffer)
{
    return buffer == 0 && skel_erlang_phases(scv) == 1 && !(scv > 1);
}

static int links_oom(diag *err)
{
    return diag_set(err, "out of memory");
}

/* Append edge e's component (graph lg, grouped by source state) to L. */
static int append(ax_links *L, int e, const skel_lgraph *lg, int *nst, int *ntr, diag *err)
{
    int *first = malloc((size_t)(lg->nstates + 1) * sizeof *first);
    skel_ltr *by = malloc((size_t)(lg->ntr ? lg->ntr : 1) * sizeof *by);
    if (!first || !by || mem_grow((void **)&L->first, (size_t)*nst + (size_t)lg->nstates + 1,
                                  sizeof *L->first) < 0 ||
        mem_grow((void **)&L->tr, (size_t)*ntr + (size_t)lg->ntr + 1, sizeof *L->tr) < 0) {
        free(first);
        free(by);
        return links_oom(err);
    }
    skel_lg_group(lg, first, by);
    L->n[e] = lg->nstates;
    L->s0[e] = *nst;
    for (int s = 0; s < lg->nstates; s++)
        L->first[*nst + s] = *ntr + first[s];
    for (int k = 0; k < lg->ntr; k++)
        L->tr[*ntr + k] = (ax_ltrans){ by[k].to, (ax_lact)by[k].act,
                                       by[k].rate == SKEL_RATE_HANDOFF, by[k].w };
    *nst += lg->nstates;
    *ntr += lg->ntr;
    L->first[*nst] = *ntr;
    free(first);
    free(by);
    return 0;
}

static int component(ax_links *L, int e, long max_states, int *nst, int *ntr, diag *err)
{
    skel_link_in in = { L->buffer[e], L->scv[e], e, AX_LINK_MOVE, AX_LINK_TAKE, AX_LINK_XFER,
                        max_states };
    skel_lgraph lg = { 0 };
    int rc = skel_link_graph(&in, &lg);
    if (rc > 0)
        rc = diag_set(err, "approximation: the link of move %d (Buffer=%d SCV=%g) has more "
                           "than %ld states", e, L->buffer[e], L->scv[e], max_states);
    else if (rc < 0)
        rc = links_oom(err);
    else
        rc = append(L, e, &lg, nst, ntr, err);
    free(lg.tr);
    return rc;
}

/* Edge e's ends that are tasks, counted (fill 0) or listed (fill 1) in
 * the per-task index (counting sort: tstart[i + 2] counts, then
 * tstart[i + 1] runs over task i's slots). */
static void index_edge(ax_links *L, const skel_dag *d, int e, int fill)
{
    int ends[2] = { d->edges[e].from, d->edges[e].to };
    for (int k = 0; k < 2 && L->n[e] > 0; k++)
        if (ends[k] >= 0 && !fill)
            L->tstart[ends[k] + 2]++;
        else if (ends[k] >= 0)
            L->tedge[L->tstart[ends[k] + 1]++] = e;
}

/* Per task, its edges with a component. */
static int index_tasks(ax_links *L, const skel_dag *d, diag *err)
{
    int nt = L->ntasks;
    if (!(L->tstart = calloc((size_t)nt + 2, sizeof *L->tstart)) ||
        !(L->tedge = malloc((size_t)(2 * L->nedges + 1) * sizeof *L->tedge)))
        return links_oom(err);
    for (int e = 0; e < L->nedges; e++)
        index_edge(L, d, e, 0);
    for (int i = 0; i < nt; i++)
        L->tstart[i + 2] += L->tstart[i + 1];
    for (int e = 0; e < L->nedges; e++)
        index_edge(L, d, e, 1);
    return 0;
}

/* The components of the kinds in L->scv, L->buffer (set). */
static int build_kinds(ax_links *L, const skel_dag *d, long max_states, diag *err)
{
    int ne = d->nedges, nst = 0, ntr = 0, rc = 0;
    L->n = calloc((size_t)ne + 1, sizeof *L->n);
    L->s0 = calloc((size_t)ne + 1, sizeof *L->s0);
    L->first = calloc(1, sizeof *L->first);
    if (!L->n || !L->s0 || !L->first)
        return links_oom(err);
    for (int e = 0; e < ne && rc == 0; e++)
        if (!plain(L->scv[e], L->buffer[e]))
            rc = component(L, e, max_states, &nst, &ntr, err);
    return rc < 0 ? -1 : index_tasks(L, d, err);
}

int ax_links_build(ax_links *L, const skel_dag *d, const double *scv, const int *buffer,
                   long max_states, diag *err)
{
    int ne = d->nedges;
    L->nedges = ne;
    L->ntasks = d->ntasks;
    L->scv = malloc((size_t)(ne + 1) * sizeof *L->scv);
    L->buffer = malloc((size_t)(ne + 1) * sizeof *L->buffer);
    L->want_scv = malloc((size_t)(ne + 1) * sizeof *L->want_scv);
    L->want_buffer = malloc((size_t)(ne + 1) * sizeof *L->want_buffer);
    if (!L->scv || !L->buffer || !L->want_scv || !L->want_buffer)
        return links_oom(err);
    for (int e = 0; e < ne; e++) {
        L->scv[e] = L->want_scv[e] = scv ? scv[e] : 1;
        L->buffer[e] = L->want_buffer[e] = buffer ? buffer[e] : 0;
    }
    return build_kinds(L, d, max_states, err);
}

/* The components alone freed (the kinds kept). */
static void free_components(ax_links *L)
{
    free(L->n);
    free(L->s0);
    free(L->first);
    free(L->tr);
    free(L->tstart);
    free(L->tedge);
    L->n = L->s0 = L->first = L->tstart = L->tedge = NULL;
    L->tr = NULL;
}

int ax_links_simplify(ax_links *L, const skel_dag *d, int e, long max_states, diag *err)
{
    if (plain(L->scv[e], L->buffer[e]))
        return 0;
    if (L->scv[e] != 1)
        L->scv[e] = 1;        /* the phases' mean is 1 / lambda: one exponential */
    else
        L->buffer[e]--;       /* one item less: what decoupling fits is kept */
    free_components(L);
    return build_kinds(L, d, max_states, err) < 0 ? -1 : 1;
}

void ax_links_free(ax_links *L)
{
    free(L->scv);
    free(L->buffer);
    free(L->want_scv);
    free(L->want_buffer);
    free_components(L);
    memset(L, 0, sizeof *L);
}

int ax_links_same(const ax_links *L, const double *scv, const int *buffer)
{
    for (int e = 0; e < L->nedges; e++)
        if (L->want_scv[e] != scv[e] || L->want_buffer[e] != buffer[e])
            return 0;
    return 1;
}

void ax_links_kinds(const skel_dag *d, const skel_platform *p, const int *node, double *scv,
                    int *buffer)
{
    for (int e = 0; e < d->nedges; e++) {
        int f = d->edges[e].from, t = d->edges[e].to;
        skel_platform_move_kind(p, f >= 0 ? node[f] : -1, t >= 0 ? node[t] : -1, &scv[e],
                                &buffer[e]);
        if (f < 0 || t < 0)
            buffer[e] = 0;
    }
}

const ax_ltrans *ax_link_from(const ax_links *L, int e, int l, int *n)
{
    int k = L->s0[e] + l;
    *n = L->first[k + 1] - L->first[k];
    return L->tr + L->first[k];
}

static int member(const int *v, int n, int x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x)
            return 1;
    return 0;
}

int ax_links_in(const ax_links *L, const skel_dag *d, const int *wt, int nt, int *out, int max)
{
    int n = 0;
    for (int p = 0; p < nt; p++)
        for (int k = L->tstart[wt[p]]; k < L->tstart[wt[p] + 1]; k++) {
            int e = L->tedge[k], f = d->edges[e].from, t = d->edges[e].to;
            int other = f == wt[p] ? t : f;
            if ((other >= 0 && !member(wt, nt, other)) || member(out, n, e))
                continue;
            if (n == max)
                return -1;
            out[n++] = e;
        }
    return n;
}

unsigned long ax_links_states(const ax_links *L, const int *edges, int n)
{
    unsigned long s = 1;
    for (int k = 0; k < n; k++)
        s *= (unsigned long)L->n[edges[k]];
    return s;
}
