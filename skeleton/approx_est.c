/* skeleton/approx_est.c: the estimate of last resort, for a deal of
 * deals the windows cannot answer (docs/approximation.md, "Deals of deals
 * beyond the windows"): skel_approx_new when no window holds a move's
 * round robins (approx_layer.c short_window), skel_approx_eval when the
 * windows' fixed point falls below the one-item-at-a-time bound or, a
 * deal of deals, does not converge.
 *
 * Such a skeleton is an event graph: each task takes its items in a fixed
 * order from fixed partners (a deal's round robin), a move is a
 * rendezvous that holds both ends, no task chooses. So the time item n's
 * move from i into j ends is max(i computed n, j sent its previous item)
 * plus the move's time (the max-plus recursion, Baccelli, Cohen, Olsder
 * and Quadrat 1992), and the steady throughput is the recursion's rate,
 * sampled here (approx_estcv.c ax_est_batches: looks at 5,000 items,
 * then about 1.5 times more each up to 100,000 until the 95% half-width
 * is within 1%, a control variate on the draws) with a fixed seed
 * (opts.est_seed another, for measuring its coverage): nothing stored per
 * state.
 * Static sharing and rendezvous moves are this model exactly (the answer
 * is off by its sampling only), and so is processor sharing with every
 * node computing one task; where a node computes several, the model is
 * sampled event by event (approx_des.c: the recursion's slow-down per
 * task, as a pass of it recorded its node's tasks computing at once, was
 * +2-3% off; kept for a skeleton the events do not apply to). A move
 * with a buffer of B items is gen.c's link
 * (docs/approximation.md "Link buffers and link phases"): the sender's
 * hand-off (mean 1/handoff) starts once it has computed the item and
 * item n - B on that link has been taken (a slot free), and releases it;
 * the item's transit (mean 1/lambda) follows; the receiver's take (mean
 * 1/handoff) starts once the transit is over and it sent its previous
 * item. Items are taken in their order on the link (an event graph; the
 * model's items, alike, may be taken before an earlier one's transit
 * ends). A move time not exponential (link phases, a task's work phases)
 * is drawn from the model's own phase-type distribution (ax_draw_ph).
 * The sampling error is given: a 95% half-width by batch means.
 * Where an item's next task is not one (a farm's choice: not an event
 * graph) the model is sampled event by event instead (approx_des.c); with
 * par/choice/loop steps a rough estimate answers, unconverged (the
 * per-task cycles, each move's two ends a tandem of two servers without a
 * buffer: up to 29% off where measured, neither a bound nor accurate).
 *
 * Why not the decomposition's own means (docs/approximation.md): every
 * window that cuts the two round robins makes the fixed point sink (the
 * cyclic error, -40% to a collapse), none holds them beyond a few members
 * (deal(8) into deal(6): 629,856 states for the producer and the first
 * deal's members alone), and a zero-time relay between the two deals,
 * so that counting applies to both halves, serialises the moves the
 * two layers make in parallel (-44% on deal(8) into deal(6) before any
 * approximation, simulate). Private header approx_int.h. */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mean seconds of one of task i's receives (dir 0) or sends (dir 1): the
 * mean over its moves, which a round robin takes in turn (0 without). */
static double move_secs(const skel_approx *a, const double *lambda, int i, int dir)
{
    double t = 0;
    int n = 0;
    for (int e = 0; e < a->nedges; e++) {
        const skel_edge *ed = &a->d->edges[e];
        if (dir ? ed->from == i : ed->to == i) {
            t += 1 / lambda[e];
            n++;
        }
    }
    return n ? t / n : 0;
}

/* The members of the first step, of any task's destinations, holding
 * task i (a farm's choice: m workers); 1 when none holds it. */
static int step_size(const skel_dag *d, int i)
{
    for (int x = 0; x < d->ntasks; x++) {
        const skel_flow *f = &d->dst[x];
        for (int k = 0; k < f->nsteps; k++)
            for (int q = f->start[k]; q < f->start[k + 1]; q++)
                if (f->tasks[q] == i)
                    return f->start[k + 1] - f->start[k];
    }
    return 1;
}

