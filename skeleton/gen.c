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
 * only the values of those definitions (skel_model_set_rates). */
#include "skeleton.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

typedef struct gen {
    const skel_tree *tree;
    const skel_dag *dag;
    skel_model *m;
    pepa_model *pm;
    int *comp;        /* per task: action id of comp_<i> */
    int *move;        /* per edge: action id of its move */
    int *in_edge;     /* per task: edge index of its input move, or -1 */
    int gate_acts;    /* actions of the last gate made */
    const skel_platform *plat;   /* set for a placed model (skel_model_new_placed) */
    const int *place;
    int *node_share;  /* per task: its node when it is one of several on it
                         under Sharing=ps (one product component), else -1 */
    skel_lgraph *lgs;  /* per task: its local graph, kept for the products */
    skel_lgraph *plgs; /* per task: its processor's, likewise */
    int *work;        /* per task: action id of work_<i> (its Erlang phases), or -1 */
    int *take;        /* per edge: the receiver's action (take_<i>_<j> when buffered,
                         else the move) */
    int *xfer;        /* per edge: action id of xfer_<i>_<j> (phases, transit), or -1 */
    int lumping;      /* lump interchangeable copies (skel_model_new_lumped) */
    skel_lump lump;   /* their groups (ngroups 0: none) */
    diag *err;
} gen;

/* Task i belongs to a lumped group / to one of its copies after the first
 * (which the first copy's array stands for: no definitions of its own). */
static int grouped(const gen *g, int i)
{
    return g->lump.ngroups > 0 && i >= 0 && g->lump.group[i] >= 0;
}

static int later_copy(const gen *g, int i)
{
    return grouped(g, i) && g->lump.rep[i] != i;
}

/* Edge k is a later copy's (its first copy's stands for it). */
static int lumped_edge(const gen *g, int k)
{
    return g->lump.ngroups > 0 && g->lump.edge_rep[k] != k;
}

/* Edge k is carried by a lumped copy (active there, not in Network). */
static int copy_edge(const gen *g, int k)
{
    skel_edge e = g->m->edges[k];
    return (e.from >= 0 && grouped(g, e.from)) || (e.to >= 0 && grouped(g, e.to));
}

/* Append action a to acts[0..*n) unless it is there (lumped copies share
 * their moves). */
static void add_act(int *acts, int *n, int a)
{
    for (int k = 0; k < *n; k++)
        if (acts[k] == a)
            return;
    acts[(*n)++] = a;
}

/* A move the Network rates alone: rendezvous, exponential. */
static int edge_plain(const gen *g, int e)
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
static int in_network(const gen *g, int e)
{
    return edge_plain(g, e) && !copy_edge(g, e);
}

/* acts[0..n) with edge e's synchronising actions added once (lumped
 * copies share their moves); the new count. */
static int add_sync(const gen *g, int e, int *acts, int n)
{
    int tmp[2], k = edge_sync(g, e, tmp);
    for (int j = 0; j < k; j++)
        add_act(acts, &n, tmp[j]);
    return n;
}

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

/* ---- the local states of one task ------------------------------------- */

/* Transitions of a task's local states, built round by round; a target
 * may be a placeholder until the state it names exists. */
#define TO_NEXT (-1)      /* the start of the next round */
#define TO_JOINED (-2)    /* the state after a receive with alternatives */

typedef skel_ltr ltr;
typedef skel_lgraph lgraph;

int skel_lg_push(skel_lgraph *lg, skel_ltr t)
{
    if (lg->ntr == lg->cap) {
        int nc = lg->cap ? 2 * lg->cap : 64;
        if (mem_grow((void **)&lg->tr, (size_t)nc, sizeof *lg->tr) < 0)
            return -1;
        lg->cap = nc;
    }
    lg->tr[lg->ntr++] = t;
    return 0;
}

void skel_lg_group(const skel_lgraph *lg, int *first, skel_ltr *by)
{
    int n = lg->nstates;
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
}

