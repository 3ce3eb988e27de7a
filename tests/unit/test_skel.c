/* test_skel: the skeleton module - parser and its errors, the task graph,
 * the 16 task templates of Yaikhom et al. 2007 (expected text worked out by hand from
 * Algorithm 2), the system equation, the wflow2pepa corpus (every file
 * parses, generates, re-parses to the same text and chain, derives and
 * solves without deadlock), the platform format and placement rates.
 *
 * The corpus is read from $SHARED_DIR/corpus/wflow2pepa (default
 * $SRCDIR/../shared, else TOP_SRCDIR/../shared), never copied into the
 * project. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skeleton/skeleton.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"
#include "suite.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

/* ---- helpers ----------------------------------------------------------- */

static skel_tree *parse_ok(const char *text)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(text, strlen(text), "t.skel", &err);
    ck_assert_msg(t, "unexpected error: %s", err.msg);
    return t;
}

static void parse_fails(const char *text, const char *expected)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(text, strlen(text), "t.skel", &err);
    ck_assert_msg(!t, "parsed but should fail with: %s", expected);
    ck_assert_msg(strcmp(err.msg, expected) == 0, "got '%s', expected '%s'", err.msg, expected);
}

static char *print_model(pepa_model *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert(f);
    pepa_model_print(m, f);
    fclose(f);
    return buf;
}

typedef struct gen {
    skel_tree *tree;
    skel_dag *dag;
    skel_model *model;
    char *text;
} gen;

static void gen_ok(gen *g, const char *skel, skel_style style)
{
    diag err;
    diag_clear(&err);
    g->tree = parse_ok(skel);
    g->dag = skel_dag_build(g->tree, style, &err);
    ck_assert_msg(g->dag, "%s", err.msg);
    g->model = skel_model_new(g->tree, g->dag, &err);
    ck_assert_msg(g->model, "%s", err.msg);
    g->text = print_model(g->model->pepa);
}

static void gen_free(gen *g)
{
    free(g->text);
    skel_model_free(g->model);
    skel_dag_free(g->dag);
    skel_tree_free(g->tree);
}

/* The definitions of task i (lines "Task<i> = ..." and "Task<i>_<k> = ..."). */
static char *task_text(const char *model, int i)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "Task%d = ", i);
    snprintf(b, sizeof b, "Task%d_", i);
    size_t cap = strlen(model) + 1, n = 0;
    char *out = calloc(cap, 1);
    ck_assert(out);
    for (const char *l = model; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (strncmp(l, a, strlen(a)) == 0 || strncmp(l, b, strlen(b)) == 0) {
            memcpy(out + n, l, len);
            n += len;
            out[n++] = '\n';
        }
        l += len + (e != NULL);
    }
    out[n] = '\0';
    return out;
}

/* Derive and solve m, the generator's model from or its text parsed again;
 * check the chain has no deadlock and one closed class. Returns the
 * throughput of task 0's computation and the number of states. */
static double solve(pepa_model *m, const skel_model *from, uint32_t *nstates)
{
    diag err;
    diag_clear(&err);
    pepa_system *s = pepa_system_new(m, &err);
    ck_assert_msg(s, "%s", err.msg);
    pepa_derive_opts o = { .max_states = 20000000 };
    pepa_space *sp = pepa_derive(s, &o, &err);
    ck_assert_msg(sp, "%s", err.msg);
    pepa_chain_class cls;
    ck_assert(pepa_space_classify(sp, &cls, &err) == 0);
    ck_assert_msg(cls.bottom == 1, "%u closed classes", cls.bottom);
    double *pi = calloc(sp->n, sizeof *pi);
    double *thr = calloc((size_t)s->nactions, sizeof *thr);
    ck_assert(pi && thr);
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    pepa_solve_result res;
    ck_assert_msg(pepa_solve(sp->q, &so, pi, &res, &err) == 0, "%s", err.msg);
    ck_assert(pepa_space_throughput(sp, pi, thr, &err) == 0);
    /* No deadlock: every task keeps computing (a deadlocked chain is one
     * absorbing closed class, where every throughput is 0). */
    double t = 0;
    for (int i = 0; i < from->ntasks; i++) {     /* by the generator's ids, found by name in m */
        const char *name = pepa_model_action(from->pepa, from->comp_action[i]);
        int a = pepa_model_find_action(m, name);
        ck_assert_msg(a >= 0 && thr[a] > 0, "%s never happens", name);
        t = i == 0 ? thr[a] : t;
    }
    if (nstates)
        *nstates = sp->n;
    free(thr);
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(s);
    return t;
}

/* ---- parser ------------------------------------------------------------- */

START_TEST(test_parse_fig2)
{
    /* Yaikhom et al. 2007, §3: the six-stage example of Fig. 1 and 2. */
    skel_tree *t = parse_ok("pipe(6);\n task(\"task\", 1.0);\n farm(3, \"task\", 3.0);\n"
                            " deal(2, \"task\", 2.0);\n farm(3, \"task\", 3.0);\n"
                            " deal(3, \"task\", 3.0);\n task(\"task\", 1.0);\n");
    ck_assert_int_eq(skel_tree_ntasks(t), 13);
    skel_node *r = skel_tree_root(t);
    ck_assert_int_eq(r->kind, SKEL_PIPE);
    ck_assert_int_eq(r->nchildren, 6);
    ck_assert_int_eq(r->children[1]->kind, SKEL_FARM);
    ck_assert_int_eq(r->children[2]->kind, SKEL_DEAL);
    ck_assert_int_eq(skel_tree_task(t, 12)->index, 12);
    ck_assert(skel_tree_task(t, 4)->rate == 2.0);
    ck_assert(skel_tree_task(t, 13) == NULL);
    skel_tree_free(t);
}
END_TEST