/* Items per task computation (a deal's member: 1/K); where the dag does
 * not fix it (a farm's worker), one over the workers of its choice, as if
 * they shared the items evenly. */
static double visits_of(const skel_approx *a, int i)
{
    const double *v = a->d->visits;
    return v && v[i] > 0 ? v[i] : 1.0 / step_size(a->d, i);
}

/* Task i's cycle, per item it handles: 1/mu_i computing, and a receive
 * and a send moving (rendezvous: both ends are held). */
static double cycle_of(const skel_approx *a, const double *mu, const double *lambda, int i)
{
    return 1 / mu[i] + move_secs(a, lambda, i, 0) + move_secs(a, lambda, i, 1);
}

/* The job's items per second through two exponential servers of rates x
 * and y in tandem without a buffer: 1 / (1/x + 1/y - 1/(x + y)). */
static double pair_thr(double x, double y)
{
    return 1 / (1 / x + 1 / y - 1 / (x + y));
}

/* The rough estimate of pairs (not an event graph): task i alone passes
 * 1 / (v_i cycle_i) of the job's items per second; under processor
 * sharing a node computes at most one second per second. Each move's two
 * ends as a tandem of two servers at those rates (the blocking between
 * them). Not a bound: a par's or a choice's branches are not a round
 * robin (up to 29% off where measured, docs/approximation.md). est_free:
 * per task its items per second alone (scratch). */
static double pairs_rough(skel_approx *a, const double *mu, const double *lambda,
                         const int *ps_node)
{
    double best = INFINITY, *rate = a->est_free;
    for (int i = 0; i < a->ntasks; i++) {
        double v = visits_of(a, i);
        rate[i] = 1 / (v * cycle_of(a, mu, lambda, i));
        best = rate[i] < best ? rate[i] : best;
        a->util[i] = v / mu[i];           /* its seconds computing per item */
    }
    for (int i = 0; ps_node && i < a->ntasks; i++) {
        double load = 0;
        for (int j = 0; j < a->ntasks; j++)
            load += ps_node[j] == ps_node[i] ? a->util[j] : 0;
        best = 1 / load < best ? 1 / load : best;
    }
    for (int e = 0; e < a->nedges; e++) {
        int i = a->d->edges[e].from, j = a->d->edges[e].to;
        double x = i >= 0 && j >= 0 ? pair_thr(rate[i], rate[j]) : INFINITY;
        best = x < best ? x : best;
    }
    return best;
}

/* Mean time of one item alone through every task and move (as
 * ax_one_at_a_time, links as rendezvous): a lower bound. */
static double alone_secs(const skel_approx *a, const double *mu, const double *lambda)
{
    double t = 0;
    for (int i = 0; i < a->ntasks; i++)
        t += visits_of(a, i) > 1 ? visits_of(a, i) / mu[i] : 1 / mu[i];
    for (int e = 0; e < a->nedges; e++)
        t += 1 / lambda[e];
    return t;
}

/* The one task items enter (its source the input or none); -1 when
 * several (a deal or farm first) or none. */
static int entry_task(const skel_dag *d)
{
    int t = -1;
    for (int i = 0; i < d->ntasks; i++) {
        const skel_flow *f = &d->src[i];
        int in = f->nsteps == 0 || (f->nsteps == 1 && f->start[1] - f->start[0] == 1 &&
                                    f->tasks[0] == SKEL_IN);
        if (in && t >= 0)
            return -1;
        t = in ? i : t;
    }
    return t;
}

/* The task after i on the item that is i's n-th (its destination step n
 * mod its steps), SKEL_OUT at the end; -2 - 1 (AX_EST_NO) when the step
 * holds several tasks (a farm's choice, a fork): not an event graph. */
#define AX_EST_NO (-3)
static int next_of(const skel_dag *d, int i, long n)
{
    const skel_flow *f = &d->dst[i];
    if (f->nsteps == 0)
        return SKEL_OUT;
    int k = (int)(n % f->nsteps);
    return f->start[k + 1] - f->start[k] == 1 && !f->alt ? f->tasks[f->start[k]] : AX_EST_NO;
}

