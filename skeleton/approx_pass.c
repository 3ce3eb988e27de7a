/* skeleton/approx_pass.c: the time an item spends in a one-server loop
 * (docs/approximation.md "Par, choice and loop"; approx_flow.c fits a
 * pass to it), walked over the loop's subtree (d->pass, dag_serial.c).
 *
 * With one item inside (the gate's cap 1), the body's tasks never work at
 * once but in a par's branches: a pipe's time is the sum of its elements'
 * and of the moves between them; a choice's the mixture of its branches',
 * each with its moves in and out, weighted by the branches' probabilities;
 * a par's the longest of its branches' (the fork's sends and the join's
 * receives are independent exponential races in gen.c's lattices, so each
 * branch is its send, its tasks and its return, on its own); a loop's the
 * geometric sum of its passes, each after the first behind the feedback
 * move. Times are kept as their first two moments (means and second
 * moments of independent parts combine exactly through the sums and
 * mixtures); a par's longest branch needs the branches' distributions:
 * each is fitted to its two moments (a mixture of two Erlangs of adjacent
 * orders below an scv of 1, Tijms 1994; a balanced-means H2 above, as
 * gen.c makes a task's work) and the moments of the largest are integrated
 * from the product of their distribution functions. */
#include "approx_int.h"

#include <math.h>

#define AX_PASS_STATES 4096   /* a par's chain of its branches' stages, at most */
#define AX_PASS_STAGES 64     /* stages of one branch in it */
#define AX_PASS_STEPS 4096    /* Simpson intervals of a par's integral */
#define AX_PASS_TAIL 1e-12    /* ... over [0, T], T where the longest branch's
                                 survival falls below this */

/* One exponential stage of a par's branch: its rate, and its node under
 * processor sharing (-1: a move, or static sharing). */
typedef struct pass_stage {
    double rate;
    int node;
} pass_stage;

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

/* Whether element n enters and leaves by one task (dag_serial.c
 * single_ends: a task, a loop, a pipe of such ends), its first and last. */
