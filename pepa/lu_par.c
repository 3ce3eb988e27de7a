/* lu_par: see lu_par.h.
 *
 * Each step forks one helper thread and joins it. The work of a step is
 * cut into chunks of columns (or rows) that do not depend on each other,
 * and each thread takes the next chunk left until none is: the caller's
 * on OpenBLAS, the helper's on BLIS. So the faster kernels take more
 * (BLIS 0.9.0 as Debian builds it runs its Haswell kernels on this
 * machine, its build having no Skylake-X ones: about half of OpenBLAS's
 * Skylake-X sgemm, 58 against 123-127 GFlop/s on 3,000 x 3,000), and a
 * helper the machine's other load keeps off a core costs the step at most
 * the chunk it holds: the caller does the rest.
 *
 * The diagonal block of a large front (the closed networks' root fronts
 * have up to 3,126 pivots, 40% of their flops) is factorised by a blocked
 * right-looking LU: each panel of LU_PAR_PANEL columns by LAPACK's sgetrf
 * on the caller alone, the rows exchanged and the trailing columns solved
 * and updated on both threads. Partial pivoting inside the block, as
 * sgetrf's: the same pivots up to rounding. */
#include "lu_par.h"

#include "lu_blas.h"

#ifdef HAVE_BLIS
#include <blis.h>
#include <pthread.h>
#include <stdatomic.h>

/* Columns (or rows) a thread takes at a time: wide enough that the
 * products' packing is a small part, narrow enough to share a front of a
 * few hundred columns. */
#define LU_PAR_CHUNK 128
/* Columns of a panel of the blocked LU: its flops (n^2 x this / 2) run on
 * one thread, and the trailing updates' inner dimension is this. */
#define LU_PAR_PANEL 192
/* Diagonal blocks of fewer pivots are factorised by sgetrf alone. */
#define LU_PAR_MIN_BLOCKED 768

typedef enum lu_par_who { LU_PAR_CALLER, LU_PAR_HELPER } lu_par_who;

/* BLIS's settings for one call of the helper: one thread (the helper is
 * already the second), held in the call's own rntm_t, so nothing
 * process-wide is set. */
static rntm_t par_rntm(void)
{
    rntm_t rn = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(1, &rn);
    return rn;
}

/* B (m x n, leading dimension ldb) := L^-1 B, L the unit lower triangle
 * of a. */
static void par_trsm_left(lu_par_who who, int m, int n, float *a, int lda, float *b, int ldb)
{
    float one = 1.0f;
    if (m == 0 || n == 0)
        return;
    if (who == LU_PAR_CALLER) {
        strsm_("L", "L", "N", "U", &m, &n, &one, a, &lda, b, &ldb);
        return;
    }
    rntm_t rn = par_rntm();
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
    rntm_t rn = par_rntm();
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
    rntm_t rn = par_rntm();
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &mone, a, 1, lda, b, 1, ldb,
                 &one, c, 1, ldc, NULL, &rn);
}

/* One fork-join step: chunks 0 .. n - 1 of the work, body(arg, who, k)
 * doing chunk k, taken in turn by the caller and a helper thread (all by
 * the caller if no thread can be started). */
typedef void lu_par_body(void *arg, lu_par_who who, int k);

typedef struct lu_par_step {
    lu_par_body *body;
    void *arg;
    int n;
    atomic_int next;            /* the next chunk not taken */
    int helped;                 /* chunks the helper did (read after join) */
} lu_par_step;

/* Take chunks until none is left; returns how many. */
static int par_take(lu_par_step *st, lu_par_who who)
{
    int done = 0;
    for (int k; (k = atomic_fetch_add(&st->next, 1)) < st->n; done++)
        st->body(st->arg, who, k);
    return done;
}

static void *par_helper(void *p)
{
    lu_par_step *st = p;
    st->helped = par_take(st, LU_PAR_HELPER);
    return NULL;
}

/* Returns the chunks the helper thread did (0: it took none), -1 when it
 * could not be started (the caller then did them all, on one thread). */
static int par_run(lu_par_body *body, void *arg, int n)
{
    lu_par_step st = {.body = body, .arg = arg, .n = n, .helped = 0};
    atomic_init(&st.next, 0);
    pthread_t th;
    int started = n > 1 && pthread_create(&th, NULL, par_helper, &st) == 0;
    par_take(&st, LU_PAR_CALLER);
    if (started)
        pthread_join(th, NULL);
    return started || n < 2 ? st.helped : -1;
}

/* Chunks of n columns, and chunk k's columns [*lo, *hi). */
static int par_chunks(int n)
{
    return (n + LU_PAR_CHUNK - 1) / LU_PAR_CHUNK;
}

