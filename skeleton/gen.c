/* skeleton/gen.c: PEPA model generation from a skeleton tree and its task
 * graph (Yaikhom et al. 2007 §4.2-4.3: Algorithm 2's task templates, Algorithm 3's
 * system equation, Fig. 4's Processor and Network sections), built
 * directly through the pepa/ast.h constructors.
 *
 * All 16 {source pattern -> task -> destination pattern} templates are one
 * rule here: task i runs l = lcm(|S|, |D|) rounds of
 *     receive from step k of S  ->  compute  ->  send to step k of D
 * (a missing side is skipped, a producer or consumer); a step with one
 * partner is a prefix, a step with several partners (a farm) is a choice
 * over them. Every local state that starts or follows a choice gets a
 * name (Task<i>_<k>), so the choices are the bodies of definitions as
 * PEPA requires. With |S| or |D| of 1 and one kind of pattern this is
 * literally the paper's template; the paper's Farm cases place the compute
 * inside every branch, which is the same chain.
 *
 * Tasks are passive in every activity; rates come from Processor<i> and
 * Network through named rate definitions, so that a new placement changes
 * only the values of those definitions (skel_model_set_rates).
 *
 * This file: the public entry (skeleton.h), the plan of a placed model
 * (sharing, links, lumping), the actions and rates, and the order in which
 * the parts are defined (build); the parts are in gen_*.c (gen_int.h). */
#include "gen_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- questions asked of the plan, and names (for every gen_*.c) ------- */

/* Task i belongs to a lumped group / to one of its copies after the first
 * (which the first copy's array stands for: no definitions of its own). */
int gen_grouped(const gen *g, int i)
{
    return g->lump.ngroups > 0 && i >= 0 && g->lump.group[i] >= 0;
}

int gen_later_copy(const gen *g, int i)
{
    return gen_grouped(g, i) && g->lump.rep[i] != i;
}

/* Edge k is a later copy's (its first copy's stands for it). */
int gen_lumped_edge(const gen *g, int k)
{
    return g->lump.ngroups > 0 && g->lump.edge_rep[k] != k;
}

/* Edge k is carried by a lumped copy (active there, not in Network). */
int gen_copy_edge(const gen *g, int k)
{
    skel_edge e = g->m->edges[k];
    return (e.from >= 0 && gen_grouped(g, e.from)) || (e.to >= 0 && gen_grouped(g, e.to));
}

/* Append action a to acts[0..*n) unless it is there (lumped copies share
 * their moves). */
void gen_add_act(int *acts, int *n, int a)
{
    for (int k = 0; k < *n; k++)
        if (acts[k] == a)
            return;
    acts[(*n)++] = a;
}

/* A move the Network rates alone: rendezvous, exponential. */
int gen_edge_plain(const gen *g, int e)
{
    const skel_model *m = g->m;
    return m->buffer[e] == 0 && skel_erlang_phases(m->link_scv[e]) == 1 && !(m->link_scv[e] > 1);
}

/* The actions on which the two tasks of edge e synchronise directly: none
 * through a buffer (each meets the link), else the move and its phases. */
static int edge_sync(const gen *g, int e, int *acts)
{
    if (g->m->buffer[e] > 0)
        return 0;
    acts[0] = g->move[e];
    if (g->xfer[e] < 0)
        return 1;
    acts[1] = g->xfer[e];
    return 2;
}

/* Network offers edge e: a rendezvous of exponential time that no lumped
 * copy carries. */
int gen_in_network(const gen *g, int e)
{
    return gen_edge_plain(g, e) && !gen_copy_edge(g, e);
}

/* acts[0..n) with edge e's synchronising actions added once (lumped
 * copies share their moves); the new count. */
int gen_add_sync(const gen *g, int e, int *acts, int n)
{
    int tmp[2], k = edge_sync(g, e, tmp);
    for (int j = 0; j < k; j++)
        gen_add_act(acts, &n, tmp[j]);
    return n;
}

const pepa_pos gen_nopos = { 0, 0 };

int gen_oom(gen *g)
{
    return diag_set(g->err, "out of memory");
}

