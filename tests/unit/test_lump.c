/* test_lump: exact lumping of interchangeable copies (skel_model_new_lumped).
 *
 * For every construct, at sizes where both chains can be derived, the
 * lumped model and the model with one component per copy
 * (skel_model_new_placed) give the same job throughput and the same
 * throughput of every computation (a lumped array's comp_<i> against the
 * sum over its copies) to 1e-9; where something lumps the chain is
 * smaller, and where nothing may lump (a deal's round robin, copies on
 * nodes of different speeds or sharing a node) nothing does. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"
#include "skeleton/skeleton.h"
#include "suite.h"

/* Node classes: a* fast, b* slow; every pair has the default link except
 * the io node's faster ones. */
static const char plat_text[] =
    "LocalLatency=0.01 DefaultLatency=0.2 Input=io Output=local\n"
    "NodeName=io Speed=1\n"
    "NodeName=a[1-8] Speed=3\n"
    "NodeName=b[1-8] Speed=1\n"
    "Link=io,a[1-8] Latency=0.05\n";

typedef struct lcase {
    const char *name, *skel;
    skel_style style;
    const char *place;       /* skel_place_parse spec; unnamed tasks round robin */
    skel_sharing sharing;
    int lumped;              /* tasks of later copies expected lumped */
    const char *plat_extra;  /* platform keys before plat_text, or NULL */
} lcase;

typedef struct result {
    double job;
    double *thr;             /* per action */
    unsigned states;
} result;

static void solve_model(const skel_model *m, result *r)
{
    diag err;
    diag_clear(&err);
    pepa_system *sys = pepa_system_new(m->pepa, &err);
    ck_assert_msg(sys, "%s", err.msg);
    pepa_derive_opts d = { 0 };
    pepa_space *sp = pepa_derive(sys, &d, &err);
    ck_assert_msg(sp, "%s", err.msg);
    double *pi = calloc(sp->n, sizeof *pi);
    r->thr = calloc((size_t)sys->nactions, sizeof *r->thr);
    ck_assert(pi && r->thr);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_DIRECT;
    pepa_solve_result res;
    ck_assert_msg(pepa_solve(sp->q, &o, pi, &res, &err) == 0, "%s", err.msg);
    ck_assert_msg(pepa_space_throughput(sp, pi, r->thr, &err) == 0, "%s", err.msg);
    r->job = skel_model_throughput(m, r->thr);
    r->states = sp->n;
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(sys);
}

static int close_rel(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* Every lumped comp action against the sum of the copies' ones. */
static void check_comps(const lcase *c, const skel_model *ml, const result *rl,
                        const skel_model *mu, const result *ru)
{
    for (int i = 0; i < ml->ntasks; i++) {
        int a = ml->comp_action[i];
        double sum = 0;
        for (int j = 0; j < mu->ntasks; j++)
            if (ml->comp_action[j] == a)
                sum += ru->thr[mu->comp_action[j]];
        ck_assert_msg(close_rel(rl->thr[a], sum), "%s: comp of t%d lumped %.15g, copies %.15g",
                      c->name, i, rl->thr[a], sum);
    }
}

static void run_case(const lcase *c)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(c->skel, strlen(c->skel), "test.skel", &err);
    ck_assert_msg(t, "%s: %s", c->name, err.msg);
    skel_dag *d = skel_dag_build(t, c->style, &err);
    ck_assert_msg(d, "%s: %s", c->name, err.msg);
    char ptext[1024];
    snprintf(ptext, sizeof ptext, "%s%s", c->plat_extra ? c->plat_extra : "", plat_text);
    skel_platform *p = skel_platform_parse_string(ptext, strlen(ptext), "test.conf", NULL, NULL,
                                                  &err);
    ck_assert_msg(p, "%s", err.msg);
    p->sharing = c->sharing;
    int n = skel_tree_ntasks(t);
    int *where = malloc((size_t)n * sizeof *where);
    ck_assert(where);
    skel_place_default(n, p, where);
    ck_assert_msg(skel_place_parse(c->place, n, p, where, &err) == 0, "%s: %s", c->name, err.msg);
    skel_model *ml = skel_model_new_lumped(t, d, p, where, &err);
    ck_assert_msg(ml, "%s: %s", c->name, err.msg);
    skel_model *mu = skel_model_new_placed(t, d, p, where, &err);
    ck_assert_msg(mu, "%s: %s", c->name, err.msg);
    ck_assert_msg(ml->lumped == c->lumped, "%s: %d tasks lumped, expected %d", c->name,
                  ml->lumped, c->lumped);
    ck_assert_int_eq(mu->lumped, 0);
    result rl, ru;
    solve_model(ml, &rl);
    solve_model(mu, &ru);
    ck_assert_msg(rl.job > 0 && close_rel(rl.job, ru.job), "%s: job throughput lumped %.15g, "
                  "unlumped %.15g", c->name, rl.job, ru.job);
    check_comps(c, ml, &rl, mu, &ru);
    if (c->lumped)
        ck_assert_msg(rl.states < ru.states, "%s: %u states lumped, %u unlumped", c->name,
                      rl.states, ru.states);
    else
        ck_assert_uint_eq(rl.states, ru.states);
    free(rl.thr);
    free(ru.thr);
    skel_model_free(mu);
    skel_model_free(ml);
    free(where);
    skel_platform_free(p);
    skel_dag_free(d);
    skel_tree_free(t);
}

