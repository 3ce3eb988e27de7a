/* skeleton/approx_pass.c: the time an item spends in a one-server loop
 * (docs/approximation.md "Par, choice and loop"; approx_flow.c fits a
 * pass to it), walked over the loop's subtree (d->pass, dag_serial.c).
 *
 * With one item inside (the gate's cap 1), the body's tasks never work at
 * once but in a par's branches: a pipe's time is the sum of its elements'
 * and of the moves between them; a choice's the mixture of its branches',
 * each with its moves in and out, weighted by the branches' probabilities
 * (a farm of tasks' the race of its sender's offers, pass_farm);
 * a par's the longest of its branches' (the fork's sends and the join's
 * receives are independent exponential races in gen.c's lattices, so each
 * branch is its send, its tasks and its return, on its own); a loop's the
 * geometric sum of its passes, each after the first behind the feedback
 * move. An element is entered at, and left from, the tasks of its ends
 * (ends_of): a choice first in a body or a branch, or next to another
 * choice, is entered at each branch's first task as the sender draws it
 * (gen.c), so a move between two elements is the mixture of the pairs'
 * moves (a move between two choices is the first's branches'; a loop whose
 * body begins with a choice has the feedback in each branch). Times are kept as their first two moments (means and second
 * moments of independent parts combine exactly through the sums and
 * mixtures); a par's longest branch needs the branches' distributions,
 * and under processor sharing their tasks on one node share it: each
 * branch is built as gen.c's phases (pass_ph) and the par's chain of the
 * branches' positions solved, the node's phases sharing it (par_chain).
 * Where a branch holds a loop or a par, or the chain is too large, each is
 * fitted to its two moments (a mixture of two Erlangs of adjacent orders
 * below an scv of 1, Tijms 1994; a balanced-means H2 above) and the
 * moments of the largest are integrated from the product of their
 * distribution functions, the branches independent.
 *
 * The same walk lays a pass out at mean times for approx_flow.c's ghosts
 * (ax_pass_layout): which body task computes when, the phases their node's
 * sharers are weighed by under processor sharing. */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>

#define AX_PASS_STATES 4096   /* a par's chain of its branches' phases, at most */
#define AX_PASS_STAGES 64     /* phases of one branch in it */
#define AX_PASS_EDGES 96      /* ... and transitions between them */
#define AX_PASS_STEPS 4096    /* Simpson intervals of a par's integral */
#define AX_PASS_TAIL 1e-12    /* ... over [0, T], T where the longest branch's
                                 survival falls below this */

/* An edge's end not yet joined: the next part's start (the branch's end
 * once it is built), or held while a choice's other branches are built. */
enum { PASS_OPEN = -1, PASS_HELD = -2 };

/* One exponential phase of a par's branch: its rate, and its node under
 * processor sharing (-1: a move, or static sharing). */
typedef struct pass_stage {
    double rate;
    int node;
} pass_stage;

/* A move of a branch's phase graph from phase `from` (-1: the branch's
 * start) to phase `to`, with probability p. */
typedef struct pass_edge {
    int from, to;
    double p;
} pass_edge;

/* A par's branch as gen.c's chain has it: phases appended in order, every
 * edge to a later phase (or the end, numbered n), so that the par's chain
 * of the branches' positions is solved by back substitution. */
typedef struct pass_ph {
    pass_stage st[AX_PASS_STAGES];
    pass_edge e[AX_PASS_EDGES];
    int n, ne;
    int at[AX_PASS_STAGES + 2];   /* edges from phase f: by[at[f + 1] .. at[f + 2]) */
    int by[AX_PASS_EDGES];
} pass_ph;

typedef struct pass_mom {
    double m1, m2;            /* mean and second moment */
} pass_mom;

/* A branch's fitted distribution: with probability p Erlang-(k - 1), else
 * Erlang-k, both of rate r (k >= 1; p = 0: Erlang-k); or (h2) with
 * probability p rate r, else rate r2. */
typedef struct pass_fit {
    int k, h2;
    double p, r, r2;
} pass_fit;

static pass_mom mom_of(double mean, double var)
{
    return (pass_mom){ mean, var + mean * mean };
}

/* The sum of two independent times. */
static pass_mom mom_add(pass_mom a, pass_mom b)
{
    return (pass_mom){ a.m1 + b.m1, a.m2 + 2 * a.m1 * b.m1 + b.m2 };
}

/* Move x -> y's time (zero where there is none): over a link that holds
 * items, hand-off, transit and take (gen.c). */
static pass_mom pass_move(const ax_pass_in *in, int x, int y)
{
    int e = skel_dag_edge(in->d, x, y);
    if (e < 0)
        return (pass_mom){ 0, 0 };
    double t = 1 / in->lambda[e], h = in->handoff;
    double v = in->lscv[e] * t * t + (in->buffer[e] > 0 ? 2 / (h * h) : 0);
    return mom_of(t + (in->buffer[e] > 0 ? 2 / h : 0), v);
}

