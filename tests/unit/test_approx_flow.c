/* test_approx_flow: the throughput approximation of par, choice and loop
 * flows (docs/approximation.md "Par, choice and loop") against the exact
 * chain (skel_search on one placement):
 *  - exact where the whole model is one window (a fork and its join, a
 *    choice, a loop over one task), under static and processor sharing;
 *  - within stated tolerances where windows cut the model (bench_approx
 *    part (f) measures the random suite);
 *  - a large BPEL process of the corpus (its chain beyond 300,000 states)
 *    and a skeleton of ten par/choice stages answered in bounded time. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpel/bpel.h"
#include "placed.h"
#include "skeleton/approx_int.h"
#include "suite.h"
#include "testutil.h"

#define NODES \
    "LocalLatency=0.01 DefaultLatency=0.2 Input=a Output=c\n" \
    "NodeName=a Speed=1\nNodeName=b Speed=3\nNodeName=c Speed=5\n" \
    "Link=a,b Latency=0.05\nLink=b,c Latency=0.5\n"
static const char *const plats[3] = { "Sharing=static\n" NODES, NODES, "DefaultBuffer=2\n" NODES };
static unsigned long whole_states;   /* skel_approx_opts' whole_states and
                                        cut_whole_states: 1, windows only */
static unsigned long deal_states;    /* skel_approx_opts' (0: its default) */

/* Relative error of the approximation of skel at placement pl on platform
 * plat (held: its link kinds in the chain); the approximation's throughput
 * into *tp if given. */
static double rel_err_on(const char *skel, skel_style style, const int *pl, const char *plat,
                         int held, double *tp)
{
    placed x;
    placed_build(&x, skel, style, plat);
    diag err;
    diag_clear(&err);
    /* the chain under the platform's link kinds (DefaultBuffer=): the
     * placement-independent model as the search wants it */
    skel_model *m = held ? skel_model_new_placed(x.tree, x.dag, x.plat, NULL, &err) : x.model;
    ck_assert_msg(m, "%s", err.msg);
    skel_search_result *r = skel_search_one(m, x.dag, x.plat, pl, 0, &err);
    ck_assert_msg(r, "%s", err.msg);
    if (m != x.model)
        skel_model_free(m);
    skel_approx_opts ao = { 0 };
    ao.scv = x.model->scv;
    ao.whole_states = whole_states;
    ao.cut_whole_states = whole_states;
    ao.deal_states = deal_states;
    skel_approx *a = skel_approx_new(x.dag, &ao, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result ar;
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, pl, &ar, &err) == 0, "%s", err.msg);
    double e = ar.throughput / r->ranked[0].throughput - 1;
    if (tp)
        *tp = ar.throughput;
    skel_approx_free(a);
    skel_search_result_free(r);
    placed_free(&x);
    return e;
}

/* rel_err_on plats[ps] (2: links that hold two items). */
static double rel_err(const char *skel, skel_style style, const int *pl, int ps, double *tp)
{
    return rel_err_on(skel, style, pl, plats[ps], ps == 2, tp);
}

static void within(const char *skel, const int *pl, double tol, int line)
{
    for (int ps = 0; ps < 2; ps++)
        for (int st = 0; st < 2; st++) {
            double e = rel_err(skel, st ? SKEL_STYLE_STREAM : SKEL_STYLE_PRODUCER, pl, ps, NULL);
            if (getenv("FLOW_VERBOSE"))
                printf("line %d %s %s %+.4f%%\n", line, ps ? "ps" : "static",
                       st ? "stream" : "producer", 100 * e);
            ck_assert_msg(fabs(e) <= tol, "line %d (%s, %s): error %.3g%% > %.3g%%", line,
                          ps ? "ps" : "static", st ? "stream" : "producer", 100 * e, 100 * tol);
        }
}
#define WITHIN(s, pl, tol) within((s), (pl), (tol), __LINE__)

/* A case named by its line: skel at placement pl within tol, on plats[0]
 * and plats[1] in both styles (plat NULL: within) or on a platform of its
 * own in the stream style (bench_approx part (f)'s random platforms). */
typedef struct flow_case {
    const char *skel, *plat;
    const int *pl;
    double tol;
    int line;
} flow_case;

static void case_within(const flow_case *c)
{
    if (!c->plat) {
        within(c->skel, c->pl, c->tol, c->line);
        return;
    }
    double e = rel_err_on(c->skel, SKEL_STYLE_STREAM, c->pl, c->plat, 0, NULL);
    if (getenv("FLOW_VERBOSE"))
        printf("line %d %+.4f%%\n", c->line, 100 * e);
    ck_assert_msg(fabs(e) <= c->tol, "line %d: error %.3g%% > %.3g%%", c->line, 100 * e,
                  100 * c->tol);
}

/* case_within on each of n cases. */
static void cases_within(const flow_case *c, size_t n)
{
    for (size_t k = 0; k < n; k++)
        case_within(&c[k]);
}

static const char par3[] = "pipe(3); task(\"a\", 5); par(2); task(\"b\", 4); task(\"c\", 3);"
                           " task(\"d\", 6);";
static const char choice3[] = "pipe(3); task(\"a\", 5); choice(0.7, 0.3); task(\"b\", 4);"
                              " task(\"c\", 2); task(\"d\", 6);";
static const char loop1[] = "pipe(3); task(\"a\", 5); loop(1.5); task(\"b\", 6); task(\"c\", 4);";

/* the orchestration of docs/skeleton-language.md (8 tasks) */
static const char orch[] = "pipe(6); task(\"receive\", 2); par(2); task(\"checkStock\", 4);"
                           " task(\"checkCredit\", 2); task(\"decide\", 20);"
                           " choice(0.9, 0.1); task(\"auto\", 20); task(\"review\", 0.5);"
                           " loop(1.5); task(\"book\", 6); task(\"confirm\", 10);";
/* a par of three branches and a choice after its join (7 tasks) */
static const char pc[] = "pipe(4); task(\"a\", 4); par(3); task(\"b\", 2); task(\"c\", 3);"
                         " task(\"d\", 5); task(\"e\", 6); choice(1, 3); task(\"f\", 2);"
                         " task(\"g\", 4);";
static const int po[] = { 0, 1, 2, 0, 1, 2, 0, 1 }, pl7[] = { 0, 1, 2, 1, 0, 2, 1 };
/* two choices of two in a pipe (bench_approx f-choice-1, 1,944 states): its
 * choices' senders, branches and merges as blocks, the whole model one
 * window first (as a par's). Its windows (729 local combinations exceeded)
 * were +2.40% (ps, stream), +1.77% (ps, producer): a cut branch seen as a
 * delay of its mean rate, though the sender waits for the branch it drew. */
static const char choice2[] = "pipe(5); task(\"t\", 0.691); choice(0.47, 1); task(\"t\", 1.43);"
                              " task(\"t\", 0.387); task(\"t\", 0.985); choice(0.39, 0.98);"
                              " task(\"t\", 2.22, data=1e5); task(\"t\", 2.41);"
                              " task(\"t\", 4.33, data=1e5);";
static const int pc2[] = { 1, 1, 0, 1, 2, 1, 1 };

/* One window of the whole model (at most 729 local combinations; with a
 * par or a choice, up to AX_WHOLE reachable states, whole_first): the
 * exact chain.
 * Refused before ("par/choice/loop are not covered"). */
START_TEST(test_flow_exact)
{
    static const int pl4[] = { 0, 1, 1, 2 }, spread[] = { 0, 1, 2, 2 }, pl3[] = { 0, 1, 2 };
    WITHIN(par3, pl4, 1e-9);
    WITHIN(par3, spread, 1e-9);
    WITHIN(choice3, pl4, 1e-9);
    WITHIN(choice3, spread, 1e-9);
    WITHIN(loop1, pl3, 1e-9);
    WITHIN(orch, po, 1e-9);
    WITHIN(pc, pl7, 1e-9);
    WITHIN(choice2, pc2, 1e-9);
}
END_TEST

static const char loopn[] = "pipe(3); task(\"a\", 5); loop(1.5); pipe(2); task(\"b\", 9);"
                            " task(\"c\", 8); task(\"d\", 6);";
static const int pn[] = { 0, 1, 2, 0 };

/* Windows cut the model (no whole-model window: whole_states and
 * cut_whole_states 1), stated
 * tolerances (measured: beside them). */
START_TEST(test_flow_tolerance)
{
    whole_states = 1;
    WITHIN(orch, po, 0.04);          /* measured: 0.004% - 3.59% (ps, stream) */
    WITHIN(pc, pl7, 0.03);           /* measured: 0.000% - 2.23% (ps, stream) */
    /* a loop over two stages, cap 1: one server (approx_flow.c); the
     * serial reduction, its gate lost, was 1.96% - 4.79% (static, stream) */
    WITHIN(loopn, pn, 0.01);         /* measured: -0.22% - -0.29% */
    /* a counted deal (an xdeal of sub-pipelines) whose consumer loops over
     * itself: the consumer's machine is a flow machine, whose rounds are not
     * consecutive states, so the deal is not counted from its state
     * (approx_group.c; it was, and read the wrong member's turn) */
    static const char xloop[] = "pipe(3); task(\"s\", 6); xdeal(3);"
                                " pipe(2); task(\"a\", 2); task(\"b\", 3);"
                                " pipe(2); task(\"c\", 2); task(\"d\", 3);"
                                " pipe(2); task(\"e\", 2); task(\"f\", 3);"
                                " loop(1.5); task(\"t\", 8);";
    static const int px[] = { 0, 1, 1, 2, 2, 0, 0, 1 };
    WITHIN(xloop, px, 0.017);       /* measured: 0.94% - 1.54% (1.82% before) */
    whole_states = 0;
}
END_TEST

/* Pars in a row, the join of one the fork of the next (bench_approx
 * f-par-21 and f-par-8), by the windows alone: each window holds one par,
 * and saw the other's fork sends (join receives) as independent delays,
 * the fork waiting for the slowest of them though the branches of one par
 * are ready together. A lattice whose partners a window does not hold is
 * one delay now (approx_lattice.c), measured where they are held. */
