/* test_skel_control: par, choice and loop in the skeleton language
 * (docs/skeleton-language.md). Each construct's generated model is solved
 * and compared with a PEPA model written by hand from the semantics (active
 * rates in the senders instead of Processor/Network components: the same
 * chain), or with a skeleton that must give the same chain; then the
 * errors, printing, building by hand, and the placement search. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skeleton/skeleton.h"
#include "testutil.h"

/* Generate the producer-style model of a skeleton, print it, and solve the
 * printed text (so the weighted passive rates also make the round trip). */
static void solve_skel_by(solved *x, const char *skel, skel_style style, pepa_method method)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(skel, strlen(skel), "t.skel", &err);
    ck_assert_msg(t, "%s", err.msg);
    skel_dag *d = skel_dag_build(t, style, &err);
    ck_assert_msg(d, "%s", err.msg);
    skel_model *m = skel_model_new(t, d, &err);
    ck_assert_msg(m, "%s", err.msg);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert(f);
    pepa_model_print(m->pepa, f);
    fclose(f);
    ck_assert_msg(solve_text(x, buf, method) == 0, "%s\n%s", x->err.msg, buf);
    free(buf);
    skel_model_free(m);
    skel_dag_free(d);
    skel_tree_free(t);
}

static void solve_skel(solved *x, const char *skel, skel_style style)
{
    solve_skel_by(x, skel, style, PEPA_METHOD_DIRECT);
}

static void solve_hand(solved *x, const char *pepa)
{
    ck_assert_msg(solve_text(x, pepa, PEPA_METHOD_DIRECT) == 0, "%s", x->err.msg);
}

/* Every listed action has the same throughput in both. */
static void same_throughput(const solved *a, const solved *b, const char *const *actions)
{
    for (int k = 0; actions[k]; k++)
        ck_assert_msg(fabs(thr_of(a, actions[k]) - thr_of(b, actions[k])) <=
                          1e-9 * thr_of(b, actions[k]),
                      "%s: %.12g generated, %.12g by hand", actions[k], thr_of(a, actions[k]),
                      thr_of(b, actions[k]));
}

static void fails(const char *skel, skel_style style, const char *expected)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(skel, strlen(skel), "t.skel", &err);
    skel_dag *d = t ? skel_dag_build(t, style, &err) : NULL;
    ck_assert_msg(!d, "accepted, but should fail with: %s", expected);
    ck_assert_msg(strcmp(err.msg, expected) == 0, "got '%s', expected '%s'", err.msg, expected);
    skel_tree_free(t);
}

/* ---- one test per construct, against a hand-written model ---------------- */

START_TEST(test_choice_by_hand)
{
    solved g, h;
    solve_skel(&g,
               "pipe(3); task(\"a\", 10); choice(1, 3); task(\"b\", 1); task(\"c\", 2);"
               " task(\"d\", 10);",
               SKEL_STYLE_PRODUCER);
    /* the producer routes a quarter of its items to b, the rest to c */
    solve_hand(&h, "A = (comp_0, 2.5).A1 + (comp_0, 7.5).A2;\n"
                   "A1 = (move_0_1, 1).A;  A2 = (move_0_2, 1).A;\n"
                   "B = (move_0_1, infty).(comp_1, 1).(move_1_3, infty).B;\n"
                   "C = (move_0_2, infty).(comp_2, 2).(move_2_3, infty).C;\n"
                   "D = (move_1_3, 1).D1 + (move_2_3, 1).D1;\n"
                   "D1 = (comp_3, 10).D;\n"
                   "A <move_0_1, move_0_2> (B <> C) <move_1_3, move_2_3> D\n");
    static const char *const acts[] = { "comp_0", "comp_1", "comp_2", "comp_3", NULL };
    same_throughput(&g, &h, acts);
    ck_assert_rel(thr_of(&g, "comp_1") / thr_of(&g, "comp_0"), 0.25, 1e-12);
    ck_assert_rel(thr_of(&g, "comp_3"), thr_of(&g, "comp_0"), 1e-12);
    solved_free(&h);
    solved_free(&g);
}
END_TEST