/* Whether element n is walked as one element of its pipe (a task, loop or
 * pipe), not as branches (a choice or par); it may still be entered at
 * several tasks (a choice first in it: ends_of). */
static int single(const skel_pass *n)
{
    return n->kind != SKEL_CHOICE && n->kind != SKEL_PAR && n->kind != SKEL_FARM;
}

/* The tasks an element is entered at (or left from), each with its
 * probability (skel_pass_ends_of, dag_serial.c: the one rule, which
 * decides the one-server bodies too). n = 0: none (the loop's entry,
 * which the reduced graph moves, or its exit); n = -1: too many, or a par
 * at the end. */
typedef skel_pass_ends pass_end;

static pass_end ends_of(const skel_dag *d, int at, int last)
{
    pass_end e = { 0 };   /* no reader looks past e.n: for valgrind and the next reader */
    skel_pass_ends_of(d->pass, at, last, &e);
    return e;
}

/* Whether end e is one task, entered or left always. */
static int end_one(const pass_end *e)
{
    return e->n == 1 && e->p[0] == 1;
}

static pass_mom pass_move(const ax_pass_in *in, int x, int y);

/* The moves from end a to end b: the mixture of the pairs' moves, a's and
 * b's draws independent (zero where either is none). */
static pass_mom move_mix(const ax_pass_in *in, const pass_end *a, const pass_end *b)
{
    if (end_one(a) && end_one(b))
        return pass_move(in, a->task[0], b->task[0]);
    pass_mom t = { 0, 0 };
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            pass_mom m = pass_move(in, a->task[i], b->task[j]);
            t.m1 += a->p[i] * b->p[j] * m.m1;
            t.m2 += a->p[i] * b->p[j] * m.m2;
        }
    return t;
}

double ax_pass_end_prob(const skel_dag *d, int at, int task, int last)
{
    pass_end e = ends_of(d, at, last);
    double p = 0;
    for (int k = 0; k < e.n; k++)
        p += e.task[k] == task ? e.p[k] : 0;
    return p;
}

static double erlang_cdf(int k, double x)
{
    double term = exp(-x), sum = 0;
    for (int n = 0; n < k && term > 0; n++) {
        sum += term;
        term *= x / (n + 1);
    }
    return k > 0 ? 1 - sum : 1;
}

static double fit_cdf(const pass_fit *f, double t)
{
    if (f->h2)
        return 1 - f->p * exp(-f->r * t) - (1 - f->p) * exp(-f->r2 * t);
    double a = f->p > 0 ? erlang_cdf(f->k - 1, f->r * t) : 0;
    return f->p * a + (1 - f->p) * erlang_cdf(f->k, f->r * t);
}

/* Fit a time of moments m (mean > 0): its two moments exactly within
 * SKEL_MIN_SCV .. SKEL_MAX_SCV. */
static pass_fit fit_of(pass_mom m)
{
    double c = m.m2 / (m.m1 * m.m1) - 1;
    c = c < SKEL_MIN_SCV ? SKEL_MIN_SCV : c > SKEL_MAX_SCV ? SKEL_MAX_SCV : c;
    pass_fit f = { 1, 0, 0, 1 / m.m1, 0 };
    if (c > 1) {
        skel_h2(c, &f.p, &f.r, &f.r2);
        f.h2 = 1;
        f.r /= m.m1;
        f.r2 /= m.m1;
    } else if (c < 1) {
        f.k = (int)ceil(1 / c - 1e-9);
        f.p = (f.k * c - sqrt(f.k * (1 + c) - f.k * f.k * c)) / (1 + c);
        f.p = f.p < 0 ? 0 : f.p;
        f.r = (f.k - f.p) / m.m1;
    }
    return f;
}

/* 1 - P(every branch is done by t). */
static double max_survival(const pass_fit *f, int n, double t)
{
    double all = 1;
    for (int b = 0; b < n; b++)
        all *= fit_cdf(&f[b], t);
    return 1 - all;
}

/* The first two moments of the longest of n independent branches of
 * fits f: E max^j = the integral of j t^(j-1) P(max > t), by Simpson's
 * rule over [0, T]. */
static pass_mom mom_max(const pass_fit *f, int n, double longest)
{
    double T = 2 * longest;
    for (int k = 0; k < 60 && max_survival(f, n, T) > AX_PASS_TAIL; k++)
        T *= 2;
    double h = T / AX_PASS_STEPS, m1 = 0, m2 = 0;
    for (int s = 0; s <= AX_PASS_STEPS; s++) {
        double t = s * h, w = s == 0 || s == AX_PASS_STEPS ? 1 : s % 2 ? 4 : 2;
        double q = max_survival(f, n, t);
        m1 += w * q;
        m2 += w * 2 * t * q;
    }
    return (pass_mom){ m1 * h / 3, m2 * h / 3 };
}

