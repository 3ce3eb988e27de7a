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
 * sampled here over AX_EST_ITEMS items with exponential times and a fixed
 * seed: milliseconds at any size, nothing stored per state. Static
 * sharing and rendezvous moves are this model exactly (the answer is off
 * by its sampling only); processor sharing slows each compute by its
 * node's tasks computing at once, as a pass of the recursion recorded
 * them (a few rounds); link buffers and phases are taken as rendezvous.
 * Where an item's next task is not one (a farm's choice, par/choice/loop:
 * not an event graph) the per-task cycle bound, each move's two ends a
 * tandem of two servers without a buffer, answers instead.
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

/* The per-task cycle bound: task i passes at most 1 / (v_i cycle_i) of
 * the job's items per second; under processor sharing a node computes at
 * most one second per second. Each move's two ends as a tandem of two
 * servers at those rates (the blocking between them). est_free: per task
 * its items per second alone (scratch). */
static double pair_bound(skel_approx *a, const double *mu, const double *lambda,
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

static double draw(uint64_t *s, double mean)   /* exponential, xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    double u = (double)((*s * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
    return -mean * log1p(-u);
}

static double move_of(const skel_approx *a, const double *lambda, int i, int j)
{
    int e = skel_dag_edge(a->d, i, j);
    return e >= 0 ? 1 / lambda[e] : 0;
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
                         uint64_t *seed, int start, double last)
{
    double out = last, *free_at = a->est_free, in = move_of(a, lambda, SKEL_IN, start);
    for (long n = 0; n < nitems; n++) {
        int i = start;
        double c0 = free_at[i] + draw(seed, in);
        double c = c0 + draw(seed, a->est_slow[i] / mu[i]);
        record(a, i, c0, c);
        for (;;) {
            int j = next_of(a->d, i, a->est_cnt[i]++);
            if (j == AX_EST_NO)
                return -1;
            double at = j >= 0 && free_at[j] > c ? free_at[j] : c;
            double end = at + draw(seed, move_of(a, lambda, i, j));
            free_at[i] = end;
            if (j < 0) {
                out = end > out ? end : out;
                break;
            }
            c = end + draw(seed, a->est_slow[j] / mu[j]);
            record(a, j, end, c);
            i = j;
        }
    }
    return out;
}

/* From no item: the fixed seed (an evaluation is a function of its rates). */
static uint64_t cold(skel_approx *a)
{
    for (int i = 0; i < a->ntasks; i++) {
        a->est_free[i] = 0;
        a->est_cnt[i] = 0;
        a->est_ivn[i] = 0;
    }
    return 0x9E3779B97F4A7C15ULL;
}

/* One sampled run of the recursion: AX_EST_WARM items, then AX_EST_ITEMS
 * whose rate is the answer (items per second; -1: not an event graph). */
static double sampled(skel_approx *a, const double *mu, const double *lambda, int start)
{
    uint64_t seed = cold(a);
    double *iv = a->est_iv;
    a->est_iv = NULL;                 /* recorded by the overlap pass only */
    double t0 = pass_items(a, mu, lambda, AX_EST_WARM, &seed, start, 0);
    double t1 = t0 < 0 ? -1 : pass_items(a, mu, lambda, AX_EST_ITEMS, &seed, start, t0);
    a->est_iv = iv;
    return t1 < 0 ? -1 : AX_EST_ITEMS / (t1 - t0);
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

static double shared(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                     int start)
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
    return sampled(a, mu, lambda, start);
}

int ax_est_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                skel_approx_result *r)
{
    int start = entry_task(a->d);
    for (int i = 0; i < a->ntasks; i++)
        a->est_slow[i] = 1;
    double x = start >= 0 && !a->d->extended ? shared(a, mu, lambda, ps_node, start) : -1;
    memset(r, 0, sizeof *r);
    r->estimate = x > 0 ? SKEL_APPROX_EST_GRAPH : SKEL_APPROX_EST_PAIRS;
    if (!(x > 0)) {       /* not an event graph: the bound of pairs */
        double low = 1 / alone_secs(a, mu, lambda);
        x = pair_bound(a, mu, lambda, ps_node);
        x = x > low ? x : low;
    }
    r->throughput = x;
    r->converged = 1;
    for (int i = 0; i < a->ntasks; i++) {
        a->thr[i] = r->estimate == SKEL_APPROX_EST_GRAPH
                        ? x * (double)a->est_cnt[i] / (AX_EST_WARM + AX_EST_ITEMS)
                        : x * visits_of(a, i);
        a->util[i] = a->thr[i] * a->est_slow[i] / mu[i];
    }
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
    a->est_ivn = calloc(nt, sizeof *a->est_ivn);
    a->est_ivoff = calloc(nt + 1, sizeof *a->est_ivoff);
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
    return a->est_free && a->est_slow && a->est_cnt && a->est_ivn && a->est_ivoff && a->util &&
                   a->thr
               ? 0
               : ax_oom(err);
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
