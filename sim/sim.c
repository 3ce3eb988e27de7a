/* sim: Gillespie simulation of a PEPA system. See sim.h.
 *
 * The work is split in rounds: in round k every replication runs until it
 * has measured 2^(k-1) times the asked length (events or simulated time),
 * the first round after its warm-up. Without a precision target there is one
 * round; with one, rounds go on while some throughput's interval is too
 * wide. Each replication keeps its state, random stream and sums between
 * rounds, so extending it is the same as having asked for more at once.
 * Threads take replications from a shared counter; every replication
 * writes only its own record, and the statistics are computed afterwards
 * in replication order, so the numbers do not depend on the threads. */
#define _POSIX_C_SOURCE 200809L
#include "sim.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "pepa/enum.h"
#include "rng.h"

/* One replication, kept across rounds. */
typedef struct rep {
    uint64_t st[PEPA_MAX_WORDS];
    sim_rng rng;
    double t, t0;                 /* simulated time; when measuring began */
    double hold;                  /* sum of 1/q over measured events */
    double *acc;                  /* per action: sum of rate_a / q */
    double *occ;                  /* per local slot: sum of value / q */
    uint64_t events, measured;
    double cpu;                   /* thread CPU seconds spent on it */
    int warm;                     /* warm-up done */
} rep;

typedef struct worker {
    struct run *run;
    pepa_enum *e;
    int fail_rep;                 /* INT_MAX: none */
    diag err;
    pthread_t tid;
} worker;

typedef struct run {
    const pepa_system *s;
    const sim_opts *o;
    int nlocal;                   /* local slots, all leaves */
    int *loc_off;                 /* per leaf: its first slot */
    rep *reps;
    double *sums;                 /* all reps' acc and occ, one block */
    uint64_t target_events;       /* this round: measured events per replication */
    double target_time;           /* this round: measured time per replication */
    atomic_int next, failed;
    int nthreads;
    worker *w;
} run;

void sim_opts_init(sim_opts *o)
{
    *o = (sim_opts){ .events = 100000, .warmup_events = 10000, .reps = 10, .seed = 1, .local = 1,
                     .precision_action = -1 };
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- one event ------------------------------------------------------- */

static void record_local(const run *r, rep *p, double inv)
{
    const pepa_system *s = r->s;
    for (int j = 0; j < s->nleaves; j++) {
        const pepa_node *nd = &s->nodes[s->leaves[j]];
        double *occ = p->occ + r->loc_off[j];
        if (nd->kind == PEPA_N_LEAF) {
            occ[pepa_field_get(p->st, nd->field)] += inv;
            continue;
        }
        for (int k = 0; k < s->seqs[nd->seq].nstates; k++)
            occ[k] += (double)pepa_field_get(p->st, nd->fields[k]) * inv;
    }
}

static void record(const run *r, rep *p, const pepa_tr *tr, long n, double q)
{
    double inv = 1.0 / q;
    p->hold += inv;
    p->measured++;
    for (long i = 0; i < n; i++)
        p->acc[tr[i].action] += tr[i].rate * inv;
    if (r->o->local)
        record_local(r, p, inv);
}

static int deadlock(const run *r, const rep *p, diag *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        pepa_state_print(r->s, p->st, f);
        fclose(f);
    }
    diag_set(err, "the model deadlocks: after %llu events (simulated time %.6g) it reached state %s, "
             "where nothing can happen, so it has no steady state to estimate",
             (unsigned long long)p->events, p->t, text ? text : "?");
    free(text);
    return -1;
}

static int step(const run *r, worker *w, rep *p, int measure)
{
    const pepa_tr *tr;
    const uint64_t *mask;
    long n = pepa_enum_state(w->e, p->st, &tr, &mask, &w->err);
    if (n < 0)
        return -1;
    if (n == 0)
        return deadlock(r, p, &w->err);
    double q = 0;
    for (long i = 0; i < n; i++)
        q += tr[i].rate;
    if (measure)
        record(r, p, tr, n, q);
    double u = sim_rng_uniform(&p->rng) * q;
    long k = 0;
    while (k < n - 1 && (u -= tr[k].rate) >= 0)
        k++;
    const int nw = r->s->nwords;
    const uint64_t *m = mask + (size_t)k * (size_t)nw;
    for (int i = 0; i < nw; i++)
        p->st[i] ^= m[i];
    p->t += sim_rng_exp(&p->rng) / q;
    p->events++;
    return 0;
}

/* ---- a replication, a worker ------------------------------------------ */