START_TEST(test_parse_expr_and_options)
{
    skel_tree *t = parse_ok("// comment\npipe(2); /* block\n comment */\n"
                            "task(\"a\", 1.1 + 2.0 * (3 - 1) / 4, data=1e6);  # hash\n"
                            "task(\"b\\\"q\", -(-2));\n");
    ck_assert(fabs(skel_tree_task(t, 0)->rate - 2.1) < 1e-12);
    ck_assert(skel_tree_task(t, 0)->data == 1e6);
    ck_assert(skel_tree_task(t, 1)->rate == 2.0);
    ck_assert_str_eq(skel_tree_task(t, 1)->name, "b\"q");
    skel_tree_free(t);
}
END_TEST

START_TEST(test_parse_errors)
{
    parse_fails("", "t.skel:1:1: empty skeleton description");
    parse_fails("  // nothing\n", "t.skel:2:1: empty skeleton description");
    parse_fails("pipe(2);\n  task(\"a\", 1.0);\n", "t.skel:1:1: pipe(2) has only 1 of its 2 components");
    parse_fails("pipe(1);\n task(\"a\", 1.0);\n task(\"b\", 1);\n",
                "t.skel:3:2: text after the end of the skeleton (the pipe at 1:1 is complete)");
    parse_fails("pipe(0);", "t.skel:1:6: pipe needs at least 1 component");
    parse_fails("pipe(5000);", "t.skel:1:6: pipe(5000): more than 4096 components");
    parse_fails("task(\"a\", 0);", "t.skel:1:11: the rate of a task must be positive (got 0)");
    parse_fails("task(\"a\", 1.0 - 2);", "t.skel:1:11: the rate of a task must be positive (got -1)");
    parse_fails("task(\"a\", 1/0);", "t.skel:1:12: division by zero");
    parse_fails("deal(2.5, \"a\", 1);",
                "t.skel:1:6: expected the number of components of deal, found a non-integer");
    parse_fails("task(\"a\" 1);", "t.skel:1:10: expected ',', found a number");
    parse_fails("task(\"a\", 1)", "t.skel:1:13: expected ';' after the statement, found end of input");
    parse_fails("foo(1);", "t.skel:1:1: unknown skeleton 'foo' (expected pipe, task, deal, farm, xdeal, xfarm, par, choice or loop)");
    parse_fails("pipe(1);\n\ttask(\"a, 1);", "t.skel:2:7: unterminated string");
    parse_fails("/* open", "t.skel:1:1: unterminated comment");
    parse_fails("task(\"a\", 1, foo=1);", "t.skel:1:14: unknown option 'foo' (known: data, scv)");
    parse_fails("task(\"a\", 1, scv=0);", "t.skel:1:18: scv= must be between 0.01 and 100 (got 0)");
    parse_fails("task(\"a\", 1, scv=2, scv=3);", "t.skel:1:21: scv= given twice");
    parse_fails("task(\"a\", 1, data=-1);",
                "t.skel:1:19: data size must be non-negative and finite (got -1)");
    parse_fails("xdeal(2);\n pipe(1);\n  task(\"a\", 1);\n",
                "t.skel:1:1: xdeal(2) has only 1 of its 2 components");
    parse_fails("task(\"a\", 1e999);", "t.skel:1:11: number 1e999 is out of range");
    parse_fails("task(\"a\", 1);\x01", "t.skel:1:14: unexpected byte 0x01");
    parse_fails("task(\"a\", @);", "t.skel:1:11: unexpected character '@'");
    parse_fails("task(a, 1);", "t.skel:1:6: expected the task's name in quotes, found a name");
}
END_TEST

START_TEST(test_parse_depth_bound)
{
    /* 100 nested pipes: a clear message, no stack overflow. */
    char buf[2048] = "";
    for (int i = 0; i < 100; i++)
        strcat(buf, "pipe(1);");
    strcat(buf, "task(\"a\", 1);");
    parse_fails(buf, "t.skel:1:513: skeletons nested deeper than 64 levels");
    /* The bound itself is fine. */
    buf[0] = '\0';
    for (int i = 0; i < 63; i++)
        strcat(buf, "pipe(1);");
    strcat(buf, "task(\"a\", 1);");
    skel_tree_free(parse_ok(buf));
}
END_TEST

/* Mutations of a valid description never crash (run under ASan/UBSan). */
START_TEST(test_parse_garbage)
{
    const char *base = "pipe(3);\n task(\"a\", 1.1 + 2);\n xdeal(2);\n  pipe(2);\n"
                       "   task(\"b\", 2);\n   deal(2, \"c\", 3);\n  farm(2, \"d\", 1);\n"
                       " task(\"e\", 4, data=10);\n";
    size_t n = strlen(base);
    char *buf = malloc(n + 1);
    unsigned seed = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, base, n + 1);
        int edits = 1 + iter % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            buf[at] = (char)(seed >> 16);
        }
        size_t len = (seed >> 4) % (n + 1);
        diag err;
        diag_clear(&err);
        skel_tree *t = skel_parse_string(buf, len, "g", &err);
        if (t) {
            skel_dag *d = skel_dag_build(t, SKEL_STYLE_PRODUCER, &err);
            skel_model *m = d ? skel_model_new(t, d, &err) : NULL;
            skel_model_free(m);
            skel_dag_free(d);
            skel_tree_free(t);
        } else {
            ck_assert(err.set && strncmp(err.msg, "g:", 2) == 0);
        }
    }
    free(buf);
}
END_TEST

START_TEST(test_tree_print_roundtrip)
{
    const char *src = "pipe(4);\n\ttask(\"a\", 1.5);\n\tdeal(2, \"b\", 2, data=100);\n"
                      "\txfarm(2);\n\t\tpipe(2);\n\t\t\ttask(\"c\", 1);\n\t\t\ttask(\"d\", 1);\n"
                      "\t\ttask(\"e\", 3);\n\tfarm(3, \"f\", 0.5);\n";
    skel_tree *t = parse_ok(src);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    skel_tree_print(t, f);
    fclose(f);
    ck_assert_str_eq(buf, src);
    free(buf);
    skel_tree_free(t);
}
END_TEST