double ax_uniform(uint64_t *s)   /* in [0, 1), xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

uint64_t ax_est_seed(const skel_approx *a)
{
    uint64_t k = a->o.est_seed;   /* splitmix64's finaliser: nearby seeds, unrelated streams */
    if (k == 0)
        return AX_EST_SEED;
    k = (k ^ (k >> 30)) * 0xBF58476D1CE4E5B9ULL;
    k = (k ^ (k >> 27)) * 0x94D049BB133111EBULL;
    k ^= k >> 31;
    return k ? k : AX_EST_SEED;   /* xorshift's state must not be 0 */
}

double ax_draw(uint64_t *s, double mean)   /* exponential */
{
    return -mean * log(1 - ax_uniform(s));   /* 1 - u exact: log1p's cost not needed */
}

/* A time of this mean and squared coefficient of variation, of the
 * phase-type distribution gen.c gives it (link.c phases_of, a task's
 * work alike): Erlang-k below 1 (k phases, each of mean mean/k), one
 * exponential at 1, above it the balanced H2 of skel_h2 (branch a, rate
 * ra/mean, with probability p, else b at rb/mean; gen.c draws the branch
 * as the previous move or item completes, which nothing observes before
 * this one starts). */
double ax_draw_ph(uint64_t *s, double mean, double scv)
{
    if (scv == 1 || mean == 0)
        return ax_draw(s, mean);
    if (scv > 1) {
        double p, ra, rb;
        skel_h2(scv, &p, &ra, &rb);
        return ax_uniform(s) < p ? ax_draw(s, mean / ra) : ax_draw(s, mean / rb);
    }
    int k = skel_erlang_phases(scv);
    double t = 0;
    for (int q = 0; q < k; q++)
        t += ax_draw(s, mean / k);
    return t;
}

/* Edge e's move time (none: 0, a move within a node of no edge). */
static double move_time(const skel_approx *a, const double *lambda, int e, uint64_t *seed)
{
    if (e < 0)
        return 0;
    double x = ax_draw_ph(seed, 1 / lambda[e], a->est_scv[e]);
    a->est_z[a->ntasks + e] += x - 1 / lambda[e];
    return x;
}

/* Task i's compute time: its work's phases, slowed by processor sharing. */
static double compute_time(const skel_approx *a, const double *mu, int i, uint64_t *seed)
{
    double m = a->est_slow[i] / mu[i], x = ax_draw_ph(seed, m, a->scv[i]);
    a->est_z[i] += x - m;
    return x;
}

/* A hand-off's or take's time (mean 1/handoff), its control kept. */
static double handoff_time(const skel_approx *a, uint64_t *seed)
{
    double x = ax_draw(seed, 1 / a->handoff);
    a->est_z[a->ntasks + a->nedges] += x - 1 / a->handoff;
    return x;
}

/* A compute of task x from c0 to c1, recorded (the overlap pass). */
static void record(skel_approx *a, int x, double c0, double c1)
{
    long k = a->est_ivoff[x] + a->est_ivn[x];
    if (a->est_iv && k < a->est_ivoff[x + 1]) {
        a->est_iv[2 * k] = c0;
        a->est_iv[2 * k + 1] = c1;
        a->est_ivn[x]++;
    }
}

/* nitems items through the max-plus recursion of the event graph: an
 * item's move from i into j starts when i has computed it and j has
 * finished sending its previous item (rendezvous), and holds both.
 * est_free per task: when it finished its last send; est_cnt: items it
 * handled; est_slow: its compute time's factor (processor sharing). The
 * time the last of them left (or last, earlier), or -1 when an item's
 * next task is not one (not an event graph). */
static double pass_items(skel_approx *a, const double *mu, const double *lambda, long nitems,
                         uint64_t *seed, int start, double last);

/* Item c (computed then by task i) moved from i into task j >= 0 over a
 * buffered edge e (est_roff): the sender's hand-off once a slot is free,
 * the transit, the receiver's take once j is free. Sets i's release;
 * returns the take's end. */
