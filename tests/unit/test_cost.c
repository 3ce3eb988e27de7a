/* test_cost: the seeds' analytic cost models (cost/).
 *  - Darlington et al. 1993's ideal and §5 PIPE/FARM times against hand-computed values;
 *  - Zavanella 1999's eq. 2, the grain and merge rules, and the optimal farm:
 *    (n^, k^) satisfies eq. 5 and n^ - 1 does not, over a grid of machines;
 *  - Alt et al. 2002's eq. 1 and eq. 2 against hand-computed values;
 *  - the models on placed skeletons: sharing a node slows a stage for
 *    Darlington et al. 1993 and Zavanella 1999 but not for Alt et al. 2002 (it knows nothing of the other
 *    tasks on a server); farms add their workers' rates, deals run at n
 *    times the slowest; the cost keys of the platform file and their errors. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "placed.h"
#include "suite.h"

static void close_to(double a, double b, int line)
{
    ck_assert_msg(fabs(a - b) <= 1e-9 * fmax(1, fabs(b)), "line %d: %.12g != %.12g", line, a, b);
}
#define CLOSE(a, b) close_to((a), (b), __LINE__)

START_TEST(test_darlington_ideal)
{
    CLOSE(cost_farm_ideal(2, 3, 0.5, 10, 4), 2 + 3 * (3 + 1));
    CLOSE(cost_farm_ideal(0, 1, 0, 8, 4), 2);
    CLOSE(cost_pipe_ideal(1, 2, 0.5, 4, 10, 2), 1 + (4 + 0.5) * 13);
    CLOSE(cost_pipe_ideal(0, 1, 0, 3, 1, 1), 3);     /* one item: the fill */
}
END_TEST

START_TEST(test_darlington_impl)
{
    cost_machine m = { .i0 = 1, .i1 = 0.5, .to = 0.1, .tb = 0.01, .tfo = 0.2, .tf = 0.001,
                       .gc_rate = 0.5, .gc_time = 2 };
    cost_job j = { .nw = 100, .tw = 0.3, .grain = 2, .d = 10, .r = 5, .p = 6, .np = 10, .ws = 3 };
    cost_parts c;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(cost_farm_time(&m, &j, &c, &err), 0);
    CLOSE(c.rounds, 10);                 /* ceil(100 / (2 * 5)) */
    CLOSE(c.setup, 4);
    CLOSE(c.comms, 10 * (0.2 + 2 * 15 * 0.01 + 2 * (0.4 + 0.015)));
    CLOSE(c.work, 10 * 0.6);
    CLOSE(c.gc, 30 * 2);                 /* ceil(3 * 2 * 0.5 * 10) T_g */
    CLOSE(c.total, 4 + 13.3 + 6 + 60);
    ck_assert_int_eq(cost_pipe_time(&m, &j, &c, &err), 0);
    CLOSE(c.rounds, 50);
    CLOSE(c.fill, 6 * 0.2 + 5 * (2 * 0.21 + 1.2));   /* T_prc = 2 * 0.3 * ceil(10/5) */
    CLOSE(c.work, 49 * 1.2);
    CLOSE(c.comms, 49 * 0.62);
    CLOSE(c.gc, (60 + 300) / 2.0);       /* W = 300: ceil(150/5) T_g and ceil(150) T_g */
    CLOSE(c.total, 4 + 9.3 + 58.8 + 30.38 + 180);
    j.p = 1;
    ck_assert_int_eq(cost_farm_time(&m, &j, &c, &err), -1);
    ck_assert_msg(strstr(err.msg, "at least one slave"), "%s", err.msg);
    diag_clear(&err);
    j.p = 4;
    j.grain = 0;
    ck_assert_int_eq(cost_pipe_time(&m, &j, &c, &err), -1);
    ck_assert_msg(strstr(err.msg, "grain"), "%s", err.msg);
}
END_TEST

START_TEST(test_p3l_pipe)
{
    cost_bsp b = { 0.001, 100, 0.05 };
    CLOSE(cost_p3l_stage(&b, 0.2, 10, 20, 4), 0.8 + 0.05 + 0.12 + 0.2);
    double t[] = { 0.1, 0.2 }, d[] = { 10, 20, 30 };
    CLOSE(cost_p3l_pipe(&b, 2, t, d, 1, 0), cost_p3l_stage(&b, 0.2, 20, 30, 1));
    CLOSE(cost_p3l_pipe(&b, 2, t, d, 1, 5), 5);          /* the source is the limit */
    CLOSE(cost_p3l_grain(&b, 2, t, d, 0.3), 0.25 / 0.05); /* T = 0.25 < T_e */
    CLOSE(cost_p3l_grain(&b, 2, t, d, 0.2), 1);           /* T >= T_e */
    cost_bsp z = { 0, 0, 0 };
    double t3[] = { 0.1, 0.05, 0.4 }, d0[] = { 0, 0, 0, 0 };
    ck_assert(cost_p3l_mergeable(&z, 3, t3, d0, 0));
    ck_assert(!cost_p3l_mergeable(&z, 3, t3, d0, 1));
    ck_assert(!cost_p3l_mergeable(&z, 3, t3, d0, 2));     /* no stage after the last */
}
END_TEST