START_TEST(test_par_by_hand)
{
    solved g, h;
    solve_skel(&g,
               "pipe(3); task(\"a\", 10); par(2); task(\"b\", 1);"
               " pipe(2); task(\"c\", 2); task(\"c2\", 3); task(\"d\", 10);",
               SKEL_STYLE_PRODUCER);
    /* fork to both branches in either order, join both in either order */
    solve_hand(&h, "A = (comp_0, 10).A1;\n"
                   "A1 = (move_0_1, 1).A2 + (move_0_2, 1).A3;\n"
                   "A2 = (move_0_2, 1).A;  A3 = (move_0_1, 1).A;\n"
                   "B = (move_0_1, infty).(comp_1, 1).(move_1_4, infty).B;\n"
                   "C = (move_0_2, infty).(comp_2, 2).(move_2_3, 1).C;\n"
                   "C2 = (move_2_3, infty).(comp_3, 3).(move_3_4, infty).C2;\n"
                   "D = (move_1_4, 1).D1 + (move_3_4, 1).D2;\n"
                   "D1 = (move_3_4, 1).D3;  D2 = (move_1_4, 1).D3;\n"
                   "D3 = (comp_4, 10).D;\n"
                   "A <move_0_1, move_0_2> (B <> (C <move_2_3> C2)) <move_1_4, move_3_4> D\n");
    static const char *const acts[] = { "comp_0", "comp_1", "comp_2", "comp_3", "comp_4",
                                        NULL };
    same_throughput(&g, &h, acts);
    /* every item visits every branch once */
    ck_assert_rel(thr_of(&g, "comp_1"), thr_of(&g, "comp_0"), 1e-12);
    ck_assert_rel(thr_of(&g, "comp_3"), thr_of(&g, "comp_0"), 1e-12);
    solved_free(&h);
    solved_free(&g);
}
END_TEST

START_TEST(test_loop_several_stages_by_hand)
{
    solved g, h;
    solve_skel(&g,
               "pipe(3); task(\"a\", 10); loop(3); pipe(2); task(\"b\", 8); task(\"c\", 9);"
               " task(\"d\", 10);",
               SKEL_STYLE_PRODUCER);
    /* c sends the item back to b with probability 2/3; one item inside */
    solve_hand(&h, "A = (comp_0, 10).(move_0_1, 1).A;\n"
                   "B = (move_0_1, infty).B1 + (move_2_1, infty).B1;\n"
                   "B1 = (comp_1, 8).(move_1_2, 1).B;\n"
                   "C = (move_1_2, infty).C1;\n"
                   "C1 = (comp_2, 3).C2 + (comp_2, 6).C3;\n"
                   "C2 = (move_2_3, 1).C;  C3 = (move_2_1, 1).C;\n"
                   "D = (move_2_3, infty).(comp_3, 10).D;\n"
                   "G0 = (move_0_1, infty).G1;  G1 = (move_2_3, infty).G0;\n"
                   "(A <move_0_1> (B <move_1_2, move_2_1> C) <move_2_3> D) <move_0_1, move_2_3> G0\n");
    static const char *const acts[] = { "comp_0", "comp_1", "comp_2", "comp_3", NULL };
    same_throughput(&g, &h, acts);
    ck_assert_rel(thr_of(&g, "comp_1"), 3 * thr_of(&g, "comp_0"), 1e-9);
    solved_free(&h);
    solved_free(&g);
}
END_TEST

/* A task computed a geometric number of times with mean n is one
 * exponential phase of rate mu / n: the same chain as the plain task. */
