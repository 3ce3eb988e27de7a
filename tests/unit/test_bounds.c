/* Resource bounds under hostile input (issue 10): every input the project
 * reads is bounded in size, nesting, counts and values, and every engine
 * in states, iterations and time. Each test feeds input that would exhaust
 * memory, the stack or time without its bound and checks that it stops at
 * the bound with a message - quickly and, where memory is the risk, with
 * the process's peak memory bounded. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "pepa/check.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "skeleton/skeleton.h"
#include "slurm/skelslurm.h"
#include "base/mem.h"
#include "suite.h"

/* ---- helpers ------------------------------------------------------------- */

/* Peak resident memory of this process so far, in MiB. */
static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* CPU seconds this process has used (user + system, all threads): the
 * hang guards below bound work, which a loaded machine does not inflate
 * as it does wall-clock time. */
static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* A malloc'd string built with printf-style pieces. */
typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        ck_assert_int_ge(n, 0);
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * (b->cap + (size_t)n + 64);
        ck_assert_int_eq(mem_grow((void **)&b->s, b->cap, 1), 0);
    }
}

/* n copies of s */
static void repeat(buf *b, const char *s, int n)
{
    for (int i = 0; i < n; i++)
        put(b, "%s", s);
}

#define ck_assert_msg_has(d, what) \
    ck_assert_msg(strstr((d).msg, (what)) != NULL, "message '%s' lacks '%s'", (d).msg, (what))

/* Parse, check, compile, derive (under opts) and solve (under so) a PEPA
 * text; it must fail with a message containing want. */
static void pepa_fails(const char *text, size_t len, const pepa_derive_opts *dopts,
                       const pepa_solve_opts *so, const char *want)
{
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_string(text, len, "b.pepa", &err);
    pepa_system *s = NULL;
    pepa_space *sp = NULL;
    double *pi = NULL;
    int ok = m && pepa_check(m, NULL, NULL, &err) == 0 && (s = pepa_system_new(m, &err)) &&
             pepa_check_system(s, NULL, NULL, &err) == 0 && (sp = pepa_derive(s, dopts, &err));
    if (ok) {
        pepa_solve_result res;
        pi = malloc(sp->n * sizeof *pi);
        ok = pepa_solve(sp->q, so, pi, &res, &err) == 0;
    }
    ck_assert_msg(!ok, "'%.60s' was accepted", text);
    ck_assert_msg_has(err, want);
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(s);
    pepa_model_free(m);
}

static void pepa_text_fails(const char *text, const char *want)
{
    pepa_fails(text, strlen(text), NULL, NULL, want);
}

/* n independent two-state components: 2^n states. */
static char *explosive(int n)
{
    buf b = { 0 };
    for (int i = 0; i < n; i++)
        put(&b, "P%d = (a%d, %d).(b%d, 2).P%d;\n", i, i, i + 1, i, i);
    for (int i = 0; i < n; i++)
        put(&b, "%sP%d", i ? " || " : "", i);
    put(&b, "\n");
    return b.s;
}

static void skel_fails(const char *text, size_t len, const char *want)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string(text, len, "b.skel", &err);
    skel_dag *d = t ? skel_dag_build(t, SKEL_STYLE_PRODUCER, &err) : NULL;
    skel_model *m = d ? skel_model_new(t, d, &err) : NULL;
    ck_assert_msg(m == NULL, "'%.60s' was accepted", text);
    ck_assert_msg_has(err, want);
    skel_dag_free(d);
    skel_tree_free(t);
}

static void skel_text_fails(const char *text, const char *want)
{
    skel_fails(text, strlen(text), want);
}

static void platform_fails(const char *text, const char *want)
{
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(text, strlen(text), "b.conf", NULL, NULL, &err);
    ck_assert_msg(p == NULL, "'%.60s' was accepted", text);
    ck_assert_msg_has(err, want);
}

/* ---- state space ----------------------------------------------------------- */

/* The CPU guards' factor: the sanitizer run (contrib/check-all.sh) sets
 * CK_TIMEOUT_MULTIPLIER=4 for Check's timeouts, and code under ASan+UBSan
 * runs several times slower, so the hang guards widen by the same factor
 * there (a hang still trips them). */
static double sanitizer_slowdown(void)
{
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    double f = m ? atof(m) : 1.0;
    return f >= 1.0 ? f : 1.0;
}

