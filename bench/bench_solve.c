/* bench_solve: steady-state solvers on large synthetic chains.
 *
 * Chains, built here without the PEPA front end:
 *   jobshop5  the CTMC of corpus/pepa/pepa-eclipse-plugin/jobshop5.pepa,
 *             hand-derived: 4 polite workers and 1 simple worker sharing
 *             5 hammers and 5 chisels (strike is blocked: the simple worker
 *             does not take part in it). 704,645 states, 13,612,985
 *             transitions, states numbered breadth-first like a
 *             derivation; reference throughputs get_hammer = 1.5333333,
 *             work = 1.0888889 (corpus EXPECTED.md).
 *   cqn       a closed queueing network (9 stations, 16 jobs, 3 routes
 *             per station): slower to mix, a harder case for Gauss-Seidel.
 *
 * Prints one table: states, nnz, method, threads, iterations, residual,
 * seconds, and the effective bandwidth of the matrix traffic (bytes of
 * the CTMC arrays read per iteration / time per iteration).
 *
 * usage: bench_solve [jobshop5|cqn|all] [method[:threads][:plain] ...]
 * e.g.   bench_solve jobshop5 gs:1 gs:1:plain gs:2 gmres auto
 *        bench_solve direct   (the sparse LU against Gauss-Seidel on
 *                              medium chains; part of "all")
 *
 * The direct table: chains of 10^4 to 3 10^4 states of increasing
 * dimension (a 3-D grid walk of 27,000 states, the size issue 17 asks to
 * factorise well under a second; the PEPA Plug-in's production.pepa from
 * the shared corpus, when SHARED_DIR has it; closed queueing networks of
 * 5, 7 and 9 stations, the 7-station one the chain that took 41.1 s in
 * the first version), --method direct (nested dissection and the
 * multifrontal LU from 10,000 states) against UMFPACK alone (the direct
 * method before it, pepa_solve_direct_umfpack) and against Gauss-Seidel
 * and GMRES to the same 1e-12 from a uniform start, in the same run: CPU
 * seconds (the machine is shared; the LU's and UMFPACK's wall times are
 * printed too, the `uptime` load beside them says how shared), the
 * ratios of UMFPACK's CPU and wall time to the LU's median run, and the largest differences between the LU's answer and
 * UMFPACK's and Gauss-Seidel's. The LU runs three times on one thread (the
 * library's default): its first run (which touches memory the process
 * never had) and the median are shown; then three times on two threads
 * (opts.lu_threads 2, what `skelsched solve` runs by default on two CPUs:
 * "2T1" the first run, "2T" the median, "LU/2T w" the wall-time speed-up,
 * "|2T-LU|" the largest difference between the two answers).
 * A second table gives where the LU's time goes on the same chains
 * (pepa/lu.h alone: analysis, factorisation, one solve; flops, GFlop/s,
 * predicted MB): ordered as lu.h's PEPA_LU_AUTO chooses ("auto:", its
 * analysis including the orderings it tried) in single precision (as the
 * direct method factorises, then refining in double), by METIS in single
 * and in double (as it did before), and by AMD; "auto" also on two
 * threads ("single,2T"; "split": the fronts run on both). "factor w" is
 * the factorisation's wall time, and GFlop/s its flops over it; "caller"
 * the calling thread's CPU time in it; "crit" on two threads the
 * critical path: the busier thread's CPU time in the subtrees the two
 * factorise at once, plus the caller's in the top part (lu_sub.h): a
 * CPU-time model of the factorisation on two idle cores, low because it
 * leaves out the caller's serial prologue (transpose, allocation, on a
 * fresh pepa_lu the plan and the copy's loading) and its waits in the
 * joins ("caller" where the tree is not cut).
 * A last table gives where a whole direct solve's time goes, on one thread
 * and on two: the Gauss-Seidel sweeps choosing the state to pin, the
 * analysis (ordering and symbolic), the numerical factorisation, the
 * solves with refinement, and what is in none of them; wall and CPU.
 *        bench_solve phases   (that last table alone)
 *        bench_solve lu2      (the closed networks' factorisation alone,
 *                              one thread against two, alternated)
 *        bench_solve bound    (the closed networks' direct solve against
 *                              its floor on one thread: the analysis
 *                              plus the flops at sgemm's rate; part of
 *                              "all")
 *        bench_solve decide [file.pepa ...]  (AUTO's decision with its
 *                              probe against it without, on the direct
 *                              table's chains and more: bench_decide.h;
 *                              part of "all")
 *        bench_solve blas2    (whether OpenBLAS's work buffers may be
 *                              taken by two threads at once: bench_blas2.h;
 *                              part of "all") */
#define _DEFAULT_SOURCE         /* getloadavg */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/blaskern.h"
#include "bench/bench_blas2.h"
#include "bench/bench_decide.h"
#include "bench/bench_dense.h"
#include "base/clock.h"
#include "pepa/ctmc.h"
#include "pepa/lu.h"
#include "pepa/solve.h"
#include "base/mem.h"
#include "tests/unit/chaingen.h"

