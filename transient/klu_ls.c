/* A direct SUNLinearSolver backed by SuiteSparse KLU, for CVODE's Newton
 * matrices M = I - gamma J with J = Q^T (the sundials_klu module needs a
 * SUNDIALS build with KLU, which Debian's stack does not give us).
 *
 * M arrives as a SUNDIALS CSR matrix. Its CSR arrays are the CSC arrays of
 * M^T, so we factor M^T and solve with klu_l_tsolve (which solves with the
 * transpose): no copy, no transposition. The pattern of M never changes
 * (the Jacobian is constant and includes its diagonal), so the symbolic
 * analysis is done once and later setups only refactor. M is column
 * diagonally dominant (the columns of Q^T sum to 0), so KLU's first pivot
 * order stays stable for every gamma. */
#include <stdlib.h>
#include <string.h>

#include <suitesparse/klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "internal.h"

typedef struct klu_content {
    klu_l_common common;
    klu_l_symbolic *sym;
    klu_l_numeric *num;
    SuiteSparse_long last_nnz;
    sunindextype last_flag;
} klu_content;

#define KC(S) ((klu_content *)(S)->content)

static SUNLinearSolver_Type kls_gettype(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}

static SUNLinearSolver_ID kls_getid(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}

static int kls_init(SUNLinearSolver S)
{
    KC(S)->last_flag = 0;
    return SUNLS_SUCCESS;
}

static int kls_setup(SUNLinearSolver S, SUNMatrix A)
{
    klu_content *c = KC(S);
    if (SUNMatGetID(A) != SUNMATRIX_SPARSE || SM_SPARSETYPE_S(A) != CSR_MAT)
        return SUNLS_ILL_INPUT;
    SuiteSparse_long n = (SuiteSparse_long)SM_ROWS_S(A);
    SuiteSparse_long *p = (SuiteSparse_long *)SM_INDEXPTRS_S(A);
    SuiteSparse_long *idx = (SuiteSparse_long *)SM_INDEXVALS_S(A);
    double *v = SM_DATA_S(A);
    if (c->sym && p[n] != c->last_nnz) {      /* pattern changed: start over */
        klu_l_free_numeric(&c->num, &c->common);
        klu_l_free_symbolic(&c->sym, &c->common);
    }
    if (!c->sym) {
        c->sym = klu_l_analyze(n, p, idx, &c->common);
        if (!c->sym)
            return (int)(c->last_flag = SUNLS_PACKAGE_FAIL_UNREC);
        c->last_nnz = p[n];
    }
    if (c->num) {
        if (klu_l_refactor(p, idx, v, c->sym, c->num, &c->common))
            return (int)(c->last_flag = SUNLS_SUCCESS);
        klu_l_free_numeric(&c->num, &c->common);
    }
    c->num = klu_l_factor(p, idx, v, c->sym, &c->common);
    if (!c->num)
        /* singular: let CVODE retry with a smaller step */
        return (int)(c->last_flag = c->common.status == KLU_SINGULAR ? SUNLS_LUFACT_FAIL
                                                                   : SUNLS_PACKAGE_FAIL_UNREC);
    return (int)(c->last_flag = SUNLS_SUCCESS);
}

static int kls_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol)
{
    (void)tol;
    klu_content *c = KC(S);
    if (!c->num)
        return SUNLS_MEM_NULL;
    SuiteSparse_long n = (SuiteSparse_long)SM_ROWS_S(A);
    N_VScale(1.0, b, x);
    if (!klu_l_tsolve(c->sym, c->num, n, 1, N_VGetArrayPointer(x), &c->common))
        return (int)(c->last_flag = SUNLS_PACKAGE_FAIL_REC);
    return (int)(c->last_flag = SUNLS_SUCCESS);
}

static sunindextype kls_lastflag(SUNLinearSolver S)
{
    return KC(S)->last_flag;
}

static int kls_free(SUNLinearSolver S)
{
    if (!S)
        return SUNLS_SUCCESS;
    klu_content *c = KC(S);
    if (c) {
        klu_l_free_numeric(&c->num, &c->common);
        klu_l_free_symbolic(&c->sym, &c->common);
        free(c);
        S->content = NULL;
    }
    SUNLinSolFreeEmpty(S);
    return SUNLS_SUCCESS;
}

SUNLinearSolver tr_klu_new(SUNContext sctx)
{
    SUNLinearSolver S = SUNLinSolNewEmpty(sctx);
    if (!S)
        return NULL;
    klu_content *c = calloc(1, sizeof *c);
    if (!c) {
        SUNLinSolFreeEmpty(S);
        return NULL;
    }
    klu_l_defaults(&c->common);
    S->content = c;
    S->ops->gettype = kls_gettype;
    S->ops->getid = kls_getid;
    S->ops->initialize = kls_init;
    S->ops->setup = kls_setup;
    S->ops->solve = kls_solve;
    S->ops->lastflag = kls_lastflag;
    S->ops->free = kls_free;
    return S;
}
