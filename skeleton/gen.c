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
#include "internal.h"

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
    int gate_acts;    /* actions of the last gate made */
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

/* ---- the local states of one task ------------------------------------- */

/* Transitions of a task's local states, built round by round; a target
 * may be a placeholder until the state it names exists. */
#define TO_NEXT (-1)      /* the start of the next round */
#define TO_JOINED (-2)    /* the state after a receive with alternatives */

typedef struct ltr {
    int from, act, to;
    double w;             /* weight of a passive rate: w * infty */
} ltr;

typedef struct lgraph {
    int nstates;
    ltr *tr;
    int ntr, cap;
} lgraph;

static int lg_add(gen *g, lgraph *lg, int from, int act, double w, int to)
{
    if (lg->ntr == lg->cap) {
        int nc = lg->cap ? 2 * lg->cap : 64;
        ltr *t = realloc(lg->tr, (size_t)nc * sizeof *t);
        if (!t)
            return oom(g);
        lg->tr = t;
        lg->cap = nc;
    }
    lg->tr[lg->ntr++] = (ltr){ from, act, to, w };
    if (++g->m->nprefixes > SKEL_MAX_PREFIXES)
        return diag_set(g->err, "the model would have more than %d activities",
                        SKEL_MAX_PREFIXES);
    return 0;
}

/* Placeholders are made within one round: only transitions from `since` on
 * can hold them. */
static void lg_patch(lgraph *lg, int since, int placeholder, int state)
{
    for (int k = since; k < lg->ntr; k++)
        if (lg->tr[k].to == placeholder)
            lg->tr[k].to = state;
}

/* The move action of task i with partner x (receive: x sends to i). */
static int move_action(gen *g, int i, int x, int receive)
{
    int e = receive ? (x == SKEL_IN ? g->in_edge[i] : skel_dag_edge(g->dag, x, i))
                    : skel_dag_edge(g->dag, i, x);
    if (e < 0)
        return diag_set(g->err, "internal error: no edge for a move of task t%d", i);
    return g->move[e];
}

/* Alternative alt of step k: one item with one member of each of its
 * groups, in any order (a lattice of the groups done so far), from state
 * `from` to `to`. */
static int exchange(gen *g, lgraph *lg, int i, const skel_flow *f, int k, int alt, int from,
                    int to, int receive)
{
    int lo = f->start[k], hi = f->start[k + 1], ngroups = 0;
    for (int j = lo; j < hi; j++)
        if ((f->alt ? f->alt[j] : 0) == alt && (f->grp ? f->grp[j] : 0) >= ngroups)
            ngroups = (f->grp ? f->grp[j] : 0) + 1;
    int full = (1 << ngroups) - 1;          /* ngroups <= SKEL_MAX_GROUPS */
    int *state = malloc((size_t)(full + 1) * sizeof *state);
    if (!state)
        return oom(g);
    state[0] = from;
    state[full] = to;
    for (int mask = 1; mask < full; mask++)
        state[mask] = lg->nstates++;
    int rc = 0;
    for (int mask = 0; mask < full && rc == 0; mask++)
        for (int j = lo; j < hi && rc == 0; j++) {
            int grp = f->grp ? f->grp[j] : 0;
            if ((f->alt ? f->alt[j] : 0) != alt || (mask >> grp & 1))
                continue;
            int act = move_action(g, i, f->tasks[j], receive);
            rc = act < 0 ? -1 : lg_add(g, lg, state[mask], act, 1.0, state[mask | 1 << grp]);
        }
    free(state);
    return rc;
}

static int nalts(const skel_flow *f, int k)
{
    int n = 1;
    for (int j = f->start[k]; f->alt && j < f->start[k + 1]; j++)
        if (f->alt[j] >= n)
            n = f->alt[j] + 1;
    return n;
}

/* The only member of alternative alt of step k, or -4 when it has more. */
static int sole(const skel_flow *f, int k, int alt)
{
    int x = -4, n = 0;
    for (int j = f->start[k]; j < f->start[k + 1]; j++)
        if ((f->alt ? f->alt[j] : 0) == alt) {
            x = f->tasks[j];
            n++;
        }
    return n == 1 ? x : -4;
}

static double alt_weight(const skel_flow *f, int k, int alt)
{
    for (int j = f->start[k]; f->weight && j < f->start[k + 1]; j++)
        if (f->alt[j] == alt)
            return f->weight[j];
    return 1.0;
}

