/* test_search_prove: the exact branch and bound's proof at scale, as
 * bench/bench_scale's third table runs it: pipe(n) of tasks of rates
 * 1 + 7i mod 5, stream style, on 256 nodes in 4 classes (Speed 8, 4, 2,
 * 1), no budget, sub-pipeline windows of the default length (the tasks
 * less 2, within 4-7), with and without the windows that see sharing. The chains solved are counted, not timed: the count
 * does not depend on the machine, and a change to the proof's pruning
 * (bounds, windows, symmetry, the seeds' order) shows in it. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "skeleton/skeleton.h"

#include "placed.h"
#include "suite.h"

static const char class_platform[] =
    "LocalLatency=0.0001\nDefaultLatency=0.01\nInput=local\nOutput=local\n"
    "NodeName=a[1-64] Speed=8\nNodeName=b[1-64] Speed=4\nNodeName=c[1-64] Speed=2\n"
    "NodeName=d[1-64] Speed=1\n";

/* pipe(n) as bench_scale's skeleton_text(0, n) writes it. */
static void bench_pipe(char *text, size_t cap, int n)
{
    size_t len = (size_t)snprintf(text, cap, "pipe(%d);\n", n);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "\ttask(\"s%d\", %d.0);\n", i,
                                1 + (i * 7) % 5);
}

/* n tasks, opts.shared_windows, the chains the default windows' proof
 * solves, the optimum it proves. By default (0) these chains (729 and
 * 2,187 states) are too small for the windows that see processor sharing
 * (search_winps.c, WPS_CHAIN_MIN): 101 and 579 chains, as with the
 * full-speed windows only (bench_scale 2026-11-26 on main at bbdf3c9).
 * With them (1) 88 and 313: they cut placements with tasks sharing a node
 * that the full-speed windows kept; the optimum is the same. */
static const struct {
    int n, shared;
    unsigned long long chains;
    double best;
} proofs[] = {
    { 6, 0, 101, 5.650501 },
    { 7, 0, 579, 5.493768 },
    { 6, 1, 88, 5.650501 },
    { 7, 1, 313, 5.493768 },
};

START_TEST(test_proof_chains)
{
    char skel[512];
    bench_pipe(skel, sizeof skel, proofs[_i].n);
    placed b;
    placed_build(&b, skel, SKEL_STYLE_STREAM, class_platform);
    skel_search_opts o = { 0 };
    o.top = 1;
    o.shared_windows = proofs[_i].shared;
    diag err;
    diag_clear(&err);
    skel_search_result *r = skel_search(b.model, b.dag, b.plat, &o, &err);
    ck_assert_msg(r, "%s", err.msg);
    ck_assert_msg(r->optimal, "pipe(%d): not proven", proofs[_i].n);
    ck_assert_msg(r->evaluated == proofs[_i].chains, "pipe(%d): %llu chains solved, expected %llu",
                  proofs[_i].n, r->evaluated, proofs[_i].chains);
    double x = r->ranked[0].throughput;
    ck_assert_msg(fabs(x - proofs[_i].best) <= 1e-6 * proofs[_i].best, "pipe(%d): best %.9g",
                  proofs[_i].n, x);
    skel_search_result_free(r);
    placed_free(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("search_prove");
    TCase *tc = tcase_create("search_prove");
    tcase_set_timeout(tc, 120);     /* pipe(7): 0.5 s idle, ten times that under ASan */
    tcase_add_loop_test(tc, test_proof_chains, 0, (int)(sizeof proofs / sizeof proofs[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
