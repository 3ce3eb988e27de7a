/* skeleton/gen_system.c: the resources and the system equation. Processor<i>
 * and Network (Yaikhom et al. 2007, Fig. 4), the Link_<i>_<j> components of
 * moves with phases or a buffer, and Algorithm 3's composition of the
 * tasks' (or nodes' or copies') components with the gates, links,
 * network and processors. */
#include "gen_int.h"

#include <stdio.h>
#include <stdlib.h>

/* Move actions crossing between the adjacent task ranges [alo, ahi) and
 * [ahi, bhi), in edge order (edges are grouped by sender). */
static int crossing(gen *g, int alo, int ahi, int bhi, int *acts)
{
    const skel_dag *d = g->dag;
    int n = 0;
    for (int i = alo; i < bhi; i++)
        for (int e = d->out_lo[i]; e < d->out_hi[i]; e++) {
            int t = d->edges[e].to;
            if (i < ahi ? t >= ahi && t < bhi : t >= alo && t < ahi)
                n = gen_add_sync(g, e, acts, n);
        }
    return n;
}

/* The process of task i's part: Task<i>, Node<j> (Sharing=ps), or the
 * array of a lumped group, Task<i>[n] or Copy<i>[n] (i its first task). */
static pepa_proc *part_proc(gen *g, int i)
{
    char name[32];
    if (g->node_share && g->node_share[i] >= 0)
        snprintf(name, sizeof name, "Node%d", g->node_share[i]);
    else if (gen_grouped(g, i) && g->lump.size[g->lump.group[i]] > 1)
        snprintf(name, sizeof name, "Copy%d", i);
    else
        snprintf(name, sizeof name, "Task%d", i);
    int id = pepa_model_find_proc(g->pm, name);
    pepa_proc *p = id >= 0 ? pepa_const(g->pm, id) : NULL;
    if (p && gen_grouped(g, i))
        p = pepa_array(g->pm, p, g->lump.count[g->lump.group[i]], NULL, 0);
    return p;
}

/* Algorithm 3: the tasks of a subtree composed left to right, each new
 * component cooperating with what precedes it on the moves between them
 * (none between the members of a deal or farm). */
static pepa_proc *compose(gen *g, const skel_node *n, int *acts)
{
    if (n->kind == SKEL_TASK || (gen_grouped(g, n->lo) && g->lump.rep[n->lo] == n->lo &&
                                 n->hi - n->lo == g->lump.size[g->lump.group[n->lo]]))
        return part_proc(g, n->lo);
    pepa_proc *acc = compose(g, n->children[0], acts);
    for (int k = 1; k < n->nchildren && acc; k++) {
        const skel_node *c = n->children[k];
        if (gen_later_copy(g, c->lo))
            continue;                  /* the first copy's array holds it */
        pepa_proc *b = compose(g, c, acts);
        if (!b)
            return NULL;
        /* only the stages of a pipe pass items to each other */
        int na = n->kind == SKEL_PIPE ? crossing(g, n->lo, c->lo, c->hi, acts) : 0;
        acc = pepa_coop(g->pm, acc, b, acts, na);
    }
    return acc;
}

/* The first task of the first copy of task i's group. */
static int part_first(const gen *g, int i)
{
    return g->lump.lo[g->lump.group[i]];
}

/* The system of a model with Node<j> products: its parts (a task alone, or
 * the product of a node's tasks) in the order of their first task, each new
 * part cooperating with those before it on the moves between them. */
static pepa_proc *compose_parts(gen *g, int *acts)
{
    const skel_dag *d = g->dag;
    int nt = g->m->ntasks;
    int *part = malloc((size_t)nt * sizeof *part);   /* per task: its part's first task */
    if (!part)
        return NULL;
    for (int i = 0; i < nt; i++) {
        part[i] = gen_grouped(g, i) ? part_first(g, i) : i;
        for (int k = 0; k < i && g->node_share[i] >= 0; k++)
            if (g->node_share[k] == g->node_share[i]) {
                part[i] = part[k];
                break;
            }
    }
    pepa_proc *acc = NULL;
    for (int i = 0; i < nt; i++) {
        if (part[i] != i)
            continue;
        pepa_proc *b = part_proc(g, i);
        if (!b || !acc) {
            acc = b;
            if (!acc)
                break;
            continue;
        }
        /* moves between the parts before (first task < i) and this one */
        int na = 0;
        for (int e = 0; e < d->nedges; e++) {
            int f = d->edges[e].from, t = d->edges[e].to;
            if (f < 0 || t < 0)
                continue;
            if ((part[f] == i && part[t] < i) || (part[t] == i && part[f] < i))
                na = gen_add_sync(g, e, acts, na);
        }
        acc = pepa_coop(g->pm, acc, b, acts, na);
    }
    free(part);
    return acc;
}

