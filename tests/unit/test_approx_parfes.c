/* test_approx_parfes: a par block too large for one window, its branches
 * reduced to flow-equivalent servers (skeleton/approx_parfes.c,
 * docs/approximation.md "Par blocks too large for one window"):
 *  - parbig (tests/cli/solve.sh) answered by the reduced chain, converged,
 *    within 4% of its exact chain (672,714 states; before: -38.9%, not
 *    converged);
 *  - spec11-purchase.bpel under the search's 50 ms deadline answered by
 *    the reduced chain, not the cut windows (before: out of time, so the
 *    search ranked by its bound);
 *  - small blocks, forced onto the reduced chain (max_states 50), against
 *    their exact chains: exponential, Erlang and H2 work, processor
 *    sharing of a node by two branches' tasks;
 *  - a branch holding a par, a choice or a farm, forced, against the exact
 *    chain, and its inner tasks' throughputs (before: not the reduced
 *    chain, the cut windows). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "bpel/bpel.h"
#include "placed.h"
#include "suite.h"
#include "testutil.h"

#define NODES \
    "LocalLatency=0.01 DefaultLatency=0.2 Input=a Output=c\n" \
    "NodeName=a Speed=1\nNodeName=b Speed=3\nNodeName=c Speed=5\nNodeName=d Speed=2\n"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The approximation of x at placement pl (opts o), its result into *ar;
 * the exact throughput returned. */
static double approx_vs_exact(placed *x, const int *pl, skel_approx_opts o,
                              skel_approx_result *ar)
{
    diag err;
    diag_clear(&err);
    skel_search_result *r = skel_search_one(x->model, x->dag, x->plat, pl, 0, &err);
    ck_assert_msg(r, "%s", err.msg);
    double exact = r->ranked[0].throughput;
    skel_search_result_free(r);
    o.scv = x->model->scv;
    skel_approx *a = skel_approx_new(x->dag, &o, &err);
    ck_assert_msg(a, "%s", err.msg);
    ck_assert_msg(skel_approx_place(a, x->model, x->plat, pl, ar, &err) == 0, "%s", err.msg);
    skel_approx_free(a);
    return exact;
}

/* The exact chain's items a second through x's tasks at placement pl
 * into thr (ntasks: utilisation times rate); the throughput returned. */
static double exact_flows(placed *x, const int *pl, double *thr)
{
    diag err;
    diag_clear(&err);
    skel_search_result *r = skel_search_one(x->model, x->dag, x->plat, pl, 0, &err);
    ck_assert_msg(r, "%s", err.msg);
    double mu[64], lambda[64], exact = r->ranked[0].throughput;
    ck_assert_int_le(x->dag->nedges, 64);
    ck_assert_int_le(x->dag->ntasks, 64);
    ck_assert_msg(skel_place_rates(x->model, x->plat, pl, mu, lambda, &err) == 0, "%s", err.msg);
    for (int i = 0; i < x->dag->ntasks; i++)
        thr[i] = r->ranked[0].task_util[i] * mu[i];
    skel_search_result_free(r);
    return exact;
}

typedef struct fes_case {
    const char *skel;
    int pl[10];
    const char *plat;
    double tol;              /* measured |error| with room */
} fes_case;

/* bench_approx part (h)'s K 2 and K 40 (seed 20261115, APPROX_DUMP) */
#define K2_PLAT \
    "LocalLatency=0.00383828 DefaultLatency=0.26318 Input=h0 Output=h2\n" \
    "NodeName=h0 Speed=8\nNodeName=h1 Speed=7\nNodeName=h2 Speed=1\nNodeName=h3 Speed=5\n" \
    "Link=h0,h1 Latency=0.0022809 Bandwidth=1e+06\n" \
    "Link=h0,h2 Latency=0.0107771 Bandwidth=1e+06\n"
#define K2_SKEL \
    "pipe(4); task(\"a\", 1.44); par(2); pipe(2); task(\"t\", 2.14); task(\"t\", 1.91);" \
    " pipe(2); task(\"t\", 5.8); task(\"t\", 9.71); task(\"j\", 2.5); task(\"p\", 2);"
#define K40_PLAT \
    "LocalLatency=0.00733969 DefaultLatency=0.019859 Input=h0 Output=h1\n" \
    "NodeName=h0 Speed=4\nNodeName=h1 Speed=4\nNodeName=h2 Speed=7\nNodeName=h3 Speed=4\n" \
    "Link=h0,h2 Latency=0.61203 Bandwidth=1e+06\nLink=h1,h2 Latency=0.523856 Bandwidth=1e+06\n" \
    "Link=h1,h3 Latency=0.00413294 Bandwidth=1e+06\n"

/* 2026-11-27: -1.48%, -2.81%, +2.25%, +7.85% (+7.07% before the inner tasks'
 * busy by the reduced chain's flow, test_fes_ps_busy); 2026-11-28 (branch
 * festail, the branches' entries held, (n, F, L) and the exit's bit):
 * -0.00%, -0.07%, -0.19%, +0.00%. Then K 2 of part (h), where the fork
 * handed t3 an item while it was busy sending its last one over a 0.263 s
 * link, +16.42% and +24.84% under processor sharing before, -0.00% both
 * now (two-task branches: exact); K 40, a pipe of four whose third task
 * is slow, -6.12% before, -8.23% with the entry held alone (the item done
 * before the last task restarted), -3.44% with the exit's bit. */