/* ---------------------------------------------------------------- triples */

typedef struct trip {
    uint32_t *src, *dst;
    double *rate;
    size_t m, cap;
} trip;

static int trip_add(trip *t, uint32_t s, uint32_t d, double r)
{
    if (t->m == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1 << 20;
        if (mem_grow((void **)&t->src, cap, sizeof *t->src) < 0 ||
            mem_grow((void **)&t->dst, cap, sizeof *t->dst) < 0 ||
            mem_grow((void **)&t->rate, cap, sizeof *t->rate) < 0)
            return -1;
        t->cap = cap;
    }
    t->src[t->m] = s;
    t->dst[t->m] = d;
    t->rate[t->m] = r;
    t->m++;
    return 0;
}

static void trip_free(trip *t)
{
    free(t->rate);
    free(t->dst);
    free(t->src);
}

/* Breadth-first exploration; states are codes, found through an
 * open-addressing hash table (size a power of two, load <= 1/2). */
typedef struct bfs {
    uint64_t *key;       /* code + 1, 0 = empty */
    uint32_t *val;       /* state index */
    size_t hsize;
    uint64_t *code;      /* state -> code */
    uint32_t n, cap;
} bfs;

static size_t bfs_hash(uint64_t c, size_t mask)
{
    c ^= c >> 31;
    c *= 0x9e3779b97f4a7c15ULL;
    c ^= c >> 29;
    return (size_t)c & mask;
}

static int bfs_grow(bfs *b)
{
    size_t hs = b->hsize ? 2 * b->hsize : 1 << 16;
    uint64_t *key = calloc(hs, sizeof *key);
    uint32_t *val = malloc(hs * sizeof *val);
    if (!key || !val) {
        free(val);
        free(key);
        return -1;
    }
    for (size_t i = 0; i < b->hsize; i++) {
        if (!b->key[i])
            continue;
        size_t h = bfs_hash(b->key[i] - 1, hs - 1);
        while (key[h])
            h = (h + 1) & (hs - 1);
        key[h] = b->key[i];
        val[h] = b->val[i];
    }
    free(b->val);
    free(b->key);
    b->key = key;
    b->val = val;
    b->hsize = hs;
    return 0;
}

static int bfs_visit(bfs *b, uint64_t c, uint32_t *id)
{
    if (2 * ((size_t)b->n + 1) > b->hsize && bfs_grow(b))
        return -1;
    size_t h = bfs_hash(c, b->hsize - 1);
    while (b->key[h]) {
        if (b->key[h] == c + 1) {
            *id = b->val[h];
            return 0;
        }
        h = (h + 1) & (b->hsize - 1);
    }
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? 2 * b->cap : 1 << 16;
        if (mem_grow((void **)&b->code, (size_t)cap, sizeof *b->code) < 0)
            return -1;
        b->cap = cap;
    }
    b->code[b->n] = c;
    b->key[h] = c + 1;
    b->val[h] = b->n;
    *id = b->n++;
    return 0;
}

static void bfs_free(bfs *b)
{
    free(b->val);
    free(b->key);
}

/* ---------------------------------------------------------------- jobshop5 */

/* Code: polite worker w in bits 3w..3w+2 (local state 0..6), the simple
 * worker in bits 12..14 (0..4), hammers taken in bits 15..19, chisels in
 * 20..24. */
enum { JS_GH, JS_GC, JS_RH, JS_RC, JS_WORK };

static int popc(unsigned v)
{
    int c = 0;
    for (; v; v &= v - 1)
        c++;
    return c;
}

/* Successor of one worker action: a tool action spreads the worker's
 * rate evenly over the free (get) or taken (release) copies, which is
 * PEPA's apparent-rate rule for passive copies. */
static int js_emit(bfs *b, trip *t, uint32_t from, uint64_t c, int shift, unsigned next,
                   int act)
{
    uint64_t base = (c & ~((uint64_t)7 << shift)) | ((uint64_t)next << shift);
    unsigned h = (unsigned)(c >> 15) & 31, k = (unsigned)(c >> 20) & 31;
    uint32_t to;
    if (act == JS_WORK) {
        if (bfs_visit(b, base, &to) || trip_add(t, from, to, 1.0))
            return -1;
        return 0;
    }
    int tools_shift = act == JS_GH || act == JS_RH ? 15 : 20;
    unsigned set = act == JS_GH || act == JS_RH ? h : k;
    int get = act == JS_GH || act == JS_GC;
    unsigned cand = get ? (~set & 31) : set;
    int nc = popc(cand);
    for (int i = 0; i < 5; i++) {
        if (!(cand >> i & 1))
            continue;
        uint64_t d = base ^ ((uint64_t)1 << (tools_shift + i));
        if (bfs_visit(b, d, &to) || trip_add(t, from, to, 1.0 / nc))
            return -1;
    }
    return 0;
}