/* eq. 5 at (n^, k^), not at n^ - 1, over a grid of machines. */
START_TEST(test_p3l_optimal)
{
    static const double gs[] = { 0, 1e-6, 1e-4 }, nh[] = { 0, 100, 5000 }, ls[] = { 0, 1e-3, 0.05 };
    static const double tfs[] = { 0.01, 0.2, 3 }, tes[] = { 0.005, 0.05, 0.5 };
    int checked = 0;
    for (int a = 0; a < 3; a++)
        for (int bb = 0; bb < 3; bb++)
            for (int c = 0; c < 3; c++)
                for (int e = 0; e < 3; e++)
                    for (int f = 0; f < 3; f++) {
                        cost_bsp b = { gs[a], nh[bb], ls[c] };
                        double d0 = 100, tf = tfs[e], te = tes[f], k;
                        int n, lim;
                        diag err;
                        diag_clear(&err);
                        ck_assert_int_eq(cost_p3l_optimal(&b, d0, tf, te, 10, &n, &k, &lim, &err), 0);
                        ck_assert(k >= 1 && n >= 1);
                        if (lim) {
                            ck_assert(2 * b.g * d0 >= te);
                            ck_assert(cost_p3l_worker(&b, d0, tf, n, k) < 2 * b.g * d0 * 1.1);
                            continue;
                        }
                        ck_assert(cost_p3l_emitter(&b, d0, n, k) < te);
                        ck_assert(cost_p3l_worker(&b, d0, tf, n, k) < te);
                        if (n > 1)
                            ck_assert(!(cost_p3l_emitter(&b, d0, n - 1, k) < te &&
                                        cost_p3l_worker(&b, d0, tf, n - 1, k) < te));
                        checked++;
                    }
    ck_assert_int_gt(checked, 100);
    /* no communication: n^ = |tf / T_e| + 1, the legible part of eq. 6 */
    cost_bsp z = { 0, 0, 0 };
    int n, lim;
    double k;
    ck_assert_int_eq(cost_p3l_optimal(&z, 0, 0.02, 0.01, 0, &n, &k, &lim, NULL), 0);
    ck_assert_int_eq(n, 3);
    CLOSE(k, 1);
    ck_assert_int_eq(cost_p3l_optimal(&z, 0, 0.025, 0.01, 0, &n, &k, &lim, NULL), 0);
    ck_assert_int_eq(n, 3);
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(cost_p3l_optimal(&z, 0, 1, 0, 0, &n, &k, &lim, &err), -1);
    ck_assert_msg(strstr(err.msg, "T_e"), "%s", err.msg);
}
END_TEST

START_TEST(test_remote)
{
    CLOSE(cost_remote_time(0.1, 0.01, 100, 20, 30, 2), 0.2 + 1.5 + 2);
    CLOSE(cost_remote_reduce(1024, 4, 0.5), 255 * 0.5 + 3 * 0.5);
    CLOSE(cost_remote_reduce(7, 1, 1), 6);
}
END_TEST

static double estimate(placed *x, cost_model k, const int *pl)
{
    cost_estimate e;
    diag err;
    diag_clear(&err);
    ck_assert_msg(cost_estimate_placement(k, x->tree, x->model, x->plat, pl, 1, &e, &err) == 0, "%s", err.msg);
    double v = e.throughput;
    ck_assert_int_eq(e.ntasks, x->model->ntasks);
    cost_estimate_free(&e);
    return v;
}

static const char pipe3[] = "pipe(3); task(\"a\", 1); task(\"b\", 1); task(\"c\", 1);";
static const char plat3[] = "LocalLatency=0.0001 Input=local Output=local\n"
                            "NodeName=p[1-3] Speed=10\nLink=p[1-3] Latency=0.0001\n";

