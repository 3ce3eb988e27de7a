/* pepa_lu: multifrontal sparse LU on CHOLMOD's supernodal analysis (see
 * lu.h for why), in double or single precision: the numerical phase is
 * lu_front.h, included once for each.
 *
 * Supernode s holds the pivot columns k1 = super[s] .. k2 - 1 of the
 * permuted matrix B = A(p,p) and the row set rows[rp[s] .. rp[s+1]), whose
 * first nc = k2 - k1 entries are k1 .. k2 - 1: the structure of column k1
 * of L (and of row k1 of U, the pattern being symmetric). Its frontal
 * matrix F (nr x nr, dense, column-major) gathers B's entries of these
 * pivot rows and columns and the children's contribution blocks; then
 *   F11 = P L11 U11 (LAPACK dgetrf: pivoting inside the block only),
 *   U12 = L11^-1 P^T F12, L21 = F21 U11^-1, F22 -= L21 U12,
 * and F22, the contribution block, waits on a stack for the parent (the
 * supernodes are postordered, so a parent's children are on top). L's
 * panel [L11\U11; L21] and U12 are kept for the solves.
 *
 * F is never one array: its four blocks are assembled where they end up,
 * [F11; F21] in L's panel, F12 in U12's place, F22 on the stack above
 * the children's blocks, then moved down over them. Memory that the
 * process touches first costs far more than the flops here (on this VM
 * about 3 ms per MB, the kernel zeroing pages): one front of the largest
 * order (16-78 MB on the bench chains) and a copy of every U12 and F22
 * are saved. The factors and the stack share one array, sized by the
 * symbolic analysis: the panels and U12 blocks fill it from the start in
 * the order they are written, and the stack lives in its tail, growing
 * down from the end into the space the factors have not reached yet, so
 * most of the stack's pages are written again as factors (the array is
 * 5-24% smaller than the factors and a separate stack on the closed
 * networks of bench_solve; the stack was 27-40% of their fresh memory).
 *
 * Reference: Duff and Reid, The multifrontal solution of indefinite sparse
 * symmetric linear equations, ACM TOMS 9 (1983); Liu, The multifrontal
 * method for sparse matrix solution, SIAM Review 34 (1992). */
#define _DEFAULT_SOURCE         /* madvise */
#include "lu.h"
#include "lu_par.h"
#include "lu_sub.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../base/clock.h"

#ifdef HAVE_UMFPACK
#include <suitesparse/cholmod.h>

typedef SuiteSparse_long lu_int;

#include "lu_blas.h"

struct pepa_lu {
    lu_int m, nsuper;
    pepa_lu_order order;    /* PEPA_LU_AMD or PEPA_LU_METIS */
    lu_int *perm;       /* B = A(perm, perm) */
    lu_int *iperm;
    lu_int *super;      /* nsuper + 1 */
    lu_int *rp, *rows;  /* row sets */
    lu_int *parent;     /* -1 for a root */
    lu_int *kp, *kid;   /* children of each supernode, ascending (kp: nsuper + 2) */
    size_t *lp, *up;    /* offsets of each panel and each U12 in the factors' array */
    double *lxd, *uxd;  /* the factors in double precision (one array: lxd == uxd) ... */
    float *lxs, *uxs;   /* ... or in single (one pair is NULL) */
    pepa_lu_prec prec;  /* of the factors held */
    int *ipiv;          /* m: the pivot row of column k, within its supernode (1-based) */
    size_t maxf;        /* largest front's order */
    size_t work;        /* entries of the factors' array, with the stack in its tail */
    int other_tried;    /* PEPA_LU_AUTO analysed the other ordering too, and dropped it: */
    pepa_lu *other;     /* ... its analysis (NULL if it failed), until taken */
    double other_flops, other_bytes;
    int threads;        /* 1, or 2: large fronts on two threads (lu_par.h) */
    lu_par_blas *par;   /* the helper thread's BLAS, loaded at the first large front */
    diag par_why;       /* why it could not be loaded (set: not tried again) */
    lu_int split;       /* fronts of the last factorisation the helper thread worked on */
    lu_int unstarted;   /* ... where a helper thread could not be started */
    lu_int chunked;     /* ... assembled by chunks of columns */
    lu_int offered[LU_SUB_OWNERS];      /* lu_sub_offered */
    lu_par_order order_test;            /* lu_sub_test_order */
    int planned;        /* plan made (lu_sub.h; once per analysis, at the first need) */
    lu_sub_plan plan;   /* its owner NULL: no cut pays, the tree runs as on one thread */
    double maxfl;       /* flops of the largest front (with the plan) */
    double part[3];     /* pepa_lu_part_seconds */
    int cut;            /* the last factorisation ran on the plan */
    diag cut_why;       /* why the last one was not cut though the plan cuts (empty: it was) */
    int pivot_lost;     /* the last factorisation failed on a zero pivot */
    double memory;      /* bytes the factorisation may take: *bytes, or pepa_lu_set_memory's */
};