static pepa_ctmc *make_jobshop5(uint64_t **codes)
{
    /* polite: state -> list of (action, next) */
    static const int pol[7][2][2] = {
        {{JS_GH, 1}, {JS_GC, 2}}, {{JS_GC, 3}, {JS_RH, 0}}, {{JS_GH, 3}, {JS_RC, 0}},
        {{JS_WORK, 4}, {-1, 0}},  {{JS_RH, 5}, {JS_RC, 6}}, {{JS_RC, 0}, {-1, 0}},
        {{JS_RH, 0}, {-1, 0}},
    };
    static const int simple[5][2] = {{JS_GH, 1}, {JS_GC, 2}, {JS_WORK, 3}, {JS_RC, 4}, {JS_RH, 0}};
    bfs b = {0};
    trip t = {0};
    pepa_ctmc *q = NULL;
    uint32_t id;
    if (bfs_visit(&b, 0, &id))
        goto done;
    for (uint32_t s = 0; s < b.n; s++) {
        uint64_t c = b.code[s];
        for (int w = 0; w < 4; w++) {
            unsigned p = (unsigned)(c >> (3 * w)) & 7;
            for (int a = 0; a < 2; a++)
                if (pol[p][a][0] >= 0
                    && js_emit(&b, &t, s, c, 3 * w, (unsigned)pol[p][a][1], pol[p][a][0]))
                    goto done;
        }
        unsigned p = (unsigned)(c >> 12) & 7;
        if (js_emit(&b, &t, s, c, 12, (unsigned)simple[p][1], simple[p][0]))
            goto done;
    }
    q = pepa_ctmc_from_triples(b.n, t.m, t.src, t.dst, t.rate);
done:
    trip_free(&t);
    bfs_free(&b);
    *codes = b.code;
    return q;
}

/* Throughputs of get_hammer and work. A worker that can get a hammer does
 * so at total rate 1 whatever the number of free hammers, and work has
 * rate 1, so each is sum over states of pi times the number of workers
 * able to do it. */
static void jobshop5_check(const pepa_ctmc *q, const uint64_t *codes, const double *pi)
{
    double gh = 0.0, work = 0.0;
    for (uint32_t s = 0; s < q->n; s++) {
        uint64_t c = codes[s];
        int ngh = 0, nwork = 0;
        for (int w = 0; w < 4; w++) {
            unsigned p = (unsigned)(c >> (3 * w)) & 7;
            ngh += p == 0 || p == 2;
            nwork += p == 3;
        }
        unsigned p = (unsigned)(c >> 12) & 7;
        ngh += p == 0;
        nwork += p == 2;
        gh += pi[s] * ngh;
        work += pi[s] * nwork;
    }
    printf("          throughput get_hammer %.7f (expected 1.5333333), work %.7f (1.0888889)\n",
           gh, work);
}

/* ---------------------------------------------------------------- cqn */

static pepa_ctmc *make_cqn(int M, int N, int fan, unsigned seed)
{
    /* codes: 5 bits per station */
    bfs b = {0};
    trip t = {0};
    pepa_ctmc *q = NULL;
    double mu[16], p[16][8];
    int dest[16][8];
    srand(seed);
    for (int i = 0; i < M; i++) {
        mu[i] = 1.0 + rand() % 5;
        double tot = 0.0;
        for (int f = 0; f < fan; f++) {
            dest[i][f] = f == 0 ? (i + 1) % M : rand() % M;
            if (dest[i][f] == i)
                dest[i][f] = (i + 2) % M;
            p[i][f] = 1 + rand() % 3;
            tot += p[i][f];
        }
        for (int f = 0; f < fan; f++)
            p[i][f] /= tot;
    }
    uint32_t id;
    if (bfs_visit(&b, (uint64_t)N, &id))
        goto done;
    for (uint32_t s = 0; s < b.n; s++) {
        uint64_t c = b.code[s];
        for (int i = 0; i < M; i++) {
            if (((c >> (5 * i)) & 31) == 0)
                continue;
            for (int f = 0; f < fan; f++) {
                uint64_t d = c - ((uint64_t)1 << (5 * i)) + ((uint64_t)1 << (5 * dest[i][f]));
                if (bfs_visit(&b, d, &id) || trip_add(&t, s, id, mu[i] * p[i][f]))
                    goto done;
            }
        }
    }
    q = pepa_ctmc_from_triples(b.n, t.m, t.src, t.dst, t.rate);
done:
    trip_free(&t);
    free(b.code);
    bfs_free(&b);
    return q;
}

/* ---------------------------------------------------------------- direct */

/* Solve with m to 1e-12 (umf: the direct method with UMFPACK alone, the
 * reference; threads: the LU's, opts->lu_threads); CPU and wall seconds in
 * cpu, wall. */