START_TEST(test_tree_build_by_hand)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_tree_new("bpel");
    skel_node *p = skel_node_new(t, SKEL_PIPE, 0, 0, &err);
    skel_node *a = skel_task_new(t, "a", 1, 0, 0, &err);
    skel_node *b = skel_task_new(t, "b", 2, 0, 0, &err);
    ck_assert(p && a && b);
    ck_assert(skel_node_add(t, p, a, &err) == 0);
    ck_assert(skel_node_add(t, p, b, &err) == 0);
    ck_assert(skel_node_add(t, a, b, &err) < 0);          /* a task has no children */
    ck_assert(skel_node_add(t, p, a, &err) < 0);          /* nor two parents */
    diag_clear(&err);
    ck_assert(skel_tree_finish(t, p, &err) == 0);
    ck_assert_int_eq(skel_tree_ntasks(t), 2);
    skel_node *empty = skel_node_new(t, SKEL_FARM, 3, 4, &err);
    ck_assert(skel_tree_finish(t, empty, &err) < 0);
    ck_assert_str_eq(err.msg, "bpel:3:4: xfarm has no components");
    skel_tree_free(t);
}
END_TEST

/* ---- task graph ----------------------------------------------------------- */

START_TEST(test_dag_equal_deals_pair_off)
{
    /* Yaikhom et al. 2007 §4.1: between two deals of the same size each task only
     * ever talks to the one of the same rank. */
    gen g;
    gen_ok(&g, "pipe(3); task(\"a\",1); deal(2,\"b\",1); deal(2,\"c\",1);", SKEL_STYLE_PRODUCER);
    ck_assert_int_eq(skel_dag_case(g.dag, 1), 4 * SKEL_PAT_PIPE + SKEL_PAT_PIPE);
    ck_assert_int_eq(g.dag->dst[1].tasks[0], 3);
    ck_assert_int_eq(g.dag->dst[2].tasks[0], 4);
    ck_assert_int_eq(skel_dag_edge(g.dag, 1, 4), -1);
    ck_assert_int_ge(skel_dag_edge(g.dag, 1, 3), 0);
    ck_assert_int_eq(g.dag->nedges, 4);
    gen_free(&g);
}
END_TEST

START_TEST(test_dag_deal_of_deals)
{
    /* A deal of a deal(2) and a deal(3): the consumer receives in the true
     * round-robin order, a cycle of 12 items. */
    gen g;
    gen_ok(&g, "pipe(3); task(\"p\",1); xdeal(2); deal(2,\"a\",1); deal(3,\"b\",1); task(\"c\",1);",
           SKEL_STYLE_PRODUCER);
    const skel_flow *s = &g.dag->src[6];
    ck_assert_int_eq(s->nsteps, 12);
    static const int order[12] = { 1, 3, 2, 4, 1, 5, 2, 3, 1, 4, 2, 5 };
    for (int k = 0; k < 12; k++)
        ck_assert_int_eq(s->tasks[k], order[k]);
    const skel_flow *p = &g.dag->dst[0];
    ck_assert_int_eq(p->nsteps, 12);
    uint32_t n;
    solve(g.model->pepa, g.model, &n);
    gen_free(&g);
}
END_TEST

START_TEST(test_dag_stream_style)
{
    gen g;
    gen_ok(&g, "pipe(2); task(\"a\",1); deal(2,\"b\",1);", SKEL_STYLE_STREAM);
    ck_assert_int_eq(g.dag->src[0].tasks[0], SKEL_IN);
    ck_assert_int_eq(g.dag->dst[1].tasks[0], SKEL_OUT);
    ck_assert_int_eq(g.dag->dst[2].tasks[0], SKEL_OUT);
    ck_assert_int_eq(skel_dag_case(g.dag, 0), 4 * SKEL_PAT_PIPE + SKEL_PAT_DEAL);
    ck_assert_int_ge(skel_dag_edge(g.dag, SKEL_IN, 0), 0);
    ck_assert_int_ge(skel_dag_edge(g.dag, 2, SKEL_OUT), 0);
    ck_assert(strstr(g.text, "Task0 = (move_in_0, infty).(comp_0, infty).(move_0_1, infty)."
                             "(move_in_0, infty).(comp_0, infty).(move_0_2, infty).Task0;\n"));
    ck_assert(strstr(g.text, "Task1 = (move_0_1, infty).(comp_1, infty).(move_1_out, infty).Task1;\n"));
    gen_free(&g);
}
END_TEST

/* ---- the 16 templates ------------------------------------------------------ */

typedef struct template_case {
    int cas;                /* Yaikhom et al. 2007's case number */
    const char *skel;
    int task;
    const char *text;       /* expected definitions, worked out by hand */
} template_case;