START_TEST(test_flow_par_chain)
{
    static const char p21[] = "pipe(5); task(\"t\", 0.923); par(3); task(\"t\", 1.65);"
                              " task(\"t\", 9.3); task(\"t\", 2.17); task(\"t\", 3.38); par(3);"
                              " task(\"t\", 0.625); task(\"t\", 8.47); task(\"t\", 0.357);"
                              " task(\"t\", 0.331);";
    static const char p8[] = "pipe(5); task(\"t\", 1.41); par(2); task(\"t\", 4.01, data=1e5);"
                             " task(\"t\", 9.89, data=1e5); task(\"t\", 4.86); par(3);"
                             " task(\"t\", 2.3); task(\"t\", 0.963, data=1e5);"
                             " task(\"t\", 0.624); task(\"t\", 3.88);";
    static const int pl21[] = { 0, 1, 0, 2, 1, 2, 2, 0, 1 }, pl8[] = { 0, 1, 0, 2, 1, 2, 2, 0 };
    static const flow_case cases[] = {
        /* measured: 0.32% - 1.69%; before -10.9% - +0.90% */
        { p21, NULL, pl21, 0.025, __LINE__ },
        /* measured: 0.34% - 0.63%; before 4.0% - 4.7% */
        { p8, NULL, pl8, 0.015, __LINE__ },
    };
    whole_states = 1;
    cases_within(cases, sizeof cases / sizeof cases[0]);
    whole_states = 0;
}
END_TEST

/* A par after a farm (issue 15's m5): each member's last task forks to
 * the par's branches, which take their items from any of them. An
 * xfarm(2) of pipe(2) before a par of pipes of 3 and 4 tasks, on the
 * test's platforms (static, processor sharing; the stream style): the
 * block held only the first fork, the other's sends to each branch
 * independent delays, and past AX_PAR_STATES the block was cut by the
 * windows (FLOW_VERBOSE prints the errors). */
START_TEST(test_flow_farm_par)
{
    static const char m5[] = "pipe(4); task(\"a\", 5); xfarm(2); pipe(2); task(\"p\", 3);"
                             " task(\"q\", 4); pipe(2); task(\"p\", 3); task(\"q\", 4); par(2);"
                             " pipe(3); task(\"r1\", 6); task(\"r2\", 6); task(\"r3\", 6); pipe(4);"
                             " task(\"s1\", 6); task(\"s2\", 7); task(\"s3\", 6); task(\"s4\", 8);"
                             " task(\"z\", 4);";
    static const int pl[] = { 0, 1, 2, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1 };
    static const flow_case cases[] = {
        /* measured -0.11%, before -7.24% */
        { m5, "Sharing=static\n" NODES, pl, 0.01, __LINE__ },
        /* measured +0.12% with the node model (approx_share.c node_model;
         * +0.59% before it, -5.36% before the par's block held both forks) */
        { m5, NODES, pl, 0.01, __LINE__ },
    };
    cases_within(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* A farm(2) before a par of pipes of 3 and 4 tasks, and six nodes, round
 * robin (bench_approx's farm2-par; issue 15's CLI platform). */
static const char f2[] = "pipe(4); task(\"a\", 5); farm(2, \"w\", 3); par(2); pipe(3);"
                         " task(\"r1\", 6); task(\"r2\", 6); task(\"r3\", 6); pipe(4);"
                         " task(\"s1\", 6); task(\"s2\", 7); task(\"s3\", 6);"
                         " task(\"s4\", 8); task(\"z\", 4);";
static const char six_nodes[] = "NodeName=n[1-3] Speed=1\nNodeName=n[4-6] Speed=2\n"
                                "DefaultLatency=0.01 LocalLatency=0.001\n";

/* Processor sharing between a farm before a par and the par's block, by
 * the windows alone: a farm(2) before a par of pipes of 3 and 4 tasks,
 * round robin on six nodes (bench_approx's farm2-par; issue 15's m5 and
 * m1 on the CLI's six nodes). A window saw the tasks of its node it does
 * not hold as computing independently of its own, at their marginals
 * (no window measures a pair once a task forks): two tasks sharing a
 * node compute together longer than that, each slowing the other, and
 * the first task ran too fast. The node's on/off model (approx_share.c
 * node_model) gives their conditional probabilities. */
START_TEST(test_flow_ps_node)
{
    static const int rr[] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4 };
    static const flow_case cases[] = {
        /* stream style: measured +2.12% (+2.1157%), +7.07% without the
         * node model (docs/approximation.md's table: the producer style) */
        { f2, six_nodes, rr, 0.025, __LINE__ },
    };
    whole_states = 1;
    cases_within(cases, sizeof cases / sizeof cases[0]);
    whole_states = 0;
}
END_TEST

/* The largest change of the nodes' on/off models (nodeq) between two
 * calls, *was (m entries) the first's. */
static double nodeq_moved(const skel_approx *a, double *was, size_t m)
{
    double ch = 0;
    for (size_t k = 0; k < m; k++) {
        ch = fmax(ch, fabs(a->nodeq[k] - was[k]));
        was[k] = a->nodeq[k];
    }
    return ch;
}

/* skel at pl on plat (stream, windows alone, the fixed point's tol,
 * cold): the evaluation reported converged, with a node model if and
 * only if model (none where the windows measure pairs); with one, one
 * more sweep moves the
 * nodes' models (nodeq) by at most tol. Then the marginal of the first
 * task sharing a node is moved by 0.05: ax_pairs_update, which refits
 * the models, moves nodeq and must say so in its change (review 28 item
 * 5: it returned the measured pairs' change alone). */
static void node_model_counted(const char *skel, const int *pl, const char *plat, double tol,
                               int model)
{
    placed x;
    placed_build(&x, skel, SKEL_STYLE_STREAM, plat);
    diag err;
    diag_clear(&err);
    skel_approx_opts ao = { .whole_states = 1, .cut_whole_states = 1, .tol = tol, .cold = 1 };
    ao.scv = x.model->scv;
    skel_approx *a = skel_approx_new(x.dag, &ao, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result ar;   /* place: the links; then eval, its rates kept for the sweep */
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, pl, &ar, &err) == 0, "%s", err.msg);
    double *mu = malloc((size_t)(x.model->ntasks + 1) * sizeof *mu);
    double *lambda = malloc((size_t)(x.model->nedges + 1) * sizeof *lambda);
    size_t m = (size_t)a->ntasks * AX_NODE_Q;
    double *was = malloc(m * sizeof *was);
    ck_assert(mu && lambda && was);
    ck_assert(skel_place_rates(x.model, x.plat, pl, mu, lambda, &err) == 0);
    ck_assert_msg(skel_approx_eval(a, mu, lambda, pl, &ar, &err) == 0, "%s", err.msg);
    ck_assert_msg(ar.converged, "tol %g: not converged", tol);
    ck_assert_msg(!a->nodeq == !model, "tol %g: node model %d, expected %d", tol, !!a->nodeq,
                  model);
    if (!model)
        goto done;
    memcpy(was, a->nodeq, m * sizeof *was);
    ax_sweep(a, ar.iterations & 1);
    double sw = nodeq_moved(a, was, m);
    int t = 0;
    while (t < a->ntasks && a->grpn[t] < 2)
        t++;
    ck_assert(t < a->ntasks);
    a->pbusy[t] = a->pbusy[t] > 0.5 ? a->pbusy[t] - 0.05 : a->pbusy[t] + 0.05;
    double said = ax_pairs_update(a), moved = nodeq_moved(a, was, m);
    if (getenv("FLOW_VERBOSE"))
        printf("tol %g: %d sweeps, a sweep more moves nodeq by %.3g; the refit %.3g, said %.3g\n",
               tol, ar.iterations, sw, moved, said);
    ck_assert_msg(sw <= tol, "tol %g: converged with nodeq moving by %.3g", tol, sw);
    ck_assert_msg(moved > 0 && said >= moved, "tol %g: nodeq moved by %.3g, the change said %.3g",
                  tol, moved, said);
done:
    free(was);
    free(lambda);
    free(mu);
    skel_approx_free(a);
    placed_free(&x);
}

/* A fixed point reported converged has node models that no longer move:
 * their change is part of the sweeps' (review 28 item 5). Until
 * 2026-11-28 (main 7a1381b) ax_pairs_update returned the measured pairs'
 * change alone, so the models' was not counted: the refit's assert fails
 * there (said 0). On these cases the sweep's assert held on main too (a
 * sweep more moved nodeq by 8e-4 at tol 1e-2, 5e-8 at 1e-6): the fit
 * follows the marginals, whose change was counted. */
START_TEST(test_flow_node_converged)
{
    static const char p8[] = "pipe(8); task(\"a\", 5); task(\"b\", 6); task(\"c\", 4);"
                             " task(\"d\", 7); task(\"e\", 5); task(\"f\", 3); task(\"g\", 6);"
                             " task(\"h\", 5);";
    /* p8 on four nodes: the tasks sharing one are four apart, so no window
     * measures their pair and the node model holds them */
    static const int rr[] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4 }, four[] = { 0, 1, 2, 3, 0, 1, 2, 3 },
                     two[] = { 0, 1, 0, 1, 0, 1, 0, 1 };
    static const double tols[] = { 1e-2, 1e-6 };
    for (size_t k = 0; k < sizeof tols / sizeof tols[0]; k++) {
        node_model_counted(f2, rr, six_nodes, tols[k], 1);
        node_model_counted(p8, four, six_nodes, tols[k], 1);
        node_model_counted(p8, two, six_nodes, tols[k], 0);
    }
}
END_TEST

/* A choice after an xfarm of pipes (issue 15's xfarm -> choice; bench_approx
 * part (f)'s xfarm-choice2) on the six nodes, round robin, by the windows
 * alone. A window of a member's moves held the other member cut after its
 * first task (its items went on through a delay) or not at all, so the
 * farm's choice between the members was seen wrongly; and the branch that
 * both members choose was outside the producer's window, each member's
 * sends to it an independent delay (approx_window.c add_reach,
 * add_choice_merges). FLOW_VERBOSE prints the errors. */
START_TEST(test_flow_farm_choice)
{
    static const char xc[] = "pipe(4); task(\"a\", 5); xfarm(2); pipe(2); task(\"p\", 3);"
                             " task(\"q\", 4); pipe(2); task(\"p\", 3); task(\"q\", 4);"
                             " choice(1, 2); pipe(2); task(\"r1\", 6); task(\"r2\", 6); pipe(2);"
                             " task(\"s1\", 6); task(\"s2\", 7); task(\"z\", 4);";
    static const int rr[] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3 };