/* One round: receive (step ks of S), compute, send (step kd of D). */
static int round_of(gen *g, lgraph *lg, int i, int cur, int ks, int kd)
{
    const skel_flow *S = &g->dag->src[i], *D = &g->dag->dst[i];
    if (S->nsteps) {
        int since = lg->ntr;
        for (int a = 0; a < nalts(S, ks); a++)
            if (exchange(g, lg, i, S, ks, a, cur, TO_JOINED, 1) < 0)
                return -1;
        cur = lg->nstates++;
        lg_patch(lg, since, TO_JOINED, cur);
    }
    int na = D->nsteps ? nalts(D, kd) : 1;
    for (int a = 0; a < na; a++) {
        int x = D->nsteps ? sole(D, kd, a) : SKEL_NONE;
        double w = na > 1 ? alt_weight(D, kd, a) : 1.0;
        if (x == i || x == SKEL_NONE) {   /* compute again / consume */
            if (lg_add(g, lg, cur, g->comp[i], w, x == i ? cur : TO_NEXT) < 0)
                return -1;
            continue;
        }
        int y = lg->nstates++;
        if (lg_add(g, lg, cur, g->comp[i], w, y) < 0 ||
            exchange(g, lg, i, D, kd, a, y, TO_NEXT, 0) < 0)
            return -1;
    }
    return 0;
}

/* A passive rate of weight w. */
static pepa_expr *passive(gen *g, double w)
{
    pepa_expr *t = pepa_infty(g->pm);
    if (!t || w == 1.0)
        return t;
    pepa_expr *n = pepa_num(g->pm, w);
    return n ? pepa_binop(g->pm, PEPA_E_MUL, n, t) : NULL;
}

/* A balanced choice over transitions tr[lo, hi) of one state, so that wide
 * farms do not make deep terms. */
static pepa_proc *choice_of(gen *g, const ltr *tr, int lo, int hi, const int *pid)
{
    if (hi - lo == 1) {
        pepa_expr *r = passive(g, tr[lo].w);
        pepa_proc *c = pepa_const(g->pm, pid[tr[lo].to]);
        return r && c ? pepa_prefix(g->pm, tr[lo].act, r, c) : NULL;
    }
    int mid = lo + (hi - lo) / 2;
    pepa_proc *a = choice_of(g, tr, lo, mid, pid);
    pepa_proc *b = a ? choice_of(g, tr, mid, hi, pid) : NULL;
    return b ? pepa_choice(g->pm, a, b) : NULL;
}

/* Definitions of the graph: a state is named when it starts the cycle,
 * offers a choice, follows one, or is reached from several places; the
 * others are inlined as prefixes. */