START_TEST(test_placed_sharing)
{
    placed x;
    placed_build(&x, pipe3, SKEL_STYLE_STREAM, plat3);
    int spread[] = { 0, 1, 2 }, one[] = { 0, 0, 0 };
    CLOSE(estimate(&x, COST_DARLINGTON, spread), 1 / (0.1 + 1e-4));
    CLOSE(estimate(&x, COST_P3L, spread), 1 / (0.1 + 1e-4));    /* l from the link */
    CLOSE(estimate(&x, COST_REMOTE, spread), 1 / (0.1 + 2e-4));
    /* three stages on one node of speed 10: each runs at 10/3 */
    CLOSE(estimate(&x, COST_DARLINGTON, one), 1 / (0.3 + 1e-4));
    CLOSE(estimate(&x, COST_P3L, one), 1 / (0.3 + 1e-4));
    CLOSE(estimate(&x, COST_REMOTE, one), 1 / (0.1 + 2e-4));    /* blind to sharing */
    /* Alt et al. 2002's choice: every task on the first fastest server it finds */
    int ch[3];
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(cost_remote_choose(x.model, x.plat, ch, &err), 0);
    ck_assert_int_eq(ch[0], 0);
    ck_assert_int_eq(ch[1], 0);
    ck_assert_int_eq(ch[2], 0);
    placed_free(&x);
}
END_TEST

START_TEST(test_placed_farm_deal)
{
    static const char plat[] = "LocalLatency=0.001 DefaultLatency=0.001\n"
                               "NodeName=a Speed=100\nNodeName=s1 Speed=1\nNodeName=s3 Speed=3\n"
                               "NodeName=z Speed=100\n";
    int pl[] = { 0, 1, 2, 3 };
    placed f, d;
    placed_build(&f, "pipe(3); task(\"e\", 1); farm(2, \"w\", 1); task(\"c\", 1);", SKEL_STYLE_PRODUCER, plat);
    placed_build(&d, "pipe(3); task(\"e\", 1); deal(2, \"w\", 1); task(\"c\", 1);", SKEL_STYLE_PRODUCER, plat);
    /* workers: t_e + 2 t_c = 1 + 0.002 and 1/3 + 0.002 (Darlington et al. 1993 §4.2) */
    double w1 = 1 + 0.002, w3 = 1.0 / 3 + 0.002;
    CLOSE(estimate(&f, COST_DARLINGTON, pl), 1 / w1 + 1 / w3);
    CLOSE(estimate(&d, COST_DARLINGTON, pl), 2 / w1);
    ck_assert(estimate(&f, COST_P3L, pl) > estimate(&d, COST_P3L, pl));
    placed_free(&f);
    placed_free(&d);
}
END_TEST

START_TEST(test_platform_keys)
{
    static const char ok[] = "SetupFixed=1 SetupPerNode=0.5 FlattenFixed=1e-3 FlattenPerByte=1e-9\n"
                             "GcRate=0.01 GcTime=0.2 BspG=1e-8 BspNHalf=512 BspL=1e-4\n"
                             "InterArrival=0.01 Precision=20 CodeSize=4096\nNodeName=a\n";
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(ok, strlen(ok), "k.conf", NULL, NULL, &err);
    ck_assert_msg(p, "%s", err.msg);
    CLOSE(p->param[SKEL_PARAM_SETUP_FIXED], 1);
    CLOSE(p->param[SKEL_PARAM_BSP_NHALF], 512);
    CLOSE(p->param[SKEL_PARAM_CODE_SIZE], 4096);
    CLOSE(p->param[SKEL_PARAM_PRECISION], 20);
    ck_assert_str_eq(skel_param_key(SKEL_PARAM_GC_TIME), "GcTime");
    ck_assert_ptr_eq(skel_param_key(SKEL_PARAM_COUNT), NULL);
    skel_platform_free(p);
    static const struct { const char *text, *msg; } bad[] = {
        { "BspG=-1\n", "k.conf:1:6: BspG=-1: negative numbers are not allowed" },
        { "NodeName=a\nbspl=1 BspL=2\n", "k.conf:2:8: BspL= given twice (first at line 2)" },
        { "CodeSize=lots\n", "k.conf:1:10: CodeSize=lots: not a number" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        diag_clear(&err);
        p = skel_platform_parse_string(bad[i].text, strlen(bad[i].text), "k.conf", NULL, NULL, &err);
        ck_assert_ptr_eq(p, NULL);
        ck_assert_str_eq(err.msg, bad[i].msg);
    }
}
END_TEST

START_TEST(test_model_names)
{
    cost_model k;
    for (int i = 0; i < COST_NMODELS; i++) {
        ck_assert_int_eq(cost_model_parse(cost_model_name((cost_model)i), &k), 0);
        ck_assert_int_eq(k, i);
    }
    ck_assert_int_eq(cost_model_parse("amdahl", &k), -1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("cost");
    tcase_add_test(tc, test_darlington_ideal);
    tcase_add_test(tc, test_darlington_impl);
    tcase_add_test(tc, test_p3l_pipe);
    tcase_add_test(tc, test_p3l_optimal);
    tcase_add_test(tc, test_remote);
    tcase_add_test(tc, test_placed_sharing);
    tcase_add_test(tc, test_placed_farm_deal);
    tcase_add_test(tc, test_platform_keys);
    tcase_add_test(tc, test_model_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
