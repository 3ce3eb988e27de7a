/* pepa_solve_gs: Gauss-Seidel and SOR sweeps for pi Q = 0.
 *
 * Row j of Q^T gives the balance equation of state j:
 *     pi_j out_j = sum_i pi_i Q(i,j)
 * and a sweep solves it for pi_j, j = 0..n-1, using the values already
 * updated in this sweep (SOR mixes the old value back in with omega).
 *
 * A sweep over a large chain is bound by memory bandwidth, so:
 *  - The residual costs nothing extra. The iterate lives twice in one
 *    interleaved array x[2i + s]: slot a holds x_t, slot b receives x_t+1.
 *    While row j is read for the update, the same entries (same cache
 *    lines) give (x_t Q)_j, so every sweep also yields the exact residual
 *    of the previous iterate, and that iterate is still intact in slot a
 *    when it turns out to be the answer. No separate residual pass.
 *  - When the rates take few distinct values (PEPA chains: a handful of
 *    rates and products of them) the matrix is packed into one 32-bit word
 *    per entry, source state in the high bits and an index into a table of
 *    rates in the low bits: 4 bytes per entry instead of 12.
 *  - Large chains are swept by several threads, each owning a contiguous
 *    block of rows balanced by entries: Gauss-Seidel inside a block,
 *    Jacobi between blocks (values of other blocks are taken from x_t).
 *    Deterministic for a given thread count: no thread reads a value
 *    that another one writes in the same sweep.
 * The scale of the iterate is not reset every sweep (that would cost a
 * pass); its sum S_t is tracked and divided out of the residual and the
 * answer. */
#define _POSIX_C_SOURCE 200809L
#include "solve.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/clock.h"

/* Below this many entries a second thread costs more than it brings. */
#define GS_MT_MIN_NNZ 2000000u
#define GS_MAX_THREADS 64

/* The matrix as a sweep reads it: packed (pk != NULL) or the chain's own. */
typedef struct gs_mat {
    const pepa_ctmc *q;
    uint32_t *pk;      /* (col << rbits) | rate index, or NULL */
    double *tab;       /* distinct rates */
    unsigned rbits;
} gs_mat;

typedef struct gs_part {
    uint32_t lo, hi;   /* rows [lo, hi) */
    double sum;        /* sum of the new iterate over the block */
    double res;        /* max |(x_t Q)_j| over the block, unscaled */
    char pad[64];      /* keep the threads' results on separate lines */
} gs_part;