#define PS SKEL_SHARE_PS
#define ST SKEL_SHARE_STATIC
#define PROD SKEL_STYLE_PRODUCER
#define STRM SKEL_STYLE_STREAM

static const lcase cases[] = {
    { "farm", "pipe(3); task(\"s\", 4); farm(4, \"w\", 1); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=a2,t3=a3,t4=a4,t5=b1", PS, 3, NULL },
    { "farm stream", "pipe(3); task(\"s\", 4); farm(4, \"w\", 1); task(\"z\", 3);", STRM,
      "t0=b2,t1=a1,t2=a2,t3=a3,t4=a4,t5=b1", PS, 3, NULL },
    { "farm first", "pipe(2); farm(3, \"w\", 1); task(\"z\", 3);", STRM,
      "t0=a1,t1=a2,t2=a3,t3=b1", PS, 2, NULL },
    { "farm last", "pipe(2); task(\"s\", 2); farm(3, \"w\", 1, data=1e3);", STRM,
      "t0=b1,t1=a1,t2=a2,t3=a3", PS, 2, NULL },
    { "two classes", "pipe(3); task(\"s\", 4); farm(5, \"w\", 1); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=b2,t3=a3,t4=b4,t5=a5,t6=b1", PS, 3, NULL },
    { "one fast member", "pipe(3); task(\"s\", 4); farm(3, \"w\", 1); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=b2,t3=b3,t4=b1", PS, 1, NULL },
    { "erlang", "pipe(3); task(\"s\", 4); farm(3, \"w\", 1, scv=0.5); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=a2,t3=a3,t4=b1", PS, 2, NULL },
    { "h2", "pipe(3); task(\"s\", 4); farm(3, \"w\", 1, scv=4); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=a2,t3=a3,t4=b1", PS, 2, NULL },
    { "xfarm of pipes",
      "pipe(3); task(\"s\", 4); xfarm(3); pipe(2); task(\"x\", 2); task(\"y\", 3);"
      " pipe(2); task(\"x\", 2); task(\"y\", 3); pipe(2); task(\"x\", 2); task(\"y\", 3);"
      " task(\"z\", 5);", STRM, "t0=io,t1=a1,t2=b1,t3=a2,t4=b2,t5=a3,t6=b3,t7=b4", PS, 4, NULL },
    { "xfarm of farms",
      "pipe(3); task(\"s\", 4); xfarm(2); pipe(2); task(\"x\", 2); farm(2, \"w\", 1);"
      " pipe(2); task(\"x\", 2); farm(2, \"w\", 1); task(\"z\", 5);", PROD,
      "t0=io,t1=a1,t2=b1,t3=b2,t4=a2,t5=b3,t6=b4,t7=a3", PS, 3, NULL },
    { "farm of deals", "pipe(3); task(\"s\", 4); xfarm(2); deal(2, \"w\", 1); deal(2, \"w\", 1);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=a3,t4=a4,t5=b1", PS, 2, NULL },
    { "deal of farms", "pipe(3); task(\"s\", 4); xdeal(2); farm(2, \"w\", 1); farm(2, \"w\", 1);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=a3,t4=a4,t5=b1", PS, 2, NULL },
    { "deal", "pipe(3); task(\"s\", 4); deal(4, \"w\", 1); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=a2,t3=a3,t4=a4,t5=b1", PS, 0, NULL },
    { "xdeal of pipes",
      "pipe(3); task(\"s\", 4); xdeal(2); pipe(2); task(\"x\", 2); task(\"y\", 3);"
      " pipe(2); task(\"x\", 2); task(\"y\", 3); task(\"z\", 5);", PROD,
      "t0=io,t1=a1,t2=b1,t3=a2,t4=b2,t5=b3", PS, 0, NULL },
    { "deal then farm", "pipe(4); task(\"s\", 4); deal(2, \"d\", 2); farm(3, \"w\", 1);"
      " task(\"z\", 3);", PROD, "t0=io,t1=b1,t2=b2,t3=a1,t4=a2,t5=a3,t6=b3", PS, 2, NULL },
    { "farm then deal", "pipe(4); task(\"s\", 4); farm(3, \"w\", 1); deal(2, \"d\", 2);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=a3,t4=b1,t5=b2,t6=b3", PS, 2, NULL },
    { "farm then farm", "pipe(4); task(\"s\", 4); farm(2, \"v\", 1); farm(3, \"w\", 1);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=a3,t4=a4,t5=a5,t6=b1", PS, 1, NULL },
    { "choice", "pipe(3); task(\"s\", 4); choice(0.7, 0.3); farm(3, \"w\", 1); task(\"r\", 2);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=a3,t4=b1,t5=b2", PS, 2, NULL },
    { "par", "pipe(3); task(\"s\", 4); par(2); farm(2, \"w\", 1); task(\"r\", 2);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=b1,t4=b2", PS, 1, NULL },
    { "loop over a farm", "pipe(3); task(\"s\", 4); loop(1.5); farm(3, \"w\", 1);"
      " task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=a3,t4=b1", PS, 2, NULL },
    { "loop around a farm", "pipe(3); task(\"s\", 4); loop(2); pipe(2); farm(2, \"w\", 1);"
      " task(\"v\", 3); task(\"z\", 3);", PROD, "t0=io,t1=a1,t2=a2,t3=b1,t4=b2", PS, 1, NULL },
    { "ps, stages shared", "pipe(3); task(\"s\", 4); farm(3, \"w\", 1); task(\"z\", 3);", STRM,
      "t0=b1,t1=a1,t2=a2,t3=a3,t4=b1", PS, 2, NULL },
    { "ps, members shared", "pipe(3); task(\"s\", 4); farm(4, \"w\", 1); task(\"z\", 3);", PROD,
      "t0=io,t1=a1,t2=a1,t3=a2,t4=a2,t5=b1", PS, 0, NULL },
    { "static, members shared", "pipe(3); task(\"s\", 4); farm(4, \"w\", 1); task(\"z\", 3);",
      PROD, "t0=io,t1=a1,t2=a1,t3=a2,t4=a2,t5=b1", ST, 3, NULL },
    { "links with phases", "pipe(2); task(\"s\", 4); farm(2, \"w\", 1);", PROD,
      "t0=io,t1=a1,t2=a2", PS, 0, "LinkSCV=0.5\n" },
    { "buffered links", "pipe(2); task(\"s\", 4); farm(2, \"w\", 1);", PROD,
      "t0=io,t1=a1,t2=a2", PS, 0, "DefaultBuffer=1\n" },
};