/* What a factorisation came to: done, a zero pivot (LAPACK's info), or
 * one of the failures a cut factorisation retries without the cut. */
typedef enum lu_outcome {
    LU_DONE,
    LU_PIVOT,           /* singular, or in single precision may only look so */
    LU_NOMEM,
    LU_STACK,           /* a stack met the factors or its end: predict()/lu_sub wrong */
    LU_UNORDERED        /* supernodes not postordered */
} lu_outcome;

/* n elements of size bytes each (at least one). The factors and fronts are large and written
 * once: in 4 KB pages, faulting them in took a fifth of a 30^3 grid's
 * factorisation; on transparent huge pages (Linux, where enabled) it
 * costs next to nothing. Freed with free(). */
#define LU_HUGE ((size_t)2 << 20)
static void *big(size_t n, size_t size)
{
    size_t bytes = (n ? n : 1) * size;
    if (bytes < 2 * LU_HUGE)
        return malloc(bytes);
    bytes = (bytes + LU_HUGE - 1) / LU_HUGE * LU_HUGE;
    void *p = aligned_alloc(LU_HUGE, bytes);
#ifdef MADV_HUGEPAGE
    if (p)
        madvise(p, bytes, MADV_HUGEPAGE);   /* advice only: failure is harmless */
#endif
    return p;
}

static void free_factors(pepa_lu *lu)
{
    free(lu->lxs);                      /* uxs and uxd are the same arrays */
    free(lu->lxd);
    lu->lxd = lu->uxd = NULL;
    lu->lxs = lu->uxs = NULL;
}

void pepa_lu_free(pepa_lu *lu)
{
    if (!lu)
        return;
    pepa_lu_free(lu->other);
    lu_par_close(lu->par);
    lu_sub_plan_free(&lu->plan);
    free(lu->ipiv);
    free_factors(lu);
    free(lu->up);
    free(lu->lp);
    free(lu->kid);
    free(lu->kp);
    free(lu->parent);
    free(lu->rows);
    free(lu->rp);
    free(lu->super);
    free(lu->iperm);
    free(lu->perm);
    free(lu);
}

/* ---------------------------------------------------------------- analysis */

/* The pattern of A + A^T, upper part used (stype 1), for CHOLMOD. */
static cholmod_sparse *sym_pattern(lu_int m, const int64_t *Ap, const int64_t *Ai,
                                   cholmod_common *c)
{
    cholmod_sparse a = {0};
    a.nrow = a.ncol = (size_t)m;
    a.nzmax = (size_t)Ap[m];
    a.p = (void *)Ap;
    a.i = (void *)Ai;
    a.stype = 0;
    a.itype = CHOLMOD_LONG;
    a.xtype = CHOLMOD_PATTERN;
    a.dtype = CHOLMOD_DOUBLE;
    a.sorted = 0;
    a.packed = 1;
    cholmod_sparse *at = cholmod_l_transpose(&a, 0, c);
    cholmod_sparse *s = at ? cholmod_l_add(&a, at, NULL, NULL, 0, 1, c) : NULL;
    cholmod_l_free_sparse(&at, c);
    if (s)
        s->stype = 1;
    return s;
}

/* Copy what the numerical phase needs out of CHOLMOD's factor. */
static int take_symbolic(pepa_lu *lu, const cholmod_factor *f)
{
    lu_int m = lu->m, ns = (lu_int)f->nsuper;
    const lu_int *super = f->super, *pi = f->pi, *ls = f->s, *perm = f->Perm;
    lu->nsuper = ns;
    lu->perm = malloc((size_t)m * sizeof *lu->perm);
    lu->iperm = malloc((size_t)m * sizeof *lu->iperm);
    lu->super = malloc((size_t)(ns + 1) * sizeof *lu->super);
    lu->rp = malloc((size_t)(ns + 1) * sizeof *lu->rp);
    lu->rows = malloc((size_t)pi[ns] * sizeof *lu->rows);
    lu->parent = malloc((size_t)ns * sizeof *lu->parent);
    lu->lp = malloc((size_t)(ns + 1) * sizeof *lu->lp);
    lu->up = malloc((size_t)(ns + 1) * sizeof *lu->up);
    lu->ipiv = malloc((size_t)m * sizeof *lu->ipiv);
    lu->kp = calloc((size_t)ns + 2, sizeof *lu->kp);
    lu->kid = malloc((size_t)(ns ? ns : 1) * sizeof *lu->kid);
    if (!lu->perm || !lu->iperm || !lu->super || !lu->rp || !lu->rows || !lu->parent
        || !lu->lp || !lu->up || !lu->ipiv || !lu->kp || !lu->kid)
        return -1;
    memcpy(lu->perm, perm, (size_t)m * sizeof *perm);
    memcpy(lu->super, super, (size_t)(ns + 1) * sizeof *super);
    memcpy(lu->rp, pi, (size_t)(ns + 1) * sizeof *pi);
    memcpy(lu->rows, ls, (size_t)pi[ns] * sizeof *ls);
    for (lu_int k = 0; k < m; k++)
        lu->iperm[perm[k]] = k;
    return 0;
}

