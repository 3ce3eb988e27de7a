/* lu_par: see lu_par.h.
 *
 * Each step forks one helper thread and joins it. The caller's part runs on
 * OpenBLAS, the helper's on BLIS; BLIS 0.9.0 as Debian builds it runs its
 * Haswell kernels on this machine (its build has no Skylake-X ones), at
 * about half of OpenBLAS's Skylake-X sgemm (58 against 123-127 GFlop/s on
 * 3,000 x 3,000, bench_solve direct's numbers in docs/pepa.md), so the
 * helper takes LU_PAR_SHARE of the columns, not half.
 *
 * The diagonal block of a large front (the closed networks' root fronts
 * have up to 3,126 pivots, 40% of their flops) is factorised by a blocked
 * right-looking LU: each panel of LU_PAR_PANEL columns by LAPACK's sgetrf
 * on the caller alone, the rows exchanged and the trailing columns solved
 * and updated on both threads. Partial pivoting inside the block, as
 * sgetrf's: the same pivots up to rounding. */
#include "lu_par.h"

#ifdef HAVE_BLIS
#include <blis.h>
#include <pthread.h>

void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void slaswp_(const int *n, float *a, const int *lda, const int *k1, const int *k2,
             const int *ipiv, const int *incx);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            float *b, const int *ldb);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b,
            const int *ldb, const float *beta, float *c, const int *ldc);

/* The helper's share of the columns: BLIS's speed over both (above). */
#define LU_PAR_SHARE 0.32
/* Columns of a panel of the blocked LU: its flops (n^2 x this / 2) run on
 * one thread, and the trailing updates' inner dimension is this. */
#define LU_PAR_PANEL 192
/* Diagonal blocks of fewer pivots are factorised by sgetrf alone. */
#define LU_PAR_MIN_BLOCKED 768

typedef enum lu_par_who { LU_PAR_CALLER, LU_PAR_HELPER } lu_par_who;

/* B (m x n, leading dimension ldb) := L^-1 B, L the unit lower triangle of a. */
static void par_trsm_left(lu_par_who who, int m, int n, float *a, int lda, float *b, int ldb)
{
    float one = 1.0f;
    if (m == 0 || n == 0)
        return;
    if (who == LU_PAR_CALLER) {
        strsm_("L", "L", "N", "U", &m, &n, &one, a, &lda, b, &ldb);
        return;
    }
    rntm_t rn = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rn);
    bli_strsm_ex(BLIS_LEFT, BLIS_LOWER, BLIS_NO_TRANSPOSE, BLIS_UNIT_DIAG, m, n, &one, a, 1,
                 lda, b, 1, ldb, NULL, &rn);
}

/* B (m x n) := B U^-1, U the upper triangle of a (n x n). */
static void par_trsm_right(lu_par_who who, int m, int n, float *a, int lda, float *b, int ldb)
{
    float one = 1.0f;
    if (m == 0 || n == 0)
        return;
    if (who == LU_PAR_CALLER) {
        strsm_("R", "U", "N", "N", &m, &n, &one, a, &lda, b, &ldb);
        return;
    }
    rntm_t rn = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rn);
    bli_strsm_ex(BLIS_RIGHT, BLIS_UPPER, BLIS_NO_TRANSPOSE, BLIS_NONUNIT_DIAG, m, n, &one, a,
                 1, lda, b, 1, ldb, NULL, &rn);
}

/* C (m x n) -= A (m x k) B (k x n). */
static void par_gemm(lu_par_who who, int m, int n, int k, float *a, int lda, float *b, int ldb,
                     float *c, int ldc)
{
    float one = 1.0f, mone = -1.0f;
    if (m == 0 || n == 0 || k == 0)
        return;
    if (who == LU_PAR_CALLER) {
        sgemm_("N", "N", &m, &n, &k, &mone, a, &lda, b, &ldb, &one, c, &ldc);
        return;
    }
    rntm_t rn = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rn);
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &mone, a, 1, lda, b, 1, ldb,
                 &one, c, 1, ldc, NULL, &rn);
}

/* One fork-join step: fn(arg, LU_PAR_CALLER) here, fn(arg, LU_PAR_HELPER)
 * on a helper thread (here too, after it, if no thread can be started). */
typedef void lu_par_fn(void *arg, lu_par_who who);

typedef struct lu_par_call {
    lu_par_fn *fn;
    void *arg;
} lu_par_call;

static void *par_helper(void *p)
{
    const lu_par_call *c = p;
    c->fn(c->arg, LU_PAR_HELPER);
    return NULL;
}

static void par_run(lu_par_fn *fn, void *arg)
{
    lu_par_call c = {fn, arg};
    pthread_t th;
    int started = pthread_create(&th, NULL, par_helper, &c) == 0;
    fn(arg, LU_PAR_CALLER);
    if (started)
        pthread_join(th, NULL);
    else
        fn(arg, LU_PAR_HELPER);
}

/* Where the caller's columns of n end: the helper takes the rest. */
static int par_cut(int n)
{
    return n - (int)(LU_PAR_SHARE * n + 0.5);
}

