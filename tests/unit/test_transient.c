/* Transient and fluid analysis: closed forms, CVODE against uniformisation
 * on the corpus, PC-LAN4's published transient values, convergence to the
 * steady state, and the fluid limit. */
#include <math.h>

#include "testutil.h"
#include "transient/transient.h"

/* Collect every distribution into one array (ntimes x n). */
typedef struct grab {
    uint32_t n;
    double *all;
} grab;

static int grab_fn(void *ctx, int k, double t, const double *pi, diag *err)
{
    (void)t, (void)err;
    grab *g = ctx;
    memcpy(g->all + (size_t)k * g->n, pi, g->n * sizeof *pi);
    return 0;
}

static double *run(const pepa_ctmc *q, const double *times, int nt, tr_method m, tr_result *res)
{
    tr_opts o;
    tr_opts_init(&o);
    o.method = m;
    o.rtol = 1e-10;
    o.atol = 1e-14;
    grab g = { q->n, malloc((size_t)nt * q->n * sizeof(double)) };
    diag err;
    diag_clear(&err);
    int rc = tr_solve(q, NULL, times, nt, &o, grab_fn, &g, res, &err);
    ck_assert_msg(rc == 0, "tr_solve: %s", err.msg);
    return g.all;
}

START_TEST(two_state_closed_form)
{
    /* 0 -> 1 at a, 1 -> 0 at b: p1(t) = a/(a+b) (1 - exp(-(a+b) t)) */
    double a = 2, b = 3;
    uint32_t src[] = { 0, 1 }, dst[] = { 1, 0 };
    double rate[] = { a, b };
    pepa_ctmc *q = pepa_ctmc_from_triples(2, 2, src, dst, rate);
    double times[] = { 0, 0.1, 0.5, 1, 3 };
    for (int m = 0; m < 2; m++) {
        tr_result res;
        double *all = run(q, times, 5, m ? TR_UNIFORM : TR_CVODE, &res);
        for (int k = 0; k < 5; k++) {
            double want = a / (a + b) * (1 - exp(-(a + b) * times[k]));
            ck_assert_msg(fabs(all[2 * k + 1] - want) < 1e-9, "method %d t=%g: %.12g vs %.12g", m,
                          times[k], all[2 * k + 1], want);
        }
        ck_assert(res.mass_error < 1e-9);
        free(all);
    }
    pepa_ctmc_free(q);
}
END_TEST

START_TEST(poisson_weights)
{
    double lts[] = { 0, 0.3, 5, 100, 1e4, 1e6 };
    for (size_t i = 0; i < sizeof lts / sizeof lts[0]; i++) {
        long l, r;
        double *w = tr_poisson_weights(lts[i], 1e-12, &l, &r);
        ck_assert_ptr_nonnull(w);
        double s = 0, mean = 0;
        for (long k = l; k <= r; k++) {
            s += w[k - l];
            mean += k * w[k - l];
        }
        ck_assert(fabs(s - 1) < 1e-12);
        ck_assert_msg(fabs(mean - lts[i]) <= 1e-9 * (1 + lts[i]), "mean %g vs %g", mean, lts[i]);
        if (lts[i] == 5)   /* against the closed form at the mode */
            ck_assert(fabs(w[5 - l] - exp(-5) * pow(5, 5) / 120) < 1e-12);
        free(w);
    }
}
END_TEST

static const char *const corpus[] = {
    "corpus/pepa/pypepa/simple.pepa",
    "corpus/pepa/ipclib/simpleTea.pepa",
    "corpus/pepa/pepa-eclipse-plugin/tiny.pepa",
    "corpus/pepa/pepa-eclipse-plugin/aggregation.pepa",
    "corpus/pepa/pepa-eclipse-plugin/array0.pepa",
    "corpus/pepa/pepa-eclipse-plugin/lan4.pepa",
    "corpus/pepa/pepa-eclipse-plugin/browser.pepa",
    "corpus/pepa/prism/PC-LAN4.pepa",
    "corpus/pepa/pepa-eclipse-plugin/production.pepa",
    "corpus/pepa/pepa-eclipse-plugin/ws-large.pepa",
};

/* CVODE and uniformisation agree to 1e-6 on every corpus model small
 * enough for both (x-large-t, 262,144 states, and jobshop5 are left out:
 * seconds to minutes per method, for nothing the others do not cover). */
