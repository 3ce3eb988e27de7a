/* Unit tests of the PEPA engine: parsing, static checks, semantics on
 * hand-solvable models, the corpus's reference results, re-rating. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <unistd.h>

#include "pepa/enum.h"
#include "pepa/export.h"

/* ---- parsing ---------------------------------------------------------------- */

static void expect_parse_error(const char *text, const char *where, const char *what)
{
    diag d;
    diag_clear(&d);
    pepa_model *m = pepa_parse_string(text, strlen(text), "bad.pepa", &d);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(d.msg, where) != NULL, "message '%s' lacks '%s'", d.msg, where);
    ck_assert_msg(strstr(d.msg, what) != NULL, "message '%s' lacks '%s'", d.msg, what);
}

START_TEST(parse_errors_have_positions)
{
    expect_parse_error("P = (a, 1).P\nP", "bad.pepa:2:1:", "expected ';'");
    expect_parse_error("P = (a, 1.P;\nP", "bad.pepa:1:11:", "expected ')' to close the activity");
    expect_parse_error("r = 1;\nP = (a, r).P;\nP <a P", "bad.pepa:3:6:", "expected ','");
    expect_parse_error("P = (a, 1).P;\n", "bad.pepa:2:1:", "no system equation");
    expect_parse_error("P = (a, 1).p;\nP", "bad.pepa:1:12:", "upper-case");
    expect_parse_error("P = (a, 1).P;\nP = (b, 1).P;\nP", "bad.pepa:2:1:", "already defined");
    expect_parse_error("P = (a, 1).P;\nP[0]", "bad.pepa:2:3:", "positive whole number");
    expect_parse_error("P = (a, 1).P;\nP $", "bad.pepa:2:3:", "unexpected character");
    expect_parse_error("P = (a, 1).P; /* unterminated\nP", "bad.pepa:1:15:", "unterminated comment");
}
END_TEST

START_TEST(parse_nesting_is_bounded)
{
    size_t n = 100000;
    char *text = malloc(2 * n + 64);
    strcpy(text, "P = (a, 1).P;\n");
    size_t len = strlen(text);
    for (size_t i = 0; i < n; i++)
        text[len++] = '(';
    text[len++] = 'P';
    for (size_t i = 0; i < n; i++)
        text[len++] = ')';
    diag d;
    diag_clear(&d);
    pepa_model *m = pepa_parse_string(text, len, "deep.pepa", &d);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(d.msg, "nested more than"));
    free(text);
}
END_TEST