static int single(const skel_pass *n)
{
    return n->kind != SKEL_CHOICE && n->kind != SKEL_PAR;
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

/* Append move x -> y to st[*n] as one exponential stage (no node), if it
 * is one (a rendezvous without phases); returns 0, or -1. */
static int stage_move(const ax_pass_in *in, int x, int y, pass_stage *st, int *n)
{
    int e = skel_dag_edge(in->d, x, y);
    if (e < 0)
        return 0;
    if (in->lscv[e] != 1 || in->buffer[e] > 0 || *n == AX_PASS_STAGES)
        return -1;
    st[(*n)++] = (pass_stage){ in->lambda[e], -1 };
    return 0;
}

/* Branch c of a par between tasks x and y as exponential stages (its
 * move in, its tasks and the moves between, its move out), each task's on
 * its node under processor sharing; the count, or -1 when the branch is
 * not a task or a pipe of tasks of exponential work and plain moves. */
static int branch_stages(const ax_pass_in *in, int c, int x, int y, pass_stage *st)
{
    const skel_pass *b = &in->d->pass[c];
    int n = 0, prev = x;
    if (b->kind != SKEL_TASK && (b->kind != SKEL_PIPE || b->size != b->hi - b->lo + 1))
        return -1;   /* a pipe of tasks alone has one node per task and itself */
    for (int i = b->lo; i < b->hi; prev = i++) {
        if (stage_move(in, prev, i, st, &n) < 0 || in->tscv[i] != 1 || n == AX_PASS_STAGES)
            return -1;
        st[n++] = (pass_stage){ in->mu[i], in->node ? in->node[i] : -1 };
    }
    return stage_move(in, prev, y, st, &n) < 0 ? -1 : n;
}

/* The first two moments of a par's longest branch from the chain of its
 * branches' stages (each branch's position; a state's moments from those
 * of the states it moves to, all of higher code: back substitution), the
 * branches' tasks on one node sharing it (Sharing=ps); 0 when a branch is
 * not of stages or the chain passes AX_PASS_STATES. */
static int par_chain(const ax_pass_in *in, int at, int x, int y, pass_mom *out)
{
    pass_stage st[SKEL_MAX_GROUPS][AX_PASS_STAGES];
    int len[SKEL_MAX_GROUPS], radix[SKEL_MAX_GROUPS], nb = 0, states = 1;
    const skel_pass *n = &in->d->pass[at];
    for (int c = at + 1; c < at + n->size; c += in->d->pass[c].size, nb++) {
        if (nb == SKEL_MAX_GROUPS || (len[nb] = branch_stages(in, c, x, y, st[nb])) < 0 ||
            (long)states * (len[nb] + 1) > AX_PASS_STATES)
            return 0;
        radix[nb] = states;
        states *= len[nb] + 1;
    }
    double m1[AX_PASS_STATES], m2[AX_PASS_STATES];
    for (int s = states - 1; s >= 0; s--) {
        int pos[SKEL_MAX_GROUPS];
        for (int b = 0; b < nb; b++)
            pos[b] = s / radix[b] % (len[b] + 1);
        double r = 0, a1 = 0, a2 = 0;
        for (int b = 0; b < nb; b++) {
            if (pos[b] == len[b])
                continue;
            int node = st[b][pos[b]].node, share = 0;
            for (int o = 0; o < nb && node >= 0; o++)
                share += pos[o] < len[o] && st[o][pos[o]].node == node;
            double q = st[b][pos[b]].rate / (share > 1 ? share : 1);
            r += q;
            a1 += q * m1[s + radix[b]];
            a2 += q * m2[s + radix[b]];
        }
        m1[s] = r > 0 ? (1 + a1) / r : 0;
        m2[s] = r > 0 ? (2 * m1[s] + a2) / r : 0;
    }
    *out = (pass_mom){ m1[0], m2[0] };
    return 1;
}

/* Branch c of a choice or par entered from task x, left to task y: its
 * move in, its time, its move out. */
static pass_mom pass_branch(const ax_pass_in *in, int c, int x, int y)
{
    const skel_pass *b = &in->d->pass[c];
    pass_mom t = mom_add(pass_move(in, x, b->lo), pass_elem(in, c));
    return mom_add(t, pass_move(in, b->hi - 1, y));
}

/* A choice or par at `at` between tasks x and y: the mixture of its
 * branches, or their longest. */
static pass_mom pass_split(const ax_pass_in *in, int at, int x, int y)
{
    const skel_pass *n = &in->d->pass[at];
    pass_fit f[SKEL_MAX_GROUPS];
    pass_mom mix = { 0, 0 };
    int nb = 0;
    double longest = 0;
    if (n->kind == SKEL_PAR && par_chain(in, at, x, y, &mix))
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

/* A pipe's elements and the moves between them (a choice's or par's in
 * its branches). */
static pass_mom pass_pipe(const ax_pass_in *in, int at)
{
    const skel_pass *n = &in->d->pass[at], *prev = NULL;
    pass_mom t = { 0, 0 };
    for (int c = at + 1; c < at + n->size; c += in->d->pass[c].size) {
        const skel_pass *x = &in->d->pass[c], *next = &in->d->pass[c + x->size];
        if (!single(x)) {
            t = mom_add(t, pass_split(in, c, prev->hi - 1, next->lo));
        } else {
            if (prev && single(prev))
                t = mom_add(t, pass_move(in, prev->hi - 1, x->lo));
            t = mom_add(t, pass_elem(in, c));
        }
        prev = x;
    }
    return t;
}

/* A loop of mean m over body P with feedback F: the first pass, then N - 1
 * more (N geometric of mean m), each after F: E S = E P + (m - 1) E G,
 * Var S = Var P + (m - 1) Var G + m (m - 1) (E G)^2, G = F + P. */
static pass_mom pass_loop(const ax_pass_in *in, int at)
{
    const skel_pass *n = &in->d->pass[at], *b = &in->d->pass[at + 1];
    double m = n->mean;
    pass_mom p = pass_elem(in, at + 1), g = mom_add(pass_move(in, b->hi - 1, b->lo), p);
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
        return pass_pipe(in, at);
    int i = n->lo;
    return mom_of(1 / in->mu[i], in->tscv[i] / (in->mu[i] * in->mu[i]));
}

double ax_pass_stay(const ax_pass_in *in, int at, double *var)
{
    pass_mom s = pass_elem(in, at);
    *var = s.m2 - s.m1 * s.m1;
    return s.m1;
}