START_TEST(test_state_space_limit)
{
    /* 2^40 states: stops at the limit, in memory proportional to it */
    char *text = explosive(40);
    double before = peak_mib(), t0 = cpu_now();
    pepa_derive_opts o = { .max_states = 200000, .threads = 1 };
    pepa_fails(text, strlen(text), &o, NULL, "more than 200000 states");
    ck_assert_msg(peak_mib() - before < 256, "peak memory grew by %.0f MiB", peak_mib() - before);
    ck_assert_msg(cpu_now() - t0 < 20, "took %.1f s", cpu_now() - t0);
    /* the same with two derivation threads */
    o.threads = 2;
    pepa_fails(text, strlen(text), &o, NULL, "more than 200000 states");
    free(text);
}
END_TEST

START_TEST(test_state_space_time)
{
    char *text = explosive(40);
    double t0 = cpu_now();
    pepa_derive_opts o = { .time_limit = 0.2 };
    pepa_fails(text, strlen(text), &o, NULL, "time limit");
    ck_assert_msg(cpu_now() - t0 < 10, "took %.1f s", cpu_now() - t0);
    free(text);
}
END_TEST

START_TEST(test_array_sizes)
{
    /* P[10^9] of a two-state process: 10^9 + 1 aggregated states */
    const char *big = "P = (a, 1).(b, 1).P;\nP[1000000000]\n";
    pepa_derive_opts o = { .max_states = 10000 };
    pepa_fails(big, strlen(big), &o, NULL, "more than 10000 states");
    pepa_text_fails("P = (a, 1).P;\nP[99999999999999999999]\n", "b.pepa:2:3: array size 1e+20 is too large");
    pepa_text_fails("P = (a, 1).(b, 1).P;\nP[1000000000][a]\n", "at most 64 copies");
    pepa_text_fails("P = (a, 1).P;\nP[0]\n", "positive whole number of copies");
    /* one local state: one aggregated state, the exact throughput */
    diag err;
    diag_clear(&err);
    const char *one = "P = (a, 1).P;\nP[1000000000]\n";
    pepa_model *m = pepa_parse_string(one, strlen(one), "b.pepa", &err);
    pepa_system *s = m ? pepa_system_new(m, &err) : NULL;
    pepa_space *sp = s ? pepa_derive(s, NULL, &err) : NULL;
    ck_assert_msg(sp != NULL, "%s", err.msg);
    ck_assert_uint_eq(sp->n, 1);
    pepa_space_free(sp);
    pepa_system_free(s);
    pepa_model_free(m);
}
END_TEST

/* ---- solver ---------------------------------------------------------------- */

START_TEST(test_solver_iterations)
{
    char *text = explosive(12);
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.method = PEPA_METHOD_GS;
    so.max_iter = 3;
    pepa_fails(text, strlen(text), NULL, &so, "did not converge in 3 sweeps");
    so.method = PEPA_METHOD_GMRES;
    so.max_iter = 2;
    pepa_fails(text, strlen(text), NULL, &so, "GMRES");
    free(text);
}
END_TEST

START_TEST(test_solver_time)
{
    char *text = explosive(14);
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.tol = 1e-300;             /* unreachable: only the clock stops it */
    so.time_limit = 0.05;
    const pepa_method methods[] = { PEPA_METHOD_GS, PEPA_METHOD_GMRES, PEPA_METHOD_AUTO };
    for (unsigned k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        so.method = methods[k];
        double t0 = cpu_now();
        pepa_fails(text, strlen(text), NULL, &so, "");
        ck_assert_msg(cpu_now() - t0 < 10, "%s took %.1f s", pepa_method_name(so.method),
                      cpu_now() - t0);
    }
    so.method = PEPA_METHOD_GS;
    pepa_fails(text, strlen(text), NULL, &so, "time limit 0.05 s reached");
    free(text);
}
END_TEST

/* ---- rate values --------------------------------------------------------------- */

START_TEST(test_pepa_rates)
{
    pepa_text_fails("r = 0;\nP = (a, r).P;\nP\n", "b.pepa:2:5: the rate of activity 'a' is 0");
    pepa_text_fails("r = -1;\nP = (a, r).P;\nP\n", "rates must be positive");
    pepa_text_fails("P = (a, -2).P;\nP\n", "rates must be positive");
    pepa_text_fails("r = 0/0;\nP = (a, r).P;\nP\n", "b.pepa:1:6: division by zero");
    pepa_text_fails("r = 1e308 * 10;\nP = (a, r).P;\nP\n", "not a finite number");
    pepa_text_fails("r = 1e999;\nP = (a, r).P;\nP\n", "");
    /* each rate finite, together beyond double precision: the solution
     * underflows to zeros, which must not pass for a steady state */
    pepa_text_fails("P = (a, 1e308).(b, 1e-308).P;\nP\n", "too far apart for double precision");
}
END_TEST