/* Each supernode's parent (the supernode of its first row below the
 * diagonal block), value offsets, and the structure checks the
 * numerical phase relies on (pivot rows first, rows sorted). Returns 0
 * or -1. */
static int tree(pepa_lu *lu)
{
    lu_int ns = lu->nsuper, *smap = malloc((size_t)lu->m * sizeof *smap);
    if (!smap)
        return -1;
    for (lu_int s = 0; s < ns; s++)
        for (lu_int k = lu->super[s]; k < lu->super[s + 1]; k++)
            smap[k] = s;
    int bad = 0;
    size_t off = 0;
    lu->maxf = 0;
    for (lu_int s = 0; s < ns; s++) {
        lu_int k1 = lu->super[s], nc = lu->super[s + 1] - k1, nr = lu->rp[s + 1] - lu->rp[s];
        const lu_int *r = lu->rows + lu->rp[s];
        for (lu_int i = 0; i < nc && i < nr; i++)
            bad |= r[i] != k1 + i;
        for (lu_int i = nc; i < nr; i++)        /* sorted: add_column splits on it */
            bad |= r[i] <= r[i - 1];
        bad |= nr < nc;
        lu->parent[s] = nr > nc ? smap[r[nc]] : -1;
        bad |= nr > nc && lu->parent[s] <= s;
        lu->lp[s] = off;                /* panel s, then its U12: in the order written */
        off += (size_t)nr * (size_t)nc;
        lu->up[s] = off;
        off += (size_t)nc * (size_t)(nr - nc);
        if ((size_t)nr > lu->maxf)
            lu->maxf = (size_t)nr;
    }
    lu->lp[ns] = lu->up[ns] = off;
    free(smap);
    if (!bad)
        lu_sub_children(ns, lu->parent, lu->kp, lu->kid);
    return bad ? -1 : 0;
}

/* Front s's flops: its diagonal block's LU, the two solves, the update. */
static double front_flops(const pepa_lu *lu, lu_int s)
{
    double nc = (double)(lu->super[s + 1] - lu->super[s]);
    double nb = (double)(lu->rp[s + 1] - lu->rp[s]) - nc;
    return 2.0 / 3.0 * nc * nc * nc + 2.0 * nc * nc * nb + 2.0 * nb * nb * nc;
}

/* Work and memory of the numerical phase, walking the supernodes as it
 * will: a supernode's block is built on top of its children's, which are
 * then popped, and it is pushed. The stack grows down from the end of the
 * factors' array while the factors fill it from the start, so the array
 * needs, over all supernodes s, the factors up to s's and the stack while
 * s is built. */
static int predict(pepa_lu *lu, double *flops, double *bytes)
{
    double fl = 0.0;
    size_t depth = 0, end = 0, *cb = malloc((size_t)lu->nsuper * sizeof *cb);
    lu_int *who = malloc((size_t)lu->nsuper * sizeof *who), top = 0;
    for (lu_int s = 0; s < lu->nsuper && cb && who; s++) {
        size_t nb = (size_t)(lu->rp[s + 1] - lu->rp[s] - (lu->super[s + 1] - lu->super[s]));
        fl += front_flops(lu, s);
        size_t mine = nb * nb, need = lu->lp[s + 1] + depth + mine;
        end = need > end ? need : end;
        while (top > 0 && lu->parent[who[top - 1]] == s)
            depth -= cb[--top];
        cb[top] = mine;
        who[top++] = s;
        depth += mine;
    }
    int ok = cb && who;
    lu->work = end > lu->lp[lu->nsuper] ? end : lu->lp[lu->nsuper];
    free(who);
    free(cb);
    *flops = fl;
    *bytes = 8.0 * (double)lu->work + 40.0 * (double)lu->m;
    lu->memory = *bytes;
    return ok ? 0 : -1;
}

static pepa_lu *analyse_fail(pepa_lu *lu, cholmod_factor **f, cholmod_sparse **s,
                             cholmod_common *c, const char *why, diag *err)
{
    cholmod_l_free_factor(f, c);
    cholmod_l_free_sparse(s, c);
    cholmod_l_finish(c);
    pepa_lu_free(lu);
    diag_set(err, "direct solver: %s", why);
    return NULL;
}

