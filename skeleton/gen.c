/* skeleton/gen.c: PEPA model generation from a skeleton tree and its task
 * graph (seed 002 §4.2-4.3: Algorithm 2's task templates, Algorithm 3's
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
 * only the values of those definitions (skel_model_set_rates). */
#include "skeleton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
    const skel_tree *tree;
    const skel_dag *dag;
    skel_model *m;
    pepa_model *pm;
    int *comp;        /* per task: action id of comp_<i> */
    int *move;        /* per edge: action id of its move */
    int *in_edge;     /* per task: edge index of its input move, or -1 */
    diag *err;
} gen;

static const pepa_pos nopos = { 0, 0 };

static int oom(gen *g)
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

static void edge_name(char *buf, size_t n, const char *prefix, skel_edge e)
{
    char a[16], b[16];
    endpoint(a, sizeof a, e.from);
    endpoint(b, sizeof b, e.to);
    snprintf(buf, n, "%s_%s_%s", prefix, a, b);
}

/* Task<i> for a task's first local state, Task<i>_<k> for its k-th named one. */
static void state_name(char *buf, size_t n, int task, int k)
{
    if (k == 0)
        snprintf(buf, n, "Task%d", task);
    else
        snprintf(buf, n, "Task%d_%d", task, k);
}

/* A balanced choice over n prefixes (a[k], infty).cont, so that wide farms
 * do not make deep terms. */
static pepa_proc *choice_of(gen *g, const int *acts, int lo, int hi, int cont)
{
    if (hi - lo == 1) {
        pepa_expr *r = pepa_infty(g->pm);
        pepa_proc *c = pepa_const(g->pm, cont);
        return r && c ? pepa_prefix(g->pm, acts[lo], r, c) : NULL;
    }
    int mid = lo + (hi - lo) / 2;
    pepa_proc *a = choice_of(g, acts, lo, mid, cont);
    pepa_proc *b = a ? choice_of(g, acts, mid, hi, cont) : NULL;
    return b ? pepa_choice(g->pm, a, b) : NULL;
}

/* Action ids of one step of a flow, seen from task i. */
static int step_actions(gen *g, int i, const skel_flow *f, int step, int receive, int *acts)
{
    int n = 0;
    for (int j = f->start[step]; j < f->start[step + 1]; j++) {
        int x = f->tasks[j];
        int e = receive ? (x == SKEL_IN ? g->in_edge[i] : skel_dag_edge(g->dag, x, i))
                        : skel_dag_edge(g->dag, i, x);
        if (e < 0)
            return diag_set(g->err, "internal error: no edge for a move of task t%d", i);
        acts[n++] = g->move[e];
    }
    return n;
}

/* The process definitions of task i (Algorithm 2, generalised). */
static int gen_task(gen *g, int i)
{
    const skel_flow *S = &g->dag->src[i], *D = &g->dag->dst[i];
    long ls = S->nsteps ? S->nsteps : 1, ld = D->nsteps ? D->nsteps : 1;
    long x = ls, y = ld;                      /* l = lcm(ls, ld), bounded */
    while (y) {
        long r = x % y;
        x = y;
        y = r;
    }
    long l = ls / x * ld;
    if (l > SKEL_MAX_PERIOD)
        return diag_set(g->err, "task t%d: its receive/send cycle is longer than %d rounds",
                        i, SKEL_MAX_PERIOD);
    int per = 1 + (S->nsteps > 0) + (D->nsteps > 0);
    int m = (int)l * per;
    int maxw = 1;
    if (S->nsteps)
        for (int k = 0; k < S->nsteps; k++)
            if (S->start[k + 1] - S->start[k] > maxw)
                maxw = S->start[k + 1] - S->start[k];
    if (D->nsteps)
        for (int k = 0; k < D->nsteps; k++)
            if (D->start[k + 1] - D->start[k] > maxw)
                maxw = D->start[k + 1] - D->start[k];

    /* Elements: the actions offered at each position of the cycle. */
    int *start = malloc((size_t)(m + 1) * sizeof *start);
    int *acts = malloc((size_t)m * (size_t)maxw * sizeof *acts);
    int *named = malloc((size_t)m * sizeof *named);
    int *pid = malloc((size_t)m * sizeof *pid);
    int rc = -1;
    if (!start || !acts || !named || !pid) {
        oom(g);
        goto out;
    }
    start[0] = 0;
    int p = 0;
    for (long k = 0; k < l; k++) {
        if (S->nsteps) {
            int n = step_actions(g, i, S, (int)(k % S->nsteps), 1, acts + start[p]);
            if (n < 0)
                goto out;
            start[p + 1] = start[p] + n;
            p++;
        }
        acts[start[p]] = g->comp[i];
        start[p + 1] = start[p] + 1;
        p++;
        if (D->nsteps) {
            int n = step_actions(g, i, D, (int)(k % D->nsteps), 0, acts + start[p]);
            if (n < 0)
                goto out;
            start[p + 1] = start[p] + n;
            p++;
        }
    }
    g->m->nprefixes += start[m];
    if (g->m->nprefixes > SKEL_MAX_PREFIXES) {
        diag_set(g->err, "the model would have more than %d activities", SKEL_MAX_PREFIXES);
        goto out;
    }

    /* Local states that need a name: the first, and those around choices. */
    memset(named, 0, (size_t)m * sizeof *named);
    named[0] = 1;
    for (int q = 0; q < m; q++)
        if (start[q + 1] - start[q] > 1) {
            named[q] = 1;
            named[(q + 1) % m] = 1;
        }
    int nth = 0;
    char name[64];
    for (int q = 0; q < m; q++) {
        if (!named[q])
            continue;
        state_name(name, sizeof name, i, nth++);
        pid[q] = pepa_model_proc_id(g->pm, name);
        if (pid[q] < 0) {
            oom(g);
            goto out;
        }
    }
    nth = 0;
    for (int q = 0; q < m; q++) {
        if (!named[q])
            continue;
        pepa_proc *body;
        if (start[q + 1] - start[q] > 1) {
            body = choice_of(g, acts, start[q], start[q + 1], pid[(q + 1) % m]);
        } else {
            int r = q + 1;
            while (r < m && !named[r])
                r++;
            body = pepa_const(g->pm, pid[r % m]);
            for (int j = r - 1; j >= q && body; j--) {
                pepa_expr *e = pepa_infty(g->pm);
                body = e ? pepa_prefix(g->pm, acts[start[j]], e, body) : NULL;
            }
        }
        if (!body) {
            oom(g);
            goto out;
        }
        state_name(name, sizeof name, i, nth++);
        if (pepa_model_define_proc(g->pm, name, body, nopos, g->err) < 0)
            goto out;
    }
    rc = 0;
out:
    free(pid);
    free(named);
    free(acts);
    free(start);
    return rc;
}

