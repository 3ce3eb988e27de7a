/* sim: stochastic simulation of a compiled PEPA system (Gillespie's direct
 * method), for models whose chain is too large to derive.
 *
 * Nothing is stored per state: each event asks the engine's enumerator
 * (pepa/enum.h) for the current state's transitions - the same semantics
 * as derivation, apparent rates, passive rates and aggregated arrays P[n]
 * included - picks one with probability rate / total, and applies its
 * mask. Each replication starts in the initial state, discards a warm-up,
 * then measures; replications are independent, run on worker threads,
 * and draw from their own random stream (xoshiro256** seeded from the
 * seed, then jumped 2^128 steps per replication number), so the result
 * depends on the seed and the replication count only, never on the number
 * of threads or on which thread ran what.
 *
 * Estimates are time averages over each replication's measured events,
 * weighting a state by its mean holding time 1/q(x) rather than by the
 * sampled one (the conditional-expectation estimator: the same limit,
 * less variance): throughput of a = sum rate_a(x)/q(x) / sum 1/q(x).
 * The 95% confidence interval is Student's t over the replications.
 *
 * Ownership: sim_run borrows the system; the result owns its arrays. */
#ifndef SKELSCHED_SIM_H
#define SKELSCHED_SIM_H

#include <stdint.h>

#include "base/diag.h"
#include "pepa/system.h"

typedef struct sim_opts {
    uint64_t events;          /* measured events per replication; 0: use until */
    double until;             /* measured simulated time per replication (events == 0) */
    uint64_t warmup_events;   /* discarded first (events mode) */
    double warmup_time;       /* discarded first (until mode) */
    int reps;                 /* replications, >= 2 */
    uint64_t seed;
    int threads;              /* 0: every online core (never more than reps) */
    double precision;         /* > 0: double every replication's measured length
                                 until each non-zero throughput's CI half-width
                                 is within this fraction of it */
    int precision_action;     /* -1: the precision applies to every action; else
                                 to this action id only */
    double time_limit;        /* wall seconds for the extensions (precision); 0: none */
    int local;                /* also estimate local-state measures */
} sim_opts;

/* Defaults: 100,000 events after 10,000 warm-up events, 10 replications,
 * seed 1, every core, local measures on. */
void sim_opts_init(sim_opts *o);

/* A mean over the replications and its 95% confidence half-width. */
typedef struct sim_stat {
    double mean, half;
} sim_stat;

typedef struct sim_result {
    int reps, threads;
    int nactions;
    sim_stat *thr;            /* per action id (sys->nactions entries) */
    int nleaves;
    sim_stat **local;         /* per leaf (sys->leaves order), per local state:
                                 probability, or mean copies for an array;
                                 NULL unless opts.local */
    uint64_t events;          /* events simulated, warm-up included, all replications */
    uint64_t measured;        /* measured events per replication */
    double sim_time;          /* measured simulated time, mean per replication */
    double wall;              /* wall-clock seconds */
    double cpu;               /* thread CPU seconds, all replications */
    int precision_met;        /* opts.precision reached (1 when none was asked) */
} sim_result;

/* Simulate s. Returns 0, or -1 with a message: a deadlock (naming the
 * state and replication), an action passive at the top level, memory. */
int sim_run(const pepa_system *s, const sim_opts *o, sim_result *r, diag *err);

/* Free r's arrays. */
void sim_result_free(sim_result *r);

/* The 0.975 quantile of Student's t with df degrees of freedom. */
double sim_t975(int df);

#endif
