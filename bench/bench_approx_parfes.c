/* bench_approx part (h): par blocks too large for one window, each branch a
 * flow-equivalent server (skeleton/approx_parfes.c, FES(n,L)), against the
 * exact chain of the same placement in the same run:
 *   - the prototype's cases (small, smallpost, purtest, purpost, parbig)
 *     and spec11-purchase.bpel as the CLI imports it, default platform,
 *     task i on node i, with the answer `solve --method approx` gives
 *     (the cut windows where the whole model is past cut_whole_states);
 *   - random par blocks from a seed of their own: a task, par(2-3) of
 *     branches of 1-4 tasks (rates 0.3-10, work SCV 1, 0.5, 0.3 or 4), a
 *     join task and 0-1 more, on (a)'s random platforms of 4 nodes at a
 *     random placement, each under static sharing and processor sharing;
 *     at most FES_EXACT_MAX exact states;
 *   - nested (2026-11-27): the named nest-* cases (a branch holding a par,
 *     choice, farm) and random blocks from seed 20261127 whose first
 *     branch holds a par(2), choice(1,2) or farm(2) in turn.
 * The reduced chain is forced (max_states 50: every block past a window).
 * APPROX_VERBOSE=1 prints every random case (its number k first),
 * APPROX_DUMP=DIR writes case k as DIR/parfes-K.skel (the nested table's
 * DIR/parfes-nest-K), .conf (static sharing's; without its first line,
 * processor sharing's) and .place, APPROX_NO_NAMED=1 skips the named
 * cases. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_approx.h"
#include "cli/input.h"

#define FES_EXACT_MAX 60000UL
#define FES_NROW 4   /* static exponential, static phases, ps exponential, ps phases */

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The approximation of d/m at pl (forced: the reduced chain), its result
 * in *r and CPU seconds in *s; -1 on an error (err). */
static int fes_eval(const skel_dag *d, const skel_model *m, const skel_platform *p,
                    const int *pl, int forced, skel_approx_result *r, double *s, diag *err)
{
    skel_approx_opts o = { 0 };
    o.scv = m->scv;
    o.no_fes = forced == 2;   /* 2: the default's method before */
    if (forced == 1) {
        o.max_states = 50;
        o.cut_whole_states = 1;
    }
    double c0 = cpu_s();
    skel_approx *a = skel_approx_new(d, &o, err);
    int rc = a ? skel_approx_place(a, m, p, pl, r, err) : -1;
    skel_approx_free(a);
    *s = cpu_s() - c0;
    return rc;
}

/* Exact throughput of m at pl (its chain within cap), its states into
 * *states, CPU seconds into *s; -1 past the cap or on an error. */
static double exact_of(skel_model *m, const skel_dag *d, const skel_platform *p, const int *pl,
                       unsigned long cap, unsigned long *states, double *s)
{
    diag err = { 0 };
    double c0 = cpu_s(), x = -1;
    skel_search_result *r = skel_search_one(m, d, p, pl, cap, &err);
    if (r) {
        x = r->ranked[0].throughput;
        *states = r->states;
        skel_search_result_free(r);
    }
    *s = cpu_s() - c0;
    return x;
}