static int timed_on(const pepa_ctmc *q, pepa_method m, int umf, int threads, double *pi,
                    double *cpu, double *wall, long *its)
{
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = m;
    o.lu_threads = threads;
    o.tol = 1e-12;
    o.time_limit = 300.0;
    pepa_solve_result r;
    diag e;
    diag_clear(&e);
    double c0 = clock_cpu(), w0 = clock_now();
    int rc = umf ? pepa_solve_direct_umfpack(q, &o, pi, &r, &e) : pepa_solve(q, &o, pi, &r, &e);
    *cpu = clock_cpu() - c0;
    *wall = clock_now() - w0;
    *its = r.iterations;
    if (rc)
        printf("  (%s: %s)\n", umf ? "UMFPACK" : pepa_method_name(m), e.msg);
    return rc;
}

/* As timed_on, the LU on one thread (the library's default). */
static int timed(const pepa_ctmc *q, pepa_method m, int umf, double *pi, double *cpu,
                 double *wall, long *its)
{
    return timed_on(q, m, umf, 1, pi, cpu, wall, its);
}

static double max_diff(uint32_t n, const double *a, const double *b)
{
    double d = 0.0;
    for (uint32_t i = 0; i < n; i++)
        d = fabs(a[i] - b[i]) > d ? fabs(a[i] - b[i]) : d;
    return d;
}

/* The direct method (LU, on threads threads) LU_RUNS times: the first
 * run's CPU and wall seconds in first[0], first[1] (it touches memory the
 * process never had, which costs on this VM), the median run's CPU and
 * wall seconds in cpu and wall. */
#define LU_RUNS 3
static int lu_runs(const pepa_ctmc *q, int threads, double *pi, double first[2], double *cpu,
                   double *wall)
{
    double c[LU_RUNS], w[LU_RUNS];
    long its;
    for (int k = 0; k < LU_RUNS; k++)
        if (timed_on(q, PEPA_METHOD_DIRECT, 0, threads, pi, &c[k], &w[k], &its))
            return -1;
    first[0] = c[0];
    first[1] = w[0];
    int lo = 0, hi = 0;
    for (int k = 1; k < LU_RUNS; k++) {
        lo = c[k] < c[lo] ? k : lo;
        hi = c[k] > c[hi] ? k : hi;
    }
    int mid = lo == hi ? 0 : 3 - lo - hi;
    *cpu = c[mid];
    *wall = w[mid];
    return 0;
}

/* One row: the direct method (LU, three runs on one thread, then three on
 * two), the UMFPACK reference, Gauss-Seidel and GMRES on the same chain,
 * in this order, in the same run. */
static void direct_row(const char *name, const pepa_ctmc *q)
{
    if (!q)
        return;
    size_t sz = q->n * sizeof(double);
    double *a = malloc(sz), *u = malloc(sz), *b = malloc(sz), *c = malloc(sz), *t = malloc(sz);
    double c1[2], c2[2], cd, wd, ct, wt, cu, wu, cg, wg, ck, wk;
    long iu, ig, ik;
    if (a && u && b && c && t && lu_runs(q, 1, a, c1, &cd, &wd) == 0
        && lu_runs(q, 2, t, c2, &ct, &wt) == 0
        && timed(q, PEPA_METHOD_DIRECT, 1, u, &cu, &wu, &iu) == 0
        && timed(q, PEPA_METHOD_GS, 0, b, &cg, &wg, &ig) == 0
        && timed(q, PEPA_METHOD_GMRES, 0, c, &ck, &wk, &ik) == 0)
        printf("%-15s %7u %8llu %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %6.2fx %7.3f "
               "%8.3f %6.2fx %7.2fx %7.3f %6ld %8.3f %5ld %9.1e %9.1e %9.1e\n", name, q->n,
               (unsigned long long)q->nnz, c1[0], c1[1], cd, wd, c2[0], c2[1], ct, wt, wd / wt,
               cu, wu, cu / cd, wu / wt, cg, ig, ck, ik, max_diff(q->n, a, t),
               max_diff(q->n, a, u), max_diff(q->n, a, b));
    free(t);
    free(c);
    free(b);
    free(u);
    free(a);
}

/* production.pepa's chain from the shared corpus, or NULL (a note says
 * why). */
static pepa_ctmc *corpus_chain(const char *file)
{
    const char *dir = getenv("SHARED_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/corpus/pepa/%s", dir && *dir ? dir : "../shared", file);
    return bench_file_chain(path);
}

#ifdef HAVE_UMFPACK
/* Q's balance equations with state r pinned, by columns (m = n - 1, as
 * solve_direct.c factorises them): entry (j, i) = Q(i, j), i, j != r,
 * renumbered past r. */
static int balance(const pepa_ctmc *q, uint32_t r, int64_t **pp, int64_t **pi, double **px)
{
    uint32_t n = q->n;
    int64_t *p = malloc(n * sizeof *p), *ix = malloc((q->nnz + n) * sizeof *ix), k = 0;
    double *x = malloc((q->nnz + n) * sizeof *x);
    *pp = p;
    *pi = ix;
    *px = x;
    if (!p || !ix || !x)
        return -1;
    for (uint32_t j = 0; j < n; j++) {
        if (j == r)
            continue;
        p[j < r ? j : j - 1] = k;
        ix[k] = j < r ? j : j - 1;          /* the diagonal */
        x[k++] = -q->out[j];
        for (uint64_t e = q->rowp[j]; e < q->rowp[j + 1]; e++)
            if (q->col[e] != r) {
                ix[k] = q->col[e] < r ? q->col[e] : q->col[e] - 1;
                x[k++] = q->val[e];
            }
    }
    p[n - 1] = k;
    return 0;
}