START_TEST(test_skeleton_rates)
{
    skel_text_fails("pipe(2); task(\"a\", 0); task(\"b\", 1);", "b.skel:1:20: the rate of a task must be positive");
    skel_text_fails("pipe(2); task(\"a\", -1); task(\"b\", 1);", "must be positive");
    skel_text_fails("pipe(2); task(\"a\", 0/0); task(\"b\", 1);", "division by zero");
    skel_text_fails("pipe(2); task(\"a\", 1e308*10); task(\"b\", 1);", "not finite");
    skel_text_fails("pipe(2); task(\"a\", 1e999); task(\"b\", 1);", "out of range");
    skel_text_fails("pipe(2); task(\"a\", 1, data=-1); task(\"b\", 1);", "non-negative and finite");
    platform_fails("NodeName=n1 Speed=0\n", "b.conf:1:19: Speed=0: must be positive");
    platform_fails("NodeName=n1 Speed=-1\n", "negative numbers are not allowed");
    platform_fails("NodeName=n1 Speed=nan\n", "not a finite number");
    platform_fails("NodeName=n1 Speed=1e999\n", "");
    platform_fails("NodeName=n[1-2]\nLink=n[1-2] Latency=inf\n", "not a finite number");
    platform_fails("NodeName=n[1-2]\nLink=n[1-2] Latency=1 Bandwidth=0\n", "must be positive");

    /* accepted one by one, a placement whose rates underflow is refused */
    diag err;
    diag_clear(&err);
    const char *sk = "pipe(2); task(\"a\", 1e-300); task(\"b\", 1);";
    const char *pl = "NodeName=n1 Speed=1e-300\nLocalLatency=1\n";
    skel_tree *t = skel_parse_string(sk, strlen(sk), "b.skel", &err);
    skel_dag *d = t ? skel_dag_build(t, SKEL_STYLE_PRODUCER, &err) : NULL;
    skel_model *m = d ? skel_model_new(t, d, &err) : NULL;
    skel_platform *p = skel_platform_parse_string(pl, strlen(pl), "b.conf", NULL, NULL, &err);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(p);
    int where[2] = { 0, 0 };
    ck_assert_int_eq(skel_model_place(m, p, where, &err), -1);
    ck_assert_msg_has(err, "not positive and finite");
    skel_platform_free(p);
    skel_model_free(m);
    skel_dag_free(d);
    skel_tree_free(t);
}
END_TEST

/* ---- input size and nesting ------------------------------------------------------ */

START_TEST(test_input_size)
{
    size_t n = PEPA_MAX_FILE + 1;
    char *big = malloc(n);
    ck_assert_ptr_nonnull(big);
    memset(big, ' ', n);
    pepa_fails(big, n, NULL, NULL, "");
    skel_fails(big, SKEL_MAX_FILE + 1, "");
    diag err;
    diag_clear(&err);
    ck_assert_ptr_null(slurmsk_conf_parse(big, SLURMSK_MAX_CONF + 1, "skeleton.conf", &err));
    ck_assert_msg_has(err, "larger than");
    slurmsk_job job;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse(big, SLURMSK_MAX_SCRIPT + 1, NULL, NULL, 0, 32, &job, &err), -1);
    ck_assert_msg_has(err, "larger than");
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_job_parse("#!/bin/sh\n", 10, NULL, big, SLURMSK_MAX_SKELETON + 1, 32, &job, &err), -1);
    ck_assert_msg_has(err, "larger than");
    free(big);

    /* one #SKEL line longer than its bound */
    buf b = { 0 };
    put(&b, "#!/bin/sh\n#SKEL pipe(1); task(\"");
    repeat(&b, "x", SLURMSK_MAX_DIRECTIVE);
    put(&b, "\", 1);\n");
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(b.s, b.len, NULL, 32, &job, &err), -1);
    ck_assert_msg_has(err, "batch script:2: #SKEL line longer than 4096 characters");
    free(b.s);
    /* a platform line longer than its bound */
    b = (buf){ 0 };
    put(&b, "NodeName=");
    repeat(&b, "x", 70000);
    platform_fails(b.s, "line longer than 65536 characters");
    free(b.s);
}
END_TEST