START_TEST(cvode_vs_uniform)
{
    solved x;
    memset(&x, 0, sizeof x);
    x.m = pepa_parse_file(shared_path(corpus[_i]), &x.err);
    ck_assert_msg(x.m, "%s", x.err.msg);
    ck_assert_msg((x.s = pepa_system_new(x.m, &x.err)) && (x.sp = pepa_derive(x.s, NULL, &x.err)), "%s",
                  x.err.msg);
    double times[] = { 0.5, 2, 10 };
    tr_result r1, r2;
    double *a = run(x.sp->q, times, 3, TR_CVODE, &r1);
    double *b = run(x.sp->q, times, 3, TR_UNIFORM, &r2);
    double worst = 0;
    for (size_t i = 0; i < 3 * (size_t)x.sp->n; i++)
        worst = fmax(worst, fabs(a[i] - b[i]));
    ck_assert_msg(worst < 1e-6, "%s: max |cvode - uniformisation| = %g", corpus[_i], worst);
    ck_assert_msg(r1.mass_error < 1e-9 && r2.mass_error < 1e-9, "%s: mass error %g / %g", corpus[_i],
                  r1.mass_error, r2.mass_error);
    free(a);
    free(b);
    solved_free(&x);
}
END_TEST

/* EXPECTED.md: P(PC10 busy at t=10) = 0.0700504159, at t=100: 0.1328876605. */
START_TEST(pc_lan4_expected)
{
    solved x;
    memset(&x, 0, sizeof x);
    x.m = pepa_parse_file(shared_path("corpus/pepa/prism/PC-LAN4.pepa"), &x.err);
    ck_assert_msg(x.m && (x.s = pepa_system_new(x.m, &x.err)) && (x.sp = pepa_derive(x.s, NULL, &x.err)),
                  "%s", x.err.msg);
    double times[] = { 10, 100 };
    for (int m = 0; m < 2; m++) {
        tr_opts o;
        tr_opts_init(&o);
        o.method = m ? TR_UNIFORM : TR_CVODE;
        o.rtol = 1e-10;
        o.atol = 1e-14;
        tr_series *ser = tr_series_new(x.s, times, 2);
        ser->sp = x.sp;
        tr_result res;
        ck_assert_msg(tr_solve(x.sp->q, NULL, times, 2, &o, tr_series_record, ser, &res, &x.err) == 0, "%s",
                      x.err.msg);
        /* leaf 0 is PC10; its second local state is PC11 (busy) */
        ck_assert_msg(fabs(ser->local[0][1] - 0.0700504159) < 1e-9, "t=10: %.12g", ser->local[0][1]);
        ck_assert_msg(fabs(ser->local[0][3] - 0.1328876605) < 1e-9, "t=100: %.12g", ser->local[0][3]);
        tr_series_free(ser);
    }
    solved_free(&x);
}
END_TEST

