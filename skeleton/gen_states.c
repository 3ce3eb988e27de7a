/* skeleton/gen_states.c: a local graph (a task's, a processor's, a link's,
 * a node's product) written as PEPA definitions: the rate of each activity
 * and the named states, the others inlined as prefixes. */
#include "gen_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Task<i> for a task's first local state, Task<i>_<k> for its k-th named
 * one (Node<j> ... for the tasks sharing node j). */
static void state_name(char *buf, size_t n, const char *prefix, int task, int k)
{
    if (task < 0)                  /* prefix names the component (Link_<i>_<j>) */
        snprintf(buf, n, k ? "%s_%d" : "%s", prefix, k);
    else if (k == 0)
        snprintf(buf, n, "%s%d", prefix, task);
    else
        snprintf(buf, n, "%s%d_%d", prefix, task, k);
}

/* The rate of activity t: a passive weight, or mu_<task> * w / div. */
static pepa_expr *rate_of(gen *g, const ltr *t)
{
    if (t->rate != 0) {            /* a link's: w * lambda of its edge, or w * handoff */
        char name[64];
        if (t->rate > 0)
            gen_edge_name(name, sizeof name, "lambda", g->m->edges[t->rate - 1]);
        else
            snprintf(name, sizeof name, "handoff");
        pepa_expr *r = pepa_rate_ref(g->pm, pepa_model_find_rate(g->pm, name));
        pepa_expr *c = r && t->w != 1.0 ? pepa_num(g->pm, t->w) : NULL;
        return t->w == 1.0 || !r ? r : c ? pepa_binop(g->pm, PEPA_E_MUL, r, c) : NULL;
    }
    if (t->task >= 0) {
        char name[32];
        snprintf(name, sizeof name, "mu_%d", t->task);
        pepa_expr *r = pepa_rate_ref(g->pm, pepa_model_find_rate(g->pm, name));
        if (r && t->w != 1.0) {
            pepa_expr *c = pepa_num(g->pm, t->w);
            r = c ? pepa_binop(g->pm, PEPA_E_MUL, r, c) : NULL;
        }
        if (r && t->div > 1) {
            pepa_expr *c = pepa_num(g->pm, t->div);
            r = c ? pepa_binop(g->pm, PEPA_E_DIV, r, c) : NULL;
        }
        return r;
    }
    pepa_expr *r = pepa_infty(g->pm);
    if (!r || t->w == 1.0)
        return r;
    pepa_expr *n = pepa_num(g->pm, t->w);
    return n ? pepa_binop(g->pm, PEPA_E_MUL, n, r) : NULL;
}

/* A balanced choice over transitions tr[lo, hi) of one state, so that wide
 * farms do not make deep terms. */
static pepa_proc *choice_of(gen *g, const ltr *tr, int lo, int hi, const int *pid)
{
    if (hi - lo == 1) {
        pepa_expr *r = rate_of(g, &tr[lo]);
        pepa_proc *c = pepa_const(g->pm, pid[tr[lo].to]);
        return r && c ? pepa_prefix(g->pm, tr[lo].act, r, c) : NULL;
    }
    int mid = lo + (hi - lo) / 2;
    pepa_proc *a = choice_of(g, tr, lo, mid, pid);
    pepa_proc *b = a ? choice_of(g, tr, mid, hi, pid) : NULL;
    return b ? pepa_choice(g->pm, a, b) : NULL;
}

/* A local state with no activity, which PEPA cannot write. A node's
 * product (Sharing=ps) has one where its tasks wait on each other for ever:
 * with the loops' gates in the product it is a deadlock of the model (a
 * loop of cap > 1 over a deal, docs/skeleton-language.md), unless a gate
 * whose moves are not all the node's stayed out of it. */
static int stuck_state(gen *g, const char *prefix, int i, int s)
{
    if (strcmp(prefix, "Node") == 0 && g->plat)
        return diag_set(g->err, "Sharing=ps: the tasks on node %s can reach a joint state "
                        "(state %d of Node%d) where each waits on another: the model "
                        "deadlocks if it gets there (Sharing=static derives the model "
                        "and names the states)", g->plat->nodes[i].name, s, i);
    return diag_set(g->err, "internal error: local state %d of %s%d has no activity",
                    s, prefix, i);
}

/* Definitions of the graph: a state is named when it starts the cycle,
 * offers a choice, follows one, or is reached from several places; the
 * others are inlined as prefixes. */
int gen_define_states(gen *g, const lgraph *lg, const char *prefix, int i)
{
    int n = lg->nstates, rc = -1;
    int *first = malloc((size_t)(n + 1) * sizeof *first);
    int *indeg = calloc((size_t)n, sizeof *indeg);
    int *named = calloc((size_t)n, sizeof *named);
    int *pid = malloc((size_t)n * sizeof *pid);
    ltr *by = malloc((size_t)(lg->ntr ? lg->ntr : 1) * sizeof *by);
    if (!first || !indeg || !named || !pid || !by) {
        gen_oom(g);
        goto out;
    }
    skel_lg_group(lg, first, by);
    for (int k = 0; k < lg->ntr; k++)
        indeg[lg->tr[k].to]++;
    named[0] = 1;
    for (int s = 0; s < n; s++) {
        if (indeg[s] > 1)
            named[s] = 1;
        if (first[s + 1] - first[s] > 1) {
            named[s] = 1;
            for (int k = first[s]; k < first[s + 1]; k++)
                named[by[k].to] = 1;
        }
    }
    char name[64];
    for (int s = 0, nth = 0; s < n; s++) {
        if (!named[s])
            continue;
        state_name(name, sizeof name, prefix, i, nth++);
        if ((pid[s] = pepa_model_proc_id(g->pm, name)) < 0) {
            gen_oom(g);
            goto out;
        }
    }
    for (int s = 0, nth = 0; s < n; s++) {
        if (!named[s])
            continue;
        pepa_proc *body;
        if (first[s + 1] - first[s] > 1) {
            body = choice_of(g, by, first[s], first[s + 1], pid);
        } else {
            /* the chain of single transitions up to the next named state,
             * built from its end; chain[] reuses indeg, no longer needed */
            int len = 0, r = s;
            do {
                if (first[r] == first[r + 1]) {
                    rc = stuck_state(g, prefix, i, r);
                    goto out;
                }
                indeg[len++] = first[r];
                r = by[first[r]].to;
            } while (!named[r] && len < n);
            body = pepa_const(g->pm, pid[r]);
            for (int j = len - 1; j >= 0 && body; j--) {
                pepa_expr *e = rate_of(g, &by[indeg[j]]);
                body = e ? pepa_prefix(g->pm, by[indeg[j]].act, e, body) : NULL;
            }
        }
        if (!body) {
            gen_oom(g);
            goto out;
        }
        state_name(name, sizeof name, prefix, i, nth++);
        if (pepa_model_define_proc(g->pm, name, body, gen_nopos, g->err) < 0)
            goto out;
    }
    rc = 0;
out:
    free(by);
    free(pid);
    free(named);
    free(indeg);
    free(first);
    return rc;
}

/* The definitions of a product component, within the activity cap. */
int gen_define_product(gen *g, const lgraph *prod, const char *prefix, int i)
{
    g->m->nprefixes += prod->ntr;
    return g->m->nprefixes > SKEL_MAX_PREFIXES
               ? diag_set(g->err, "the model would have more than %d activities", SKEL_MAX_PREFIXES)
               : gen_define_states(g, prod, prefix, i);
}