static pepa_lu *analyse_one(int64_t m, const int64_t *Ap, const int64_t *Ai,
                            pepa_lu_order order, double *flops, double *bytes, diag *err)
{
    cholmod_common c;
    cholmod_sparse *s = NULL;
    cholmod_factor *f = NULL;
    pepa_lu *lu = calloc(1, sizeof *lu);
    cholmod_l_start(&c);
    c.print = 0;                        /* library code: never print */
    c.nmethods = 1;
    c.method[0].ordering = order == PEPA_LU_METIS ? CHOLMOD_METIS : CHOLMOD_AMD;
    c.postorder = 1;
    c.supernodal = CHOLMOD_SUPERNODAL;
    if (!lu)
        return analyse_fail(lu, &f, &s, &c, "out of memory", err);
    lu->m = (lu_int)m;
    lu->order = order;
    s = sym_pattern(lu->m, Ap, Ai, &c);
    f = s ? cholmod_l_analyze(s, &c) : NULL;
    if (!f || !f->is_super)
        return analyse_fail(lu, &f, &s, &c, c.status == CHOLMOD_OUT_OF_MEMORY
                            ? "out of memory in the symbolic analysis"
                            : "the symbolic analysis (CHOLMOD) failed", err);
    if (take_symbolic(lu, f) || tree(lu) || predict(lu, flops, bytes))
        return analyse_fail(lu, &f, &s, &c, "the symbolic analysis (CHOLMOD) failed", err);
    cholmod_l_free_factor(&f, &c);
    cholmod_l_free_sparse(&s, &c);
    cholmod_l_finish(&c);
    return lu;
}

/* keep's analysis, with drop's (NULL if it failed; flops fd, bytes bd)
 * held for pepa_lu_take_other: the caller may need it after all. */
static pepa_lu *keep_other(pepa_lu *keep, pepa_lu *drop, double fd, double bd)
{
    keep->other_tried = 1;
    keep->other = drop;
    keep->other_flops = fd;
    keep->other_bytes = bd;
    return keep;
}

/* PEPA_LU_AUTO (lu.h): AMD's analysis, then METIS's where AMD's flops
 * exceed METIS's cost; of the two, the one with fewer flops is kept
 * (METIS's time is spent by then), the other held (keep_other). */
static pepa_lu *analyse_auto(int64_t m, const int64_t *Ap, const int64_t *Ai, double *flops,
                             double *bytes, diag *err)
{
    double nz = m > 0 ? (double)Ap[m] : 0.0, fm = NAN, bm = NAN; /* NAN if METIS's fails */
    if (m > 0 && nz > PEPA_LU_AMD_DEGREE * (double)m)
        return analyse_one(m, Ap, Ai, PEPA_LU_METIS, flops, bytes, err);
    pepa_lu *amd = analyse_one(m, Ap, Ai, PEPA_LU_AMD, flops, bytes, err);
    if (!amd || *flops <= PEPA_LU_METIS_FLOPS_PER_NZ * nz)
        return amd;
    diag none;
    diag_clear(&none);
    pepa_lu *nd = analyse_one(m, Ap, Ai, PEPA_LU_METIS, &fm, &bm, &none);
    if (!nd || fm >= *flops)            /* METIS failing is no failure: AMD's stands */
        return keep_other(amd, nd, fm, bm);
    double fa = *flops, ba = *bytes;
    *flops = fm;
    *bytes = bm;
    return keep_other(nd, amd, fa, ba);
}

pepa_lu *pepa_lu_analyse(int64_t m, const int64_t *Ap, const int64_t *Ai, pepa_lu_order order,
                         double *flops, double *bytes, diag *err)
{
    if (order == PEPA_LU_AUTO)
        return analyse_auto(m, Ap, Ai, flops, bytes, err);
    return analyse_one(m, Ap, Ai, order, flops, bytes, err);
}

pepa_lu_order pepa_lu_ordering(const pepa_lu *lu)
{
    return lu->order;
}

void pepa_lu_set_threads(pepa_lu *lu, int threads)
{
    lu->threads = threads > 1 ? 2 : 1;
    if (lu->threads == 1) {
        lu_par_close(lu->par);
        lu->par = NULL;
    }
    if (!lu->par)
        diag_clear(&lu->par_why);       /* try loading again at the next large front */
}

const char *pepa_lu_par_unavailable(const pepa_lu *lu)
{
    if (lu->threads < 2)
        return NULL;
    return lu->par_why.set ? lu->par_why.msg : lu->cut_why.set ? lu->cut_why.msg : NULL;
}

void pepa_lu_set_memory(pepa_lu *lu, double bytes)
{
    lu->memory = bytes;
}

int pepa_lu_pivot_lost(const pepa_lu *lu)
{
    return lu->pivot_lost;
}

int64_t pepa_lu_split_fronts(const pepa_lu *lu)
{
    return lu->split;
}