#define SIX "NodeName=n[1-3] Speed=1\nNodeName=n[4-6] Speed=2\nDefaultLatency=0.01 " \
            "LocalLatency=0.001\n"
    static const flow_case cases[] = {
        /* measured +0.92%, before +3.2% */
        { xc, "Sharing=static\n" SIX, rr, 0.0125, __LINE__ },
        /* measured +3.22%; before: not measured in the stream style (the
         * CLI's producer style +6.94%) */
        { xc, SIX, rr, 0.035, __LINE__ },
    };
#undef SIX
    whole_states = 1;
    cases_within(cases, sizeof cases / sizeof cases[0]);
    whole_states = 0;
}
END_TEST

/* The cap of a window holding tasks t[0 .. n) (ax_par_window_cap), a->wtask
 * lent the window's tasks for the call. */
static unsigned long cap_holding(skel_approx *a, int *t, int n)
{
    int *keep = a->wtask;
    ax_win w = { .t0 = 0, .nt = n, .edge = -1 };
    a->wtask = t;
    unsigned long cap = ax_par_window_cap(a, &w);
    a->wtask = keep;
    return cap;
}

/* The 65,536 states of a block of several forks (AX_PAR_FORKS_STATES)
 * are that block's alone: m5 (a farm's two members forking to one par)
 * then a second par forked by one task (w, task 10). Until 2026-11-27 one
 * count for the whole skeleton (par_forks) gave w's block and every
 * window 65,536 too. The window caps are asked of windows holding given
 * tasks: w and b (w's block only) keep AX_PAR_STATES; r2 (a branch of
 * m5's block, by dblk) and q, z (a fork and the join) may pass it. Each
 * assert was seen to fail with holds_forks_block made true for every
 * window, or without its dblk clause (2026-11-28). And an inner par's
 * fork nested in a branch is in the outer block but no mate of its fork
 * (holds_block exempted every fork until then). */
START_TEST(test_flow_forks_block)
{
    static const char two[] = "pipe(7); task(\"a\", 5); xfarm(2); pipe(2); task(\"p\", 3);"
                              " task(\"q\", 4); pipe(2); task(\"p\", 3); task(\"q\", 4); par(2);"
                              " pipe(2); task(\"r1\", 6); task(\"r2\", 6); pipe(2);"
                              " task(\"s1\", 6); task(\"s2\", 7); task(\"z\", 4); task(\"w\", 3);"
                              " par(2); task(\"b\", 4); task(\"c\", 3); task(\"y\", 4);";
    static const char nest[] = "pipe(3); task(\"a\", 5); par(2); pipe(3); task(\"b\", 4);"
                               " par(2); task(\"u\", 3); task(\"v\", 3); task(\"d\", 4);"
                               " task(\"c\", 3); task(\"e\", 4);";
    placed x;
    placed_build(&x, two, SKEL_STYLE_STREAM, plats[1]);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    ck_assert_int_eq(ax_block_forks(a, 2), 2);   /* the members' last tasks */
    ck_assert(ax_fork_mate(a, 4, 2));
    ck_assert_uint_eq(ax_par_top(a, 2), AX_PAR_FORKS_STATES);
    ck_assert_int_eq(ax_block_forks(a, 10), 1);  /* w */
    ck_assert_uint_eq(ax_par_top(a, 10), AX_PAR_STATES);
    static int wb[] = { 10, 11 }, r2[] = { 6 }, q2[] = { 2, 9 };
    ck_assert_uint_eq(cap_holding(a, wb, 2), AX_PAR_STATES);       /* w's block alone */
    ck_assert_uint_eq(cap_holding(a, r2, 1), AX_PAR_FORKS_STATES); /* a branch of m5's */
    ck_assert_uint_eq(cap_holding(a, q2, 2), AX_PAR_FORKS_STATES); /* a fork of m5's */
    skel_approx_free(a);
    placed_free(&x);
    placed_build(&x, nest, SKEL_STYLE_STREAM, plats[1]);
    a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    ck_assert(ax_par_fork(a, 0) && ax_par_fork(a, 1));
    ck_assert_int_eq(a->dblk[1], 0);             /* b: in a's block ... */
    ck_assert(!ax_fork_mate(a, 1, 0));           /* ... no mate of a */
    ck_assert_int_eq(ax_block_forks(a, 0), 1);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* A par of three whose fork (and join) no window holds with all its
 * branches: windows of at most 20 states (deal_states), by the windows
 * alone. The windows of the fork's predecessor (the join's successor) cut
 * its lattice and hold none of its partners; those of the fork's own moves
 * hold it with one or two branches (a lattice held in part: the
 * independent delays); none holds all three, so the lattice's rate is the
 * fallback, the mean of the slowest of the independent delays, on every
 * sweep (checked by a print in ax_lat_update while writing this test).
 * Measured: -35.3%, -32.8% (static), +20.7%, +26.0% (processor sharing):
 * the fallback is as coarse as the delays it replaces (docs/
 * approximation.md); the bound catches a zero, NaN or runaway rate. */
START_TEST(test_flow_lat_paths)
{
    static const char p3[] = "pipe(5); task(\"p\", 2); task(\"s\", 4); par(3); task(\"a\", 3);"
                             " task(\"c\", 5); task(\"e\", 4); task(\"j\", 4); task(\"q\", 2);";
    static const int pl3[] = { 0, 1, 2, 0, 1, 2, 0 };
    whole_states = 1;
    deal_states = 20;
    WITHIN(p3, pl3, 0.40);
    whole_states = 0;
    deal_states = 0;
}
END_TEST

/* A loop of mean 2.5 over two stages (cap 1) between two stages, on
 * three nodes: its body is one server, an item's passes one after the
 * other (approx_flow.c), whole and by the windows alone. The serial
 * reduction ran the body's two tasks as a pipeline, bounded by Little's
 * law on the gate: -4.36% (static, producer, the first case) before. */
START_TEST(test_flow_gate)
{
    static const char lg[] = "pipe(4); task(\"s\", 9); task(\"a\", 5); loop(2.5); pipe(2);"
                             " task(\"b\", 6); task(\"c\", 8); task(\"d\", 6);";
    static const int pg[] = { 1, 0, 1, 2, 0 };
    WITHIN(lg, pg, 0.015);           /* measured: -0.16% - -0.93% (ps) */
    whole_states = 1;
    WITHIN(lg, pg, 0.015);           /* measured: the same (one window whole) */
    whole_states = 0;
}
END_TEST

/* An outer loop whose body starts with a one-server loop (nested loops
 * over several stages, each of cap 1): the outer loop is one server too,
 * its pass holding the inner loop's whole stay (approx_flow.c
 * loop_stay). Its body ran as a pipeline bounded by Little's law on the
 * gate before: -12.5%, -13.7% and -10.4% on the three platforms above
 * (producer; +15.1%, +7.4%, +22.8% when the bound was dropped, the review
 * of 27 November); one server: -0.05%, +0.00%, +0.07%. */
#define NESTED_TOL 0.01
START_TEST(test_flow_nested_gate)
{
    static const char nl[] = "pipe(3); task(\"in\", 5); loop(2); pipe(2); loop(1.5); pipe(2);"
                             " task(\"b\", 9); task(\"c\", 7); task(\"d\", 8); task(\"out\", 6);";
    static const int pn2[] = { 0, 1, 2, 0, 1 };
    for (int ps = 0; ps < 3; ps++) {
        double e = rel_err(nl, SKEL_STYLE_PRODUCER, pn2, ps, NULL);
        if (getenv("FLOW_VERBOSE"))
            printf("nested gate, platform %d: %+.4f%%\n", ps, 100 * e);
        ck_assert_msg(fabs(e) <= NESTED_TOL, "platform %d: error %.3g%%", ps, 100 * e);
    }
}
END_TEST

/* One-server loops under processor sharing (the platforms' default):
 * their body's tasks share their own nodes, as ghosts of the loop's task
 * in the windows (approx_flow.c). Two cases of bench_approx part (f)'s
 * loops (APPROX_FLOW_KIND=2, cases 9 and 0), where the loop's task took
 * the node of its heaviest body task and was counted computing there
 * through its whole pass: -11.37% and +7.83% before, +1.41% and +0.27%
 * with the ghosts, +1.47% and +0.10% with their sharers weighed by the
 * pass's phases (test_flow_ps_phase). */