static int lg_add(gen *g, lgraph *lg, int from, int act, double w, int to)
{
    if (skel_lg_push(lg, (ltr){ from, act, to, w, -1, 1, 0 }) < 0)
        return oom(g);
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
static int move_edge(gen *g, int i, int x, int receive)
{
    int e = receive ? (x == SKEL_IN ? g->in_edge[i] : skel_dag_edge(g->dag, x, i))
                    : skel_dag_edge(g->dag, i, x);
    if (e < 0)
        return diag_set(g->err, "internal error: no edge for a move of task t%d", i);
    return e;
}

/* Erlang phases of a rendezvous advance only while both tasks offer the
 * move: a passive self-loop in each such state (once). */
static int xfer_loop(gen *g, lgraph *lg, int e, int state)
{
    if (g->xfer[e] < 0 || g->m->buffer[e] > 0)
        return 0;
    for (int k = 0; k < lg->ntr; k++)
        if (lg->tr[k].from == state && lg->tr[k].act == g->xfer[e])
            return 0;
    return lg_add(g, lg, state, g->xfer[e], 1.0, state);
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
            /* a later copy's move is its first copy's, at the same
             * alternative and group of this step (skel_lump_find) */
            if (later_copy(g, f->tasks[j]))
                continue;
            int e = move_edge(g, i, f->tasks[j], receive);
            int act = e < 0 ? -1 : receive ? g->take[e] : g->move[e];
            rc = act < 0 ? -1 : lg_add(g, lg, state[mask], act, 1.0, state[mask | 1 << grp]);
            if (rc == 0)
                rc = xfer_loop(g, lg, e, state[mask]);
        }
    free(state);
    return rc;
}