static const template_case templates[16] = {
    { 0, "task(\"a\",1);", 0, "Task0 = (comp_0, infty).Task0;\n" },
    { 1, "pipe(2); task(\"a\",1); task(\"b\",1);", 0,
      "Task0 = (comp_0, infty).(move_0_1, infty).Task0;\n" },
    { 2, "pipe(2); task(\"a\",1); deal(2,\"b\",1);", 0,
      "Task0 = (comp_0, infty).(move_0_1, infty).(comp_0, infty).(move_0_2, infty).Task0;\n" },
    { 3, "pipe(2); task(\"a\",1); farm(2,\"b\",1);", 0,
      "Task0 = (comp_0, infty).Task0_1;\n"
      "Task0_1 = (move_0_1, infty).Task0 + (move_0_2, infty).Task0;\n" },
    { 4, "pipe(2); task(\"a\",1); task(\"b\",1);", 1,
      "Task1 = (move_0_1, infty).(comp_1, infty).Task1;\n" },
    { 5, "pipe(3); task(\"a\",1); task(\"b\",1); task(\"c\",1);", 1,
      "Task1 = (move_0_1, infty).(comp_1, infty).(move_1_2, infty).Task1;\n" },
    { 6, "pipe(3); task(\"a\",1); task(\"b\",1); deal(2,\"c\",1);", 1,
      "Task1 = (move_0_1, infty).(comp_1, infty).(move_1_2, infty)."
      "(move_0_1, infty).(comp_1, infty).(move_1_3, infty).Task1;\n" },
    { 7, "pipe(3); task(\"a\",1); task(\"b\",1); farm(2,\"c\",1);", 1,
      "Task1 = (move_0_1, infty).(comp_1, infty).Task1_1;\n"
      "Task1_1 = (move_1_2, infty).Task1 + (move_1_3, infty).Task1;\n" },
    { 8, "pipe(2); deal(2,\"a\",1); task(\"b\",1);", 2,
      "Task2 = (move_0_2, infty).(comp_2, infty).(move_1_2, infty).(comp_2, infty).Task2;\n" },
    { 9, "pipe(3); deal(2,\"a\",1); task(\"b\",1); task(\"c\",1);", 2,
      "Task2 = (move_0_2, infty).(comp_2, infty).(move_2_3, infty)."
      "(move_1_2, infty).(comp_2, infty).(move_2_3, infty).Task2;\n" },
    /* Yaikhom et al. 2007's own example: |S| = 3, |D| = 2, a cycle of lcm = 6:
     * r0 c s0, r1 c s1, r2 c s0, r0 c s1, r1 c s0, r2 c s1. */
    { 10, "pipe(3); deal(3,\"a\",1); task(\"b\",1); deal(2,\"c\",1);", 3,
      "Task3 = (move_0_3, infty).(comp_3, infty).(move_3_4, infty)."
      "(move_1_3, infty).(comp_3, infty).(move_3_5, infty)."
      "(move_2_3, infty).(comp_3, infty).(move_3_4, infty)."
      "(move_0_3, infty).(comp_3, infty).(move_3_5, infty)."
      "(move_1_3, infty).(comp_3, infty).(move_3_4, infty)."
      "(move_2_3, infty).(comp_3, infty).(move_3_5, infty).Task3;\n" },
    { 11, "pipe(3); deal(2,\"a\",1); task(\"b\",1); farm(2,\"c\",1);", 2,
      "Task2 = (move_0_2, infty).(comp_2, infty).Task2_1;\n"
      "Task2_1 = (move_2_3, infty).Task2_2 + (move_2_4, infty).Task2_2;\n"
      "Task2_2 = (move_1_2, infty).(comp_2, infty).Task2_3;\n"
      "Task2_3 = (move_2_3, infty).Task2 + (move_2_4, infty).Task2;\n" },
    { 12, "pipe(2); farm(2,\"a\",1); task(\"b\",1);", 2,
      "Task2 = (move_0_2, infty).Task2_1 + (move_1_2, infty).Task2_1;\n"
      "Task2_1 = (comp_2, infty).Task2;\n" },
    { 13, "pipe(3); farm(2,\"a\",1); task(\"b\",1); task(\"c\",1);", 2,
      "Task2 = (move_0_2, infty).Task2_1 + (move_1_2, infty).Task2_1;\n"
      "Task2_1 = (comp_2, infty).(move_2_3, infty).Task2;\n" },
    { 14, "pipe(3); farm(2,\"a\",1); task(\"b\",1); deal(2,\"c\",1);", 2,
      "Task2 = (move_0_2, infty).Task2_1 + (move_1_2, infty).Task2_1;\n"
      "Task2_1 = (comp_2, infty).(move_2_3, infty).Task2_2;\n"
      "Task2_2 = (move_0_2, infty).Task2_3 + (move_1_2, infty).Task2_3;\n"
      "Task2_3 = (comp_2, infty).(move_2_4, infty).Task2;\n" },
    { 15, "pipe(3); farm(2,\"a\",1); task(\"b\",1); farm(2,\"c\",1);", 2,
      "Task2 = (move_0_2, infty).Task2_1 + (move_1_2, infty).Task2_1;\n"
      "Task2_1 = (comp_2, infty).Task2_2;\n"
      "Task2_2 = (move_2_3, infty).Task2 + (move_2_4, infty).Task2;\n" },
};

START_TEST(test_template)
{
    const template_case *c = &templates[_i];
    gen g;
    gen_ok(&g, c->skel, SKEL_STYLE_PRODUCER);
    ck_assert_int_eq(skel_dag_case(g.dag, c->task), c->cas);
    char *got = task_text(g.text, c->task);
    ck_assert_msg(strcmp(got, c->text) == 0, "case %d:\n got:\n%s expected:\n%s", c->cas, got,
                  c->text);
    free(got);
    solve(g.model->pepa, g.model, NULL);    /* every template is live */
    gen_free(&g);
}
END_TEST

/* Fig. 4: a five-stage pipeline, the whole model. */
START_TEST(test_fig4)
{
    gen g;
    gen_ok(&g, "pipe(5); task(\"t\",1.0); task(\"t\",3.0); task(\"t\",1.0); task(\"t\",2.0);"
               " task(\"t\",1.0);", SKEL_STYLE_PRODUCER);
    const char *expected =
        "mu_0 = 1.0;\nmu_1 = 3.0;\nmu_2 = 1.0;\nmu_3 = 2.0;\nmu_4 = 1.0;\n"
        "lambda_0_1 = 1.0;\nlambda_1_2 = 1.0;\nlambda_2_3 = 1.0;\nlambda_3_4 = 1.0;\n\n"
        "Processor0 = (comp_0, mu_0).Processor0;\n"
        "Processor1 = (comp_1, mu_1).Processor1;\n"
        "Processor2 = (comp_2, mu_2).Processor2;\n"
        "Processor3 = (comp_3, mu_3).Processor3;\n"
        "Processor4 = (comp_4, mu_4).Processor4;\n"
        "Network = (move_0_1, lambda_0_1).Network + (move_1_2, lambda_1_2).Network + "
        "(move_2_3, lambda_2_3).Network + (move_3_4, lambda_3_4).Network;\n"
        "Task0 = (comp_0, infty).(move_0_1, infty).Task0;\n"
        "Task1 = (move_0_1, infty).(comp_1, infty).(move_1_2, infty).Task1;\n"
        "Task2 = (move_1_2, infty).(comp_2, infty).(move_2_3, infty).Task2;\n"
        "Task3 = (move_2_3, infty).(comp_3, infty).(move_3_4, infty).Task3;\n"
        "Task4 = (move_3_4, infty).(comp_4, infty).Task4;\n\n"
        "Network <move_0_1, move_1_2, move_2_3, move_3_4> (Task0 <move_0_1> Task1 <move_1_2> "
        "Task2 <move_2_3> Task3 <move_3_4> Task4) <comp_0, comp_1, comp_2, comp_3, comp_4> "
        "(Processor0 <> Processor1 <> Processor2 <> Processor3 <> Processor4)\n";
    ck_assert_str_eq(g.text, expected);
    gen_free(&g);
}
END_TEST