/* The balance equations (m, p, ix, x) analysed, factorised (on threads
 * threads) and solved once: CPU seconds of each phase in t[0..2], the
 * factorisation's wall seconds in t[3] and the calling thread's CPU
 * seconds in it in t[4] (with two threads, what the factorisation would
 * take on two idle cores, less its waits for the helper), in t[5] where
 * two threads cut the tree into subtrees (pepa_lu_part_seconds) the
 * longer thread's CPU seconds in the subtrees plus the caller's in the top
 * part (a CPU-time model of it on two idle cores, low: above; 0 uncut),
 * predicted flops and bytes.
 * Returns 0 or -1 (with the message in e). */
static int phase_once(int64_t m, const int64_t *p, const int64_t *ix, const double *x,
                      pepa_lu_order *order, pepa_lu_prec prec, int threads, double t[6],
                      double *flops, double *bytes, int64_t *split, diag *e)
{
    double *b = calloc((size_t)m, sizeof *b), *y = malloc((size_t)m * sizeof *y);
    double t0 = clock_cpu();
    pepa_lu *lu = b && y ? pepa_lu_analyse(m, p, ix, *order, flops, bytes, e) : NULL;
    double t1 = clock_cpu();
    if (lu) {
        *order = pepa_lu_ordering(lu);
        pepa_lu_set_threads(lu, threads);
    }
    double w1 = clock_now(), c1 = clock_thread_cpu();
    int rc = lu ? pepa_lu_factor(lu, p, ix, x, 1, prec, e) : -1;
    t[3] = clock_now() - w1;
    t[4] = clock_thread_cpu() - c1;
    double part[3] = {0.0, 0.0, 0.0};
    if (lu)
        pepa_lu_part_seconds(lu, part);
    t[5] = (part[0] > part[1] ? part[0] : part[1]) + part[2];
    double t2 = clock_cpu();
    if (rc == 0) {
        b[0] = 1.0;
        pepa_lu_solve(lu, b, y);
        *split = pepa_lu_split_fronts(lu);
    }
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    t[2] = clock_cpu() - t2;
    pepa_lu_free(lu);
    free(y);
    free(b);
    return rc;
}

/* What phase_best measured: the faster run's times (phase_once's t),
 * predicted flops and bytes, fronts split, the ordering used. */
typedef struct phase_res {
    double t[6], flops, bytes;
    int64_t split;
    pepa_lu_order used;
} phase_res;

/* The multifrontal LU alone on the balance equations (pinned at the
 * middle state: the pin changes the fill by one row), ordered by order,
 * in precision prec, on threads threads: the faster of two runs (the
 * first may touch memory the process never had). Returns 0 or -1 (with
 * the message in e). */
static int phase_best(const pepa_ctmc *q, pepa_lu_order order, pepa_lu_prec prec, int threads,
                      phase_res *r, diag *e)
{
    int64_t *p = NULL, *ix = NULL;
    double *x = NULL, t[2][6];
    int rc = balance(q, q->n / 2, &p, &ix, &x);
    for (int k = 0; k < 2 && rc == 0; k++) {
        r->used = order;
        rc = phase_once((int64_t)q->n - 1, p, ix, x, &r->used, prec, threads, t[k], &r->flops,
                        &r->bytes, &r->split, e);
    }
    if (rc == 0)
        memcpy(r->t, t[0][0] + t[0][1] + t[0][2] <= t[1][0] + t[1][1] + t[1][2] ? t[0] : t[1],
               sizeof r->t);
    free(x);
    free(ix);
    free(p);
    return rc;
}

/* One row of phase_table: CPU seconds of the analysis (ordering and
 * symbolic), the numerical factorisation and one solve; predicted flops
 * and bytes (the analysis predicts them for double; single precision
 * halves the factors and the stack, not the 40 bytes a state of integer
 * bookkeeping). */
static void phase_row(const char *name, const pepa_ctmc *q, pepa_lu_order order,
                      pepa_lu_prec prec, int threads)
{
    phase_res r = {0};
    diag e;
    diag_clear(&e);
    if (phase_best(q, order, prec, threads, &r, &e)) {
        printf("  (%s: %s)\n", name, e.set ? e.msg : "out of memory");
        return;
    }
    if (prec == PEPA_LU_SINGLE)
        r.bytes = (r.bytes - 40.0 * q->n) / 2.0 + 40.0 * q->n;
    const double *f = r.t;
    char how[16], pr[16];
    snprintf(how, sizeof how, "%s%s", order == PEPA_LU_AUTO ? "auto:" : "",
             r.used == PEPA_LU_METIS ? "METIS" : "AMD");
    snprintf(pr, sizeof pr, "%s%s", prec == PEPA_LU_SINGLE ? "single" : "double",
             threads > 1 ? ",2T" : "");
    printf("%-15s %-11s %-9s %8.3f %8.3f %8.3f %8.3f %8.3f %7.3f %8.3f %9.2e %7.1f %7.0f %6lld\n",
           name, how, pr, f[0], f[1], f[3], f[4], f[5] > 0.0 ? f[5] : f[4], f[2],
           f[0] + f[1] + f[2], r.flops, r.flops / f[3] / 1e9, r.bytes / 1e6, (long long)r.split);
}