static const fes_case cases[] = {
    { "pipe(3); task(\"a\",2); par(2); pipe(2); task(\"b1\",1); task(\"b2\",3);"
      " pipe(2); task(\"c1\",2); task(\"c2\",1); task(\"z\",2);",
      { 0, 1, 2, 3, 0, 2 }, "Sharing=static\n" NODES, 0.005 },
    { "pipe(3); task(\"a\",2); par(3); pipe(2); task(\"s1\",1); task(\"s2\",3);"
      " pipe(3); task(\"i1\",2); task(\"i2\",1); task(\"i3\",4);"
      " pipe(2); task(\"h1\",3); task(\"h2\",1.5); task(\"j\",2);",
      { 0, 1, 2, 3, 1, 2, 3, 1, 0 }, "Sharing=static\n" NODES, 0.01 },
    { "pipe(3); task(\"a\",2); par(2); pipe(3); task(\"b1\",1,scv=0.5); task(\"b2\",3);"
      " task(\"b3\",2,scv=0.3); pipe(2); task(\"c1\",2,scv=4); task(\"c2\",1); task(\"z\",2);",
      { 0, 1, 2, 3, 1, 2, 0 }, "Sharing=static\n" NODES, 0.01 },
    { "pipe(3); task(\"a\",2); par(2); pipe(2); task(\"b1\",1); task(\"b2\",3);"
      " pipe(2); task(\"c1\",2); task(\"c2\",1); task(\"z\",2);",
      { 0, 1, 2, 1, 2, 3 }, NODES, 0.005 },  /* +7.85% before: b1, c1 share a
                                                  node, the other's chain seen by its
                                                  busy probability (independent);
                                                  now both held, exactly */
    { K2_SKEL, { 1, 0, 1, 2, 1, 0, 0 }, "Sharing=static\n" K2_PLAT, 0.005 },
    { K2_SKEL, { 1, 0, 1, 2, 1, 0, 0 }, K2_PLAT, 0.005 },
    { "pipe(3); task(\"a\", 4.54); par(2); pipe(4); task(\"t\", 1.56); task(\"t\", 4.68);"
      " task(\"t\", 0.329); task(\"t\", 3.55); task(\"t\", 4); task(\"j\", 0.728);",
      { 3, 0, 3, 2, 1, 1, 1 }, "Sharing=static\n" K40_PLAT, 0.045 },
};

/* Case c forced onto the reduced chain (max_states 50: every block past
 * one window), against its exact chain within c->tol. */
static void forced_check(const fes_case *c, const char *what, int i)
{
    placed x;
    placed_build(&x, c->skel, SKEL_STYLE_PRODUCER, c->plat);
    skel_approx_opts o = { 0 };
    o.max_states = 50;
    o.cut_whole_states = 1;
    skel_approx_result ar;
    double exact = approx_vs_exact(&x, c->pl, o, &ar);
    double e = ar.throughput / exact - 1;
    if (getenv("FES_VERBOSE"))
        printf("%s %d: exact %.10g fes %.10g (%+.2f%%, %d states)\n", what, i, exact,
               ar.throughput, 100 * e, ar.fes);
    ck_assert_msg(ar.fes > 0, "%s %d: not the reduced chain", what, i);
    ck_assert_msg(ar.converged, "%s %d: not converged", what, i);
    ck_assert_msg(fabs(e) < c->tol, "%s %d: %+.2f%%", what, i, 100 * e);
    /* the small cases: every branch held, (n, F, L, bit), said to the CLI */
    ck_assert_msg(strcmp(what, "case") || (ar.fes_branches > 1 && ar.fes_held == ar.fes_branches),
                  "%s %d: %d of %d branches held", what, i, ar.fes_held, ar.fes_branches);
    placed_free(&x);
}

START_TEST(test_fes_small)
{
    forced_check(&cases[_i], "case", _i);
}
END_TEST

/* Tree t's throughput by the approximation, its tasks one a node on the
 * default platform: 0, or -1 with err (out of time under o.deadline). */
static int approx_try(skel_tree *t, skel_approx_opts o, skel_approx_result *r, diag *err)
{
    skel_dag *d = skel_dag_build(t, SKEL_STYLE_PRODUCER, err);
    ck_assert_msg(d, "%s", err->msg);
    skel_model *m = skel_model_new(t, d, err);
    ck_assert_msg(m, "%s", err->msg);
    int n = skel_tree_ntasks(t), pl[32];
    for (int i = 0; i < n; i++)
        pl[i] = i;
    skel_platform *p = skel_platform_default(n, err);
    ck_assert_msg(p, "%s", err->msg);
    o.scv = m->scv;
    skel_approx *a = skel_approx_new(d, &o, err);
    int rc = a ? skel_approx_place(a, m, p, pl, r, err) : -1;
    skel_approx_free(a);
    skel_platform_free(p);
    skel_model_free(m);
    skel_dag_free(d);
    return rc;
}

static skel_approx_result approx_tree(skel_tree *t, skel_approx_opts o)
{
    diag err;
    diag_clear(&err);
    skel_approx_result r;
    ck_assert_msg(approx_try(t, o, &r, &err) == 0, "%s", err.msg);
    return r;
}

/* approx_tree on the skeleton text sk, parsed as file name */
static skel_approx_result approx_string(const char *sk, const char *name, skel_approx_opts o)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(sk, strlen(sk), name, &err);
    ck_assert_msg(t, "%s", err.msg);
    skel_approx_result r = approx_tree(t, o);
    skel_tree_free(t);
    return r;
}