/* Algorithm 3 on nested skeletons: the cooperation sets are exactly the
 * moves between neighbouring subtrees. */
START_TEST(test_system_nested)
{
    gen g;
    gen_ok(&g, "pipe(3); task(\"a\",1); xfarm(2); pipe(2); task(\"b\",1); task(\"c\",1);"
               " pipe(2); task(\"d\",1); task(\"e\",1); task(\"f\",1);", SKEL_STYLE_PRODUCER);
    ck_assert_msg(strstr(g.text, "(Task0 <move_0_1, move_0_3> (Task1 <move_1_2> Task2 <> "
                                 "(Task3 <move_3_4> Task4)) <move_2_5, move_4_5> Task5)"),
                  "%s", g.text);
    solve(g.model->pepa, g.model, NULL);
    gen_free(&g);
}
END_TEST

/* Farms of deals and deals of farms (outside the paper's templates) are live. */
START_TEST(test_mixed_replication_live)
{
    static const char *skels[] = {
        "pipe(3); task(\"p\",1); xfarm(2); deal(2,\"a\",1); deal(3,\"b\",1); task(\"c\",1);",
        "pipe(3); task(\"p\",1); xdeal(2); farm(2,\"a\",1); farm(3,\"b\",1); task(\"c\",1);",
        "pipe(4); task(\"p\",1); deal(3,\"a\",1); farm(2,\"b\",1); deal(2,\"c\",1);",
        "xdeal(2); pipe(2); task(\"a\",1); task(\"b\",1); farm(2,\"c\",1);",
        /* the shapes of corpus model4 and model6, narrower */
        "pipe(4); task(\"p\",1); deal(3,\"a\",1); deal(2,\"b\",1); task(\"c\",1);",
        "pipe(5); task(\"p\",1); farm(2,\"a\",1); farm(2,\"b\",1); deal(2,\"c\",1);"
        " task(\"d\",1);",
    };
    for (size_t i = 0; i < sizeof skels / sizeof skels[0]; i++)
        for (int style = 0; style < 2; style++) {
            gen g;
            gen_ok(&g, skels[i], style ? SKEL_STYLE_STREAM : SKEL_STYLE_PRODUCER);
            ck_assert(solve(g.model->pepa, g.model, NULL) > 0);
            gen_free(&g);
        }
}
END_TEST

START_TEST(test_period_bound)
{
    /* deal(97) next to deal(101): lcm 9797 is fine; three coprime widths
     * beyond SKEL_MAX_PERIOD are refused with a message. */
    diag err;
    diag_clear(&err);
    skel_tree *t = parse_ok("pipe(2); xdeal(3); deal(97,\"a\",1); deal(101,\"b\",1);"
                            " deal(103,\"c\",1); task(\"d\",1);");
    skel_dag *d = skel_dag_build(t, SKEL_STYLE_PRODUCER, &err);
    ck_assert(!d);
    ck_assert_str_eq(err.msg, "t.skel:1:10: the round-robin cycle of this deal is longer than "
                              "10000 items");
    skel_tree_free(t);
}
END_TEST

/* ---- corpus ---------------------------------------------------------------- */

/* Reachable states of the generated models (producer / stream style):
 *   model1 7560 / 17010, model3 2219888 / 4994748, model4 216720 / 487620,
 *   model5 108 / 243, model6 4172796 / 9388791, model2 more than 2^25.
 * Every file parses, generates, and re-parses to the same text; the chain
 * is derived and solved here for the small ones, and for the large ones
 * (but model2) when SKEL_SLOW_TESTS is set. */
static const struct { const char *file; int solve; } corpus[] = {
    { "model1.des", 1 }, { "model2.des", 0 }, { "model3.des", 2 },
    { "model4.des", 2 }, { "model5.des", 1 }, { "model6.des", 2 },
};

START_TEST(test_corpus)
{
    const char *shared = getenv("SHARED_DIR"), *src = getenv("SRCDIR");
    char path[4096];
    if (shared && *shared)
        snprintf(path, sizeof path, "%s/corpus/wflow2pepa/%s", shared, corpus[_i].file);
    else
        snprintf(path, sizeof path, "%s/../shared/corpus/wflow2pepa/%s",
                 src && *src ? src : TOP_SRCDIR, corpus[_i].file);
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_file(path, &err);
    ck_assert_msg(t, "%s", err.msg);
    for (int style = 0; style < 2; style++) {
        skel_dag *d = skel_dag_build(t, style ? SKEL_STYLE_STREAM : SKEL_STYLE_PRODUCER, &err);
        ck_assert_msg(d, "%s", err.msg);
        skel_model *m = skel_model_new(t, d, &err);
        ck_assert_msg(m, "%s", err.msg);
        /* Printed text re-parses to the same text and the same chain. */
        char *text = print_model(m->pepa);
        pepa_model *back = pepa_parse_string(text, strlen(text), path, &err);
        ck_assert_msg(back, "%s\n%s", err.msg, text);
        char *again = print_model(back);
        ck_assert_str_eq(again, text);
        pepa_system *sys = pepa_system_new(m->pepa, &err);
        ck_assert_msg(sys, "%s", err.msg);
        pepa_system_free(sys);
        if (corpus[_i].solve == 1 || (corpus[_i].solve == 2 && getenv("SKEL_SLOW_TESTS"))) {
            uint32_t n1, n2;
            double x1 = solve(m->pepa, m, &n1);
            double x2 = solve(back, m, &n2);
            ck_assert_uint_eq(n1, n2);
            ck_assert_msg(x1 > 0 && fabs(x1 - x2) <= 1e-9 * x1, "%g vs %g", x1, x2);
        }
        free(again);
        free(text);
        pepa_model_free(back);
        skel_model_free(m);
        skel_dag_free(d);
    }
    skel_tree_free(t);
}
END_TEST