int64_t pepa_lu_chunked_fronts(const pepa_lu *lu)
{
    return lu->chunked;
}

void lu_sub_test_order(pepa_lu *lu, int order)
{
    lu->order_test = (lu_par_order)order;
}

int64_t lu_sub_offered(const pepa_lu *lu, int owner)
{
    return lu->offered[owner];
}

int pepa_lu_part_seconds(const pepa_lu *lu, double part[3])
{
    memcpy(part, lu->part, sizeof lu->part);
    return lu->cut;
}

int64_t pepa_lu_unstarted_fronts(const pepa_lu *lu)
{
    return lu->unstarted;
}

int pepa_lu_take_other(pepa_lu *lu, pepa_lu **other, double *flops, double *bytes)
{
    int tried = lu->other_tried;
    *other = lu->other;
    *flops = lu->other_flops;
    *bytes = lu->other_bytes;
    lu->other = NULL;
    lu->other_tried = 0;
    return tried;
}

/* ---------------------------------------------------------------- factorisation */

/* The numerical phase's working set. */
typedef struct lu_work {
    const int64_t *ap, *ai;     /* the matrix factorised, by columns */
    const double *ax;
    const int64_t *tp, *ti;     /* ... and by rows (its transpose by columns) */
    const double *tx;
    int64_t *cp, *ci;           /* the one of the two we built */
    double *cx;
    lu_int *map;                /* global row -> position in the current front */
    size_t end;                 /* the end of the factors' array */
    void *stk;                  /* the stack's bottom: it grows down from here */
    int tail;                   /* 1: stk is the factors' end, the stack may take what the
                                 * factors have not reached; 0: it has cap entries */
    size_t cap;
    lu_int *cbs;                /* supernode of each block on the stack */
    size_t *cbo;                /* its offset from the bottom (entries) */
    lu_int top;
    size_t used;                /* entries of the stack in use */
    void **cbp;                 /* each supernode's contribution block (shared by threads) */
    const unsigned char *owner; /* the supernodes of this thread: those of owner group */
    int group;                  /* ... (owner NULL: all) */
    lu_par_team team;           /* this thread's BLAS, and a helper's to chunk large
                                 * fronts with (single precision) */
    atomic_int *done;           /* set when this thread's part is done (two threads) */
    lu_int fronts, split, unstarted;    /* fronts done; ... chunked with help; ... unstarted */
    lu_int chunked;             /* large fronts assembled by chunks (lu_front.h) */
    lu_par_tally asm_tally;     /* what a helper did in the current front's assembly */
    lu_int offered;             /* large fronts where a helper thread was started */
    int info;                   /* LAPACK's, of factor_all */
    double cpu;                 /* this thread's CPU seconds in it (two threads) */
    pepa_lu *lu;
} lu_work;

/* The transpose of (p, i, x) (m x m, by columns) into (tp, ti, tx).
 * Returns 0 or -1. */
static int transpose(lu_int m, const int64_t *p, const int64_t *i, const double *x,
                     int64_t **tp, int64_t **ti, double **tx)
{
    size_t nz = (size_t)p[m];
    int64_t *cp = calloc((size_t)m + 1, sizeof *cp), *ci = malloc((nz ? nz : 1) * sizeof *ci);
    double *cx = malloc((nz ? nz : 1) * sizeof *cx);
    *tp = cp;
    *ti = ci;
    *tx = cx;
    if (!cp || !ci || !cx)
        return -1;
    for (size_t k = 0; k < nz; k++)
        cp[i[k] + 1]++;
    for (lu_int r = 0; r < m; r++)
        cp[r + 1] += cp[r];
    for (lu_int j = 0; j < m; j++)
        for (int64_t k = p[j]; k < p[j + 1]; k++) {
            int64_t q = cp[i[k]]++;
            ci[q] = j;
            cx[q] = x[k];
        }
    for (lu_int r = m; r > 0; r--)
        cp[r] = cp[r - 1];
    cp[0] = 0;
    return 0;
}

#define REAL double
#define F(name) name##_d
#define LX lxd
#define UX uxd
#define GETRF dgetrf_
#define LASWP dlaswp_
#define TRSM dtrsm_
#define GEMM dgemm_
#define TRSV dtrsv_
#define GEMV dgemv_
#define KGETRF(w) dgetrf_
#define KLASWP(w) dlaswp_
#define KTRSM(w) dtrsm_
#define KGEMM(w) dgemm_
#include "lu_front.h"
#undef REAL
#undef F
#undef LX
#undef UX
#undef GETRF
#undef LASWP
#undef TRSM
#undef GEMM
#undef TRSV
#undef GEMV
#undef KGETRF
#undef KLASWP
#undef KTRSM
#undef KGEMM