static double buffered(skel_approx *a, const double *lambda, int e, int i, int j, double c,
                       uint64_t *seed)
{
    long nb = a->est_roff[e + 1] - a->est_roff[e];
    double *slot = &a->est_ring[a->est_roff[e] + a->est_ecnt[e]++ % nb];
    double in = (*slot > c ? *slot : c) + handoff_time(a, seed);
    a->est_free[i] = in;
    double arrived = in + move_time(a, lambda, e, seed);
    double at = a->est_free[j] > arrived ? a->est_free[j] : arrived;
    *slot = at + handoff_time(a, seed);
    return *slot;
}

/* Item c's move from task i into j (SKEL_OUT: out): a rendezvous unless
 * the edge has a buffer; sets i's release, returns when the move ends. */
static double move_item(skel_approx *a, const double *lambda, int i, int j, double c,
                        uint64_t *seed)
{
    int e = skel_dag_edge(a->d, i, j);
    if (j >= 0 && e >= 0 && a->est_roff[e + 1] > a->est_roff[e])
        return buffered(a, lambda, e, i, j, c, seed);
    double at = j >= 0 && a->est_free[j] > c ? a->est_free[j] : c;
    double end = at + move_time(a, lambda, e, seed);
    a->est_free[i] = end;
    return end;
}

static double pass_items(skel_approx *a, const double *mu, const double *lambda, long nitems,
                         uint64_t *seed, int start, double last)
{
    double out = last, *free_at = a->est_free;
    int in = skel_dag_edge(a->d, SKEL_IN, start);
    for (long n = 0; n < nitems; n++) {
        int i = start;
        double c0 = free_at[i] + move_time(a, lambda, in, seed);
        double c = c0 + compute_time(a, mu, i, seed);
        record(a, i, c0, c);
        for (;;) {
            int j = next_of(a->d, i, a->est_cnt[i]++);
            if (j == AX_EST_NO)
                return -1;
            double end = move_item(a, lambda, i, j, c, seed);
            if (j < 0) {
                out = end > out ? end : out;
                break;
            }
            c = end + compute_time(a, mu, j, seed);
            record(a, j, end, c);
            i = j;
        }
    }
    return out;
}

/* From no item. */
static uint64_t cold(skel_approx *a)
{
    for (int i = 0; i < a->ntasks; i++) {
        a->est_free[i] = 0;
        a->est_cnt[i] = 0;
        a->est_ivn[i] = 0;
    }
    for (int e = 0; e < a->nedges; e++)
        a->est_ecnt[e] = 0;
    for (int g = 0; g <= a->ntasks + a->nedges; g++)
        a->est_z[g] = 0;
    for (long k = 0; k < a->est_roff[a->nedges]; k++)
        a->est_ring[k] = 0;
    return ax_est_seed(a);
}

/* The recursion's state for ax_est_batches. */
typedef struct est_run {
    skel_approx *a;
    const double *mu, *lambda;
    uint64_t seed;
    int start;
} est_run;

static double run_pass(void *ctx, long n, double last)
{
    est_run *r = ctx;
    return pass_items(r->a, r->mu, r->lambda, n, &r->seed, r->start, last);
}

/* One sampled run of the recursion: AX_EST_WARM items, then batches
 * (ax_est_batches), whose rate is the answer (items per second; -1: not
 * an event graph), *half its 95% half-width, *items the items counted. */
static double sampled(skel_approx *a, const double *mu, const double *lambda, int start,
                      double *half, long *items)
{
    est_run r = { .a = a, .mu = mu, .lambda = lambda, .seed = cold(a), .start = start };
    double *iv = a->est_iv;
    a->est_iv = NULL;                 /* recorded by the overlap pass only */
    double t0 = pass_items(a, mu, lambda, AX_EST_WARM - AX_EST_PILOT * AX_EST_CHUNK, &r.seed,
                           start, 0);
    ax_est_cv cv = { 0 };
    if (t0 >= 0 && ax_est_pilot(run_pass, &r, a, &cv, &t0) < 0)
        t0 = -1;
    double x = ax_est_batches(run_pass, &r, &cv, a->est_prev, t0, half, items);
    a->est_iv = iv;
    return x;
}