START_TEST(test_flow_ps_server)
{
    static const char l9[] = "pipe(7); task(\"t\", 0.62, data=1e5); loop(1.16); pipe(2);"
                             " task(\"t\", 0.626); task(\"t\", 8.18); task(\"t\", 9.24);"
                             " loop(1.26); pipe(2); task(\"t\", 2.41); task(\"t\", 0.901);"
                             " task(\"t\", 0.743); loop(1.42); task(\"t\", 1.27); task(\"t\", 9.21);";
    static const char p9[] = "LocalLatency=0.0121911 DefaultLatency=0.0572397 Input=h0 Output=h2\n"
                             "NodeName=h0 Speed=2\nNodeName=h1 Speed=7\nNodeName=h2 Speed=3\n"
                             "Link=h0,h2 Latency=0.0665425 Bandwidth=1e+06\n"
                             "Link=h1,h2 Latency=0.0124715 Bandwidth=1e+06\n";
    static const int n9[] = { 0, 2, 2, 1, 0, 1, 1, 1, 2 };
    static const char l0[] = "pipe(5); task(\"t\", 7.35); loop(2.81); task(\"t\", 0.574);"
                             " task(\"t\", 1.46); loop(1.32); pipe(2); task(\"t\", 2.65);"
                             " task(\"t\", 0.944); task(\"t\", 9.85);";
    static const char p0[] = "LocalLatency=0.0031576 DefaultLatency=0.105297 Input=h0 Output=h4\n"
                             "NodeName=h0 Speed=6\nNodeName=h1 Speed=5\nNodeName=h2 Speed=5\n"
                             "NodeName=h3 Speed=8\nNodeName=h4 Speed=8\nNodeName=h5 Speed=1\n"
                             "NodeName=h6 Speed=7\nNodeName=h7 Speed=8\n"
                             "Link=h0,h4 Latency=0.0561364 Bandwidth=1e+06\n"
                             "Link=h1,h2 Latency=0.0176572 Bandwidth=1e+06\n"
                             "Link=h1,h5 Latency=0.0237024 Bandwidth=1e+08\n"
                             "Link=h1,h6 Latency=0.256242 Bandwidth=1e+06\n"
                             "Link=h2,h4 Latency=0.391872 Bandwidth=1e+08\n"
                             "Link=h2,h5 Latency=0.0136995 Bandwidth=1e+06\n"
                             "Link=h3,h4 Latency=0.00158501 Bandwidth=1e+06\n"
                             "Link=h3,h6 Latency=0.625624 Bandwidth=1e+06\n"
                             "Link=h4,h5 Latency=0.0525239 Bandwidth=1e+08\n"
                             "Link=h5,h6 Latency=0.0303737 Bandwidth=1e+08\n"
                             "Link=h6,h7 Latency=0.376188 Bandwidth=1e+06\n";
    static const int n0[] = { 1, 1, 1, 1, 3, 2 };
    static const flow_case cases[] = {
        { l9, p9, n9, 0.03, __LINE__ },         /* case 9 */
        { l0, p0, n0, 0.03, __LINE__ },         /* case 0 */
    };
    cases_within(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* bench_approx part (f)'s own loop case 6 (APPROX_FLOW_KIND=2), producer
 * style: a loop of mean 1.2 over t1, t2, t1 on the node of t0, the stage
 * before the loop (test_flow_ps_phase, test_flow_ps_couple). */
static const char l6[] = "pipe(7); task(\"t\", 2.22, data=1e5); loop(1.2); pipe(2);"
                         " task(\"t\", 1.03); task(\"t\", 0.709); task(\"t\", 6.42);"
                         " loop(1.75); task(\"t\", 0.541, data=1e5);"
                         " task(\"t\", 7.66, data=1e5); loop(1.63); task(\"t\", 5.42);"
                         " task(\"t\", 0.6);";
static const char p6[] = "LocalLatency=0.0425024 DefaultLatency=0.353645 Input=h0 Output=h1\n"
                         "NodeName=h0 Speed=5\nNodeName=h1 Speed=4\n";
static const int n6[] = { 0, 0, 1, 0, 0, 1, 1, 1 };

/* A one-server loop's body task shares its node with the stage before
 * the loop, which hands the loop its item and computes its next one as
 * the pass begins: bench_approx part (f)'s own loop cases 6 and 14
 * (APPROX_FLOW_KIND=2), producer style. In case 6's chain, with t0 and
 * t1 alone on a node (docs/approximation.md), P(t0 computes | t1
 * computes) is 0.42; the ghosts took it given the pass, 0.085, and the
 * approximation read +7.37% and +4.00%. Each sharer weighed by the pass's
 * phases in which a ghost computes (approx_share.c ax_cond_phase,
 * ax_ghost_given): +5.55% and +1.39%. */
START_TEST(test_flow_ps_phase)
{
    static const char l14[] = "pipe(7); task(\"t\", 0.482, data=1e5); loop(2.07);"
                              " task(\"t\", 5.13); task(\"t\", 2.27); loop(1.28); pipe(2);"
                              " task(\"t\", 1.58, data=1e5); task(\"t\", 0.954);"
                              " task(\"t\", 2.63, data=1e5); loop(1.2);"
                              " task(\"t\", 0.801, data=1e5); task(\"t\", 0.306);";
    static const char p14[] = "LocalLatency=0.0129277 DefaultLatency=0.225466 Input=h0 Output=h1\n"
                              "NodeName=h0 Speed=6\nNodeName=h1 Speed=1\nNodeName=h2 Speed=7\n"
                              "NodeName=h3 Speed=6\n"
                              "Link=h0,h2 Latency=0.0396917 Bandwidth=1e+06\n"
                              "Link=h0,h3 Latency=0.289204 Bandwidth=1e+06\n"
                              "Link=h1,h3 Latency=0.00122939 Bandwidth=1e+08\n";
    static const int n14[] = { 2, 0, 3, 1, 2, 1, 0, 0 };
    double e6 = rel_err_on(l6, SKEL_STYLE_PRODUCER, n6, p6, 0, NULL);
    double e14 = rel_err_on(l14, SKEL_STYLE_PRODUCER, n14, p14, 0, NULL);
    if (getenv("FLOW_VERBOSE"))
        printf("ps phase: case 6 %+.4f%%, case 14 %+.4f%%\n", 100 * e6, 100 * e14);
    ck_assert_msg(fabs(e6) <= 0.06, "case 6: error %.3g%%", 100 * e6);
    ck_assert_msg(fabs(e14) <= 0.02, "case 14: error %.3g%%", 100 * e14);
}
END_TEST

/* A one-server loop's ghosts and their sharers slow each other while
 * both compute (processor sharing), so their overlap lasts longer than
 * their mean rates make it: bench_approx part (f)'s own loop cases 6, 22
 * and 39 (APPROX_FLOW_KIND=2), the windows' largest errors there. The
 * windows took a sharer's rate by the ghost's share averaged over the
 * loop's task's phases, and the loop's task at its pass's mean stretch
 * whatever its sharers did: +5.55%, -5.07%, -3.74%. With the loop's task's
 * phase in the state (its ghosts' share of that phase) and its phase's
 * rate cut by the window's sharers of the ghost's node (approx_solve.c
 * owner_factor): +3.92%, -0.61%, -1.42%. */
START_TEST(test_flow_ps_couple)
{
    static const char l22[] = "pipe(5); task(\"t\", 0.473); loop(2.44); pipe(2); task(\"t\", 2.08);"
                              " task(\"t\", 0.695); task(\"t\", 9.94); loop(1.71); pipe(2);"
                              " task(\"t\", 2.8); task(\"t\", 0.503); task(\"t\", 4.23, data=1e5);";
    static const char p22[] = "LocalLatency=0.00559832 DefaultLatency=0.0925737 Input=h0 Output=h1\n"
                              "NodeName=h0 Speed=1\nNodeName=h1 Speed=8\nNodeName=h2 Speed=6\n"
                              "NodeName=h3 Speed=2\n"
                              "Link=h0,h1 Latency=0.0317901 Bandwidth=1e+08\n"
                              "Link=h0,h2 Latency=0.00122938 Bandwidth=1e+06\n"
                              "Link=h0,h3 Latency=0.0330493 Bandwidth=1e+08\n"
                              "Link=h1,h2 Latency=0.0302965 Bandwidth=1e+06\n";
    static const int n22[] = { 2, 0, 2, 2, 0, 0, 0 };
    static const char l39[] = "pipe(7); task(\"t\", 8.05, data=1e5); loop(2.01); task(\"t\", 2.67);"
                              " task(\"t\", 0.387); loop(1.96); pipe(2); task(\"t\", 2.67, data=1e5);"
                              " task(\"t\", 0.747); task(\"t\", 5.56, data=1e5); loop(2.07);"
                              " task(\"t\", 1.97, data=1e5); task(\"t\", 1.93, data=1e5);";
    static const char p39[] = "LocalLatency=0.00617766 DefaultLatency=0.15391 Input=h0 Output=h1\n"
                              "NodeName=h0 Speed=8\nNodeName=h1 Speed=3\n"
                              "Link=h0,h1 Latency=0.0440184 Bandwidth=1e+06\n";
    static const int n39[] = { 0, 1, 1, 0, 1, 1, 1, 1 };
    double e6 = rel_err_on(l6, SKEL_STYLE_PRODUCER, n6, p6, 0, NULL);
    double e22 = rel_err_on(l22, SKEL_STYLE_STREAM, n22, p22, 0, NULL);
    double e39 = rel_err_on(l39, SKEL_STYLE_STREAM, n39, p39, 0, NULL);
    if (getenv("FLOW_VERBOSE"))
        printf("ps couple: case 6 %+.4f%%, case 22 %+.4f%%, case 39 %+.4f%%\n", 100 * e6,
               100 * e22, 100 * e39);
    ck_assert_msg(fabs(e6) <= 0.045, "case 6: error %.3g%%", 100 * e6);
    ck_assert_msg(fabs(e22) <= 0.015, "case 22: error %.3g%%", 100 * e22);
    ck_assert_msg(fabs(e39) <= 0.025, "case 39: error %.3g%%", 100 * e39);
}
END_TEST

/* Nested loops under processor sharing: a one-server loop first in an
 * outer loop's body, every placement of its 5 tasks on 3 nodes (243).
 * The outer loop is one server too (its pass holding the inner loop's
 * stay), every body task a ghost of it, its pass in phases (approx_flow.c
 * want_phases) and each sharer weighed with a ghost where it computes:
 * mean |error| 1.20%, largest 3.88% (1.50% and 6.22% with the ghosts
 * conditioned on the pass, which the largest's bound fails). The outer
 * loop as the serial reduction, Little's law bounding its gate, the inner
 * one server with its ghosts: 3.08% and 14.4% (without the inner ghosts,
 * 4.91% and 19.5%). */
#define NPS_NODES "LocalLatency=0.01 DefaultLatency=0.05 Input=h0 Output=h1\n" \
    "NodeName=h0 Speed=2\nNodeName=h1 Speed=3\nNodeName=h2 Speed=4\n"

/* The approximation's relative error at placement pl against the exact
 * chain's. */
static double nested_err(placed *x, skel_approx *a, const int *pl)
{
    diag err;
    diag_clear(&err);
    skel_search_result *r = skel_search_one(x->model, x->dag, x->plat, pl, 0, &err);
    ck_assert_msg(r, "%s", err.msg);
    skel_approx_result ar;
    ck_assert_msg(skel_approx_place(a, x->model, x->plat, pl, &ar, &err) == 0, "%s", err.msg);
    double e = ar.throughput / r->ranked[0].throughput - 1;
    skel_search_result_free(r);
    return e;
}

/* Skeleton sk placed on platform nodes into *x, and an approximation's
 * workspace for it with default options. */
static skel_approx *approx_for(placed *x, const char *sk, skel_style style, const char *nodes)
{
    placed_build(x, sk, style, nodes);
    diag err;
    diag_clear(&err);
    skel_approx_opts ao = { 0 };
    ao.scv = x->model->scv;
    skel_approx *a = skel_approx_new(x->dag, &ao, &err);
    ck_assert_msg(a, "%s", err.msg);
    return a;
}

/* Every stride-th placement of skeleton sk's n tasks on the 3 nodes of
 * platform nodes (3^n in all): the mean and the largest |error| of the
 * approximation against the search's chain. */
static void sweep_on(const char *sk, skel_style style, const char *nodes, int n, int stride,
                     double *mean, double *worst)
{
    placed x;
    skel_approx *a = approx_for(&x, sk, style, nodes);
    double sum = 0, we = 0;
    int all = 1, count = 0, at = 0;
    for (int i = 0; i < n; i++)
        all *= 3;
    *worst = 0;
    for (int k = 0; k < all; k += stride, count++) {
        int pl[16];
        for (int i = 0, c = k; i < n; i++, c /= 3)
            pl[i] = c % 3;
        double e = nested_err(&x, a, pl);
        sum += fabs(e);
        if (fabs(e) > *worst)
            at = k, we = e;
        *worst = fmax(*worst, fabs(e));
    }
    skel_approx_free(a);
    placed_free(&x);
    *mean = sum / count;
    if (getenv("FLOW_VERBOSE"))
        printf("sweep of %d placements: mean |error| %.3f%%, largest %.3f%% (%+.3f%%, "
               "placement %d)\n", count, 100 * *mean, 100 * *worst, 100 * we, at);
}

/* Every placement of skeleton nl's 5 tasks on NPS_NODES's 3 (243, under
 * processor sharing, the platforms' default): sweep_on. */
static void nested_sweep(const char *nl, skel_style style, const char *nodes, double *mean,
                         double *worst)
{
    sweep_on(nl, style, nodes, 5, 1, mean, worst);
}

START_TEST(test_flow_nested_ps)
{
    static const char nl[] = "pipe(3); task(\"s\", 3); loop(1.3); pipe(2); loop(1.6); pipe(2);"
                             " task(\"a\", 5); task(\"b\", 4); task(\"c\", 3); task(\"d\", 4);";
    double mean, worst;
    nested_sweep(nl, SKEL_STYLE_STREAM, NPS_NODES, &mean, &worst);
    ck_assert_msg(mean <= 0.02 && worst <= 0.05, "mean |error| %.3g%%, largest %.3g%%",
                  100 * mean, 100 * worst);
}
END_TEST

/* A one-server loop last in an outer loop's body (both end at one task),
 * docs/approximation.md's two skeletons, producer style, under processor
 * sharing: 1.20% / 2.99% (mean / largest |error|) and 1.15% / 2.81%
 * (approx_flow.c want_phases, ghost_layout); 2.03% / 6.24% and 2.16% /
 * 7.15% with the ghosts conditioned on the pass as a whole. The
 * outer loop as the serial reduction bounded by Little's law, against the
 * chain with the loops' means kept (dag.c's fix of the same day): 6.39% /
 * 23.5% and 5.26% / 24.9% (against the chain that swapped the means,
 * 12.1% / 39.4% and 4.88% / 30.3%). */
START_TEST(test_flow_nested_end)
{
    static const char n1[] = "pipe(3); task(\"a\", 2); loop(1.5); pipe(2); task(\"b\", 3);"
                             " loop(2); pipe(2); task(\"c\", 4); task(\"e\", 5); task(\"d\", 1);";
    static const char n2[] = "pipe(3); task(\"a\", 4); loop(1.5); pipe(2); task(\"b\", 3);"
                             " loop(1.3); pipe(2); task(\"c\", 5); task(\"e\", 4); task(\"f\", 3);";
    static const char p1[] = "LocalLatency=0.01 DefaultLatency=0.05\n"
                             "NodeName=h0 Speed=2\nNodeName=h1 Speed=3\nNodeName=h2 Speed=4\n";
    const char *skel[] = { n1, n2 }, *plat[] = { p1, NPS_NODES };
    for (int c = 0; c < 2; c++) {
        double mean, worst;
        nested_sweep(skel[c], SKEL_STYLE_PRODUCER, plat[c], &mean, &worst);
        ck_assert_msg(mean <= 0.015 && worst <= 0.04, "skeleton %d: mean |error| %.3g%%, "
                      "largest %.3g%%", c, 100 * mean, 100 * worst);
    }
}
END_TEST

/* A choice and a par inside a one-server loop's body (cap 1): the pass is
 * the mixture of the choice's branches, or the longest of the par's, each
 * branch with its moves in and out (approx_pass.c); such loops were the
 * serial reduction, their gate a Little's-law bound. docs/approximation.md's
 * three skeletons (the review of nestps), producer style, on three nodes
 * of Speed 2, 3, 4, every stride-th placement, both sharings, the bounds
 * on the mean and largest |error| beside the measured ones. The reduction
 * before, on the same placements by contrib/sweep-placements.sh (the CLI,
 * which refuses some ps placements): choice ps 9.70% / 26.3%, nested ps
 * 31.1% / 49.4%; at the default placement -18.8% (choice, static),
 * -11.7% (nested, static): every bound below fails on it. */
#define MIX_NODES "LocalLatency=0.01 DefaultLatency=0.05\n" \
    "NodeName=h0 Speed=2\nNodeName=h1 Speed=3\nNodeName=h2 Speed=4\n"
static const char mix_choice[] = "pipe(3); task(\"a\", 2); loop(1.5); pipe(3); task(\"b\", 3);"
                                 " choice(1, 1); task(\"c\", 4); task(\"f\", 3); task(\"g\", 3);"
                                 " task(\"d\", 1);";
static const char mix_nested[] = "pipe(3); task(\"a\", 2); loop(1.5); pipe(3); task(\"b\", 3);"
                                 " choice(1, 1); loop(2); pipe(2); task(\"c\", 4); task(\"e\", 5);"
                                 " task(\"f\", 3); task(\"g\", 3); task(\"d\", 1);";
static const char mix_par[] = "pipe(3); task(\"a\", 5); loop(2); pipe(3); task(\"f\", 4); par(3);"
                              " pipe(2); task(\"b1\", 3); task(\"b2\", 4); pipe(2); task(\"c1\", 3);"
                              " task(\"c2\", 4); pipe(2); task(\"d1\", 3); task(\"d2\", 4);"
                              " task(\"j\", 5); task(\"z\", 4);";

typedef struct mix_case {
    const char *skel;
    int ntasks, stride, ps;
    double mean, worst;       /* bounds on the mean and largest |error| */
} mix_case;

static void mix_check(const mix_case *c)
{
    double mean, worst;
    const char *plat = c->ps ? MIX_NODES : "Sharing=static\n" MIX_NODES;
    sweep_on(c->skel, SKEL_STYLE_PRODUCER, plat, c->ntasks, c->stride, &mean, &worst);
    ck_assert_msg(mean <= c->mean && worst <= c->worst, "%.40s... (%s): mean |error| %.3g%%, "
                  "largest %.3g%%", c->skel, c->ps ? "ps" : "static", 100 * mean, 100 * worst);
}

START_TEST(test_flow_choice_body)
{
    static const mix_case cases[] = {
        /* the suite takes every second and seventh placement (365, 313;
         * strides prime to 3, so that every task moves), for its time:
         * beside (27 November, the ghosts' phases laid out by the body's
         * tree, approx_pass.c ax_pass_layout; before, walked by task index
         * with a choice's branches in series at full weight: 1.15% /
         * 3.53% and 2.16% / 4.26% under processor sharing, the choice's
         * bound failing) */
        { mix_choice, 6, 2, 0, 0.01, 0.03 },    /* 0.21% / 0.83% */
        { mix_choice, 6, 2, 1, 0.02, 0.033 },   /* 1.16% / 3.13% (the ghosts') */
        { mix_nested, 7, 7, 0, 0.01, 0.03 },    /* 0.43% / 2.22% */
        { mix_nested, 7, 7, 1, 0.025, 0.05 },   /* 2.17% / 4.65% */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        mix_check(&cases[k]);
}
END_TEST

/* The par of the three above, and on the default platform (a node of
 * Speed 1 per task, every move of rate 1: no node shared), where the
 * review measured the reduction -44.3% (0.03937 against 0.07070). */
START_TEST(test_flow_par_body)
{
    static const mix_case cases[] = {
        { mix_par, 10, 1999, 0, 0.01, 0.03 },    /* 30: 0.03% / 0.09% */
        { mix_par, 10, 1999, 1, 0.01, 0.016 },   /* 0.51% / 1.45% (0.68% / 1.81% with
                                                    the branches in series) */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        mix_check(&cases[k]);
    static const int pl[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    char plat[512] = "LocalLatency=1 DefaultLatency=1\n";
    for (int i = 0; i < 10; i++)
        snprintf(plat + strlen(plat), sizeof plat - strlen(plat), "NodeName=n%d Speed=1\n", i);
    double tp, e = rel_err_on(mix_par, SKEL_STYLE_PRODUCER, pl, plat, 0, &tp);
    if (getenv("FLOW_VERBOSE"))
        printf("par body, default platform: %.6g, %+.4f%%\n", tp, 100 * e);
    ck_assert_msg(fabs(e) <= 0.01, "par body: %.6g, error %.3g%%", tp, 100 * e);
}
END_TEST

/* A one-server loop whose body begins with a choice (the feedback and the
 * entry drawing its branch), and a choice next to another or first in a
 * choice's branch (approx_pass.c's ends): one server since branch
 * loopchoice; before, dag_serial.c server_part refused them and the serial
 * reduction answered, its gate a Little's-law bound: the issue's
 * placement -22.5% (0.2155 against 0.2780), every 29th placement static
 * 22.2% / 29.6% (mean / largest |error|). Producer style, on the three
 * nodes above; measured beside the bounds. */
static const char first_choice[] = "pipe(3); task(\"a\", 2); loop(1.5); pipe(2); task(\"b\", 3);"
                                   " loop(2); pipe(2); choice(1, 3); task(\"u\", 4);"
                                   " task(\"v\", 1); task(\"y\", 2); task(\"d\", 1);";
static const char two_choices[] = "pipe(3); task(\"a\", 2); loop(2); pipe(3); choice(1, 3);"
                                  " task(\"u\", 4); task(\"v\", 1); choice(2, 1); task(\"w\", 3);"
                                  " task(\"z\", 2); task(\"y\", 2); task(\"d\", 1);";
static const char branch_choice[] = "pipe(3); task(\"a\", 2); loop(2); pipe(3); task(\"b\", 1);"
                                    " choice(1, 3); pipe(2); choice(1, 1); task(\"u\", 4);"
                                    " task(\"v\", 1); task(\"x\", 2); task(\"w\", 1);"
                                    " task(\"y\", 2); task(\"d\", 1);";

START_TEST(test_flow_choice_first)
{
    static const int pl[] = { 0, 1, 2, 2, 2, 1 };
    double tp, e = rel_err_on(first_choice, SKEL_STYLE_PRODUCER, pl, "Sharing=static\n" MIX_NODES,
                              0, &tp);
    if (getenv("FLOW_VERBOSE"))
        printf("choice first, the issue's placement: %.6g, %+.4f%%\n", tp, 100 * e);
    ck_assert_msg(fabs(e) <= 0.01, "choice first: %.6g, error %.3g%%", tp, 100 * e);
    static const mix_case cases[] = {
        { first_choice, 6, 7, 0, 0.01, 0.03 },
        { first_choice, 6, 7, 1, 0.02, 0.05 },
        { two_choices, 7, 23, 0, 0.01, 0.03 },
        { two_choices, 7, 23, 1, 0.02, 0.05 },
        { branch_choice, 8, 67, 0, 0.01, 0.03 },
        { branch_choice, 8, 67, 1, 0.02, 0.05 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        mix_check(&cases[k]);
}
END_TEST

/* A one-server loop nested in a loop that is not one server (cap 2, a
 * farm): the review's /tmp/review24 skeletons, on its two nodes, every
 * the two alternating placements, both sharings (every placement: nest
 * static 6.8% / 12.5% mean / largest |error|, ps 2.1% / 6.1%; nest2 22.6% /
 * 31.6%, 29.3% / 40.0%, the outer gate's bound; these two placements of
 * nest2 -0.81%, -0.47% static, -15.88%, -7.66% ps since review 25's farm
 * share in that bound, up to -30.0% before; since branch loopps, its outer
 * loop one server, the farm a race in its pass: -0.06%, +0.12% static,
 * +0.60%, +2.34% ps). Since branch loopchoice every move inside the
 * inner body counted its visits over its ends' share of the body's entries
 * and exits (0 inside: infinite), the outer gate's bound NaN, the answer 0
 * items/s, converged; and a choice first in the inner body counted the
 * feedback into each branch m - 1 times, not (m - 1) p (chc). */
#define TWO_NODES "LocalLatency=0.01 DefaultLatency=0.05\nNodeName=h0 Speed=2\nNodeName=h1 Speed=3\n"
START_TEST(test_flow_nest_server)
{
    static const char nest[] = "pipe(3); task(\"s\", 4); loop(2, cap=2); pipe(3); task(\"a\", 3);"
                               " loop(1.5); pipe(2); task(\"b\", 5); task(\"c\", 6); task(\"d\", 4);"
                               " task(\"z\", 5);",
                      nest2[] = "pipe(3); task(\"s\", 4); loop(2); pipe(3); farm(2, \"w\", 3);"
                                " loop(1.5); pipe(2); task(\"b\", 5); task(\"c\", 6); task(\"d\", 4);"
                                " task(\"z\", 5);",
                      chc[] = "pipe(3); task(\"s\", 4); loop(2, cap=2); pipe(3); task(\"a\", 3);"
                              " loop(1.5); pipe(2); choice(1, 3); task(\"u\", 5); task(\"v\", 2);"
                              " task(\"c\", 6); task(\"d\", 4); task(\"z\", 5);";
    static const struct {
        const char *skel;
        int n;
        double tol;
    } cases[] = { { nest, 6, 0.08 }, { nest2, 7, 0.03 }, { chc, 7, 0.08 } };   /* largest: 5.6%, 2.3%, 4.9% */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int ps = 0; ps < 2; ps++)
            for (int code = 0x15; code <= 0x2a; code += 0x15) {   /* alternating */
                int pl[8];
                for (int i = 0; i < cases[k].n; i++)
                    pl[i] = code >> i & 1;
                char plat[256];
                snprintf(plat, sizeof plat, "%s%s", ps ? "" : "Sharing=static\n", TWO_NODES);
                double tp, e = rel_err_on(cases[k].skel, SKEL_STYLE_PRODUCER, pl, plat, 0, &tp);
                if (getenv("FLOW_VERBOSE"))
                    printf("nest server %zu ps %d placement %d: %.6g, %+.4f%%\n", k, ps, code,
                           tp, 100 * e);
                ck_assert_msg(tp > 0 && fabs(e) <= cases[k].tol, "case %zu ps %d placement %d: "
                              "%.6g, error %.3g%%", k, ps, code, tp, 100 * e);
            }
}
END_TEST

/* Review 25 (/tmp/review25), against the exact chain, producer style.
 * Two one-server loops in a row (s; loop(2) over a, b; loop(3) over c, d;
 * z) on two far nodes (DefaultLatency=1.0), b and c apart: the move b -> c
 * was counted min(2, 3) = 2 times per item, not once: 0.28383 against
 * 0.39573 (-28.3%, static) before; measured -0.05% (static), -0.06% (ps).
 * A farm first in a loop's body that is not one server (loop(2) over
 * farm(K), b, c, d; review 24's two nodes, round robin): the gate's
 * Little's-law bound counted every worker at the full visits: farm(2)
 * -20.5% (ps), farm(3) -37.5% (static) before, reported converged;
 * measured -0.26%, +7.83% (farm(2) static, ps), +2.66%, +3.59% (farm(3));
 * FLOW_VERBOSE=1 on 2026-11-28: -0.2608%, +7.8343%, +2.6595%, +3.5888%.
 * Since branch loopps the loop is one server (a farm of tasks in a
 * one-server body is a race of the sender's offers, approx_pass.c
 * pass_farm): +0.28%, +4.15%, -0.03%, +0.38%. */
#define FAR_NODES "LocalLatency=0.01 DefaultLatency=1.0\nNodeName=h0 Speed=2\nNodeName=h1 Speed=2\n"
START_TEST(test_flow_loop_moves)
{
    static const char ll[] = "pipe(4); task(\"s\", 4); loop(2); pipe(2); task(\"a\", 6);"
                             " task(\"b\", 6); loop(3); pipe(2); task(\"c\", 9); task(\"d\", 9);"
                             " task(\"z\", 4);",
                      fl2[] = "pipe(3); task(\"s\", 4); loop(2); pipe(4); farm(2, \"w\", 3);"
                              " task(\"b\", 5); task(\"c\", 6); task(\"d\", 4); task(\"z\", 5);",
                      fl3[] = "pipe(3); task(\"s\", 4); loop(2); pipe(4); farm(3, \"w\", 3);"
                              " task(\"b\", 5); task(\"c\", 6); task(\"d\", 4); task(\"z\", 5);";
    static const int apart[] = { 0, 0, 0, 1, 1, 1 }, rr[] = { 0, 1, 0, 1, 0, 1, 0, 1 };
    static const struct {
        const char *skel, *nodes;
        const int *pl;
        double tol;
    } cases[] = { { ll, FAR_NODES, apart, 0.01 }, { fl2, TWO_NODES, rr, 0.05 },
                  { fl3, TWO_NODES, rr, 0.01 } };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int ps = 0; ps < 2; ps++) {
            char plat[256];
            snprintf(plat, sizeof plat, "%s%s", ps ? "" : "Sharing=static\n", cases[k].nodes);
            double tp, e = rel_err_on(cases[k].skel, SKEL_STYLE_PRODUCER, cases[k].pl, plat, 0,
                                      &tp);
            if (getenv("FLOW_VERBOSE"))
                printf("loop moves %zu ps %d: %.6g, %+.4f%%\n", k, ps, tp, 100 * e);
            ck_assert_msg(fabs(e) <= cases[k].tol, "case %zu ps %d: %.6g, error %.3g%%", k, ps,
                          tp, 100 * e);
        }
}
END_TEST

/* A farm in a one-server body whose sender is not one task (TWO_NODES,
 * producer style, against the exact chain): after a choice (its sender
 * the choice's branch's last task, whichever the item took), and a
 * farm(3) first in the body where the race's odds differ by sender
 * (review 28; closing note 18), and a farm(2) first in a loop(1.5)
 * nested in the body (its sender the task before the nested loop: ps
 * placement 54 -8.96% -> +0.02%, static 6 -8.11% -> -0.26%).
 * FARM_SWEEP=1 prints every placement. */
START_TEST(test_flow_farm_sender)
{
    static const char afc[] = "pipe(3); task(\"s\", 4); loop(2); pipe(3); choice(1, 3);"
                              " task(\"u\", 5); task(\"v\", 2); farm(2, \"w\", 3); task(\"d\", 4);"
                              " task(\"z\", 5);",
                      nfl[] = "pipe(3); task(\"s\", 4); loop(2); pipe(3); task(\"a\", 3);"
                              " loop(1.5); pipe(2); farm(2, \"w\", 3); task(\"b\", 5); task(\"d\", 4);"
                              " task(\"z\", 5);",
                      fl3[] = "pipe(3); task(\"s\", 4); loop(2); pipe(4); farm(3, \"w\", 3);"
                              " task(\"b\", 5); task(\"c\", 6); task(\"d\", 4); task(\"z\", 5);";
    static const struct {
        const char *skel;
        int n, code, ps;
        double tol;
    } cases[] = { { afc, 7, 46, 1, 0.03 }, { fl3, 8, 82, 1, 0.05 }, { nfl, 7, 54, 1, 0.03 },
                  { nfl, 7, 6, 0, 0.03 } };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int sweep = getenv("FARM_SWEEP") != NULL;
        for (int code = sweep ? 0 : cases[k].code; code < (sweep ? 1 << cases[k].n : cases[k].code + 1);
             code++) {
            int pl[8];
            for (int i = 0; i < cases[k].n; i++)
                pl[i] = code >> i & 1;
            char plat[256];
            snprintf(plat, sizeof plat, "%s%s", cases[k].ps ? "" : "Sharing=static\n", TWO_NODES);
            double tp, e = rel_err_on(cases[k].skel, SKEL_STYLE_PRODUCER, pl, plat, 0, &tp);
            if (sweep || getenv("FLOW_VERBOSE"))
                printf("farm sender %zu placement %d: %.6g, %+.4f%%\n", k, code, tp, 100 * e);
            ck_assert_msg(sweep || fabs(e) <= cases[k].tol, "case %zu placement %d: %.6g, error %.3g%%",
                          k, code, tp, 100 * e);
        }
    }
}
END_TEST

/* A throughput or gate bound that is not a positive finite rate is an
 * error, never an answer (the case above answered 0 items/s, converged). */
START_TEST(test_flow_check)
{
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(ax_flow_check(0.5, 0, "t", &err), 0);
    ck_assert_int_eq(ax_flow_check(INFINITY, 1, "b", &err), 0);
    ck_assert_int_lt(ax_flow_check(0, 0, "t", &err), 0);
    ck_assert_int_lt(ax_flow_check(0, 1, "b", &err), 0);
    ck_assert_int_lt(ax_flow_check(NAN, 1, "b", &err), 0);
    diag_clear(&err);
    ck_assert_int_lt(ax_flow_check(INFINITY, 0, "t", &err), 0);
    ck_assert_msg(strstr(err.msg, "internal error: t is inf"), "%s", err.msg);
}
END_TEST

/* ax_flow_eval's last exit: under processor sharing, a one-server body's
 * stretches (its ghosts' sharers) that have not settled in AX_FLOW_PASSES
 * evaluations are not converged, whatever the reduced graph's last fixed
 * point said (review 25: reported converged). mix_choice on MIX_NODES at
 * this placement oscillates: a case of the "body" tests whose own
 * evaluation (not the search's, cold) reaches that exit, found by a
 * temporary count there; the loop_farms bench skeletons fl2 and fl3 reach
 * it too (review 30: fl3 at placement 82 among 9). Its answer is still
 * within the choice sweep's bound (+0.23%). Should the stretches ever
 * settle here, find another case
 * that reaches the exit. */
START_TEST(test_flow_out_of_passes)
{
    static const int pl[] = { 1, 2, 2, 0, 1, 0 };
    placed x;
    skel_approx *a = approx_for(&x, mix_choice, SKEL_STYLE_PRODUCER, MIX_NODES);
    diag err;
    diag_clear(&err);
    skel_approx_result ar;
    ck_assert_msg(skel_approx_place(a, x.model, x.plat, pl, &ar, &err) == 0, "%s", err.msg);
    double e = rel_err_on(mix_choice, SKEL_STYLE_PRODUCER, pl, MIX_NODES, 0, NULL);
    if (getenv("FLOW_VERBOSE"))
        printf("out of passes: %.6g (%+.4f%%), converged %d, %d sweeps\n", ar.throughput,
               100 * e, ar.converged, ar.iterations);
    ck_assert_msg(ar.unsettled, "the out-of-passes exit not taken (%.6g)", ar.throughput);
    ck_assert_msg(!ar.converged, "out of passes reported converged (%.6g)", ar.throughput);
    ck_assert_msg(fabs(e) <= 0.01, "%.6g, error %.3g%%", ar.throughput, 100 * e);
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

/* A par in a one-server loop's body whose branches are not exponential
 * stages (work or a link of scv 0.5, a link that holds an item, a branch
 * holding a choice), two of them on one node under processor sharing: the
 * par's pass is the chain of the branches' phases as gen.c makes them, the
 * node shared in it. Fitted and integrated as independent, the branches
 * lost the sharing: the review's /tmp/r18 skeletons (producer style) were
 * +6.73%, +15.64%, +10.01%, +9.12%, +7.83% (the serial reduction before
 * them -16.93%, -3.91%, +3.56%, -5.83%, -26.50%); now beside. */
#define PAR_BODY(b, c) "pipe(3); task(\"a\", 5); loop(2); pipe(3); task(\"f\", 4); par(2); " \
    b "; " c "; task(\"j\", 5); task(\"z\", 4);"
START_TEST(test_flow_par_shared)
{
    static const char c1[] = PAR_BODY("task(\"b\", 3, scv=0.5)", "task(\"c\", 3, scv=0.5)"),
                      c1e[] = PAR_BODY("task(\"b\", 3)", "task(\"c\", 3)"),
                      c10[] = PAR_BODY("pipe(3); task(\"p\", 6); choice(1, 1); task(\"q\", 3);"
                                       " task(\"r\", 5); task(\"s\", 6)", "task(\"c\", 3)");
    static const int h2[] = { 0, 1, 2, 2, 1, 0 }, h1[] = { 0, 1, 1, 1, 1, 0 },
                     p10[] = { 0, 1, 2, 2, 2, 2, 2, 1, 0 };
    static const struct {
        const char *skel, *plat;
        const int *pl;
        int held;
        double tol;
    } cases[] = {
        { c1, MIX_NODES, h2, 0, 0.005 },                     /* -0.04% */
        { c1, MIX_NODES, h1, 0, 0.005 },                     /* -0.00% */
        { c1e, "DefaultBuffer=1\n" MIX_NODES, h1, 1, 0.005 },  /* +0.05% */
        { c1e, "LinkSCV=0.5\n" MIX_NODES, h1, 1, 0.04 },       /* -2.46% */
        { c10, MIX_NODES, p10, 0, 0.005 },                   /* -0.04% */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double e = rel_err_on(cases[k].skel, SKEL_STYLE_PRODUCER, cases[k].pl, cases[k].plat,
                              cases[k].held, NULL);
        if (getenv("FLOW_VERBOSE"))
            printf("par shared, case %zu: %+.4f%%\n", k, 100 * e);
        ck_assert_msg(fabs(e) <= cases[k].tol, "case %zu: error %.3g%%", k, 100 * e);
    }
}
END_TEST

/* A loop over two stages on links that hold two items (DefaultBuffer=2):
 * its serial reduction takes the platform's buffers, as the windows of
 * any other skeleton do. It kept the rendezvous it was built with, and
 * answered as without buffers, silently. Measured against the chain with
 * the buffers (skel_model_new_placed; it was the rendezvous chain, which
 * the approximation was +4.05% and +7.61% from): the serial reduction
 * -6.60% (producer), -6.51% (stream); one server (approx_flow.c, the
 * gate counting an item in as it is handed to the entry link) -0.89%,
 * -0.92%. */
START_TEST(test_flow_links)
{
    whole_states = 1;
    for (int st = 0; st < 2; st++) {
        skel_style style = st ? SKEL_STYLE_STREAM : SKEL_STYLE_PRODUCER;
        double plain, held;
        rel_err(loopn, style, pn, 1, &plain);
        double e = rel_err(loopn, style, pn, 2, &held);
        if (getenv("FLOW_VERBOSE"))
            printf("buffers %s %+.4f%% (%.6g against %.6g without)\n", st ? "stream" : "producer",
                   100 * e, held, plain);
        ck_assert_msg(fabs(held / plain - 1) > 1e-3, "buffers ignored: %.9g, %.9g", held, plain);
        ck_assert_msg(fabs(e) <= 0.015, "buffers: error %.3g%%", 100 * e);
    }
    whole_states = 0;
}
END_TEST

/* The layout of a one-server loop's pass (approx_pass.c ax_pass_layout),
 * whose segments are the phases the ghosts' sharers are weighed by under
 * processor sharing: unit tasks, moves of 1e-12 s. A nested loop of mean
 * 2 over x, a two-way choice of u and v, y stays 2 * 3 = 6 as
 * ax_pass_stay has it (the layout's own copy, loop_stay, walked the body
 * by task index and summed 2 * 4 = 8: the choice's branches in series at
 * full weight), u computes for half of each of its two passes, and a
 * par's branches overlap (its span the longest of two exponentials,
 * 1.5, not their sum). */
typedef struct lay_case {
    const char *skel;
    int ntasks;
    double total;             /* the pass's segments' lengths */
    int task;                 /* ... and this task's time computing in them */
    double busy;
} lay_case;

static void lay_check(const lay_case *c)
{
    placed x;
    placed_build(&x, c->skel, SKEL_STYLE_PRODUCER, "Sharing=static\nNodeName=h0 Speed=1\n");
    double mu[16], tscv[16], lambda[64], lscv[64];
    int buffer[64] = { 0 };
    ck_assert_int_le(x.dag->nedges, 64);
    for (int i = 0; i < c->ntasks; i++)
        mu[i] = 1, tscv[i] = 1;
    for (int e = 0; e < x.dag->nedges; e++)
        lambda[e] = 1e12, lscv[e] = 1;
    ax_pass_in in = { x.dag, mu, tscv, lambda, lscv, buffer, 1.0, NULL, 0, 0 };
    ax_lay l;
    ck_assert_int_eq(ax_pass_layout(&in, x.dag->pass_at[1], 0, &l), 0);
    double total = 0, busy = 0;
    for (int j = 0; j < l.n; j++) {
        total += l.len[j];
        busy += ax_lay_share(&l, j, c->task) * l.len[j];
    }
    if (getenv("FLOW_VERBOSE"))
        printf("layout of %.40s...: %d segments, %.6f, t%d %.6f\n", c->skel, l.n, total,
               c->task, busy);
    ck_assert_msg(fabs(total - c->total) < 1e-6 && fabs(busy - c->busy) < 1e-6,
                  "%.40s...: pass laid out over %.6f (want %.6f), t%d computing %.6f (want %.6f)",
                  c->skel, total, c->total, c->task, busy, c->busy);
    placed_free(&x);
}

START_TEST(test_flow_layout)
{
    static const lay_case cases[] = {
        /* b, the nested loop's stay (6), g: 8 (10 by loop_stay); u 0.5 * 2 */
        { "pipe(3); task(\"a\", 1); loop(1.5); pipe(3); task(\"b\", 1); loop(2); pipe(3);"
          " task(\"x\", 1); choice(1, 1); task(\"u\", 1); task(\"v\", 1); task(\"y\", 1);"
          " task(\"g\", 1); task(\"d\", 1);", 8, 8.0, 3, 1.0 },
        /* b, the nested loop's stay (6 with the choice weighed 3:1), g; v 0.25 * 2 */
        { "pipe(3); task(\"a\", 1); loop(1.5); pipe(3); task(\"b\", 1); loop(2); pipe(3);"
          " task(\"x\", 1); choice(3, 1); task(\"u\", 1); task(\"v\", 1); task(\"y\", 1);"
          " task(\"g\", 1); task(\"d\", 1);", 8, 8.0, 4, 0.5 },
        /* b, a par of u and v (E max 1.5), g: 3.5 (4 in series); v computes 1 */
        { "pipe(3); task(\"a\", 1); loop(2); pipe(3); task(\"b\", 1); par(2);"
          " task(\"u\", 1); task(\"v\", 1); task(\"g\", 1); task(\"d\", 1);", 6, 3.5, 3, 1.0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        lay_check(&cases[k]);
}
END_TEST

/* A rate of zero (or not finite) is refused naming the original task or
 * move: the flow's reduction divides by them, and used to pass the
 * quotient on (a rate 0 became a reduced rate of 0 or infinity). */
START_TEST(test_flow_bad_rate)
{
    placed x;
    placed_build(&x, loopn, SKEL_STYLE_STREAM, plats[1]);
    diag err;
    diag_clear(&err);
    skel_approx *a = skel_approx_new(x.dag, NULL, &err);
    ck_assert_msg(a, "%s", err.msg);
    double mu[4] = { 5, 9, 9, 1 }, lambda[16];
    for (int e = 0; e < x.dag->nedges && e < 16; e++)
        lambda[e] = 2;
    ck_assert_int_le(x.dag->nedges, 16);
    skel_approx_result r;
    mu[1] = 0;
    ck_assert_int_lt(skel_approx_eval(a, mu, lambda, NULL, &r, &err), 0);
    ck_assert_msg(strstr(err.msg, "compute rate of t1 is 0"), "%s", err.msg);
    mu[1] = 9;
    for (int e = 0; e < x.dag->nedges; e++) {   /* the loop's own move too */
        char want[64];
        snprintf(want, sizeof want, "rate of move %d is 0", e);
        lambda[e] = 0;
        diag_clear(&err);
        ck_assert_int_lt(skel_approx_eval(a, mu, lambda, NULL, &r, &err), 0);
        ck_assert_msg(strstr(err.msg, want), "move %d: %s", e, err.msg);
        lambda[e] = 2;
    }
    ck_assert_msg(skel_approx_eval(a, mu, lambda, NULL, &r, &err) == 0, "%s", err.msg);
    ck_assert(r.throughput > 0 && isfinite(r.throughput));
    skel_approx_free(a);
    placed_free(&x);
}
END_TEST

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The approximation of tree t (default platform, task i on node i) in
 * *x, with its CPU seconds returned (whole_states, deal_states: the
 * options'). */
static double approx_default(skel_tree *t, double *x)
{
    diag err;
    diag_clear(&err);
    double c0 = cpu_now();
    skel_dag *d = skel_dag_build(t, SKEL_STYLE_PRODUCER, &err);
    ck_assert_msg(d, "%s", err.msg);
    skel_model *m = skel_model_new(t, d, &err);
    ck_assert_msg(m, "%s", err.msg);
    int n = skel_tree_ntasks(t), *pl = malloc((size_t)n * sizeof *pl);
    ck_assert_ptr_nonnull(pl);
    for (int i = 0; i < n; i++)
        pl[i] = i;
    skel_platform *p = skel_platform_default(n, &err);
    ck_assert_msg(p, "%s", err.msg);
    skel_approx_opts ao = { 0 };
    ao.scv = m->scv;
    ao.whole_states = whole_states;
    ao.cut_whole_states = whole_states;
    ao.deal_states = deal_states;
    skel_approx *a = skel_approx_new(d, &ao, &err);
    ck_assert_msg(a, "%s", err.msg);
    skel_approx_result r;
    ck_assert_msg(skel_approx_place(a, m, p, pl, &r, &err) == 0, "%s", err.msg);
    *x = r.throughput;
    skel_approx_free(a);
    skel_platform_free(p);
    free(pl);
    skel_model_free(m);
    skel_dag_free(d);
    return cpu_now() - c0;
}

/* The skeleton of BPEL process rel (under the shared inputs), asserted. */
static skel_tree *load_bpel(const char *rel)
{
    diag err;
    diag_clear(&err);
    char *warning = NULL;
    skel_tree *t = bpel_load_skeleton(shared_path(rel), NULL, &warning, &err);
    ck_assert_msg(t, "%s", err.msg);
    free(warning);
    return t;
}

/* ode-TestActivityFlow.bpel: its chain is beyond bench_approx's 300,000
 * states; `skelsched simulate` gives 0.19313 +- 0.0011 items/s (10 x
 * 200,000 events, seed 1; the approximation -0.56%). And ten stages of
 * par(2) and choice(1, 2) alternating, whose chain no machine holds:
 * simulated 0.23192 +- 0.0036 (the same run length and seed), the
 * approximation 0.216378, -6.7% (-8.3%, 0.21263, before a fork's lattice
 * was one delay; docs/approximation.md: what misses). The approximation is
 * deterministic: pinned within 0.5% of its value, and within 10% of the
 * simulation. */
START_TEST(test_flow_big)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = load_bpel("corpus/bpel/ode-TestActivityFlow.bpel");
    double x, s = approx_default(t, &x);
    skel_tree_free(t);
    if (getenv("FLOW_VERBOSE"))
        printf("ode-TestActivityFlow: %g items/s, %.3f CPU s\n", x, s);
    ck_assert_msg(fabs(x / 0.193134 - 1) < 0.02, "ode-TestActivityFlow: %g", x);
    ck_assert_msg(s < 5, "ode-TestActivityFlow: %.2f CPU s", s);
    char sk[4096];
    int n = snprintf(sk, sizeof sk, "pipe(21); task(\"t\", 3);");
    for (int k = 0; k < 10; k++)
        n += snprintf(sk + n, sizeof sk - (size_t)n, "%s task(\"x\", %d); task(\"y\", %d);"
                      " task(\"j\", 4);", k % 2 ? " choice(1, 2);" : " par(2);", 2 + k % 3, 3);
    t = skel_parse_string(sk, (size_t)n, "ten.skel", &err);
    ck_assert_msg(t, "%s", err.msg);
    s = approx_default(t, &x);
    skel_tree_free(t);
    if (getenv("FLOW_VERBOSE"))
        printf("ten stages: %g items/s, %.3f CPU s\n", x, s);
    ck_assert_msg(fabs(x / 0.23192 - 1) < 0.10, "ten stages: %g", x);
    ck_assert_msg(fabs(x / 0.216378 - 1) < 0.005, "ten stages: %g, not 0.216378", x);
    ck_assert_msg(s < 5, "ten stages: %.2f CPU s", s);
}
END_TEST

/* spec11-purchase.bpel (spec20-purchaseOrderProcess.bpel is the same
 * skeleton): one par of three branches of 2, 3 and 2 tasks between two
 * tasks, 9 tasks, 10,434 reachable states. Its par's block is past
 * deal_states, so by the windows alone (the whole model past
 * cut_whole_states, or until 2026-11-27 any deadline: the search's,
 * tests/unit/test_search_par.c) its windows held the fork
 * and some branches, each lattice held in part as independent delays:
 * -45.3% on the default platform (bench_approx part (f)). Against the
 * whole model as one window (exact, test_flow_exact). */
START_TEST(test_flow_purchase)
{
    skel_tree *t = load_bpel("corpus/bpel/spec11-purchase.bpel");
    double exact, x;
    approx_default(t, &exact);
    whole_states = 1;
    const char *ds = getenv("FLOW_DEAL_STATES");
    deal_states = ds ? strtoul(ds, NULL, 10) : 0;
    double s = approx_default(t, &x);
    whole_states = 0;
    deal_states = 0;
    skel_tree_free(t);
    if (getenv("FLOW_VERBOSE"))
        printf("purchase: exact %.10g, windows alone %.10g (%+.3f%%), %.3f CPU s\n", exact, x,
               100 * (x / exact - 1), s);
    ck_assert_msg(fabs(exact / 0.2044618164 - 1) < 1e-8, "purchase exact: %.10g", exact);
    ck_assert_msg(fabs(x / exact - 1) < 0.05, "purchase by the windows alone: %g, exact %g", x,
                  exact);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("approx_flow");
    TCase *tc = tcase_create("approx_flow");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_flow_exact);
    tcase_add_test(tc, test_flow_tolerance);
    tcase_add_test(tc, test_flow_par_chain);
    tcase_add_test(tc, test_flow_lat_paths);
    tcase_add_test(tc, test_flow_gate);
    tcase_add_test(tc, test_flow_links);
    tcase_add_test(tc, test_flow_nested_gate);
    tcase_add_test(tc, test_flow_ps_server);
    tcase_add_test(tc, test_flow_ps_phase);
    tcase_add_test(tc, test_flow_nested_ps);
    tcase_add_test(tc, test_flow_nested_end);
    tcase_add_test(tc, test_flow_bad_rate);
    tcase_add_test(tc, test_flow_big);
    suite_add_tcase(s, tc);
    TCase *tcp = tcase_create("couple");   /* CK_RUN_CASE=couple: this alone */
    tcase_set_timeout(tcp, 300);
    tcase_add_test(tcp, test_flow_ps_couple);
    suite_add_tcase(s, tcp);
    TCase *tfp = tcase_create("farmpar");   /* CK_RUN_CASE=farmpar: a par after a farm */
    tcase_set_timeout(tfp, 300);
    tcase_add_test(tfp, test_flow_farm_par);
    tcase_add_test(tfp, test_flow_ps_node);
    tcase_add_test(tfp, test_flow_farm_choice);
    tcase_add_test(tfp, test_flow_forks_block);
    suite_add_tcase(s, tfp);
    TCase *tnc = tcase_create("nodeconv");   /* CK_RUN_CASE=nodeconv: this alone */
    tcase_set_timeout(tnc, 300);
    tcase_add_test(tnc, test_flow_node_converged);
    suite_add_tcase(s, tnc);
    TCase *tl = tcase_create("layout");   /* CK_RUN_CASE=layout: this alone */
    tcase_add_test(tl, test_flow_layout);
    suite_add_tcase(s, tl);
    TCase *tb = tcase_create("body");   /* CK_RUN_CASE=body: choices and pars in a loop */
    tcase_set_timeout(tb, 300);
    tcase_add_test(tb, test_flow_choice_body);
    tcase_add_test(tb, test_flow_par_body);
    tcase_add_test(tb, test_flow_choice_first);
    tcase_add_test(tb, test_flow_nest_server);
    tcase_add_test(tb, test_flow_loop_moves);
    tcase_add_test(tb, test_flow_check);
    tcase_add_test(tb, test_flow_out_of_passes);
    suite_add_tcase(s, tb);
    TCase *tfs = tcase_create("farmsender");   /* CK_RUN_CASE=farmsender: this alone */
    tcase_set_timeout(tfs, 300);
    tcase_add_test(tfs, test_flow_farm_sender);
    suite_add_tcase(s, tfs);
    TCase *tsh = tcase_create("shared");   /* CK_RUN_CASE=shared: a par's node shared */
    tcase_set_timeout(tsh, 300);
    tcase_add_test(tsh, test_flow_par_shared);
    suite_add_tcase(s, tsh);
    TCase *tp = tcase_create("purchase");   /* CK_RUN_CASE=purchase: this alone */
    tcase_set_timeout(tp, 300);
    tcase_add_test(tp, test_flow_purchase);
    suite_add_tcase(s, tp);
    return run_suite(s);
}
