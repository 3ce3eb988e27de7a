/* test_search_psbound: the sub-pipeline windows that see processor
 * sharing (skeleton/search_winps.c), under Sharing=ps.
 *  - on random pipelines of 5-6 tasks on 3 random nodes, every partial
 *    placement the branch and bound meets (t0..t(k-1) placed, the rest
 *    not) is bounded by skel_search_bound at or above the exact throughput
 *    of each of its completions, every placement solved by the chain
 *    (brute force); windows of up to 4 tasks (solved densely) and of 6
 *    (Gauss-Seidel); and some of those prefixes bounded lower with the
 *    sharing windows than with the full-speed windows alone;
 *  - the proof (bounds on) finds brute force's optimum, solving no more
 *    chains than with the full-speed windows only;
 *  - on bench_scale's pipe(8) on 256 nodes, a placement with two tasks on
 *    each of three nodes: its exact throughput is 11% below the optimum,
 *    the full-speed windows bound it 7.8% above, the sharing ones below the
 *    optimum (so the proof cuts it without solving it). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "skeleton/skeleton.h"

#include "placed.h"
#include "suite.h"

#define NODES 3
#define MAX_TASKS 6

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Three nodes of speeds 1-8, a fast local move and slower links, so that
 * the best placements put tasks together. */
static void random_platform(char *text, size_t cap, uint64_t *seed)
{
    static const double speeds[] = { 1, 2, 4, 8 }, lats[] = { 0.005, 0.02, 0.1 };
    size_t len = (size_t)snprintf(text, cap, "LocalLatency=0.0001\nInput=local\nOutput=local\n");
    for (int j = 0; j < NODES; j++)
        len += (size_t)snprintf(text + len, cap - len, "NodeName=n%d Speed=%g\n", j,
                                speeds[(int)(uniform(seed) * 4)]);
    for (int a = 0; a < NODES; a++)
        for (int c = a + 1; c < NODES; c++)
            len += (size_t)snprintf(text + len, cap - len, "Link=n%d,n%d Latency=%g\n", a, c,
                                    lats[(int)(uniform(seed) * 3)]);
}

static void random_pipe(char *text, size_t cap, int n, uint64_t *seed)
{
    static const double rates[] = { 1, 2, 3, 5, 8 };
    size_t len = (size_t)snprintf(text, cap, "pipe(%d);\n", n);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "\ttask(\"s%d\", %g);\n", i,
                                rates[(int)(uniform(seed) * 5)]);
}

static int code_of(const int *pl, int n)
{
    int c = 0;
    for (int i = n - 1; i >= 0; i--)
        c = c * NODES + pl[i];
    return c;
}

/* The best exact throughput over the completions of pl's first k tasks. */
static double best_completion(const double *x, int *pl, int k, int n)
{
    if (k == n)
        return x[code_of(pl, n)];
    double best = 0;
    for (int j = 0; j < NODES; j++) {
        pl[k] = j;
        best = fmax(best, best_completion(x, pl, k + 1, n));
    }
    pl[k] = -1;
    return best;
}

/* Every prefix placement below pl's first k tasks: bound against the best
 * completion. Returns how many the sharing windows bounded lower. */
static int check_prefixes(placed *b, const skel_search_opts *o, const double *x, int *pl, int k,
                          int n, int c)
{
    diag err;
    diag_clear(&err);
    double bound, full;
    skel_search_opts f = *o;
    f.shared_windows = -1;
    ck_assert_msg(skel_search_bound_opts(b->model, b->dag, b->plat, pl, o, &bound, &err) == 0, "%s",
                  err.msg);
    ck_assert_msg(skel_search_bound_opts(b->model, b->dag, b->plat, pl, &f, &full, &err) == 0, "%s",
                  err.msg);
    double best = best_completion(x, pl, k, n);
    ck_assert_msg(bound >= best * (1 - 1e-9), "case %d, %d tasks placed: bound %.12g below %.12g", c,
                  k, bound, best);
    int lower = bound < full * (1 - 1e-9);
    for (int j = 0; k < n && j < NODES; j++) {
        pl[k] = j;
        lower += check_prefixes(b, o, x, pl, k + 1, n, c);
        pl[k] = -1;
    }
    return lower;
}