static void par_chunk(int n, int k, int *lo, int *hi)
{
    *lo = k * LU_PAR_CHUNK;
    *hi = *lo + LU_PAR_CHUNK < n ? *lo + LU_PAR_CHUNK : n;
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

/* Step j of the blocked LU of the n x n block a: the panel (columns j to
 * j + jb) is factorised, the columns right of it are exchanged, solved and
 * updated, each thread its share of them. */
typedef struct lu_par_trail {
    float *a;
    int lda, n, j, jb;
    const int *ipiv;
} lu_par_trail;

static void par_trail(void *p, lu_par_who who, int k)
{
    const lu_par_trail *t = p;
    int c0 = t->j + t->jb, lo, hi;
    par_chunk(t->n - c0, k, &lo, &hi);
    size_t lda = (size_t)t->lda;
    float *top = t->a + (size_t)t->j + (size_t)(c0 + lo) * lda;   /* rows j.., its columns */
    float *diag = t->a + (size_t)t->j + (size_t)t->j * lda;
    par_swap(t->a + (size_t)(c0 + lo) * lda, t->lda, hi - lo, t->j + 1, c0, t->ipiv);
    par_trsm_left(who, t->jb, hi - lo, diag, t->lda, top, t->lda);
    par_gemm(who, t->n - c0, hi - lo, t->jb, diag + t->jb, t->lda, top, t->lda, top + t->jb,
             t->lda);
}

/* Add a par_run's outcome to the front's tally. */
static void par_count(lu_par_tally *t, int helped)
{
    if (helped < 0)
        t->unstarted++;
    else
        t->helped += helped;
}

/* The blocked LU of the n x n block a (leading dimension lda), pivots
 * ipiv (1-based, within the block). Returns sgetrf's info. */
static int par_getrf(int n, float *a, int lda, int *ipiv, lu_par_tally *t)
{
    for (int j = 0; j < n; j += LU_PAR_PANEL) {
        int jb = n - j < LU_PAR_PANEL ? n - j : LU_PAR_PANEL, m = n - j, info = 0;
        sgetrf_(&m, &jb, a + (size_t)j + (size_t)j * (size_t)lda, &lda, ipiv + j, &info);
        if (info != 0)                  /* a zero pivot: the caller falls back to double */
            return info + j;
        for (int i = j; i < j + jb; i++)
            ipiv[i] += j;
        par_swap(a, lda, j, j + 1, j + jb, ipiv);   /* the columns left of the panel */
        lu_par_trail tr = {a, lda, n, j, jb, ipiv};
        par_count(t, par_run(par_trail, &tr, par_chunks(n - j - jb)));
    }
    return 0;
}

/* A front's blocks (lu_par_dense's arguments). */
typedef struct lu_par_front {
    int nc, nb, nr;
    float *panel, *f12, *f22;
    const int *ipiv;
} lu_par_front;

/* Chunk k of F12's columns exchanged and solved, or (past them) of the
 * panel's lower rows solved. */
static void par_solve(void *p, lu_par_who who, int k)
{
    const lu_par_front *f = p;
    int lo, hi, ncol = par_chunks(f->nb);
    par_chunk(f->nb, k < ncol ? k : k - ncol, &lo, &hi);
    if (k < ncol) {
        float *u = f->f12 + (size_t)lo * (size_t)f->nc;
        par_swap(u, f->nc, hi - lo, 1, f->nc, f->ipiv);
        par_trsm_left(who, f->nc, hi - lo, f->panel, f->nr, u, f->nc);
    } else {
        par_trsm_right(who, hi - lo, f->nc, f->panel, f->nr, f->panel + f->nc + lo, f->nr);
    }
}

/* Chunk k of F22's columns: F22 -= F21 F12. */
static void par_update(void *p, lu_par_who who, int k)
{
    const lu_par_front *f = p;
    int lo, hi;
    par_chunk(f->nb, k, &lo, &hi);
    par_gemm(who, f->nb, hi - lo, f->nc, f->panel + f->nc, f->nr,
             f->f12 + (size_t)lo * (size_t)f->nc, f->nc, f->f22 + (size_t)lo * (size_t)f->nb,
             f->nb);
}

int lu_par_dense(int nc, int nb, int nr, float *panel, float *f12, float *f22, int *ipiv,
                 lu_par_tally *t)
{
    int info = 0;
    t->helped = t->unstarted = 0;
    if (nc >= LU_PAR_MIN_BLOCKED)
        info = par_getrf(nc, panel, nr, ipiv, t);
    else
        sgetrf_(&nc, &nc, panel, &nr, ipiv, &info);
    if (info != 0 || nb == 0)
        return info;
    lu_par_front f = {nc, nb, nr, panel, f12, f22, ipiv};
    par_count(t, par_run(par_solve, &f, 2 * par_chunks(nb)));
    par_count(t, par_run(par_update, &f, par_chunks(nb)));
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