START_TEST(test_nesting)
{
    /* head, n x open, middle, n x close, tail */
    static const struct {
        int skel;
        const char *head, *open, *mid, *close, *tail, *want;
    } cases[] = {
        { 0, "P = (a, 1).P;\n", "(", "P", ")", "", "nested more than 500 deep" },
        { 0, "r = ", "(", "1", ")", ";\nP = (a, r).P;\nP\n", "nested more than 500 deep" },
        { 0, "r = ", "-", "1", "", ";\nP = (a, r).P;\nP\n", "nested more than 500 deep" },
        { 0, "P = (a, 1).P;\nP", "", "", "/{a}", "", "" },
        /* a long prefix chain is deep process nesting, not a deep rate */
        { 0, "P = ", "(a, 1).", "P", "", ";\nP\n", "process nested more than 500 deep" },
        { 1, "", "pipe(1);\n", "task(\"t\", 1);\n", "", "", "b.skel:65:1: skeletons nested deeper than 64 levels" },
        { 1, "task(\"t\", ", "(", "1", ")", ");", "nested deeper than 64 levels" },
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        buf b = { 0 };
        put(&b, "%s", cases[k].head);
        repeat(&b, cases[k].open, 100000);
        put(&b, "%s", cases[k].mid);
        repeat(&b, cases[k].close, 100000);
        put(&b, "%s", cases[k].tail);
        if (cases[k].skel)
            skel_text_fails(b.s, cases[k].want);
        else
            pepa_text_fails(b.s, cases[k].want);
        free(b.s);
    }

    /* nesting through #SKEL lines reaches the same parser */
    buf b = { 0 };
    put(&b, "#!/bin/sh\n");
    repeat(&b, "#SKEL pipe(1);\n", 1000);
    put(&b, "#SKEL task(\"t\", 1);\n");
    diag err;
    diag_clear(&err);
    slurmsk_job job;
    ck_assert_int_eq(slurmsk_directives_parse(b.s, b.len, NULL, 32, &job, &err), -1);
    ck_assert_msg_has(err, "batch script:66:7: skeletons nested deeper than 64 levels");
    free(b.s);
}
END_TEST

/* ---- counts: deals, periods, hostlists, links ----------------------------------- */

START_TEST(test_deal_periods)
{
    /* lcm(97, 89) and lcm(83, 79) cycles of round robin, and their lcm:
     * past SKEL_MAX_PERIOD long before any integer overflows */
    skel_text_fails("xdeal(2);\n pipe(2); deal(97, \"a\", 1); deal(89, \"b\", 1);\n"
                    " pipe(2); deal(83, \"a\", 1); deal(79, \"b\", 1);\n",
                    "round-robin cycle of this deal is longer than 10000 items");
    /* a pipeline of deals of the first 25 primes: the lcm of the sizes
     * (about 2.3e36) would overflow any integer type */
    buf b = { 0 };
    static const int primes[25] = { 2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41,
                                    43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97 };
    put(&b, "pipe(25);\n");
    for (int i = 0; i < 25; i++)
        put(&b, " deal(%d, \"w\", 1);\n", primes[i]);
    double t0 = cpu_now();
    skel_text_fails(b.s, "more than 2000000 activities");
    ck_assert_msg(cpu_now() - t0 < 10 * sanitizer_slowdown(), "took %.1f s", cpu_now() - t0);
    free(b.s);
    skel_text_fails("deal(999999999, \"w\", 1);", "b.skel:1:6: deal(999999999): more than 4096 components");
    skel_text_fails("deal(99999999999999999999, \"w\", 1);", "");
}
END_TEST

