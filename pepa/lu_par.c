/* lu_par: see lu_par.h.
 *
 * Each step forks one helper thread and joins it. The work of a step is
 * cut into chunks of columns (or rows) that do not depend on each other,
 * and each thread takes the next chunk left until none is: the caller's
 * on the process's OpenBLAS, the helper's on a private instance of the
 * same library (lu_par.h), so a helper the machine's other load keeps off
 * a core costs the step at most the chunk it holds: the caller does the
 * rest.
 *
 * The diagonal block of a large front (the closed networks' root fronts
 * have up to 3,126 pivots, 40% of their flops) is factorised by a blocked
 * right-looking LU: each panel of LU_PAR_PANEL columns by LAPACK's sgetrf
 * on the caller alone, the rows exchanged and the trailing columns solved
 * and updated on both threads. Partial pivoting inside the block, as
 * sgetrf's: the same pivots up to rounding. */
#define _GNU_SOURCE             /* dlmopen, dladdr1 */
#include "lu_par.h"

#ifdef HAVE_UMFPACK             /* the BLAS and LAPACK come with the direct solver */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/blaskern.h"
#include "lu_blas.h"

/* Columns (or rows) a thread takes at a time: wide enough that the
 * products' packing is a small part, narrow enough to share a front of a
 * few hundred columns. */
#define LU_PAR_CHUNK 128
/* Columns of a panel of the blocked LU: its flops (n^2 x this / 2) run on
 * one thread, and the trailing updates' inner dimension is this. */
#define LU_PAR_PANEL 192
/* Diagonal blocks of fewer pivots are factorised by sgetrf alone. */
#define LU_PAR_MIN_BLOCKED 768

struct lu_par_blas {
    void *handle;               /* dlmopen's: the private instance */
    void *lapack;               /* the file of the process's sgetrf_, in the copy's namespace */
    lu_par_kern kern;
    diag whole;                 /* set: no whole subtrees on the copy (why), chunks only */
};

#ifdef HAVE_DLMOPEN
/* The symbol's address in the copy h, as a function pointer (POSIX
 * allows the conversion; memcpy keeps -Wpedantic quiet, as blaskern.c). */
static void par_sym(void *h, const char *name, void *fn, size_t size)
{
    void *p = dlsym(h, name);
    memcpy(fn, &p, size);
}

/* Non-zero when the process's OpenBLAS is a threaded build (Debian's
 * libopenblas0-pthread or -openmp alternative: openblas_get_parallel() 1 or
 * 2): its calls already run on every core and it is safe to call from two
 * threads, and a second copy would start a pool of its own. Only the
 * serial build (0) was measured with the helper. */
static int par_blas_threaded(void)
{
    int (*par)(void);
    par_sym(RTLD_DEFAULT, "openblas_get_parallel", &par, sizeof par);
    return par && par() != 0;
}

/* The file of the shared library that defines the process's symbol name
 * at addr, into *file; -1 with the reason in why. Where addr lies in the
 * program itself (a BLAS linked statically, or a -no-pie program whose
 * address is its own PLT entry) dladdr names the program, which dlmopen
 * cannot load again: refused here, with that reason. */
static int par_blas_file(void *addr, const char *name, const char **file, diag *why)
{
    Dl_info in;
    struct link_map *map = NULL;
    if (!dladdr1(addr, &in, (void **)&map, RTLD_DL_LINKMAP) || !in.dli_fname || !map)
        return diag_set(why, "the process's %s is in no loaded object dladdr knows", name);
    if (map->l_name == NULL || map->l_name[0] == '\0')
        return diag_set(why, "%s resolves into the program itself (a static BLAS, or a "
                             "-no-pie build's PLT entry): no shared library to load again",
                        name);
    *file = in.dli_fname;
    return 0;
}

/* The copy's sgetrf_ and slaswp_, from the file that defines the
 * process's (liblapack.so.3 with -llapack, not the file of sgemm_), loaded
 * into the copy's namespace: whole subtrees on the helper then run the
 * caller's code, bit for bit. Where that cannot be, b->whole says why and
 * the copy takes only chunks of large fronts (sgemm_, strsm_). */