typedef struct gs_run {
    const gs_mat *m;
    double *x;         /* 2n, interleaved */
    double omega;
    int nt;
    gs_part part[GS_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int waiting;
    unsigned gen;
    unsigned a;        /* slot of x_t in the coming sweep */
    int stop;
} gs_run;

/* ---------------------------------------------------------------- packing */

static uint64_t hash_double(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u ^= u >> 33;
    u *= 0xff51afd7ed558ccdULL;
    u ^= u >> 33;
    return u;
}

/* Pack q if its distinct rates fit in the bits left over by the column
 * index. Returns 0 packed, 1 not packable (m left unpacked), -1 no memory. */
static int gs_pack(gs_mat *m)
{
    const pepa_ctmc *q = m->q;
    unsigned cbits = 1;
    while (cbits < 32 && ((uint64_t)1 << cbits) < q->n)
        cbits++;
    if (cbits >= 32 || q->nnz == 0)
        return 1;
    unsigned rbits = 32 - cbits;
    if (rbits > 16)
        rbits = 16;                 /* tables larger than 64 K rates do not pay */
    uint32_t cap = (uint32_t)1 << rbits;
    uint32_t hsize = 2 * cap;       /* open addressing, load <= 1/2 */
    uint32_t *slot = malloc((size_t)hsize * sizeof *slot);   /* index + 1 */
    double *tab = malloc((size_t)cap * sizeof *tab);
    uint32_t *pk = malloc((size_t)q->nnz * sizeof *pk);
    if (!slot || !tab || !pk) {
        free(pk);
        free(tab);
        free(slot);
        return -1;
    }
    memset(slot, 0, (size_t)hsize * sizeof *slot);
    uint32_t ntab = 0;
    for (uint64_t k = 0; k < q->nnz; k++) {
        double v = q->val[k];
        uint32_t h = (uint32_t)hash_double(v) & (hsize - 1);
        while (slot[h] && tab[slot[h] - 1] != v)
            h = (h + 1) & (hsize - 1);
        if (!slot[h]) {
            if (ntab == cap) {          /* too many distinct rates */
                free(pk);
                free(tab);
                free(slot);
                return 1;
            }
            tab[ntab] = v;
            slot[h] = ++ntab;
        }
        pk[k] = (q->col[k] << rbits) | (slot[h] - 1);
    }
    free(slot);
    m->pk = pk;
    m->tab = tab;
    m->rbits = rbits;
    return 0;
}

/* ---------------------------------------------------------------- sweeps */

/* One sweep over rows [lo, hi): x_t in slot a, x_t+1 into slot a^1.
 * "low" marks entries already updated in this sweep: same block, i < j.
 * Two accumulators per sum halve the floating-point dependency chain. */
#define GS_ROW(COL_K, VAL_K)                                                 \
    do {                                                                     \
        uint64_t k = rowp[j], e = rowp[j + 1];                               \
        double sa0 = 0.0, sa1 = 0.0, sn0 = 0.0, sn1 = 0.0;                   \
        for (; k + 1 < e; k += 2) {                                          \
            uint32_t i0 = COL_K(k), i1 = COL_K(k + 1);                       \
            double v0 = VAL_K(k), v1 = VAL_K(k + 1);                         \
            unsigned l0 = (uint32_t)(i0 - lo) < (uint32_t)(j - lo);          \
            unsigned l1 = (uint32_t)(i1 - lo) < (uint32_t)(j - lo);          \
            sa0 += x[2 * (size_t)i0 + a] * v0;                               \
            sa1 += x[2 * (size_t)i1 + a] * v1;                               \
            sn0 += x[2 * (size_t)i0 + (a ^ l0)] * v0;                        \
            sn1 += x[2 * (size_t)i1 + (a ^ l1)] * v1;                        \
        }                                                                    \
        if (k < e) {                                                         \
            uint32_t i0 = COL_K(k);                                          \
            double v0 = VAL_K(k);                                            \
            unsigned l0 = (uint32_t)(i0 - lo) < (uint32_t)(j - lo);          \
            sa0 += x[2 * (size_t)i0 + a] * v0;                               \
            sn0 += x[2 * (size_t)i0 + (a ^ l0)] * v0;                        \
        }                                                                    \
        double xj = x[2 * (size_t)j + a];                                    \
        double r = fabs(sa0 + sa1 - xj * out[j]);                            \
        res = r > res ? r : (r != r ? r : res);                              \
        double nx = (sn0 + sn1) / out[j];                                    \
        if (omega != 1.0)                                                    \
            nx = xj + omega * (nx - xj);                                     \
        x[2 * (size_t)j + (a ^ 1u)] = nx;                                    \
        sum += nx;                                                           \
    } while (0)

#define PK_COL(k) (pk[k] >> rb)
#define PK_VAL(k) (tab[pk[k] & rmask])
#define UN_COL(k) (col[k])
#define UN_VAL(k) (val[k])

static void gs_sweep(const gs_mat *m, double *x, unsigned a, double omega, gs_part *p)
{
    const uint64_t *rowp = m->q->rowp;
    const double *out = m->q->out;
    const uint32_t lo = p->lo, hi = p->hi;
    double sum = 0.0, res = 0.0;
    if (m->pk) {
        const uint32_t *pk = m->pk;
        const double *tab = m->tab;
        const unsigned rb = m->rbits;
        const uint32_t rmask = ((uint32_t)1 << rb) - 1;
        for (uint32_t j = lo; j < hi; j++)
            GS_ROW(PK_COL, PK_VAL);
    } else {
        const uint32_t *col = m->q->col;
        const double *val = m->q->val;
        for (uint32_t j = lo; j < hi; j++)
            GS_ROW(UN_COL, UN_VAL);
    }
    p->sum = sum;
    p->res = res;
}

/* ---------------------------------------------------------------- driver */

typedef struct gs_ctl {
    gs_run *run;
    const pepa_solve_opts *opts;
    pepa_solve_result *res;
    double t0;
    double scale;      /* S_t: sum of x_t */
    long sweeps;       /* completed sweeps: x_t with t == sweeps in slot a */
    int why;           /* 0 converged, 1 max_iter, 2 time, 3 not finite */
    double last_res;
} gs_ctl;

/* Called by thread 0 between sweeps, with every thread waiting. Decides
 * whether to stop; on stop, slot run->a holds the iterate to return
 * (scale ctl->scale) and ctl->last_res its residual if known (else -1). */
static void gs_decide(gs_ctl *c)
{
    gs_run *r = c->run;
    double sum = 0.0, res = 0.0;
    for (int t = 0; t < r->nt; t++) {
        sum += r->part[t].sum;
        if (!(r->part[t].res <= res))
            res = r->part[t].res;
    }
    double rt = res / fabs(c->scale);  /* residual of normalised x_t */
    c->sweeps++;
    if (rt <= c->opts->tol) {        /* x_t is the answer: keep slot a */
        c->why = 0;
        c->last_res = rt;
        c->sweeps--;
        r->stop = 1;
        return;
    }
    r->a ^= 1u;                      /* x_t+1 becomes current */
    c->scale = sum;
    c->last_res = -1.0;
    if (!isfinite(rt) || !isfinite(sum) || sum == 0.0) {
        c->why = 3;
        r->stop = 1;
    } else if (c->sweeps >= c->opts->max_iter) {
        c->why = 1;
        r->stop = 1;
    } else if (c->opts->time_limit > 0.0 && clock_now() - c->t0 > c->opts->time_limit) {
        c->why = 2;
        r->stop = 1;
    } else if (fabs(sum) < 1e-200 || fabs(sum) > 1e200) {
        /* rescale before the iterate under- or overflows (rare) */
        uint32_t n = r->m->q->n;
        for (uint32_t i = 0; i < n; i++)
            r->x[2 * (size_t)i + r->a] /= sum;
        c->scale = 1.0;
    }
}

/* A barrier whose size can shrink when a thread fails to start. */
static void gs_wait(gs_run *r)
{
    pthread_mutex_lock(&r->mu);
    unsigned gen = r->gen;
    if (++r->waiting >= r->nt) {
        r->waiting = 0;
        r->gen++;
        pthread_cond_broadcast(&r->cv);
    } else {
        while (gen == r->gen)
            pthread_cond_wait(&r->cv, &r->mu);
    }
    pthread_mutex_unlock(&r->mu);
}

typedef struct gs_thread {
    gs_run *run;
    int id;
} gs_thread;

/* Workers: wait for "go", sweep their block, report "done". */
static void *gs_worker(void *arg)
{
    gs_thread *t = arg;
    gs_run *r = t->run;
    for (;;) {
        gs_wait(r);
        if (r->stop)
            return NULL;
        gs_sweep(r->m, r->x, r->a, r->omega, &r->part[t->id]);
        gs_wait(r);
    }
}

/* Split rows into nt blocks of about equal entry counts. */
static void gs_blocks(const pepa_ctmc *q, gs_run *r)
{
    uint32_t lo = 0;
    for (int t = 0; t < r->nt; t++) {
        uint32_t hi = q->n;
        if (t + 1 < r->nt) {
            uint64_t target = (q->nnz + q->n) * (uint64_t)(t + 1) / (uint64_t)r->nt;
            uint32_t a = lo, b = q->n;          /* first row with rowp+row >= target */
            while (a < b) {
                uint32_t mid = a + (b - a) / 2;
                if (q->rowp[mid] + mid < target)
                    a = mid + 1;
                else
                    b = mid;
            }
            hi = a;
        }
        r->part[t].lo = lo;
        r->part[t].hi = hi;
        lo = hi;
    }
}

static int gs_threads_auto(const pepa_ctmc *q)
{
    if (q->nnz < GS_MT_MIN_NNZ)
        return 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        return 1;
    return cpus > 4 ? 4 : (int)cpus;
}

int pepa_solve_gs(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                  pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    double omega = opts->method == PEPA_METHOD_SOR && opts->omega != 0.0 ? opts->omega : 1.0;
    res->iterations = 0;
    res->residual = INFINITY;
    res->converged = 0;
    if (!(omega > 0.0 && omega < 2.0))
        return diag_set(err, "SOR relaxation factor %g is outside (0, 2)", omega);
    if (n == 0)
        return diag_set(err, "the chain has no states");
    for (uint32_t j = 0; j < n; j++)
        if (!(q->out[j] > 0.0)) {
            if (n == 1)
                break;
            return diag_set(err, "state %u has no outgoing transition (absorbing): "
                            "Gauss-Seidel needs an irreducible chain", j);
        }
    if (n == 1) {
        pi[0] = 1.0;
        res->residual = 0.0;
        res->converged = 1;
        return 0;
    }

    double init = 0.0;
    if (opts->warm) {
        for (uint32_t i = 0; i < n; i++) {
            if (!(pi[i] >= 0.0) || !isfinite(pi[i]))
                return diag_set(err, "warm start: pi[%u] = %g is not a probability", i, pi[i]);
            init += pi[i];
        }
        if (!(init > 0.0) || !isfinite(init))
            return diag_set(err, "warm start: the initial vector sums to %g", init);
    }

    gs_mat m = {.q = q};
    gs_run *r = calloc(1, sizeof *r);
    double *x = malloc(2 * (size_t)n * sizeof *x);
    if (!r || !x) {
        free(x);
        free(r);
        return diag_set(err, "out of memory for Gauss-Seidel (%u states)", n);
    }
    if (gs_pack(&m) < 0) {
        free(x);
        free(r);
        return diag_set(err, "out of memory packing the matrix (%llu entries)",
                        (unsigned long long)q->nnz);
    }
    for (uint32_t i = 0; i < n; i++) {
        x[2 * (size_t)i] = opts->warm ? pi[i] / init : 1.0 / n;
        x[2 * (size_t)i + 1] = 0.0;
    }

    r->m = &m;
    r->x = x;
    r->omega = omega;
    r->nt = opts->threads > 0 ? opts->threads : gs_threads_auto(q);
    if (r->nt > GS_MAX_THREADS)
        r->nt = GS_MAX_THREADS;
    if ((uint32_t)r->nt > n)
        r->nt = (int)n;

    gs_ctl c = {.run = r, .opts = opts, .res = res, .t0 = clock_now(), .scale = 1.0};
    pthread_t tid[GS_MAX_THREADS];
    gs_thread targ[GS_MAX_THREADS];
    int started = 0, rc = 0, sync = 0;
    if (r->nt > 1) {
        if (pthread_mutex_init(&r->mu, NULL) != 0)
            r->nt = 1;
        else if (pthread_cond_init(&r->cv, NULL) != 0) {
            pthread_mutex_destroy(&r->mu);
            r->nt = 1;
        } else
            sync = 1;
    }
    for (int t = 1; t < r->nt; t++) {
        targ[t].run = r;
        targ[t].id = t;
        if (pthread_create(&tid[t], NULL, gs_worker, &targ[t]) != 0)
            break;
        started++;
    }
    if (started < r->nt - 1) {
        /* Not every thread started: release those that did, go on alone. */
        pthread_mutex_lock(&r->mu);
        r->nt = started + 1;
        r->stop = 1;
        pthread_mutex_unlock(&r->mu);
        gs_wait(r);
        for (int t = 1; t <= started; t++)
            pthread_join(tid[t], NULL);
        started = 0;
        r->nt = 1;
        r->stop = 0;
    }
    gs_blocks(q, r);
    for (;;) {
        if (r->nt > 1)
            gs_wait(r);                  /* go */
        if (r->stop)
            break;
        gs_sweep(&m, x, r->a, omega, &r->part[0]);
        if (r->nt > 1)
            gs_wait(r);                  /* done */
        gs_decide(&c);
    }
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    if (sync) {
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
    }

    if (rc == 0) {
        double s = c.scale;
        for (uint32_t i = 0; i < n; i++)
            pi[i] = x[2 * (size_t)i + r->a] / s;
        res->iterations = c.sweeps;
        res->residual = c.last_res >= 0.0 ? c.last_res : pepa_ctmc_residual(q, pi);
        res->converged = res->residual <= opts->tol;
        if (!res->converged) {
            if (c.why == 3 || isnan(res->residual))
                rc = diag_set(err, "%s diverged (not a finite number) after %ld sweeps",
                              omega != 1.0 ? "SOR" : "Gauss-Seidel", c.sweeps);
            else if (c.why == 2)
                rc = diag_set(err, "%s: time limit %g s reached after %ld sweeps, "
                              "residual %.3g > tolerance %.3g",
                              omega != 1.0 ? "SOR" : "Gauss-Seidel", opts->time_limit,
                              c.sweeps, res->residual, opts->tol);
            else
                rc = diag_set(err, "%s did not converge in %ld sweeps: "
                              "residual %.3g > tolerance %.3g",
                              omega != 1.0 ? "SOR" : "Gauss-Seidel", c.sweeps,
                              res->residual, opts->tol);
        }
    }
    free(m.pk);
    free(m.tab);
    free(x);
    free(r);
    return rc;
}