/* Where the LU's time goes: as the direct method runs it (PEPA_LU_AUTO,
 * single precision), ordered by METIS in single and double, and by AMD. */
static void phase_table(pepa_ctmc *const *qs, const char *const *names, int nq)
{
    printf("\n%-15s %-11s %-9s %8s %8s %8s %8s %8s %7s %8s %9s %7s %7s %6s\n", "chain",
           "order", "prec", "analyse", "factor", "factor w", "caller", "crit", "solve", "total",
           "flops", "GFlop/s", "MB", "split");
    for (int k = 0; k < nq; k++)
        if (qs[k]) {
            phase_row(names[k], qs[k], PEPA_LU_AUTO, PEPA_LU_SINGLE, 1);
            phase_row(names[k], qs[k], PEPA_LU_AUTO, PEPA_LU_SINGLE, 2);
            phase_row(names[k], qs[k], PEPA_LU_METIS, PEPA_LU_SINGLE, 1);
            phase_row(names[k], qs[k], PEPA_LU_METIS, PEPA_LU_DOUBLE, 1);
            phase_row(names[k], qs[k], PEPA_LU_AMD, PEPA_LU_SINGLE, 1);
        }
}
/* bench_solve lu2: the closed networks' factorisation alone, as the
 * direct method runs it, on one thread against two, alternated three
 * times (the machine's load moves between runs). */
static void lu2_table(void)
{
    printf("\n%-15s %-11s %-9s %8s %8s %8s %8s %8s %7s %8s %9s %7s %7s %6s\n", "chain",
           "order", "prec", "analyse", "factor", "factor w", "caller", "crit", "solve", "total",
           "flops", "GFlop/s", "MB", "split");
    static const char *const names[] = {"cqn 5st/25job", "cqn 7st/11job", "cqn 9st/8job"};
    pepa_ctmc *qs[3] = {make_cqn(5, 25, 3, 42), make_cqn(7, 11, 3, 42), make_cqn(9, 8, 3, 42)};
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            for (int t = 1; t <= 2 && qs[k]; t++)
                phase_row(names[k], qs[k], PEPA_LU_AUTO, PEPA_LU_SINGLE, t);
    for (int k = 0; k < 3; k++)
        pepa_ctmc_free(qs[k]);
}

/* bench_solve bound: the closed networks' LU as the direct method runs it
 * (PEPA_LU_AUTO, single precision, one thread), the faster of two runs,
 * against its floor: the numerical phase cannot run faster than OpenBLAS's
 * sgemm on one thread (the fastest dense kernel: the fronts' LUs and
 * triangular solves run slower), so the analysis plus the predicted flops
 * at sgemm's rate bound the analysis and factorisation from below, for
 * the ordering chosen. sgemm and sgetrf are timed in the same run (CPU
 * seconds of the calling thread, order 2000, the best of five), and the
 * faster rate is the ceiling. */
static void bound_row(const char *name, const pepa_ctmc *q, double gemm)
{
    phase_res r = {0};
    diag e;
    diag_clear(&e);
    if (phase_best(q, PEPA_LU_AUTO, PEPA_LU_SINGLE, 1, &r, &e)) {
        printf("  (%s: %s)\n", name, e.set ? e.msg : "out of memory");
        return;
    }
    double at = r.flops / (gemm * 1e9);
    printf("%-15s %8.3f %8.3f %8.3f %9.2e %8.1f %8.3f %8.3f %7.0f%%\n", name, r.t[0], r.t[1],
           r.t[0] + r.t[1], r.flops, r.flops / r.t[1] / 1e9, at, r.t[0] + at,
           100.0 * (r.t[1] - at) / r.t[1]);
}

static void bound_table(void)
{
    double gemm = dense_rate(DENSE_GEMM, 2000), getrf = dense_rate(DENSE_GETRF, 2000);
    printf("\none thread, CPU time: sgemm 2000^2 %.1f GFlop/s, sgetrf 2000 %.1f GFlop/s\n",
           gemm, getrf);
    gemm = getrf > gemm ? getrf : gemm;     /* the ceiling: the faster, as measured */
    printf("%-15s %8s %8s %8s %9s %8s %8s %8s %8s\n", "chain", "analyse", "factor", "sum",
           "flops", "GFlop/s", "at ceil", "floor", "overhead");
    static const char *const names[] = {"cqn 5st/25job", "cqn 7st/11job", "cqn 9st/8job"};
    pepa_ctmc *qs[3] = {make_cqn(5, 25, 3, 42), make_cqn(7, 11, 3, 42), make_cqn(9, 8, 3, 42)};
    for (int k = 0; k < 3; k++) {
        if (qs[k] && gemm > 0.0)
            bound_row(names[k], qs[k], gemm);
        pepa_ctmc_free(qs[k]);
    }
}
#endif