/* ---- platform ------------------------------------------------------------- */

static skel_platform *plat_ok(const char *text, skel_conf_fn fn, void *ctx)
{
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(text, strlen(text), "p.conf", fn, ctx, &err);
    ck_assert_msg(p, "unexpected error: %s", err.msg);
    return p;
}

static void plat_fails(const char *text, const char *expected)
{
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(text, strlen(text), "p.conf", NULL, NULL, &err);
    ck_assert_msg(!p, "parsed but should fail with: %s", expected);
    ck_assert_msg(strcmp(err.msg, expected) == 0, "got '%s', expected '%s'", err.msg, expected);
}

static const char issue_platform[] =
    "LocalLatency=0.0001            # seconds, a move between tasks on the same node\n"
    "DefaultLatency=0.01            # any pair without a Link line\n"
    "Input=local                    # or a node name: where the stream comes from\n"
    "Output=local                   # or a node name: where results must be delivered\n"
    "NodeName=p[1-2] Speed=10       # tasks per second relative to Speed=1\n"
    "NodeName=p3 Speed=1\n"
    "Link=p1,p2 Latency=0.0001      # symmetric\n"
    "Link=p2,p3 Latency=1 Bandwidth=1e9\n";

START_TEST(test_platform_issue_example)
{
    skel_platform *p = plat_ok(issue_platform, NULL, NULL);
    ck_assert_int_eq(p->nnodes, 3);
    ck_assert_str_eq(p->nodes[1].name, "p2");
    ck_assert(p->nodes[1].speed == 10 && p->nodes[2].speed == 1);
    ck_assert_int_eq(p->nlinks, 2);
    ck_assert_int_eq(p->input, SKEL_LOCAL);
    double lat, bw;
    diag err;
    diag_clear(&err);
    ck_assert(skel_platform_link(p, 2, 1, &lat, &bw, &err) == 0 && lat == 1 && bw == 1e9);
    ck_assert(skel_platform_link(p, 0, 2, &lat, &bw, &err) == 0 && lat == 0.01 && bw == 0);
    ck_assert(skel_platform_link(p, 1, 1, &lat, &bw, &err) == 0 && lat == 0.0001);
    skel_platform_free(p);
}
END_TEST

START_TEST(test_platform_errors)
{
    plat_fails("Foo=1\n", "p.conf:1:1: unknown key 'Foo'");
    plat_fails("NodeName=a Colour=red\n", "p.conf:1:12: unknown key 'Colour' on a line of NodeName");
    plat_fails("NodeName=a\n# c\nNodeName=b,a\n", "p.conf:3:10: node a declared twice (first at line 1)");
    plat_fails("LocalLatency=-1\n", "p.conf:1:14: LocalLatency=-1: negative numbers are not allowed");
    plat_fails("NodeName=a Speed=0\n", "p.conf:1:18: Speed=0: must be positive");
    plat_fails("NodeName=a Speed=fast\n", "p.conf:1:18: Speed=fast: not a number");
    plat_fails("NodeName=a\nLink=a,b Latency=1\n",
               "p.conf:2:6: Link: unknown node b (no NodeName= line declares it)");
    plat_fails("NodeName=a,b\nLink=a,b\n", "p.conf:2:1: Link=a,b has no Latency=");
    plat_fails("NodeName=a,b\nLink=a,b Latency=1\nLink=b,a Latency=2\n",
               "p.conf:3: link a,b given twice (first at line 2)");
    plat_fails("NodeName=a\nInput=b\n", "p.conf:2:7: Input=b: unknown node (use 'local' or a declared node)");
    plat_fails("LocalLatency=1\nLocalLatency=2\n", "p.conf:2:1: LocalLatency= given twice (first at line 1)");
    plat_fails("NodeName=n[3-1]\n", "p.conf:1:10: hostlist 'n[3-1]': range '3-1' goes backwards");
    plat_fails("NodeName=a Speed=1 Speed=2\n", "p.conf:1:20: Speed= given twice");
    plat_fails("Speed=2\n", "p.conf:1:1: Speed= belongs on a NodeName= line");
    plat_fails("NodeName\n", "p.conf:1:1: expected Key=Value, found 'NodeName'");
    plat_fails("NodeName=a\nLink=a Latency=1\n", "p.conf:2:6: Link=a names fewer than two nodes");
}
END_TEST