#define REAL float
#define F(name) name##_s
#define LX lxs
#define UX uxs
#define GETRF sgetrf_
#define LASWP slaswp_
#define TRSM strsm_
#define GEMM sgemm_
#define TRSV strsv_
#define GEMV sgemv_
#define KGETRF(w) (w)->team.self->getrf
#define KLASWP(w) (w)->team.self->laswp
#define KTRSM(w) (w)->team.self->trsm
#define KGEMM(w) (w)->team.self->gemm
#define PAR_DENSE lu_par_dense
#include "lu_front.h"

static void work_free(lu_work *w)
{
    free(w->cbp);
    free(w->cbo);
    free(w->cbs);
    free(w->map);
    free(w->cx);
    free(w->ci);
    free(w->cp);
}

/* The working set, and the factors' array in lu's precision: with the
 * stack in its tail, or (cut: two threads on lu_sub's plan, whose stacks
 * are their own) the factors alone. */
static int work_alloc(pepa_lu *lu, lu_work *w, int cut)
{
    size_t ns = (size_t)lu->nsuper;
    int single = lu->prec == PEPA_LU_SINGLE;
    size_t size = single ? sizeof(float) : sizeof(double);
    w->lu = lu;
    w->team.self = lu_par_caller();
    w->map = malloc((size_t)lu->m * sizeof *w->map);
    w->cbs = malloc((ns ? ns : 1) * sizeof *w->cbs);
    w->cbo = malloc((ns ? ns : 1) * sizeof *w->cbo);
    w->cbp = malloc((ns ? ns : 1) * sizeof *w->cbp);
    w->end = cut ? lu->lp[ns] : lu->work;
    void *lx = big(w->end, size);
    if (single)
        lu->lxs = lu->uxs = lx;
    else
        lu->lxd = lu->uxd = lx;
    if (!w->map || !w->cbs || !w->cbo || !w->cbp || !lx
        || transpose(lu->m, w->ap, w->ai, w->ax, &w->cp, &w->ci, &w->cx))
        return -1;
    w->stk = (char *)lx + w->end * size;
    w->tail = 1;
    w->tp = w->cp;
    w->ti = w->ci;
    w->tx = w->cx;
    return 0;
}

/* The plan for two threads (lu_sub.h) and the largest front's flops,
 * made once per analysis. Out of memory, no cut is made. */
static void plan_make(pepa_lu *lu)
{
    lu_int ns = lu->nsuper;
    double *fl = malloc((size_t)(ns ? ns : 1) * sizeof *fl);
    size_t *cb = malloc((size_t)(ns ? ns : 1) * sizeof *cb);
    lu->planned = 1;
    lu->maxfl = INFINITY;               /* unknown: the helper is loaded, as before */
    if (fl && cb) {
        lu->maxfl = 0.0;
        for (lu_int s = 0; s < ns; s++) {
            size_t nb = (size_t)(lu->rp[s + 1] - lu->rp[s] - (lu->super[s + 1] - lu->super[s]));
            fl[s] = front_flops(lu, s);
            cb[s] = nb * nb;
            lu->maxfl = fmax(lu->maxfl, fl[s]);
        }
        if (lu_sub_plan_make(ns, lu->parent, fl, cb, &lu->plan) < 0)
            lu_sub_plan_free(&lu->plan);
    }
    free(cb);
    free(fl);
}

/* The helper's BLAS, on two threads in single precision where a front
 * has LU_PAR_MIN_FLOPS or more: loaded at the first such factorisation
 * (so never on one thread, nor for a chain with no large front); NULL
 * otherwise or where it cannot be loaded (lu->par_why says why, and it
 * is not tried again). */
static const lu_par_blas *helper_blas(pepa_lu *lu)
{
    if (lu->threads < 2 || lu->prec != PEPA_LU_SINGLE)
        return NULL;
    if (!lu->planned)
        plan_make(lu);
    if (lu->maxfl < LU_PAR_MIN_FLOPS)
        return NULL;
    if (!lu->par && !lu->par_why.set)
        lu->par = lu_par_open(&lu->par_why);
    return lu->par;
}

/* d: owner o's working set on two threads: w's views of the matrix, a
 * map and stack lists of its own, its stack the cap entries below stk. */
static int sub_work(lu_work *d, const lu_work *w, int o, float *stk, size_t cap)
{
    *d = *w;
    d->owner = w->lu->plan.owner;
    d->group = o;
    d->stk = stk;
    d->tail = 0;
    d->cap = cap;
    d->team.other = NULL;
    size_t ns = (size_t)(w->lu->nsuper ? w->lu->nsuper : 1);
    d->map = malloc((size_t)w->lu->m * sizeof *d->map);
    d->cbs = malloc(ns * sizeof *d->cbs);
    d->cbo = malloc(ns * sizeof *d->cbo);
    return d->map && d->cbs && d->cbo ? 0 : -1;
}

static void sub_work_free(lu_work *d)
{
    free(d->cbo);
    free(d->cbs);
    free(d->map);
}