START_TEST(test_hostlists)
{
    char **names = NULL;
    int n = 0;
    diag err;
    diag_clear(&err);
    double t0 = cpu_now();
    ck_assert_int_eq(skel_hostlist_expand("n[1-999999999]", &names, &n, SKEL_MAX_NODES, &err), -1);
    ck_assert_msg_has(err, "more than 65536 nodes");
    ck_assert_msg(cpu_now() - t0 < 1, "took %.2f s", cpu_now() - t0);
    diag_clear(&err);
    ck_assert_int_eq(skel_hostlist_expand("n[99999999999999999999-1]", &names, &n, SKEL_MAX_NODES, &err), -1);
    ck_assert_msg_has(err, "bad range");
    diag_clear(&err);
    ck_assert_int_eq(skel_hostlist_expand("r[1-300]c[1-300]", &names, &n, SKEL_MAX_NODES, &err), -1);
    ck_assert_msg_has(err, "more than 65536 nodes");
    diag_clear(&err);
    ck_assert_int_eq(skel_hostlist_expand("n[1-65536]", &names, &n, SKEL_MAX_NODES, &err), 0);
    ck_assert_int_eq(n, 65536);
    ck_assert_str_eq(names[65535], "n65536");
    skel_hostlist_free(names, n);

    platform_fails("NodeName=n[1-999999999]\n", "b.conf:1:10: hostlist 'n[1-999999999]': more than 65536 nodes");
    platform_fails("NodeName=a[1-40000]\nNodeName=b[1-40000]\n", "more than 65536 nodes");

    /* the plugin's -w list */
    const char *conf = "NodeName=n[1-4] Speed=1\nLocalLatency=1\nDefaultLatency=1\n";
    slurmsk_conf *c = slurmsk_conf_parse(conf, strlen(conf), "skeleton.conf", &err);
    ck_assert_ptr_nonnull(c);
    unsigned char allowed[4];
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_candidates(c->plat, NULL, NULL, NULL, "n[1-999999999]", 0, allowed, &err), -1);
    ck_assert_msg_has(err, "requested nodes (-w): ");
    slurmsk_conf_free(c);
}
END_TEST

START_TEST(test_link_pairs)
{
    /* 9 KB of Link= lines over overlapping 362-node ranges would set 19.6
     * million pairs (over 900 MiB) before finding the duplicates */
    buf b = { 0 };
    put(&b, "NodeName=n[1-65536]\nLocalLatency=1\nDefaultLatency=1\n");
    for (int k = 0; k < 300; k++)
        put(&b, "Link=n[%d-%d] Latency=1\n", k * 100 + 1, k * 100 + 362);
    double before = peak_mib(), t0 = cpu_now();
    platform_fails(b.s, "b.conf:36:6: the Link= lines make more than 2097152 node pairs in all");
    ck_assert_msg(peak_mib() - before < 200, "peak memory grew by %.0f MiB", peak_mib() - before);
    ck_assert_msg(cpu_now() - t0 < 5, "took %.1f s", cpu_now() - t0);
    free(b.s);
    platform_fails("NodeName=n[1-1000]\nLink=n[1-1000] Latency=1\n", "Link=n[1-1000] makes more than 65536 pairs");
}
END_TEST

/* ---- the plugin's decision ---------------------------------------------------------- */

static const char *conf16 = "Budget=500\nMaxStates=100000\nMaxTasks=32\nLocalLatency=0.001\n"
                            "DefaultLatency=0.01\nNodeName=a[1-4] Speed=1\nNodeName=b[1-4] Speed=2\n"
                            "NodeName=c[1-4] Speed=3\nNodeName=d[1-4] Speed=4\n";

START_TEST(test_plugin_keys)
{
    static const char *const bad[] = {
        "Budget=0",        "Budget=-1",    "Budget=nan",      "Budget=1e308",     "Budget=60001",
        "MaxStates=0",     "MaxStates=1e9", "MaxStates=1.5", "MaxTasks=1025",    "MaxTasks=-3",
        "MaxTasks=99999999999999999999",
    };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "%s\nNodeName=n1 Speed=1\n", bad[k]);
        diag err;
        diag_clear(&err);
        slurmsk_conf *c = slurmsk_conf_parse(text, strlen(text), "skeleton.conf", &err);
        ck_assert_msg(c == NULL, "%s was accepted", bad[k]);
        ck_assert_msg_has(err, "skeleton.conf:1:");
    }
}
END_TEST