static void endpoint(char *buf, size_t n, int t)
{
    if (t == SKEL_IN)
        snprintf(buf, n, "in");
    else if (t == SKEL_OUT)
        snprintf(buf, n, "out");
    else
        snprintf(buf, n, "%d", t);
}

void gen_edge_name(char *buf, size_t n, const char *prefix, skel_edge e)
{
    char a[16], b[16];
    endpoint(a, sizeof a, e.from);
    endpoint(b, sizeof b, e.to);
    snprintf(buf, n, "%s_%s_%s", prefix, a, b);
}

/* ---- the actions and rates ------------------------------------------- */

/* handoff: a buffered link takes an item from its sender or gives one to
 * its receiver as fast as a move within a node (1/LocalLatency; 1 when
 * the platform gives none, as the rate-1 network). */
static int define_handoff(gen *g)
{
    int any = 0;
    for (int k = 0; k < g->m->nedges; k++)
        any |= g->m->buffer[k] > 0;
    if (!any)
        return 0;
    double h = g->plat && g->plat->local_latency > 0 ? 1 / g->plat->local_latency : 1.0;
    pepa_expr *e = pepa_num(g->pm, h);
    if (!e)
        return gen_oom(g);
    return pepa_model_define_rate(g->pm, "handoff", e, gen_nopos, g->err);
}

static int define_rates(gen *g)
{
    skel_model *m = g->m;
    char name[64];
    /* a later copy's rates are its first copy's: its NUM nodes stay
     * unnamed (skel_model_set_rates may still write them) */
    for (int i = 0; i < m->ntasks; i++) {
        snprintf(name, sizeof name, "mu_%d", i);
        pepa_expr *e = pepa_num(g->pm, m->work[i]);
        if (!e)
            return gen_oom(g);
        if (!gen_later_copy(g, i) && pepa_model_define_rate(g->pm, name, e, gen_nopos, g->err) < 0)
            return -1;
        m->mu[i] = e;
    }
    for (int k = 0; k < m->nedges; k++) {
        gen_edge_name(name, sizeof name, "lambda", m->edges[k]);
        pepa_expr *e = pepa_num(g->pm, 1.0);
        if (!e)
            return gen_oom(g);
        if (!gen_lumped_edge(g, k) && pepa_model_define_rate(g->pm, name, e, gen_nopos, g->err) < 0)
            return -1;
        m->lambda[k] = e;
    }
    return define_handoff(g);
}

static int define_actions(gen *g)
{
    char name[64];
    for (int i = 0; i < g->m->ntasks; i++) {
        g->in_edge[i] = -1;
        g->work[i] = -1;
        if (gen_later_copy(g, i)) {        /* its first copy's actions */
            int r = g->lump.rep[i];
            g->comp[i] = g->comp[r];
            g->work[i] = g->work[r];
            continue;
        }
        snprintf(name, sizeof name, "comp_%d", i);
        if ((g->comp[i] = pepa_model_action_id(g->pm, name)) < 0)
            return gen_oom(g);
        if (skel_erlang_phases(g->m->scv[i]) > 1) {
            snprintf(name, sizeof name, "work_%d", i);
            if ((g->work[i] = pepa_model_action_id(g->pm, name)) < 0)
                return gen_oom(g);
        }
    }
    for (int k = 0; k < g->m->nedges; k++) {
        if (g->m->edges[k].from == SKEL_IN)
            g->in_edge[g->m->edges[k].to] = k;
        if (gen_lumped_edge(g, k))
            continue;
        gen_edge_name(name, sizeof name, "move", g->m->edges[k]);
        if ((g->move[k] = pepa_model_action_id(g->pm, name)) < 0)
            return gen_oom(g);
        g->take[k] = g->move[k];
        g->xfer[k] = -1;
        if (g->m->buffer[k] > 0) {
            gen_edge_name(name, sizeof name, "take", g->m->edges[k]);
            if ((g->take[k] = pepa_model_action_id(g->pm, name)) < 0)
                return gen_oom(g);
        }
        if (g->m->buffer[k] > 0 || skel_erlang_phases(g->m->link_scv[k]) > 1) {
            gen_edge_name(name, sizeof name, "xfer", g->m->edges[k]);
            if ((g->xfer[k] = pepa_model_action_id(g->pm, name)) < 0)
                return gen_oom(g);
        }
    }
    for (int k = 0; k < g->m->nedges; k++)
        if (gen_lumped_edge(g, k)) {
            int r = g->lump.edge_rep[k];
            g->move[k] = g->move[r];
            g->take[k] = g->take[r];
            g->xfer[k] = g->xfer[r];
        }
    return 0;
}