static int warm_up(const run *r, worker *w, rep *p)
{
    const sim_opts *o = r->o;
    if (o->events)
        for (uint64_t i = 0; i < o->warmup_events; i++) {
            if (step(r, w, p, 0) < 0)
                return -1;
        }
    else
        while (p->t < o->warmup_time)
            if (step(r, w, p, 0) < 0)
                return -1;
    p->warm = 1;
    p->t0 = p->t;
    return 0;
}

/* Run p until it has measured this round's target. */
static int advance(const run *r, worker *w, rep *p)
{
    if (!p->warm && warm_up(r, w, p) < 0)
        return -1;
    if (r->o->events)
        while (p->measured < r->target_events) {
            if (step(r, w, p, 1) < 0)
                return -1;
        }
    else                                /* at least one event, else 0/0 */
        while (p->t - p->t0 < r->target_time || p->measured == 0)
            if (step(r, w, p, 1) < 0)
                return -1;
    return 0;
}

static void *work(void *arg)
{
    worker *w = arg;
    run *r = w->run;
    while (!atomic_load(&r->failed)) {
        int i = atomic_fetch_add(&r->next, 1);
        if (i >= r->o->reps)
            break;
        double t = thread_cpu();
        int rc = advance(r, w, &r->reps[i]);
        r->reps[i].cpu += thread_cpu() - t;
        if (rc < 0) {
            w->fail_rep = i;
            atomic_store(&r->failed, 1);
        }
    }
    return NULL;
}

/* One round over every replication, on r->nthreads threads (the caller
 * is one of them). */
static int round_run(run *r, diag *err)
{
    int started = 1;
    atomic_store(&r->next, 0);
    for (int t = 1; t < r->nthreads; t++, started++)
        if (pthread_create(&r->w[t].tid, NULL, work, &r->w[t]) != 0)
            break;                      /* fewer threads: the others do the work */
    work(&r->w[0]);
    for (int t = 1; t < started; t++)
        pthread_join(r->w[t].tid, NULL);
    int first = -1;
    for (int t = 0; t < r->nthreads; t++)
        if (r->w[t].fail_rep != INT_MAX && (first < 0 || r->w[t].fail_rep < r->w[first].fail_rep))
            first = t;
    if (first < 0)
        return 0;
    return diag_set(err, "replication %d: %s", r->w[first].fail_rep + 1, r->w[first].err.msg);
}

/* ---- statistics -------------------------------------------------------- */

double sim_t975(int df)
{
    static const double t[] = { 0, 12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912,
                                2.364624, 2.306004, 2.262157, 2.228139, 2.200985, 2.178813, 2.160369,
                                2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
                                2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
                                2.048407, 2.045230, 2.042272 };
    if (df < 1)
        return INFINITY;
    if (df <= 30)
        return t[df];
    return 1.959964 + 2.372 / df + 2.82 / ((double)df * df);   /* Cornish-Fisher, < 1e-4 off */
}

/* Mean and half-width over the replications of acc-or-occ slot j / hold. */
static sim_stat stat_of(const run *r, int local, int j)
{
    int n = r->o->reps;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        const rep *p = &r->reps[i];
        double x = (local ? p->occ[j] : p->acc[j]) / p->hold;
        sum += x;
        sq += x * x;
    }
    double mean = sum / n, var = (sq - n * mean * mean) / (n - 1);
    return (sim_stat){ mean, sim_t975(n - 1) * sqrt(var > 0 ? var : 0) / sqrt((double)n) };
}

static int precise_enough(const run *r)
{
    for (int a = 0; a < r->s->nactions; a++) {
        if (r->o->precision_action >= 0 && a != r->o->precision_action)
            continue;
        sim_stat st = stat_of(r, 0, a);
        if (st.mean > 0 && st.half > r->o->precision * st.mean)
            return 0;
    }
    return 1;
}

/* ---- set-up and results ------------------------------------------------ */

static int threads_for(const sim_opts *o)
{
    long n = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return (int)(n < o->reps ? n : o->reps);
}