static const char parbig[] =
    "pipe(3); task(\"a\",5); par(3); pipe(4); task(\"b1\",3); task(\"b2\",4); "
    "task(\"b3\",3); task(\"b4\",4); pipe(4); task(\"c1\",3); task(\"c2\",4); "
    "task(\"c3\",5); task(\"c4\",3); pipe(3); task(\"d1\",3); task(\"d2\",4); "
    "task(\"d3\",3); task(\"z\",4);";

/* parbig: exact 0.2604923241 (`skelsched solve`, 672,714 states, and the
 * prototype's own chain, /work/wt-parfes scratch/parfes); the cut windows
 * gave 0.1590457 (-38.9%), not converged in 200 sweeps. */
START_TEST(test_fes_parbig)
{
    skel_approx_opts o = { 0 };
    skel_approx_result r = approx_string(parbig, "parbig.skel", o);
    double e = r.throughput / 0.2604923241 - 1;
    if (getenv("FES_VERBOSE"))
        printf("parbig: %.10g (%+.2f%%, %d states)\n", r.throughput, 100 * e, r.fes);
    ck_assert_msg(r.fes == 4393, "parbig: reduced chain of %d states", r.fes);
    ck_assert_msg(r.fes_branches == 3 && r.fes_held == 0, "parbig: %d of %d branches held",
                  r.fes_held, r.fes_branches);   /* held past 65,536 states: (n, L) */
    ck_assert_msg(r.converged, "parbig: not converged");
    ck_assert_msg(fabs(e) < 0.04, "parbig: %+.2f%%", 100 * e);
}
END_TEST

/* spec11-purchase.bpel (exact 0.2044618164, 10,434 states) with the
 * plugin's deadline: 50 ms leave the block 1,250 states (par_affordable),
 * so before it was cut, and its windows ran out of time (the search then
 * ranked by its bound, docs/mapping.md). */
enum { PURCHASE_TRIES = 3 };

/* spec11-purchase.bpel as `skelsched bpel` imports it (every rate 1). */
static skel_tree *purchase_tree(void)
{
    diag err;
    diag_clear(&err);
    char *warning = NULL;
    skel_tree *t =
        bpel_load_skeleton(shared_path("corpus/bpel/spec11-purchase.bpel"), NULL, &warning, &err);
    ck_assert_msg(t, "%s", err.msg);
    free(warning);
    return t;
}

START_TEST(test_fes_purchase_deadline)
{
    diag err;
    skel_tree *t = purchase_tree();
    /* The deadline is wall time: a test process descheduled for 50 ms
     * (sanitizers, a loaded machine) runs out of it through no fault of
     * the code. So up to three tries, the first that answers counting;
     * the code before the reduced chain answered by none. */
    skel_approx_result r = { 0 };
    double cpu = 0;
    for (int try = 0; try < PURCHASE_TRIES && r.fes == 0; try++) {
        skel_approx_opts o = { 0 };
        o.deadline = clock_now() + 0.05;
        double c0 = cpu_now();
        diag_clear(&err);
        if (approx_try(t, o, &r, &err) < 0)
            r.fes = 0;
        cpu = cpu_now() - c0;
    }
    skel_tree_free(t);
    double e = r.throughput / 0.2044618164 - 1;
    if (getenv("FES_VERBOSE"))
        printf("purchase, 50 ms: %.10g (%+.2f%%, %d states, %.4f CPU s)\n", r.throughput,
               100 * e, r.fes, cpu);
    ck_assert_msg(r.fes == 2179, "purchase: reduced chain of %d states", r.fes);
    ck_assert_msg(fabs(e) < 0.01, "purchase: %+.2f%%", 100 * e);
    ck_assert_msg(cpu < 0.05 + 0.01, "purchase: %.3f CPU s with a 50 ms deadline", cpu);
}
END_TEST

/* A deadline already past when the block is probed (review 22): the
 * probe's limit is then 0 states, which explore took for out of memory,
 * and skel_approx_new failed with an empty message. Out of time now. */
START_TEST(test_fes_past_deadline)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = purchase_tree();
    skel_approx_opts o = { 0 };
    o.deadline = clock_now() - 1.0;
    skel_approx_result r;
    int rc = approx_try(t, o, &r, &err);
    skel_tree_free(t);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err.msg, "out of time"), "past deadline: '%s'", err.msg);
}
END_TEST

/* h38 (/tmp/r21 of review 21): a par of three pipes of 8 tasks, its
 * reduced chain 12,250 states, its tasks on six nodes in turn
 * under processor sharing: 1.7 s to answer (50 rounds, 20,000 sweeps a
 * chain at most), the deadline unread, so `skelsched map --budget 0.05`
 * took 1.2-1.6 s. Under a 50 ms (300 ms) deadline it now answers or is
 * out of time building (solving) the chains, the search then ranking by
 * its bound, within the plugin's goal, the budget and 10 ms, of CPU
 * (steadier than wall time on a loaded machine; the wall bound only
 * catches a hang). */
static const char h38[] =
    "pipe(3); task(\"a\",2); par(3); pipe(8); task(\"b\",1); task(\"b\",1.7); "
    "task(\"b\",2.4); task(\"b\",3.1); task(\"b\",3.8); task(\"b\",1); task(\"b\",1.7); "
    "task(\"b\",2.4); pipe(8); task(\"b\",3.1); task(\"b\",3.8); task(\"b\",1); "
    "task(\"b\",1.7); task(\"b\",2.4); task(\"b\",3.1); task(\"b\",3.8); task(\"b\",1); "
    "pipe(8); task(\"b\",1.7); task(\"b\",2.4); task(\"b\",3.1); task(\"b\",3.8); "
    "task(\"b\",1); task(\"b\",1.7); task(\"b\",2.4); task(\"b\",3.1); task(\"z\",2);";