START_TEST(test_loop_one_stage_is_slower_task)
{
    static const struct {
        const char *loop, *plain;
    } cases[] = {
        { "pipe(3); task(\"a\", 10); loop(4); task(\"b\", 8); task(\"d\", 10);",
          "pipe(3); task(\"a\", 10); task(\"b\", 2); task(\"d\", 10);" },
        { "pipe(3); task(\"a\", 10); loop(2.5); deal(3, \"w\", 5); task(\"d\", 10);",
          "pipe(3); task(\"a\", 10); deal(3, \"w\", 2); task(\"d\", 10);" },
        { "pipe(2); task(\"a\", 10); loop(2); loop(3); farm(2, \"w\", 12);",
          "pipe(2); task(\"a\", 10); farm(2, \"w\", 2);" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        solved g, h;
        solve_skel(&g, cases[c].loop, SKEL_STYLE_PRODUCER);
        solve_skel(&h, cases[c].plain, SKEL_STYLE_PRODUCER);
        ck_assert_uint_eq(g.sp->n, h.sp->n);
        ck_assert_rel(thr_of(&g, "comp_0"), thr_of(&h, "comp_0"), 1e-9);
        solved_free(&h);
        solved_free(&g);
    }
}
END_TEST

/* Nesting: flow conservation holds and nothing deadlocks. */
START_TEST(test_nesting_conserves_items)
{
    solved g;   /* 47,628 states: iteratively */
    solve_skel_by(&g,
               "pipe(5); task(\"in\", 5);"
               " choice(0.4, 0.6);"
               "   par(2); task(\"x\", 3); loop(2); task(\"y\", 6);"
               "   pipe(2); task(\"z\", 4); farm(2, \"w\", 3);"
               " task(\"j\", 6);"
               " loop(1.5); pipe(2); task(\"p\", 7); task(\"q\", 7);"
               " task(\"out\", 5);",
               SKEL_STYLE_STREAM, PEPA_METHOD_GS);
    double x0 = thr_of(&g, "comp_0");
    ck_assert(x0 > 0);
    ck_assert_rel(thr_of(&g, "comp_1"), 0.4 * x0, 1e-7);          /* x */
    ck_assert_rel(thr_of(&g, "comp_2"), 0.4 * 2 * x0, 1e-7);      /* y, twice each */
    ck_assert_rel(thr_of(&g, "comp_3"), 0.6 * x0, 1e-7);          /* z */
    ck_assert_rel(thr_of(&g, "comp_4") + thr_of(&g, "comp_5"), 0.6 * x0, 1e-7);
    ck_assert_rel(thr_of(&g, "comp_6"), x0, 1e-7);                /* j joins */
    ck_assert_rel(thr_of(&g, "comp_7"), 1.5 * x0, 1e-7);          /* p */
    ck_assert_rel(thr_of(&g, "comp_9"), x0, 1e-7);                /* out */
    solved_free(&g);
}
END_TEST

/* Nested loops over several stages that end at the same task: the inner
 * loop's feedback is not an exit of the outer one, so each keeps its mean
 * (b 1.5 computations per item, c and e 3). The outer loop's exit weight
 * was applied to the inner feedback too: e's exits (e ends both bodies)
 * became 1/3 out, 1/3 back to b, 1/3 back to c, b 2 computations per
 * item (the means swapped). */
START_TEST(test_nested_loops_share_end)
{
    solved g;
    solve_skel(&g,
               "pipe(3); task(\"a\", 2); loop(1.5); pipe(2); task(\"b\", 3);"
               " loop(2); pipe(2); task(\"c\", 4); task(\"e\", 5); task(\"d\", 1);",
               SKEL_STYLE_PRODUCER);
    double x0 = thr_of(&g, "comp_0");
    ck_assert(x0 > 0);
    ck_assert_rel(thr_of(&g, "comp_1"), 1.5 * x0, 1e-9);          /* b */
    ck_assert_rel(thr_of(&g, "comp_2"), 3 * x0, 1e-9);            /* c */
    ck_assert_rel(thr_of(&g, "comp_3"), 3 * x0, 1e-9);            /* e */
    ck_assert_rel(thr_of(&g, "move_3_1"), 0.5 * x0, 1e-9);        /* outer feedback */
    ck_assert_rel(thr_of(&g, "move_3_2"), 1.5 * x0, 1e-9);        /* inner feedback */
    ck_assert_rel(thr_of(&g, "comp_4"), x0, 1e-9);                /* d */
    solved_free(&g);
}
END_TEST

/* ---- language: errors, printing, building by hand ------------------------ */

START_TEST(test_errors)
{
    const skel_style P = SKEL_STYLE_PRODUCER, S = SKEL_STYLE_STREAM;
    fails("choice(1, 2); task(\"a\", 1); task(\"b\", 1);", P,
          "t.skel:1:1: a choice cannot start the skeleton: put the task that receives or "
          "produces the items before it");
    fails("pipe(2); par(2); task(\"a\", 1); task(\"b\", 1); task(\"c\", 1);", S,
          "t.skel:1:10: a par cannot start the skeleton: put the task that receives or "
          "produces the items before it");
    fails("pipe(2); task(\"a\", 1); choice(1, 0); task(\"b\", 1); task(\"c\", 1);", P,
          "t.skel:1:34: the weight of a branch must be positive (got 0)");
    fails("pipe(2); task(\"a\", 1); loop(0.5); task(\"b\", 1);", P,
          "t.skel:1:29: the mean number of iterations must be at least 1 and finite (got 0.5)");
    fails("pipe(3); task(\"a\", 1); loop(2, cap=2); pipe(2); task(\"b\", 1); task(\"c\", 1);"
          " task(\"d\", 1);",
          P,
          "t.skel:1:24: cap=2: a loop over 2 tasks holds at most 1 items at once (with as "
          "many items as tasks the feedback deadlocks)");
    fails("pipe(2); task(\"a\", 1); loop(2); pipe(2); task(\"b\", 1); task(\"c\", 1);", P,
          "t.skel:1:24: a loop over several stages cannot end the skeleton in the producer "
          "style: put the task that consumes the items after it");
    fails("pipe(3); task(\"a\", 1); loop(2); par(2); task(\"b\", 1); task(\"c\", 1);"
          " task(\"d\", 1);",
          P,
          "t.skel:1:24: the body of this loop ends in a par: put the task that joins its "
          "branches last in the body");
    fails("pipe(3); task(\"a\", 1); loop(2); pipe(2); task(\"b\", 1); choice(1, 1);"
          " task(\"c\", 1); task(\"e\", 1); task(\"d\", 1);",
          P,
          "t.skel:1:24: the body of this loop ends in a choice: put a task that takes the "
          "item from either branch last in the body");
    fails("pipe(2); task(\"a\", 1); xfarm(2); choice(1, 1); task(\"b\", 1); task(\"c\", 1);"
          " task(\"d\", 1);",
          P,
          "t.skel:1:34: a choice cannot be a member of a deal or farm directly: put it inside "
          "a pipe between tasks");
    fails("pipe(4); task(\"a\", 1); par(2); task(\"b\", 1); task(\"c\", 1);"
          " loop(2); pipe(2); task(\"d\", 1); task(\"e\", 1); task(\"f\", 1);",
          P,
          "t.skel:1:60: a loop over several stages cannot follow a par directly: put the "
          "task that joins its branches before it");
    fails("pipe(3); task(\"a\", 1); loop(2); pipe(2); par(2); task(\"b\", 1);"
          " task(\"c\", 1); task(\"d\", 1); task(\"f\", 1);",
          P,
          "t.skel:1:24: the body of this loop starts with a par: put the task that forks the "
          "item first in the body");
    fails("pipe(3); task(\"a\", 1); par(2); task(\"b\", 1); task(\"c\", 1);"
          " choice(1, 1); task(\"d\", 1); task(\"e\", 1);",
          P,
          "t.skel:1:60: a choice cannot follow a par directly: put the task that joins its "
          "branches before it");
    fails("pipe(2); task(\"a\", 1); loop(2); task(\"b\", 1); task(\"c\", 1);", P,
          "t.skel:1:47: text after the end of the skeleton (the pipe at 1:1 is complete)");
    fails("pipe(2); task(\"a\", 1); loop(2, size=3); task(\"b\", 1);", P,
          "t.skel:1:32: unknown option 'size' of a loop (known: cap)");
}
END_TEST

START_TEST(test_print_roundtrip)
{
    const char *text = "pipe(4);\n"
                       "\ttask(\"a\", 1);\n"
                       "\tchoice(0.25, 0.75);\n"
                       "\t\tpar(2);\n"
                       "\t\t\ttask(\"b\", 2);\n"
                       "\t\t\ttask(\"c\", 3);\n"
                       "\t\ttask(\"d\", 4);\n"
                       "\tloop(2.5, cap=2);\n"
                       "\t\tpipe(3);\n"
                       "\t\t\ttask(\"e\", 5);\n"
                       "\t\t\ttask(\"f\", 6);\n"
                       "\t\t\ttask(\"g\", 7);\n"
                       "\ttask(\"h\", 8);\n";
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(text, strlen(text), "t.skel", &err);
    ck_assert_msg(t, "%s", err.msg);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    skel_tree_print(t, f);
    fclose(f);
    ck_assert_str_eq(buf, text);
    free(buf);
    skel_tree_free(t);
}
END_TEST

START_TEST(test_build_by_hand)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_tree_new("hand");
    skel_node *pipe = skel_node_new(t, SKEL_PIPE, 0, 0, &err);
    skel_node *ch = skel_node_new(t, SKEL_CHOICE, 0, 0, &err);
    skel_node *a = skel_task_new(t, "a", 4, 0, 0, &err);
    skel_node *b = skel_task_new(t, "b", 1, 0, 0, &err);
    skel_node *c = skel_task_new(t, "c", 1, 0, 0, &err);
    b->prob = 2;                  /* weights, normalised by finish */
    c->prob = 6;
    ck_assert(skel_node_add(t, pipe, a, &err) == 0 && skel_node_add(t, pipe, ch, &err) == 0 &&
              skel_node_add(t, ch, b, &err) == 0 && skel_node_add(t, ch, c, &err) == 0);
    ck_assert_msg(skel_tree_finish(t, pipe, &err) == 0, "%s", err.msg);
    ck_assert_rel(b->prob, 0.25, 1e-15);
    ck_assert_rel(c->prob, 0.75, 1e-15);
    skel_tree_free(t);

    t = skel_tree_new("hand");
    skel_node *l = skel_node_new(t, SKEL_LOOP, 3, 4, &err);
    skel_node *x = skel_task_new(t, "x", 1, 0, 0, &err);
    l->mean = 0.5;
    ck_assert(skel_node_add(t, l, x, &err) == 0);
    ck_assert(skel_tree_finish(t, l, &err) < 0);
    ck_assert_str_eq(err.msg, "hand:3:4: the mean number of iterations of a loop must be at "
                              "least 1 and finite (got 0.5)");
    skel_tree_free(t);
}
END_TEST