/* ---- the model ------------------------------------------------------- */

/* The model's definitions, each part before those that name it, then its
 * system equation (gen_system.c). */
static int build(gen *g)
{
    skel_model *m = g->m;
    pepa_proc *procs, *net;
    if (define_actions(g) < 0 || define_rates(g) < 0 || gen_define_resources(g, &procs, &net) < 0)
        return -1;
    for (int i = 0; i < m->ntasks; i++)
        if (gen_task(g, i) < 0)
            return -1;
    int shared = 0;
    for (int i = 0; g->node_share && i < m->ntasks; i++)
        shared |= g->node_share[i] >= 0;
    if (shared && gen_define_nodes(g) < 0)
        return -1;
    if (g->lump.ngroups > 0 && gen_define_groups(g) < 0)
        return -1;
    return gen_system(g, procs, net, shared);
}

/* Items entering subtree node per computation of each task of its first
 * stage: a pipe's first component; every member of a deal or farm (each
 * item goes to one). par, choice and loop never start a skeleton
 * (skel_dag_build refuses it), so every weight is 1. */
static void entry_weights(const skel_node *node, double *entry)
{
    if (node->kind == SKEL_TASK)
        entry[node->index] = 1;
    else if (node->kind == SKEL_PIPE)
        entry_weights(node->children[0], entry);
    else
        for (int c = 0; c < node->nchildren; c++)
            entry_weights(node->children[c], entry);
}

double skel_model_throughput(const skel_model *m, const double *action_thr)
{
    double x = 0;
    for (int i = 0; i < m->ntasks; i++)
        if (m->entry[i] > 0)
            x += m->entry[i] * action_thr[m->comp_action[i]];
    return x;
}

/* Under Sharing=ps, the tasks of a node holding several become one product
 * component (node_share); elsewhere the model is placement-independent. */
static int plan_sharing(gen *g, int n)
{
    const skel_platform *p = g->plat;
    if (!p || !g->place || p->sharing != SKEL_SHARE_PS)
        return 0;
    int *load = calloc((size_t)(p->nnodes ? p->nnodes : 1), sizeof *load);
    g->node_share = malloc((size_t)n * sizeof *g->node_share);
    g->lgs = calloc((size_t)n, sizeof *g->lgs);
    g->plgs = calloc((size_t)n, sizeof *g->plgs);
    if (!load || !g->node_share || !g->lgs || !g->plgs) {
        free(load);
        return gen_oom(g);
    }
    for (int i = 0; i < n; i++) {
        if (g->place[i] < 0 || g->place[i] >= p->nnodes) {
            free(load);
            return diag_set(g->err, "task t%d is not placed on a node of %s", i, p->file);
        }
        load[g->place[i]]++;
    }
    for (int i = 0; i < n; i++)
        g->node_share[i] = load[g->place[i]] > 1 ? g->place[i] : -1;
    free(load);
    return 0;
}

/* Each move's variability and capacity (skel_platform_move_kind) in a
 * placed model; the stream's own input and output are rendezvous. The
 * placement-independent model (the search's) has them too where they do
 * not depend on the placement (skel_platform_uniform_kind: no Link= line
 * with its own SCV= or Buffer=); else it keeps the seeds' exponential
 * rendezvous. */
static void plan_links(gen *g)
{
    skel_model *m = g->m;
    double scv = 1;
    int buffer = 0;
    int uniform = g->plat && !g->place && skel_platform_uniform_kind(g->plat, &scv, &buffer);
    for (int k = 0; k < m->nedges; k++) {
        int f = m->edges[k].from, t = m->edges[k].to;
        m->link_scv[k] = uniform ? scv : 1;
        m->buffer[k] = uniform && f >= 0 && t >= 0 ? buffer : 0;
        if (!g->plat || !g->place)
            continue;
        skel_platform_move_kind(g->plat, f >= 0 ? g->place[f] : -1, t >= 0 ? g->place[t] : -1,
                                &m->link_scv[k], &m->buffer[k]);
        if (f < 0 || t < 0)
            m->buffer[k] = 0;
    }
}