/* One round: receive (step ks of S), compute, send (step kd of D). */
static int round_of(gen *g, lgraph *lg, int i, int cur, int ks, int kd)
{
    const skel_flow *S = &g->dag->src[i], *D = &g->dag->dst[i];
    if (S->nsteps) {
        int since = lg->ntr;
        for (int a = 0; a < skel_flow_nalts(S, ks); a++)
            if (exchange(g, lg, i, S, ks, a, cur, TO_JOINED, 1) < 0)
                return -1;
        cur = lg->nstates++;
        lg_patch(lg, since, TO_JOINED, cur);
    }
    int na = D->nsteps ? skel_flow_nalts(D, kd) : 1;
    /* Erlang phases of the work advance only while the task computes */
    if (g->work[i] >= 0 && lg_add(g, lg, cur, g->work[i], 1.0, cur) < 0)
        return -1;
    for (int a = 0; a < na; a++) {
        int x = D->nsteps ? skel_flow_sole(D, kd, a) : SKEL_NONE;
        double w = na > 1 ? skel_flow_alt_weight(D, kd, a) : 1.0;
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

/* The rate of activity t: a passive weight, or mu_<task> * w / div. */
static pepa_expr *rate_of(gen *g, const ltr *t)
{
    if (t->rate != 0) {            /* a link's: w * lambda of its edge, or w * handoff */
        char name[64];
        if (t->rate > 0)
            edge_name(name, sizeof name, "lambda", g->m->edges[t->rate - 1]);
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
static int define_states(gen *g, const lgraph *lg, const char *prefix, int i)
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
            oom(g);
            goto out;
        }
        state_name(name, sizeof name, prefix, i, nth++);
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
        if ((g->node_share && g->node_share[i] >= 0) || grouped(g, i)) {
            g->lgs[i] = lg;            /* its node's or copy's product defines it */
            return 0;
        }
        rc = define_states(g, &lg, "Task", i);
    }
    free(lg.tr);
    return rc;
}

/* Node<j>: the product of the tasks sharing node j (skel_share_product). */
#define SHARE_MAX_STATES 100000L

static void free_graphs(lgraph *gls, int n)
{
    for (int k = 0; gls && k < n; k++)
        free(gls[k].tr);
    free(gls);
}

/* The moves into loop k's body from outside (enter, each once) and out of
 * it (leave): what its gate counts. */
static void gate_moves(const gen *g, int k, int *enter, int *nin, int *leave, int *nout)
{
    const skel_gate *gt = &g->dag->gates[k];
    for (int e = 0; e < g->dag->nedges; e++) {
        int f = g->dag->edges[e].from, t = g->dag->edges[e].to;
        int fin = f >= gt->lo && f < gt->hi, tin = t >= gt->lo && t < gt->hi;
        if (tin && !fin)
            add_act(enter, nin, g->move[e]);
        else if (fin && !tin)
            add_act(leave, nout, g->move[e]);
    }
}

/* The local graphs of the first ng loops' gates (gls[k], zeroed by the
 * caller), for a node's product to keep no more items in a loop than its
 * cap. */
static int gate_graphs(const gen *g, lgraph *gls, int ng)
{
    int ne = g->dag->nedges, rc = 0;
    int *acts = malloc(2 * (size_t)(ne ? ne : 1) * sizeof *acts);
    for (int k = 0; k < ng && acts && rc == 0; k++) {
        int nin = 0, nout = 0;
        gate_moves(g, k, acts, &nin, acts + ne, &nout);
        rc = skel_gate_graph(g->dag->gates[k].cap, acts, nin, acts + ne, nout, &gls[k]);
    }
    free(acts);
    return acts ? rc : -1;
}

/* The product of tasks [lo, hi) (those on node `node` when it is not -1,
 * with the loops' gates that fit) and their processors
 * (skel_share_product: 0, 1 too large, -1 memory). */
static int product_of(gen *g, int lo, int hi, int node, int *comp, lgraph *prod)
{
    int n = 0, ng = node >= 0 ? g->dag->ngates : 0;
    const lgraph **lgs = malloc((2 * (size_t)(hi - lo) + (size_t)ng + 1) * sizeof *lgs);
    lgraph *gls = calloc((size_t)ng + 1, sizeof *gls);
    if (!lgs || !gls || gate_graphs(g, gls, ng) < 0) {
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

/* The definitions of a product component, within the activity cap. */
static int define_product(gen *g, const lgraph *prod, const char *prefix, int i)
{
    g->m->nprefixes += prod->ntr;
    return g->m->nprefixes > SKEL_MAX_PREFIXES
               ? diag_set(g->err, "the model would have more than %d activities", SKEL_MAX_PREFIXES)
               : define_states(g, prod, prefix, i);
}

static int define_node(gen *g, int j, int *comp)
{
    lgraph prod = { 0 };
    int rc = product_of(g, 0, g->m->ntasks, j, comp, &prod), n = 0;
    for (int i = 0; i < g->m->ntasks; i++)
        n += g->node_share[i] == j;
    if (rc == 0) {
        rc = define_product(g, &prod, "Node", j);
    } else if (rc > 0) {
        rc = diag_set(g->err, "Sharing=ps: the %d tasks on node %s have more than %ld joint "
                      "local states (place fewer there, or use Sharing=static)", n,
                      g->plat->nodes[j].name, SHARE_MAX_STATES);
    } else {
        rc = oom(g);
    }
    free(prod.tr);
    return rc;
}

static int define_nodes(gen *g)
{
    int nt = g->m->ntasks, rc = 0;
    int *comp = malloc(2 * (size_t)nt * sizeof *comp);
    if (!comp)
        rc = oom(g);
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
        return oom(g);
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
        rc = oom(g);
    else if ((rc = activate(g, &prod, edge_of)) == 0)
        rc = define_product(g, &prod, size > 1 ? "Copy" : "Task", lo);
    free(prod.tr);
    return rc;
}

static int define_groups(gen *g)
{
    int na = pepa_model_nactions(g->pm), rc = 0;
    int *edge_of = malloc((size_t)(na ? na : 1) * sizeof *edge_of);
    int *comp = malloc(2 * (size_t)g->m->ntasks * sizeof *comp);
    if (!edge_of || !comp)
        rc = oom(g);
    for (int a = 0; a < na && rc == 0; a++)
        edge_of[a] = -1;
    for (int e = 0; e < g->m->nedges && rc == 0; e++)
        if (copy_edge(g, e) && !lumped_edge(g, e))
            edge_of[g->move[e]] = e;
    for (int k = 0; k < g->lump.ngroups && rc == 0; k++)
        rc = define_group(g, k, comp, edge_of);
    free(comp);
    free(edge_of);
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
                n = add_sync(g, e, acts, n);
        }
    return n;
}

/* Algorithm 3: the tasks of a subtree composed left to right, each new
 * component cooperating with what precedes it on the moves between them
 * (none between the members of a deal or farm). */
/* The process of task i's part: Task<i>, Node<j> (Sharing=ps), or the
 * array of a lumped group, Task<i>[n] or Copy<i>[n] (i its first task). */
static pepa_proc *part_proc(gen *g, int i)
{
    char name[32];
    if (g->node_share && g->node_share[i] >= 0)
        snprintf(name, sizeof name, "Node%d", g->node_share[i]);
    else if (grouped(g, i) && g->lump.size[g->lump.group[i]] > 1)
        snprintf(name, sizeof name, "Copy%d", i);
    else
        snprintf(name, sizeof name, "Task%d", i);
    int id = pepa_model_find_proc(g->pm, name);
    pepa_proc *p = id >= 0 ? pepa_const(g->pm, id) : NULL;
    if (p && grouped(g, i))
        p = pepa_array(g->pm, p, g->lump.count[g->lump.group[i]], NULL, 0);
    return p;
}

static pepa_proc *compose(gen *g, const skel_node *n, int *acts)
{
    if (n->kind == SKEL_TASK || (grouped(g, n->lo) && g->lump.rep[n->lo] == n->lo &&
                                 n->hi - n->lo == g->lump.size[g->lump.group[n->lo]]))
        return part_proc(g, n->lo);
    pepa_proc *acc = compose(g, n->children[0], acts);
    for (int k = 1; k < n->nchildren && acc; k++) {
        const skel_node *c = n->children[k];
        if (later_copy(g, c->lo))
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
        part[i] = grouped(g, i) ? part_first(g, i) : i;
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
                na = add_sync(g, e, acts, na);
        }
        acc = pepa_coop(g->pm, acc, b, acts, na);
    }
    free(part);
    return acc;
}

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
        return oom(g);
    return pepa_model_define_rate(g->pm, "handoff", e, nopos, g->err);
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
            return oom(g);
        if (!later_copy(g, i) && pepa_model_define_rate(g->pm, name, e, nopos, g->err) < 0)
            return -1;
        m->mu[i] = e;
    }
    for (int k = 0; k < m->nedges; k++) {
        edge_name(name, sizeof name, "lambda", m->edges[k]);
        pepa_expr *e = pepa_num(g->pm, 1.0);
        if (!e)
            return oom(g);
        if (!lumped_edge(g, k) && pepa_model_define_rate(g->pm, name, e, nopos, g->err) < 0)
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
        if (later_copy(g, i)) {        /* its first copy's actions */
            int r = g->lump.rep[i];
            g->comp[i] = g->comp[r];
            g->work[i] = g->work[r];
            continue;
        }
        snprintf(name, sizeof name, "comp_%d", i);
        if ((g->comp[i] = pepa_model_action_id(g->pm, name)) < 0)
            return oom(g);
        if (skel_erlang_phases(g->m->scv[i]) > 1) {
            snprintf(name, sizeof name, "work_%d", i);
            if ((g->work[i] = pepa_model_action_id(g->pm, name)) < 0)
                return oom(g);
        }
    }
    for (int k = 0; k < g->m->nedges; k++) {
        if (g->m->edges[k].from == SKEL_IN)
            g->in_edge[g->m->edges[k].to] = k;
        if (lumped_edge(g, k))
            continue;
        edge_name(name, sizeof name, "move", g->m->edges[k]);
        if ((g->move[k] = pepa_model_action_id(g->pm, name)) < 0)
            return oom(g);
        g->take[k] = g->move[k];
        g->xfer[k] = -1;
        if (g->m->buffer[k] > 0) {
            edge_name(name, sizeof name, "take", g->m->edges[k]);
            if ((g->take[k] = pepa_model_action_id(g->pm, name)) < 0)
                return oom(g);
        }
        if (g->m->buffer[k] > 0 || skel_erlang_phases(g->m->link_scv[k]) > 1) {
            edge_name(name, sizeof name, "xfer", g->m->edges[k]);
            if ((g->xfer[k] = pepa_model_action_id(g->pm, name)) < 0)
                return oom(g);
        }
    }
    for (int k = 0; k < g->m->nedges; k++)
        if (lumped_edge(g, k)) {
            int r = g->lump.edge_rep[k];
            g->move[k] = g->move[r];
            g->take[k] = g->take[r];
            g->xfer[k] = g->xfer[r];
        }
    return 0;
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
        return rc < 0 ? oom(g) : 0;
    }
    lg->nstates = k;
    for (int ph = 0; ph < k && rc == 0; ph++)
        rc = skel_lg_push(lg, (ltr){ ph, ph < k - 1 ? g->work[i] : g->comp[i],
                                     ph < k - 1 ? ph + 1 : 0, (double)k, i, 1, 0 });
    return rc < 0 ? oom(g) : 0;
}

