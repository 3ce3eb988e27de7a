/* test_advice: replication advice (advice/), solved with the Markov model.
 *  - rewrites: a task replicated as a deal or farm (a new group, or the
 *    group it is in widened), two stages merged, rates changed; numbering
 *    and errors;
 *  - evaluation: a farm that starts the skeleton counts all its workers;
 *  - Yaikhom et al. 2007's findings in §4.4 (Fig. 5 and 6), on its five-stage
 *    pipeline with the middle stage at rate 50 and the others swept from
 *    100 to 500: throughput saturates at the bottleneck while the uniform
 *    pipeline grows linearly; replication lifts it, farms above deals;
 *    replication helps most while the combined rate of the replicas is near
 *    the others' rate;
 *  - advise: the smallest replication reaching a target, Zavanella 1999's merges
 *    (and groupings on one node) offered only where its rule allows. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice/advice.h"
#include "suite.h"

static const char fig5[] =
    "pipe(5); task(\"s1\", 100); task(\"s2\", 100); task(\"b\", 50); task(\"s4\", 100);"
    " task(\"s5\", 100);";
/* Yaikhom et al. 2007 Fig. 5's setting: identical nodes, every move at rate 10^4 */
static const char fig5_plat[] = "NodeName=n[0-7] Speed=1\nDefaultLatency=0.0001 LocalLatency=0.0001\n";
static const int fig5_place[] = { 0, 1, 2, 3, 4 };

static skel_tree *parse(const char *s)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(s, strlen(s), "t.skel", &err);
    ck_assert_msg(t, "%s", err.msg);
    return t;
}

static skel_platform *platform(const char *s)
{
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(s, strlen(s), "t.conf", NULL, NULL, &err);
    ck_assert_msg(p, "%s", err.msg);
    return p;
}

START_TEST(test_replicate)
{
    skel_tree *t = parse(fig5);
    diag err;
    diag_clear(&err);
    skel_tree *u = adv_replicate(t, 2, SKEL_FARM, 3, &err);
    ck_assert_msg(u, "%s", err.msg);
    ck_assert_int_eq(skel_tree_ntasks(u), 7);
    for (int i = 2; i < 5; i++) {
        const skel_node *n = skel_tree_task(u, i);
        ck_assert_str_eq(n->name, "b");
        ck_assert(n->rate == 50);
        ck_assert_int_eq(n->parent->kind, SKEL_FARM);
        ck_assert_int_eq(n->parent->nchildren, 3);
    }
    ck_assert_str_eq(skel_tree_task(u, 5)->name, "s4");   /* old t3 */
    ck_assert_int_eq(skel_tree_root(u)->nchildren, 5);
    skel_tree_free(u);
    /* a member of a farm: the farm grows, no farm inside a farm */
    skel_tree *f = parse("pipe(2); task(\"a\", 1); farm(2, \"w\", 2);");
    u = adv_replicate(f, 1, SKEL_FARM, 3, &err);
    ck_assert_msg(u, "%s", err.msg);
    ck_assert_int_eq(skel_tree_ntasks(u), 5);
    ck_assert_int_eq(skel_tree_task(u, 1)->parent->nchildren, 4);
    skel_tree_free(u);
    /* of the other kind: a deal inside the farm */
    u = adv_replicate(f, 1, SKEL_DEAL, 2, &err);
    ck_assert_msg(u, "%s", err.msg);
    ck_assert_int_eq(skel_tree_task(u, 1)->parent->kind, SKEL_DEAL);
    ck_assert_int_eq(skel_tree_task(u, 1)->parent->parent->kind, SKEL_FARM);
    skel_tree_free(u);
    skel_tree_free(f);
    ck_assert_ptr_eq(adv_replicate(t, 9, SKEL_FARM, 2, &err), NULL);
    ck_assert_msg(strstr(err.msg, "no task t9"), "%s", err.msg);
    diag_clear(&err);
    ck_assert_ptr_eq(adv_replicate(t, 1, SKEL_PIPE, 2, &err), NULL);
    ck_assert_msg(strstr(err.msg, "deal or a farm"), "%s", err.msg);
    skel_tree_free(t);
}
END_TEST