static const struct {
    const char *name, *skel;
} named[] = {
    { "small", "pipe(3); task(\"a\",2); par(2); pipe(2); task(\"b1\",1); task(\"b2\",3); "
               "task(\"c1\",2); task(\"z\",2);" },
    { "smallpost", "pipe(4); task(\"a\",2); par(2); pipe(2); task(\"b1\",1); task(\"b2\",3); "
                   "task(\"c1\",2); task(\"z\",2); task(\"p\",1.5);" },
    { "purtest", "pipe(3); task(\"r\",2); par(3); pipe(2); task(\"s1\",1); task(\"s2\",3); "
                 "pipe(3); task(\"i1\",2); task(\"i2\",1); task(\"i3\",4); pipe(2); "
                 "task(\"h1\",3); task(\"h2\",1.5); task(\"j\",2);" },
    { "purpost", "pipe(6); task(\"r\",2); par(3); pipe(2); task(\"s1\",1); task(\"s2\",3); "
                 "pipe(3); task(\"i1\",2); task(\"i2\",1); task(\"i3\",4); pipe(2); "
                 "task(\"h1\",3); task(\"h2\",1.5); task(\"j\",2); task(\"p1\",3); "
                 "task(\"p2\",2); task(\"p3\",4);" },
    { "parbig", "pipe(3); task(\"a\",5); par(3); pipe(4); task(\"b1\",3); task(\"b2\",4); "
                "task(\"b3\",3); task(\"b4\",4); pipe(4); task(\"c1\",3); task(\"c2\",4); "
                "task(\"c3\",5); task(\"c4\",3); pipe(3); task(\"d1\",3); task(\"d2\",4); "
                "task(\"d3\",3); task(\"z\",4);" },
    /* a branch holding a par, a choice, a farm (issue 15, 2026-11-27: the cut
     * windows before, not converged): parbig's shape, fewer tasks (exact fits) */
    { "nest-par", "pipe(3); task(\"a\",5); par(3); pipe(3); task(\"b1\",3); par(2); "
                  "task(\"x\",3); task(\"y\",2); task(\"b4\",4); pipe(3); task(\"c1\",3); "
                  "task(\"c2\",4); task(\"c3\",5); pipe(2); task(\"d1\",3); task(\"d2\",4); "
                  "task(\"z\",4);" },
    { "nest-choice", "pipe(3); task(\"a\",5); par(3); pipe(3); task(\"b1\",3); choice(1,2); "
                     "task(\"x\",3); task(\"y\",2); task(\"b4\",4); pipe(3); task(\"c1\",3); "
                     "task(\"c2\",4); task(\"c3\",5); pipe(2); task(\"d1\",3); "
                     "task(\"d2\",4); task(\"z\",4);" },
    { "nest-farm", "pipe(3); task(\"a\",5); par(3); pipe(3); task(\"b1\",3); "
                   "farm(2,\"w\",3); task(\"b4\",4); pipe(3); task(\"c1\",3); "
                   "task(\"c2\",4); task(\"c3\",5); pipe(2); task(\"d1\",3); "
                   "task(\"d2\",4); task(\"z\",4);" },
};

static const char *approx_how(const skel_approx_result *r)
{
    return r->fes ? " FES" : r->whole ? " whole" : r->converged ? "" : " not conv.";
}

/* One named row: tree t on the default platform, task i on node i. */
static int named_row(const char *name, const skel_tree *t, diag *err)
{
    int rc = -1, n = skel_tree_ntasks(t), pl[64];
    skel_dag *d = skel_dag_build(t, SKEL_STYLE_PRODUCER, err);
    skel_model *m = d ? skel_model_new(t, d, err) : NULL;
    skel_platform *p = m ? skel_platform_default(n, err) : NULL;
    for (int i = 0; i < n && i < 64; i++)
        pl[i] = i;
    unsigned long states = 0;
    skel_approx_result f, c, b;
    double es, fs, cs, bs;
    double x = p ? exact_of(m, d, p, pl, 1000000, &states, &es) : -1;
    if (x > 0 && fes_eval(d, m, p, pl, 1, &f, &fs, err) == 0 &&
        fes_eval(d, m, p, pl, 0, &c, &cs, err) == 0 &&
        fes_eval(d, m, p, pl, 2, &b, &bs, err) == 0) {
        printf("| %s | %lu | %.7g | %.3f | %.7g %+.2f%% | %d | %.4f | %+.2f%%%s, %.3f s | "
               "%+.2f%%%s, %.3f s |\n",
               name, states, x, es, f.throughput, 100 * (f.throughput / x - 1), f.fes, fs,
               100 * (b.throughput / x - 1), approx_how(&b), bs,
               100 * (c.throughput / x - 1), approx_how(&c), cs);
        rc = 0;
    }
    skel_platform_free(p);
    skel_model_free(m);
    skel_dag_free(d);
    return rc;
}