static void par_blas_lapack(lu_par_blas *b)
{
    const char *file = NULL, *laswp = NULL;
    Lmid_t lmid;
    if (par_blas_file((void *)sgetrf_, "sgetrf_", &file, &b->whole) < 0
        || par_blas_file((void *)slaswp_, "slaswp_", &laswp, &b->whole) < 0)
        return;
    if (strcmp(file, laswp) != 0) {
        diag_set(&b->whole, "sgetrf_ (%s) and slaswp_ (%s) come from two files", file, laswp);
        return;
    }
    (void)dlerror();
    if (dlinfo(b->handle, RTLD_DI_LMID, &lmid) == 0)
        b->lapack = dlmopen(lmid, file, RTLD_NOW | RTLD_LOCAL);
    if (!b->lapack) {
        const char *e = dlerror();
        diag_set(&b->whole, "dlmopen %s into the copy's namespace: %s", file, e ? e : "failed");
        return;
    }
    par_sym(b->lapack, "sgetrf_", &b->kern.getrf, sizeof b->kern.getrf);
    par_sym(b->lapack, "slaswp_", &b->kern.laswp, sizeof b->kern.laswp);
    if (!b->kern.getrf || !b->kern.laswp)
        diag_set(&b->whole, "%s loaded again has no sgetrf_ or slaswp_", file);
}

/* The copy's kernels; -1 with the reason when it has none. */
static int par_blas_kern(lu_par_blas *b, const char *file, diag *why)
{
    void (*nt)(int);
    par_sym(b->handle, "sgemm_", &b->kern.gemm, sizeof b->kern.gemm);
    par_sym(b->handle, "strsm_", &b->kern.trsm, sizeof b->kern.trsm);
    if (!b->kern.gemm || !b->kern.trsm)
        return diag_set(why, "%s loaded again has no sgemm_ or strsm_", file);
    par_blas_lapack(b);
    if (b->whole.set)
        b->kern.getrf = NULL, b->kern.laswp = NULL;
    /* a threaded build is refused above; this keeps any other to one */
    par_sym(b->handle, "openblas_set_num_threads", &nt, sizeof nt);
    if (nt)
        nt(1);
    return 0;
}

lu_par_blas *lu_par_open(diag *why)
{
    const char *file = NULL, *opt = getenv("SKELSCHED_LU_COPY");
    if (opt && strcmp(opt, "0") == 0) {
        diag_set(why, "SKELSCHED_LU_COPY=0: no second copy of the BLAS is loaded");
        return NULL;
    }
    if (blaskern_under_valgrind()) {    /* its reports inside glibc's loader would be false */
        diag_set(why, "under valgrind a second namespace is not loaded");
        return NULL;
    }
    if (par_blas_threaded()) {
        diag_set(why, "the process's OpenBLAS is a threaded build (openblas_get_parallel() "
                      "non-zero): each call already runs on every core");
        return NULL;
    }
    if (par_blas_file((void *)sgemm_, "sgemm_", &file, why) < 0)
        return NULL;
    lu_par_blas *b = calloc(1, sizeof *b);
    if (!b) {
        diag_set(why, "out of memory");
        return NULL;
    }
    (void)dlerror();                    /* clear a pending one */
    b->handle = dlmopen(LM_ID_NEWLM, file, RTLD_NOW | RTLD_LOCAL);
    if (!b->handle) {
        const char *e = dlerror();
        diag_set(why, "dlmopen: %s", e ? e : file);
    }
    if (!b->handle || par_blas_kern(b, file, why) < 0) {
        lu_par_close(b);
        return NULL;
    }
    return b;
}

#else
lu_par_blas *lu_par_open(diag *why)
{
    diag_set(why, "this build has no dlmopen (configure found none)");
    return NULL;
}
#endif

const lu_par_kern *lu_par_caller(void)
{
    static const lu_par_kern caller = {sgemm_, strsm_, sgetrf_, slaswp_};
    return &caller;
}

const char *lu_par_whole_why(const lu_par_blas *b)
{
    return b && b->whole.set ? b->whole.msg : NULL;
}

const lu_par_kern *lu_par_kernels(const lu_par_blas *b)
{
    return b ? &b->kern : lu_par_caller();
}

void lu_par_close(lu_par_blas *b)
{
    if (!b)
        return;
    if (b->lapack)
        dlclose(b->lapack);
    if (b->handle)
        dlclose(b->handle);
    free(b);
}

/* B (m x n, leading dimension ldb) := L^-1 B, L the unit lower triangle
 * of a. */
static void par_trsm_left(const lu_par_kern *k, int m, int n, float *a, int lda, float *b,
                          int ldb)
{
    float one = 1.0f;
    if (m > 0 && n > 0)
        k->trsm("L", "L", "N", "U", &m, &n, &one, a, &lda, b, &ldb);
}