static int define_states(gen *g, lgraph *lg, int i)
{
    int n = lg->nstates, rc = -1;
    int *first = malloc((size_t)(n + 1) * sizeof *first);
    int *indeg = calloc((size_t)n, sizeof *indeg);
    int *named = calloc((size_t)n, sizeof *named);
    int *pid = malloc((size_t)n * sizeof *pid);
    ltr *by = malloc((size_t)(lg->ntr ? lg->ntr : 1) * sizeof *by);
    if (!first || !indeg || !named || !pid || !by) {
        oom(g);
        goto out;
    }
    /* transitions grouped by source state, in the order they were made */
    memset(first, 0, (size_t)(n + 1) * sizeof *first);
    for (int k = 0; k < lg->ntr; k++)
        first[lg->tr[k].from + 1]++;
    for (int s = 0; s < n; s++)
        first[s + 1] += first[s];
    for (int k = 0; k < lg->ntr; k++)
        by[first[lg->tr[k].from]++] = lg->tr[k];
    for (int s = n; s > 0; s--)
        first[s] = first[s - 1];
    first[0] = 0;
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
        state_name(name, sizeof name, i, nth++);
        if ((pid[s] = pepa_model_proc_id(g->pm, name)) < 0) {
            oom(g);
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
                indeg[len++] = first[r];
                r = by[first[r]].to;
            } while (!named[r] && len < n);
            body = pepa_const(g->pm, pid[r]);
            for (int j = len - 1; j >= 0 && body; j--) {
                pepa_expr *e = passive(g, by[indeg[j]].w);
                body = e ? pepa_prefix(g->pm, by[indeg[j]].act, e, body) : NULL;
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
    free(by);
    free(pid);
    free(named);
    free(indeg);
    free(first);
    return rc;
}

/* The process definitions of task i (Algorithm 2, generalised): l =
 * lcm(|S|, |D|) rounds, round k receiving by step k of its source cycle and
 * sending by step k of its destination cycle. */
static int gen_task(gen *g, int i)
{
    const skel_flow *S = &g->dag->src[i], *D = &g->dag->dst[i];
    long ls = S->nsteps ? S->nsteps : 1, ld = D->nsteps ? D->nsteps : 1;
    long l = skel_lcm(ls, ld, SKEL_MAX_PERIOD);
    if (l < 0)
        return diag_set(g->err, "task t%d: its receive/send cycle is longer than %d rounds",
                        i, SKEL_MAX_PERIOD);
    lgraph lg = { .nstates = 1 };
    int rc = 0, since = 0;
    for (long k = 0; k < l && rc == 0; k++) {
        int cur = 0;
        if (k > 0) {
            cur = lg.nstates++;
            lg_patch(&lg, since, TO_NEXT, cur);
        }
        since = lg.ntr;
        rc = round_of(g, &lg, i, cur, (int)(k % ls), (int)(k % ld));
    }
    if (rc == 0) {
        lg_patch(&lg, since, TO_NEXT, 0);
        rc = define_states(g, &lg, i);
    }
    free(lg.tr);
    return rc;
}

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
        /* only the stages of a pipe pass items to each other */
        int na = n->kind == SKEL_PIPE ? crossing(g, n->lo, c->lo, c->hi, acts) : 0;
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

/* The gate of loop k (skel_gate): Loop<k>_<c> holds c items; an item enters
 * by a move into the body from outside and leaves by a move out of it. */
static pepa_proc *gate(gen *g, int k, int *acts)
{
    const skel_gate *gt = &g->dag->gates[k];
    int nin = 0, nout = 0, ne = g->dag->nedges;
    int *enter = acts, *leave = acts + ne;
    for (int e = 0; e < ne; e++) {
        int f = g->dag->edges[e].from, t = g->dag->edges[e].to;
        int fin = f >= gt->lo && f < gt->hi, tin = t >= gt->lo && t < gt->hi;
        if (tin && !fin)
            enter[nin++] = g->move[e];
        else if (fin && !tin)
            leave[nout++] = g->move[e];
    }
    char name[64];
    int *pid = malloc((size_t)(gt->cap + 1) * sizeof *pid);
    if (!pid) {
        oom(g);
        return NULL;
    }
    for (int c = 0; c <= gt->cap; c++) {
        snprintf(name, sizeof name, c ? "Loop%d_%d" : "Loop%d", k, c);
        if ((pid[c] = pepa_model_proc_id(g->pm, name)) < 0) {
            free(pid);
            oom(g);
            return NULL;
        }
    }
    pepa_proc *res = NULL;
    for (int c = 0; c <= gt->cap; c++) {
        pepa_proc *body = NULL;
        for (int j = 0; c < gt->cap && j < nin; j++) {
            pepa_expr *r = pepa_infty(g->pm);
            pepa_proc *to = pepa_const(g->pm, pid[c + 1]);
            pepa_proc *p = r && to ? pepa_prefix(g->pm, enter[j], r, to) : NULL;
            body = !p ? NULL : body ? pepa_choice(g->pm, body, p) : p;
            if (!body)
                goto nomem;
        }
        for (int j = 0; c > 0 && j < nout; j++) {
            pepa_expr *r = pepa_infty(g->pm);
            pepa_proc *to = pepa_const(g->pm, pid[c - 1]);
            pepa_proc *p = r && to ? pepa_prefix(g->pm, leave[j], r, to) : NULL;
            body = !p ? NULL : body ? pepa_choice(g->pm, body, p) : p;
            if (!body)
                goto nomem;
        }
        snprintf(name, sizeof name, c ? "Loop%d_%d" : "Loop%d", k, c);
        if (!body) {
            diag_at(g->err, skel_tree_file(g->tree), gt->line, gt->col,
                    "this loop has no move into or out of its body");
            free(pid);
            return NULL;
        }
        if (pepa_model_define_proc(g->pm, name, body, nopos, g->err) < 0) {
            free(pid);
            return NULL;
        }
    }
    res = pepa_const(g->pm, pid[0]);
    /* its cooperation set: the enter and leave moves, contiguous */
    memmove(acts + nin, leave, (size_t)nout * sizeof *acts);
    g->gate_acts = nin + nout;
    free(pid);
    if (!res)
        oom(g);
    return res;
nomem:
    free(pid);
    oom(g);
    return NULL;
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
    int *acts = malloc((size_t)(2 * nacts + 1) * sizeof *acts);
    if (!acts)
        return oom(g);
    pepa_proc *sys = compose(g, skel_tree_root(g->tree), acts);
    for (int k = 0; k < g->dag->ngates && sys; k++) {
        pepa_proc *gt = gate(g, k, acts);
        if (!gt) {
            free(acts);
            return -1;
        }
        sys = pepa_coop(g->pm, sys, gt, acts, g->gate_acts);
    }
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
    g.comp = m->comp_action = malloc((size_t)n * sizeof *g.comp);
    g.move = m->move_action = malloc(ne * sizeof *g.move);
    m->entry = calloc((size_t)(n ? n : 1), sizeof *m->entry);
    g.in_edge = malloc((size_t)n * sizeof *g.in_edge);
    m->pepa = g.pm = pepa_model_new(skel_tree_file(t));
    if (!m->edges || !m->work || !m->data || !m->mu || !m->lambda || !g.comp || !g.move ||
        !g.in_edge || !m->entry || !m->pepa)
        goto nomem;
    if (d->nedges)
        memcpy(m->edges, d->edges, (size_t)d->nedges * sizeof *m->edges);
    for (int i = 0; i < n; i++) {
        const skel_node *task = skel_tree_task(t, i);
        m->work[i] = task->rate;
        m->data[i] = task->data;
    }
    entry_weights(skel_tree_root(t), m->entry);
    if (build(&g) < 0)
        goto fail;
    free(g.in_edge);
    return m;
nomem:
    diag_set(err, "out of memory");
fail:
    free(g.in_edge);
    skel_model_free(m);
    return NULL;
}

void skel_model_free(skel_model *m)
{
    if (!m)
        return;
    pepa_model_free(m->pepa);
    free(m->entry);
    free(m->move_action);
    free(m->comp_action);
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