START_TEST(parse_dialects)
{
    /* %-comments and # before definitions (PEPA Workbench / PRISM),
     * := definitions, quoted names, <*>, /{..} and /<..> hiding, tau */
    const char *text =
        "% a comment line\n"
        "#r := 2.0; // rate\n"
        "#P = (a, r).(\"b-act\", 1).P + (tau, 3).P;\n"
        "/* block\n comment */ Q = (a, T).Q;\n"
        "(P <*> Q)/{\"b-act\"}/<a>";
    solved x;
    ck_assert_msg(solve_text(&x, text, PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
    /* two states: P and ("b-act", 1).P; pi = (1/3, 2/3). Hidden a and
     * b-act happen at 2/3 each, P's own tau at 3 * 1/3: all of it is tau. */
    ck_assert_int_eq(x.sp->n, 2);
    ck_assert_rel(thr_of(&x, "tau"), 1.0 + 2.0 / 3 + 2.0 / 3, 1e-12);
    ck_assert_rel(thr_of(&x, "a"), 0.0 + 0.0, 1e-12);
    solved_free(&x);
}
END_TEST

/* Parse every corpus model, print it, parse the print: same chain. */
START_TEST(corpus_round_trip)
{
    const char *files[] = { "pypepa/simple.pepa", "ipclib/simpleTea.pepa", "pepa-eclipse-plugin/tiny.pepa",
                            "pepa-eclipse-plugin/aggregation.pepa", "pepa-eclipse-plugin/array0.pepa",
                            "pepa-eclipse-plugin/lan4.pepa", "pepa-eclipse-plugin/browser.pepa",
                            "prism/PC-LAN4.pepa", "pepa-eclipse-plugin/production.pepa",
                            "pepa-eclipse-plugin/ws-large.pepa" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "corpus/pepa/%s", files[i]);
        solved a, b;
        ck_assert_msg(solve_path(&a, shared_path(rel), PEPA_METHOD_AUTO) == 0, "%s: %s", rel, a.err.msg);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        pepa_model_print(a.m, f);
        fclose(f);
        memset(&b, 0, sizeof b);
        b.m = pepa_parse_string(buf, len, "printed.pepa", &b.err);
        ck_assert_msg(b.m != NULL, "%s reprinted does not parse: %s\n%s", rel, b.err.msg, buf);
        ck_assert_msg(solve_model(&b, PEPA_METHOD_AUTO) == 0, "%s", b.err.msg);
        ck_assert_uint_eq(a.sp->n, b.sp->n);
        ck_assert_uint_eq(a.sp->q->nnz, b.sp->q->nnz);
        for (int act = 1; act < a.s->nactions; act++)
            ck_assert_rel(thr_of(&b, pepa_model_action(a.m, act)), a.thr[act], 1e-9);
        free(buf);
        solved_free(&a);
        solved_free(&b);
    }
}
END_TEST

/* ---- static checks ---------------------------------------------------------- */

static char warnings[4096];
static void collect(void *ctx, const char *msg)
{
    (void)ctx;
    strncat(warnings, msg, sizeof warnings - strlen(warnings) - 2);
    strcat(warnings, "\n");
}

START_TEST(check_undefined_and_unused)
{
    diag d;
    diag_clear(&d);
    const char *t1 = "r = 1;\nP = (a, r).Q;\nP";
    pepa_model *m = pepa_parse_string(t1, strlen(t1), "u.pepa", &d);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(pepa_check(m, collect, NULL, &d), -1);
    ck_assert_msg(strstr(d.msg, "u.pepa:2:12: process 'Q' is used but never defined"), "%s", d.msg);
    pepa_model_free(m);

    diag_clear(&d);
    warnings[0] = '\0';
    const char *t2 = "r = 1;\ns = 2;\nt = 3;\nP = (a, r).P;\nUnused = (b, s).Unused;\nP";
    m = pepa_parse_string(t2, strlen(t2), "w.pepa", &d);
    ck_assert_int_eq(pepa_check(m, collect, NULL, &d), 0);
    ck_assert_msg(strstr(warnings, "w.pepa:5:1: warning: process 'Unused' is defined but never used"), "%s", warnings);
    ck_assert_msg(strstr(warnings, "w.pepa:3:1: warning: rate 't' is defined but never used"), "%s", warnings);
    ck_assert_msg(!strstr(warnings, "rate 's'"), "s is used by Unused: %s", warnings);
    pepa_model_free(m);
}
END_TEST

START_TEST(check_passive_everywhere_and_blocked_sets)
{
    diag d;
    diag_clear(&d);
    const char *t = "P = (a, T).P;\nQ = (a, T).Q + (b, 1).Q;\nP <a, c> Q";
    pepa_model *m = pepa_parse_string(t, strlen(t), "p.pepa", &d);
    pepa_system *s = pepa_system_new(m, &d);
    ck_assert_ptr_nonnull(s);
    warnings[0] = '\0';
    ck_assert_int_eq(pepa_check_system(s, collect, NULL, &d), -1);
    ck_assert_msg(strstr(d.msg, "action 'a' is passive in every component"), "%s", d.msg);
    pepa_system_free(s);
    pepa_model_free(m);

    diag_clear(&d);
    const char *t2 = "P = (a, 1).P + (c, 1).P;\nQ = (a, T).Q;\nP <a, c> Q";
    m = pepa_parse_string(t2, strlen(t2), "p.pepa", &d);
    s = pepa_system_new(m, &d);
    warnings[0] = '\0';
    ck_assert_int_eq(pepa_check_system(s, collect, NULL, &d), 0);
    ck_assert_msg(strstr(warnings, "p.pepa:3:3: warning: the cooperation set names 'c', which the right side never"),
                  "%s", warnings);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

START_TEST(mixed_active_passive_in_one_state)
{
    solved x;
    ck_assert_int_eq(solve_text(&x, "P = (a, 1).P + (a, T).P;\nQ = (a, 1).Q;\nP <a> Q", PEPA_METHOD_AUTO), -1);
    ck_assert_msg(strstr(x.err.msg, "test.pepa:1:16: action 'a' is offered both actively and passively"),
                  "%s", x.err.msg);
    solved_free(&x);
}
END_TEST

START_TEST(bad_rates_are_errors)
{
    solved x;
    ck_assert_int_eq(solve_text(&x, "r = 1 - 1;\nP = (a, r).P;\nP", PEPA_METHOD_AUTO), -1);
    ck_assert_msg(strstr(x.err.msg, "test.pepa:2:5: the rate of activity 'a' is 0"), "%s", x.err.msg);
    solved_free(&x);
    ck_assert_int_eq(solve_text(&x, "r = s;\ns = r;\nP = (a, r).P;\nP", PEPA_METHOD_AUTO), -1);
    ck_assert_msg(strstr(x.err.msg, "circular"), "%s", x.err.msg);
    solved_free(&x);
    ck_assert_int_eq(solve_text(&x, "P = (a, T + 1).P;\nP", PEPA_METHOD_AUTO), -1);
    ck_assert_msg(strstr(x.err.msg, "test.pepa:1:11: cannot add"), "%s", x.err.msg);
    solved_free(&x);
    ck_assert_int_eq(solve_text(&x, "P = (a, 1/0).P;\nP", PEPA_METHOD_AUTO), -1);
    ck_assert_msg(strstr(x.err.msg, "division by zero"), "%s", x.err.msg);
    solved_free(&x);
}
END_TEST

START_TEST(unguarded_recursion_is_an_error)
{
    solved x;
    ck_assert_int_eq(solve_text(&x, "P = P + (a, 1).Q;\nQ = (b, 1).P;\nP", PEPA_METHOD_AUTO), -1);
    ck_assert_msg(strstr(x.err.msg, "test.pepa:1:1: 'P' reaches itself through choices"), "%s", x.err.msg);
    solved_free(&x);
}
END_TEST

/* A choice of 20000 alternatives (generated models have such): its
 * spine is walked without deep recursion, every alternative counts. */
START_TEST(long_choice)
{
    size_t n = 20000;
    char *text = malloc(n * 24 + 64);
    size_t len = (size_t)sprintf(text, "P = ");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s(a%zu, 1).P", i ? " + " : "", i);
    len += (size_t)sprintf(text + len, ";\nP");
    solved x;
    memset(&x, 0, sizeof x);
    x.m = pepa_parse_string(text, len, "long.pepa", &x.err);
    ck_assert_msg(solve_model(&x, PEPA_METHOD_AUTO) == 0, "%s", x.err.msg);
    ck_assert_uint_eq(x.sp->n, 1);
    ck_assert_rel(thr_of(&x, "a0"), 1.0, 1e-12);
    ck_assert_rel(thr_of(&x, "a19999"), 1.0, 1e-12);
    solved_free(&x);
    free(text);
}
END_TEST

/* ---- semantics -------------------------------------------------------------- */

/* The issue's example: two passive copies share the one active rate. */
START_TEST(passive_copies_share_the_active_rate)
{
    solved x;
    const char *t = "W0 = (a, 1).W1; W1 = (b, 1).W0;\n"
                    "T0 = (a, infty).T1; T1 = (c, 1).T0;\n"
                    "W0 <a> (T0 <> T0)";
    ck_assert_msg(solve_text(&x, t, PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
    ck_assert_uint_eq(x.sp->n, 8);
    ck_assert_rel(thr_of(&x, "a"), 22.0 / 45.0, 1e-12);
    ck_assert_rel(thr_of(&x, "b"), 22.0 / 45.0, 1e-12);
    ck_assert_rel(thr_of(&x, "c"), 22.0 / 45.0, 1e-12);
    solved_free(&x);
}
END_TEST

/* Passive weights split the active rate: S chooses S1 : S2 as 1 : 2. */
START_TEST(passive_weights)
{
    solved x;
    const char *t = "W = (a, 3).W;\nS = (a, T).S1 + (a, 2*T).S2;\nS1 = (b, 1).S;\nS2 = (c, 1).S;\nW <a> S";
    ck_assert_msg(solve_text(&x, t, PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
    ck_assert_uint_eq(x.sp->n, 3);
    ck_assert_rel(thr_of(&x, "a"), 0.75, 1e-12);
    ck_assert_rel(thr_of(&x, "b"), 0.25, 1e-12);
    ck_assert_rel(thr_of(&x, "c"), 0.5, 1e-12);
    solved_free(&x);
}
END_TEST

/* Two active partners: the slower apparent rate wins, shared by
 * (r1/ra1)(r2/ra2). Here P offers a at 1 and 2 (ra 3), Q at 6. */
START_TEST(active_cooperation_takes_the_minimum)
{
    solved x;
    const char *t = "P = (a, 1).P1 + (a, 2).P2;\nP1 = (b, 3).P;\nP2 = (c, 3).P;\nQ = (a, 6).Q;\nP <a> Q";
    ck_assert_msg(solve_text(&x, t, PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
    /* from P: to P1 at 1, to P2 at 2 (min(3, 6) = 3 split 1:2); back at 3 */
    /* pi_P * 3 = (pi_P1 + pi_P2) * 3, pi_P1 : pi_P2 = 1 : 2 -> pi_P = 1/2 */
    ck_assert_rel(thr_of(&x, "a"), 1.5, 1e-12);
    ck_assert_rel(thr_of(&x, "b"), 0.5, 1e-12);
    ck_assert_rel(thr_of(&x, "c"), 1.0, 1e-12);
    solved_free(&x);
}
END_TEST

/* Arrays are lumped: P[3] has 4 states where P <> P <> P has 8, same
 * throughput; local measures are mean counts. */
START_TEST(arrays_are_aggregated)
{
    solved a, b;
    ck_assert(solve_text(&a, "P = (a, 1).Q; Q = (b, 2).P;\nP[3]", PEPA_METHOD_DIRECT) == 0);
    ck_assert(solve_text(&b, "P = (a, 1).Q; Q = (b, 2).P;\nP <> P <> P", PEPA_METHOD_DIRECT) == 0);
    ck_assert_uint_eq(a.sp->n, 4);
    ck_assert_uint_eq(b.sp->n, 8);
    ck_assert_rel(thr_of(&a, "a"), 3 * 2.0 / 3.0, 1e-12);
    ck_assert_rel(thr_of(&b, "a"), 3 * 2.0 / 3.0, 1e-12);
    double loc[2];
    pepa_space_local(a.sp, a.pi, 0, loc);
    ck_assert_rel(loc[0], 2.0, 1e-12);           /* mean copies in P: 3 * 2/3 */
    ck_assert_rel(loc[1], 1.0, 1e-12);
    solved_free(&a);
    solved_free(&b);
}
END_TEST

START_TEST(hiding_renames_to_tau)
{
    solved x;
    ck_assert(solve_text(&x, "P = (a, 1).(b, 2).P;\nQ = (b, 2).Q;\n(P/{b}) <b> Q", PEPA_METHOD_DIRECT) == 0);
    /* b is hidden before the cooperation: Q never gets to do b */
    ck_assert_rel(thr_of(&x, "a"), 2.0 / 3.0, 1e-12);
    ck_assert_rel(thr_of(&x, "tau"), 2.0 / 3.0, 1e-12);
    ck_assert_rel(thr_of(&x, "b"), 0.0 + 0.0, 1e-12);
    solved_free(&x);
}
END_TEST

START_TEST(deadlock_and_non_ergodic_are_detected)
{
    solved x;
    /* P1 waits for b, which Q never offers */
    ck_assert(solve_text(&x, "P = (a, 1).P1; P1 = (b, 1).P;\nQ = (a, 1).Q;\nP <a, b> Q", PEPA_METHOD_DIRECT) != 0 ||
              x.sp != NULL);
    ck_assert_ptr_nonnull(x.sp);
    ck_assert_uint_eq(x.sp->deadlocks, 1);
    solved_free(&x);

    const char *t = "P = (a, 1).P1 + (b, 1).P2;\nP1 = (c, 1).P3; P3 = (c, 1).P1;\n"
                    "P2 = (d, 1).P4; P4 = (d, 1).P2;\nP";
    memset(&x, 0, sizeof x);
    x.m = pepa_parse_string(t, strlen(t), "t.pepa", &x.err);
    x.s = pepa_system_new(x.m, &x.err);
    x.sp = pepa_derive(x.s, NULL, &x.err);
    pepa_chain_class cls;
    ck_assert_int_eq(pepa_space_classify(x.sp, &cls, &x.err), 0);
    ck_assert_uint_eq(cls.bottom, 2);
    ck_assert_uint_eq(cls.transient, 1);
    ck_assert_uint_eq(x.sp->deadlocks, 0);
    solved_free(&x);
}
END_TEST

START_TEST(state_limit_stops_derivation)
{
    diag d;
    diag_clear(&d);
    const char *t = "P = (a, 1).Q; Q = (b, 1).P;\nP[1000000] <> P[1000000]";
    pepa_model *m = pepa_parse_string(t, strlen(t), "big.pepa", &d);
    pepa_system *s = pepa_system_new(m, &d);
    ck_assert_ptr_nonnull(s);
    pepa_derive_opts o = { .max_states = 10000 };
    pepa_space *sp = pepa_derive(s, &o, &d);
    ck_assert_ptr_null(sp);
    ck_assert_msg(strstr(d.msg, "more than 10000 states"), "%s", d.msg);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

START_TEST(deadline_stops_derivation_and_rerating)
{
    /* a deadline already passed: the derivation stops within its first
     * checks (every 32 states), for one thread and two, and a chain derived
     * without one then re-rated under a passed one stops too */
    diag d;
    diag_clear(&d);
    const char *t = "P = (a, 1).Q; Q = (b, 1).P;\nP[1000000] <> P[1000000]";
    pepa_model *m = pepa_parse_string(t, strlen(t), "big.pepa", &d);
    pepa_system *s = pepa_system_new(m, &d);
    ck_assert_ptr_nonnull(s);
    for (int threads = 1; threads <= 2; threads++) {
        pepa_derive_opts o = { .threads = threads };
        o.deadline.at = clock_now() - 1;
        diag_clear(&d);
        pepa_space *sp = pepa_derive(s, &o, &d);
        ck_assert_ptr_null(sp);
        ck_assert_msg(strstr(d.msg, "exceeded its time limit"), "%s", d.msg);
    }
    pepa_system_free(s);
    pepa_model_free(m);
    const char *small = "P = (a, 1).P1; P1 = (b, 2).P;\nP[100]";
    m = pepa_parse_string(small, strlen(small), "small.pepa", &d);
    s = pepa_system_new(m, &d);
    pepa_space *sp = pepa_derive(s, NULL, &d);
    ck_assert_ptr_nonnull(sp);
    ck_assert_int_eq(pepa_space_rate(sp, &d), 0);
    sp->deadline.at = clock_now() - 1;
    diag_clear(&d);
    ck_assert_int_eq(pepa_space_rate(sp, &d), -1);
    ck_assert_msg(strstr(d.msg, "exceeded its time limit"), "%s", d.msg);
    pepa_space_free(sp);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

/* Change a rate, re-rate the derived chain, re-solve: same as deriving
 * the changed model from scratch. */
START_TEST(rerate_matches_fresh_derivation)
{
    const char *base = "r = 1.0; s = 2.0;\nP = (a, r).P1; P1 = (b, r).P;\nQ = (a, r).Q1; Q1 = (b, s).Q;\nP <a> Q";
    const char *changed = "r = 1.0; s = 0.3;\nP = (a, r).P1; P1 = (b, r).P;\nQ = (a, r).Q1; Q1 = (b, s).Q;\nP <a> Q";
    solved a, b;
    ck_assert(solve_text(&a, base, PEPA_METHOD_GS) == 0);
    ck_assert(solve_text(&b, changed, PEPA_METHOD_DIRECT) == 0);
    pepa_model_rate(a.m, pepa_model_find_rate(a.m, "s"))->expr = pepa_num(a.m, 0.3);
    ck_assert_int_eq(pepa_system_rerate(a.s, &a.err), 0);
    ck_assert_int_eq(pepa_space_rate(a.sp, &a.err), 0);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_GS;
    o.warm = 1;
    o.tol = 1e-13;
    ck_assert_int_eq(pepa_solve(a.sp->q, &o, a.pi, &a.res, &a.err), 0);
    ck_assert_int_eq(pepa_space_throughput(a.sp, a.pi, a.thr, &a.err), 0);
    ck_assert_rel(thr_of(&a, "a"), thr_of(&b, "a"), 1e-10);
    ck_assert_rel(thr_of(&a, "b"), thr_of(&b, "b"), 1e-10);
    solved_free(&a);
    solved_free(&b);
}
END_TEST

/* ---- the derivation's machinery ---------------------------------------------- */

/* Q(i, j) of a derived chain, 0 when absent. */
static double q_at(const pepa_ctmc *q, uint32_t i, uint32_t j)
{
    for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
        if (q->col[k] == i)
            return q->val[k];
    return 0;
}

/* P0 reaches P1 by b on its own and by a with R, whose a is a self-loop;
 * d to P2 is listed between them, so the two transitions to P1 are not
 * adjacent. They must become one entry of rate 2 + 1. */
START_TEST(transitions_to_one_target_merge)
{
    const char *t = "P0 = (b, 2).P1 + (d, 1).P2 + (a, 1).P1;\nP1 = (c, 1).P0;\nP2 = (e, 1).P0;\n"
                    "R = (a, 5).R;\nP0 <a> R";
    for (int threads = 1; threads <= 2; threads++) {
        diag err;
        diag_clear(&err);
        pepa_model *m = pepa_parse_string(t, strlen(t), "merge.pepa", &err);
        pepa_system *s = m ? pepa_system_new(m, &err) : NULL;
        ck_assert_msg(s != NULL, "%s", err.msg);
        ck_assert_int_eq(pepa_enum_targets_distinct(s), 0);
        pepa_derive_opts o = { .threads = threads };
        pepa_space *sp = pepa_derive(s, &o, &err);
        ck_assert_msg(sp != NULL, "%s", err.msg);
        ck_assert_uint_eq(sp->n, 3);
        ck_assert_uint_eq(sp->q->nnz, 4);
        ck_assert_rel(q_at(sp->q, 0, 1), 3.0, 1e-15);
        ck_assert_rel(q_at(sp->q, 0, 2), 1.0, 1e-15);
        ck_assert_rel(sp->q->out[0], 4.0, 1e-15);
        pepa_space_free(sp);
        pepa_system_free(s);
        pepa_model_free(m);
    }
}
END_TEST

/* The derivation's two threads share work by timing; the chain must not
 * depend on it: the same states, rows sorted by source, bit-identical
 * rates, with one thread or two. ws-large's subtrees are memoised. */
START_TEST(threads_derive_the_same_chain)
{
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_file(shared_path("corpus/pepa/pepa-eclipse-plugin/ws-large.pepa"), &err);
    pepa_system *s = m ? pepa_system_new(m, &err) : NULL;
    ck_assert_msg(s != NULL, "%s", err.msg);
    pepa_derive_opts one = { .threads = 1 }, two = { .threads = 2 };
    pepa_space *a = pepa_derive(s, &one, &err), *b = pepa_derive(s, &two, &err);
    ck_assert_msg(a && b, "%s", err.msg);
    ck_assert_uint_eq(a->n, 47220);
    ck_assert_uint_eq(b->n, a->n);
    ck_assert_uint_eq(b->q->nnz, a->q->nnz);
    for (uint32_t k = 0; k < a->n; k++)
        ck_assert(memcmp(pepa_space_state(a, k), pepa_space_state(b, k), (size_t)a->nw * 8) == 0);
    ck_assert(memcmp(a->q->rowp, b->q->rowp, ((size_t)a->n + 1) * sizeof *a->q->rowp) == 0);
    ck_assert(memcmp(a->q->col, b->q->col, a->q->nnz * sizeof *a->q->col) == 0);
    ck_assert(memcmp(a->q->val, b->q->val, a->q->nnz * sizeof *a->q->val) == 0);
    ck_assert(memcmp(a->q->out, b->q->out, (size_t)a->n * sizeof *a->q->out) == 0);
    for (uint32_t j = 0; j < a->n; j++)
        for (uint64_t k = a->q->rowp[j] + 1; k < a->q->rowp[j + 1]; k++)
            ck_assert_uint_lt(a->q->col[k - 1], a->q->col[k]);
    pepa_space_free(a);
    pepa_space_free(b);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

/* A state of two words, with memoised subtrees in both: groups of ten and
 * six 64-state cycles, each group in lockstep on its own action, the groups
 * independent. Group X's state recurs with each of group Y's 64, so the
 * memos replay; the answer is known: a lockstep cycle with rate r_k in
 * state k spends time in proportion to 1/r_k, so its throughput is
 * 64 / sum(1/r_k). */
START_TEST(two_word_states_with_memos)
{
    size_t cap = 1 << 16, len = 0;
    char *t = malloc(cap);
    double inv_a = 0, inv_b = 0;
    for (int k = 0; k < 64; k++) {
        double ra = 1 + k % 5, rb = 2 + k % 3;
        inv_a += 1 / ra;
        inv_b += 1 / rb;
        len += (size_t)snprintf(t + len, cap - len, "X%d = (a, %g).X%d;\nY%d = (b, %g).Y%d;\n", k, ra,
                                (k + 1) % 64, k, rb, (k + 1) % 64);
    }
    snprintf(t + len, cap - len, "(X0 <a> X0 <a> X0 <a> X0 <a> X0 <a> X0 <a> X0 <a> X0 <a> X0 <a> X0) <> "
                                 "(Y0 <b> Y0 <b> Y0 <b> Y0 <b> Y0 <b> Y0)");
    solved x;
    ck_assert_msg(solve_text(&x, t, PEPA_METHOD_GS) == 0, "%s", x.err.msg);
    ck_assert_int_eq(x.s->nwords, 2);
    ck_assert_uint_eq(x.sp->n, 64 * 64);
    ck_assert_uint_eq(x.sp->q->nnz, 2 * 64 * 64);
    ck_assert_rel(thr_of(&x, "a"), 64 / inv_a, 1e-9);
    ck_assert_rel(thr_of(&x, "b"), 64 / inv_b, 1e-9);
    solved_free(&x);
    free(t);
}
END_TEST

/* An enumerator memoises the moves of (P <> P); after a re-rating, the
 * same enumerator must give the new rates, not the remembered ones. */
START_TEST(enumerator_forgets_rates_on_rerate)
{
    const char *t = "r = 1.0;\nP = (a, r).P1; P1 = (b, 1).P;\nQ = (c, 2).Q;\n(P <> P) <> Q";
    solved x;
    ck_assert_msg(solve_text(&x, t, PEPA_METHOD_DIRECT) == 0, "%s", x.err.msg);
    pepa_enum *en = pepa_enum_new(x.s);
    ck_assert_ptr_nonnull(en);
    const pepa_tr *tr;
    const uint64_t *mask;
    double sum[2] = { 0, 0 };
    for (int round = 0; round < 2; round++) {
        for (int rep = 0; rep < 3; rep++) {     /* the second and third lists come from the memo */
            long nt = pepa_enum_state(en, x.s->init, &tr, &mask, &x.err);
            ck_assert_int_eq(nt, 3);
            double total = 0;
            for (long k = 0; k < nt; k++)
                total += tr[k].rate;
            sum[round] = total;
        }
        pepa_model_rate(x.m, pepa_model_find_rate(x.m, "r"))->expr = pepa_num(x.m, 4.0);
        ck_assert_int_eq(pepa_system_rerate(x.s, &x.err), 0);
    }
    ck_assert_rel(sum[0], 1.0 + 1.0 + 2.0, 1e-15);  /* two copies of a at r, c at 2 */
    ck_assert_rel(sum[1], 4.0 + 4.0 + 2.0, 1e-15);
    pepa_enum_free(en);
    solved_free(&x);
}
END_TEST

/* ---- the corpus's reference results (EXPECTED.md) ----------------------------- */

typedef struct expect {
    const char *file;
    uint32_t states;
    uint64_t transitions;
    const char *action[3];
    double value[3];
} expect;

static const expect corpus[] = {
    { "pypepa/simple.pepa", 4, 8, { "a", "b" }, { 7.0 / 6, 7.0 / 6 } },
    { "ipclib/simpleTea.pepa", 6, 6, { "thirst", "boil_kettle", "drink" }, { 8.979347500748e-3, 8.979347500748e-3, 8.979347500748e-3 } },
    { "pepa-eclipse-plugin/tiny.pepa", 4, 8, { "a", "b" }, { 1.0, 3.0 } },
    { "pepa-eclipse-plugin/aggregation.pepa", 3, 4, { "a", "b" }, { 4.0 / 3, 4.0 / 3 } },
    { "pepa-eclipse-plugin/array0.pepa", 18, 37, { "a", "b", "d" }, { 2.84909863164, 2.84909863164, 2.84909863164 } },
    { "pepa-eclipse-plugin/lan4.pepa", 128, 384, { "serve1", "arrive", "walkon2" }, { 0.124743065711, 0.498972262842, 5.13868578891e-4 } },
    { "pepa-eclipse-plugin/browser.pepa", 242, 831, { "get", "display", "cache" }, { 0.382354858424, 0.637258097374, 0.254903238949 } },
    { "prism/PC-LAN4.pepa", 128, 384, { "serve1", "arrive", "walkon2" }, { 8.66654480857e-3, 0.0346661792343, 0.154668007106 } },
    { "pepa-eclipse-plugin/ws-large.pepa", 47220, 397300, { "b_write", "rw_reset_all" }, { 0.3026637, 0.1513319 } },
    { "pepa-eclipse-plugin/x-large-t.pepa", 262144, 2359296, { "a", "f", "l" }, { 9.0, 9.0, 9.0 } },
};

START_TEST(corpus_reference_results)
{
    const expect *e = &corpus[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "corpus/pepa/%s", e->file);
    solved x;
    ck_assert_msg(solve_path(&x, shared_path(rel), PEPA_METHOD_AUTO) == 0, "%s: %s", rel, x.err.msg);
    ck_assert_uint_eq(x.sp->n, e->states);
    ck_assert_uint_eq(x.sp->q->nnz, e->transitions);
    /* the reference values are given to 12 digits, ws-large's to 7 */
    double rel_tol = e->states == 47220 ? 5e-7 : 1e-9;
    for (int k = 0; k < 3 && e->action[k]; k++)
        ck_assert_rel(thr_of(&x, e->action[k]), e->value[k], rel_tol);
    solved_free(&x);
}
END_TEST

START_TEST(pc_lan4_local_state)
{
    solved x;
    ck_assert(solve_path(&x, shared_path("corpus/pepa/prism/PC-LAN4.pepa"), PEPA_METHOD_DIRECT) == 0);
    double loc[2];
    pepa_space_local(x.sp, x.pi, 0, loc);          /* PC10, first leaf */
    ck_assert_str_eq(x.s->seqs[x.s->nodes[x.s->leaves[0]].seq].state_name[1], "PC11");
    ck_assert_rel(loc[1], 0.133345519143, 1e-9);
    solved_free(&x);
}
END_TEST

/* simpleTea: ipc's full output gives every action 8.979347500748e-3 */
START_TEST(simple_tea_all_actions)
{
    solved x;
    ck_assert(solve_path(&x, shared_path("corpus/pepa/ipclib/simpleTea.pepa"), PEPA_METHOD_DIRECT) == 0);
    for (int a = 1; a < x.s->nactions; a++)
        ck_assert_rel(x.thr[a], 8.979347500748e-3, 1e-9);
    solved_free(&x);
}
END_TEST

/* Direct and iterative solvers agree on every corpus model they can both
 * handle, production.pepa (stiff) included. */
START_TEST(direct_and_iterative_agree)
{
    const char *files[] = { "pepa-eclipse-plugin/production.pepa", "pepa-eclipse-plugin/browser.pepa",
                            "pepa-eclipse-plugin/lan4.pepa", "prism/PC-LAN4.pepa",
                            "pepa-eclipse-plugin/array0.pepa", "ipclib/simpleTea.pepa" };
    pepa_method iter[] = { PEPA_METHOD_GS, PEPA_METHOD_GMRES };
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, "corpus/pepa/%s", files[f]);
        solved d;
        ck_assert_msg(solve_path(&d, shared_path(rel), PEPA_METHOD_DIRECT) == 0, "%s: %s", rel, d.err.msg);
        for (size_t m = 0; m < 2; m++) {
            solved it;
            ck_assert_msg(solve_path(&it, shared_path(rel), iter[m]) == 0, "%s %s: %s", rel,
                          pepa_method_name(iter[m]), it.err.msg);
            for (int a = 0; a < d.s->nactions; a++)
                ck_assert_msg(fabs(it.thr[a] - d.thr[a]) <= 1e-8 * fabs(d.thr[a]) + 1e-14,
                              "%s %s: action %s %.12g vs direct %.12g", rel, pepa_method_name(iter[m]),
                              pepa_model_action(d.m, a), it.thr[a], d.thr[a]);
            solved_free(&it);
        }
        solved_free(&d);
    }
}
END_TEST

START_TEST(jobshop5_reference)
{
    solved x;
    ck_assert_msg(solve_path(&x, shared_path("corpus/pepa/pepa-eclipse-plugin/jobshop5.pepa"), PEPA_METHOD_AUTO) == 0,
                  "%s", x.err.msg);
    ck_assert_uint_eq(x.sp->n, 704645);
    ck_assert_uint_eq(x.sp->q->nnz, 13612985);
    ck_assert_rel(thr_of(&x, "get_hammer"), 1.5333333, 1e-7);
    ck_assert_rel(thr_of(&x, "work"), 1.0888889, 1e-7);
    solved_free(&x);
}
END_TEST

START_TEST(export_formats)
{
    solved x;
    ck_assert(solve_path(&x, shared_path("corpus/pepa/pypepa/simple.pepa"), PEPA_METHOD_DIRECT) == 0);
    char prefix[] = "/tmp/skelsched-exportXXXXXX";
    int fd = mkstemp(prefix);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(pepa_export_prism(x.sp, prefix, &x.err), 0);
    ck_assert_int_eq(pepa_export_mm(x.sp, prefix, &x.err), 0);
    char path[sizeof prefix + 8], line[256];
    snprintf(path, sizeof path, "%s.tra", prefix);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "4 8\n");
    fclose(f);
    unlink(path);
    snprintf(path, sizeof path, "%s.sta", prefix);
    unlink(path);
    f = fopen(prefix, "r");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "%%MatrixMarket matrix coordinate real general\n");
    fclose(f);
    unlink(prefix);
    solved_free(&x);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pepa");
    TCase *tc = tcase_create("language");
    tcase_add_test(tc, parse_errors_have_positions);
    tcase_add_test(tc, parse_nesting_is_bounded);
    tcase_add_test(tc, parse_dialects);
    tcase_add_test(tc, check_undefined_and_unused);
    tcase_add_test(tc, check_passive_everywhere_and_blocked_sets);
    tcase_add_test(tc, mixed_active_passive_in_one_state);
    tcase_add_test(tc, bad_rates_are_errors);
    tcase_add_test(tc, unguarded_recursion_is_an_error);
    tcase_add_test(tc, long_choice);
    suite_add_tcase(s, tc);
    tc = tcase_create("semantics");
    tcase_set_timeout(tc, 120);   /* ws-large.pepa derived on 1 and 2 threads */
    tcase_add_test(tc, passive_copies_share_the_active_rate);
    tcase_add_test(tc, passive_weights);
    tcase_add_test(tc, active_cooperation_takes_the_minimum);
    tcase_add_test(tc, arrays_are_aggregated);
    tcase_add_test(tc, hiding_renames_to_tau);
    tcase_add_test(tc, deadlock_and_non_ergodic_are_detected);
    tcase_add_test(tc, state_limit_stops_derivation);
    tcase_add_test(tc, rerate_matches_fresh_derivation);
    tcase_add_test(tc, transitions_to_one_target_merge);
    tcase_add_test(tc, threads_derive_the_same_chain);
    tcase_add_test(tc, deadline_stops_derivation_and_rerating);
    tcase_add_test(tc, enumerator_forgets_rates_on_rerate);
    tcase_add_test(tc, two_word_states_with_memos);
    suite_add_tcase(s, tc);
    tc = tcase_create("corpus");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, corpus_reference_results, 0, (int)(sizeof corpus / sizeof *corpus));
    tcase_add_test(tc, pc_lan4_local_state);
    tcase_add_test(tc, simple_tea_all_actions);
    tcase_add_test(tc, corpus_round_trip);
    tcase_add_test(tc, direct_and_iterative_agree);
    tcase_add_test(tc, export_formats);
    if (!getenv("SKELSCHED_QUICK"))
        tcase_add_test(tc, jobshop5_reference);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