#define H38_NODES "LocalLatency=0.0001 DefaultLatency=0.01\nNodeName=n[1-6] Speed=1\n"

static const double h38_budgets[] = { 0.05, 0.3 };   /* out of time building; solving */

/* h38, task i on node i mod 6, approximated within budget seconds (0:
 * no deadline): skel_approx_place's answer. */
static int h38_approx(double budget, skel_approx_result *r, diag *err)
{
    placed x;
    placed_build(&x, h38, SKEL_STYLE_PRODUCER, H38_NODES);
    int pl[26];
    for (int i = 0; i < 26; i++)
        pl[i] = i % 6;
    diag_clear(err);
    skel_approx_opts o = { 0 };
    o.scv = x.model->scv;
    o.deadline = budget > 0 ? clock_now() + budget : 0;
    skel_approx *a = skel_approx_new(x.dag, &o, err);
    int rc = a ? skel_approx_place(a, x.model, x.plat, pl, r, err) : -1;
    skel_approx_free(a);
    placed_free(&x);
    return rc;
}

START_TEST(test_fes_h38_deadline)
{
    double budget = h38_budgets[_i];
    diag err;
    skel_approx_result r = { 0 };
    double w0 = clock_now(), c0 = cpu_now();
    int rc = h38_approx(budget, &r, &err);
    double cpu = cpu_now() - c0, wall = clock_now() - w0;
    if (getenv("FES_VERBOSE"))
        printf("h38, %g s: rc %d %.10g (%d states) %.4f CPU s %.4f s: %s\n", budget, rc,
               r.throughput, r.fes, cpu, wall, rc ? err.msg : "");
    ck_assert_msg(rc == 0 || strstr(err.msg, "out of time"), "h38: %s", err.msg);
    ck_assert_msg(cpu < budget + 0.01 && wall < budget + 0.5, "h38: %.3f s (%.3f CPU s), %g s "
                  "deadline", wall, cpu, budget);
}
END_TEST

/* A branch of ten Erlang tasks (scv 0.3): its closed chain is past
 * AX_COUNT_MAX states, so the block is not this shape and goes to the
 * windows. Before, the closed chain's limit failed the whole approximation
 * ("a par branch's closed chain at 5 items is above 65536 states"; also
 * /tmp/r21 h410e.skel, which the windows answer 0.2124251). */
START_TEST(test_fes_long_branch)
{
    static const char sk[] =
        "pipe(3); task(\"a\",2); par(2); pipe(10); task(\"b\",1,scv=0.3); "
        "task(\"b\",1.7,scv=0.3); task(\"b\",2.4,scv=0.3); task(\"b\",3.1,scv=0.3); "
        "task(\"b\",3.8,scv=0.3); task(\"b\",1,scv=0.3); task(\"b\",1.7,scv=0.3); "
        "task(\"b\",2.4,scv=0.3); task(\"b\",3.1,scv=0.3); task(\"b\",3.8,scv=0.3); "
        "task(\"c\",1); task(\"z\",2);";
    skel_approx_opts o = { 0 };
    o.max_states = 50;       /* the block past one window */
    o.cut_whole_states = 1;
    skel_approx_result r = approx_string(sk, "long.skel", o);
    if (getenv("FES_VERBOSE"))
        printf("long branch: %.10g (%d states)\n", r.throughput, r.fes);
    ck_assert_msg(r.fes == 0, "long branch: reduced chain of %d states", r.fes);
    ck_assert_msg(r.throughput > 0, "long branch: %g", r.throughput);
}
END_TEST

/* h38 on six nodes in turn without a deadline: the processor-sharing
 * rounds converge (25 rounds, 0.3056110649; `skelsched simulate`, seed 1,
 * 10 x 1e6 events: 0.29264 +- 0.00142, so +4.4%). Before, their tolerance
 * (1e-9 absolute on the busy probabilities) was below what the chains'
 * relative 1e-10 leaves: 50 rounds stuck at 9.58e-9, "not converged";
 * then, until the inner tasks' busy came from the reduced chain's flow
 * (test_fes_ps_busy), 43 rounds, 0.2594615696 (-11.3%). */
START_TEST(test_fes_h38_ps)
{
    diag err;
    skel_approx_result r;
    ck_assert_msg(h38_approx(0, &r, &err) == 0, "%s", err.msg);
    if (getenv("FES_VERBOSE"))
        printf("h38 ps: %.10g (%d states, %d rounds, change %.3g)\n", r.throughput, r.fes,
               r.iterations, r.change);
    ck_assert_msg(r.fes == 12250, "h38 ps: reduced chain of %d states", r.fes);
    ck_assert_msg(r.converged, "h38 ps: %d rounds, last change %.3g", r.iterations, r.change);
    ck_assert_msg(fabs(r.throughput / 0.3056110649 - 1) < 1e-6, "h38 ps: %.10g", r.throughput);
}
END_TEST

/* x approximated at placement pl (every block past a window as the
 * defaults say): the approximation, to free, its result into *r. */
static skel_approx *approx_placed(placed *x, const int *pl, skel_approx_result *r)
{
    diag err;
    diag_clear(&err);
    skel_approx_opts o = { 0 };
    o.scv = x->model->scv;
    skel_approx *a = skel_approx_new(x->dag, &o, &err);
    ck_assert_msg(a, "%s", err.msg);
    ck_assert_msg(skel_approx_place(a, x->model, x->plat, pl, r, &err) == 0, "%s", err.msg);
    return a;
}