/* The local graph of Processor<i>, the phase-type distribution of task
 * i's work of mean 1/mu_i (skel_erlang_phases, skel_h2): exponential,
 * (comp_i, mu_i); Erlang-k, k - 1 phases (work_i, k mu_i) then
 * (comp_i, k mu_i), the task taking part in every phase; hyperexponential,
 * two states, the branch of the next item picked as this one completes. */
static int proc_graph(gen *g, int i, lgraph *lg)
{
    double scv = g->m->scv[i], p, ra, rb;
    int k = skel_erlang_phases(scv), rc = 0;
    if (scv > 1) {
        skel_h2(scv, &p, &ra, &rb);
        double w[4] = { p * ra, (1 - p) * ra, p * rb, (1 - p) * rb };
        lg->nstates = 2;
        for (int t = 0; t < 4 && rc == 0; t++)
            rc = skel_lg_push(lg, (ltr){ t / 2, g->comp[i], t % 2, w[t], i, 1, 0 });
        return rc < 0 ? gen_oom(g) : 0;
    }
    lg->nstates = k;
    for (int ph = 0; ph < k && rc == 0; ph++)
        rc = skel_lg_push(lg, (ltr){ ph, ph < k - 1 ? g->work[i] : g->comp[i],
                                     ph < k - 1 ? ph + 1 : 0, (double)k, i, 1, 0 });
    return rc < 0 ? gen_oom(g) : 0;
}

/* Processor<i> (Fig. 4: (comp_i, mu_i).Processor<i> for exponential work),
 * and Network offering every move at its rate. One processor component
 * per task, not per node: a single-state component offering several
 * actions is the same chain as one per action, and this keeps the model's
 * structure independent of the placement (Benoit et al. 2004's sharing is in the
 * rate). Under Sharing=ps the processors of a shared node's tasks go into
 * its product instead. */
int gen_define_resources(gen *g, pepa_proc **procs, pepa_proc **net)
{
    skel_model *m = g->m;
    char name[64];
    *procs = NULL;
    for (int i = 0; i < m->ntasks; i++) {
        lgraph plg = { 0 };
        if (proc_graph(g, i, &plg) < 0) {
            free(plg.tr);
            return -1;
        }
        if ((g->node_share && g->node_share[i] >= 0) || gen_grouped(g, i)) {
            g->plgs[i] = plg;          /* its node's or copy's product takes it */
            continue;
        }
        int rc = gen_define_states(g, &plg, "Processor", i);
        free(plg.tr);
        if (rc < 0)
            return -1;
        snprintf(name, sizeof name, "Processor%d", i);
        pepa_proc *ref = pepa_const(g->pm, pepa_model_find_proc(g->pm, name));
        *procs = !ref ? NULL : *procs ? pepa_coop(g->pm, *procs, ref, NULL, 0) : ref;
        if (!*procs)
            return gen_oom(g);
    }
    *net = NULL;
    int nplain = 0;
    for (int k = 0; k < m->nedges; k++)
        nplain += gen_in_network(g, k);
    if (nplain == 0)
        return 0;
    int id = pepa_model_proc_id(g->pm, "Network");
    if (id < 0)
        return gen_oom(g);
    /* Balanced sum, for the same reason as choice_of (gen_states.c). */
    pepa_proc **terms = malloc((size_t)m->nedges * sizeof *terms);
    if (!terms)
        return gen_oom(g);
    int n = 0;
    for (int k = 0; k < m->nedges; k++) {
        if (!gen_in_network(g, k))
            continue;                  /* a link's, or a lumped copy's (active there) */
        gen_edge_name(name, sizeof name, "lambda", m->edges[k]);
        pepa_expr *r = pepa_rate_ref(g->pm, pepa_model_find_rate(g->pm, name));
        pepa_proc *c = pepa_const(g->pm, id);
        terms[n] = r && c ? pepa_prefix(g->pm, g->move[k], r, c) : NULL;
        if (!terms[n++]) {
            free(terms);
            return gen_oom(g);
        }
    }
    while (n > 1) {
        int w = 0;
        for (int k = 0; k < n; k += 2) {
            terms[w] = k + 1 < n ? pepa_choice(g->pm, terms[k], terms[k + 1]) : terms[k];
            if (!terms[w++]) {
                free(terms);
                return gen_oom(g);
            }
        }
        n = w;
    }
    pepa_proc *body = terms[0];
    free(terms);
    if (pepa_model_define_proc(g->pm, "Network", body, gen_nopos, g->err) < 0)
        return -1;
    *net = pepa_const(g->pm, id);
    return *net ? 0 : gen_oom(g);
}