START_TEST(test_merge_rates)
{
    skel_tree *t = parse(fig5);
    diag err;
    diag_clear(&err);
    skel_tree *u = adv_merge(t, 0, &err);
    ck_assert_msg(u, "%s", err.msg);
    ck_assert_int_eq(skel_tree_ntasks(u), 4);
    ck_assert(fabs(skel_tree_task(u, 0)->rate - 50) < 1e-12);   /* 1/(1/100 + 1/100) */
    ck_assert_str_eq(skel_tree_task(u, 1)->name, "b");
    skel_tree_free(u);
    ck_assert_ptr_eq(adv_merge(t, 4, &err), NULL);
    ck_assert_msg(strstr(err.msg, "not two consecutive stages"), "%s", err.msg);
    skel_tree *f = parse("pipe(2); task(\"a\", 1); farm(2, \"w\", 2);");
    diag_clear(&err);
    ck_assert_ptr_eq(adv_merge(f, 1, &err), NULL);            /* farm members */
    ck_assert_ptr_eq(adv_merge(f, 0, &err), NULL);            /* task and farm */
    skel_tree_free(f);
    double r[5] = { 0, 7, 0, 0, 9 };
    u = adv_with_rates(t, r, &err);
    ck_assert_msg(u, "%s", err.msg);
    ck_assert(skel_tree_task(u, 0)->rate == 100 && skel_tree_task(u, 1)->rate == 7 &&
              skel_tree_task(u, 4)->rate == 9);
    /* the new tree owns its names: it outlives the old one */
    skel_tree_free(t);
    ck_assert_str_eq(skel_tree_task(u, 2)->name, "b");
    ck_assert_int_eq(skel_tree_task(u, 2)->line, 1);
    skel_tree_free(u);
}
END_TEST

START_TEST(test_free_nodes)
{
    skel_platform *p = platform("NodeName=a Speed=1\nNodeName=b Speed=5\nNodeName=c Speed=2\n"
                                "NodeName=d Speed=5\nDefaultLatency=1 LocalLatency=1\n");
    int place[] = { 0, 0 }, fr[4];
    ck_assert_int_eq(adv_free_nodes(p, 2, place, fr), 3);
    ck_assert_int_eq(fr[0], 1);                   /* b and d (speed 5) in order, then c */
    ck_assert_int_eq(fr[1], 3);
    ck_assert_int_eq(fr[2], 2);
    skel_platform_free(p);
}
END_TEST

/* A farm of two producers computes twice what one task does. */
START_TEST(test_evaluate_farm_first)
{
    skel_platform *p = platform("NodeName=n[0-2] Speed=1\nDefaultLatency=0.001 LocalLatency=0.001\n");
    skel_tree *one = parse("pipe(2); task(\"w\", 1); task(\"sink\", 1000);");
    skel_tree *two = parse("pipe(2); farm(2, \"w\", 1); task(\"sink\", 1000);");
    int pl[] = { 0, 1, 2 };
    adv_eval a, b;
    diag err;
    diag_clear(&err);
    ck_assert_msg(adv_evaluate(one, SKEL_STYLE_PRODUCER, p, pl, &a, &err) == 0, "%s", err.msg);
    ck_assert_msg(adv_evaluate(two, SKEL_STYLE_PRODUCER, p, pl, &b, &err) == 0, "%s", err.msg);
    ck_assert(a.throughput > 0.95 && a.throughput < 1);
    ck_assert(b.throughput > 1.9 * a.throughput);
    ck_assert(fabs(b.throughput - b.task_thr[0] - b.task_thr[1]) < 1e-12);
    ck_assert_int_eq(b.bottleneck, 0);
    adv_eval_free(&a);
    adv_eval_free(&b);
    skel_tree_free(one);
    skel_tree_free(two);
    skel_platform_free(p);
}
END_TEST

static double col(const adv_sweep *s, int k, const char *name)
{
    for (int c = 0; c < s->ncols; c++)
        if (strcmp(s->col[c], name) == 0)
            return s->y[(size_t)k * (size_t)s->ncols + (size_t)c];
    ck_abort_msg("no column %s", name);
    return 0;
}

