/* pepa_solve_gs: Gauss-Seidel and SOR sweeps for pi Q = 0, with Anderson
 * acceleration.
 *
 * Row j of Q^T is the balance equation of state j,
 *     pi_j out_j = sum_i pi_i Q(i,j),
 * and a sweep solves it for pi_j, j = 0..n-1, with the values already
 * updated in this sweep (SOR mixes the old value back in with omega).
 *
 * A sweep over a large chain is bound by memory: the 12 bytes per entry of
 * the matrix and, above all, the gathers pi_i from an array larger than
 * the caches. Hence:
 *  - The iterate x is updated in place; a snapshot xs of the previous
 *    iterate x_t is kept. A "check" sweep computes (x_t Q)_j from the same
 *    entries it reads for the update, so the exact residual of x_t costs a
 *    second gather, not a second pass; and x_t is still intact in xs when
 *    it turns out to be the answer. Other sweeps skip that gather: a cheap
 *    update norm, calibrated against the last exact residual, says when
 *    the next check is worth it.
 *  - Anderson acceleration (below) cuts the sweep count: jobshop5 (704,645
 *    states) 29 -> 23 sweeps to 1e-8, a 735,471-state closed queueing
 *    network 884 -> 166, a 300-state birth-death chain 4203 -> 1385.
 *  - Optionally (opts->threads) several threads, each owning a contiguous
 *    block of rows balanced by work: Gauss-Seidel inside a block, Jacobi
 *    between blocks (other blocks' values come from xs). Deterministic for
 *    a given thread count: no thread reads what another writes in the same
 *    sweep. It trades more sweeps for faster ones, so it pays only on idle
 *    cores; automatic mode stays with one thread.
 * The scale of a Gauss-Seidel iterate drifts; its sum S_t is tracked and
 * divided out of residuals and answers instead of a normalising pass. */
#define _POSIX_C_SOURCE 200809L
#include "solve.h"
#include "internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

#define GS_MAX_THREADS 64
#define GS_CHECK_EVERY 8     /* at most this many sweeps between checks */

typedef struct gs_part {
    uint32_t lo, hi;   /* rows [lo, hi) */
    double sum;        /* sum of x_t+1 over the block */
    double res;        /* max |(x_t Q)_j| over the block (check sweeps) */
    double upd;        /* max |x_t+1,j - x_t,j| out_j over the block */
    char pad[64];      /* keep the threads' results on separate lines */
} gs_part;

