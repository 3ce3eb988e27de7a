/* pepa_solve: steady-state distribution pi of a CTMC, pi Q = 0, sum pi = 1.
 *
 * Methods:
 *   direct  - sparse LU of Q^T with one state's probability pinned (its
 *             equation and unknown dropped), then normalised; exact up to
 *             rounding. SuiteSparse UMFPACK; from 10,000 states (unless
 *             the caps are AUTO's), METIS nested dissection and the
 *             multifrontal LU of lu.h, UMFPACK again if that is over the
 *             caps. Refused when the symbolic analysis predicts more than
 *             PEPA_DIRECT_MAX_BYTES / PEPA_DIRECT_MAX_FLOPS.
 *   gs      - Gauss-Seidel sweeps over the rows of Q^T, with Anderson
 *             acceleration (opts.plain turns it off).
 *   sor     - successive over-relaxation (omega from the options), same
 *             machinery. omega > 1 can diverge (it does on periodic chains).
 *   gmres   - restarted GMRES(30) with an ILU(0) preconditioner.
 *   auto    - the rule below.
 *
 * The AUTO rule (the budget max_iter / time_limit is shared):
 *   1. Small and medium chains (UMFPACK built in, n <= PEPA_AUTO_DIRECT_STATES,
 *      nnz <= PEPA_AUTO_DIRECT_NNZ), unless a warm start is given (a
 *      re-solve after new rates, as the placement search does: a few
 *      sweeps from the previous answer beat a new factorisation), and
 *      unless a time limit is set on a chain above
 *      PEPA_AUTO_TIMED_DIRECT_STATES (the LU cannot be stopped at the
 *      limit; the iterations can): the LU, unless UMFPACK's symbolic
 *      analysis predicts more than PEPA_AUTO_DIRECT_BYTES or
 *      PEPA_AUTO_DIRECT_FLOPS (the LU of a product state space of high
 *      dimension can fill in heavily even when the chain is small). That
 *      analysis costs most where it refuses (0.75 s of CPU on RKIP_MEK.pepa,
 *      51,327 states, where Gauss-Seidel answers in 0.23 s), so from
 *      PEPA_PROBE_MIN_STATES on pepa_solve_probe looks first, at
 *      sub-chains, and refuses for a few hundredths of a second.
 *      res.decision says which of these decided.
 *   2. Otherwise Gauss-Seidel (accelerated), at most PEPA_AUTO_GS_SWEEPS
 *      sweeps: tens of sweeps on most PEPA chains (jobshop5, 704,645
 *      states: 23 sweeps to 1e-8, 0.6 s).
 *   3. If that is not enough (slowly mixing, nearly decomposable chains):
 *      GMRES with ILU(0), warm-started from the Gauss-Seidel iterate.
 *   res.method says which method produced pi; res.iterations counts the
 *   iterations of all the iterative attempts.
 *
 * Transient states: opts.recurrent marks the states of the chain's one
 * closed class (pepa_space_recurrent). When some states are not marked,
 * the chain of the closed class alone is solved (a copy of its part of
 * the chain) and the others get probability 0: solving the whole chain
 * would pin a transient state (direct), stall on an absorbing one
 * (iterative), or spend its time on millions of transient states.
 *
 * Error estimate: opts.error, when set, receives an estimate of the
 * absolute error of every pi[j]. The direct method takes one step of
 * iterative refinement and reports the correction; an iterative method
 * converges a second time to PEPA_ERROR_TOL_FACTOR times the tolerance
 * (or to the round-off floor) from its answer, returns the finer iterate
 * and reports the difference. Measures computed from |error| bound the
 * error of measures computed from pi, so a caller prints only the digits
 * that are right.
 * Every answer reports its residual ||pi Q||_inf (pi normalised) and its
 * iteration count; a method that does not reach the tolerance says so
 * (converged = 0, return -1 and a message), it never returns an
 * unconverged vector as converged.
 *
 * Memory, beyond the chain (n states, nnz entries): gs/sor 15 n doubles
 * (iterate, two snapshots, Anderson history); gmres 36 n doubles plus the
 * ILU(0) factors (nnz + n entries, 12 bytes each); direct as predicted.
 * Nothing is global: concurrent solves on different chains are safe, and
 * on the same chain too (the chain is only read). */
#ifndef SKELSCHED_PEPA_SOLVE_H
#define SKELSCHED_PEPA_SOLVE_H

#include "ctmc.h"
#include "../base/diag.h"

/* AUTO considers the direct method only up to this size (beyond it the
 * symbolic analysis alone takes a good part of a second)... */