START_TEST(test_plugin_budget)
{
    diag err;
    diag_clear(&err);
    slurmsk_conf *c = slurmsk_conf_parse(conf16, strlen(conf16), "skeleton.conf", &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    /* 16^8 placements: within the 500 ms budget, deriving included, the
     * best found so far on available nodes (anytime; proven best on a
     * quiet machine, not under load) */
    const char *script = "#!/bin/sh\n#SKEL pipe(8);\n#SKEL task(\"a\", 2); task(\"b\", 1); task(\"c\", 3);\n"
                         "#SKEL task(\"d\", 1.5); task(\"e\", 2.5); task(\"f\", 1); task(\"g\", 2);\n"
                         "#SKEL task(\"h\", 4);\nsrun ./stage\n";
    slurmsk_job job;
    ck_assert_int_eq(slurmsk_directives_parse(script, strlen(script), NULL, c->max_tasks, &job, &err), 0);
    unsigned char allowed[16];
    ck_assert_int_eq(slurmsk_candidates(c->plat, NULL, NULL, "d4", NULL, 0, allowed, &err), 15);
    slurmsk_plan plan;
    double t0 = cpu_now();
    ck_assert_msg(slurmsk_place(c, &job, allowed, &plan, &err) == 0, "%s", err.msg);
    double cpu = cpu_now() - t0;
    /* the budget plus the one placement being solved when it ran out, in
     * CPU time (a wall-clock budget stops it; CPU time is what a loaded
     * machine does not inflate); the margin is for the sanitizer build */
    ck_assert_msg(cpu < 0.5 + 1.5, "decision took %.3f CPU s for a 500 ms budget", cpu);
    ck_assert(plan.throughput > 0 && isfinite(plan.throughput));
    for (int i = 0; i < 8; i++)
        ck_assert(allowed[plan.node_of_task[i]]);
    slurmsk_plan_clear(&plan);

    /* the same search without bounds nor symmetry (4.3e9 placements to
     * solve) cannot finish: the budget stops it with a best-so-far */
    skel_dag *d = skel_dag_build(job.tree, SKEL_STYLE_PRODUCER, &err);
    skel_model *m = d ? skel_model_new(job.tree, d, &err) : NULL;
    ck_assert_msg(m != NULL, "%s", err.msg);
    skel_search_opts o = { 0 };
    o.allowed = allowed;
    /* 2 s, not 0.3 s: the budget covers deriving the chain, and under
     * load 0.3 s once ran out before any placement was solved (the answer
     * then approximate, without the bound checked here) */
    o.budget = 2.0;
    o.no_prune = o.no_symmetry = 1;
    t0 = cpu_now();
    skel_search_result *r = skel_search(m, d, c->plat, &o, &err);
    cpu = cpu_now() - t0;
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_msg(cpu < 2.0 + 1.5, "search took %.3f CPU s for a 2 s budget", cpu);
    ck_assert(!r->optimal && r->nranked >= 1 && r->bound > 0);
    for (int i = 0; i < 8; i++)
        ck_assert(allowed[r->ranked[0].placement[i]]);
    skel_search_result_free(r);
    skel_model_free(m);
    skel_dag_free(d);
    slurmsk_job_clear(&job);

    /* a skeleton whose chain exceeds MaxStates= is placed by the
     * large-scale search (never refused), in bounded time */
    c->max_states = 1000;
    const char *wide = "#!/bin/sh\n#SKEL pipe(3); farm(6, \"w\", 1); farm(6, \"v\", 1); task(\"z\", 1);\n";
    ck_assert_int_eq(slurmsk_directives_parse(wide, strlen(wide), NULL, c->max_tasks, &job, &err), 0);
    memset(allowed, 1, sizeof allowed);
    diag_clear(&err);
    t0 = cpu_now();
    ck_assert_msg(slurmsk_place(c, &job, allowed, &plan, &err) == 0, "%s", err.msg);
    cpu = cpu_now() - t0;
    ck_assert_msg(cpu < c->budget + 1.5, "%.3f CPU s", cpu);
    ck_assert_int_eq(plan.method, SKEL_SEARCH_APPROX);
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);

    /* more tasks than MaxTasks= */
    c->max_tasks = 4;
    diag_clear(&err);
    ck_assert_int_eq(slurmsk_directives_parse(script, strlen(script), NULL, c->max_tasks, &job, &err), -1);
    ck_assert_msg_has(err, "this site allows at most 4 (MaxTasks=)");
    slurmsk_conf_free(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_state_space_limit);
    tcase_add_test(tc, test_state_space_time);
    tcase_add_test(tc, test_array_sizes);
    tcase_add_test(tc, test_solver_iterations);
    tcase_add_test(tc, test_solver_time);
    tcase_add_test(tc, test_pepa_rates);
    tcase_add_test(tc, test_skeleton_rates);
    tcase_add_test(tc, test_input_size);
    tcase_add_test(tc, test_nesting);
    tcase_add_test(tc, test_deal_periods);
    tcase_add_test(tc, test_hostlists);
    tcase_add_test(tc, test_link_pairs);
    tcase_add_test(tc, test_plugin_keys);
    tcase_add_test(tc, test_plugin_budget);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