/* bench_solve direct's last table: where a whole direct solve's time
 * goes (pepa_solve_phases), on threads threads, the run of median wall
 * time of three: each phase's wall and CPU seconds (CPU: the process's,
 * both threads), the whole solve's, and what is in no phase (building
 * the matrix, normalising, the residual check). */
#define PHASE_RUNS 3
static void solve_phases_row(const char *name, const pepa_ctmc *q, int threads)
{
    double *pi = malloc(q->n * sizeof *pi), w[PHASE_RUNS], c[PHASE_RUNS];
    pepa_solve_result r[PHASE_RUNS];
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_DIRECT;
    o.lu_threads = threads;
    o.tol = 1e-12;
    if (!pi)
        return;
    for (int k = 0; k < PHASE_RUNS; k++) {
        diag e;
        diag_clear(&e);
        double c0 = clock_cpu(), w0 = clock_now();
        if (pepa_solve(q, &o, pi, &r[k], &e)) {
            printf("  (%s: %s)\n", name, e.msg);
            free(pi);
            return;
        }
        w[k] = clock_now() - w0;
        c[k] = clock_cpu() - c0;
    }
    free(pi);
    int mid = 0;
    for (int k = 0; k < PHASE_RUNS; k++) {
        int below = 0;
        for (int j = 0; j < PHASE_RUNS; j++)
            below += w[j] < w[k];
        mid = below == PHASE_RUNS / 2 ? k : mid;
    }
    const pepa_solve_phases *p = &r[mid].phases;
    double rest = w[mid] - p->pin[0] - p->analyse[0] - p->factor[0] - p->refine[0];
    printf("%-15s %2d %6.3f/%5.3f %6.3f/%5.3f %6.3f/%5.3f %6.3f/%5.3f %6.3f %6.3f/%5.3f\n",
           name, threads, p->pin[0], p->pin[1], p->analyse[0], p->analyse[1], p->factor[0],
           p->factor[1], p->refine[0], p->refine[1], rest, w[mid], c[mid]);
}

static void solve_phases_table(pepa_ctmc *const *qs, const char *const *names, int nq)
{
    printf("\nwhole direct solve by phase, wall/CPU seconds (median wall of %d runs)\n",
           PHASE_RUNS);
    printf("%-15s %2s %12s %12s %12s %12s %6s %12s\n", "chain", "T", "pin (GS)", "analyse",
           "factor", "refine", "other", "total");
    for (int k = 0; k < nq; k++)
        for (int t = 1; t <= 2 && qs[k]; t++)
            solve_phases_row(names[k], qs[k], t);
}

/* The machine's load (1-minute average, as `uptime` says), printed beside
 * the timings: the wall times mean little without it. */
static void print_load(const char *when)
{
    double load;
    if (getloadavg(&load, 1) == 1)
        printf("(load %s: %.1f)\n", when, load);
}

/* The direct table's chains, built afresh (qs must be freed). */
static const char *const direct_names[] = {"grid 30^3", "production.pepa", "cqn 5st/25job",
                                           "cqn 7st/11job", "cqn 9st/8job"};
enum { NQ = sizeof direct_names / sizeof direct_names[0] };
static void direct_chains(pepa_ctmc *qs[NQ])
{
    qs[0] = chaingen_grid(30, 3, 1.5, 1.0, 1.0);   /* chains.h's grid3(30) */
    qs[1] = corpus_chain("pepa-eclipse-plugin/production.pepa");
    qs[2] = make_cqn(5, 25, 3, 42);
    qs[3] = make_cqn(7, 11, 3, 42);
    qs[4] = make_cqn(9, 8, 3, 42);
}

static void decide_main(char *const *files, int nfiles)
{
    pepa_ctmc *qs[NQ];
    direct_chains(qs);
    decide_table(qs, direct_names, NQ, files, nfiles);
    for (int k = 0; k < NQ; k++)
        pepa_ctmc_free(qs[k]);
}

static void direct_table(void)
{
    print_load("before");
    printf("\n%-15s %7s %8s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s %8s %7s %6s %8s "
           "%5s %9s %9s %9s\n", "chain", "states", "nnz", "1st cpu", "1stwall", "LU cpu",
           "LU wall", "2T1 cpu", "2T1wall", "2T cpu", "2T wall", "LU/2T w", "UMF cpu", "UMF wall",
           "UMF/LU", "UMF/2T w", "GS cpu", "sweeps", "GMRES cpu", "its", "|2T-LU|", "|LU-UMF|",
           "|LU-GS|");
    pepa_ctmc *qs[NQ];
    direct_chains(qs);
    for (int k = 0; k < NQ; k++)
        direct_row(direct_names[k], qs[k]);
    print_load("after");
#ifdef HAVE_UMFPACK
    phase_table(qs, direct_names, NQ);
#endif
    solve_phases_table(qs, direct_names, NQ);
    print_load("after the phase tables");
    for (int k = 0; k < NQ; k++)
        pepa_ctmc_free(qs[k]);
}

