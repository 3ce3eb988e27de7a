/* Shared between the files of transient/, not part of the public API. */
#ifndef SKELSCHED_TRANSIENT_INTERNAL_H
#define SKELSCHED_TRANSIENT_INTERNAL_H

#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <cvode/cvode.h>

#include "transient.h"

/* Copy y (n values) into buf, record the mass error, clip negative entries
 * to 0 (counted in res, with a warning) and renormalise when `prob`, then
 * call out. Returns out's value, or -1. */
int tr_emit(const double *y, long n, int prob, double *buf, tr_result *res, tr_output_fn out,
            void *ctx, int k, double t, diag *err);

/* A direct SUNLinearSolver for sparse CSR matrices with a fixed pattern:
 * KLU (SuiteSparse) analyses the pattern once and refactors at each setup.
 * NULL on failure (memory). */
SUNLinearSolver tr_klu_new(SUNContext sctx);

/* tr_solve by CVODE's BDF method (cvode.c), inputs already checked. */
int tr_cvode_solve(const pepa_ctmc *q, const double *pi0, const double *times, int ntimes,
                   const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err);

/* tr_solve by uniformisation (uniform.c). */
int tr_uniform_solve(const pepa_ctmc *q, const double *pi0, const double *times, int ntimes,
                     const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err);

/* Name a CVODE return flag for a message. */
const char *tr_cv_flag(int flag);

/* The result of a SUNDIALS call: on a negative flag, store "CVODE<who>:
 * <what> failed (NAME, flag N)" in err and return 1 (the caller then frees
 * what it holds); 0 when the call succeeded. */
int tr_cv_failed(int flag, const char *what, const char *who, diag *err);

/* One CVODE integrator and everything it owns, for the chain (cvode.c) and
 * the fluid ODE (fluid.c) alike. All fields NULL until tr_cv_open;
 * tr_cv_close frees whatever was made, so callers have one cleanup path. */
typedef struct tr_cv {
    SUNContext sctx;
    N_Vector y;            /* n values: the state; the caller fills it before tr_cv_init */
    SUNMatrix A;           /* the Jacobian's storage, or NULL (matrix-free solvers) */
    SUNLinearSolver LS;    /* made by the caller, attached with CVodeSetLinearSolver */
    void *mem;             /* CVODE's memory (BDF) */
    double *buf;           /* n values: tr_emit's copy of y */
    const char *who;       /* "" or " (fluid)": names the integrator in messages */
} tr_cv;

/* Make the context, y, buf and CVODE's memory for n variables. 0, or -1
 * with a message (cv stays closable). */
int tr_cv_open(tr_cv *cv, long n, const char *who, diag *err);

/* CVodeInit from (t0, y) with right-hand side f, the tolerances, the step
 * limit and the user data. 0, or -1 with a message. */
int tr_cv_init(tr_cv *cv, CVRhsFn f, double t0, double rtol, double atol, long max_steps,
               void *user, diag *err);

/* Free all cv holds (any field may be NULL). */
void tr_cv_close(tr_cv *cv);

/* Integrate from tcur through the times (CVode in CV_NORMAL mode),
 * emitting each as tr_emit does (prob: y is a distribution), then add
 * CVODE's counters into res. Returns 0, or -1 with a message. */
int tr_cv_integrate(tr_cv *cv, double tcur, const double *times, int ntimes, int prob,
                    tr_result *res, tr_output_fn out, void *ctx, diag *err);

/* SUNDIALS 7 takes a communicator where 6 took a void pointer (no MPI). */
#if SUNDIALS_VERSION_MAJOR >= 7
#define TR_SUN_COMM SUN_COMM_NULL
#else
#define TR_SUN_COMM NULL
#endif

/* ILU(0) of I - gamma Q^T (ilu.c), SPGMR's preconditioner. */
typedef struct tr_ilu tr_ilu;
tr_ilu *tr_ilu_new(const pepa_ctmc *q);
void tr_ilu_free(tr_ilu *f);
int tr_ilu_factor(tr_ilu *f, const pepa_ctmc *q, double gamma);   /* -1: zero pivot */
void tr_ilu_solve(const tr_ilu *f, const double *r, double *z);

/* Check that times are finite, >= 0 and non-decreasing. */
int tr_check_times(const double *times, int ntimes, diag *err);

#endif