/* The transient throughput converges to the steady-state solver's value. */
START_TEST(converges_to_steady_state)
{
    static const char *const models[] = { "corpus/pepa/pypepa/simple.pepa",
                                          "corpus/pepa/pepa-eclipse-plugin/lan4.pepa",
                                          "corpus/pepa/prism/PC-LAN4.pepa" };
    solved x;
    ck_assert_msg(solve_path(&x, shared_path(models[_i]), PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
    double times[] = { 0, 1, 5000 };
    tr_series *ser = tr_series_new(x.s, times, 3);
    ser->sp = x.sp;
    tr_result res;
    ck_assert(tr_solve(x.sp->q, NULL, times, 3, NULL, tr_series_record, ser, &res, &x.err) == 0);
    for (int a = 1; a < x.s->nactions; a++) {
        double got = ser->thr[2 * (size_t)x.s->nactions + (size_t)a];
        ck_assert_msg(fabs(got - x.thr[a]) <= 1e-6 * fabs(x.thr[a]) + 1e-12, "%s %s: %.12g vs %.12g",
                      models[_i], pepa_model_action(x.m, a), got, x.thr[a]);
        ck_assert(tr_settle_time(ser, a, x.thr[a], 1e-6) <= 5000);
    }
    tr_series_free(ser);
    solved_free(&x);
}
END_TEST

/* Makespan of a constant-rate stream is N / rate. */
START_TEST(makespan_constant_rate)
{
    solved x;
    ck_assert(solve_text(&x, "P = (a, 2.0).P; P", PEPA_METHOD_DIRECT) == 0);
    int a = pepa_model_find_action(x.m, "a");
    for (int m = 0; m < 2; m++) {
        tr_opts o;
        tr_opts_init(&o);
        o.method = m ? TR_UNIFORM : TR_CVODE;
        double t;
        ck_assert_msg(tr_makespan(x.sp, a, 10, x.thr[a], 1e6, 200, &o, &t, &x.err) == 0, "%s", x.err.msg);
        ck_assert_msg(fabs(t - 5) < 1e-9, "makespan %.12g", t);
    }
    solved_free(&x);
    /* two-state: C(t) = (b t)/(a+b)... checked against a direct quadrature */
    ck_assert(solve_text(&x, "P = (a, 1.0).Q; Q = (b, 3.0).P; P", PEPA_METHOD_DIRECT) == 0);
    int b = pepa_model_find_action(x.m, "b");
    double t;
    tr_opts o;
    tr_opts_init(&o);
    ck_assert(tr_makespan(x.sp, b, 100, x.thr[b], 1e6, 400, &o, &t, &x.err) == 0);
    /* p_Q(t) = 1/4 (1 - e^{-4t}); C(t) = 3/4 (t - (1 - e^{-4t})/4) */
    double c = 0.75 * (t - (1 - exp(-4 * t)) / 4);
    /* cubic Hermite rule: the trapezoid rule alone was 1.1e-3 off here */
    ck_assert_msg(fabs(c - 100) < 1e-6, "C(%.9g) = %.9g", t, c);
    solved_free(&x);
}
END_TEST

static double fluid_fixed(const char *text_or_path, int is_path, const char *action, int n_expect_vars)
{
    pepa_model *m;
    diag err;
    diag_clear(&err);
    m = is_path ? pepa_parse_file(text_or_path, &err)
                : pepa_parse_string(text_or_path, strlen(text_or_path), "fluid.pepa", &err);
    ck_assert_msg(m, "%s", err.msg);
    pepa_system *s = pepa_system_new(m, &err);
    ck_assert_msg(s, "%s", err.msg);
    tr_fluid *f = tr_fluid_new(s, &err);
    ck_assert_msg(f, "%s", err.msg);
    if (n_expect_vars > 0)
        ck_assert_int_eq(tr_fluid_nvars(f), n_expect_vars);
    double *x = malloc((size_t)tr_fluid_nvars(f) * sizeof *x), *thr = malloc((size_t)s->nactions * sizeof *thr);
    double t = 0;
    ck_assert_int_eq(tr_fluid_fixed_point(f, NULL, 1e-11, 1e9, x, &t, &err), 1);
    tr_fluid_throughput(f, x, 1e-7, thr);
    double v = thr[pepa_model_find_action(m, action)];
    free(thr);
    free(x);
    tr_fluid_free(f);
    pepa_system_free(s);
    pepa_model_free(m);
    return v;
}

START_TEST(fluid_corpus)
{
    ck_assert_rel(fluid_fixed(shared_path("corpus/pepa/pepa-eclipse-plugin/array0.pepa"), 1, "a", 4),
                  10.0 / 3, 1e-8);
    ck_assert_rel(fluid_fixed(shared_path("corpus/pepa/pepa-eclipse-plugin/aggregation.pepa"), 1, "a", 2),
                  4.0 / 3, 1e-8);
    /* hiding: b hidden becomes tau; a still 4/3 */
    ck_assert_rel(fluid_fixed("P = (a, 1.0).P2; P2 = (b, 2.0).P; (P[2]) / {b}", 0, "a", 2), 4.0 / 3, 1e-8);
    /* passive partner: the active rate governs while the passive side is populated */
    ck_assert_rel(fluid_fixed("S = (a, 1.0).S; C = (a, infty).C2; C2 = (b, 5.0).C; S <a> C[10]", 0, "a", 0),
                  1.0, 1e-5);
}
END_TEST

START_TEST(fluid_refuses)
{
    diag err;
    diag_clear(&err);
    const char *t = "P = (a, 1.0).P; Q = (a, infty).Q; R = (a, 2.0).R; (P || Q) <a> R";
    pepa_model *m = pepa_parse_string(t, strlen(t), "x.pepa", &err);
    ck_assert_msg(m, "%s", err.msg);
    pepa_system *s = pepa_system_new(m, &err);
    ck_assert_msg(s, "%s", err.msg);
    ck_assert_ptr_null(tr_fluid_new(s, &err));
    ck_assert(strstr(err.msg, "active on one side and passive") != NULL);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

/* A farm of n workers fed by an emitter of rate 0.6 n: per-worker
 * throughput of the fluid model against the CTMC, n = 1..6, then 10,000. */
static char *farm_text(int n)
{
    static const char *fmt = "Emitter = (task, %.17g).Emitter;\nWorker = (task, 1.0).Work;\n"
                             "Work = (compute, 1.0).Worker;\nEmitter <task> Worker[%d]\n";
    char *buf = malloc(256);
    snprintf(buf, 256, fmt, 0.6 * n, n);
    return buf;
}

START_TEST(fluid_farm_limit)
{
    double prev = INFINITY, err1 = 0;
    printf("farm: n, CTMC per-worker throughput, fluid, relative difference\n");
    for (int n = 1; n <= 6; n++) {
        char *txt = farm_text(n);
        solved x;
        ck_assert_msg(solve_text(&x, txt, PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
        double ctmc = thr_of(&x, "compute") / n;
        double fl = fluid_fixed(txt, 0, "compute", 0) / n;
        double rel = fabs(fl - ctmc) / ctmc;
        printf("  %5d  %.10f  %.10f  %.3e\n", n, ctmc, fl, rel);
        if (n == 1)
            err1 = rel;
        ck_assert_msg(rel <= prev + 1e-12, "n = %d: the gap grew (%g after %g)", n, rel, prev);
        prev = rel;
        solved_free(&x);
        free(txt);
    }
    ck_assert(prev < err1 / 2);
    char *txt = farm_text(10000);
    double fl = fluid_fixed(txt, 0, "compute", 0) / 10000;
    printf("  %5d  %12s  %.10f\n", 10000, "-", fl);
    ck_assert_rel(fl, 0.5, 1e-6);
    free(txt);
}
END_TEST

START_TEST(fluid_transient_series)
{
    diag err;
    diag_clear(&err);
    const char *t = "P = (a, 1.0).P2; P2 = (b, 2.0).P; P[2]";
    pepa_model *m = pepa_parse_string(t, strlen(t), "x.pepa", &err);
    pepa_system *s = pepa_system_new(m, &err);
    tr_fluid *f = tr_fluid_new(s, &err);
    ck_assert_ptr_nonnull(f);
    double times[] = { 0, 0.5, 2 };
    tr_series *ser = tr_series_new(s, times, 3);
    tr_fluid_rec rec = { f, ser, 1e-7 };
    tr_result res;
    ck_assert(tr_fluid_solve(f, times, 3, NULL, tr_fluid_record, &rec, &res, &err) == 0);
    /* x' = -x + 2 (2 - x): x(t) = 4/3 + 2/3 e^{-3t} */
    for (int k = 0; k < 3; k++)
        ck_assert_msg(fabs(ser->local[0][2 * k] - (4.0 / 3 + 2.0 / 3 * exp(-3 * times[k]))) < 1e-6, "t=%g: %g",
                      times[k], ser->local[0][2 * k]);
    tr_series_free(ser);
    tr_fluid_free(f);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

START_TEST(bad_input)
{
    uint32_t src[] = { 0 }, dst[] = { 1 };
    double rate[] = { 1 };
    pepa_ctmc *q = pepa_ctmc_from_triples(2, 1, src, dst, rate);
    double times[] = { 1, 0.5 };
    tr_result res;
    diag err;
    diag_clear(&err);
    ck_assert_int_eq(tr_solve(q, NULL, times, 2, NULL, grab_fn, NULL, &res, &err), -1);
    ck_assert(strstr(err.msg, "must not decrease") != NULL);
    double pi0[] = { 0.5, 0.4 };
    diag_clear(&err);
    ck_assert_int_eq(tr_solve(q, pi0, times, 1, NULL, grab_fn, NULL, &res, &err), -1);
    ck_assert(strstr(err.msg, "sums to") != NULL);
    pepa_ctmc_free(q);
}
END_TEST

static Suite *transient_suite(void)
{
    Suite *s = suite_create("transient");
    TCase *tc = tcase_create("ctmc");
    tcase_add_test(tc, two_state_closed_form);
    tcase_add_test(tc, poisson_weights);
    tcase_add_loop_test(tc, cvode_vs_uniform, 0, (int)(sizeof corpus / sizeof corpus[0]));
    tcase_add_test(tc, pc_lan4_expected);
    tcase_add_loop_test(tc, converges_to_steady_state, 0, 3);
    tcase_add_test(tc, makespan_constant_rate);
    tcase_add_test(tc, bad_input);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tc = tcase_create("fluid");
    tcase_add_test(tc, fluid_corpus);
    tcase_add_test(tc, fluid_refuses);
    tcase_add_test(tc, fluid_farm_limit);
    tcase_add_test(tc, fluid_transient_series);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(transient_suite());
}