/* ---------------------------------------------------------------- main */

static void run(const char *name, const pepa_ctmc *q, const uint64_t *codes, pepa_method m,
                int threads, int plain)
{
    double *pi = malloc(q->n * sizeof *pi);
    if (!pi)
        return;
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = m;
    o.tol = 1e-8;
    o.threads = threads;
    o.plain = plain;
    o.time_limit = 120.0;
    pepa_solve_result r;
    diag e;
    diag_clear(&e);
    int rc = pepa_solve(q, &o, pi, &r, &e);
    double bytes = (double)pepa_ctmc_bytes(q);
    double per = r.iterations > 0 ? r.seconds / (double)r.iterations : r.seconds;
    char mname[32];
    snprintf(mname, sizeof mname, "%s%s", pepa_method_name(r.method), plain ? "-plain" : "");
    printf("%-9s %8u %9llu %-9s %3d %6ld %9.2e %8.3f %7.2f %s\n", name, q->n,
           (unsigned long long)q->nnz, mname, threads, r.iterations,
           r.residual, r.seconds, r.iterations > 0 ? bytes / per / 1e9 : 0.0,
           rc ? e.msg : "");
    if (rc == 0 && codes)
        jobshop5_check(q, codes, pi);
    free(pi);
}

int main(int argc, char **argv)
{
    blaskern_reexec(argv); /* the kernels skelsched itself runs on: base/blaskern.h */
    char blas[96];
    printf("BLAS: %s\n", blaskern_describe(blas, sizeof blas));
    const char *which = argc > 1 ? argv[1] : "all";
    if (strcmp(which, "direct") == 0) {
        direct_table();
        return 0;
    }
#ifdef HAVE_UMFPACK
    if (strcmp(which, "phases") == 0) {
        pepa_ctmc *qs[NQ];
        direct_chains(qs);
        print_load("before");
        solve_phases_table(qs, direct_names, NQ);
        print_load("after");
        for (int k = 0; k < NQ; k++)
            pepa_ctmc_free(qs[k]);
        return 0;
    }
    if (strcmp(which, "lu2") == 0) {
        lu2_table();
        return 0;
    }
    if (strcmp(which, "bound") == 0) {
        print_load("before");
        bound_table();
        print_load("after");
        return 0;
    }
#endif
    if (strcmp(which, "blas2") == 0)
        return blas2_table() < 0;
    if (strcmp(which, "decide") == 0) {
        decide_main(argv + 2, argc - 2);
        return 0;
    }
    printf("%-9s %8s %9s %-9s %3s %6s %9s %8s %7s\n", "chain", "states", "nnz", "method",
           "thr", "iter", "residual", "seconds", "GB/s");
    for (int c = 0; c < 2; c++) {
        const char *name = c == 0 ? "jobshop5" : "cqn";
        if (strcmp(which, "all") != 0 && strcmp(which, name) != 0)
            continue;
        double t0 = clock_now();
        uint64_t *codes = NULL;
        pepa_ctmc *q = c == 0 ? make_jobshop5(&codes) : make_cqn(9, 16, 3, 42);
        if (!q) {
            free(codes);
            fprintf(stderr, "bench_solve: cannot build %s (out of memory)\n", name);
            return 1;
        }
        fprintf(stderr, "%s: built in %.2f s, %.0f MB\n", name, clock_now() - t0,
                (double)pepa_ctmc_bytes(q) / 1e6);
        if (argc > 2) {
            for (int a = 2; a < argc; a++) {
                /* method[:threads][:plain] */
                pepa_method m;
                int thr = 0;
                char buf[32];
                snprintf(buf, sizeof buf, "%s", argv[a]);
                char *colon = strchr(buf, ':');
                if (colon) {
                    *colon = '\0';
                    thr = atoi(colon + 1);
                }
                int plain = strstr(argv[a], ":plain") != NULL;
                if (pepa_method_parse(buf, &m) == 0)
                    run(name, q, codes, m, thr, plain);
            }
        } else {
            run(name, q, codes, PEPA_METHOD_GS, 1, 1);
            run(name, q, codes, PEPA_METHOD_GS, 1, 0);
            run(name, q, codes, PEPA_METHOD_GS, 2, 0);
            run(name, q, codes, PEPA_METHOD_GMRES, 0, 0);
            run(name, q, codes, PEPA_METHOD_AUTO, 0, 0);
        }
        pepa_ctmc_free(q);
        free(codes);
    }
    if (strcmp(which, "all") == 0) {
        direct_table();
#ifdef HAVE_UMFPACK
        bound_table();
#endif
        decide_main(NULL, 0);
        blas2_table();
    }
    return 0;
}