static int cmp_ev(const void *x, const void *y)
{
    const ax_est_ev *p = x, *q = y;
    return (p->t > q->t) - (p->t < q->t);
}

/* Node v's tasks' computes as recorded, swept in time order: the work
 * each task did computing at rate 1/k (k of the node's tasks computing),
 * added to util, by G, the integral of 1/k, at its compute's start (kept
 * in est_free) and end. */
static void sweep_node(skel_approx *a, const int *ps_node, int v)
{
    long n = 0;
    for (int i = 0; i < a->ntasks; i++)
        for (long k = 0; ps_node[i] == v && k < a->est_ivn[i]; k++) {
            const double *iv = a->est_iv + 2 * (a->est_ivoff[i] + k);
            a->est_ev[n++] = (ax_est_ev){ iv[0], i, 1 };
            a->est_ev[n++] = (ax_est_ev){ iv[1], i, -1 };
        }
    qsort(a->est_ev, (size_t)n, sizeof *a->est_ev, cmp_ev);
    int k = 0;
    double g = 0;
    for (long e = 0; e < n; e++) {
        const ax_est_ev *ev = &a->est_ev[e];
        g += e > 0 && k > 0 ? (ev->t - a->est_ev[e - 1].t) / k : 0;
        if (ev->sign > 0)
            a->est_free[ev->task] = g;
        else
            a->util[ev->task] += g - a->est_free[ev->task];
        k += ev->sign;
    }
}

/* Task i's seconds computing in the recorded pass. */
static double busy_secs(const skel_approx *a, int i)
{
    double t = 0;
    for (long k = 0; k < a->est_ivn[i]; k++)
        t += a->est_iv[2 * (a->est_ivoff[i] + k) + 1] - a->est_iv[2 * (a->est_ivoff[i] + k)];
    return t;
}

static int first_on(const skel_approx *a, const int *ps_node, int v)
{
    int i = 0;
    while (ps_node[i] != ps_node[v])
        i++;
    return i;
}

/* The recursion, its computes slowed by processor sharing as recorded
 * passes of it found them (AX_EST_ROUNDS; none when ps_node is NULL):
 * its rate (-1: not an event graph), per task its share of the items and
 * its seconds computing per second. */
static double shared(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                     int start, double *half, long *items)
{
    for (int round = 0; ps_node && a->est_iv && round < AX_EST_ROUNDS; round++) {
        uint64_t seed = cold(a);
        if (pass_items(a, mu, lambda, AX_EST_OV, &seed, start, 0) < 0)
            return -1;
        for (int i = 0; i < a->ntasks; i++)
            a->util[i] = 0;
        for (int v = 0; v < a->ntasks; v++)   /* each node once: by its first task */
            if (first_on(a, ps_node, v) == v)
                sweep_node(a, ps_node, ps_node[v]);
        for (int i = 0; i < a->ntasks; i++)   /* seconds per unit of work */
            a->util[i] = a->util[i] > 0 ? busy_secs(a, i) / a->util[i] : 1;
        for (int i = 0; i < a->ntasks; i++)
            a->est_slow[i] = a->util[i];
    }
    double x = sampled(a, mu, lambda, start, half, items);
    for (int i = 0; x > 0 && i < a->ntasks; i++) {
        a->thr[i] = x * (double)a->est_cnt[i] / (double)(AX_EST_WARM + *items);
        a->util[i] = a->thr[i] * a->est_slow[i] / mu[i];
    }
    return x;
}

/* The rough estimate of pairs, where nothing else answers (par, choice,
 * loop): x its throughput, per task its share and its seconds computing. */
static double rough(skel_approx *a, const double *mu, const double *lambda, const int *ps_node)
{
    double low = 1 / alone_secs(a, mu, lambda), x = pairs_rough(a, mu, lambda, ps_node);
    x = x > low ? x : low;
    for (int i = 0; i < a->ntasks; i++) {
        a->thr[i] = x * visits_of(a, i);
        a->util[i] = a->thr[i] / mu[i];
    }
    return x;
}