/* B (m x n) := B U^-1, U the upper triangle of a (n x n). */
static void par_trsm_right(const lu_par_kern *k, int m, int n, float *a, int lda, float *b,
                           int ldb)
{
    float one = 1.0f;
    if (m > 0 && n > 0)
        k->trsm("R", "U", "N", "N", &m, &n, &one, a, &lda, b, &ldb);
}

/* C (m x n) -= A (m x k) B (k x n). */
static void par_gemm(const lu_par_kern *k, int m, int n, int kk, float *a, int lda, float *b,
                     int ldb, float *c, int ldc)
{
    float one = 1.0f, mone = -1.0f;
    if (m > 0 && n > 0 && kk > 0)
        k->gemm("N", "N", &m, &n, &kk, &mone, a, &lda, b, &ldb, &one, c, &ldc);
}

/* One fork-join step: chunks 0 .. n - 1 of the work, body(arg, kern, k)
 * doing chunk k with the kernels of the thread that took it, taken in
 * turn by the caller and a helper thread (all by the caller if no thread
 * can be started). Each chunk's result does not depend on which thread
 * took it (the same library's code on the same data), so the answer does
 * not vary from run to run. */
typedef void lu_par_body(void *arg, const lu_par_kern *kern, int k);

typedef struct lu_par_step {
    lu_par_body *body;
    void *arg;
    int n;
    atomic_int next;            /* the next chunk not taken */
    const lu_par_kern *mine;    /* the helper's kernels */
    int helped;                 /* chunks the helper did (read after join) */
} lu_par_step;

/* Take chunks until none is left; returns how many. */
static int par_take(lu_par_step *st, const lu_par_kern *kern)
{
    int done = 0;
    for (int k; (k = atomic_fetch_add(&st->next, 1)) < st->n; done++)
        st->body(st->arg, kern, k);
    return done;
}

static void *par_helper(void *p)
{
    lu_par_step *st = p;
    st->helped = par_take(st, st->mine);
    return NULL;
}

/* Returns the chunks the helper thread did (0: it took none), -1 when
 * it could not be started (the caller then did them all, on one thread),
 * -2 when none was wanted (the caller alone). */
