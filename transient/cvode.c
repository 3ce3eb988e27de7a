/* The forward equations of a CTMC integrated with CVODE's BDF method.
 *
 * y' = Q^T y: row j of the stored matrix lists the transitions into j, so
 * the right-hand side is one pass over the CSR arrays, and the Jacobian is
 * the same matrix with -out[j] on the diagonal. It is constant, so the
 * Jacobian function just copies it; the diagonal is always stored (even
 * when 0) so that CVODE's I - gamma J keeps one pattern and KLU's symbolic
 * analysis is reused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "internal.h"

typedef struct cv_data {
    const pepa_ctmc *q;
    tr_ilu *ilu;           /* SPGMR's preconditioner */
} cv_data;

const char *tr_cv_flag(int flag)
{
    switch (flag) {
    case CV_TOO_MUCH_WORK: return "too many steps; raise the step limit or loosen the tolerances";
    case CV_TOO_MUCH_ACC: return "accuracy requested is too high";
    case CV_ERR_FAILURE: return "repeated error test failures";
    case CV_CONV_FAILURE: return "repeated Newton convergence failures";
    case CV_LSETUP_FAIL: return "linear solver setup failed";
    case CV_LSOLVE_FAIL: return "linear solve failed";
    case CV_RHSFUNC_FAIL: return "right-hand side failed";
    case CV_MEM_FAIL: return "out of memory";
    case CV_ILL_INPUT: return "illegal input";
    default: return "CVODE error";
    }
}

int tr_cv_failed(int flag, const char *what, const char *who, diag *err)
{
    if (flag >= 0)
        return 0;
    diag_set(err, "CVODE%s: %s failed (%s, flag %d)", who, what, tr_cv_flag(flag), flag);
    return 1;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    (void)t;
    const pepa_ctmc *q = ((cv_data *)ud)->q;
    const double *x = N_VGetArrayPointer(y);
    double *d = N_VGetArrayPointer(ydot);
    for (uint32_t j = 0; j < q->n; j++) {
        double s = -q->out[j] * x[j];
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            s += q->val[k] * x[q->col[k]];
        d[j] = s;
    }
    return 0;
}

static int jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2,
               N_Vector t3)
{
    (void)t, (void)y, (void)fy, (void)t1, (void)t2, (void)t3;
    const pepa_ctmc *q = ((cv_data *)ud)->q;
    if ((uint64_t)SM_NNZ_S(J) < q->nnz + q->n)
        return -1;
    sunindextype *p = SM_INDEXPTRS_S(J), *ix = SM_INDEXVALS_S(J);
    double *v = SM_DATA_S(J);
    sunindextype e = 0;
    for (uint32_t j = 0; j < q->n; j++) {
        p[j] = e;
        int diag_done = 0;
        for (uint64_t k = q->rowp[j]; k <= q->rowp[j + 1]; k++) {
            /* merge the diagonal into the sorted row */
            if (!diag_done && (k == q->rowp[j + 1] || q->col[k] > j)) {
                ix[e] = j;
                v[e++] = -q->out[j];
                diag_done = 1;
            }
            if (k < q->rowp[j + 1]) {
                ix[e] = q->col[k];
                v[e++] = q->val[k];
            }
        }
    }
    p[q->n] = e;
    return 0;
}

static int jtimes(N_Vector v, N_Vector Jv, sunrealtype t, N_Vector y, N_Vector fy, void *ud, N_Vector tmp)
{
    (void)y, (void)fy, (void)tmp;
    return rhs(t, v, Jv, ud);
}

static int psetup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                  sunrealtype gamma, void *ud)
{
    (void)t, (void)y, (void)fy, (void)jok;
    cv_data *d = ud;
    *jcur = SUNTRUE;
    /* a zero pivot is recoverable: CVODE retries with a smaller step */
    return tr_ilu_factor(d->ilu, d->q, gamma) < 0 ? 1 : 0;
}

static int psolve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z, sunrealtype gamma,
                  sunrealtype delta, int lr, void *ud)
{
    (void)t, (void)y, (void)fy, (void)gamma, (void)delta, (void)lr;
    cv_data *d = ud;
    tr_ilu_solve(d->ilu, N_VGetArrayPointer(r), N_VGetArrayPointer(z));
    return 0;
}

static int failed(int flag, const char *what, diag *err) { return tr_cv_failed(flag, what, "", err); }

int tr_cv_open(tr_cv *cv, long n, const char *who, diag *err)
{
    memset(cv, 0, sizeof *cv);
    cv->who = who;
    if (SUNContext_Create(TR_SUN_COMM, &cv->sctx) != 0 || !cv->sctx) {
        cv->sctx = NULL;
        return diag_set(err, "CVODE%s: cannot create a SUNDIALS context", who);
    }
    if (!(cv->y = N_VNew_Serial(n, cv->sctx)) || !(cv->buf = malloc((size_t)n * sizeof *cv->buf)))
        return diag_set(err, "out of memory for %ld variables", n);
    if (!(cv->mem = CVodeCreate(CV_BDF, cv->sctx)))
        return diag_set(err, "CVODE%s: CVodeCreate failed", who);
    return 0;
}

