/* test_share: Sharing=ps (processor sharing among the tasks computing).
 *  - the generated model of a placement (skel_model_new_placed: one
 *    Node<j> component per node holding several tasks) has the throughput
 *    of hand-written PEPA models of the same semantics, exactly, and the
 *    states of the model with one component per task;
 *  - the placement search's state-by-state re-rating of the
 *    placement-independent chain gives, for every placement of small
 *    pipes, farms and deals, the throughput of the generated model of that
 *    placement solved afresh, and the search with its bounds finds the
 *    best of them;
 *  - Sharing=static is Benoit et al. 2004's equitable sharing (its table is in
 *    test_skel_amoget); ps is never slower than static;
 *  - a task's work of scv < 1 (Erlang phases in its processor) and > 1
 *    (balanced H2) has the throughput of textbook hand-written models;
 *  - with buffered links and link phases (the job's --buffer, LinkSCV=,
 *    WorkSCV=) the search ranks by the full semantics: its best is the best
 *    of every placement's own generated model solved afresh, on cases where
 *    the rendezvous model's best placement is clearly worse. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pepa/parse.h"
#include "skeleton/skeleton.h"

#include "placed.h"
#include "suite.h"

static double hand_thr(const char *text, const char *act)
{
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_string(text, strlen(text), "hand.pepa", &err);
    ck_assert_msg(m, "%s", err.msg);
    double x = placed_solve_thr(m, act, NULL);
    pepa_model_free(m);
    return x;
}

/* The generated model of placement `where` on b's platform, solved. */
static double placed_thr(placed *b, const int *where, unsigned *states)
{
    diag err;
    diag_clear(&err);
    skel_model *m = skel_model_new_placed(b->tree, b->dag, b->plat, where, &err);
    ck_assert_msg(m, "%s", err.msg);
    double x = placed_solve_thr(m->pepa, "comp_0", states);
    skel_model_free(m);
    return x;
}