/* Link_<i>_<j>: the component of edge k when its move has phases or a
 * buffer (skel_link_graph). */
#define LINK_MAX_STATES 100000L

static int define_link(gen *g, int k, char *name, size_t n)
{
    const skel_model *m = g->m;
    gen_edge_name(name, n, "Link", m->edges[k]);
    skel_link_in in = { m->buffer[k], m->link_scv[k], k, g->move[k],
                        g->take[k], g->xfer[k], LINK_MAX_STATES };
    lgraph lg = { 0 };
    int rc = skel_link_graph(&in, &lg);
    if (rc > 0)
        rc = diag_set(g->err, "%s: a buffer of %d items with %d phases each has more than %ld "
                      "states (a smaller Buffer= or a larger SCV=)", name, m->buffer[k],
                      skel_erlang_phases(m->link_scv[k]), LINK_MAX_STATES);
    else if (rc < 0)
        rc = gen_oom(g);
    else
        rc = gen_define_states(g, &lg, name, -1);
    free(lg.tr);
    return rc;
}

/* sys cooperating with edge k's link on its move, and on the take (buffer)
 * or the phases (rendezvous), which the link shares with the tasks. */
static pepa_proc *with_link(gen *g, pepa_proc *sys, int k, int *acts)
{
    char name[64];
    if (define_link(g, k, name, sizeof name) < 0)
        return NULL;
    pepa_proc *l = pepa_const(g->pm, pepa_model_find_proc(g->pm, name));
    int n = 0;
    acts[n++] = g->move[k];
    if (g->m->buffer[k] > 0)
        acts[n++] = g->take[k];
    else if (g->xfer[k] >= 0)
        acts[n++] = g->xfer[k];
    if (!l)
        gen_oom(g);
    return l ? pepa_coop(g->pm, sys, l, acts, n) : NULL;
}

/* The system equation: the tasks' components composed (compose, or
 * compose_parts with Node<j> products), then the loops' gates, Network,
 * the links and the processors, each cooperating on its own actions. */
int gen_system(gen *g, pepa_proc *procs, pepa_proc *net, int shared)
{
    skel_model *m = g->m;
    int nacts = m->nedges > m->ntasks ? m->nedges : m->ntasks;
    int *acts = malloc((size_t)(2 * nacts + 1) * sizeof *acts);
    if (!acts)
        return gen_oom(g);
    pepa_proc *sys = shared ? compose_parts(g, acts) : compose(g, skel_tree_root(g->tree), acts);
    for (int k = 0; k < g->dag->ngates && sys; k++) {
        pepa_proc *gt = gen_gate(g, k, acts);
        if (!gt) {
            free(acts);
            return -1;
        }
        sys = pepa_coop(g->pm, sys, gt, acts, g->gate_acts);
    }
    if (sys && net) {
        int np = 0;
        for (int k = 0; k < m->nedges; k++)
            if (gen_in_network(g, k))
                acts[np++] = g->move[k];
        sys = pepa_coop(g->pm, net, sys, acts, np);
    }
    for (int k = 0; k < m->nedges && sys; k++)
        if (!gen_edge_plain(g, k))
            sys = with_link(g, sys, k, acts);
    int ncomp = 0;
    for (int i = 0; i < m->ntasks; i++)
        if ((!g->node_share || g->node_share[i] < 0) && !gen_grouped(g, i)) {
            acts[ncomp++] = g->comp[i];
            if (g->work[i] >= 0)
                acts[ncomp++] = g->work[i];
        }
    if (sys && procs)
        sys = pepa_coop(g->pm, sys, procs, acts, ncomp);
    free(acts);
    if (!sys)
        return gen_oom(g);
    pepa_model_set_system(g->pm, sys);
    return 0;
}