int tr_cv_init(tr_cv *cv, CVRhsFn f, double t0, double rtol, double atol, long max_steps,
               void *user, diag *err)
{
    const char *w = cv->who;
    if (tr_cv_failed(CVodeInit(cv->mem, f, t0, cv->y), "CVodeInit", w, err) ||
        tr_cv_failed(CVodeSStolerances(cv->mem, rtol, atol), "CVodeSStolerances", w, err) ||
        tr_cv_failed(CVodeSetUserData(cv->mem, user), "CVodeSetUserData", w, err) ||
        tr_cv_failed(CVodeSetMaxNumSteps(cv->mem, max_steps), "CVodeSetMaxNumSteps", w, err))
        return -1;
    return 0;
}

void tr_cv_close(tr_cv *cv)
{
    free(cv->buf);
    CVodeFree(&cv->mem);
    if (cv->LS)
        SUNLinSolFree(cv->LS);
    if (cv->A)
        SUNMatDestroy(cv->A);
    if (cv->y)
        N_VDestroy(cv->y);
    if (cv->sctx)
        SUNContext_Free(&cv->sctx);
    memset(cv, 0, sizeof *cv);
}

int tr_cv_integrate(tr_cv *cv, double tcur, const double *times, int ntimes, int prob,
                    tr_result *res, tr_output_fn out, void *ctx, diag *err)
{
    long n = N_VGetLength(cv->y);
    const char *who = cv->who;
    void *mem = cv->mem;
    for (int k = 0; k < ntimes; k++) {
        if (times[k] > tcur && tr_cv_failed(CVode(mem, times[k], cv->y, &tcur, CV_NORMAL), "CVode", who, err))
            return -1;
        int r = tr_emit(N_VGetArrayPointer(cv->y), n, prob, cv->buf, res, out, ctx, k, times[k], err);
        if (r < 0)
            return -1;
        if (r > 0)
            break;
    }
    long v[3] = { 0, 0, 0 };
    if (tr_cv_failed(CVodeGetNumSteps(mem, &v[0]), "CVodeGetNumSteps", who, err) ||
        tr_cv_failed(CVodeGetNumRhsEvals(mem, &v[1]), "CVodeGetNumRhsEvals", who, err) ||
        tr_cv_failed(CVodeGetNumLinSolvSetups(mem, &v[2]), "CVodeGetNumLinSolvSetups", who, err))
        return -1;
    res->steps += v[0];
    res->rhs_evals += v[1];
    res->lin_setups += v[2];
    return 0;
}

int tr_cvode_solve(const pepa_ctmc *q, const double *pi0, const double *times, int ntimes,
                   const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err)
{
    tr_cv cv;
    cv_data data = { q, NULL };
    int rc = -1;
    long n = (long)q->n;

    if (tr_cv_open(&cv, n, "", err) < 0)
        goto done;
    double *yy = N_VGetArrayPointer(cv.y);
    if (pi0)
        memcpy(yy, pi0, (size_t)n * sizeof *yy);
    else {
        memset(yy, 0, (size_t)n * sizeof *yy);
        yy[0] = 1;
    }
    if (tr_cv_init(&cv, rhs, 0.0, o->rtol, o->atol, o->max_steps, &data, err) < 0)
        goto done;
    void *mem = cv.mem;
    tr_linsol ls = o->linsol;
    if (ls == TR_LS_AUTO)
        /* bench_transient: sparse LU fills in badly on large chains
         * (production.pepa: ~1 s per factorisation), GMRES does not */
        ls = q->n <= TR_KLU_MAX_STATES ? TR_LS_KLU : TR_LS_GMRES;
    if (ls == TR_LS_KLU) {
        cv.A = SUNSparseMatrix(n, n, (sunindextype)(q->nnz + q->n), CSR_MAT, cv.sctx);
        cv.LS = tr_klu_new(cv.sctx);
        if (!cv.A || !cv.LS) {
            diag_set(err, "out of memory for the Jacobian of %ld states", n);
            goto done;
        }
        if (failed(CVodeSetLinearSolver(mem, cv.LS, cv.A), "CVodeSetLinearSolver", err) ||
            failed(CVodeSetJacFn(mem, jac), "CVodeSetJacFn", err))
            goto done;
    } else {
        if (!(cv.LS = SUNLinSol_SPGMR(cv.y, SUN_PREC_LEFT, 30, cv.sctx)) ||
            !(data.ilu = tr_ilu_new(q))) {
            diag_set(err, "out of memory for SPGMR");
            goto done;
        }
        /* An inexact Newton solve leaks probability mass (1^T M x = 1^T x
         * only for the exact x); a tighter linear tolerance (EpsLin) keeps
         * the drift well below 1e-9. */
        if (failed(CVodeSetLinearSolver(mem, cv.LS, NULL), "CVodeSetLinearSolver", err) ||
            failed(CVodeSetJacTimes(mem, NULL, jtimes), "CVodeSetJacTimes", err) ||
            failed(CVodeSetPreconditioner(mem, psetup, psolve), "CVodeSetPreconditioner", err) ||
            failed(CVodeSetEpsLin(mem, 1e-3), "CVodeSetEpsLin", err))
            goto done;
    }

    if (tr_cv_integrate(&cv, 0, times, ntimes, 1, res, out, ctx, err) < 0)
        goto done;
    rc = 0;
done:
    tr_cv_close(&cv);
    tr_ilu_free(data.ilu);
    return rc;
}