static pass_mom pass_elem(const ax_pass_in *in, int at);

/* Append a time of mean `mean` and scv `scv` to branch g as gen.c makes
 * it (skel_erlang_phases, skel_h2), on node `node`: every open edge leads
 * to its first phase (an H2's two, as p and 1 - p); 0, or -1 when full. */
static int ph_part(pass_ph *g, double mean, double scv, int node)
{
    double p = 1, ra = 1, rb = 1;
    int h2 = scv > 1, k = h2 ? 2 : skel_erlang_phases(scv), first = g->n, ne = g->ne;
    if (h2)
        skel_h2(scv, &p, &ra, &rb);
    if (g->n + k > AX_PASS_STAGES || 2 * g->ne + k + 1 > AX_PASS_EDGES)
        return -1;
    for (int j = 0; j < k; j++)
        g->st[g->n++] = (pass_stage){ h2 ? (j ? rb : ra) / mean : k / mean, node };
    for (int e = 0; e < ne; e++) {
        if (g->e[e].to != PASS_OPEN)
            continue;
        if (h2)
            g->e[g->ne++] = (pass_edge){ g->e[e].from, first + 1, g->e[e].p * (1 - p) };
        g->e[e].to = first;
        g->e[e].p *= p;
    }
    for (int j = first; j < g->n; j++)   /* Erlang: on to the next; H2: both out */
        g->e[g->ne++] = (pass_edge){ j, h2 || j == g->n - 1 ? PASS_OPEN : j + 1, 1 };
    return 0;
}

/* Move x -> y's phases (none where there is none): a buffered link's
 * hand-off, its transit, its take (pass_move). */
static int ph_move(const ax_pass_in *in, int x, int y, pass_ph *g)
{
    int e = skel_dag_edge(in->d, x, y);
    if (e < 0)
        return 0;
    if (in->buffer[e] == 0)
        return ph_part(g, 1 / in->lambda[e], in->lscv[e], -1);
    double h = 1 / in->handoff;
    return ph_part(g, h, 1, -1) < 0 || ph_part(g, 1 / in->lambda[e], in->lscv[e], -1) < 0
                   ? -1 : ph_part(g, h, 1, -1);
}

static int ph_elem(const ax_pass_in *in, int at, pass_ph *g);
static int ph_split(const ax_pass_in *in, int at, int x, int y, pass_ph *g);

/* Branch c between tasks x and y: its move in, its time, its move out. */
static int ph_branch(const ax_pass_in *in, int c, int x, int y, pass_ph *g)
{
    const skel_pass *b = &in->d->pass[c];
    if (b->kind == SKEL_CHOICE || b->kind == SKEL_PAR)
        return ph_split(in, c, x, y, g);
    return ph_move(in, x, b->lo, g) < 0 || ph_elem(in, c, g) < 0 ? -1
                                                                  : ph_move(in, b->hi - 1, y, g);
}

/* Set every edge ending at `from` to end at `to`. */
static void ph_relink(pass_ph *g, int from, int to)
{
    for (int e = 0; e < g->ne; e++)
        g->e[e].to = g->e[e].to == from ? to : g->e[e].to;
}

/* A choice between x and y inside a par's branch: the open edges lead to
 * each branch with its probability; a nested par is not one branch's
 * phases (-1). */
static int ph_split(const ax_pass_in *in, int at, int x, int y, pass_ph *g)
{
    const skel_pass *n = &in->d->pass[at];
    pass_edge open[AX_PASS_EDGES];
    int no = 0, first = 1;
    if (n->kind != SKEL_CHOICE)
        return -1;
    for (int e = 0; e < g->ne; e++)
        if (g->e[e].to == PASS_OPEN)
            open[no++] = g->e[e];
    for (int c = at + 1; c < at + n->size; c += in->d->pass[c].size, first = 0) {
        for (int e = 0, k = 0; e < g->ne && first; e++)   /* the first branch reuses them */
            if (g->e[e].to == PASS_OPEN)
                g->e[e].p = open[k++].p * in->d->pass[c].prob;
        for (int k = 0; k < no && !first; k++) {
            if (g->ne == AX_PASS_EDGES)
                return -1;
            g->e[g->ne++] = (pass_edge){ open[k].from, PASS_OPEN, open[k].p * in->d->pass[c].prob };
        }
        if (ph_branch(in, c, x, y, g) < 0)
            return -1;
        ph_relink(g, PASS_OPEN, PASS_HELD);
    }
    ph_relink(g, PASS_HELD, PASS_OPEN);
    return 0;
}

/* Element `at`: a task's work on its node, a pipe's elements and moves
 * (pass_pipe); a loop is not, nor a choice at the pipe's end or next to
 * another (-1: the par's branches fitted instead). */