/* Rows k1..k2 (1-based) of the w columns at a (leading dimension lda)
 * exchanged as ipiv says, as LAPACK's laswp: written out, not called, so
 * that the helper thread does not enter OpenBLAS. */
static void par_swap(float *a, int lda, int w, int k1, int k2, const int *ipiv)
{
    for (int c = 0; c < w; c++) {
        float *col = a + (size_t)c * (size_t)lda;
        for (int i = k1 - 1; i < k2; i++) {
            int p = ipiv[i] - 1;
            if (p != i) {
                float t = col[i];
                col[i] = col[p];
                col[p] = t;
            }
        }
    }
}

/* The columns [lo, hi) of n that who works on. */
static void par_range(int n, lu_par_who who, int *lo, int *hi)
{
    int cut = par_cut(n);
    *lo = who == LU_PAR_CALLER ? 0 : cut;
    *hi = who == LU_PAR_CALLER ? cut : n;
}

/* Step j of the blocked LU of the n x n block a: the panel (columns j to
 * j + jb) is factorised, the columns right of it are exchanged, solved and
 * updated, each thread its share of them. */
typedef struct lu_par_trail {
    float *a;
    int lda, n, j, jb;
    const int *ipiv;
} lu_par_trail;

static void par_trail(void *p, lu_par_who who)
{
    const lu_par_trail *t = p;
    int c0 = t->j + t->jb, lo, hi;
    par_range(t->n - c0, who, &lo, &hi);
    if (hi <= lo)
        return;
    size_t lda = (size_t)t->lda;
    float *top = t->a + (size_t)t->j + (size_t)(c0 + lo) * lda;   /* rows j.., its columns */
    float *diag = t->a + (size_t)t->j + (size_t)t->j * lda;
    par_swap(t->a + (size_t)(c0 + lo) * lda, t->lda, hi - lo, t->j + 1, c0, t->ipiv);
    par_trsm_left(who, t->jb, hi - lo, diag, t->lda, top, t->lda);
    par_gemm(who, t->n - c0, hi - lo, t->jb, diag + t->jb, t->lda, top, t->lda, top + t->jb,
             t->lda);
}

/* The blocked LU of the n x n block a (leading dimension lda), pivots
 * ipiv (1-based, within the block). Returns sgetrf's info. */
static int par_getrf(int n, float *a, int lda, int *ipiv)
{
    for (int j = 0; j < n; j += LU_PAR_PANEL) {
        int jb = n - j < LU_PAR_PANEL ? n - j : LU_PAR_PANEL, m = n - j, info = 0;
        sgetrf_(&m, &jb, a + (size_t)j + (size_t)j * (size_t)lda, &lda, ipiv + j, &info);
        if (info != 0)                  /* a zero pivot: the caller falls back to double */
            return info + j;
        for (int i = j; i < j + jb; i++)
            ipiv[i] += j;
        par_swap(a, lda, j, j + 1, j + jb, ipiv);   /* the columns left of the panel */
        lu_par_trail t = {a, lda, n, j, jb, ipiv};
        if (j + jb < n)
            par_run(par_trail, &t);
    }
    return 0;
}

/* A front's blocks (lu_par_dense's arguments). */
typedef struct lu_par_front {
    int nc, nb, nr;
    float *panel, *f12, *f22;
    const int *ipiv;
} lu_par_front;

/* F12's columns exchanged and solved, and the panel's lower rows solved:
 * each thread its share of both. */
static void par_solve(void *p, lu_par_who who)
{
    const lu_par_front *f = p;
    int lo, hi;
    par_range(f->nb, who, &lo, &hi);
    if (hi <= lo)
        return;
    float *u = f->f12 + (size_t)lo * (size_t)f->nc;
    par_swap(u, f->nc, hi - lo, 1, f->nc, f->ipiv);
    par_trsm_left(who, f->nc, hi - lo, f->panel, f->nr, u, f->nc);
    par_trsm_right(who, hi - lo, f->nc, f->panel, f->nr, f->panel + f->nc + lo, f->nr);
}

/* F22 -= F21 F12, each thread its share of F22's columns. */
static void par_update(void *p, lu_par_who who)
{
    const lu_par_front *f = p;
    int lo, hi;
    par_range(f->nb, who, &lo, &hi);
    par_gemm(who, f->nb, hi - lo, f->nc, f->panel + f->nc, f->nr,
             f->f12 + (size_t)lo * (size_t)f->nc, f->nc, f->f22 + (size_t)lo * (size_t)f->nb,
             f->nb);
}

int lu_par_dense(int nc, int nb, int nr, float *panel, float *f12, float *f22, int *ipiv)
{
    int info = 0;
    if (nc >= LU_PAR_MIN_BLOCKED)
        info = par_getrf(nc, panel, nr, ipiv);
    else
        sgetrf_(&nc, &nc, panel, &nr, ipiv, &info);
    if (info != 0 || nb == 0)
        return info;
    lu_par_front f = {nc, nb, nr, panel, f12, f22, ipiv};
    par_run(par_solve, &f);
    par_run(par_update, &f);
    return 0;
}

int lu_par_available(void)
{
    return 1;
}

#else /* no BLIS: one thread */

int lu_par_available(void)
{
    return 0;
}

#endif