typedef struct gs_run {
    const pepa_ctmc *q;
    double *x;         /* the iterate, updated in place */
    double *snap[2];   /* snap[a]: x_t; snap[a^1] receives x_t+1 */
    double omega;
    int nt;
    gs_part part[GS_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int waiting;
    unsigned gen;
    unsigned a;        /* which snapshot holds x_t in the coming sweep */
    int check;         /* the coming sweep computes the residual of x_t */
    int stop;
} gs_run;

/* ---------------------------------------------------------------- sweeps */

/* One sweep over rows [lo, hi): values of the block from x (this sweep's
 * or not yet updated), of other blocks from xs = x_t. With check, also
 * sum_i xs_i Q(i,j) from the same entries. Ends by copying the block into
 * the next snapshot. Two accumulators per sum halve the dependency chain. */
static void gs_sweep(const pepa_ctmc *q, double *x, const double *xs, double *next,
                     double omega, int check, gs_part *p)
{
    const uint64_t *rowp = q->rowp;
    const uint32_t *col = q->col;
    const double *val = q->val, *out = q->out;
    const uint32_t lo = p->lo, len = p->hi - p->lo;
    double sum = 0.0, res = 0.0, upd = 0.0;
    for (uint32_t j = lo; j < p->hi; j++) {
        uint64_t k = rowp[j], e = rowp[j + 1];
        double s0 = 0.0, s1 = 0.0, r0 = 0.0, r1 = 0.0;
        if (check) {
            for (; k + 1 < e; k += 2) {
                uint32_t i0 = col[k], i1 = col[k + 1];
                double v0 = val[k], v1 = val[k + 1];
                s0 += (i0 - lo < len ? x : xs)[i0] * v0;
                s1 += (i1 - lo < len ? x : xs)[i1] * v1;
                r0 += xs[i0] * v0;
                r1 += xs[i1] * v1;
            }
            if (k < e) {
                uint32_t i0 = col[k];
                s0 += (i0 - lo < len ? x : xs)[i0] * val[k];
                r0 += xs[i0] * val[k];
            }
            double r = fabs(r0 + r1 - xs[j] * out[j]);
            if (r > res || r != r)
                res = r;
        } else {
            for (; k + 1 < e; k += 2) {
                uint32_t i0 = col[k], i1 = col[k + 1];
                s0 += (i0 - lo < len ? x : xs)[i0] * val[k];
                s1 += (i1 - lo < len ? x : xs)[i1] * val[k + 1];
            }
            if (k < e)
                s0 += (col[k] - lo < len ? x : xs)[col[k]] * val[k];
        }
        double old = x[j], nx = (s0 + s1) / out[j];
        if (omega != 1.0)
            nx = old + omega * (nx - old);
        x[j] = nx;
        sum += nx;
        double u = fabs(nx - old) * out[j];
        if (u > upd || u != u)
            upd = u;
    }
    memcpy(next + lo, x + lo, (size_t)len * sizeof *x);
    p->sum = sum;
    p->res = res;
    p->upd = upd;
}

/* ---------------------------------------------------------------- Anderson */

/* Anderson acceleration (type II, depth AA_M) of the normalised sweep
 * G(u) = GS(u) / sum GS(u): the next iterate is G(u_t) - dG y, where y
 * fits f_t = G(u_t) - u_t by the last AA_M differences dF of f in least
 * squares (regularised normal equations, solved by Cholesky). For a
 * linear map this is close to GMRES on the fixed-point equation: it
 * removes the slow, often oscillating, error modes that sweeps alone damp
 * only geometrically. A step costs two passes over 2 AA_M + 4 vectors,
 * about a third of a sweep, so it is taken every AA_EVERY sweeps (the
 * pairs (u, G(u)) need not be consecutive). Measured: every third sweep
 * beats every sweep in time, and on slowly mixing chains in sweeps too
 * (jobshop5 23 vs 18 sweeps but less work; a 319,770-state queueing
 * network 87 vs 172, plain 679). */
#define AA_M 5
#define AA_EVERY 3

typedef struct gs_aa {
    uint32_t n;
    int used;                 /* columns in use */
    int head;                 /* column written next */
    int have_prev;
    double *df[AA_M], *dg[AA_M];
    double *fprev, *gprev;    /* f and G of the previous iterate */
    double gram[AA_M][AA_M];  /* df_i . df_j */
} gs_aa;

static void aa_free(gs_aa *a)
{
    if (!a)
        return;
    for (int k = AA_M - 1; k >= 0; k--) {
        free(a->dg[k]);
        free(a->df[k]);
    }
    free(a->gprev);
    free(a->fprev);
    free(a);
}

/* NULL when out of memory: the caller then sweeps without acceleration. */
static gs_aa *aa_new(uint32_t n)
{
    gs_aa *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->n = n;
    a->fprev = malloc((size_t)n * sizeof(double));
    a->gprev = malloc((size_t)n * sizeof(double));
    int ok = a->fprev && a->gprev;
    for (int k = 0; k < AA_M; k++) {
        a->df[k] = calloc(n, sizeof(double));
        a->dg[k] = calloc(n, sizeof(double));
        ok = ok && a->df[k] && a->dg[k];
    }
    if (!ok) {
        aa_free(a);
        return NULL;
    }
    return a;
}

static void aa_reset(gs_aa *a)
{
    for (int k = 0; k < a->used; k++) {
        memset(a->df[k], 0, (size_t)a->n * sizeof(double));
        memset(a->dg[k], 0, (size_t)a->n * sizeof(double));
    }
    a->used = 0;
    a->head = 0;
    a->have_prev = 0;
}

/* Solve (G + reg I) y = b, dimension m, by Cholesky. -1 if G is not
 * positive definite even so (degenerate history). */
static int aa_solve(int m, double g[AA_M][AA_M], const double *b, double *y)
{
    double l[AA_M][AA_M];
    double tr = 0.0;
    for (int i = 0; i < m; i++)
        tr += g[i][i];
    double reg = 1e-12 * tr + 1e-300;
    for (int i = 0; i < m; i++)
        for (int j = 0; j <= i; j++) {
            double s = g[i][j] + (i == j ? reg : 0.0);
            for (int k = 0; k < j; k++)
                s -= l[i][k] * l[j][k];
            if (i == j) {
                if (!(s > 0.0))
                    return -1;
                l[i][i] = sqrt(s);
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    for (int i = 0; i < m; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= l[i][k] * y[k];
        y[i] = s / l[i][i];
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < m; k++)
            s -= l[k][i] * y[k];
        y[i] = s / l[i][i];
    }
    return 0;
}

/* xt: u_t times st; g: GS(u_t) times sg (the in-place iterate). Writes
 * the next iterate into g and snap and returns its sum (1 up to rounding). */
static double aa_step(gs_aa *a, const double *xt, double st, double *g, double sg, double *snap)
{
    uint32_t n = a->n;
    double ist = 1.0 / st, isg = 1.0 / sg;
    if (!a->have_prev) {                   /* history starts here */
        for (uint32_t i = 0; i < n; i++) {
            double gi = g[i] * isg;
            a->fprev[i] = gi - xt[i] * ist;
            a->gprev[i] = gi;
            g[i] = snap[i] = gi;
        }
        a->have_prev = 1;
        return 1.0;
    }
    int h = a->head, m = a->used < AA_M ? a->used + 1 : AA_M;
    double *dfh = a->df[h], *dgh = a->dg[h];
    double rhs[AA_M] = {0.0}, row[AA_M] = {0.0};
    /* pass 1: f, the new differences, every dot product, in one go.
     * Unused columns are zero, so the loops run a fixed AA_M times. */
    for (uint32_t i = 0; i < n; i++) {
        double gi = g[i] * isg, fi = gi - xt[i] * ist;
        double dfi = fi - a->fprev[i];
        dfh[i] = dfi;
        dgh[i] = gi - a->gprev[i];
        a->fprev[i] = fi;
        a->gprev[i] = gi;
        for (int k = 0; k < AA_M; k++) {
            double dk = a->df[k][i];
            rhs[k] += dk * fi;
            row[k] += dk * dfi;
        }
    }
    a->used = m;
    for (int k = 0; k < m; k++)
        a->gram[h][k] = a->gram[k][h] = row[k];
    a->head = (h + 1) % AA_M;
    double y[AA_M] = {0.0};
    if (aa_solve(m, a->gram, rhs, y) != 0) {   /* degenerate: plain step */
        aa_reset(a);
        a->have_prev = 1;
        for (uint32_t i = 0; i < n; i++)
            g[i] = snap[i] = a->gprev[i];
        return 1.0;
    }
    /* pass 2: u = G(u_t) - dG y, projected on u >= 0: the extrapolation
     * may undershoot tiny probabilities, and the answer must not have
     * negative entries (clipping afterwards could undo convergence) */
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double u = a->gprev[i];
        for (int k = 0; k < AA_M; k++)
            u -= y[k] * a->dg[k][i];
        u = u > 0.0 ? u : 0.0;
        g[i] = snap[i] = u;
        sum += u;
    }
    return sum;
}

/* ---------------------------------------------------------------- control */

/* Why the sweeps stopped. */
typedef enum gs_stop {
    GS_CONVERGED,      /* residual within the tolerance */
    GS_MAX_ITER,       /* opts->max_iter sweeps done */
    GS_TIME_LIMIT,     /* opts->time_limit reached */
    GS_NOT_FINITE      /* the iterate overflowed or became NaN */
} gs_stop;

typedef struct gs_ctl {
    gs_run *run;
    const pepa_solve_opts *opts;
    gs_aa *aa;         /* NULL: plain sweeps */
    double t0;
    double scale;      /* S_t: sum of x_t */
    long sweeps;       /* sweeps that produced x_t */
    gs_stop why;
    double last_res;   /* residual of the answer if known, else -1 */
    double ratio;      /* last exact residual / update norm; 0: none yet */
    double best_upd;   /* smallest update norm seen (Anderson safeguard) */
    int since_check;
} gs_ctl;

/* Run by thread 0 between sweeps, the others waiting. After sweep t,
 * snap[a] holds x_t (residual known if it was a check sweep), x and
 * snap[a^1] hold x_t+1. On stop, snap[run->a] is the answer, scale
 * ctl->scale. Also decides whether the next sweep checks. */
static void gs_decide(gs_ctl *c)
{
    gs_run *r = c->run;
    double sum = 0.0, res = 0.0, upd = 0.0;
    for (int t = 0; t < r->nt; t++) {
        sum += r->part[t].sum;
        if (!(r->part[t].res <= res))
            res = r->part[t].res;
        if (!(r->part[t].upd <= upd))
            upd = r->part[t].upd;
    }
    double s = fabs(c->scale);
    upd /= s;                              /* both for normalised x_t */
    if (r->check) {
        double rt = res / s;
        if (rt <= c->opts->tol) {
            c->why = GS_CONVERGED;
            c->last_res = rt;
            r->stop = 1;
            return;
        }
        c->ratio = upd > 0.0 ? rt / upd : 0.0;
        c->since_check = 0;
    } else {
        c->since_check++;
    }
    r->a ^= 1u;                            /* x_t+1 becomes current */
    c->sweeps++;
    c->last_res = -1.0;
    if (!isfinite(sum) || !isfinite(upd) || sum == 0.0 || !isfinite(res)) {
        c->why = GS_NOT_FINITE;
        r->stop = 1;
        return;
    }
    if (c->aa) {
        if (c->best_upd > 0.0 && upd > 1e3 * c->best_upd)
            aa_reset(c->aa);               /* extrapolation went astray */
        if (!(upd >= c->best_upd) || c->best_upd == 0.0)
            c->best_upd = upd;
        if (c->sweeps % AA_EVERY == 0)
            sum = aa_step(c->aa, r->snap[r->a ^ 1u], c->scale, r->x, sum, r->snap[r->a]);
        if (!isfinite(sum) || sum == 0.0) {
            c->why = GS_NOT_FINITE;
            r->stop = 1;
            return;
        }
    }
    c->scale = sum;
    if (c->sweeps >= c->opts->max_iter) {
        c->why = GS_MAX_ITER;
        r->stop = 1;
    } else if (c->opts->time_limit > 0.0 && clock_now() - c->t0 > c->opts->time_limit) {
        c->why = GS_TIME_LIMIT;
        r->stop = 1;
    } else if (fabs(sum) < 1e-150 || fabs(sum) > 1e150) {
        /* rescale before the iterate under- or overflows (rare) */
        uint32_t n = r->q->n;
        double *xs = r->snap[r->a];
        for (uint32_t i = 0; i < n; i++) {
            r->x[i] /= sum;
            xs[i] /= sum;
        }
        c->scale = 1.0;
    }
    /* Check when the calibrated estimate nears the tolerance, and every
     * so often anyway: the ratio drifts, and a check is cheap. */
    r->check = c->ratio == 0.0 || c->since_check + 1 >= GS_CHECK_EVERY
               || c->ratio * upd <= 4.0 * c->opts->tol;
}

/* ---------------------------------------------------------------- threads */

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

static void gs_sweep_part(gs_run *r, int id)
{
    gs_sweep(r->q, r->x, r->snap[r->a], r->snap[r->a ^ 1u], r->omega, r->check, &r->part[id]);
}

/* Workers: wait for "go", sweep their block, report "done". */
static void *gs_worker(void *arg)
{
    gs_thread *t = arg;
    gs_run *r = t->run;
    for (;;) {
        gs_wait(r);
        if (r->stop)
            return NULL;
        gs_sweep_part(r, t->id);
        gs_wait(r);
    }
}

/* Split rows into nt blocks of about equal work (entries + rows). */
static void gs_blocks(const pepa_ctmc *q, gs_run *r)
{
    uint32_t lo = 0;
    for (int t = 0; t < r->nt; t++) {
        uint32_t hi = q->n;
        if (t + 1 < r->nt) {
            uint64_t target = (q->nnz + q->n) * (uint64_t)(t + 1) / (uint64_t)r->nt;
            uint32_t a = lo, b = q->n;     /* first row with rowp + row >= target */
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

/* Start nt-1 workers; if one fails, release those started and go on
 * alone. Returns the number of workers running. */
static int gs_start(gs_run *r, pthread_t *tid, gs_thread *targ)
{
    int started = 0;
    for (int t = 1; t < r->nt; t++) {
        targ[t].run = r;
        targ[t].id = t;
        if (pthread_create(&tid[t], NULL, gs_worker, &targ[t]) != 0)
            break;
        started++;
    }
    if (started < r->nt - 1) {
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
    return started;
}

/* Sweep until gs_decide stops, with nt - 1 helper threads if asked. */
static void gs_iterate(gs_run *r, gs_ctl *c)
{
    pthread_t tid[GS_MAX_THREADS];
    gs_thread targ[GS_MAX_THREADS];
    int started = 0, sync = 0;
    if (r->nt > 1) {
        if (pthread_mutex_init(&r->mu, NULL) != 0) {
            r->nt = 1;
        } else if (pthread_cond_init(&r->cv, NULL) != 0) {
            pthread_mutex_destroy(&r->mu);
            r->nt = 1;
        } else {
            sync = 1;
            started = gs_start(r, tid, targ);
        }
    }
    gs_blocks(r->q, r);
    r->check = 1;
    for (;;) {
        if (r->nt > 1)
            gs_wait(r);                    /* go */
        if (r->stop)
            break;
        gs_sweep_part(r, 0);
        if (r->nt > 1)
            gs_wait(r);                    /* done */
        gs_decide(c);
    }
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    if (sync) {
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
    }
}

/* ---------------------------------------------------------------- entry */

static int gs_check_input(const pepa_ctmc *q, const pepa_solve_opts *opts, double omega,
                          const double *pi, double *init, diag *err)
{
    if (!(omega > 0.0 && omega < 2.0))
        return diag_set(err, "SOR relaxation factor %g is outside (0, 2)", omega);
    for (uint32_t j = 0; j < q->n; j++)
        if (!(q->out[j] > 0.0) && q->n > 1)
            return diag_set(err, "state %u has no outgoing transition (absorbing): "
                            "Gauss-Seidel needs an irreducible chain", j);
    *init = 0.0;
    if (opts->warm) {
        for (uint32_t i = 0; i < q->n; i++) {
            if (!(pi[i] >= 0.0) || !isfinite(pi[i]))
                return diag_set(err, "warm start: pi[%u] = %g is not a probability", i, pi[i]);
            *init += pi[i];
        }
        if (!(*init > 0.0) || !isfinite(*init))
            return diag_set(err, "warm start: the initial vector sums to %g", *init);
    }
    return 0;
}

/* Copy the answer out; Anderson or SOR steps may leave round-off
 * negatives, which are clipped (the residual is then recomputed). */
static double gs_answer(const pepa_ctmc *q, const double *xs, double scale, double *pi,
                        double res)
{
    int clipped = 0;
    double s = 0.0;
    for (uint32_t i = 0; i < q->n; i++) {
        double v = xs[i] / scale;
        if (v < 0.0) {
            v = 0.0;
            clipped = 1;
        }
        pi[i] = v;
        s += v;
    }
    if (clipped || res < 0.0) {
        if (s > 0.0)
            for (uint32_t i = 0; i < q->n; i++)
                pi[i] /= s;
        res = pepa_ctmc_residual(q, pi);
    }
    return res;
}

int pepa_solve_gs(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                  pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    double omega = opts->method == PEPA_METHOD_SOR && opts->omega != 0.0 ? opts->omega : 1.0;
    const char *name = opts->method == PEPA_METHOD_SOR ? "SOR" : "Gauss-Seidel";
    double init = 0.0;
    res->iterations = 0;
    res->residual = INFINITY;
    res->converged = 0;
    if (n == 0)
        return diag_set(err, "the chain has no states");
    if (gs_check_input(q, opts, omega, pi, &init, err))
        return -1;
    if (pepa_solve_trivial(q, opts, pi, res, err))
        return 0;                       /* n == 1: n == 0 was refused above */

    gs_run *r = calloc(1, sizeof *r);
    double *x = malloc((size_t)n * sizeof *x);
    double *s0 = malloc((size_t)n * sizeof *s0);
    double *s1 = malloc((size_t)n * sizeof *s1);
    if (!r || !x || !s0 || !s1) {
        free(s1);
        free(s0);
        free(x);
        free(r);
        return diag_set(err, "out of memory for %s (%u states)", name, n);
    }
    for (uint32_t i = 0; i < n; i++)
        x[i] = s0[i] = opts->warm ? pi[i] / init : 1.0 / n;
    r->q = q;
    r->x = x;
    r->snap[0] = s0;
    r->snap[1] = s1;
    r->omega = omega;
    r->nt = opts->threads > 0 ? opts->threads : 1;
    if (r->nt > GS_MAX_THREADS)
        r->nt = GS_MAX_THREADS;
    if ((uint32_t)r->nt > n)
        r->nt = (int)n;

    gs_ctl c = {.run = r, .opts = opts, .t0 = clock_now(), .scale = 1.0};
    if (!opts->plain)
        c.aa = aa_new(n);                  /* NULL: go on unaccelerated */
    gs_iterate(r, &c);

    res->iterations = c.sweeps;
    res->residual = gs_answer(q, r->snap[r->a], c.scale, pi, c.last_res);
    res->converged = res->residual <= opts->tol;
    int rc = 0;
    if (!res->converged) {
        if (c.why == GS_NOT_FINITE || isnan(res->residual))
            rc = diag_set(err, "%s diverged (not a finite number) after %ld sweeps", name,
                          c.sweeps);
        else if (c.why == GS_TIME_LIMIT)
            rc = diag_set(err, "%s: time limit %g s reached after %ld sweeps, "
                          "residual %.3g > tolerance %.3g", name, opts->time_limit,
                          c.sweeps, res->residual, opts->tol);
        else
            rc = diag_set(err, "%s did not converge in %ld sweeps: residual %.3g > "
                          "tolerance %.3g", name, c.sweeps, res->residual, opts->tol);
    }
    aa_free(c.aa);
    free(s1);
    free(s0);
    free(x);
    free(r);
    return rc;
}
