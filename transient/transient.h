/* transient: time-dependent analysis of PEPA models.
 *
 *  - tr_solve: the state distribution pi(t) of the CTMC, by integrating the
 *    forward equations d pi/dt = pi Q (= Q^T pi in column form, exactly the
 *    storage of pepa_ctmc) with CVODE's BDF method, or by uniformisation
 *    (the exact reference, truncated with a bound of our own; uniform.c).
 *  - tr_series: throughput of every action and local-state measures at each
 *    output time, the time at which throughput settles, and the expected time
 *    to complete N items (makespan of a finite stream).
 *  - tr_fluid: the fluid (ODE) approximation of a PEPA system (Hillston 2005;
 *    Tribastone, Gilmore, Hillston 2012): one population variable per local
 *    state of every leaf, min-based synchronisation with apparent rates.
 *
 * Nothing here prints: warnings come back in tr_result.warning, errors in
 * the diag. No global state; every call owns what it allocates. */
#ifndef SKELSCHED_TRANSIENT_H
#define SKELSCHED_TRANSIENT_H

#include "base/diag.h"
#include "pepa/ctmc.h"
#include "pepa/space.h"
#include "pepa/system.h"

typedef enum tr_method { TR_CVODE, TR_UNIFORM } tr_method;

/* CVODE's linear solver for the Newton systems (I - gamma Q^T) x = b:
 * KLU sparse LU (our SUNLinearSolver, refactored with the fixed pattern),
 * or SPGMR preconditioned by ILU(0) (linear tolerance tightened so
 * that mass drifts < 1e-9). bench_transient compares them. */
typedef enum tr_linsol { TR_LS_AUTO, TR_LS_KLU, TR_LS_GMRES } tr_linsol;

/* TR_LS_AUTO picks KLU up to this many states, SPGMR beyond. */
#define TR_KLU_MAX_STATES 4000

typedef struct tr_opts {
    tr_method method;     /* TR_CVODE by default */
    tr_linsol linsol;     /* TR_LS_AUTO by default */
    double rtol, atol;    /* CVODE tolerances; defaults 1e-8, 1e-12 */
    double eps;           /* uniformisation: truncation error bound per output
                             interval (1-norm); default 1e-12 */
    long max_steps;       /* CVODE steps or uniformisation products per
                             interval; default 100 million */
    double delta;         /* fluid: passive rate = weight * population / delta;
                             default 1e-7 (see tr_fluid) */
} tr_opts;

void tr_opts_init(tr_opts *o);
const char *tr_method_name(tr_method m);
int tr_method_parse(const char *name, tr_method *m);

typedef struct tr_result {
    long steps;           /* CVODE internal steps, or vector-matrix products */
    long rhs_evals;       /* CVODE right-hand side evaluations (0 for uniformisation) */
    long lin_setups;      /* CVODE linear-solver setups (factorisations) */
    double mass_error;    /* max |sum pi(t) - 1| seen before clipping */
    long clipped;         /* negative probabilities set to 0 in the outputs */
    double most_negative; /* the most negative value clipped (0 if none) */
    double lambda;        /* uniformisation rate used (0 for CVODE) */
    char warning[256];    /* empty, or a warning for the user */
} tr_result;

/* Called at each output time with the (clipped, renormalised) distribution
 * or population vector x. Return 0 to go on, > 0 to stop early (not an
 * error), < 0 to fail (set err). */
typedef int (*tr_output_fn)(void *ctx, int k, double t, const double *x, diag *err);

/* Integrate the chain q from pi0 at time 0 (NULL: all mass on state 0, the
 * initial state) and call out at each of the ntimes increasing times >= 0.
 * Returns 0, or -1 with a message. */
int tr_solve(const pepa_ctmc *q, const double *pi0, const double *times, int ntimes,
             const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err);

/* Uniformisation's Poisson weights (exposed for tests): for mean lt >= 0,
 * weights w[0..*right-*left] of k = *left..*right, summing to 1, with
 * truncated mass <= eps. Returns a malloc'd array or NULL (memory). */
double *tr_poisson_weights(double lt, double eps, long *left, long *right);

/* ---------------------------------------------------------------- series */

/* Measures over time: thr[k * nactions + a] and, for leaf i,
 * local[i][k * nstates_i + s] (probability, or mean copies of an array). */
typedef struct tr_series {
    const pepa_space *sp;  /* borrowed (CTMC series), or NULL (fluid) */
    int ntimes, nactions, nleaves;
    double *times;
    double *thr;
    double **local;
} tr_series;