START_TEST(test_yaikhom_findings)
{
    skel_tree *t = parse(fig5);
    skel_platform *p = platform(fig5_plat);
    int swept[] = { 0, 1, 3, 4 };
    adv_sweep_opts o = { .style = SKEL_STYLE_PRODUCER, .swept = swept, .nswept = 4, .from = 100,
                         .to = 500, .step = 100, .task = -1, .max_replicas = 3 };
    adv_sweep s;
    diag err;
    diag_clear(&err);
    ck_assert_msg(adv_sweep_run(t, p, fig5_place, &o, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(s.task, 2);                  /* the bottleneck found */
    ck_assert_int_eq(s.npoints, 5);
    ck_assert_int_eq(s.ncols, 6);
    int last = s.npoints - 1;
    /* Fig. 5: the uniform pipeline grows about linearly with the rate ... */
    ck_assert(col(&s, last, "uniform") > 4.5 * col(&s, 0, "uniform"));
    /* ... the bottlenecked one saturates just below the bottleneck's 50 */
    for (int k = 0; k < s.npoints; k++) {
        ck_assert(col(&s, k, "current") < 50);
        if (k)
            ck_assert(col(&s, k, "current") > col(&s, k - 1, "current"));
    }
    ck_assert(col(&s, last, "current") > 0.95 * 50);
    ck_assert(col(&s, last, "current") - col(&s, last - 1, "current") <
              0.1 * (col(&s, 1, "current") - col(&s, 0, "current")));
    /* Fig. 6: replication lifts it, more replicas more, farms above deals */
    for (int k = 0; k < s.npoints; k++) {
        ck_assert(col(&s, k, "deal2") > col(&s, k, "current"));
        ck_assert(col(&s, k, "deal3") > col(&s, k, "deal2"));
        ck_assert(col(&s, k, "farm3") > col(&s, k, "farm2"));
        ck_assert(col(&s, k, "farm2") > col(&s, k, "deal2"));
        ck_assert(col(&s, k, "farm3") > col(&s, k, "deal3"));
    }
    /* the gain grows sharply while the replicas' combined rate (100 for
     * two, 150 for three) is near the others' rate, and saturates beyond */
    const char *rep[] = { "deal2", "farm2", "deal3", "farm3" };
    for (int r = 0; r < 4; r++)
        ck_assert_msg(col(&s, 1, rep[r]) - col(&s, 0, rep[r]) >
                          5 * (col(&s, last, rep[r]) - col(&s, last - 1, rep[r])),
                      "%s", rep[r]);
    adv_sweep_free(&s);
    skel_platform_free(p);
    skel_tree_free(t);
}
END_TEST

START_TEST(test_advise)
{
    skel_tree *t = parse(fig5);
    skel_platform *p = platform(fig5_plat);
    adv_opts o = { .style = SKEL_STYLE_PRODUCER, .max_replicas = 3, .target = 50, .task = -1 };
    adv_report r;
    diag err;
    diag_clear(&err);
    ck_assert_msg(adv_advise(t, p, fig5_place, &o, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.task, 2);
    ck_assert_int_eq(r.nfree, 3);
    ck_assert_int_eq(r.noptions, 4);              /* deal 2, 3, farm 2, 3; no merge */
    ck_assert(r.current.throughput < 50);
    /* deal 2 stays below 50, farm 2 does not: the smallest is farm 2 */
    ck_assert_int_ge(r.reach, 0);
    ck_assert_int_eq(r.options[r.reach].kind, ADV_FARM);
    ck_assert_int_eq(r.options[r.reach].degree, 2);
    ck_assert_int_eq(r.options[r.reach].nodes[0], 2);   /* replica 0 stays */
    ck_assert_int_eq(r.options[r.reach].nodes[1], 5);   /* the first free node */
    adv_report_free(&r);
    /* out of reach */
    o.target = 1000;
    ck_assert_msg(adv_advise(t, p, fig5_place, &o, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.reach, -1);
    adv_report_free(&r);
    skel_tree_free(t);
    /* fast outer stages: Zavanella 1999 allows merging t0+t1 and t3+t4 only, and
     * a merged or grouped pair costs little throughput while freeing a node */
    t = parse("pipe(5); task(\"a\", 400); task(\"b\", 400); task(\"c\", 50); task(\"d\", 400);"
              " task(\"e\", 400);");
    o.target = 0;
    ck_assert_msg(adv_advise(t, p, fig5_place, &o, &r, &err) == 0, "%s", err.msg);
    int merges = 0, groups = 0;
    for (int i = 0; i < r.noptions; i++) {
        const adv_option *op = &r.options[i];
        if (op->kind < ADV_MERGE)
            continue;
        merges += op->kind == ADV_MERGE;
        groups += op->kind == ADV_GROUP;
        ck_assert(op->task == 0 || op->task == 3);
        ck_assert(op->merge_sum < op->merge_max);
        ck_assert_int_eq(op->nnodes, 2);
        ck_assert(op->throughput > 0.9 * r.current.throughput);
    }
    ck_assert_int_eq(merges, 2);
    ck_assert_int_eq(groups, 2);
    adv_report_free(&r);
    /* no free node: no replication, and a bad task */
    skel_platform *small = platform("NodeName=n[0-4] Speed=1\nDefaultLatency=0.0001 LocalLatency=0.0001\n");
    o.no_merge = 1;
    ck_assert_msg(adv_advise(t, small, fig5_place, &o, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.noptions, 0);
    adv_report_free(&r);
    o.task = 7;
    ck_assert_int_eq(adv_advise(t, small, fig5_place, &o, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "no task t7"), "%s", err.msg);
    skel_platform_free(small);
    skel_platform_free(p);
    skel_tree_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("advice");
    TCase *tc = tcase_create("advice");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_replicate);
    tcase_add_test(tc, test_merge_rates);
    tcase_add_test(tc, test_free_nodes);
    tcase_add_test(tc, test_evaluate_farm_first);
    tcase_add_test(tc, test_yaikhom_findings);
    tcase_add_test(tc, test_advise);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