/* parbig with a deal(2) of workers after its join (/tmp/r21
 * parbigdeal.skel): each worker receives every other item, half the
 * throughput (0.1136 of 0.2272); the join, one item a move per branch,
 * the throughput. Before, every task was given the throughput. */
START_TEST(test_fes_deal_after)
{
    static const char sk[] =
        "pipe(4); task(\"a\",5); par(3); pipe(4); task(\"b1\",3); task(\"b2\",4); "
        "task(\"b3\",3); task(\"b4\",4); pipe(4); task(\"c1\",3); task(\"c2\",4); "
        "task(\"c3\",5); task(\"c4\",3); pipe(3); task(\"d1\",3); task(\"d2\",4); "
        "task(\"d3\",3); task(\"z\",4); deal(2,\"w\",1);";
    placed x;
    placed_build(&x, sk, SKEL_STYLE_PRODUCER, "Sharing=static\n" NODES);
    int pl[15] = { 0 };
    skel_approx_result r;
    skel_approx *a = approx_placed(&x, pl, &r);
    const double *thr = skel_approx_task_throughput(a);
    if (getenv("FES_VERBOSE"))
        printf("deal after: %.10g, a %.10g z %.10g w %.10g %.10g (%d states)\n", r.throughput,
               thr[0], thr[12], thr[13], thr[14], r.fes);
    ck_assert_msg(r.fes > 0, "deal after: not the reduced chain");
    for (int i = 0; i <= 12; i++)
        ck_assert_msg(fabs(thr[i] / r.throughput - 1) < 1e-9, "t%d: %.10g", i, thr[i]);
    for (int i = 13; i <= 14; i++)
        ck_assert_msg(fabs(thr[i] / r.throughput - 0.5) < 1e-6, "t%d: %.10g", i, thr[i]);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* A branch holding a par, a choice or a farm (issue 15, 2026-11-27): the
 * branch's closed chains hold its inner construct whole, its last task
 * (the inner join or merge) receives at R(n, its local transition).
 * Forced onto the reduced chain, against the exact chain; before, such a
 * branch was not of the shape (ar.fes 0: the cut windows). */
#define NEST(inner)                                                                       \
    "pipe(3); task(\"a\",2); par(2); pipe(3); task(\"b1\",1); " inner " task(\"b4\",3);"  \
    " pipe(3); task(\"c1\",2); task(\"c2\",1); task(\"c3\",1.5); task(\"z\",2);"
/* 2026-11-27: -1.17%, -0.57%, -0.54%, +0.05%, +3.30% (+2.96% before the inner
 * tasks' busy by the reduced chain's flow) */
static const fes_case nested[] = {
    { NEST("par(2); task(\"x\",3); task(\"y\",2);"), { 0, 1, 2, 3, 0, 1, 2, 3, 0 },
      "Sharing=static\n" NODES, 0.04 },
    { NEST("choice(1,2); task(\"x\",3); task(\"y\",2);"), { 0, 1, 2, 3, 0, 1, 2, 3, 0 },
      "Sharing=static\n" NODES, 0.04 },
    { NEST("farm(2,\"w\",3);"), { 0, 1, 2, 3, 0, 1, 2, 3, 0 }, "Sharing=static\n" NODES,
      0.04 },
    { NEST("par(2); task(\"x\",3,scv=0.5); task(\"y\",2,scv=4);"),
      { 0, 1, 2, 3, 0, 1, 2, 3, 0 }, "Sharing=static\n" NODES, 0.04 },
    { NEST("par(2); task(\"x\",3); task(\"y\",2);"), { 0, 1, 2, 3, 0, 1, 2, 3, 0 }, NODES,
      0.06 },
};

START_TEST(test_fes_nested)
{
    forced_check(&nested[_i], "nested", _i);
}
END_TEST

/* The inner tasks' throughputs: a choice(1,2)'s branches 1/3 and 2/3 of
 * the items (its draw fixes them whatever n); a farm(2)'s workers all the
 * items between them, each its share of the items within FLOWS_TOL of the
 * exact chain's (utilisation times rate: w1 on c, Speed 5, 0.510753, w2
 * on d, 2, 0.489247; now 0.519862 / 0.480138, weighted by the reduced
 * chain's flow into the branch at each n; before, the closed chain at cap
 * alone, 0.525946 / 0.474054, which fails); every other task the
 * throughput. Before that, every inner task was given the last task's
 * rate (n2.skel: 0.2562 for x and for y). */
/* The farm's w1 share is off by 0.007905 now (0.518658 for 0.510753,
 * since the reduced chain holds each branch's entry, 8bee11e; 0.009109
 * before it). It comes out in the same six digits on every run: there is
 * no random input, and the chains are solved to ~1e-10. With the closed
 * chain at cap alone it was off by 0.015193. 0.012 (to 2026-11-28) sat
 * midway, so a change that lost half the weighting's gain passed. 0.010
 * fails anything 0.002 worse than now and still fails the chain at cap
 * by 0.0052. */
#define FLOWS_TOL 0.010
START_TEST(test_fes_nested_flows)
{
    static const double part[2] = { 1.0 / 3, 2.0 / 3 };
    placed x;
    placed_build(&x, nested[1 + _i].skel, SKEL_STYLE_PRODUCER, "Sharing=static\n" NODES);
    double ex[64], exact = exact_flows(&x, nested[1 + _i].pl, ex);
    diag err;
    diag_clear(&err);
    skel_approx_opts o = { 0 };
    o.max_states = 50;
    o.cut_whole_states = 1;
    o.scv = x.model->scv;
    skel_approx *a = skel_approx_new(x.dag, &o, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result r;
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, nested[1 + _i].pl, &r, &err) == 0,
                  "%s", err.msg);
    ck_assert_msg(r.fes > 0, "not the reduced chain");
    const double *thr = skel_approx_task_throughput(a);
    for (int i = 0; i < x.dag->ntasks; i++) {
        int inner = i == 2 || i == 3;
        double got = thr[i] / r.throughput;
        double want = inner ? _i ? ex[i] / exact : part[i - 2] : 1;
        if (getenv("FES_VERBOSE"))
            printf("flows %d: t%d %.10g (%.6f of the items, exact %.6f)\n", _i, i, thr[i], got,
                   ex[i] / exact);
        ck_assert_msg(fabs(got - want) < (inner && _i ? FLOWS_TOL : 1e-6), "t%d: %.6f, want %.6f",
                      i, got, want);
    }
    ck_assert_msg(fabs((thr[2] + thr[3]) / r.throughput - 1) < 1e-6, "inner: %.10g + %.10g",
                  thr[2], thr[3]);
    ck_assert_msg(_i == 0 || thr[2] > 1.01 * thr[3], "farm: %.10g, %.10g", thr[2], thr[3]);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* parbig under processor sharing, one task a node (nothing shared, the
 * chain is static sharing's): a task computes one item in 1/mu, so its
 * busy probability is its throughput over its rate. Before, a branch's
 * inner task took its closed chain's busy at n items, where the item the
 * last task hands on re-enters at once, not the reduced chain's flow at n
 * (the last task waits for the join): b1 0.105, d1 0.116 for 0.0839,
 * +25..38%, which processor sharing then took for load on their nodes. */
START_TEST(test_fes_ps_busy)
{
    placed x;
    placed_build(&x, parbig, SKEL_STYLE_PRODUCER,
                 "LocalLatency=1 DefaultLatency=1\nNodeName=n[0-12] Speed=1\n");
    int pl[13];
    double mu[13], lambda[64];
    ck_assert_int_le(x.dag->nedges, 64);
    for (int i = 0; i < 13; i++)
        pl[i] = i;
    diag err;
    diag_clear(&err);
    ck_assert_msg(skel_place_rates(x.model, x.plat, pl, mu, lambda, &err) == 0, "%s", err.msg);
    skel_approx_result r;
    skel_approx *a = approx_placed(&x, pl, &r);
    ck_assert_msg(r.fes > 0 && r.converged, "ps busy: %d states, converged %d", r.fes,
                  r.converged);
    const double *u = skel_approx_task_util(a), *thr = skel_approx_task_throughput(a);
    for (int i = 0; i < 13; i++) {
        double want = thr[i] / mu[i];
        if (getenv("FES_VERBOSE"))
            printf("ps busy t%d: %.6f, throughput / rate %.6f (%+.2f%%)\n", i, u[i], want,
                   100 * (u[i] / want - 1));
        ck_assert_msg(fabs(u[i] / want - 1) < 0.01, "t%d: busy %.6f, throughput / rate %.6f",
                      i, u[i], want);
    }
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* pfarm (closing note 17): parbig's par(3), a farm(2) and a task after
 * it; its one reduced chain is 89,964 states. */
#define PFARM                                                                            \
    "pipe(5); task(\"a\",5); par(3); pipe(4); task(\"b1\",3); task(\"b2\",4); "           \
    "task(\"b3\",3); task(\"b4\",4); pipe(4); task(\"c1\",3); task(\"c2\",4); "          \
    "task(\"c3\",5); task(\"c4\",3); pipe(3); task(\"d1\",3); task(\"d2\",4); "          \
    "task(\"d3\",3); task(\"z\",4); farm(2,\"w\",2); task(\"q\",3);"

/* A par block the cut windows answer says why (skel_approx_result
 * fes_past): pfarm with its chains capped at 20 states (fes_states), past
 * that even split (until 2026-11-28 pfarm itself, past 65,536 states in
 * one chain, was answered so: 0.0611 converged against 0.2551 +- 0.0016
 * simulated, -76%; test_fes_past_cap); a branch ending in a farm (its workers both hand on to the
 * join), forced (max_states 50); a small block forced, its moves with
 * phases (link SCV 0.5); not a block one window holds. Before 2026-11-28
 * only an unconverged fixed point said anything; pfarm converged. */
#define PAST_PAR                                                                         \
    "task(\"a\",2); par(2); pipe(2); task(\"b1\",1); task(\"b2\",3); pipe(2); "          \
    "task(\"c1\",2); task(\"c2\",1); task(\"z\",2);"
START_TEST(test_fes_past_said)
{
    static const struct {
        const char *skel;
        unsigned long max_states;
        const char *plat;     /* NULL: the default platform */
        int want;
    } c[] = {
        { PFARM, 0, NULL, SKEL_APPROX_PAR_PAST },
        { "pipe(3); task(\"a\",2); par(2); pipe(2); task(\"b1\",1); farm(2,\"w\",3); "
          "pipe(2); task(\"c1\",2); task(\"c2\",1); task(\"z\",2);",
          50, NULL, SKEL_APPROX_PAR_SHAPE },
        { parbig, 0, "LinkSCV=0.5\nLocalLatency=1 DefaultLatency=1\nNodeName=n[0-12] Speed=1\n",
          SKEL_APPROX_PAR_LINKS },
        { "pipe(3); " PAST_PAR, 0, NULL, 0 },
    };
    skel_approx_opts o = { .max_states = c[_i].max_states,
                           .cut_whole_states = c[_i].max_states ? 1 : 0,
                           .fes_states = _i == 0 ? 20 : 0 };
    skel_approx_result r;
    if (c[_i].plat) {
        placed x;
        int pl[13] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
        placed_build(&x, c[_i].skel, SKEL_STYLE_PRODUCER, c[_i].plat);
        skel_approx_free(approx_placed(&x, pl, &r));
        placed_free(&x);
    } else {
        r = approx_string(c[_i].skel, "said.skel", o);
    }
    if (getenv("FES_VERBOSE"))
        printf("said %d: fes_past %d, fes %d, whole %d, estimate %d, converged %d, %.10g\n", _i, r.fes_past,
               r.fes, r.whole, r.estimate, r.converged, r.throughput);
    fflush(stdout);
    ck_assert_msg(r.fes_past == c[_i].want, "case %d: fes_past %d, not %d", _i, r.fes_past,
                  c[_i].want);
    ck_assert_msg(!c[_i].want || r.fes == 0, "case %d: the reduced chain answered", _i);
}
END_TEST

/* ---- tasks outside the block past the reduced chain's cap (2026-11-28) */
/* measured 2026-11-28 03:56 UTC against exact: -0.44%, +2.26%, -0.86%,
 * -0.70% (as on branch capwin), two blocks +6.19% (slow e1, f1: past
 * issue 15's 5%, docs "Not met") and -1.64% */
#define SPLIT_TOL0 0.01
#define SPLIT_TOL1 0.03
#define SPLIT_TOL2 0.015
#define SPLIT_TOL3 0.012
#define SPLIT_TOL4 0.07
#define SPLIT_TOL5 0.025
#define SPLIT_CAP4 0      /* two blocks: past 65,536 states in one chain already, so
                             the only reference is exact (no one-chain run) */
#define TWOBLK_TOL 0.05   /* measured +3.63% (2026-11-28 04:00 UTC; simulated 03:55 UTC) */

/* A small block with stages outside it, forced onto the reduced chain
 * (max_states 50) and split at fes_states (one chain per block and one of
 * the tasks outside, coupled by the rates each measures for the others'
 * moves), against the exact chain (and the one chain: held, within
 * 0.00% of exact). The last two: two blocks with a task between them
 * (review 26 finding 1: the move between their chains was measured by
 * neither and ran at the link's rate), the second block's first tasks
 * slow and fast; their one chain is past 65,536 states (before
 * 2026-11-28: the cut windows). */
typedef struct split_case {
    const char *skel;
    int pl[16];
    unsigned long fes_states; /* past the whole reduced chain, within each part */
    double tol;               /* |split / exact - 1|, measured with room */
} split_case;

#define SPLIT_PAR                                                                        \
    "task(\"a\",2); par(2); pipe(2); task(\"b1\",1); task(\"b2\",3); pipe(2); "          \
    "task(\"c1\",2); task(\"c2\",1); task(\"z\",2); "
#define SPLIT_TWO(r)                                                                     \
    "pipe(6); " SPLIT_PAR "task(\"t\",2); par(2); pipe(2); task(\"e1\"," r "); "          \
    "task(\"e2\",3); pipe(2); task(\"f1\"," r "); task(\"f2\",2); task(\"y\",2);"
static const split_case splits[] = {
    { "pipe(5); " SPLIT_PAR "farm(2,\"w\",1); task(\"q\",1.5);",
      { 0, 1, 2, 3, 0, 1, 2, 3, 0 }, 2000, SPLIT_TOL0 },
    { "pipe(6); task(\"p1\",2); task(\"p2\",3); " SPLIT_PAR "task(\"q\",1.5);",
      { 0, 1, 2, 3, 0, 1, 2, 3, 0 }, 2000, SPLIT_TOL1 },
    { "pipe(5); " SPLIT_PAR "deal(2,\"w\",1); task(\"q\",1.5);",
      { 0, 1, 2, 3, 0, 1, 2, 3, 0 }, 2000, SPLIT_TOL2 },
    { "pipe(5); " SPLIT_PAR "par(2); pipe(2); task(\"e1\",2); task(\"e2\",3); "
      "task(\"f1\",2); task(\"y\",2);",
      { 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2 }, 2000, SPLIT_TOL3 },
    { SPLIT_TWO("0.3"), { 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3 }, SPLIT_CAP4, SPLIT_TOL4 },
    { SPLIT_TWO("2"), { 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3 }, SPLIT_CAP4, SPLIT_TOL5 },
};

START_TEST(test_fes_split)
{
    const split_case *c = &splits[_i];
    placed x;
    placed_build(&x, c->skel, SKEL_STYLE_PRODUCER, "Sharing=static\n" NODES);
    skel_approx_result one = { 0 }, ar;
    skel_approx_opts o = { .max_states = 50, .cut_whole_states = 1 };
    double exact = 0;
    if (c->fes_states)        /* the one chain, held: a reference besides exact */
        exact = approx_vs_exact(&x, c->pl, o, &one);
    o.fes_states = c->fes_states;
    exact = approx_vs_exact(&x, c->pl, o, &ar);
    double e = ar.throughput / exact - 1;
    if (getenv("FES_VERBOSE"))
        printf("split %d: exact %.10g one %.10g (%+.2f%%, %d states, %d held) split %.10g "
               "(%+.2f%%; %d chains, %d + %d states, %d rounds, %d unmeasured)\n",
               _i, exact, one.throughput, 100 * (one.throughput / exact - 1), one.fes,
               one.fes_held, ar.throughput, 100 * e, ar.fes_parts, ar.fes, ar.fes_out,
               ar.iterations, ar.fes_unmeasured);
    fflush(stdout);
    ck_assert_msg(!c->fes_states || (one.fes > 0 && one.fes_parts == 1), "split %d: one chain",
                  _i);
    ck_assert_msg(ar.fes > 0 && ar.fes_parts > 1, "split %d: not split", _i);
    ck_assert_msg(ar.converged && ar.fes_unmeasured == 0, "split %d: not converged", _i);
    ck_assert_msg(fabs(e) < c->tol, "split %d: %+.2f%% of exact", _i, 100 * e);
    placed_free(&x);
}
END_TEST

/* pfarm, default options, task i on node i. Its one reduced chain is past
 * 65,536 states; before 2026-11-28 the cut windows answered 0.0611,
 * converged (fes 0), against `skelsched simulate --events 400000 --reps
 * 10 --seed 1`'s 0.2551023395 +- 0.00143: -76%. Split: -5.68% (03:59-04:01 UTC). */
#define PFARM_SIM 0.2551023395
START_TEST(test_fes_past_cap)
{
    skel_approx_result r = approx_string(PFARM, "pfarm.skel", (skel_approx_opts){ 0 });
    double e = r.throughput / PFARM_SIM - 1;
    if (getenv("FES_VERBOSE"))
        printf("pfarm: %.10g (%+.2f%% of simulated, %d chains, %d + %d states)\n", r.throughput,
               100 * e, r.fes_parts, r.fes, r.fes_out);
    ck_assert_msg(r.fes > 0 && r.fes_parts == 2, "pfarm: %d chains (%d states)", r.fes_parts,
                  r.fes);
    ck_assert_msg(r.converged, "pfarm: not converged");
    ck_assert_msg(fabs(e) < 0.07, "pfarm: %+.2f%% of simulated", 100 * e);
}
END_TEST

/* Review 26's two blocks: parbig's par(3) joining at z, a task t, then a
 * par(2) of pipe(2) whose first tasks run at 0.05, then y; default
 * platform, task i on node i. Every item passes e1 or f1... both (a par):
 * the job cannot exceed 0.05 items/s. capwin's split answered 0.2273,
 * converged (the move z -> t measured by neither chain); simulated
 * (400,000 events x 10, seed 1) 0.0369726361 +- 0.000294. It must answer
 * at most 0.05, or say it did not converge. */
#define TWOBLK_SIM 0.0369726361
START_TEST(test_fes_two_blocks)
{
    static const char sk[] =
        "pipe(6); task(\"a\",5); par(3); pipe(4); task(\"b1\",3); task(\"b2\",4); "
        "task(\"b3\",3); task(\"b4\",4); pipe(4); task(\"c1\",3); task(\"c2\",4); "
        "task(\"c3\",5); task(\"c4\",3); pipe(3); task(\"d1\",3); task(\"d2\",4); "
        "task(\"d3\",3); task(\"z\",4); task(\"t\",4); par(2); pipe(2); task(\"e1\",0.05); "
        "task(\"e2\",4); pipe(2); task(\"f1\",0.05); task(\"f2\",4); task(\"y\",4);";
    skel_approx_result r = approx_string(sk, "twoblk.skel", (skel_approx_opts){ 0 });
    double e = r.throughput / TWOBLK_SIM - 1;
    if (getenv("FES_VERBOSE"))
        printf("two blocks: %.10g (%+.2f%% of simulated, %d chains, %d + %d states, "
               "converged %d, %d unmeasured)\n", r.throughput, 100 * e, r.fes_parts, r.fes,
               r.fes_out, r.converged, r.fes_unmeasured);
    ck_assert_msg(r.fes > 0 && r.fes_parts > 1, "two blocks: %d chains", r.fes_parts);
    ck_assert_msg(r.throughput <= 0.05 || !r.converged, "two blocks: %.4g > 0.05, converged",
                  r.throughput);
    ck_assert_msg(r.converged && fabs(e) < TWOBLK_TOL, "two blocks: %+.2f%% of simulated%s",
                  100 * e, r.converged ? "" : ", not converged");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx_parfes");
    TCase *tc = tcase_create("approx_parfes");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_fes_small, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_fes_parbig);
    tcase_add_test(tc, test_fes_purchase_deadline);
    tcase_add_test(tc, test_fes_past_deadline);
    tcase_add_loop_test(tc, test_fes_h38_deadline, 0, 2);
    tcase_add_test(tc, test_fes_h38_ps);
    tcase_add_test(tc, test_fes_deal_after);
    tcase_add_test(tc, test_fes_long_branch);
    tcase_add_loop_test(tc, test_fes_nested, 0, (int)(sizeof nested / sizeof *nested));
    tcase_add_loop_test(tc, test_fes_nested_flows, 0, 2);
    tcase_add_test(tc, test_fes_ps_busy);
    tcase_add_loop_test(tc, test_fes_past_said, 0, 4);
    tcase_add_loop_test(tc, test_fes_split, 0, (int)(sizeof splits / sizeof *splits));
    tcase_add_test(tc, test_fes_past_cap);
    tcase_add_test(tc, test_fes_two_blocks);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