/* The groups of interchangeable copies under this placement's rates
 * (skel_lump_find); a later copy counts no items of its own (its first
 * copy's comp action counts them all). */
static int plan_lumping(gen *g, int n)
{
    skel_model *m = g->m;
    if (!g->lumping || !g->plat || !g->place)
        return 0;
    size_t ne = (size_t)(m->nedges ? m->nedges : 1);
    double *mu = malloc((size_t)(n ? n : 1) * sizeof *mu);
    double *lambda = malloc(ne * sizeof *lambda);
    unsigned char *plain = malloc(ne);
    int rc = mu && lambda && plain ? skel_place_rates(m, g->plat, g->place, mu, lambda, g->err)
                                   : gen_oom(g);
    for (int k = 0; rc == 0 && k < m->nedges; k++)
        plain[k] = (unsigned char)gen_edge_plain(g, k);
    skel_lump_in in = { g->tree, g->dag, mu, lambda, m->scv, m->entry, g->node_share, plain };
    if (rc == 0 && skel_lump_find(&in, &g->lump) < 0)
        rc = gen_oom(g);
    free(plain);
    free(mu);
    free(lambda);
    if (rc < 0 || g->lump.ngroups == 0)
        return rc;
    if (!g->lgs && (!(g->lgs = calloc((size_t)n, sizeof *g->lgs)) ||
                    !(g->plgs = calloc((size_t)n, sizeof *g->plgs))))
        return gen_oom(g);
    for (int i = 0; i < n; i++)
        if (gen_later_copy(g, i)) {
            m->entry[i] = 0;
            m->lumped++;
        }
    return 0;
}

static void gen_free(gen *g, int n)
{
    skel_lump_free(&g->lump);
    for (int i = 0; g->lgs && i < n; i++)
        free(g->lgs[i].tr);
    for (int i = 0; g->plgs && i < n; i++)
        free(g->plgs[i].tr);
    free(g->plgs);
    free(g->lgs);
    free(g->node_share);
    free(g->in_edge);
}

static skel_model *model_new(gen *g, const skel_tree *t, const skel_dag *d, diag *err)
{
    int n = d->ntasks;
    skel_model *m = g->m = calloc(1, sizeof *m);
    if (!m)
        goto nomem;
    m->ntasks = n;
    m->nedges = d->nedges;
    size_t ne = (size_t)(d->nedges ? d->nedges : 1);
    m->edges = malloc(ne * sizeof *m->edges);
    m->work = malloc((size_t)n * sizeof *m->work);
    m->data = malloc((size_t)n * sizeof *m->data);
    m->mu = calloc((size_t)n, sizeof *m->mu);
    m->lambda = calloc(ne, sizeof *m->lambda);
    g->comp = m->comp_action = malloc((size_t)n * sizeof *g->comp);
    g->move = m->move_action = malloc(ne * sizeof *g->move);
    m->entry = calloc((size_t)(n ? n : 1), sizeof *m->entry);
    g->in_edge = malloc((size_t)n * sizeof *g->in_edge);
    g->work = m->work_action = malloc((size_t)(n ? n : 1) * sizeof *g->work);
    m->scv = malloc((size_t)(n ? n : 1) * sizeof *m->scv);
    m->link_scv = malloc(ne * sizeof *m->link_scv);
    m->buffer = malloc(ne * sizeof *m->buffer);
    g->take = m->take_action = malloc(ne * sizeof *g->take);
    g->xfer = m->xfer_action = malloc(ne * sizeof *g->xfer);
    m->pepa = g->pm = pepa_model_new(skel_tree_file(t));
    if (!m->edges || !m->work || !m->data || !m->mu || !m->lambda || !g->comp || !g->move ||
        !g->in_edge || !m->entry || !g->work || !m->scv || !m->link_scv || !m->buffer ||
        !g->take || !g->xfer || !m->pepa)
        goto nomem;
    if (d->nedges)
        memcpy(m->edges, d->edges, (size_t)d->nedges * sizeof *m->edges);
    for (int i = 0; i < n; i++) {
        const skel_node *task = skel_tree_task(t, i);
        m->work[i] = task->rate;
        m->data[i] = task->data;
        /* the task's scv=, else the platform's WorkSCV=, else exponential */
        m->scv[i] = task->scv > 0 ? task->scv : g->plat && g->plat->work_scv > 0 ? g->plat->work_scv : 1;
    }
    entry_weights(skel_tree_root(t), m->entry);
    plan_links(g);
    if (plan_sharing(g, n) < 0 || plan_lumping(g, n) < 0 || build(g) < 0)
        goto fail;
    for (int i = 0; g->node_share && i < n; i++)
        m->shared += g->node_share[i] >= 0;
    gen_free(g, n);
    return m;
nomem:
    diag_set(err, "out of memory");
fail:
    gen_free(g, n);
    skel_model_free(m);
    return NULL;
}