static int run_new(run *r, const pepa_system *s, const sim_opts *o, diag *err)
{
    *r = (run){ .s = s, .o = o, .nthreads = threads_for(o) };
    r->loc_off = calloc((size_t)s->nleaves + 1, sizeof *r->loc_off);
    if (!r->loc_off)
        return diag_set(err, "out of memory");
    for (int j = 0; j < s->nleaves; j++)
        r->loc_off[j + 1] = r->loc_off[j] + s->seqs[s->nodes[s->leaves[j]].seq].nstates;
    r->nlocal = r->loc_off[s->nleaves];
    size_t per = (size_t)s->nactions + (size_t)r->nlocal;
    r->reps = calloc((size_t)o->reps, sizeof *r->reps);
    r->sums = calloc((size_t)o->reps * per, sizeof *r->sums);
    r->w = calloc((size_t)r->nthreads, sizeof *r->w);
    if (!r->reps || !r->sums || !r->w)
        return diag_set(err, "out of memory");
    sim_rng g;
    sim_rng_seed(&g, o->seed);
    for (int i = 0; i < o->reps; i++, sim_rng_jump(&g)) {
        rep *p = &r->reps[i];
        memcpy(p->st, s->init, sizeof p->st);
        p->rng = g;
        p->acc = r->sums + (size_t)i * per;
        p->occ = p->acc + s->nactions;
    }
    for (int t = 0; t < r->nthreads; t++) {
        r->w[t] = (worker){ .run = r, .fail_rep = INT_MAX, .e = pepa_enum_new(s) };
        if (!r->w[t].e)
            return diag_set(err, "out of memory");
    }
    return 0;
}

static void run_free(run *r)
{
    for (int t = 0; r->w && t < r->nthreads; t++)
        pepa_enum_free(r->w[t].e);
    free(r->w);
    free(r->sums);
    free(r->reps);
    free(r->loc_off);
}

static int fill_result(const run *r, sim_result *res)
{
    const pepa_system *s = r->s;
    res->thr = calloc((size_t)s->nactions, sizeof *res->thr);
    if (!res->thr)
        return -1;
    for (int a = 0; a < s->nactions; a++)
        res->thr[a] = stat_of(r, 0, a);
    if (!r->o->local)
        return 0;
    res->local = calloc((size_t)s->nleaves, sizeof *res->local);
    if (!res->local)
        return -1;
    for (int j = 0; j < s->nleaves; j++) {
        int n = r->loc_off[j + 1] - r->loc_off[j];
        if (!(res->local[j] = calloc((size_t)n, sizeof **res->local)))
            return -1;
        for (int k = 0; k < n; k++)
            res->local[j][k] = stat_of(r, 1, r->loc_off[j] + k);
    }
    return 0;
}

static void totals(const run *r, sim_result *res)
{
    double meas = 0, time = 0;
    for (int i = 0; i < r->o->reps; i++) {
        const rep *p = &r->reps[i];
        res->events += p->events;
        res->cpu += p->cpu;
        meas += (double)p->measured;
        time += p->t - p->t0;
    }
    res->measured = (uint64_t)(meas / r->o->reps + 0.5);
    res->sim_time = time / r->o->reps;
}

/* Rounds until the precision is met (or once without a target), each
 * doubling the measured length: the interval narrows by sqrt(2) a round,
 * and the rounds' overhead stays a few thread starts. */
static int rounds(run *r, sim_result *res, double start, diag *err)
{
    const sim_opts *o = r->o;
    res->precision_met = 1;
    r->target_events = o->events;
    r->target_time = o->until;
    for (;; r->target_events *= 2, r->target_time *= 2) {
        if (round_run(r, err) < 0)
            return -1;
        if (o->precision <= 0 || precise_enough(r))
            return 0;
        if (o->time_limit > 0 && clock_now() - start > o->time_limit) {
            res->precision_met = 0;
            return 0;
        }
    }
}

static int check_opts(const sim_opts *o, diag *err)
{
    if (o->reps < 2)
        return diag_set(err, "simulation needs at least 2 replications for a confidence interval");
    if (o->events == 0 && !(o->until > 0 && isfinite(o->until)))
        return diag_set(err, "simulation needs a positive number of events or a positive finite time");
    if (o->events == 0 && !(o->warmup_time >= 0 && isfinite(o->warmup_time)))
        return diag_set(err, "the warm-up time must be finite and not negative");
    return 0;
}

int sim_run(const pepa_system *s, const sim_opts *o, sim_result *res, diag *err)
{
    memset(res, 0, sizeof *res);
    if (check_opts(o, err) < 0)
        return -1;
    res->nactions = s->nactions;
    res->nleaves = s->nleaves;
    double start = clock_now();
    run r;
    int rc = run_new(&r, s, o, err);
    if (rc == 0)
        rc = rounds(&r, res, start, err);
    if (rc == 0 && fill_result(&r, res) < 0)
        rc = diag_set(err, "out of memory");
    if (rc == 0) {
        res->reps = o->reps;
        res->threads = r.nthreads;
        totals(&r, res);
        res->wall = clock_now() - start;
    }
    run_free(&r);
    if (rc < 0)
        sim_result_free(res);
    return rc;
}

void sim_result_free(sim_result *r)
{
    for (int j = 0; r->local && j < r->nleaves; j++)
        free(r->local[j]);
    free(r->local);
    free(r->thr);
    memset(r, 0, sizeof *r);
}