/* Allocate a series for ntimes points of system s (times copied).
 * NULL on memory exhaustion. */
tr_series *tr_series_new(const pepa_system *s, const double *times, int ntimes);
void tr_series_free(tr_series *ser);

/* A tr_output_fn for tr_solve: ctx is a tr_series with sp set. */
int tr_series_record(void *ctx, int k, double t, const double *pi, diag *err);

/* n equally spaced times in [0, until] (n >= 2; the first is 0), malloc'd. */
double *tr_times_linear(double until, int n);

/* The first output time from which action a's throughput stays within
 * tol * |ss| (relative) of ss until the last point; -1 if it never does.
 * The resolution is that of the output grid. */
double tr_settle_time(const tr_series *ser, int action, double ss, double tol);

/* Makespan of a stream of N items: the time T at which the expected number
 * of completed items, C(t) = integral over [0, t] of the throughput of
 * action `action`, reaches `items`. Integrates from the initial state with
 * o (CVODE or uniformisation) on a grid of `grid` intervals per horizon
 * (cubic Hermite rule with the exact derivative of the throughput, error
 * O(h^4) overall; the interpolant is inverted inside the crossing interval),
 * doubling the horizon from 2 * items / ss_thr until it is reached or
 * max_time passes. Returns 0 with *t_out (-1 if not reached by max_time),
 * or -1 with a message. */
int tr_makespan(const pepa_space *sp, int action, double items, double ss_thr,
                double max_time, int grid, const tr_opts *o, double *t_out, diag *err);

/* ---------------------------------------------------------------- fluid */

/* The fluid approximation of a compiled PEPA system. Each leaf contributes
 * one variable per local state of its automaton (its population: copies
 * of an array, or a probability-like share for a single component); the
 * rate of a shared action is the minimum of the partners' apparent rates,
 * split among each partner's local states in proportion to their apparent
 * rates; non-shared actions add up.
 *
 * Passive activities: a passive weight w in a local state with population
 * x is taken as the active rate w * x / delta (delta = tr_opts.delta).
 * Under min-synchronisation with an active partner of rate r this gives r
 * whenever the passive side has population >= r * delta / w, which is
 * Hillston's semantics for a non-empty population, and a smooth
 * (Lipschitz) cut-off as it empties, so the ODEs stay integrable; the error
 * is O(delta). Refused (tr_fluid_new fails with a message): an action that
 * stays passive at the top level, and an action that is active in one
 * branch and passive in another branch of the same non-synchronising
 * composition (the semantics does not define the shared rate). */
typedef struct tr_fluid tr_fluid;

tr_fluid *tr_fluid_new(const pepa_system *s, diag *err);
void tr_fluid_free(tr_fluid *f);

/* Number of variables, and the first variable of leaf i (its local states
 * follow in automaton order). */
int tr_fluid_nvars(const tr_fluid *f);
int tr_fluid_offset(const tr_fluid *f, int leaf);

/* The initial populations (nvars values). */
void tr_fluid_initial(const tr_fluid *f, double *x);

/* Derivative dx/dt at x, and the throughput of every action (nactions
 * values; hidden actions count as tau, action 0). delta as in tr_opts. */
void tr_fluid_deriv(tr_fluid *f, const double *x, double delta, double *dx);
void tr_fluid_throughput(tr_fluid *f, const double *x, double delta, double *thr);

/* Integrate with CVODE (BDF) from the initial populations, calling out at
 * each time. o->method is ignored. Returns 0 or -1. */
int tr_fluid_solve(tr_fluid *f, const double *times, int ntimes, const tr_opts *o,
                   tr_output_fn out, void *ctx, tr_result *res, diag *err);

/* The fixed point: integrate from x (the initial populations if *t is 0
 * on entry; else x is the state at time *t) until ||dx/dt||_inf <=
 * tol * (1 + ||x||_inf), doubling the horizon up to max_time. On return x
 * and *t hold the point reached. Returns 1 if converged, 0 if not, -1
 * with a message on failure. */
int tr_fluid_fixed_point(tr_fluid *f, const tr_opts *o, double tol, double max_time, double *x,
                         double *t, diag *err);

/* A tr_output_fn recording populations and throughput into a tr_series
 * (ctx is a tr_fluid_rec). */
typedef struct tr_fluid_rec {
    tr_fluid *f;
    tr_series *ser;
    double delta;
} tr_fluid_rec;
int tr_fluid_record(void *ctx, int k, double t, const double *x, diag *err);

#endif