static int par_run(const lu_par_team *team, lu_par_body *body, void *arg, int n)
{
    const lu_par_kern *other = team->other;
    if (other && team->ready && !atomic_load_explicit(team->ready, memory_order_acquire))
        other = NULL;   /* the other thread may still call its BLAS copy (release: sub_run) */
    lu_par_step st = {.body = body, .arg = arg, .n = n, .mine = other};
    atomic_init(&st.next, 0);
    pthread_t th;
    int wanted = other && n > 1;
    int started = wanted && pthread_create(&th, NULL, par_helper, &st) == 0;
    par_take(&st, team->self);
    if (started)
        pthread_join(th, NULL);
    return started ? st.helped : wanted ? -1 : -2;
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

static void par_trail(void *p, const lu_par_kern *kern, int k)
{
    const lu_par_trail *t = p;
    int c0 = t->j + t->jb, lo, hi;
    par_chunk(t->n - c0, k, &lo, &hi);
    size_t lda = (size_t)t->lda;
    float *top = t->a + (size_t)t->j + (size_t)(c0 + lo) * lda;   /* rows j.., its columns */
    float *blk = t->a + (size_t)t->j + (size_t)t->j * lda;
    par_swap(t->a + (size_t)(c0 + lo) * lda, t->lda, hi - lo, t->j + 1, c0, t->ipiv);
    par_trsm_left(kern, t->jb, hi - lo, blk, t->lda, top, t->lda);
    par_gemm(kern, t->n - c0, hi - lo, t->jb, blk + t->jb, t->lda, top, t->lda, top + t->jb,
             t->lda);
}

/* Add a par_run's outcome to the front's tally. */
static void par_count(lu_par_tally *t, int helped)
{
    if (helped == -1)
        t->unstarted++;
    else if (helped >= 0)
        t->helped += helped, t->offered++;
}

/* lu_par_chunks' task as a step's body: it calls no kernel. */
typedef struct lu_par_plain {
    lu_par_task *task;
    void *arg;
} lu_par_plain;

static void par_plain(void *p, const lu_par_kern *kern, int k)
{
    const lu_par_plain *pl = p;
    (void)kern;
    pl->task(pl->arg, k);
}

void lu_par_chunks(const lu_par_team *team, lu_par_task *task, void *arg, int n,
                   lu_par_tally *t)
{
    lu_par_plain pl = {task, arg};
    *t = (lu_par_tally){0};
    par_count(t, par_run(team, par_plain, &pl, n));
}

/* The blocked LU of the n x n block a (leading dimension lda), pivots
 * ipiv (1-based, within the block). Returns sgetrf's info. */
static int par_getrf(const lu_par_team *team, int n, float *a, int lda, int *ipiv,
                     lu_par_tally *t)
{
    for (int j = 0; j < n; j += LU_PAR_PANEL) {
        int jb = n - j < LU_PAR_PANEL ? n - j : LU_PAR_PANEL, m = n - j, info = 0;
        team->self->getrf(&m, &jb, a + (size_t)j + (size_t)j * (size_t)lda, &lda, ipiv + j, &info);
        if (info != 0)                  /* a zero pivot: the caller falls back to double */
            return info + j;
        for (int i = j; i < j + jb; i++)
            ipiv[i] += j;
        par_swap(a, lda, j, j + 1, j + jb, ipiv);   /* the columns left of the panel */
        lu_par_trail tr = {a, lda, n, j, jb, ipiv};
        par_count(t, par_run(team, par_trail, &tr, par_chunks(n - j - jb)));
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
static void par_solve(void *p, const lu_par_kern *kern, int k)
{
    const lu_par_front *f = p;
    int lo, hi, ncol = par_chunks(f->nb);
    par_chunk(f->nb, k < ncol ? k : k - ncol, &lo, &hi);
    if (k < ncol) {
        float *u = f->f12 + (size_t)lo * (size_t)f->nc;
        par_swap(u, f->nc, hi - lo, 1, f->nc, f->ipiv);
        par_trsm_left(kern, f->nc, hi - lo, f->panel, f->nr, u, f->nc);
    } else {
        par_trsm_right(kern, hi - lo, f->nc, f->panel, f->nr, f->panel + f->nc + lo, f->nr);
    }
}

/* Chunk k of F22's columns: F22 -= F21 F12. */
static void par_update(void *p, const lu_par_kern *kern, int k)
{
    const lu_par_front *f = p;
    int lo, hi;
    par_chunk(f->nb, k, &lo, &hi);
    par_gemm(kern, f->nb, hi - lo, f->nc, f->panel + f->nc, f->nr,
             f->f12 + (size_t)lo * (size_t)f->nc, f->nc, f->f22 + (size_t)lo * (size_t)f->nb,
             f->nb);
}

int lu_par_dense(const lu_par_team *team, int nc, int nb, int nr, float *panel, float *f12,
                 float *f22, int *ipiv, lu_par_tally *t)
{
    int info = 0;
    *t = (lu_par_tally){0};
    if (nc >= LU_PAR_MIN_BLOCKED)
        info = par_getrf(team, nc, panel, nr, ipiv, t);
    else
        team->self->getrf(&nc, &nc, panel, &nr, ipiv, &info);
    if (info != 0 || nb == 0)
        return info;
    lu_par_front f = {nc, nb, nr, panel, f12, f22, ipiv};
    par_count(t, par_run(team, par_solve, &f, 2 * par_chunks(nb)));
    par_count(t, par_run(team, par_update, &f, par_chunks(nb)));
    return 0;
}

typedef struct lu_par_job {
    void (*fn)(void *);
    void *arg;
} lu_par_job;

static void *par_job(void *p)
{
    const lu_par_job *j = p;
    j->fn(j->arg);
    return NULL;
}

int lu_par_pair(void (*helper)(void *), void *harg, void (*caller)(void *), void *carg,
                lu_par_order order)
{
    lu_par_job h = {helper, harg};
    pthread_t th;
    if (order == LU_PAR_CALLER_FIRST)
        caller(carg);
    int started = pthread_create(&th, NULL, par_job, &h) == 0;
    if (started && order == LU_PAR_HELPER_FIRST)
        pthread_join(th, NULL);
    if (order != LU_PAR_CALLER_FIRST)
        caller(carg);
    if (started && order != LU_PAR_HELPER_FIRST)
        pthread_join(th, NULL);
    if (!started)
        helper(harg);
    return started ? 0 : -1;
}

#endif /* HAVE_UMFPACK */