START_TEST(test_hostlist)
{
    char **v;
    int n;
    diag err;
    diag_clear(&err);
    ck_assert(skel_hostlist_expand("n[01-10]", &v, &n, 0, &err) == 0);
    ck_assert_int_eq(n, 10);
    ck_assert_str_eq(v[0], "n01");
    ck_assert_str_eq(v[9], "n10");
    skel_hostlist_free(v, n);
    ck_assert(skel_hostlist_expand("n[1-16]", &v, &n, 0, &err) == 0);
    ck_assert_int_eq(n, 16);
    ck_assert_str_eq(v[8], "n9");
    ck_assert_str_eq(v[15], "n16");
    skel_hostlist_free(v, n);
    ck_assert(skel_hostlist_expand("io[1,3-4],login,r[1-2]c[1-2]", &v, &n, 0, &err) == 0);
    ck_assert_int_eq(n, 8);
    ck_assert_str_eq(v[1], "io3");
    ck_assert_str_eq(v[3], "login");
    ck_assert_str_eq(v[5], "r1c2");
    ck_assert_str_eq(v[7], "r2c2");
    skel_hostlist_free(v, n);
    ck_assert(skel_hostlist_expand("n[1-100000]", &v, &n, 0, &err) < 0);
    ck_assert(skel_hostlist_expand("n[1-", &v, &n, 0, &err) < 0);
    diag_clear(&err);
    ck_assert(skel_hostlist_expand("n[1-4]", &v, &n, 3, &err) < 0);
    ck_assert_str_eq(err.msg, "hostlist 'n[1-4]': more than 3 nodes");
    diag_clear(&err);
    ck_assert(skel_hostlist_expand("a,,b", &v, &n, 0, &err) < 0);
    ck_assert_str_eq(err.msg, "hostlist 'a,,b': empty node name");
}
END_TEST

typedef struct seen_keys {
    int n;
    char log[512];
} seen_keys;

static int plugin_keys(void *ctx, const skel_conf_item *it, diag *err)
{
    seen_keys *s = ctx;
    if (strcmp(it->key, "Bad") == 0)
        return diag_at(err, it->file, it->line, it->col, "Bad= is bad");
    if (strcmp(it->key, "Budget") != 0 && strcmp(it->key, "MaxStates") != 0)
        return 1;
    s->n++;
    size_t l = strlen(s->log);
    snprintf(s->log + l, sizeof s->log - l, "%s=%s@%d:%d[%s=%s];", it->key, it->value, it->line,
             it->col, it->head_key, it->head_value);
    return 0;
}

START_TEST(test_platform_callback)
{
    seen_keys s = { 0 };
    skel_platform *p = plat_ok("Budget=2.5 MaxStates=1000\nNodeName=n[1-2] Speed=2 Budget=1\n",
                               plugin_keys, &s);
    ck_assert_int_eq(s.n, 3);
    ck_assert_str_eq(s.log, "Budget=2.5@1:1[Budget=2.5];MaxStates=1000@1:12[Budget=2.5];"
                            "Budget=1@2:25[NodeName=n[1-2]];");
    ck_assert_int_eq(p->nnodes, 2);
    skel_platform_free(p);
    diag err;
    diag_clear(&err);
    const char *t = "\nBad=1\n";
    ck_assert(!skel_platform_parse_string(t, strlen(t), "p.conf", plugin_keys, &s, &err));
    ck_assert_str_eq(err.msg, "p.conf:2:1: Bad= is bad");
    diag_clear(&err);
    t = "Other=1\n";
    ck_assert(!skel_platform_parse_string(t, strlen(t), "p.conf", plugin_keys, &s, &err));
    ck_assert_str_eq(err.msg, "p.conf:1:1: unknown key 'Other'");
}
END_TEST

START_TEST(test_platform_link_clique)
{
    skel_platform *p = plat_ok("NodeName=n[1-4]\nLink=n[1-3] Latency=0.5\nLocalLatency=0.1\n",
                               NULL, NULL);
    ck_assert_int_eq(p->nlinks, 3);
    double lat, bw;
    diag err;
    diag_clear(&err);
    ck_assert(skel_platform_link(p, 2, 0, &lat, &bw, &err) == 0 && lat == 0.5);
    ck_assert(skel_platform_link(p, 3, 0, &lat, &bw, &err) < 0);
    ck_assert_str_eq(err.msg, "p.conf: no Link=n4,n1 and no DefaultLatency=");
    skel_platform_free(p);
}
END_TEST

/* ---- placement --------------------------------------------------------------- */

START_TEST(test_place_rates)
{
    gen g;
    gen_ok(&g, "pipe(3); task(\"a\",1); task(\"b\",2, data=1e9); task(\"c\",3);",
           SKEL_STYLE_STREAM);
    skel_platform *p = plat_ok(issue_platform, NULL, NULL);
    int where[3];
    skel_place_default(3, p, where);
    ck_assert(where[0] == 0 && where[1] == 1 && where[2] == 2);
    diag err;
    diag_clear(&err);
    ck_assert_msg(skel_place_parse("t0=p1, t1 = p1", 3, p, where, &err) == 0, "%s", err.msg);
    ck_assert(where[0] == 0 && where[1] == 0 && where[2] == 2);
    double mu[3], lambda[8];
    ck_assert_int_eq(g.model->nedges, 4);
    ck_assert_msg(skel_place_rates(g.model, p, where, mu, lambda, &err) == 0, "%s", err.msg);
    /* Sharing=ps (the default): each task's rate alone on its node. */
    ck_assert(p->sharing == SKEL_SHARE_PS);
    ck_assert(mu[0] == 10 && mu[1] == 20 && mu[2] == 3);
    /* Sharing=static: two tasks share p1 (Speed 10): 1 * 10 / 2, 2 * 10 / 2;
     * c alone on p3. */
    p->sharing = SKEL_SHARE_STATIC;
    ck_assert_msg(skel_place_rates(g.model, p, where, mu, lambda, &err) == 0, "%s", err.msg);
    ck_assert(mu[0] == 5 && mu[1] == 10 && mu[2] == 3);
    int in0 = skel_dag_edge(g.dag, SKEL_IN, 0), e01 = skel_dag_edge(g.dag, 0, 1);
    int e12 = skel_dag_edge(g.dag, 1, 2), out2 = skel_dag_edge(g.dag, 2, SKEL_OUT);
    ck_assert(fabs(lambda[in0] - 1 / 0.0001) < 1e-6);     /* Input=local */
    ck_assert(fabs(lambda[e01] - 1 / 0.0001) < 1e-6);     /* both on p1 */
    ck_assert(fabs(lambda[e12] - 1 / 0.01) < 1e-9);       /* p1-p3: DefaultLatency */
    ck_assert(fabs(lambda[out2] - 1 / 0.0001) < 1e-6);
    /* Move b to p2: p2-p3 has latency 1 and bandwidth 1e9, b sends 1e9 bytes. */
    ck_assert(skel_place_parse("t1=p2", 3, p, where, &err) == 0);
    ck_assert(skel_model_place(g.model, p, where, &err) == 0);
    ck_assert(g.model->mu[0]->num == 10 && g.model->mu[1]->num == 20);
    ck_assert(fabs(g.model->lambda[e12]->num - 1 / (1 + 1e9 / 1e9)) < 1e-12);
    ck_assert(fabs(g.model->lambda[e01]->num - 1 / 0.0001) < 1e-6);
    char *text = print_model(g.model->pepa);
    ck_assert(strstr(text, "mu_1 = 20.0;\n"));
    ck_assert(strstr(text, "lambda_1_2 = 0.5;\n"));
    free(text);
    skel_platform_free(p);
    gen_free(&g);
}
END_TEST