#define PEPA_AUTO_DIRECT_STATES 200000u
/* ... and, when a time limit is set, only up to this size: the LU cannot
 * be stopped, the iterations can. */
#define PEPA_AUTO_TIMED_DIRECT_STATES 5000u
#define PEPA_AUTO_DIRECT_NNZ 3000000u
/* ...and only if the factorisation is predicted to be this cheap
 * (about a second on a 2-core Xeon). */
#define PEPA_AUTO_DIRECT_BYTES 512e6
#define PEPA_AUTO_DIRECT_FLOPS 5e9
/* Hard limits of an explicit "direct" request. */
#define PEPA_DIRECT_MAX_BYTES 4e9
#define PEPA_DIRECT_MAX_FLOPS 1e12
/* The direct method's first ordering over this many times a cap: the
 * other multifrontal ordering is not tried (the orderings measured differ
 * by at most 4.9 times in flops and 3.4 in bytes, RKIP_MEK.pepa, AMD
 * against METIS), and on a pattern of symmetry PEPA_UMFPACK_SYMMETRIC
 * or more, where UMFPACK too orders A + A^T, neither is UMFPACK's
 * analysis: refused at once. On a less symmetric pattern UMFPACK's
 * unsymmetric ordering can fill in far less than any of A + A^T (eleven
 * workers of three one-way steps joined by a barrier, 177,147 states:
 * 1.3e14 flops by the first ordering, UMFPACK's analysis removes the
 * nearly triangular matrix as singletons and factorises it, residual
 * 3e-17), so its analysis decides. */
#define PEPA_DIRECT_FAR 8.0
/* AUTO's probe (pepa_solve_probe): sub-chains of PEPA_PROBE_FIRST states,
 * doubled up to a quarter of the chain (half would decide more chains, but
 * would cost 0.015 s more on production.pepa's 17,846 states, where the
 * whole analysis takes 0.03 s), on chains of PEPA_PROBE_MIN_STATES or
 * more; the chain is refused when one's AMD fill is over PEPA_PROBE_MARGIN
 * times a cap. */
#define PEPA_PROBE_MIN_STATES 8192u
#define PEPA_PROBE_FIRST 2048u
#define PEPA_PROBE_MARGIN 2.0
/* UMFPACK 5.6 on (SuiteSparse's umfpack_qsymbolic.c, STRATEGY_AUTO) takes
 * the symmetric strategy, AMD on A + A^T, where the pattern symmetry is at
 * least this and nine tenths of the diagonal is nonzero (always, in the
 * direct method's matrix: the exit rates), else the unsymmetric one
 * (COLAMD). RKIP_MEK.pepa's pattern is 0.648 symmetric, a walk's 1,
 * production.pepa's and medium-t.pepa's 0. */
#define PEPA_UMFPACK_SYMMETRIC 0.5
/* Sweeps AUTO gives Gauss-Seidel before it turns to GMRES. */
#define PEPA_AUTO_GS_SWEEPS 300
/* Default tolerance, and the second convergence of an error estimate. */
#define PEPA_DEFAULT_TOL 1e-12
#define PEPA_ERROR_TOL_FACTOR 1e-3
/* The round-off floor of a residual: this times eps times the largest
 * exit rate (no computed residual is reliably below it). */
#define PEPA_ROUNDOFF_FACTOR 16.0

typedef enum pepa_method {
    PEPA_METHOD_AUTO = 0,
    PEPA_METHOD_DIRECT,
    PEPA_METHOD_GS,
    PEPA_METHOD_SOR,
    PEPA_METHOD_GMRES
} pepa_method;

typedef struct pepa_solve_opts {
    pepa_method method;   /* AUTO by default */
    double tol;           /* target residual ||pi Q||_inf; 0 means PEPA_DEFAULT_TOL; times
                           * the largest exit rate r when r < 1 (solve.c); the direct
                           * method accepts at PEPA_ROUNDOFF_FACTOR eps r where that is
                           * far above it (solve_direct.c) */
    long max_iter;        /* iteration cap for iterative methods; 0 means 100000 */
    double omega;         /* SOR relaxation factor; 0 means 1.0 (= Gauss-Seidel) */
    double time_limit;    /* seconds; 0 means none. Exceeding it is a failure.
                             Checked between iterations; the LU cannot be
                             interrupted (its caps bound it instead) */
    int warm;             /* non-zero: pi on entry is the initial guess */
    int threads;          /* GS/SOR threads; 0 means automatic (one: more
                             threads need more sweeps, and pay only on idle
                             cores) */
    int lu_threads;       /* the direct method's multifrontal LU: 0 or 1 one
                             thread (the library's default: the Slurm plugin
                             starts none; skelsched solve's is the CPUs it
                             may run on), 2 or more: its large fronts on
                             two (lu.h) */
    int plain;            /* GS/SOR: non-zero turns Anderson acceleration off */
    int no_probe;         /* AUTO: non-zero skips pepa_solve_probe (the decision
                             as it was before the probe: bench_solve decide's
                             reference) */
    const unsigned char *recurrent; /* optional (n entries): the closed class
                             to solve; the other states get 0 (see above) */
    double *error;        /* optional output (n entries): estimated absolute
                             error of each pi[j] (see above) */
} pepa_solve_opts;