START_TEST(test_lumped_equals_unlumped)
{
    run_case(&cases[_i]);
}
END_TEST

/* farm(n) of one task between two stages: the lumped chain grows as
 * n^2 (pairs of counts), the unlumped one as 3^n. */
START_TEST(test_polynomial)
{
    diag err;
    diag_clear(&err);
    unsigned prev = 0;
    for (int n = 4; n <= 40; n += 12) {
        char text[256];
        snprintf(text, sizeof text, "pipe(3); task(\"s\", 4); farm(%d, \"w\", 1); task(\"z\", 3);", n);
        skel_tree *t = skel_parse_string(text, strlen(text), "test.skel", &err);
        skel_dag *d = t ? skel_dag_build(t, SKEL_STYLE_PRODUCER, &err) : NULL;
        skel_platform *p = d ? skel_platform_default(n + 2, &err) : NULL;
        ck_assert_msg(p, "%s", err.msg);
        int *where = malloc((size_t)(n + 2) * sizeof *where);
        ck_assert(where);
        skel_place_default(n + 2, p, where);
        skel_model *m = skel_model_new_lumped(t, d, p, where, &err);
        ck_assert_msg(m, "%s", err.msg);
        ck_assert_int_eq(m->lumped, n - 1);
        result r;
        solve_model(m, &r);
        /* counts (waiting, computing, sending) of n members, times the two
         * stages' local states: at most 4 (n + 1)(n + 2) / 2 */
        ck_assert_uint_le(r.states, 2u * (unsigned)((n + 1) * (n + 2)));
        ck_assert_uint_gt(r.states, prev);
        prev = r.states;
        free(r.thr);
        skel_model_free(m);
        free(where);
        skel_platform_free(p);
        skel_dag_free(d);
        skel_tree_free(t);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("lump");
    TCase *tc = tcase_create("lump");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_lumped_equals_unlumped, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_polynomial);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
