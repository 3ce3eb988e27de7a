/* pepa_solve: steady-state distribution pi of a CTMC, pi Q = 0, sum pi = 1.
 *
 * Methods:
 *   direct  - sparse LU (SuiteSparse UMFPACK) of Q^T with one equation
 *             replaced by the normalisation; exact up to rounding. Refused
 *             when UMFPACK's symbolic analysis predicts more than
 *             PEPA_DIRECT_MAX_BYTES / PEPA_DIRECT_MAX_FLOPS.
 *   gs      - Gauss-Seidel sweeps over the rows of Q^T, with Anderson
 *             acceleration (opts.plain turns it off).
 *   sor     - successive over-relaxation (omega from the options), same
 *             machinery. omega > 1 can diverge (it does on periodic chains).
 *   gmres   - restarted GMRES(30) with an ILU(0) preconditioner.
 *   auto    - the rule below.
 *
 * The AUTO rule (the budget max_iter / time_limit is shared):
 *   1. Gauss-Seidel (accelerated), at most PEPA_AUTO_GS_SWEEPS sweeps: the
 *      cheapest step; tens of sweeps on most PEPA chains (jobshop5, 704,645
 *      states: 23 sweeps, 0.6 s).
 *   2. If that is not enough (slowly mixing, nearly decomposable chains):
 *      GMRES with ILU(0), warm-started from the Gauss-Seidel iterate
 *      (at most PEPA_AUTO_GMRES_ITERS iterations if step 3 may follow).
 *   3. Still not converged and the chain small (UMFPACK built in,
 *      n <= PEPA_DIRECT_MAX_STATES, nnz <= PEPA_DIRECT_MAX_NNZ): direct,
 *      unless UMFPACK's symbolic analysis predicts more than
 *      PEPA_AUTO_DIRECT_BYTES or PEPA_AUTO_DIRECT_FLOPS.
 *   The LU comes last because size is a poor guide to its cost: PEPA
 *   chains are product spaces of high dimension whose LU fills in almost
 *   completely (ws-large, 47,220 states: 7 GB predicted, and 2.2 s for the
 *   symbolic analysis alone; a 12,870-state queueing network: 80 s).
 *   res.method says which method produced pi; res.iterations counts the
 *   iterations of all the iterative attempts.
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

/* AUTO considers the direct method only up to this size... */
#define PEPA_DIRECT_MAX_STATES 50000u
#define PEPA_DIRECT_MAX_NNZ 1000000u
/* ...and only if the factorisation is predicted to be this cheap
 * (about a second on a 2-core Xeon). */
#define PEPA_AUTO_DIRECT_BYTES 512e6
#define PEPA_AUTO_DIRECT_FLOPS 5e9
/* Hard limits of an explicit "direct" request. */
#define PEPA_DIRECT_MAX_BYTES 4e9
#define PEPA_DIRECT_MAX_FLOPS 1e12
/* Sweeps AUTO gives Gauss-Seidel before it turns to GMRES, and GMRES
 * iterations before the LU (small chains only). */
#define PEPA_AUTO_GS_SWEEPS 300
#define PEPA_AUTO_GMRES_ITERS 3000

typedef enum pepa_method {
    PEPA_METHOD_AUTO = 0,
    PEPA_METHOD_DIRECT,
    PEPA_METHOD_GS,
    PEPA_METHOD_SOR,
    PEPA_METHOD_GMRES
} pepa_method;

typedef struct pepa_solve_opts {
    pepa_method method;   /* AUTO by default */
    double tol;           /* target residual ||pi Q||_inf; 0 means 1e-10 */
    long max_iter;        /* iteration cap for iterative methods; 0 means 100000 */
    double omega;         /* SOR relaxation factor; 0 means 1.0 (= Gauss-Seidel) */
    double time_limit;    /* seconds; 0 means none. Exceeding it is a failure.
                             Checked between iterations; the LU cannot be
                             interrupted (its caps bound it instead) */
    int warm;             /* non-zero: pi on entry is the initial guess */
    int threads;          /* GS/SOR threads; 0 means automatic (one: more
                             threads need more sweeps, and pay only on idle
                             cores) */
    int plain;            /* GS/SOR: non-zero turns Anderson acceleration off */
} pepa_solve_opts;

typedef struct pepa_solve_result {
    pepa_method method;   /* the method actually used (never AUTO) */
    long iterations;      /* sweeps / Krylov iterations; 1 for direct */
    double residual;      /* ||pi Q||_inf of the returned pi (sum pi = 1) */
    double seconds;       /* wall time of the solve */
    int converged;        /* residual <= tol */
} pepa_solve_result;

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

/* The first method AUTO tries on q (Gauss-Seidel, for now). */
pepa_method pepa_solve_choose(const pepa_ctmc *q);

/* The methods themselves, for callers that know what they want. opts must
 * be complete (no zero defaults left: pepa_solve fills them in); the
 * contract on pi, res and the return value is the one of pepa_solve,
 * except that res->seconds and res->method are left to the caller. */
int pepa_solve_direct(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                      pepa_solve_result *res, diag *err);

/* The direct method, refusing (return 1, with a message) when UMFPACK's
 * symbolic analysis predicts more than max_bytes of memory or max_flops
 * for the factorisation. pepa_solve_direct uses PEPA_DIRECT_MAX_BYTES and
 * PEPA_DIRECT_MAX_FLOPS, AUTO the tighter PEPA_AUTO_DIRECT_*. */
int pepa_solve_direct_capped(const pepa_ctmc *q, const pepa_solve_opts *opts, double max_bytes,
                             double max_flops, double *pi, pepa_solve_result *res, diag *err);

int pepa_solve_gs(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                  pepa_solve_result *res, diag *err);
int pepa_solve_gmres(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                     pepa_solve_result *res, diag *err);

#endif