static int named_rows(diag *err)
{
    printf("\nbench_approx (h): par blocks past one window, FES(n,L) against the exact chain "
           "(default platform, task i on node i; CPU s)\n");
    printf("| case | exact states | exact | exact s | FES forced | FES states | FES s | "
           "default before (no_fes) | default now |\n|---|---:|---:|---:|---:|---:|---:|---:|"
           "---:|\n");
    for (size_t k = 0; k < sizeof named / sizeof *named; k++) {
        skel_tree *t = skel_parse_string(named[k].skel, strlen(named[k].skel), "h.skel", err);
        int rc = t ? named_row(named[k].name, t, err) : -1;
        skel_tree_free(t);
        if (rc < 0)
            return -1;
    }
    const char *shared = getenv("SHARED_DIR");
    char path[BA_PATH_CAP];
    snprintf(path, sizeof path, "%s/corpus/bpel/spec11-purchase.bpel",
             shared ? shared : "../shared");
    cli_input_opts io = { 0 };
    cli_input in = { 0 };
    int rc = cli_input_load(path, &io, &in, err) == 0 && in.tree
                 ? named_row("spec11-purchase", in.tree, err)
                 : -1;
    cli_input_free(&in);
    return rc;
}

/* One random task into body (phases: its work's SCV 0.5, 0.3 or 4 too). */
static void random_task(uint64_t *s, int phases, ba_sbuf *body)
{
    static const double scv[] = { 1, 0.5, 0.3, 4 };
    double r = ba_loguni(s, 0.3, 10.0), c = phases ? scv[ba_pick(s, 0, 3)] : 1;
    body->n += snprintf(body->b + body->n, sizeof body->b - (size_t)body->n,
                        c == 1 ? " task(\"t\", %.3g);" : " task(\"t\", %.3g, scv=%g);", r, c);
}

/* Nested: the first branch's middle stage (a pipe of 3: task, inner, task)
 * a par(2), choice(1,2) or farm(2) of tasks, in turn by the case. */
static int nested_branch(uint64_t *s, int phases, int kind, ba_sbuf *body)
{
    static const char *const head[] = { " par(2);", " choice(1,2);" };
    body->n += snprintf(body->b + body->n, sizeof body->b - (size_t)body->n, " pipe(3);");
    random_task(s, phases, body);
    if (kind < 2) {
        body->n += snprintf(body->b + body->n, sizeof body->b - (size_t)body->n, "%s", head[kind]);
        random_task(s, phases, body);
        random_task(s, phases, body);
    } else
        body->n += snprintf(body->b + body->n, sizeof body->b - (size_t)body->n,
                            " farm(2, \"w\", %.3g);", ba_loguni(s, 0.3, 10.0));
    random_task(s, phases, body);
    return 4;
}

/* A random block: a task, par(2-3) of 1-4 tasks each, a join task, 0-1
 * more; phases: some tasks' work of SCV 0.5, 0.3 or 4; nest >= 0: the
 * first branch holds a par (0), choice (1) or farm (2). */
static int random_block(uint64_t *s, int phases, int nest, ba_sbuf *t)
{
    int nb = ba_pick(s, 2, 3), post = ba_pick(s, 0, 1), tasks = 2 + post;
    ba_sbuf body = { .n = 0 };
    for (int b = 0; b < nb; b++) {
        if (b == 0 && nest >= 0) {
            tasks += nested_branch(s, phases, nest, &body);
            continue;
        }
        int k = ba_pick(s, 1, 4);
        tasks += k;
        if (k > 1)
            body.n += snprintf(body.b + body.n, sizeof body.b - (size_t)body.n, " pipe(%d);", k);
        for (int q = 0; q < k; q++)
            random_task(s, phases, &body);
    }
    t->n = snprintf(t->b, sizeof t->b, "pipe(%d); task(\"a\", %.3g); par(%d);%s task(\"j\", %.3g);%s",
                    3 + post, ba_loguni(s, 0.3, 10.0), nb, body.b, ba_loguni(s, 0.3, 10.0),
                    post ? " task(\"p\", 2);" : "");
    return tasks;
}

static int cmp_abs(const void *x, const void *y)
{
    double a = fabs(*(const double *)x), b = fabs(*(const double *)y);
    return (a > b) - (a < b);
}