/* Move actions crossing between task ranges [alo, ahi) and [blo, bhi). */
static int crossing(gen *g, int alo, int ahi, int blo, int bhi, int *acts)
{
    int n = 0;
    for (int e = 0; e < g->dag->nedges; e++) {
        int f = g->dag->edges[e].from, t = g->dag->edges[e].to;
        if ((f >= alo && f < ahi && t >= blo && t < bhi) ||
            (f >= blo && f < bhi && t >= alo && t < ahi))
            acts[n++] = g->move[e];
    }
    return n;
}

/* Algorithm 3: the tasks of a subtree composed left to right, each new
 * component cooperating with what precedes it on the moves between them
 * (none between the members of a deal or farm). */
static pepa_proc *compose(gen *g, const skel_node *n, int *acts)
{
    if (n->kind == SKEL_TASK) {
        char name[32];
        snprintf(name, sizeof name, "Task%d", n->index);
        int id = pepa_model_find_proc(g->pm, name);
        return id >= 0 ? pepa_const(g->pm, id) : NULL;
    }
    pepa_proc *acc = compose(g, n->children[0], acts);
    for (int k = 1; k < n->nchildren && acc; k++) {
        const skel_node *c = n->children[k];
        pepa_proc *b = compose(g, c, acts);
        if (!b)
            return NULL;
        int na = crossing(g, n->lo, c->lo, c->lo, c->hi, acts);
        acc = pepa_coop(g->pm, acc, b, acts, na);
    }
    return acc;
}

static int define_rates(gen *g)
{
    skel_model *m = g->m;
    char name[64];
    for (int i = 0; i < m->ntasks; i++) {
        snprintf(name, sizeof name, "mu_%d", i);
        pepa_expr *e = pepa_num(g->pm, m->work[i]);
        if (!e)
            return oom(g);
        if (pepa_model_define_rate(g->pm, name, e, nopos, g->err) < 0)
            return -1;
        m->mu[i] = e;
    }
    for (int k = 0; k < m->nedges; k++) {
        edge_name(name, sizeof name, "lambda", m->edges[k]);
        pepa_expr *e = pepa_num(g->pm, 1.0);
        if (!e)
            return oom(g);
        if (pepa_model_define_rate(g->pm, name, e, nopos, g->err) < 0)
            return -1;
        m->lambda[k] = e;
    }
    return 0;
}

static int define_actions(gen *g)
{
    char name[64];
    for (int i = 0; i < g->m->ntasks; i++) {
        snprintf(name, sizeof name, "comp_%d", i);
        if ((g->comp[i] = pepa_model_action_id(g->pm, name)) < 0)
            return oom(g);
        g->in_edge[i] = -1;
    }
    for (int k = 0; k < g->m->nedges; k++) {
        edge_name(name, sizeof name, "move", g->m->edges[k]);
        if ((g->move[k] = pepa_model_action_id(g->pm, name)) < 0)
            return oom(g);
        if (g->m->edges[k].from == SKEL_IN)
            g->in_edge[g->m->edges[k].to] = k;
    }
    return 0;
}

/* Processor<i> = (comp_i, mu_i).Processor<i>, and Network offering every
 * move at its rate: Fig. 4. One processor component per task, not per
 * node: a single-state component offering several actions is the same
 * chain as one per action, and this keeps the model's structure
 * independent of the placement (seed 000's sharing is in the rate). */