/* Processor<i> (Fig. 4: (comp_i, mu_i).Processor<i> for exponential work),
 * and Network offering every move at its rate. One processor component
 * per task, not per node: a single-state component offering several
 * actions is the same chain as one per action, and this keeps the model's
 * structure independent of the placement (Benoit et al. 2004's sharing is in the
 * rate). Under Sharing=ps the processors of a shared node's tasks go into
 * its product instead. */
static int define_resources(gen *g, pepa_proc **procs, pepa_proc **net)
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
        if ((g->node_share && g->node_share[i] >= 0) || grouped(g, i)) {
            g->plgs[i] = plg;          /* its node's or copy's product takes it */
            continue;
        }
        int rc = define_states(g, &plg, "Processor", i);
        free(plg.tr);
        if (rc < 0)
            return -1;
        snprintf(name, sizeof name, "Processor%d", i);
        pepa_proc *ref = pepa_const(g->pm, pepa_model_find_proc(g->pm, name));
        *procs = !ref ? NULL : *procs ? pepa_coop(g->pm, *procs, ref, NULL, 0) : ref;
        if (!*procs)
            return oom(g);
    }
    *net = NULL;
    int nplain = 0;
    for (int k = 0; k < m->nedges; k++)
        nplain += in_network(g, k);
    if (nplain == 0)
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
        if (!in_network(g, k))
            continue;                  /* a link's, or a lumped copy's (active there) */
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
    int nin = 0, nout = 0;
    int *enter = acts, *leave = acts + g->dag->nedges;
    gate_moves(g, k, enter, &nin, leave, &nout);
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

