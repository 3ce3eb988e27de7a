/* pepa_solve: steady-state distribution pi of a CTMC, pi Q = 0, sum pi = 1.
 *
 * Methods:
 *   direct  - sparse LU (SuiteSparse UMFPACK) of Q^T with one equation
 *             replaced by the normalisation; exact up to rounding.
 *   gs      - Gauss-Seidel sweeps over the rows of Q^T.
 *   sor     - successive over-relaxation (omega from the options).
 *   gmres   - restarted GMRES with an ILU(0) preconditioner.
 *   auto    - direct for small chains, iterative for large ones.
 * Every answer reports its residual ||pi Q||_inf and iteration count;
 * a method that does not reach the tolerance says so (converged = 0 and a
 * message), it never returns a silently unconverged vector as converged. */
#ifndef SKELSCHED_PEPA_SOLVE_H
#define SKELSCHED_PEPA_SOLVE_H

#include "ctmc.h"
#include "../base/diag.h"

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
    double time_limit;    /* seconds; 0 means none. Exceeding it is a failure */
    int warm;             /* non-zero: pi on entry is the initial guess */
    int threads;          /* GS/SOR worker threads; 0 means automatic */
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

/* Solve for pi (length q->n, owned by the caller). Returns 0 on success;
 * -1 with a message in err when the method failed or did not converge
 * (res is filled in either case, pi holds the last iterate). */
int pepa_solve(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
               pepa_solve_result *res, diag *err);

/* Name of a method ("direct", "gs", ...) and the reverse; the reverse
 * returns -1 for an unknown name. */
const char *pepa_method_name(pepa_method m);
int pepa_method_parse(const char *name, pepa_method *m);

#endif