/* Why the method that answered was used, or why the LU was refused
 * (res.decision; --json prints pepa_decision_name). */
typedef enum pepa_decision {
    PEPA_DECIDE_ASKED = 0,  /* the method was asked for (not AUTO) */
    PEPA_DECIDE_DIRECT,     /* AUTO: the LU's analysis within AUTO's caps */
    PEPA_DECIDE_SIZE,       /* AUTO: beyond PEPA_AUTO_DIRECT_STATES or _NNZ (or no UMFPACK) */
    PEPA_DECIDE_WARM,       /* AUTO: a warm start was given */
    PEPA_DECIDE_TIMED,      /* AUTO: a time limit, above PEPA_AUTO_TIMED_DIRECT_STATES */
    PEPA_DECIDE_PROBE,      /* AUTO: a sub-chain's fill over the caps (pepa_solve_probe):
                               no ordering of the chain computed */
    PEPA_DECIDE_FAR,        /* direct: the first ordering over PEPA_DIRECT_FAR times the
                               caps on a symmetric pattern, so no other one (nor
                               UMFPACK) tried */
    PEPA_DECIDE_ANALYSIS,   /* over the caps after every ordering tried */
    PEPA_DECIDE_INACCURATE, /* AUTO: the LU's answer short of the tolerance, iterated on */
    PEPA_DECIDE_FAILED      /* AUTO: the LU failed without an answer (out of memory, a
                               failed analysis or factorisation), iterated on */
} pepa_decision;

/* Where a direct solve's time went, each phase's wall seconds ([0]) and
 * the process's CPU seconds ([1]: both threads where two run): the
 * Gauss-Seidel sweeps that choose the state to pin, the multifrontal
 * LU's analysis (fill-reducing ordering and CHOLMOD's symbolic analysis;
 * UMFPACK's symbolic analysis where it factorises), the numerical
 * factorisation(s), and the solves with their refinement. Summed over
 * the pins tried; zero for what did not run (an iterative method). */
typedef struct pepa_solve_phases {
    double pin[2], analyse[2], factor[2], refine[2];
} pepa_solve_phases;

typedef struct pepa_solve_result {
    pepa_method method;   /* the method actually used (never AUTO) */
    long iterations;      /* sweeps / Krylov iterations; 1 for direct */
    double residual;      /* ||pi Q||_inf of the returned pi (sum pi = 1) */
    double seconds;       /* wall time of the solve */
    int converged;        /* residual <= tol */
    int lu_threads;       /* the direct method's multifrontal LU: the threads
                             it ran on (2 only where its helper thread did
                             part of a front); 0 when it did not run */
    long lu_unstarted;    /* fronts sent to two threads whose helper thread
                             could not be started: they ran on the caller
                             alone (the answer is the same) */
    char lu_par_unavailable[256]; /* two threads asked for, the LU ran on
                             one: why the helper's copy of the BLAS could
                             not be loaded (lu.h's pepa_lu_par_unavailable);
                             "" otherwise */
    pepa_decision decision; /* see above */
    int orderings;        /* fill-reducing orderings of the whole chain the
                             direct method computed (UMFPACK's analysis 1,
                             lu.h's AUTO 1 or 2) */
    uint32_t probe_states; /* states of the sub-chain whose fill decided
                             (PEPA_DECIDE_PROBE), else 0 */
    pepa_solve_phases phases; /* the direct method's time, by phase */
} pepa_solve_result;

/* "asked", "direct", "size", ... (the enum's names, lower case). */
const char *pepa_decision_name(pepa_decision d);

/* Fill opts with the defaults described above. */
void pepa_solve_opts_init(pepa_solve_opts *opts);

/* Solve for pi (length q->n, owned by the caller). opts may be NULL (the
 * defaults). Returns 0 on success; -1 with a message in err when the
 * method failed or did not converge (res is filled in either case, pi
 * holds the last iterate when there is one). */
int pepa_solve(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
               pepa_solve_result *res, diag *err);