static int define_resources(gen *g, pepa_proc **procs, pepa_proc **net)
{
    skel_model *m = g->m;
    char name[64];
    *procs = NULL;
    for (int i = 0; i < m->ntasks; i++) {
        snprintf(name, sizeof name, "mu_%d", i);
        pepa_expr *r = pepa_rate_ref(g->pm, pepa_model_find_rate(g->pm, name));
        snprintf(name, sizeof name, "Processor%d", i);
        int id = pepa_model_proc_id(g->pm, name);
        pepa_proc *c = id >= 0 ? pepa_const(g->pm, id) : NULL;
        pepa_proc *body = r && c ? pepa_prefix(g->pm, g->comp[i], r, c) : NULL;
        if (!body)
            return oom(g);
        if (pepa_model_define_proc(g->pm, name, body, nopos, g->err) < 0)
            return -1;
        pepa_proc *ref = pepa_const(g->pm, id);
        *procs = !ref ? NULL : *procs ? pepa_coop(g->pm, *procs, ref, NULL, 0) : ref;
        if (!*procs)
            return oom(g);
    }
    *net = NULL;
    if (m->nedges == 0)
        return 0;
    int id = pepa_model_proc_id(g->pm, "Network");
    if (id < 0)
        return oom(g);
    /* Balanced sum, for the same reason as choice_of. */
    pepa_proc **terms = malloc((size_t)m->nedges * sizeof *terms);
    if (!terms)
        return oom(g);
    int n = 0;
    for (int k = 0; k < m->nedges; k++) {
        edge_name(name, sizeof name, "lambda", m->edges[k]);
        pepa_expr *r = pepa_rate_ref(g->pm, pepa_model_find_rate(g->pm, name));
        pepa_proc *c = pepa_const(g->pm, id);
        terms[n] = r && c ? pepa_prefix(g->pm, g->move[k], r, c) : NULL;
        if (!terms[n++]) {
            free(terms);
            return oom(g);
        }
    }
    while (n > 1) {
        int w = 0;
        for (int k = 0; k < n; k += 2) {
            terms[w] = k + 1 < n ? pepa_choice(g->pm, terms[k], terms[k + 1]) : terms[k];
            if (!terms[w++]) {
                free(terms);
                return oom(g);
            }
        }
        n = w;
    }
    pepa_proc *body = terms[0];
    free(terms);
    if (pepa_model_define_proc(g->pm, "Network", body, nopos, g->err) < 0)
        return -1;
    *net = pepa_const(g->pm, id);
    return *net ? 0 : oom(g);
}

static int build(gen *g)
{
    skel_model *m = g->m;
    pepa_proc *procs, *net;
    if (define_actions(g) < 0 || define_rates(g) < 0 || define_resources(g, &procs, &net) < 0)
        return -1;
    for (int i = 0; i < m->ntasks; i++)
        if (gen_task(g, i) < 0)
            return -1;
    int nacts = m->nedges > m->ntasks ? m->nedges : m->ntasks;
    int *acts = malloc((size_t)(nacts ? nacts : 1) * sizeof *acts);
    if (!acts)
        return oom(g);
    pepa_proc *sys = compose(g, skel_tree_root(g->tree), acts);
    if (sys && net)
        sys = pepa_coop(g->pm, net, sys, g->move, m->nedges);
    if (sys)
        sys = pepa_coop(g->pm, sys, procs, g->comp, m->ntasks);
    free(acts);
    if (!sys)
        return oom(g);
    pepa_model_set_system(g->pm, sys);
    return 0;
}

skel_model *skel_model_new(const skel_tree *t, const skel_dag *d, diag *err)
{
    int n = d->ntasks;
    skel_model *m = calloc(1, sizeof *m);
    gen g = { .tree = t, .dag = d, .m = m, .err = err };
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
    g.comp = malloc((size_t)n * sizeof *g.comp);
    g.move = malloc(ne * sizeof *g.move);
    g.in_edge = malloc((size_t)n * sizeof *g.in_edge);
    m->pepa = g.pm = pepa_model_new(skel_tree_file(t));
    if (!m->edges || !m->work || !m->data || !m->mu || !m->lambda || !g.comp || !g.move ||
        !g.in_edge || !m->pepa)
        goto nomem;
    if (d->nedges)
        memcpy(m->edges, d->edges, (size_t)d->nedges * sizeof *m->edges);
    for (int i = 0; i < n; i++) {
        const skel_node *task = skel_tree_task(t, i);
        m->work[i] = task->rate;
        m->data[i] = task->data;
    }
    if (build(&g) < 0)
        goto fail;
    free(g.in_edge);
    free(g.move);
    free(g.comp);
    return m;
nomem:
    diag_set(err, "out of memory");
fail:
    free(g.in_edge);
    free(g.move);
    free(g.comp);
    skel_model_free(m);
    return NULL;
}

void skel_model_free(skel_model *m)
{
    if (!m)
        return;
    pepa_model_free(m->pepa);
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