static void sub_run(void *p)
{
    lu_work *w = p;
    double c0 = clock_thread_cpu();
    factor_all_s(w->lu, w);
    w->cpu = clock_thread_cpu() - c0;
    /* after this thread's last call into its BLAS copy (the caller then
     * only waits in lu_par_pair's join): the other thread's large fronts
     * may now run helpers on this copy (acquire in lu_par.c's par_run) */
    if (w->done)
        atomic_store_explicit(w->done, 1, memory_order_release);
}

/* LAPACK's info, or the stack's failure (-1), as an lu_outcome. */
static lu_outcome outcome_of(int info)
{
    return info > 0 ? LU_PIVOT : info < 0 ? LU_STACK : LU_DONE;
}

/* The three owners' runs summed into lu once both threads are done. */
static void two_collect(pepa_lu *lu, const lu_work *sw, int started)
{
    const lu_work *c = &sw[LU_SUB_CALLER], *h = &sw[LU_SUB_HELPER], *t = &sw[LU_SUB_TOP];
    lu->part[0] = c->cpu;
    lu->part[1] = h->cpu;
    lu->part[2] = t->cpu;
    lu->split = c->split + t->split + (started ? h->fronts : 0);
    lu->unstarted = c->unstarted + t->unstarted + (started ? h->unstarted : h->fronts);
    lu->chunked = c->chunked + h->chunked + t->chunked;
    for (int o = 0; o < LU_SUB_OWNERS; o++)
        lu->offered[o] = sw[o].offered;
}

/* The three owners' kernels and helpers (lu_par_team): each thread's
 * subtrees, once the other's are done (done[0] the caller's, done[1] the
 * helper's), take help on the other's kernels; the top part at once. */
static void two_teams(lu_work *sw, const lu_par_blas *b, atomic_int done[2])
{
    atomic_init(&done[0], 0);
    atomic_init(&done[1], 0);
    sw[LU_SUB_HELPER].team.self = lu_par_kernels(b);
    sw[LU_SUB_HELPER].team.other = lu_par_caller();
    sw[LU_SUB_HELPER].team.ready = &done[0];
    sw[LU_SUB_HELPER].done = &done[1];
    sw[LU_SUB_CALLER].team.other = lu_par_kernels(b);
    sw[LU_SUB_CALLER].team.ready = &done[1];
    sw[LU_SUB_CALLER].done = &done[0];
    sw[LU_SUB_TOP].team.other = lu_par_kernels(b);
}

/* Single precision on two threads by lu_sub's plan: the caller's and
 * the helper's subtrees at once, each on its own stack and BLAS, then the
 * top part with its large fronts chunked on both (b the helper's BLAS).
 * The fronts are the same computations as on one thread, in the same
 * order of additions, so the factors are the same bit for bit. Leaves
 * in w->top what is left on the top part's stack (0). */
static lu_outcome factor_two(pepa_lu *lu, lu_work *w, const lu_par_blas *b)
{
    const lu_sub_plan *p = &lu->plan;
    float *stk = big(p->peak[0] + p->peak[1] + p->peak[2], sizeof *stk);
    lu_work sw[LU_SUB_OWNERS];
    int ok = stk != NULL;
    lu_outcome r = LU_NOMEM;
    size_t at = 0;
    for (int o = 0; o < LU_SUB_OWNERS; o++) {
        at += p->peak[o];
        ok &= sub_work(&sw[o], w, o, stk ? stk + at : NULL, p->peak[o]) == 0;
    }
    atomic_int done[2];                 /* the caller's, the helper's subtrees */
    two_teams(sw, b, done);
    if (ok) {
        lu_work *c = &sw[LU_SUB_CALLER], *h = &sw[LU_SUB_HELPER], *t = &sw[LU_SUB_TOP];
        int started = lu_par_pair(sub_run, h, sub_run, c, lu->order_test) == 0;
        r = outcome_of(c->info ? c->info : h->info);
        if (r == LU_DONE)
            sub_run(t);
        r = r != LU_DONE ? r : outcome_of(t->info);
        two_collect(lu, sw, started);
        w->top = t->top;
    }
    for (int o = 0; o < LU_SUB_OWNERS; o++)
        sub_work_free(&sw[o]);
    free(stk);
    return r;
}

/* The bytes a factorisation cut by the plan takes, but for the matrix
 * and its transpose (which one thread's takes too): the factors and the
 * three stacks in single precision, four maps (the caller's working set
 * keeps one), and the lists of three stacks and the caller's. */