/* Name of a method ("direct", "gs", ...) and the reverse; the reverse
 * returns -1 for an unknown name (and leaves *m alone). */
const char *pepa_method_name(pepa_method m);
int pepa_method_parse(const char *name, pepa_method *m);

/* The first method AUTO tries on q: direct for chains within the
 * PEPA_AUTO_DIRECT_* sizes when UMFPACK is built in, Gauss-Seidel
 * otherwise. */
pepa_method pepa_solve_choose(const pepa_ctmc *q);

/* The methods themselves, for callers that know what they want. opts must
 * be complete (no zero defaults left: pepa_solve fills them in); the
 * contract on pi, res and the return value is the one of pepa_solve,
 * except that res->seconds and res->method are left to the caller. */
int pepa_solve_direct(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                      pepa_solve_result *res, diag *err);

/* The direct method, refusing (return 1, with a message) when the
 * symbolic analysis predicts more than max_bytes of memory or max_flops
 * for the factorisation (pi is scratch then: it holds the few Gauss-Seidel
 * sweeps that chose the state to pin, which AUTO does not reuse as a warm
 * start). pepa_solve_direct uses PEPA_DIRECT_MAX_BYTES and
 * PEPA_DIRECT_MAX_FLOPS, AUTO the tighter PEPA_AUTO_DIRECT_*. */
int pepa_solve_direct_capped(const pepa_ctmc *q, const pepa_solve_opts *opts, double max_bytes,
                             double max_flops, double *pi, pepa_solve_result *res, diag *err);

/* The direct method with UMFPACK alone (METIS ordering from 10,000
 * states), as it was before the multifrontal LU: the reference that
 * bench_solve measures the direct method against. */
int pepa_solve_direct_umfpack(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                              pepa_solve_result *res, diag *err);

/* AUTO's cheap look before the LU's analysis. On a symmetric pattern
 * the minimum fill of a chain's factors is at least that of any sub-chain
 * it contains (the filled graph of an induced subgraph under the induced
 * order is a subgraph of the filled graph), and on product state spaces
 * of high dimension the fill grows about ten times with each doubling of
 * the states (RKIP_MEK.pepa: 6.3e9 flops at 6,415 states, 6.6e11 at
 * 25,663, 7.9e12 at 51,327), while AMD's own time grows with the fill
 * (0.43 s for the whole of RKIP_MEK, 0.02 s for an eighth). So AMD orders
 * breadth-first balls of growing size around state 0, and the chain is
 * refused as soon as one ball's factors (in AMD's count) exceed
 * PEPA_PROBE_MARGIN times max_bytes or max_flops. That containment is
 * about the minimum fill, not AMD's: AMD is a heuristic, on the ball as
 * on the chain, so the margin is a safety factor chosen by measurement,
 * not a bound. And it holds only where UMFPACK orders A + A^T, its
 * symmetric strategy: on a pattern below PEPA_UMFPACK_SYMMETRIC it takes
 * the unsymmetric one (singletons removed, then COLAMD), which on
 * one-way moves fills in far less (seven workers of five one-way steps
 * joined by a barrier, 78,125 states: AMD's ball of 16,384 states 7.7e10
 * flops, UMFPACK factorises the whole in 0.2 s). So there the ball's
 * estimate is UMFPACK's own analysis of the ball (its matrix as the
 * direct method builds it), with no containment argument behind it:
 * UMFPACK's estimate is an upper bound of its own heuristic's fill. It is
 * measured to grow with the ball as AMD's does on medium-t.pepa (4.2e7,
 * 1.1e9, 2.7e10, 4.5e11 flops from 2,048 to 16,384 states; the whole
 * chain 1.1e14) and stays 0 on the barriers (all singletons).
 * Returns 1 when a ball refuses (its states, bytes and flops in *states,
 * *bytes, *flops), 0 when no ball decided (or out of memory: no
 * decision; *states 0). */
int pepa_solve_probe(const pepa_ctmc *q, double max_bytes, double max_flops, uint32_t *states,
                     double *bytes, double *flops);

/* The share of q's off-diagonal entries whose transpose is also an entry
 * (1 for an empty pattern): UMFPACK's Info[UMFPACK_PATTERN_SYMMETRY],
 * which it measures on the reduced matrix without singletons, where the
 * direct method's pinned state is one row and column of thousands. */
double pepa_solve_pattern_symmetry(const pepa_ctmc *q);

int pepa_solve_gs(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                  pepa_solve_result *res, diag *err);
int pepa_solve_gmres(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                     pepa_solve_result *res, diag *err);

#endif