START_TEST(test_bound_brute_force)
{
    uint64_t seed = 9001 + (uint64_t)_i * 7919;
    int n = _i % 3 == 2 ? 6 : 5, pl[MAX_TASKS], all = 1;
    char skel[512], plat[2048];
    random_pipe(skel, sizeof skel, n, &seed);
    random_platform(plat, sizeof plat, &seed);
    for (int i = 0; i < n; i++)
        all *= NODES;
    placed b;
    placed_build(&b, skel, _i % 2 ? SKEL_STYLE_STREAM : SKEL_STYLE_PRODUCER, plat);
    ck_assert(b.plat->sharing == SKEL_SHARE_PS);
    diag err;
    diag_clear(&err);
    /* brute force: every placement solved, ranked */
    skel_search_opts bo = { 0 };
    bo.no_prune = bo.no_symmetry = 1;
    bo.top = all;
    skel_search_result *bf = skel_search(b.model, b.dag, b.plat, &bo, &err);
    ck_assert_msg(bf && bf->nranked == all, "%s", err.msg);
    double *x = calloc((size_t)all, sizeof *x);
    ck_assert(x);
    for (int r = 0; r < bf->nranked; r++)
        x[code_of(bf->ranked[r].placement, n)] = bf->ranked[r].throughput;
    skel_search_opts o = { 0 };
    o.window_max = n == 6 ? 6 : 4;      /* 729 states: Gauss-Seidel; 81: dense */
    o.shared_windows = 1;               /* in the proof too: the chains are small */
    for (int i = 0; i < n; i++)
        pl[i] = -1;
    int lower = check_prefixes(&b, &o, x, pl, 0, n, _i);
    /* the sharing windows are used: some prefix (hundreds of each case's
     * 364-1,093) bounded lower than by the full-speed windows alone */
    ck_assert_msg(lower > 0, "case %d: no prefix bounded lower by the sharing windows", _i);
    /* the proof: brute force's optimum, no more chains than without */
    o.top = 1;
    skel_search_result *r = skel_search(b.model, b.dag, b.plat, &o, &err);
    ck_assert_msg(r && r->optimal, "%s", err.msg);
    o.shared_windows = -1;
    skel_search_result *before = skel_search(b.model, b.dag, b.plat, &o, &err);
    ck_assert_msg(before && before->optimal, "%s", err.msg);
    double best = bf->ranked[0].throughput;
    ck_assert_msg(fabs(r->ranked[0].throughput - best) <= 1e-9 * best, "case %d: %.12g, brute %.12g",
                  _i, r->ranked[0].throughput, best);
    ck_assert_msg(r->evaluated <= before->evaluated, "case %d: %llu chains, %llu before", _i,
                  r->evaluated, before->evaluated);
    fprintf(stderr, "case %d (%d tasks): %d of the prefixes bounded lower; chains %llu (%llu before)\n",
            _i, n, lower, r->evaluated, before->evaluated);
    skel_search_result_free(before);
    skel_search_result_free(r);
    skel_search_result_free(bf);
    free(x);
    placed_free(&b);
}
END_TEST

static const char class_platform[] =
    "LocalLatency=0.0001\nDefaultLatency=0.01\nInput=local\nOutput=local\n"
    "NodeName=a[1-64] Speed=8\nNodeName=b[1-64] Speed=4\nNodeName=c[1-64] Speed=2\n"
    "NodeName=d[1-64] Speed=1\n";

START_TEST(test_bound_cuts_shared)
{
    const char *skel = "pipe(8);\n\ttask(\"s0\", 1.0);\n\ttask(\"s1\", 3.0);\n\ttask(\"s2\", 5.0);\n"
                       "\ttask(\"s3\", 2.0);\n\ttask(\"s4\", 4.0);\n\ttask(\"s5\", 1.0);\n"
                       "\ttask(\"s6\", 3.0);\n\ttask(\"s7\", 5.0);\n";
    placed b;
    placed_build(&b, skel, SKEL_STYLE_STREAM, class_platform);
    int pl[8] = { 0, 0, 1, 1, 1, 2, 2, 64 };
    const double optimum = 5.48355445;   /* test_search_prove's pipe(8) */
    diag err;
    diag_clear(&err);
    double bound, full;
    skel_search_opts o = { 0 };
    ck_assert_msg(skel_search_bound_opts(b.model, b.dag, b.plat, pl, &o, &bound, &err) == 0, "%s",
                  err.msg);
    o.shared_windows = -1;
    ck_assert_msg(skel_search_bound_opts(b.model, b.dag, b.plat, pl, &o, &full, &err) == 0, "%s",
                  err.msg);
    o.shared_windows = 0;
    o.candidates = pl;
    o.ncandidates = 1;
    o.top = 1;
    skel_search_result *r = skel_search(b.model, b.dag, b.plat, &o, &err);
    ck_assert_msg(r, "%s", err.msg);
    double x = r->ranked[0].throughput;
    fprintf(stderr, "pipe(8) 0 0 1 1 1 2 2 64: exact %.6f, full-speed windows %.6f, sharing %.6f\n",
            x, full, bound);
    ck_assert_msg(full > optimum && bound < optimum && bound >= x * (1 - 1e-9),
                  "exact %.9g, full %.9g, sharing %.9g", x, full, bound);
    skel_search_result_free(r);
    placed_free(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("search_psbound");
    TCase *tc = tcase_create("search_psbound");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_bound_brute_force, 0, getenv("SKELSCHED_QUICK") ? 6 : 12);
    tcase_add_test(tc, test_bound_cuts_shared);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