static double cut_bytes(const pepa_lu *lu)
{
    const lu_sub_plan *p = &lu->plan;
    double stacks = (double)p->peak[0] + (double)p->peak[1] + (double)p->peak[2];
    double lists = (double)(LU_SUB_OWNERS + 1) * 2.0 * sizeof(size_t) + sizeof(float *);
    return sizeof(float) * ((double)lu->lp[lu->nsuper] + stacks)
           + (LU_SUB_OWNERS + 1.0) * sizeof(lu_int) * (double)lu->m
           + lists * (double)lu->nsuper;
}

/* Does the plan's cut fit in lu->memory? The two threads' stacks are
 * arrays of their own, 1.3-1.7 times one thread's in single precision
 * (bench_solve), so with many subtrees' blocks live at once they could
 * outgrow what the caps were checked against; cut_why says so. */
static int cut_fits(pepa_lu *lu)
{
    double need = cut_bytes(lu);
    if (need <= lu->memory)
        return 1;
    diag_set(&lu->cut_why,
             "the subtrees ran on one thread: two threads' stacks would take %.0f MB, "
             "more than the %.0f MB allowed", need / 1e6, lu->memory / 1e6);
    return 0;
}

/* May the plan's cut run: the copy has the caller's sgetrf_ (lu_par.h)
 * and the stacks fit? cut_why says why not. */
static int cut_allowed(pepa_lu *lu, const lu_par_blas *b)
{
    const char *why = lu_par_whole_why(b);
    if (!why)
        return cut_fits(lu);
    diag_set(&lu->cut_why, "the subtrees ran on one thread: %s", why);
    return 0;
}

/* One factorisation in lu->prec, cut by the plan or not. */
static lu_outcome lu_run(pepa_lu *lu, lu_work w, int trans, const lu_par_blas *b, int cut)
{
    free_factors(lu);
    lu->split = lu->unstarted = lu->chunked = 0;
    memset(lu->offered, 0, sizeof lu->offered);
    memset(lu->part, 0, sizeof lu->part);
    lu->cut = cut;
    if (work_alloc(lu, &w, cut)) {
        work_free(&w);
        return LU_NOMEM;
    }
    w.team.other = b ? lu_par_kernels(b) : NULL;
    if (trans) {                        /* factorise A^T: swap the two views */
        const int64_t *p = w.ap, *i = w.ai;
        const double *x = w.ax;
        w.ap = w.tp, w.ai = w.ti, w.ax = w.tx;
        w.tp = p, w.ti = i, w.tx = x;
    }
    lu_outcome r = cut ? factor_two(lu, &w, b)
                       : outcome_of(lu->prec == PEPA_LU_SINGLE ? factor_all_s(lu, &w)
                                                               : factor_all_d(lu, &w));
    if (!cut) {
        lu->split = w.split;
        lu->unstarted = w.unstarted;
        lu->chunked = w.chunked;
    }
    if (r == LU_DONE && w.top != 0)
        r = LU_UNORDERED;
    work_free(&w);
    return r;
}

static int outcome_say(lu_outcome r, diag *err)
{
    switch (r) {
    case LU_DONE:
        return 0;
    case LU_PIVOT:
        return diag_set(err, "direct solver: the matrix is singular (is the chain irreducible?)");
    case LU_NOMEM:
        return diag_set(err, "direct solver: out of memory for the LU factors and stacks");
    case LU_STACK:
        return diag_set(err, "direct solver: internal error (the stack met the factors)");
    case LU_UNORDERED:
        break;
    }
    return diag_set(err, "direct solver: internal error (supernodes not postordered)");
}

/* A cut factorisation that failed otherwise than on a pivot is done
 * again without the cut (its stacks then the factors' tail, as on one
 * thread), and cut_why says why, for the caller to tell the user. */
int pepa_lu_factor(pepa_lu *lu, const int64_t *Ap, const int64_t *Ai, const double *Ax,
                   int trans, pepa_lu_prec prec, diag *err)
{
    lu_work w = {.ap = Ap, .ai = Ai, .ax = Ax};
    lu->prec = prec;
    diag_clear(&lu->cut_why);
    const lu_par_blas *b = helper_blas(lu);
    int cut = b && lu->plan.owner && cut_allowed(lu, b);
    lu_outcome r = lu_run(lu, w, trans, b, cut);
    if (cut && r != LU_DONE && r != LU_PIVOT) {
        diag_set(&lu->cut_why, "the subtrees ran on one thread: %s",
                 r == LU_NOMEM ? "out of memory on two threads"
                               : "internal error (a subtree's stack or order was wrong)");
        r = lu_run(lu, w, trans, b, 0);
    }
    lu->pivot_lost = r == LU_PIVOT;
    return outcome_say(r, err);
}

/* ---------------------------------------------------------------- solve */

void pepa_lu_solve(const pepa_lu *lu, const double *b, double *x)
{
    if (lu->prec == PEPA_LU_SINGLE)
        solve_s(lu, b, x);
    else
        solve_d(lu, b, x);
}

#endif /* HAVE_UMFPACK */
