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

/* AUTO picks direct when UMFPACK is built in and the chain is at most
 * this big (the LU fill of PEPA chains grows fast with the state count),
 * Gauss-Seidel otherwise. */
#define PEPA_DIRECT_MAX_STATES 50000u
#define PEPA_DIRECT_MAX_NNZ 1000000u

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

/* The method AUTO stands for on q (see the rule at the top). */
pepa_method pepa_solve_choose(const pepa_ctmc *q);

/* The methods themselves, for callers that know what they want. opts must
 * be complete (no zero defaults left: pepa_solve fills them in); the
 * contract on pi, res and the return value is the one of pepa_solve,
 * except that res->seconds and res->method are left to the caller. */
int pepa_solve_direct(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                      pepa_solve_result *res, diag *err);
int pepa_solve_gs(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                  pepa_solve_result *res, diag *err);
int pepa_solve_gmres(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                     pepa_solve_result *res, diag *err);

#endif