/* Link_<i>_<j>: the component of edge k when its move has phases or a
 * buffer (skel_link_graph). */
#define LINK_MAX_STATES 100000L

static int define_link(gen *g, int k, char *name, size_t n)
{
    const skel_model *m = g->m;
    edge_name(name, n, "Link", m->edges[k]);
    skel_link_in in = { m->buffer[k], m->link_scv[k], k, g->move[k],
                        g->take[k], g->xfer[k], LINK_MAX_STATES };
    lgraph lg = { 0 };
    int rc = skel_link_graph(&in, &lg);
    if (rc > 0)
        rc = diag_set(g->err, "%s: a buffer of %d items with %d phases each has more than %ld "
                      "states (a smaller Buffer= or a larger SCV=)", name, m->buffer[k],
                      skel_erlang_phases(m->link_scv[k]), LINK_MAX_STATES);
    else if (rc < 0)
        rc = oom(g);
    else
        rc = define_states(g, &lg, name, -1);
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
        oom(g);
    return l ? pepa_coop(g->pm, sys, l, acts, n) : NULL;
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
    int shared = 0;
    for (int i = 0; g->node_share && i < m->ntasks; i++)
        shared |= g->node_share[i] >= 0;
    if (shared && define_nodes(g) < 0)
        return -1;
    if (g->lump.ngroups > 0 && define_groups(g) < 0)
        return -1;
    int nacts = m->nedges > m->ntasks ? m->nedges : m->ntasks;
    int *acts = malloc((size_t)(2 * nacts + 1) * sizeof *acts);
    if (!acts)
        return oom(g);
    pepa_proc *sys = shared ? compose_parts(g, acts) : compose(g, skel_tree_root(g->tree), acts);
    for (int k = 0; k < g->dag->ngates && sys; k++) {
        pepa_proc *gt = gate(g, k, acts);
        if (!gt) {
            free(acts);
            return -1;
        }
        sys = pepa_coop(g->pm, sys, gt, acts, g->gate_acts);
    }
    if (sys && net) {
        int np = 0;
        for (int k = 0; k < m->nedges; k++)
            if (in_network(g, k))
                acts[np++] = g->move[k];
        sys = pepa_coop(g->pm, net, sys, acts, np);
    }
    for (int k = 0; k < m->nedges && sys; k++)
        if (!edge_plain(g, k))
            sys = with_link(g, sys, k, acts);
    int ncomp = 0;
    for (int i = 0; i < m->ntasks; i++)
        if ((!g->node_share || g->node_share[i] < 0) && !grouped(g, i)) {
            acts[ncomp++] = g->comp[i];
            if (g->work[i] >= 0)
                acts[ncomp++] = g->work[i];
        }
    if (sys && procs)
        sys = pepa_coop(g->pm, sys, procs, acts, ncomp);
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
        return oom(g);
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
                                   : oom(g);
    for (int k = 0; rc == 0 && k < m->nedges; k++)
        plain[k] = (unsigned char)edge_plain(g, k);
    skel_lump_in in = { g->tree, g->dag, mu, lambda, m->scv, m->entry, g->node_share, plain };
    if (rc == 0 && skel_lump_find(&in, &g->lump) < 0)
        rc = oom(g);
    free(plain);
    free(mu);
    free(lambda);
    if (rc < 0 || g->lump.ngroups == 0)
        return rc;
    if (!g->lgs && (!(g->lgs = calloc((size_t)n, sizeof *g->lgs)) ||
                    !(g->plgs = calloc((size_t)n, sizeof *g->plgs))))
        return oom(g);
    for (int i = 0; i < n; i++)
        if (later_copy(g, i)) {
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