skel_model *skel_model_new(const skel_tree *t, const skel_dag *d, diag *err)
{
    gen g = { .tree = t, .dag = d, .err = err };
    return model_new(&g, t, d, err);
}

int skel_erlang_phases(double scv)
{
    if (!(scv < 1))
        return 1;
    long k = lround(1 / scv);
    return k < 1 ? 1 : k > 100 ? 100 : (int)k;
}

/* Balanced means: each branch carries half the mean, p / ra = (1 - p) / rb
 * = 1/2, and p = (1 + sqrt((scv - 1) / (scv + 1))) / 2 gives the scv. */
void skel_h2(double scv, double *p, double *ra, double *rb)
{
    *p = (1 + sqrt((scv - 1) / (scv + 1))) / 2;
    *ra = 2 * *p;
    *rb = 2 * (1 - *p);
}

static skel_model *new_placed(const skel_tree *t, const skel_dag *d, const skel_platform *p,
                              const int *node_of_task, int lumping, diag *err)
{
    gen g = { .tree = t, .dag = d, .plat = p, .place = node_of_task, .lumping = lumping,
              .err = err };
    skel_model *m = model_new(&g, t, d, err);
    if (m && node_of_task && skel_model_place(m, p, node_of_task, err) < 0) {
        skel_model_free(m);
        return NULL;
    }
    return m;
}

skel_model *skel_model_new_placed(const skel_tree *t, const skel_dag *d, const skel_platform *p,
                                  const int *node_of_task, diag *err)
{
    return new_placed(t, d, p, node_of_task, 0, err);
}

skel_model *skel_model_new_lumped(const skel_tree *t, const skel_dag *d, const skel_platform *p,
                                  const int *node_of_task, diag *err)
{
    return new_placed(t, d, p, node_of_task, 1, err);
}

void skel_model_free(skel_model *m)
{
    if (!m)
        return;
    free(m->scv);
    free(m->link_scv);
    free(m->buffer);
    pepa_model_free(m->pepa);
    free(m->entry);
    free(m->move_action);
    free(m->comp_action);
    free(m->work_action);
    free(m->take_action);
    free(m->xfer_action);
    free(m->lambda);
    free(m->mu);
    free(m->data);
    free(m->work);
    free(m->edges);
    free(m);
}

int skel_model_set_rates(skel_model *m, const double *mu, const double *lambda, diag *err)
{
    /* Check everything before changing anything: all or nothing. */
    for (int i = 0; i < m->ntasks; i++)
        if (!(mu[i] > 0) || !isfinite(mu[i]))
            return diag_set(err, "the compute rate of task t%d is not positive and finite (%g)",
                            i, mu[i]);
    for (int k = 0; k < m->nedges; k++)
        if (!(lambda[k] > 0) || !isfinite(lambda[k]))
            return diag_set(err, "a move rate is not positive and finite (%g)", lambda[k]);
    for (int i = 0; i < m->ntasks; i++)
        m->mu[i]->num = mu[i];
    for (int k = 0; k < m->nedges; k++)
        m->lambda[k]->num = lambda[k];
    return 0;
}