/* Some node computes two tasks or more (processor sharing). */
static int shares_a_node(const skel_approx *a, const int *ps_node)
{
    for (int i = 0; ps_node && i < a->ntasks; i++)
        if (first_on(a, ps_node, i) != i)
            return 1;
    return 0;
}

/* The recursion answers an event graph unless a node is shared: its
 * sharing, a slow-down per task from recorded passes, was +2-3% off
 * simulate on deal(8) into deal(6) where the events are exact
 * (docs/approximation.md); event by event then, when that applies. */
static int by_recursion(const skel_approx *a, const int *ps_node, int start)
{
    if (start < 0 || a->d->extended)
        return 0;
    return !shares_a_node(a, ps_node) || !ax_des_applies(a->d);
}

int ax_est_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                skel_approx_result *r, diag *err)
{
    int start = entry_task(a->d);
    double half = 0, x = -1;
    long items = 0;
    if (!(a->handoff > 0 && isfinite(a->handoff)))   /* hand-offs of mean 1/0: a bug, not a deadlock */
        return diag_set(err, "approximation: internal error: the hand-off rate is %g", a->handoff);
    for (int i = 0; i < a->ntasks; i++)
        a->est_slow[i] = 1;
    memset(r, 0, sizeof *r);
    r->estimate = SKEL_APPROX_EST_GRAPH;
    if (by_recursion(a, ps_node, start))
        x = shared(a, mu, lambda, ps_node, start, &half, &items);
    if (!(x > 0) && ax_des_applies(a->d)) {   /* a farm's choice, a shared node */
        r->estimate = SKEL_APPROX_EST_EVENTS;
        x = ax_des_eval(a, mu, lambda, ps_node, &half, &items, err);
        if (x < -1)
            return -1;
    }
    r->converged = x > 0;   /* the pairs' rough estimate is not one to trust */
    r->half_width = x > 0 ? half : 0;
    r->items = x > 0 ? AX_EST_WARM + items : 0;
    if (!(x > 0)) {         /* par, choice, loop: the rough estimate of pairs */
        r->estimate = SKEL_APPROX_EST_PAIRS;
        x = rough(a, mu, lambda, ps_node);
    }
    r->throughput = x;
    r->bottleneck = skel_argmax_tied(a->util, a->ntasks);
    return 0;
}

/* Where the overlap pass records each task's computes: AX_EST_OV items
 * routed from no item (the routing is fixed: no time needed), est_ivoff
 * the prefix sums of their counts. -1 when not an event graph (no record:
 * the sharing is then by independent utilisations). */
static int ov_offsets(skel_approx *a)
{
    int start = entry_task(a->d);
    if (start < 0 || a->d->extended)
        return -1;
    for (int i = 0; i < a->ntasks; i++)
        a->est_cnt[i] = 0;
    for (long n = 0; n < AX_EST_OV; n++)
        for (int i = start; i >= 0;) {
            int j = next_of(a->d, i, a->est_cnt[i]++);
            if (j == AX_EST_NO)
                return -1;
            i = j;
        }
    for (int i = 0; i < a->ntasks; i++)
        a->est_ivoff[i + 1] = a->est_ivoff[i] + a->est_cnt[i];
    return 0;
}

/* The estimate's arrays (every workspace: skel_approx_eval falls back to
 * it, and an evaluation allocates nothing). */