/* One random case under both sharings: its errors into row[sh][n]. */
static int random_case(uint64_t *s, int k, int nest, double (*err_of)[BA_NSAMPLE], int *cnt,
                       double *worst, diag *err)
{
    ba_sbuf t;
    int phases = k % 2, n = random_block(s, phases, nest, &t), pl[32];
    char *plat = ba_random_platform(4, s, 0);
    for (int i = 0; i < n; i++)
        pl[i] = ba_pick(s, 0, 3);
    int rc = 0;
    if (plat) {               /* APPROX_DUMP: static sharing's platform (ps: without the line) */
        char text[9000];
        snprintf(text, sizeof text, "Sharing=static\n%s", plat);
        ba_dump_case(nest < 0 ? "parfes" : "parfes-nest", k, 0, t.b, text, pl, n,
                     SKEL_STYLE_PRODUCER);
    }
    for (int ps = 0; ps < 2 && rc == 0 && plat; ps++) {
        char text[9000];
        snprintf(text, sizeof text, "%s%s", ps ? "" : "Sharing=static\n", plat);
        skel_tree *tr = skel_parse_string(t.b, (size_t)t.n, "h.skel", err);
        skel_dag *d = tr ? skel_dag_build(tr, SKEL_STYLE_PRODUCER, err) : NULL;
        skel_model *m = d ? skel_model_new(tr, d, err) : NULL;
        skel_platform *p =
            m ? skel_platform_parse_string(text, strlen(text), "h.conf", NULL, NULL, err) : NULL;
        unsigned long st = 0;
        double es, fs, x = p ? exact_of(m, d, p, pl, FES_EXACT_MAX, &st, &es) : -1;
        skel_approx_result f;
        int row = 2 * ps + phases;
        if (!p)
            rc = -1;
        else if (x > 0 && fes_eval(d, m, p, pl, 1, &f, &fs, err) == 0 && f.fes > 0) {
            double e = f.throughput / x - 1;
            err_of[row][cnt[row]++] = e;
            if (fabs(e) > fabs(worst[row]))
                worst[row] = e;
            if (getenv("APPROX_VERBOSE"))
                printf("%d %s %s: exact %.6g (%lu st) fes %.6g %+.2f%%\n", k,
                       ps ? "ps" : "static", t.b, x, st, f.throughput, 100 * e);
        }
        diag_clear(err);
        skel_platform_free(p);
        skel_model_free(m);
        skel_dag_free(d);
        skel_tree_free(tr);
    }
    free(plat);
    return rc;
}

/* ncases random blocks from seed (nest: a branch holding a par, choice or
 * farm in turn, else -1), their |error| table. */
static int random_table(uint64_t seed, int ncases, int nest, diag *err)
{
    static const char *const rowname[FES_NROW] = { "static, exponential", "static, phases",
                                                   "ps, exponential", "ps, phases" };
    double(*e)[BA_NSAMPLE] = calloc(FES_NROW, sizeof *e), worst[FES_NROW] = { 0 };
    int cnt[FES_NROW] = { 0 }, rc = e ? 0 : -1;
    uint64_t s = seed;
    for (int k = 0; k < ncases && rc == 0; k++)
        rc = random_case(&s, k, nest ? k / 2 % 3 : -1, e, cnt, worst, err);
    if (rc == 0) {
        printf("\nbench_approx (h): %d random par blocks%s (seed %llu), FES(n,L) |error| "
               "against the exact chain\n| sharing, work | cases | median | p95 | max | "
               "worst signed |\n|---|---:|---:|---:|---:|---:|\n", ncases,
               nest ? ", a branch holding a par, choice or farm" : "", (unsigned long long)seed);
        for (int r = 0; r < FES_NROW; r++) {
            int n = cnt[r];
            qsort(e[r], (size_t)n, sizeof **e, cmp_abs);
            printf("| %s | %d | %.2f%% | %.2f%% | %.2f%% | %+.2f%% |\n", rowname[r], n,
                   n ? 100 * fabs(e[r][n / 2]) : 0, n ? 100 * fabs(e[r][(int)(0.95 * (n - 1))]) : 0,
                   n ? 100 * fabs(e[r][n - 1]) : 0, 100 * worst[r]);
        }
    }
    free(e);
    return rc;
}

int ba_parfes_suite(int ncases)
{
    diag err = { 0 };
    int rc = getenv("APPROX_NO_NAMED") ? 0 : named_rows(&err);   /* part (h)'s seeds: */
    if (rc == 0)
        rc = random_table(20261115, ncases, 0, &err);
    if (rc == 0)
        rc = random_table(20261127, ncases / 2, 1, &err);
    if (rc < 0)
        fprintf(stderr, "bench_approx: %s\n", err.msg);
    return rc < 0 ? 1 : 0;
}