static int ph_elem(const ax_pass_in *in, int at, pass_ph *g)
{
    const skel_pass *n = &in->d->pass[at], *prev = NULL;
    if (n->kind == SKEL_TASK)
        return ph_part(g, 1 / in->mu[n->lo], in->tscv[n->lo], in->node ? in->node[n->lo] : -1);
    if (n->kind != SKEL_PIPE)
        return -1;
    for (int c = at + 1; c < at + n->size; prev = &in->d->pass[c], c += in->d->pass[c].size) {
        const skel_pass *x = &in->d->pass[c], *next = &in->d->pass[c + x->size];
        if (!single(x) && (!prev || !single(prev) || c + x->size >= at + n->size ||
                           !single(next)))
            return -1;   /* a choice at an end or by another: pass_pipe's ends */
        int rc = !single(x) ? ph_split(in, c, prev->hi - 1, next->lo, g)
                 : prev && single(prev) && ph_move(in, prev->hi - 1, x->lo, g) < 0 ? -1
                 : ph_elem(in, c, g);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Branch c of the par as its phase graph, edges indexed by their phase. */
static int ph_build(const ax_pass_in *in, int c, int x, int y, pass_ph *g)
{
    g->n = 0;
    g->ne = 1;
    g->e[0] = (pass_edge){ -1, PASS_OPEN, 1 };
    if (ph_branch(in, c, x, y, g) < 0)
        return -1;
    ph_relink(g, PASS_OPEN, g->n);
    for (int f = 0; f < g->n + 2; f++)
        g->at[f] = 0;
    for (int e = 0; e < g->ne; e++)
        g->at[g->e[e].from + 2]++;
    for (int f = 1; f < g->n + 2; f++)
        g->at[f] += g->at[f - 1];
    int next[AX_PASS_STAGES + 2];
    for (int f = 0; f < g->n + 2; f++)
        next[f] = g->at[f];
    for (int e = 0; e < g->ne; e++)
        g->by[next[g->e[e].from + 1]++] = e;
    return 0;
}

/* A par's chain: its branches' graphs, the states' mixed radix, and each
 * state's moments of the time to the last branch's end. */
typedef struct pass_chain {
    pass_ph g[SKEL_MAX_GROUPS];
    int nb, radix[SKEL_MAX_GROUPS];
    double m1[AX_PASS_STATES], m2[AX_PASS_STATES];
} pass_chain;

/* State s's moments from those it moves to (all of higher code): each
 * branch's phase at its rate, shared with the other branches' phases on
 * its node (Sharing=ps). */
static void chain_state(pass_chain *ch, int s)
{
    int pos[SKEL_MAX_GROUPS];
    for (int b = 0; b < ch->nb; b++)
        pos[b] = s / ch->radix[b] % (ch->g[b].n + 1);
    double r = 0, a1 = 0, a2 = 0;
    for (int b = 0; b < ch->nb; b++) {
        const pass_ph *g = &ch->g[b];
        if (pos[b] == g->n)
            continue;
        int node = g->st[pos[b]].node, share = 0;
        for (int o = 0; o < ch->nb && node >= 0; o++)
            share += pos[o] < ch->g[o].n && ch->g[o].st[pos[o]].node == node;
        double q = g->st[pos[b]].rate / (share > 1 ? share : 1);
        r += q;
        for (int k = g->at[pos[b] + 1]; k < g->at[pos[b] + 2]; k++) {
            const pass_edge *e = &g->e[g->by[k]];
            int t = s + (e->to - pos[b]) * ch->radix[b];
            a1 += q * e->p * ch->m1[t];
            a2 += q * e->p * ch->m2[t];
        }
    }
    ch->m1[s] = r > 0 ? (1 + a1) / r : 0;
    ch->m2[s] = r > 0 ? (2 * ch->m1[s] + a2) / r : 0;
}

/* The moments from the branches' starts (branch b on, state code s so
 * far, weight w). */
static pass_mom chain_start(const pass_chain *ch, int b, int s, double w)
{
    if (b == ch->nb)
        return (pass_mom){ w * ch->m1[s], w * ch->m2[s] };
    pass_mom t = { 0, 0 };
    const pass_ph *g = &ch->g[b];
    for (int k = g->at[0]; k < g->at[1]; k++) {
        const pass_edge *e = &g->e[g->by[k]];
        pass_mom u = chain_start(ch, b + 1, s + e->to * ch->radix[b], w * e->p);
        t = (pass_mom){ t.m1 + u.m1, t.m2 + u.m2 };
    }
    return t;
}

/* The first two moments of a par's longest branch from the chain of its
 * branches' phases, the branches' tasks on one node sharing it; 0 when a
 * branch holds a par or a loop or the chain passes AX_PASS_STATES. */
static int par_chain(const ax_pass_in *in, int at, int x, int y, pass_mom *out)
{
    pass_chain *ch = calloc(1, sizeof *ch);
    const skel_pass *n = &in->d->pass[at];
    int states = 1, ok = ch != NULL;
    for (int c = at + 1; ok && c < at + n->size; c += in->d->pass[c].size, ch->nb++) {
        ok = ch->nb < SKEL_MAX_GROUPS && ph_build(in, c, x, y, &ch->g[ch->nb]) == 0 &&
             (long)states * (ch->g[ch->nb].n + 1) <= AX_PASS_STATES;
        if (ok) {
            ch->radix[ch->nb] = states;
            states *= ch->g[ch->nb].n + 1;
        }
    }
    for (int s = states - 1; ok && s >= 0; s--)
        chain_state(ch, s);
    if (ok)
        *out = chain_start(ch, 0, 0, 1);
    free(ch);
    return ok;
}

static pass_mom pass_split(const ax_pass_in *in, int at, const pass_end *x,
                           const pass_end *y);
static pass_mom pass_pipe(const ax_pass_in *in, int at, const pass_end *x, const pass_end *y);

/* Branch c of a choice or par entered from end x, left to end y: its
 * move in, its time, its move out. */
static pass_mom pass_branch(const ax_pass_in *in, int c, const pass_end *x,
                            const pass_end *y)
{
    const skel_pass *b = &in->d->pass[c];
    if (!single(b))   /* a choice's par or choice: each of its branches moves in and out */
        return pass_split(in, c, x, y);
    pass_end bi = ends_of(in->d, c, 0), bo = ends_of(in->d, c, 1);
    if (b->kind == SKEL_PIPE && !(end_one(&bi) && end_one(&bo)))
        return pass_pipe(in, c, x, y);   /* a choice at its end */
    pass_mom t = mom_add(move_mix(in, x, &bi), pass_elem(in, c));
    return mom_add(t, move_mix(in, &bo, y));
}

/* The senders of the one-server body's entry into the farm at `at` (the
 * farm first in the body: the reduced graph moves the item in), outside
 * the body, each as likely. */
static pass_end entry_senders(const ax_pass_in *in, int at)
{
    const skel_dag *d = in->d;
    pass_end s = { 0 };
    for (int e = 0; e < d->nedges; e++) {
        int a = d->edges[e].from, b = d->edges[e].to, seen = 0;
        if (a < 0 || (a >= in->blo && a < in->bhi) || b < d->pass[at].lo || b >= d->pass[at].hi)
            continue;
        for (int k = 0; k < s.n; k++)
            seen |= s.task[k] == a;
        if (!seen && s.n < SKEL_PASS_ENDS)
            s.task[s.n++] = a;
    }
    for (int k = 0; k < s.n; k++)
        s.p[k] = 1.0 / s.n;
    return s;
}

/* The rate of sender a's offers to the workers of the farm at `at`, all
 * idle: their race's (gen.c's choice over the members). */
static double race_of(const ax_pass_in *in, int at, int a)
{
    double r = 0;
    for (int w = in->d->pass[at].lo; w < in->d->pass[at].hi; w++) {
        int e = skel_dag_edge(in->d, a, w);
        r += e >= 0 ? in->lambda[e] : 0;
    }
    return r;
}

/* The odds that worker c of the farm at `at` wins the item from end x
 * (none: the entry's senders), as pass_farm weighs them. */
static double farm_odds(const ax_pass_in *in, int at, const pass_end *x, int c)
{
    pass_end s = x->n ? *x : entry_senders(in, at);
    double q = 0, tot = 0;
    for (int i = 0; i < s.n; i++) {
        double r = race_of(in, at, s.task[i]);
        int e = skel_dag_edge(in->d, s.task[i], in->d->pass[c].lo);
        q += r > 0 && e >= 0 ? s.p[i] * in->lambda[e] / r : 0;
        tot += r > 0 ? s.p[i] : 0;
    }
    return tot > 0 ? q / tot : in->d->pass[c].prob;
}

/* A farm of tasks between ends x and y, one item inside: every worker is
 * idle, so sender i's offers race, the move takes Exp(R_i) (R_i the sum
 * of its moves' rates to the workers) and worker j wins with odds
 * lambda_ij / R_i; then its work and its move out. Without x (first in
 * the body) the odds are the entry's senders', the move the reduced
 * graph's; with no sender known either (after a choice, first in a nested
 * loop: the move in was walked as a mixture) 1/K each, the serial
 * reduction's share. */
static pass_mom pass_farm(const ax_pass_in *in, int at, const pass_end *x, const pass_end *y)
{
    pass_end s = x->n ? *x : entry_senders(in, at);
    pass_mom mix = { 0, 0 };
    double tot = 0;
    for (int i = 0; i < s.n; i++) {
        double r = race_of(in, at, s.task[i]);
        pass_mom mv = x->n && r > 0 ? mom_of(1 / r, 1 / (r * r)) : (pass_mom){ 0, 0 };
        for (int c = at + 1; r > 0 && c < at + in->d->pass[at].size; c += in->d->pass[c].size) {
            int e = skel_dag_edge(in->d, s.task[i], in->d->pass[c].lo);
            double q = e >= 0 ? s.p[i] * in->lambda[e] / r : 0;
            pass_end wo = ends_of(in->d, c, 1);
            pass_mom b = mom_add(mom_add(mv, pass_elem(in, c)), move_mix(in, &wo, y));
            mix = (pass_mom){ mix.m1 + q * b.m1, mix.m2 + q * b.m2 };
            tot += q;
        }
    }
    for (int c = at + 1; !(tot > 0) && c < at + in->d->pass[at].size; c += in->d->pass[c].size) {
        pass_end wo = ends_of(in->d, c, 1);   /* no sender known: 1/K each, no move */
        pass_mom b = mom_add(pass_elem(in, c), move_mix(in, &wo, y));
        mix.m1 += in->d->pass[c].prob * b.m1;
        mix.m2 += in->d->pass[c].prob * b.m2;
    }
    return tot > 0 ? (pass_mom){ mix.m1 / tot, mix.m2 / tot } : mix;
}

/* A choice or par at `at` between ends x and y: the mixture of its
 * branches, or their longest (a par's chain of phases between two tasks). */
static pass_mom pass_split(const ax_pass_in *in, int at, const pass_end *x,
                           const pass_end *y)
{
    const skel_pass *n = &in->d->pass[at];
    pass_fit f[SKEL_MAX_GROUPS];
    pass_mom mix = { 0, 0 };
    int nb = 0;
    double longest = 0;
    if (n->kind == SKEL_FARM)
        return pass_farm(in, at, x, y);
    if (n->kind == SKEL_PAR && end_one(x) && end_one(y) &&
        par_chain(in, at, x->task[0], y->task[0], &mix))
        return mix;
    for (int c = at + 1; c < at + n->size; c += in->d->pass[c].size) {
        pass_mom b = pass_branch(in, c, x, y);
        if (n->kind == SKEL_CHOICE) {
            mix.m1 += in->d->pass[c].prob * b.m1;
            mix.m2 += in->d->pass[c].prob * b.m2;
        } else if (nb < SKEL_MAX_GROUPS && b.m1 > 0) {
            f[nb++] = fit_of(b);
            longest = fmax(longest, b.m1);
        }
    }
    return n->kind == SKEL_CHOICE ? mix : nb ? mom_max(f, nb, longest) : mix;
}

/* The ends of the element of pipe `at` at child c (its last: nc) seen by
 * its neighbours. */
typedef struct pipe_step {
    pass_end in, out;         /* a choice's or par's branches move in from in,
                                 out to out; a single element's move in from in */
    int split, last;
} pipe_step;

/* Child c of pipe `at` after a child whose ends were prev (split: a choice
 * or par, whose branches moved out to this one already), the pipe entered
 * from x and left to y: a move between two choices is the first's. */
static pipe_step pipe_at(const ax_pass_in *in, int at, int c, const pass_end *prev,
                         int prev_split, const pass_end *y)
{
    const skel_pass *n = &in->d->pass[at], *x = &in->d->pass[c];
    pipe_step s = { .split = !single(x), .last = c + x->size >= at + n->size };
    s.in = prev_split ? (pass_end){ 0 } : *prev;
    s.out = s.last ? *y : ends_of(in->d, c + x->size, 0);
    return s;
}

/* A pipe's elements and the moves between them (a choice's or par's in
 * its branches), entered from end x and left to end y (none: the loop's
 * entry and exit, the reduced graph's moves). */
static pass_mom pass_pipe(const ax_pass_in *in, int at, const pass_end *x, const pass_end *y)
{
    const skel_pass *n = &in->d->pass[at];
    pass_mom t = { 0, 0 };
    pass_end prev = *x;
    int prev_split = 0;
    for (int c = at + 1; c < at + n->size; c += in->d->pass[c].size) {
        pipe_step s = pipe_at(in, at, c, &prev, prev_split, y);
        if (s.split) {
            t = mom_add(t, pass_split(in, c, &s.in, &s.out));
        } else {
            pass_end ci = ends_of(in->d, c, 0);
            if (s.in.n)
                t = mom_add(t, move_mix(in, &s.in, &ci));
            t = mom_add(t, pass_elem(in, c));
        }
        prev = ends_of(in->d, c, 1);
        prev_split = s.split;
        if (s.last && !s.split && y->n)
            t = mom_add(t, move_mix(in, &prev, y));
    }
    return t;
}

/* A loop's pass after the first, G: the feedback move and a pass. With a
 * choice first in its body the feedback's branch is the pass's (its move
 * one of the choice's branches'). */
static pass_mom pass_again(const ax_pass_in *in, int at, pass_mom p)
{
    const skel_pass *b = &in->d->pass[at + 1];
    pass_end bi = ends_of(in->d, at + 1, 0), bo = ends_of(in->d, at + 1, 1);
    if (end_one(&bi) && end_one(&bo))
        return mom_add(pass_move(in, b->hi - 1, b->lo), p);
    return pass_pipe(in, at + 1, &bo, &(pass_end){ 0 });
}

/* A loop of mean m over body P with feedback F: the first pass, then N - 1
 * more (N geometric of mean m), each after F: E S = E P + (m - 1) E G,
 * Var S = Var P + (m - 1) Var G + m (m - 1) (E G)^2, G = F + P. */
static pass_mom pass_loop(const ax_pass_in *in, int at)
{
    const skel_pass *n = &in->d->pass[at];
    double m = n->mean;
    pass_mom p = pass_elem(in, at + 1), g = pass_again(in, at, p);
    double vp = p.m2 - p.m1 * p.m1, vg = g.m2 - g.m1 * g.m1;
    return mom_of(p.m1 + (m - 1) * g.m1, vp + (m - 1) * vg + m * (m - 1) * g.m1 * g.m1);
}

/* Element `at` (a task, pipe or loop; choices and pars are their pipe's). */
static pass_mom pass_elem(const ax_pass_in *in, int at)
{
    const skel_pass *n = &in->d->pass[at];
    if (n->kind == SKEL_LOOP)
        return pass_loop(in, at);
    if (n->kind == SKEL_PIPE)
        return pass_pipe(in, at, &(pass_end){ 0 }, &(pass_end){ 0 });
    int i = n->lo;
    return mom_of(1 / in->mu[i], in->tscv[i] / (in->mu[i] * in->mu[i]));
}

double ax_pass_stay(const ax_pass_in *in, int at, double *var)
{
    pass_mom s = pass_elem(in, at);
    *var = s.m2 - s.m1 * s.m1;
    return s.m1;
}

/* The layout's walk (ax_pass_layout): pieces appended to l, an element
 * laid from time t0 with its times scaled by k and its densities by w
 * (a choice's branch stretched over the choice's span); each returns the
 * element's mean time, unscaled, as pass_elem's. */
typedef struct lay_walk {
    const ax_pass_in *in;
    ax_lay *l;
    int full;                 /* a piece did not fit */
} lay_walk;

static void lay_piece(lay_walk *c, double s0, double s1, double dens, int task)
{
    if (!(s1 > s0) || !(dens > 0))
        return;
    if (c->l->np == AX_LAY_PIECES) {
        c->full = 1;
        return;
    }
    c->l->pc[c->l->np++] = (ax_lay_piece){ s0, s1, dens, task };
}

static double lay_elem(lay_walk *c, int at, double t0, double k, double w);

/* Whether a task of the par's branch b shares its node (Sharing=ps) with
 * a task of another of its branches (the par at `at`). */
static int lay_shared(const ax_pass_in *in, int at, int b)
{
    const skel_pass *n = &in->d->pass[at], *br = &in->d->pass[b];
    for (int i = br->lo; in->node && i < br->hi; i++)
        for (int o = n->lo; o < n->hi; o++)
            if ((o < br->lo || o >= br->hi) && in->node[o] == in->node[i])
                return 1;
    return 0;
}

/* A choice's or par's branches between x and y over its span (pass_split's
 * mean): a par's all at once, each at its own means, but a branch sharing
 * a node with another stretched over the whole span (processor sharing:
 * they finish together; laid at their own means, the branches of a par
 * on one node bunch up at its start, a gap after them: test_approx_flow's
 * par body, all on one node, -6.42% that way, -3.52% stretched by the
 * span's growth alone); a choice's each stretched over the span at its
 * share of it (p T_c / span: its time per pass kept). */
static double lay_pipe(lay_walk *c, int at, const pass_end *x, const pass_end *y, double t0,
                       double k, double w);

static double lay_split(lay_walk *c, int at, const pass_end *x, const pass_end *y, double t0,
                        double k, double w)
{
    const skel_pass *n = &c->in->d->pass[at];
    double span = pass_split(c->in, at, x, y).m1;
    for (int b = at + 1; b < at + n->size; b += c->in->d->pass[b].size) {
        const skel_pass *br = &c->in->d->pass[b];
        double tb = pass_branch(c->in, b, x, y).m1, kb = k, wb = w;
        pass_end bi = ends_of(c->in->d, b, 0), bo = ends_of(c->in->d, b, 1);
        if (n->kind != SKEL_PAR && tb > 0 && span > 0) {   /* a choice's, a farm's */
            double p = n->kind == SKEL_FARM ? farm_odds(c->in, at, x, b) : br->prob;
            kb = k * span / tb;
            wb = w * p * tb / span;
        } else if (tb > 0 && lay_shared(c->in, at, b))
            kb = k * span / tb;
        if (!single(br))
            lay_split(c, b, x, y, t0, kb, wb);
        else if (br->kind == SKEL_PIPE && !(end_one(&bi) && end_one(&bo)))
            lay_pipe(c, b, x, y, t0, kb, wb);
        else
            lay_elem(c, b, t0 + kb * move_mix(c->in, x, &bi).m1, kb, wb);
    }
    return span;
}

/* A pipe laid out as pass_pipe walks it (its moves from x and to y). */
static double lay_pipe(lay_walk *c, int at, const pass_end *x, const pass_end *y, double t0,
                       double k, double w)
{
    const skel_pass *n = &c->in->d->pass[at];
    double t = 0;
    pass_end prev = *x;
    int prev_split = 0;
    for (int b = at + 1; b < at + n->size; b += c->in->d->pass[b].size) {
        pipe_step s = pipe_at(c->in, at, b, &prev, prev_split, y);
        if (s.split)
            t += lay_split(c, b, &s.in, &s.out, t0 + k * t, k, w);
        else {
            pass_end bi = ends_of(c->in->d, b, 0);
            if (s.in.n)
                t += move_mix(c->in, &s.in, &bi).m1;
            t += lay_elem(c, b, t0 + k * t, k, w);
        }
        prev = ends_of(c->in->d, b, 1);
        prev_split = s.split;
        if (s.last && !s.split && y->n)
            t += move_mix(c->in, &prev, y).m1;
    }
    return t;
}

/* A nested loop: its stay one span, each of its body's pieces spread over
 * it at the loop's mean passes (an Erlang phase would spread it over the
 * whole outer pass, approx_flow.c want_phases). */
static double lay_loop(lay_walk *c, int at, double t0, double k, double w)
{
    ax_lay *body = malloc(sizeof *body);
    double stay = pass_loop(c->in, at).m1, m = c->in->d->pass[at].mean;
    if (!body) {
        c->full = 1;
        return stay;
    }
    body->np = 0;
    lay_walk b = { c->in, body, 0 };
    lay_elem(&b, at + 1, 0, 1, 1);
    c->full |= b.full;
    for (int p = 0; p < body->np && stay > 0; p++) {
        const ax_lay_piece *q = &body->pc[p];
        lay_piece(c, t0, t0 + k * stay, w * m * (q->s1 - q->s0) * q->dens / stay, q->task);
    }
    free(body);
    return stay;
}

static double lay_elem(lay_walk *c, int at, double t0, double k, double w)
{
    const skel_pass *n = &c->in->d->pass[at];
    if (n->kind == SKEL_LOOP)
        return lay_loop(c, at, t0, k, w);
    if (n->kind == SKEL_PIPE)
        return lay_pipe(c, at, &(pass_end){ 0 }, &(pass_end){ 0 }, t0, k, w);
    double t = 1 / c->in->mu[n->lo];
    lay_piece(c, t0, t0 + k * t, w, n->lo);
    return t;
}

/* The segments of layout l over [0, total): cut at every piece's ends,
 * ends closer than a billionth of the pass merged. */
static int lay_cut(ax_lay *l, double pre, double body, double total)
{
    double cut[2 * AX_LAY_PIECES + 4] = { 0, pre, pre + body };
    int nc = 3;
    for (int p = 0; p < l->np; p++) {
        cut[nc++] = l->pc[p].s0;
        cut[nc++] = l->pc[p].s1;
    }
    for (int i = 1; i < nc; i++)   /* insertion sort: a few dozen */
        for (int j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            double t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    cut[nc++] = total;
    l->n = 0;
    for (int i = 1, s = 0; i < nc; i++) {
        if (cut[i] - cut[s] <= 1e-9 * total)
            continue;
        if (l->n == AX_GPH)
            return -1;
        l->at[l->n] = cut[s];
        l->len[l->n++] = cut[i] - cut[s];
        s = i;
    }
    return 0;
}

int ax_pass_layout(const ax_pass_in *in, int at, double pre, ax_lay *l)
{
    const skel_pass *n = &in->d->pass[at];
    pass_end bi = ends_of(in->d, at + 1, 0), bo = ends_of(in->d, at + 1, 1);
    double m = n->mean, post = move_mix(in, &bo, &bi).m1 * (m - 1) / m;
    lay_walk c = { in, l, 0 };
    l->np = 0;
    l->n = 0;
    double body = lay_elem(&c, at + 1, pre, 1, 1);
    return c.full || lay_cut(l, pre, body, pre + body + post) < 0 || l->n < 2 ? -1 : 0;
}

double ax_lay_share(const ax_lay *l, int j, int b)
{
    double s = 0, a = l->at[j], e = a + l->len[j];
    for (int p = 0; p < l->np; p++) {
        const ax_lay_piece *q = &l->pc[p];
        double o = fmin(e, q->s1) - fmax(a, q->s0);
        s += q->task == b && o > 0 ? o * q->dens : 0;
    }
    return s / l->len[j];
}