START_TEST(test_place_input_node)
{
    gen g;
    gen_ok(&g, "pipe(2); task(\"a\",1); task(\"b\",1);", SKEL_STYLE_STREAM);
    skel_platform *p = plat_ok("LocalLatency=0.001\nDefaultLatency=2\nInput=io\nOutput=p1\n"
                               "NodeName=io,p1,p2\nLink=io,p1 Latency=0.5\n", NULL, NULL);
    int where[2] = { 1, 2 };
    double mu[2], lambda[3];
    diag err;
    diag_clear(&err);
    ck_assert(skel_place_rates(g.model, p, where, mu, lambda, &err) == 0);
    ck_assert(lambda[skel_dag_edge(g.dag, SKEL_IN, 0)] == 2);         /* io -> p1 */
    ck_assert(lambda[skel_dag_edge(g.dag, 1, SKEL_OUT)] == 0.5);      /* p2 -> p1 */
    where[1] = 1;
    ck_assert(skel_place_rates(g.model, p, where, mu, lambda, &err) == 0);
    ck_assert(lambda[skel_dag_edge(g.dag, 1, SKEL_OUT)] == 1000);     /* local */
    skel_platform_free(p);
    gen_free(&g);
}
END_TEST

START_TEST(test_place_errors)
{
    skel_platform *p = plat_ok("NodeName=a,b\n", NULL, NULL);
    int where[2] = { 0, 0 };
    diag err;
    struct { const char *spec, *msg; } cases[] = {
        { "t2=a", "no task t2 (the skeleton has t0..t1)" },
        { "t0=c", "t0=c: no node c in p.conf" },
        { "t0=a,t0=b", "t0 placed twice" },
        { "x0=a", "expected tN=NODE at 'x0=a'" },
        { "t0", "expected '=' after the task in 't0'" },
        { "t0=", "t0= needs a node name" },
        { "t0=a;t1=b", "t0=a;t1=b: no node a;t1=b in p.conf" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        diag_clear(&err);
        ck_assert(skel_place_parse(cases[i].spec, 2, p, where, &err) < 0);
        ck_assert_str_eq(err.msg, cases[i].msg);
    }
    /* No LocalLatency, and a local move is needed. */
    gen g;
    gen_ok(&g, "pipe(2); task(\"a\",1); task(\"b\",1);", SKEL_STYLE_PRODUCER);
    diag_clear(&err);
    ck_assert(skel_model_place(g.model, p, where, &err) < 0);
    ck_assert_str_eq(err.msg, "p.conf: no LocalLatency= for a move within node a");
    gen_free(&g);
    skel_platform_free(p);
}
END_TEST

START_TEST(test_default_platform)
{
    /* Without a platform: node n<i> per task, Speed 1, every move rate 1. */
    gen g;
    gen_ok(&g, "pipe(2); task(\"a\",4); task(\"b\",1);", SKEL_STYLE_STREAM);
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_default(2, &err);
    int where[2];
    skel_place_default(2, p, where);
    ck_assert(skel_model_place(g.model, p, where, &err) == 0);
    char *text = print_model(g.model->pepa);
    ck_assert(strstr(text, "mu_0 = 4.0;\nmu_1 = 1.0;\nlambda_in_0 = 1.0;\nlambda_0_1 = 1.0;\n"
                           "lambda_1_out = 1.0;\n"));
    free(text);
    skel_platform_free(p);
    gen_free(&g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("skeleton");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_parse_fig2);
    tcase_add_test(tc, test_parse_expr_and_options);
    tcase_add_test(tc, test_parse_errors);
    tcase_add_test(tc, test_parse_depth_bound);
    tcase_add_test(tc, test_parse_garbage);
    tcase_add_test(tc, test_tree_print_roundtrip);
    tcase_add_test(tc, test_tree_build_by_hand);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("generate");
    tcase_add_test(tc, test_dag_equal_deals_pair_off);
    tcase_add_test(tc, test_dag_deal_of_deals);
    tcase_add_test(tc, test_dag_stream_style);
    tcase_add_loop_test(tc, test_template, 0, 16);
    tcase_add_test(tc, test_fig4);
    tcase_add_test(tc, test_system_nested);
    tcase_add_test(tc, test_mixed_replication_live);
    tcase_add_test(tc, test_period_bound);
    tcase_add_loop_test(tc, test_corpus, 0, (int)(sizeof corpus / sizeof corpus[0]));
    tcase_set_timeout(tc, getenv("SKEL_SLOW_TESTS") ? 3600 : 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("platform");
    tcase_add_test(tc, test_platform_issue_example);
    tcase_add_test(tc, test_platform_errors);
    tcase_add_test(tc, test_hostlist);
    tcase_add_test(tc, test_platform_callback);
    tcase_add_test(tc, test_platform_link_clique);
    tcase_add_test(tc, test_place_rates);
    tcase_add_test(tc, test_place_input_node);
    tcase_add_test(tc, test_place_errors);
    tcase_add_test(tc, test_default_platform);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
