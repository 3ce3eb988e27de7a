/* test_approx: the throughput approximation (skel_approx) against the
 * exact chain (skel_search on one placement):
 *  - exact where the method is exact: one task, two tasks, in both styles;
 *  - within stated tolerances on fixed small pipelines, farms and deals;
 *  - the job's throughput, not one worker's, for a skeleton starting with
 *    a farm; re-evaluation from a warm start gives the same answer;
 *  - bad rates are errors with a message (par/choice/loop: test_approx_flow). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "approx_sim.h"
#include "skeleton/approx_test.h"
#include "suite.h"

/* NODES, plat_static (approx_sim.h): Benoit et al. 2004's semantics ...
 * and issue 16's processor sharing (the default). */
static const char plat_ps[] = NODES;
static const char *plat = plat_static;
static int indep_sharers;   /* the old coupling: a node's outside tasks independent */
static unsigned long deal_states;   /* skel_approx_opts.deal_states of both() */
static unsigned long sibling_states, whole_states;   /* skel_approx_opts' of both(),
                                                       both_placed() */
static unsigned long grow_states;   /* the same, of both_placed() */
static unsigned long cut_whole;     /* skel_approx_opts.cut_whole_states of both() */
static int count_tasks;             /* skel_approx_opts.count_tasks of both() */

/* Exact and approximate job throughputs of skel at placement pl. */
static void both(const char *skel, skel_style style, const int *pl, double *exact, double *approx)
{
    placed x;
    placed_build(&x, skel, style, plat);
    diag err;
    diag_clear(&err);
    skel_search_result *r = skel_search_one(x.model, x.dag, x.plat, pl, 0, &err);
    ck_assert_msg(r, "%s", err.msg);
    *exact = r->ranked[0].throughput;   /* the job's: items entering its first stage */
    skel_approx_opts ao = { 0 };
    ao.scv = x.model->scv;
    ao.independent_sharers = indep_sharers;
    ao.deal_states = deal_states;
    ao.sibling_states = sibling_states;
    ao.whole_states = whole_states;
    ao.cut_whole_states = cut_whole;
    ao.count_tasks = count_tasks;
    skel_approx *a = skel_approx_new(x.dag, &ao, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result ar;
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, pl, &ar, &err) == 0, "%s", err.msg);
    ck_assert(ar.converged);
    *approx = ar.throughput;
    skel_approx_free(a);
    skel_search_result_free(r);
    placed_free(&x);
}

static void within(const char *skel, skel_style style, const int *pl, double tol, int line)
{
    double x, y;
    both(skel, style, pl, &x, &y);
    ck_assert_msg(fabs(y / x - 1) <= tol, "line %d: approx %.9g, exact %.9g (%.3g%% > %.3g%%)",
                  line, y, x, 100 * fabs(y / x - 1), 100 * tol);
}
#define WITHIN(s, st, pl, tol) within((s), (st), (pl), (tol), __LINE__)

START_TEST(test_exact_small)
{
    static const int p0[] = { 1 }, p1[] = { 0, 2 }, p2[] = { 1, 1 };
    WITHIN("task(\"t\", 2.0);", SKEL_STYLE_STREAM, p0, 1e-9);
    WITHIN("task(\"t\", 2.0);", SKEL_STYLE_PRODUCER, p0, 1e-9);
    WITHIN("pipe(2); task(\"t\", 2.0); task(\"u\", 0.5);", SKEL_STYLE_STREAM, p1, 1e-9);
    WITHIN("pipe(2); task(\"t\", 2.0); task(\"u\", 0.5);", SKEL_STYLE_PRODUCER, p2, 1e-9);
    /* three tasks: every window grows to all three (grow_states) */
    static const int p3[] = { 0, 1, 2 };
    WITHIN("pipe(3); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3);", SKEL_STYLE_STREAM, p3,
           1e-9);
}
END_TEST

START_TEST(test_tolerance)
{
    static const int p3[] = { 0, 1, 2 }, p4[] = { 0, 1, 1, 2 }, pf[] = { 0, 1, 2, 2, 1 };
    WITHIN("pipe(3); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3);", SKEL_STYLE_STREAM, p3, 0.01);
    /* four tasks: one window of 81 states (grow_states), exact (4.1% off
     * with windows of three) */
    WITHIN("pipe(4); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3); task(\"w\", 2);",
           SKEL_STYLE_STREAM, p4, 1e-9);
    WITHIN("pipe(3); task(\"t\", 4); farm(3, \"w\", 1); task(\"v\", 6);", SKEL_STYLE_STREAM, pf,
           0.03);
    /* a deal whose producer, workers and consumer fit one window is solved
     * in one sub-chain of its reachable phases: exact */
    WITHIN("pipe(3); task(\"t\", 4); deal(3, \"w\", 1); task(\"v\", 6);", SKEL_STYLE_STREAM, pf,
           1e-9);
    /* a deal(4) between two tasks: 11,664 local combinations, a few
     * hundred reachable: one window, exact (it erred -10% to -30% when
     * windows grew by the product of local states) */
    static const int pd[] = { 0, 1, 2, 1, 2, 0 };
    WITHIN("pipe(3); task(\"t\", 2); deal(4, \"w\", 1); task(\"v\", 3);", SKEL_STYLE_STREAM, pd,
           1e-9);
}
END_TEST