/* The search's bound for these skeletons is sound: pruning finds the
 * brute-force best. */
START_TEST(test_search_matches_brute_force)
{
    const char *skel = "pipe(3); task(\"a\", 4); choice(1, 2); task(\"b\", 3);"
                       " loop(2); pipe(2); task(\"c\", 5); task(\"e\", 6); task(\"d\", 4);";
    const char *plat = "NodeName=n1 Speed=1\nNodeName=n2 Speed=2\nNodeName=n3 Speed=0.5\n"
                       "NodeName=n4 Speed=3\nDefaultLatency=0.05\nLocalLatency=0.001\n";
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(skel, strlen(skel), "t.skel", &err);
    skel_dag *d = t ? skel_dag_build(t, SKEL_STYLE_PRODUCER, &err) : NULL;
    skel_model *m = d ? skel_model_new(t, d, &err) : NULL;
    skel_platform *p = skel_platform_parse_string(plat, strlen(plat), "p.conf", NULL, NULL, &err);
    ck_assert_msg(m && p, "%s", err.msg);
    ck_assert(d->extended);
    skel_search_opts fast = { .top = 3 }, brute = { .top = 3, .no_prune = 1, .no_symmetry = 1 };
    skel_search_result *r1 = skel_search(m, d, p, &fast, &err);
    ck_assert_msg(r1, "%s", err.msg);
    skel_search_result *r2 = skel_search(m, d, p, &brute, &err);
    ck_assert_msg(r2, "%s", err.msg);
    ck_assert(r1->optimal && r2->optimal);
    ck_assert_rel(r1->ranked[0].throughput, r2->ranked[0].throughput, 1e-9);
    ck_assert_uint_eq(r2->evaluated, 4 * 4 * 4 * 4 * 4);
    ck_assert(r1->evaluated < r2->evaluated);
    skel_search_result_free(r2);
    skel_search_result_free(r1);
    skel_platform_free(p);
    skel_model_free(m);
    skel_dag_free(d);
    skel_tree_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("skeleton-control");
    TCase *tc = tcase_create("semantics");
    tcase_add_test(tc, test_choice_by_hand);
    tcase_add_test(tc, test_par_by_hand);
    tcase_add_test(tc, test_loop_several_stages_by_hand);
    tcase_add_test(tc, test_loop_one_stage_is_slower_task);
    tcase_add_test(tc, test_nesting_conserves_items);
    tcase_add_test(tc, test_nested_loops_share_end);
    suite_add_tcase(s, tc);
    tc = tcase_create("language");
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_print_roundtrip);
    tcase_add_test(tc, test_build_by_hand);
    tcase_add_test(tc, test_search_matches_brute_force);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