int ax_est_alloc(skel_approx *a, diag *err)
{
    size_t nt = (size_t)a->ntasks + 1;
    a->est_free = malloc(nt * sizeof *a->est_free);
    a->est_slow = malloc(nt * sizeof *a->est_slow);
    a->est_cnt = malloc(nt * sizeof *a->est_cnt);
    size_t ng = nt + (size_t)a->nedges + 1;   /* the control's groups, candidates */
    a->est_z = calloc(ng, sizeof *a->est_z);
    a->est_w = calloc(ng, sizeof *a->est_w);
    a->est_prev = calloc(ng, sizeof *a->est_prev);
    a->est_pilot = malloc(AX_EST_PILOT * (2 * nt + 1) * sizeof *a->est_pilot);
    a->est_pdt = malloc(AX_EST_PILOT * sizeof *a->est_pdt);
    a->est_ivn = calloc(nt, sizeof *a->est_ivn);
    a->est_ivoff = calloc(nt + 1, sizeof *a->est_ivoff);
    a->est_roff = calloc((size_t)a->nedges + 1, sizeof *a->est_roff);   /* no buffer */
    a->est_ecnt = calloc((size_t)a->nedges + 1, sizeof *a->est_ecnt);
    a->est_scv = malloc(((size_t)a->nedges + 1) * sizeof *a->est_scv);
    if (!a->scv && (a->scv = malloc(nt * sizeof *a->scv)))   /* the estimate alone */
        for (int i = 0; i < a->ntasks; i++)
            a->scv[i] = a->o.scv ? a->o.scv[i] : 1;   /* its tasks' work phases */
    for (int e = 0; a->est_scv && e <= a->nedges; e++)
        a->est_scv[e] = 1;    /* exponential until placed */
    if (a->est_cnt && a->est_ivoff && ov_offsets(a) == 0)
        a->est_iv = malloc(2 * (size_t)a->est_ivoff[a->ntasks] * sizeof *a->est_iv);
    a->est_ev = a->est_iv ? malloc(2 * (size_t)a->est_ivoff[a->ntasks] * sizeof *a->est_ev) : NULL;
    if (!a->est_ev) {
        free(a->est_iv);          /* no record: sharing by independent utilisations */
        a->est_iv = NULL;
    }
    if (!a->util)
        a->util = calloc(nt, sizeof *a->util);
    if (!a->thr)
        a->thr = calloc(nt, sizeof *a->thr);
    return a->est_free && a->est_slow && a->est_cnt && a->est_z && a->est_w && a->est_prev &&
                   a->est_pilot && a->est_pdt && a->est_ivn && a->est_ivoff && a->util &&
                   a->thr && a->est_roff && a->est_ecnt && a->est_scv && a->scv
               ? 0
               : ax_oom(err);
}

/* The links skel_approx_place placed (per edge, ax_links_kinds), for
 * the estimate: the phases of its move times, its buffers' slots. */
int ax_est_links(skel_approx *a, const double *scv, const int *buffer, diag *err)
{
    if (!a->est_roff)         /* a flow's workspace: no estimate */
        return 0;
    for (int e = 0; e < a->nedges; e++) {
        a->est_scv[e] = scv[e];
        a->est_roff[e + 1] = a->est_roff[e] + (buffer[e] > 0 ? buffer[e] : 0);
    }
    double *ring = realloc(a->est_ring, ((size_t)a->est_roff[a->nedges] + 1) * sizeof *ring);
    if (!ring)
        return ax_oom(err);
    a->est_ring = ring;
    return 0;
}

/* After rebuild swapped the old workspace into b and the new into a: a
 * keeps the links the caller placed (b frees the new, unplaced ones). */
void ax_est_keep_links(skel_approx *a, skel_approx *b)
{
    double *scv = a->est_scv, *ring = a->est_ring;
    long *roff = a->est_roff;
    a->est_scv = b->est_scv;
    a->est_roff = b->est_roff;
    a->est_ring = b->est_ring;
    b->est_scv = scv;
    b->est_roff = roff;
    b->est_ring = ring;
}

/* The workspace of the estimate alone (a deal of deals whose windows
 * cannot hold a move's round robins: approx_layer.c short_window). */
skel_approx *ax_est_new(const skel_dag *d, const skel_approx_opts *opts, diag *err)
{
    skel_approx *a = ax_alloc(d, opts, err);
    if (!a)
        return NULL;
    a->est = 1;
    if (ax_est_alloc(a, err) < 0) {
        skel_approx_free(a);
        return NULL;
    }
    return a;
}