/* A file of ../shared (or $SHARED_DIR) as a string (freed by the caller). */
static char *shared_text(const char *rel)
{
    const char *dir = getenv("SHARED_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "../shared", rel);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "%s: cannot open", path);
    char *buf = calloc(1, 65536);
    ck_assert(buf);
    size_t n = fread(buf, 1, 65535, f);
    ck_assert(n > 0);
    fclose(f);
    return buf;
}

/* Counted deals (docs/approximation.md): an xdeal of sub-pipelines too
 * large for one window with its producer and consumer gets a window per
 * sub-pipeline, coupled by the count of items in flight. Where the whole
 * deal fits one window it is exact, its moves sharing one sub-chain. */
START_TEST(test_counted)
{
    static const int pl[] = { 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2 };
    const char *x2 = "pipe(3); task(\"t\", 2); xdeal(2); pipe(2); task(\"a\", 1); task(\"b\", 2); "
                     "pipe(2); task(\"a\", 1); task(\"b\", 2); task(\"v\", 3);";
    WITHIN(x2, SKEL_STYLE_STREAM, pl, 1e-9);      /* one window */
    deal_states = 50;                             /* counted */
    WITHIN(x2, SKEL_STYLE_STREAM, pl, 0.03);      /* measured +2.4% */
    deal_states = 0;
    if (getenv("SKELSCHED_QUICK"))
        return;
    /* too large for one window: refused after 78 s before, +3.2% now */
    WITHIN("pipe(3); task(\"t\", 2); xdeal(3); pipe(2); task(\"a\", 1); task(\"b\", 2); "
           "pipe(2); task(\"a\", 1); task(\"b\", 2); pipe(2); task(\"a\", 1); task(\"b\", 2); "
           "task(\"v\", 3);", SKEL_STYLE_STREAM, pl, 0.04);
    /* model3.des (2,219,888 states: no exact chain here): its counted
     * members' windows hold 17,624 states, refused at 16,384 before;
     * answered now (docs/approximation.md: 0.52494 against the exact
     * 0.5250) */
    static const int p3[] = { 0, 1, 2, 1, 2, 0, 1, 2, 1, 2, 0, 1, 2, 0 };   /* 14 tasks */
    char *m3 = shared_text("corpus/wflow2pepa/model3.des");
    placed x;
    placed_build(&x, m3, SKEL_STYLE_PRODUCER, plat_static);
    free(m3);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result ar;
    ck_assert_int_eq(skel_tree_ntasks(x.tree), 14);
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, p3, &ar, &err) == 0, "%s", err.msg);
    ck_assert(ar.converged && ar.throughput > 0);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* A deal of single tasks wider than deal_states whole is counted
 * (docs/approximation.md "Counted deals"); the windows cut it before,
 * each member waiting for the next in an order the round robin never
 * makes: task, deal(10), task -78.1% (static sharing here; 81,880 states,
 * above the whole window's 16,384), deal(16) refused below the
 * one-item-at-a-time bound (it crashed before try_add_set kept the
 * earlier windows' transitions). */
START_TEST(test_wide_deal)
{
    static const int p10[] = { 0, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 0 };
    const char *d10 = "pipe(3); task(\"t\", 2); deal(10, \"w\", 1); task(\"v\", 3);";
    double x, y;
    count_tasks = INT_MAX;                        /* the windows: cut */
    both(d10, SKEL_STYLE_PRODUCER, p10, &x, &y);
    ck_assert_msg(fabs(y / x - 1) > 0.10, "cut: %.6g against %.6g", y, x);
    count_tasks = 0;
    WITHIN(d10, SKEL_STYLE_PRODUCER, p10, 0.03);  /* counted: measured -2.40% */
    /* deal(16): no exact chain here; the simulation's 95% interval plus 4%
     * (measured -2.54% against 10 x 200,000 events) */
    int p16[18];
    for (int i = 0; i < 18; i++)
        p16[i] = i == 0 || i == 17 ? 0 : 2 - i % 2;
    const char *d16 = "pipe(3); task(\"t\", 2); deal(16, \"w\", 1); task(\"v\", 3);";
    skel_approx_result ar = approximated(d16, p16);
    double half, sim = simulated(d16, p16, getenv("SKELSCHED_QUICK") ? 50000 : 200000, &half);
    ck_assert_msg(fabs(ar.throughput - sim) <= half + 0.04 * sim,
                  "deal(16): approx %.6g, simulated %.6g +- %.3g", ar.throughput, sim, half);
}
END_TEST

/* Deals the windows cut whatever their size (docs/approximation.md): a
 * deal dealing on to another deal has no task closing its round robin, no
 * window holds it whole and counting does not apply; the windows' fixed
 * point then erred or collapsed. Such a skeleton is one window of the
 * whole model when it has at most 250,000 reachable states: exact. */
START_TEST(test_deal_of_deals)
{
    static const int pl[] = { 0, 1, 2, 1, 2, 1, 0, 2, 1, 0, 2 };
    /* -11.5% before (windows of 2,500 reachable states, converged) */
    WITHIN("pipe(4); task(\"a\", 1); deal(3, \"w\", 2); deal(2, \"x\", 1); task(\"z\", 1);",
           SKEL_STYLE_STREAM, pl, 1e-9);
    /* a deal cut by a caller's small deal_states: its fixed point fell to
     * 0.19 items/s, below the bound, refused; then the whole model too */
    static const int pd[] = { 0, 1, 2, 1, 2, 0 };
    deal_states = 200;
    WITHIN("pipe(3); task(\"a\", 3); deal(4, \"w\", 4); task(\"z\", 5);", SKEL_STYLE_PRODUCER,
           pd, 1e-9);
    deal_states = 0;
    if (getenv("SKELSCHED_QUICK"))
        return;
    /* bench_approx's nested-44, an xdeal(3) of sub-pipelines dealing to a
     * deal(2), processor sharing, 71,442 states: -24.6% before (200 sweeps,
     * not converged) */
    static const int p44[] = { 3, 4, 3, 1, 3, 4, 6, 0, 1 };
    plat = "LocalLatency=0.0127308 DefaultLatency=0.242897 Input=h0 Output=h3\n"
           "NodeName=h0 Speed=7\nNodeName=h1 Speed=6\nNodeName=h2 Speed=4\n"
           "NodeName=h3 Speed=5\nNodeName=h4 Speed=7\nNodeName=h5 Speed=4\n"
           "NodeName=h6 Speed=7\n"
           "Link=h0,h4 Latency=0.230827 Bandwidth=1e+08\n"
           "Link=h0,h5 Latency=0.0124656 Bandwidth=1e+08\n"
           "Link=h0,h6 Latency=0.0293317 Bandwidth=1e+06\n"
           "Link=h1,h2 Latency=0.0307266 Bandwidth=1e+08\n"
           "Link=h1,h6 Latency=0.036456 Bandwidth=1e+08\n"
           "Link=h2,h4 Latency=0.00930138 Bandwidth=1e+08\n"
           "Link=h2,h5 Latency=0.00336865 Bandwidth=1e+08\n"
           "Link=h3,h4 Latency=0.00626644 Bandwidth=1e+08\n"
           "Link=h4,h5 Latency=0.0819819 Bandwidth=1e+08\n";
    WITHIN("pipe(3); task(\"t\", 3.03); xdeal(3); pipe(2); task(\"t\", 0.641); "
           "task(\"t\", 0.805); pipe(2); task(\"t\", 9.96, data=1e5); task(\"t\", 5.29); "
           "pipe(2); task(\"t\", 1.71, data=1e5); task(\"t\", 0.889, data=1e5); "
           "deal(2, \"w\", 2.84);", SKEL_STYLE_STREAM, p44, 1e-9);
    plat = plat_static;
}
END_TEST

/* Deals of deals by the decomposition alone (cut_whole_states 1: the
 * whole model is not tried as one window): windows grown by whole round
 * robins (a task's sources, its destinations; approx_layer.c), coupled by
 * delays, not the exact chain. With windows grown partner by partner
 * (before) they were -11.5%, -24.6% (unconverged) and refused. */
START_TEST(test_deal_layers)
{
    static const int pl[] = { 0, 1, 2, 1, 2, 1, 0, 2, 1, 0, 2 };
    cut_whole = 1;
    /* its seven tasks fit one window of blocks: exact */
    WITHIN("pipe(4); task(\"a\", 1); deal(3, \"w\", 2); deal(2, \"x\", 1); task(\"z\", 1);",
           SKEL_STYLE_STREAM, pl, 1e-9);
    if (getenv("SKELSCHED_QUICK")) {
        cut_whole = 0;
        return;
    }
    /* model4.des: windows t0-t5 (the first deal's producer, members and
     * their destinations) and t4-t10: 0.16% (refused before) */
    char *m4 = shared_text("corpus/wflow2pepa/model4.des");
    WITHIN(m4, SKEL_STYLE_PRODUCER, pl, 0.005);
    free(m4);
    cut_whole = 0;
}
END_TEST

/* Yaikhom et al.'s model4.des (task, deal(3), deal(2), deal(4), task;
 * 216,720 states): refused before (the fixed point at 4% of the bound),
 * exact now. A test of its own: its chain is solved twice (seconds). */
START_TEST(test_model4)
{
    static const int pl[] = { 0, 1, 2, 1, 2, 1, 0, 2, 1, 0, 2 };
    if (getenv("SKELSCHED_QUICK"))
        return;
    char *m4 = shared_text("corpus/wflow2pepa/model4.des");
    WITHIN(m4, SKEL_STYLE_PRODUCER, pl, 1e-9);
    free(m4);
}
END_TEST

/* A pipeline of deals, Yaikhom et al.'s model1.des (task, deal(3), task,
 * deal(2), task; 7,560 states), on two random platforms of bench_approx
 * part (a) (processor sharing): each deal's windows hold its round robin
 * whole but see the other deal as independent delays: -6.10% on the
 * whole run's (the max of its corpus row, main at 0d3897b), +5.01% on
 * APPROX_ONLY=corpus's, by the windows alone (whole_states 1); -4.04% and
 * +0.63% since a window holding a deal's consumer alone takes the deal's
 * members whole or not at all (approx_window.c holds_block). A
 * skeleton with a deal within AX_DEAL_WHOLE (16,384) reachable states is
 * one window now: exact. With links holding two items the whole model
 * passes that bound and the workspace, relinked, falls back to its
 * windows (it failed before answering otherwise), without exploring the
 * whole model within that bound a second time (0.462476543972 items/s
 * either way). */
START_TEST(test_deal_pipeline)
{
    static const char p0[] =
        "LocalLatency=0.0481635 DefaultLatency=0.382202 Input=h0 Output=h1\n"
        "NodeName=h0 Speed=6\nNodeName=h1 Speed=2\n"
        "Link=h0,h1 Latency=0.00235107 Bandwidth=1e+08\n";
    static const int pl0[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
    static const char p1[] =
        "LocalLatency=0.0017386 DefaultLatency=0.0457292 Input=h0 Output=h0\n"
        "NodeName=h0 Speed=6\nNodeName=h1 Speed=1\n";
    static const char p1_buf[] =
        "LocalLatency=0.0017386 DefaultLatency=0.0457292 Input=h0 Output=h0 DefaultBuffer=2\n"
        "NodeName=h0 Speed=6\nNodeName=h1 Speed=1\n";
    static const int pl[] = { 1, 1, 0, 0, 1, 0, 0, 1 };
    char *m1 = shared_text("corpus/wflow2pepa/model1.des");
    double x, y;
    plat = p0;
    WITHIN(m1, SKEL_STYLE_PRODUCER, pl0, 1e-9);
    whole_states = 1;   /* the windows alone: -6.10% and +5.01% while the second
                           deal's windows took the first's members one by one */
    both(m1, SKEL_STYLE_PRODUCER, pl0, &x, &y);
    ck_assert_msg(fabs(y / x - 1) < 0.045, "windows alone: %.3g%%", 100 * (y / x - 1));
    whole_states = 0;
    plat = p1;
    WITHIN(m1, SKEL_STYLE_PRODUCER, pl, 1e-9);
    whole_states = 1;
    both(m1, SKEL_STYLE_PRODUCER, pl, &x, &y);
    ck_assert_msg(fabs(y / x - 1) < 0.01, "windows alone: %.3g%%", 100 * (y / x - 1));
    whole_states = 0;
    placed b;                              /* relinked past the bound: windows */
    placed_build(&b, m1, SKEL_STYLE_PRODUCER, p1_buf);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(b.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result r;
    ck_assert_msg(skel_approx_place(a, b.model, b.plat, pl, &r, &err) == 0, "%s", err.msg);
    /* its chain is beyond 4 M states: buffers do not slow the rendezvous' */
    ck_assert_msg(r.converged && r.throughput > 0.99 * x, "%.9g against %.9g", r.throughput, x);
    /* the windows answered: the whole window, past AX_DEAL_WHOLE with the
     * buffers, was not built (relink does not explore it twice): explored
     * at skel_approx_new (built) and at relink (failed), not again for
     * relink's windowed fallback (3 when it was) */
    ck_assert(!r.whole);
    ck_assert_msg(skel_approx_whole_builds(a) == 2, "%lu whole-window builds",
                  skel_approx_whole_builds(a));
    skel_approx_free(a);
    placed_free(&b);
    plat = plat_static;
    free(m1);
}
END_TEST

/* The farm-first skeleton of issue 15: the job's throughput is the sum of
 * the workers', well above one worker's. */
/* Processor sharing: two tasks on one node, alone or as the pair of a
 * window, are shared exactly; a task on the node outside a window is
 * shared through its measured probability of computing. */
START_TEST(test_ps)
{
    static const int q1[] = { 1, 1 }, q2[] = { 0, 0, 1 }, q3[] = { 1, 2, 1 }, q4[] = { 1, 1, 2, 2 };
    static const int q5[] = { 1, 1, 1 };
    plat = plat_ps;
    WITHIN("pipe(2); task(\"t\", 2.0); task(\"u\", 0.5);", SKEL_STYLE_STREAM, q1, 1e-9);
    WITHIN("pipe(2); task(\"t\", 2.0); task(\"u\", 0.5);", SKEL_STYLE_PRODUCER, q1, 1e-9);
    WITHIN("pipe(3); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3);", SKEL_STYLE_PRODUCER, q2,
           1e-9);
    WITHIN("pipe(3); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3);", SKEL_STYLE_STREAM, q3,
           1e-9);   /* three tasks, one window: exact (0.92% with pairs) */
    WITHIN("pipe(4); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3); task(\"w\", 2);",
           SKEL_STYLE_STREAM, q4, 1e-9);   /* one window of four (0.15% with three) */
    /* three on one node: in one window of three tasks, exact (-2.3% with
     * windows of pairs, the outer two sharing with the middle one by its
     * mean) */
    WITHIN("pipe(3); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3);", SKEL_STYLE_STREAM, q5,
           1e-9);
    /* a deal(4) between two tasks, workers sharing nodes with each other
     * and the ends: its eight windows share one sub-chain of every task
     * (each tasks' measures at its own position in it), exact */
    static const int q6[] = { 0, 1, 1, 2, 2, 0 };
    WITHIN("pipe(3); task(\"t\", 2); deal(4, \"w\", 1); task(\"v\", 3);", SKEL_STYLE_STREAM, q6,
           1e-9);
    plat = plat_static;
}
END_TEST

/* Five pipeline tasks on one node: a window of four (whole_states and
 * sibling_states 1: the default makes it one window, exact) leaves one sharer
 * outside, computing with P(it computes | the window's task computes)
 * measured in the windows holding both, not with its marginal
 * probability as if independent (measured: 1.85% against 2.37%). */
START_TEST(test_ps_pairs)
{
    static const int q[] = { 1, 1, 1, 1, 1 };
    static const char s[] = "pipe(5); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3); "
                            "task(\"w\", 2); task(\"x\", 4);";
    double x, pairs, indep;
    plat = plat_ps;
    sibling_states = whole_states = 1;
    both(s, SKEL_STYLE_STREAM, q, &x, &pairs);
    indep_sharers = 1;
    both(s, SKEL_STYLE_STREAM, q, &x, &indep);
    indep_sharers = 0;
    sibling_states = whole_states = 0;
    plat = plat_static;
    ck_assert_msg(fabs(pairs / x - 1) <= 0.02 && fabs(pairs / x - 1) < fabs(indep / x - 1),
                  "pairs %.4g%%, independent %.4g%%", 100 * (pairs / x - 1), 100 * (indep / x - 1));
}
END_TEST

/* Erlang and hyperexponential work (task scv=): the phases are in the
 * windows, exact for two tasks. */
static void scv_cases(const char *c)
{
    static const int q1[] = { 0, 2 }, q2[] = { 1, 1 }, q3[] = { 0, 0, 1 }, q4[] = { 0, 1, 2 };
    char s2[160], s3[200], s1[80];
    snprintf(s1, sizeof s1, "task(\"t\", 2.0, scv=%s);", c);
    snprintf(s2, sizeof s2, "pipe(2); task(\"t\", 2.0, scv=%s); task(\"u\", 0.5, scv=%s);", c, c);
    snprintf(s3, sizeof s3, "pipe(3); task(\"t\", 2, scv=%s); task(\"u\", 1, scv=%s); "
             "task(\"v\", 3, scv=%s);", c, c, c);
    WITHIN(s1, SKEL_STYLE_PRODUCER, q1, 1e-9);
    WITHIN(s2, SKEL_STYLE_STREAM, q1, 1e-9);
    WITHIN(s2, SKEL_STYLE_PRODUCER, q2, 1e-9);
    WITHIN(s3, SKEL_STYLE_STREAM, q3, 0.03);
    WITHIN(s3, SKEL_STYLE_STREAM, q4, 0.03);
}

START_TEST(test_scv)
{
    scv_cases("0.25");
    scv_cases("4");
    plat = plat_ps;
    scv_cases("0.25");
    scv_cases("4");
    plat = plat_static;
}
END_TEST

/* Exact (the placement's own generated model, link components included,
 * solved directly) and approximate job throughputs of skel at pl on the
 * platform text pt. */
static void both_placed(const char *skel, skel_style style, const char *pt, const int *pl,
                        double *exact, double *approx)
{
    placed x;
    placed_build(&x, skel, style, pt);
    diag err;
    diag_clear(&err);
    skel_model *m = skel_model_new_placed(x.tree, x.dag, x.plat, pl, &err);
    ck_assert_msg(m, "%s", err.msg);
    double *thr = placed_solve_all(m->pepa, 1, NULL);
    *exact = skel_model_throughput(m, thr);
    free(thr);
    skel_approx_opts ao = { 0 };
    ao.scv = m->scv;
    ao.sibling_states = sibling_states;
    ao.grow_states = grow_states;
    ao.whole_states = whole_states;
    ao.cut_whole_states = cut_whole;
    skel_approx *a = skel_approx_new(x.dag, &ao, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result ar;
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, pl, &ar, &err) == 0, "%s", err.msg);
    ck_assert(ar.converged);
    *approx = ar.throughput;
    skel_approx_free(a);
    skel_model_free(m);
    placed_free(&x);
}

static void within_links(const char *skel, skel_style style, const char *pt, const int *pl,
                         double tol, int line)
{
    double x, y;
    both_placed(skel, style, pt, pl, &x, &y);
    ck_assert_msg(fabs(y / x - 1) <= tol, "line %d: approx %.12g, exact %.12g (%.3g%% > %.3g%%)",
                  line, y, x, 100 * fabs(y / x - 1), 100 * tol);
}
#define WITHIN_LINKS(s, st, pt, pl, tol) within_links((s), (st), (pt), (pl), (tol), __LINE__)

/* Link buffers and link phases (docs/platform.md, "Links"): the link is a
 * component of the window holding its two tasks (or its task and the
 * stream's outside world), exact where the window holds the whole model. */
static void link_cases(const char *share)
{
    static const int q1[] = { 0 }, q2[] = { 0, 2 }, q3[] = { 1, 1 }, q4[] = { 0, 1, 2 };
    static const char *const kinds[] = {
        "DefaultBuffer=2\n",                                   /* buffer, exponential */
        "DefaultBuffer=1 LinkSCV=0.25\n",                      /* buffer, Erlang-4 items */
        "DefaultBuffer=3 LinkSCV=4\n",                         /* buffer, H2 items */
        "LinkSCV=0.25\n",                                      /* rendezvous, Erlang-4 */
        "LinkSCV=4\n",                                         /* rendezvous, H2 */
    };
    const char *two = "pipe(2); task(\"t\", 2.0); task(\"u\", 0.5);";
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        char pt[512];
        snprintf(pt, sizeof pt, "%s%s%s", share, kinds[k], NODES);
        WITHIN_LINKS("task(\"t\", 2.0);", SKEL_STYLE_STREAM, pt, q1, 1e-9);
        WITHIN_LINKS(two, SKEL_STYLE_STREAM, pt, q2, 1e-9);
        WITHIN_LINKS(two, SKEL_STYLE_PRODUCER, pt, q2, 1e-9);
        WITHIN_LINKS(two, SKEL_STYLE_STREAM, pt, q3, 1e-9);
        /* work phases and link phases together */
        WITHIN_LINKS("pipe(2); task(\"t\", 2.0, scv=0.5); task(\"u\", 0.5, scv=2);",
                     SKEL_STYLE_STREAM, pt, q2, 1e-9);
    }
    /* per-link kinds: each move its own (Link= SCV= Buffer=) */
    char pt[512];
    snprintf(pt, sizeof pt, "%s%s", share,
             "LocalLatency=0.01 DefaultLatency=0.2 Input=a Output=c\n"
             "NodeName=a Speed=1\nNodeName=b Speed=3\nNodeName=c Speed=5\n"
             "Link=a,b Latency=0.05 Buffer=2 SCV=0.5\nLink=b,c Latency=0.5 SCV=3\n");
    WITHIN_LINKS("pipe(3); task(\"t\", 2); task(\"u\", 1); task(\"v\", 3);", SKEL_STYLE_PRODUCER,
                 pt, q4, 1e-9);     /* one window of all three (AX_LINK_GROW): exact */
}

START_TEST(test_links)
{
    link_cases("Sharing=static\n");
    link_cases("");
    /* bench_approx part (d)'s l-pipe-16: a slow one-item H2 buffer carries
     * two of seven moves, three tasks on each of two nodes. Its windows
     * held one of the two links (+12.2% with four tasks, +8.7% with six
     * whose links stayed within 1,200 states); six tasks with both links,
     * 11,664 states (AX_LINK_MULT), +0.1% */
    static const int p16[] = { 1, 1, 2, 0, 1, 2, 2 };
    WITHIN_LINKS("pipe(7); task(\"t\", 8.91); task(\"t\", 0.808); task(\"t\", 1.02); "
                 "task(\"t\", 0.889); task(\"t\", 1.62); task(\"t\", 4.22); "
                 "task(\"t\", 2.91, data=1e5);", SKEL_STYLE_STREAM,
                 "LocalLatency=0.00360445 DefaultLatency=0.068078 Input=h0 Output=h0 "
                 "DefaultBuffer=0\nNodeName=h0 Speed=8\nNodeName=h1 Speed=5\nNodeName=h2 Speed=7\n"
                 "Link=h0,h2 Latency=0.00331224 Bandwidth=1e+08\n"
                 "Link=h1,h2 Latency=0.787931 Bandwidth=1e+08 Buffer=1 SCV=2.73\n",
                 p16, 0.002);
}
END_TEST

/* Deals with links (bench_approx part (d)'s worst cases). A deal whose
 * producer, workers and consumer with their links' phases and buffers do
 * not fit one window gets those links simplified until they do, rather
 * than be cut (deal(4) with a buffered Erlang-4 link from one worker:
 * 25.9% low cut, exact simplified, the phases of a one-item buffer barely
 * matter); and a window that cannot hold a deal whole holds none of its
 * workers (task, task, deal(3), task, task: its first move's window held
 * the producer and the workers but not the consumer, 19.1% low). */
START_TEST(test_link_deals)
{
    static const int p6[] = { 2, 1, 5, 1, 4, 4 }, p27[] = { 6, 1, 6, 4, 0, 4, 2 };
    WITHIN_LINKS("pipe(3); task(\"t\", 0.711, data=1e5); deal(4, \"w\", 1.78); task(\"t\", 0.367);",
                 SKEL_STYLE_STREAM,
                 "LocalLatency=0.00302442 DefaultLatency=0.0303673 Input=h0 Output=h2\n"
                 "NodeName=h0 Speed=4\nNodeName=h1 Speed=2\nNodeName=h2 Speed=3\n"
                 "NodeName=h3 Speed=7\nNodeName=h4 Speed=5\nNodeName=h5 Speed=2\n"
                 "Link=h1,h4 Latency=0.124576 Bandwidth=1e+08\n"
                 "Link=h2,h4 Latency=0.115898 Bandwidth=1e+06\n"
                 "Link=h4,h5 Latency=0.0214547 Bandwidth=1e+08 Buffer=1 SCV=0.287\n",
                 p6, 1e-4);
    WITHIN_LINKS("pipe(5); task(\"t\", 3.63, data=1e5); task(\"t\", 2.33); deal(3, \"w\", 0.508); "
                 "task(\"t\", 0.814); task(\"t\", 8.92);", SKEL_STYLE_PRODUCER,
                 "LocalLatency=0.0165708 DefaultLatency=0.145718 Input=h0 Output=h3 LinkSCV=0.431\n"
                 "NodeName=h0 Speed=8\nNodeName=h1 Speed=2\nNodeName=h2 Speed=7\n"
                 "NodeName=h3 Speed=4\nNodeName=h4 Speed=7\nNodeName=h5 Speed=7\n"
                 "NodeName=h6 Speed=2\n"
                 "Link=h0,h1 Latency=0.0291991 Bandwidth=1e+06\n"
                 "Link=h4,h6 Latency=0.632908 Bandwidth=1e+06 Buffer=3 SCV=0.387\n",
                 p27, 0.02);
    /* a deal(2) whose 3-item H2 buffer and Erlang-2 buffer make its whole
     * window 14,592 states: within deal_states (2,500) one buffer cut and
     * both links made exponential, -4.04%; within AX_DEAL_LINKS, exact */
    static const int p9[] = { 3, 4, 2, 2 };
    WITHIN_LINKS("pipe(3); task(\"t\", 0.509); deal(2, \"w\", 0.468); task(\"t\", 1.6, data=1e5);",
                 SKEL_STYLE_PRODUCER,
                 "LocalLatency=0.016031 DefaultLatency=0.0222391 Input=h0 Output=h4 LinkSCV=1.71\n"
                 "NodeName=h0 Speed=7\nNodeName=h1 Speed=7\nNodeName=h2 Speed=5\n"
                 "NodeName=h3 Speed=5\nNodeName=h4 Speed=6\nNodeName=h5 Speed=3\n"
                 "Link=h0,h1 Latency=0.0160237 Bandwidth=1e+06\n"
                 "Link=h0,h3 Latency=0.021283 Bandwidth=1e+06 Buffer=1 SCV=0.34\n"
                 "Link=h1,h2 Latency=0.00473173 Bandwidth=1e+08 Buffer=4 SCV=1.21\n"
                 "Link=h2,h3 Latency=0.00208604 Bandwidth=1e+06 Buffer=3 SCV=2.78\n"
                 "Link=h2,h4 Latency=0.142467 Bandwidth=1e+08 Buffer=2 SCV=0.716\n"
                 "Link=h3,h5 Latency=0.00696345 Bandwidth=1e+06\n"
                 "Link=h4,h5 Latency=0.0025706 Bandwidth=1e+08 Buffer=4 SCV=3.71\n",
                 p9, 1e-6);
}
END_TEST

START_TEST(test_farm_first)
{
    static const int pl[] = { 0, 1, 2, 1 };
    double x, y;
    both("pipe(2); farm(3, \"w\", 1.0); task(\"sink\", 10.0);", SKEL_STYLE_STREAM, pl, &x, &y);
    ck_assert_msg(fabs(y / x - 1) <= 0.03, "approx %.9g, exact %.9g", y, x);
}
END_TEST

START_TEST(test_warm_start)
{
    placed x;
    placed_build(&x, "pipe(5); task(\"a\", 1); task(\"b\", 2); task(\"c\", 1); task(\"d\", 3);"
                     " task(\"e\", 1);", SKEL_STYLE_STREAM, plat);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    static const int p1[] = { 0, 1, 2, 1, 0 }, p2[] = { 2, 2, 1, 0, 0 };
    skel_approx_result r1, r2, r3;
    ck_assert_int_eq(skel_approx_place(a, x.model, x.plat, p1, &r1, &err), 0);
    ck_assert_int_eq(skel_approx_place(a, x.model, x.plat, p2, &r2, &err), 0);
    ck_assert_int_eq(skel_approx_place(a, x.model, x.plat, p1, &r3, &err), 0);
    ck_assert(r1.converged && r2.converged && r3.converged);
    ck_assert_msg(fabs(r3.throughput / r1.throughput - 1) < 1e-5, "%.12g %.12g", r1.throughput,
                  r3.throughput);
    ck_assert(fabs(r2.throughput / r1.throughput - 1) > 1e-3);
    const double *u = skel_approx_task_util(a);
    for (int i = 0; i < 5; i++)
        ck_assert(u[i] > 0 && u[i] < 1);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* Approximation errors of skel at pl on the platform text pt without (the
 * method before, and no window of the whole model) and with a farm member's
 * siblings in its windows. */
static void sibling_errs(const char *skel, skel_style st, const char *pt, const int *pl,
                         double *before, double *after)
{
    double x, y;
    sibling_states = whole_states = 1;
    both_placed(skel, st, pt, pl, &x, &y);
    *before = fabs(y / x - 1);
    sibling_states = whole_states = 0;
    both_placed(skel, st, pt, pl, &x, &y);
    *after = fabs(y / x - 1);
}

/* Farms of workers of unequal speeds: a member's window holds its siblings
 * after its neighbours (within 729 states), so that the producer's choice
 * among the ready workers is exact there. Before, every sibling was one
 * summed delay, the same whatever the window's state, and such farms were
 * over-estimated: bench_approx's farm-83 (processor sharing, three workers
 * on the consumer's node) by 11.2%, now one window of the whole model;
 * farm(5) on speeds 1, 2, 4, 8, 8 (static), where one sibling stays a
 * delay, by 6.3%, now 5.0%. */
START_TEST(test_siblings)
{
    static const char p83[] =
        "LocalLatency=0.00278574 DefaultLatency=0.37475 Input=h0 Output=h0\n"
        "NodeName=h0 Speed=7\nNodeName=h1 Speed=3\nNodeName=h2 Speed=3\n"
        "Link=h0,h1 Latency=0.0021122 Bandwidth=1e+06\n"
        "Link=h1,h2 Latency=0.319038 Bandwidth=1e+08\n";
    static const char s83[] = "pipe(4); task(\"t\", 1.13); farm(3, \"w\", 0.541); "
                              "task(\"t\", 5.62, data=1e5); task(\"t\", 0.56, data=1e5);";
    static const int q83[] = { 1, 1, 0, 0, 0, 0 };
    static const char p5[] = "Sharing=static\nLocalLatency=0.01 DefaultLatency=0.05 "
                             "Input=a Output=a\nNodeName=a Speed=8\nNodeName=b Speed=1\n"
                             "NodeName=c Speed=2\nNodeName=d Speed=4\nNodeName=e Speed=8\n";
    static const char s5[] = "pipe(3); task(\"p\", 0.5); farm(5, \"w\", 1); task(\"c\", 0.4);";
    static const int q5[] = { 0, 1, 2, 3, 4, 4, 0 };
    double before, after;
    sibling_errs(s83, SKEL_STYLE_STREAM, p83, q83, &before, &after);
    ck_assert_msg(before > 0.10 && after < 1e-9, "farm-83: %.3g%% -> %.3g%%", 100 * before,
                  100 * after);
    sibling_errs(s5, SKEL_STYLE_STREAM, p5, q5, &before, &after);
    ck_assert_msg(before > 0.06 && after < 0.051, "farm(5): %.3g%% -> %.3g%%", 100 * before,
                  100 * after);
}
END_TEST

/* Pipelines with many tasks on one node (processor sharing), from
 * bench_approx part (a) (APPROX_DUMP's pipe-5 and pipe-84). Before (windows
 * of four tasks, whole_states and sibling_states 1): pipe-5, six tasks of
 * which five on h1, 7.0% low; pipe-84, eight tasks of which five in a row
 * on h4, 6.8% low. Now pipe-5's 324 local combinations are one window,
 * exact, also with the search's windows of three tasks (grow_states 27);
 * pipe-84 (2,916) has windows of six tasks, within 1%. */
START_TEST(test_whole)
{
    static const char p5[] = "LocalLatency=0.00124385 DefaultLatency=0.0163129 Input=h0 "
                             "Output=h1\nNodeName=h0 Speed=4\nNodeName=h1 Speed=3\n"
                             "Link=h0,h1 Latency=0.430088 Bandwidth=1e+06\n";
    static const char s5[] = "pipe(6); task(\"t\", 4.42); task(\"t\", 6.61); "
                             "task(\"t\", 5.58, data=1e5); task(\"t\", 1.41, data=1e5); "
                             "task(\"t\", 1.86); task(\"t\", 3.9);";
    static const int q5[] = { 1, 1, 1, 1, 1, 0 };
    static const char p84[] =
        "LocalLatency=0.0328228 DefaultLatency=0.102405 Input=h0 Output=h0\n"
        "NodeName=h0 Speed=2\nNodeName=h1 Speed=5\nNodeName=h2 Speed=1\n"
        "NodeName=h3 Speed=7\nNodeName=h4 Speed=8\n"
        "Link=h0,h1 Latency=0.0117847 Bandwidth=1e+06\n"
        "Link=h0,h3 Latency=0.0189311 Bandwidth=1e+08\n"
        "Link=h0,h4 Latency=0.412012 Bandwidth=1e+06\n"
        "Link=h2,h4 Latency=0.00637051 Bandwidth=1e+06\n";
    static const char s84[] = "pipe(8); task(\"t\", 0.547); task(\"t\", 3.42, data=1e5); "
                              "task(\"t\", 6.36, data=1e5); task(\"t\", 0.349, data=1e5); "
                              "task(\"t\", 0.313); task(\"t\", 5.51); task(\"t\", 0.786); "
                              "task(\"t\", 2);";
    static const int q84[] = { 4, 2, 4, 4, 4, 4, 4, 0 };
    double x, y[4];
    sibling_states = whole_states = 1;           /* before */
    both_placed(s5, SKEL_STYLE_PRODUCER, p5, q5, &x, &y[0]);
    both_placed(s84, SKEL_STYLE_PRODUCER, p84, q84, &x, &y[1]);
    sibling_states = whole_states = 0;           /* now */
    both_placed(s84, SKEL_STYLE_PRODUCER, p84, q84, &x, &y[2]);
    double err84[2] = { fabs(y[1] / x - 1), fabs(y[2] / x - 1) };
    ck_assert_msg(err84[0] > 0.06 && err84[1] < 0.01, "pipe-84: %.3g%% -> %.3g%%",
                  100 * err84[0], 100 * err84[1]);
    both_placed(s5, SKEL_STYLE_PRODUCER, p5, q5, &x, &y[2]);
    grow_states = 27;                            /* the search's windows */
    both_placed(s5, SKEL_STYLE_PRODUCER, p5, q5, &x, &y[3]);
    grow_states = 0;
    ck_assert_msg(fabs(y[0] / x - 1) > 0.06 && fabs(y[2] / x - 1) < 1e-9 &&
                  fabs(y[3] / x - 1) < 1e-9, "pipe-5: %.3g%% -> %.3g%%, %.3g%%",
                  100 * (y[0] / x - 1), 100 * (y[2] / x - 1), 100 * (y[3] / x - 1));
}
END_TEST

/* Farm members of equal rates are evaluated as one representative window;
 * with their rates made distinct (by 1e-12, relative) every member has its
 * own windows: the two answers agree to the fixed point's tolerance. A
 * farm of many converges, to the same answer as the small one computes
 * for its members (deterministic, no timing). */
static double farm_eval(const char *skel, double eps, int *iterations)
{
    placed x;
    placed_build(&x, skel, SKEL_STYLE_STREAM, plat);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    int nt = x.dag->ntasks, ne = x.dag->nedges;
    double *mu = malloc((size_t)nt * sizeof *mu), *lambda = malloc((size_t)ne * sizeof *lambda);
    ck_assert(mu && lambda);
    for (int i = 0; i < nt; i++)
        mu[i] = (i == 0 || i == nt - 1 ? 5.0 : 0.7) * (1 + eps * i);
    for (int e = 0; e < ne; e++)
        lambda[e] = 3.0;
    skel_approx_result r;
    ck_assert_msg(skel_approx_eval(a, mu, lambda, NULL, &r, &err) == 0, "%s", err.msg);
    ck_assert(r.converged);
    *iterations = r.iterations;
    skel_approx_free(a);
    free(mu);
    free(lambda);
    placed_free(&x);
    return r.throughput;
}

START_TEST(test_members)
{
    const char *f6 = "pipe(3); task(\"t\", 1); farm(6, \"w\", 1); task(\"v\", 1);";
    int it1, it2;
    double lumped = farm_eval(f6, 0, &it1), apart = farm_eval(f6, 1e-12, &it2);
    ck_assert_msg(fabs(lumped / apart - 1) < 1e-5, "%.12g %.12g", lumped, apart);
    const char *big = getenv("SKELSCHED_QUICK")
                          ? "pipe(3); task(\"t\", 1); farm(100, \"w\", 1); task(\"v\", 1);"
                          : "pipe(3); task(\"t\", 1); farm(1000, \"w\", 1); task(\"v\", 1);";
    double x = farm_eval(big, 0, &it1);
    ck_assert_msg(x > 0 && it1 < 200, "%g items/s after %d sweeps", x, it1);
}
END_TEST

START_TEST(test_errors)
{
    placed x;
    placed_build(&x, "pipe(2); task(\"a\", 1); task(\"b\", 2);", SKEL_STYLE_STREAM, plat);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    double mu[2] = { 1, 0 }, lambda[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    skel_approx_result r;
    ck_assert_int_eq(skel_approx_eval(a, mu, lambda, NULL, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "t1"), "%s", err.msg);
    skel_approx_free(a);
    placed_free(&x);
    /* a link whose component is above max_states: refused with its kind */
    placed_build(&x, "pipe(2); task(\"a\", 1); task(\"b\", 2);", SKEL_STYLE_STREAM,
                 "DefaultBuffer=16 LinkSCV=0.05\n" NODES);
    diag_clear(&err);
    a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    static const int pl[] = { 0, 1 };
    ck_assert_int_eq(skel_approx_place(a, x.model, x.plat, pl, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "Buffer=16 SCV=0.05"), "%s", err.msg);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx");
    TCase *tc = tcase_create("approx");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exact_small);
    tcase_add_test(tc, test_tolerance);
    tcase_add_test(tc, test_ps);
    tcase_add_test(tc, test_ps_pairs);
    tcase_add_test(tc, test_scv);
    tcase_add_test(tc, test_links);
    tcase_add_test(tc, test_link_deals);
    tcase_add_test(tc, test_counted);
    tcase_add_test(tc, test_deal_of_deals);
    tcase_add_test(tc, test_deal_pipeline);
    tcase_add_test(tc, test_farm_first);
    tcase_add_test(tc, test_warm_start);
    tcase_add_test(tc, test_members);
    tcase_add_test(tc, test_siblings);
    tcase_add_test(tc, test_whole);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    /* model4.des (216,720 states) solved exactly and by the decomposition
     * (with its retry): 20-25 s each idle, twice that beside CI's other
     * suites, so a limit of their own (Check's is per test); deal(10)'s
     * 81,880-state chain twice and deal(16)'s simulation likewise (timed
     * out at 60 s beside three builds and benches) */
    TCase *big = tcase_create("model4");
    tcase_set_timeout(big, 240);
    tcase_add_test(big, test_model4);
    tcase_add_test(big, test_deal_layers);
    tcase_add_test(big, test_wide_deal);
    suite_add_tcase(s, big);
    return run_suite(s);
}