static int close_rel(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

static const char pipe2[] = "pipe(2); task(\"a\", 2.0); task(\"b\", 3.0);";
static const char one_node[] = "LocalLatency=0.05 Input=local Output=local\n"
                               "NodeName=n1 Speed=2\n";

/* Two stages on one node of speed 2: rates 4 and 6 alone, half of them
 * when both compute. The node's component tracks which stages compute. */
static const char pipe2_ps[] =
    "r0 = 4; r1 = 6; l = 20;\n"
    "S0 = (move_in_0, infty).(comp_0, infty).(move_0_1, infty).S0;\n"
    "S1 = (move_0_1, infty).(comp_1, infty).(move_1_out, infty).S1;\n"
    "N00 = (move_in_0, infty).N10 + (move_0_1, infty).N01;\n"
    "N10 = (comp_0, r0).N00 + (move_0_1, infty).N11;\n"
    "N01 = (move_in_0, infty).N11 + (comp_1, r1).N00;\n"
    "N11 = (comp_0, r0 / 2).N01 + (comp_1, r1 / 2).N10;\n"
    "Net = (move_in_0, l).Net + (move_0_1, l).Net + (move_1_out, l).Net;\n"
    "Net <move_in_0, move_0_1, move_1_out> ((S0 <move_0_1> S1) <move_in_0, move_0_1, comp_0, comp_1> N00)\n";

/* The same with Speed/2 for each stage at all times (Benoit et al. 2004). */
static const char pipe2_static[] =
    "r0 = 2; r1 = 3; l = 20;\n"
    "S0 = (move_in_0, infty).(comp_0, infty).(move_0_1, infty).S0;\n"
    "S1 = (move_0_1, infty).(comp_1, infty).(move_1_out, infty).S1;\n"
    "P = (comp_0, r0).P + (comp_1, r1).P;\n"
    "Net = (move_in_0, l).Net + (move_0_1, l).Net + (move_1_out, l).Net;\n"
    "Net <move_in_0, move_0_1, move_1_out> ((S0 <move_0_1> S1) <comp_0, comp_1> P)\n";

START_TEST(test_pipe2_hand)
{
    placed b;
    placed_build(&b, pipe2, SKEL_STYLE_STREAM, one_node);
    int where[2] = { 0, 0 };
    unsigned n_ps, n_static;
    double ps = placed_thr(&b, where, &n_ps);
    ck_assert_msg(close_rel(ps, hand_thr(pipe2_ps, "comp_0"), 1e-12), "ps %.15g vs hand %.15g", ps,
                  hand_thr(pipe2_ps, "comp_0"));
    b.plat->sharing = SKEL_SHARE_STATIC;
    double st = placed_thr(&b, where, &n_static);
    ck_assert_msg(close_rel(st, hand_thr(pipe2_static, "comp_0"), 1e-12), "static %.15g", st);
    ck_assert_uint_eq(n_ps, n_static);        /* no extra states */
    ck_assert(ps > st);
    placed_free(&b);
}
END_TEST

/* Benoit et al. 2004's pipeline with stages 1 and 3 on one node and stage 2 on
 * another (the README's best placement): the shared node's component
 * tracks stages 0 and 2 only. */
static const char pipe3[] =
    "pipe(3); task(\"a\", 1.0); task(\"b\", 1.0); task(\"c\", 1.0);";
static const char two_nodes[] = "LocalLatency=0.0001 Input=local Output=local\n"
                                "NodeName=f1,f2 Speed=10\nLink=f1,f2 Latency=0.001\n";
static const char pipe3_ps[] =
    "r = 10; loc = 10000; lnk = 1000;\n"
    "S0 = (move_in_0, infty).(comp_0, infty).(move_0_1, infty).S0;\n"
    "S1 = (move_0_1, infty).(comp_1, infty).(move_1_2, infty).S1;\n"
    "S2 = (move_1_2, infty).(comp_2, infty).(move_2_out, infty).S2;\n"
    "P1 = (comp_1, r).P1;\n"
    "N00 = (move_in_0, infty).N10 + (move_1_2, infty).N01;\n"
    "N10 = (comp_0, r).N00 + (move_1_2, infty).N11;\n"
    "N01 = (move_in_0, infty).N11 + (comp_2, r).N00;\n"
    "N11 = (comp_0, r / 2).N01 + (comp_2, r / 2).N10;\n"
    "Net = (move_in_0, loc).Net + (move_0_1, lnk).Net + (move_1_2, lnk).Net\n"
    "    + (move_2_out, loc).Net;\n"
    "Net <move_in_0, move_0_1, move_1_2, move_2_out>\n"
    "  (((S0 <move_0_1> S1 <move_1_2> S2) <comp_1> P1) <move_in_0, move_1_2, comp_0, comp_2> N00)\n";

START_TEST(test_pipe3_hand)
{
    placed b;
    placed_build(&b, pipe3, SKEL_STYLE_STREAM, two_nodes);
    int where[3] = { 0, 1, 0 };
    unsigned n;
    double ps = placed_thr(&b, where, &n);
    double hand = hand_thr(pipe3_ps, "comp_0");
    ck_assert_msg(close_rel(ps, hand, 1e-12), "ps %.15g vs hand %.15g", ps, hand);
    ck_assert_uint_eq(n, 27);                 /* Benoit et al. 2004's 27 states */
    placed_free(&b);
}
END_TEST

/* Every placement on a 3-node platform: the search's re-rated chain equals
 * the generated model of the placement, under both sharings. */
static const char *const skels[] = {
    "pipe(3); task(\"a\", 1.0); task(\"b\", 3.0); task(\"c\", 2.0);",
    "pipe(3); task(\"a\", 2.0); farm(2, \"w\", 1.0); task(\"c\", 3.0);",
    "pipe(3); task(\"a\", 2.0); deal(2, \"w\", 1.0); task(\"c\", 3.0);",
    "pipe(2); task(\"a\", 3.0); loop(2.0); task(\"b\", 5.0);",
    /* variable work: Erlang phases and H2 branches inside Node<j> */
    "pipe(3); task(\"a\", 1.0, scv=0.25); task(\"b\", 3.0, scv=4); task(\"c\", 2.0, scv=0.5);",
    "pipe(3); task(\"a\", 2.0, scv=0.5); farm(2, \"w\", 1.0, scv=0.34); task(\"c\", 3.0);",
    /* one-server loops over pipes: each body on one node made a product
     * with dead local states (a second item let in) and crashed gen */
    "pipe(3); task(\"a\", 2.0); loop(1.5); pipe(2); task(\"b\", 3.0); task(\"c\", 4.0);"
    " task(\"d\", 1.0);",
    "pipe(3); task(\"a\", 2.0); loop(1.5); pipe(2); task(\"b\", 3.0); loop(2); pipe(2);"
    " task(\"c\", 4.0); task(\"e\", 5.0); task(\"d\", 1.0);",
};
static const char three_nodes[] = "LocalLatency=0.01 Input=n1 Output=local\n"
                                  "NodeName=n1 Speed=1\nNodeName=n2 Speed=2\nNodeName=n3 Speed=5\n"
                                  "Link=n1,n2 Latency=0.1\nLink=n2,n3 Latency=0.3\n"
                                  "Link=n1,n3 Latency=0.05\n";

START_TEST(test_search_matches_generated)
{
    placed b;
    placed_build(&b, skels[_i / 2], _i % 2 ? SKEL_STYLE_PRODUCER : SKEL_STYLE_STREAM,
                 three_nodes);
    int nt = skel_tree_ntasks(b.tree);
    for (int sh = 0; sh < 2; sh++) {
        b.plat->sharing = sh ? SKEL_SHARE_STATIC : SKEL_SHARE_PS;
        skel_search_opts o = { 0 };
        o.no_prune = o.no_symmetry = 1;
        o.top = 100000;
        diag err;
        diag_clear(&err);
        skel_search_result *r = skel_search(b.model, b.dag, b.plat, &o, &err);
        ck_assert_msg(r, "%s", err.msg);
        ck_assert(r->nranked == (int)r->total);
        for (int k = 0; k < r->nranked; k++) {
            const skel_search_entry *e = &r->ranked[k];
            double fresh = placed_thr(&b, e->placement, NULL);
            ck_assert_msg(close_rel(e->throughput, fresh, 1e-8),
                          "%s %s placement %d: search %.12g, generated %.12g", skels[_i / 2],
                          skel_sharing_name(b.plat->sharing), k, e->throughput, fresh);
        }
        (void)nt;
        /* bounds and symmetry on: the same best (bounds sound under ps and
         * with non-exponential work) */
        skel_search_opts fast = { 0 };
        fast.top = 1;
        skel_search_result *f = skel_search(b.model, b.dag, b.plat, &fast, &err);
        ck_assert_msg(f, "%s", err.msg);
        ck_assert_msg(close_rel(f->ranked[0].throughput, r->ranked[0].throughput, 1e-9),
                      "%s: pruned search %.12g, brute force %.12g", skels[_i / 2],
                      f->ranked[0].throughput, r->ranked[0].throughput);
        skel_search_result_free(f);
        skel_search_result_free(r);
    }
    placed_free(&b);
}
END_TEST

/* ---- variability of the work (scv=) ----------------------------------- */

/* Stage 0 with Erlang-2 work (scv 0.5) of mean 1/4, written the textbook
 * way: the phases are states of the stage itself. The generator puts them
 * in Processor0 instead, the stage taking part in each (work_0). */
static const char pipe2_erlang[] =
    "r0 = 4; r1 = 3; l = 20;\n"
    "S0 = (move_in_0, l).A1;\n"
    "A1 = (ph, 2 * r0).A2;\n"
    "A2 = (comp_0, 2 * r0).S0c;\n"
    "S0c = (move_0_1, infty).S0;\n"
    "S1 = (move_0_1, l).(comp_1, r1).(move_1_out, l).S1;\n"
    "S0 <move_0_1> S1\n";

/* Stage 0 with balanced-means H2 work (scv 4): the branch is drawn as the
 * item arrives (the generator draws it as the previous item completes:
 * the same sequence of independent work times). */
static void pipe2_h2(char *buf, size_t n)
{
    double p, ra, rb;
    skel_h2(4.0, &p, &ra, &rb);
    snprintf(buf, n,
             "r0 = 4; r1 = 3; l = 20;\n"
             "S0 = (move_in_0, %.17g * l).A + (move_in_0, %.17g * l).B;\n"
             "A = (comp_0, %.17g * r0).S0c;\n"
             "B = (comp_0, %.17g * r0).S0c;\n"
             "S0c = (move_0_1, infty).S0;\n"
             "S1 = (move_0_1, l).(comp_1, r1).(move_1_out, l).S1;\n"
             "S0 <move_0_1> S1\n", p, 1 - p, ra, rb);
}

static const char two_apart[] = "LocalLatency=0.05 DefaultLatency=0.05 Input=local Output=local\n"
                                "NodeName=n1,n2 Speed=2\n";

START_TEST(test_erlang_hand)
{
    placed b;
    placed_build(&b, "pipe(2); task(\"a\", 2.0, scv=0.5); task(\"b\", 1.5);",
                 SKEL_STYLE_STREAM, two_apart);
    int where[2] = { 0, 1 };
    double gen = placed_thr(&b, where, NULL), hand = hand_thr(pipe2_erlang, "comp_0");
    ck_assert_msg(close_rel(gen, hand, 1e-12), "erlang %.15g vs hand %.15g", gen, hand);
    placed_free(&b);
    /* less variable work, more throughput than exponential */
    placed_build(&b, "pipe(2); task(\"a\", 2.0); task(\"b\", 1.5);", SKEL_STYLE_STREAM,
                 two_apart);
    ck_assert(placed_thr(&b, where, NULL) < gen);
    placed_free(&b);
}
END_TEST

START_TEST(test_h2_hand)
{
    placed b;
    placed_build(&b, "pipe(2); task(\"a\", 2.0, scv=4); task(\"b\", 1.5);", SKEL_STYLE_STREAM,
                 two_apart);
    int where[2] = { 0, 1 };
    char text[2048];
    pipe2_h2(text, sizeof text);
    double gen = placed_thr(&b, where, NULL), hand = hand_thr(text, "comp_0");
    ck_assert_msg(close_rel(gen, hand, 1e-12), "h2 %.15g vs hand %.15g", gen, hand);
    placed_free(&b);
}
END_TEST

/* The platform's WorkSCV= for tasks that give none; a task's scv= wins. */
START_TEST(test_work_scv_default)
{
    placed b;
    char plat[512];
    snprintf(plat, sizeof plat, "WorkSCV=0.5\n%s", two_apart);
    placed_build(&b, "pipe(2); task(\"a\", 2.0); task(\"b\", 1.5, scv=1);", SKEL_STYLE_STREAM,
                 plat);
    int where[2] = { 0, 1 };
    double x = placed_thr(&b, where, NULL);
    ck_assert_msg(close_rel(x, hand_thr(pipe2_erlang, "comp_0"), 1e-12), "%.15g", x);
    placed_free(&b);
}
END_TEST

/* A task computing alone gets the whole node: ps >= static everywhere. */
START_TEST(test_ps_not_slower)
{
    placed b;
    placed_build(&b, skels[1], SKEL_STYLE_STREAM, three_nodes);
    int where[4];
    for (int code = 0; code < 81; code++) {
        for (int t = 0, c = code; t < 4; t++, c /= 3)
            where[t] = c % 3;
        b.plat->sharing = SKEL_SHARE_PS;
        double ps = placed_thr(&b, where, NULL);
        b.plat->sharing = SKEL_SHARE_STATIC;
        double st = placed_thr(&b, where, NULL);
        ck_assert_msg(ps >= st * (1 - 1e-9), "placement %d: ps %.12g < static %.12g", code, ps,
                      st);
    }
    placed_free(&b);
}
END_TEST

/* A node whose tasks have too many joint local states is refused with a
 * message naming it, not built. */
START_TEST(test_product_limit)
{
    placed b;
    placed_build(&b, "farm(20, \"w\", 1.0);", SKEL_STYLE_STREAM, one_node);
    int where[20] = { 0 };
    diag err;
    diag_clear(&err);
    ck_assert_ptr_null(skel_model_new_placed(b.tree, b.dag, b.plat, where, &err));
    ck_assert_msg(strstr(err.msg, "node n1") && strstr(err.msg, "Sharing=static"), "%s", err.msg);
    placed_free(&b);
}
END_TEST

/* A one-server loop over a pipe whose body shares a node (the review's
 * case, 27 November): the node's product holds its loop's gate, so it has
 * no state where the body's tasks wait on each other, and the chain has
 * the states of the model with one component per task (Sharing=static's
 * count: the tuple is a function of the tasks' states). */
static const char loop_pipe[] = "pipe(3); task(\"a\", 2.0); loop(1.5); pipe(2);"
                                " task(\"b\", 3.0); task(\"c\", 4.0); task(\"d\", 1.0);";
static const char loop_plat[] = "LocalLatency=0.01 DefaultLatency=0.05 Input=h0 Output=h1\n"
                                "NodeName=h0 Speed=2\nNodeName=h1 Speed=3\nNodeName=h2 Speed=4\n";

START_TEST(test_loop_body_shared)
{
    static const int where[][4] = { { 0, 2, 2, 1 }, { 0, 2, 2, 2 }, { 2, 2, 2, 2 } };
    placed b;
    placed_build(&b, loop_pipe, SKEL_STYLE_PRODUCER, loop_plat);
    unsigned n_ps, n_static;
    double ps = placed_thr(&b, where[_i], &n_ps);
    b.plat->sharing = SKEL_SHARE_STATIC;
    double st = placed_thr(&b, where[_i], &n_static);
    ck_assert_uint_eq(n_ps, n_static);
    ck_assert_msg(ps >= st * (1 - 1e-12), "ps %.12g < static %.12g", ps, st);
    placed_free(&b);
}
END_TEST

/* A loop of cap 2 over a task and a deal deadlocks (docs/skeleton-language.md):
 * with the body on one node under ps, the node's product reaches the state
 * where they wait on each other; the generator says so, naming the node,
 * instead of reading past its transitions. */
START_TEST(test_loop_deadlock_named)
{
    placed b;
    placed_build(&b, "pipe(3); task(\"a\", 2.0); loop(3, cap=2); pipe(2); task(\"b\", 3.0);"
                 " deal(2, \"c\", 4.0); task(\"d\", 1.0);", SKEL_STYLE_PRODUCER, loop_plat);
    int where[5] = { 0, 2, 2, 2, 1 };
    diag err;
    diag_clear(&err);
    ck_assert_ptr_null(skel_model_new_placed(b.tree, b.dag, b.plat, where, &err));
    ck_assert_msg(strstr(err.msg, "node h2") && strstr(err.msg, "deadlocks"), "%s", err.msg);
    placed_free(&b);
}
END_TEST

/* ---- the search under buffered links (issue 16) ---------------------- */

/* Cases where buffering changes the best placement: the rendezvous model
 * co-locates tasks to avoid slow links that a buffer overlaps with work. */
static const struct {
    const char *skel, *plat;
    int buffer;                      /* the job's buffering (#SKEL --buffer) */
} buffered_cases[] = {
    { "pipe(2); task(\"a\", 10.0); task(\"b\", 10.0);",
      "LocalLatency=0.001 DefaultLatency=0.05\nNodeName=n1 Speed=2\nNodeName=n2 Speed=1.5\n"
      "NodeName=n3 Speed=1\nLink=n1,n3 Latency=0.02\n", 3 },
    { "pipe(3); task(\"a\", 40.0); task(\"b\", 25.0); task(\"c\", 50.0);",
      "LocalLatency=0.0002 WorkSCV=0.5 LinkSCV=0.5 DefaultLatency=0.01\nNodeName=n1 Speed=1\n"
      "NodeName=n2 Speed=2\nNodeName=n3 Speed=1.5\nLink=n1,n2 Latency=0.004\n", 2 },
    { "pipe(3); task(\"r\", 30.0); farm(2, \"w\", 10.0); task(\"s\", 40.0);",
      "LocalLatency=0.001 LinkSCV=0.5 DefaultLatency=0.03\nNodeName=n1 Speed=2\n"
      "NodeName=n2 Speed=1\nNodeName=n3 Speed=1\n", 1 },
};

/* The best placement of b's model under b's platform, by the search. */
static skel_search_result *search_best(placed *b, skel_model *m)
{
    diag err;
    diag_clear(&err);
    skel_search_opts o = { 0 };
    o.top = 1;
    skel_search_result *r = skel_search(m, b->dag, b->plat, &o, &err);
    ck_assert_msg(r && r->nranked == 1 && r->optimal, "%s", err.msg);
    return r;
}

static skel_model *unplaced_model(placed *b)
{
    diag err;
    diag_clear(&err);
    skel_model *m = skel_model_new_placed(b->tree, b->dag, b->plat, NULL, &err);
    ck_assert_msg(m, "%s", err.msg);
    return m;
}

START_TEST(test_search_buffered)
{
    placed b;
    placed_build(&b, buffered_cases[_i].skel, SKEL_STYLE_PRODUCER, buffered_cases[_i].plat);
    int nt = skel_tree_ntasks(b.tree), nn = b.plat->nnodes, total = 1;
    ck_assert(nt > 0 && nt < 8);
    for (int i = 0; i < nt; i++)
        total *= nn;
    /* every placement's own model under the full semantics, solved */
    b.plat->job_buffer = buffered_cases[_i].buffer;
    int *where = calloc((size_t)nt, sizeof *where);
    ck_assert(where);
    double best = 0;
    for (int c = 0; c < total; c++) {
        for (int i = 0, v = c; i < nt; i++, v /= nn)
            where[i] = v % nn;
        double x = placed_job_thr(&b, where);
        best = x > best ? x : best;
    }
    skel_model *full = unplaced_model(&b);
    for (int e = 0; e < full->nedges; e++)
        ck_assert_int_eq(full->buffer[e], full->edges[e].from >= 0 && full->edges[e].to >= 0
                                              ? buffered_cases[_i].buffer : 0);
    skel_search_result *r = search_best(&b, full);
    double chosen = placed_job_thr(&b, r->ranked[0].placement);
    ck_assert_msg(close_rel(r->ranked[0].throughput, best, 1e-8) && close_rel(chosen, best, 1e-8),
                  "case %d: search %.10g (its placement solved: %.10g), best of %d: %.10g", _i,
                  r->ranked[0].throughput, chosen, total, best);
    /* the rendezvous model's choice, run with the buffers, is clearly worse */
    b.plat->job_buffer = 0;
    skel_model *rdv = unplaced_model(&b);
    skel_search_result *q = search_best(&b, rdv);
    b.plat->job_buffer = buffered_cases[_i].buffer;
    double naive = placed_job_thr(&b, q->ranked[0].placement);
    ck_assert_msg(naive < 0.99 * best, "case %d: the rendezvous choice gives %.10g of %.10g", _i,
                  naive, best);
    skel_search_result_free(q);
    skel_model_free(rdv);
    skel_search_result_free(r);
    skel_model_free(full);
    free(where);
    placed_free(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("share");
    TCase *tc = tcase_create("ps");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_pipe2_hand);
    tcase_add_test(tc, test_pipe3_hand);
    tcase_add_loop_test(tc, test_search_matches_generated, 0,
                        2 * (int)(sizeof skels / sizeof *skels));
    tcase_add_test(tc, test_erlang_hand);
    tcase_add_test(tc, test_h2_hand);
    tcase_add_test(tc, test_work_scv_default);
    tcase_add_test(tc, test_ps_not_slower);
    tcase_add_test(tc, test_product_limit);
    tcase_add_loop_test(tc, test_loop_body_shared, 0, 3);
    tcase_add_test(tc, test_loop_deadlock_named);
    tcase_add_loop_test(tc, test_search_buffered, 0,
                        (int)(sizeof buffered_cases / sizeof *buffered_cases));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
