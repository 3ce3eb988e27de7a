/* test_bpel: the BPEL importer - every corpus process imports and its
 * model derives and solves; one hand-checked skeleton per structured
 * activity; hostile XML (external entities, DTDs, entity bombs, DOCTYPE,
 * gzip, depth, size) rejected with a clear message and never fetched or
 * expanded; namespaces matched by URI, not prefix; parameters from
 * attributes and side files; the one missing-parameter warning.
 *
 * The corpus is read from $SHARED_DIR/corpus/bpel (default ../shared),
 * never copied into the project. Hostile inputs are written here. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpel/bpel.h"
#include "skeleton/skeleton.h"
#include "testutil.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

#define NS20 "http://docs.oasis-open.org/wsbpel/2.0/process/executable"
#define NS11 "http://schemas.xmlsoap.org/ws/2003/03/business-process/"
#define NSDRAFT "http://schemas.xmlsoap.org/ws/2004/03/business-process/"
#define PERF "urn:skelsched:perf"
#define HEAD20 "<process name='p' xmlns='" NS20 "' xmlns:perf='" PERF "'>"

/* ---- helpers ----------------------------------------------------------- */

static char *skel_text(const skel_tree *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    skel_tree_print(t, f);
    fclose(f);
    return buf;
}

/* Import text; on success return the skeleton text (caller frees). */
static char *import_ok(const char *xml, const bpel_params *params, int *nmissing)
{
    diag err;
    diag_clear(&err);
    bpel_import imp;
    int r = bpel_import_memory(xml, strlen(xml), "t.bpel", params, &imp, &err);
    ck_assert_msg(r == 0, "unexpected error: %s", err.msg);
    char *s = skel_text(imp.tree);
    if (nmissing)
        *nmissing = imp.nmissing;
    bpel_import_clear(&imp);
    return s;
}

/* Import text; return its warning (caller frees), NULL when none. */
static char *import_warning(const char *xml, const bpel_params *params)
{
    diag err;
    diag_clear(&err);
    bpel_import imp;
    ck_assert_msg(bpel_import_memory(xml, strlen(xml), "t.bpel", params, &imp, &err) == 0, "%s",
                  err.msg);
    char *w = imp.warning;
    imp.warning = NULL;
    bpel_import_clear(&imp);
    return w;
}

static void expect_skel(const char *xml, const char *want)
{
    char *got = import_ok(xml, NULL, NULL);
    ck_assert_msg(strcmp(got, want) == 0, "got:\n%s\nexpected:\n%s", got, want);
    free(got);
}

static void import_fails(const char *xml, size_t len, const char *expected)
{
    diag err;
    diag_clear(&err);
    bpel_import imp;
    int r = bpel_import_memory(xml, len, "h.bpel", NULL, &imp, &err);
    ck_assert_msg(r < 0, "accepted hostile or bad input, expected '%s'", expected);
    ck_assert_msg(err.set && strstr(err.msg, expected), "message '%s' lacks '%s'", err.msg,
                  expected);
    ck_assert_ptr_null(imp.tree);
}

static char *temp_file(const void *data, size_t len)
{
    char *path = strdup("/tmp/test_bpel_XXXXXX");
    ck_assert_ptr_nonnull(path);
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Derive and solve the model of a tree; return the throughput of the first
 * task's compute action. */
static double solve_tree(const skel_tree *t)
{
    diag err;
    diag_clear(&err);
    int n = skel_tree_ntasks(t);
    skel_dag *d = skel_dag_build(t, SKEL_STYLE_PRODUCER, &err);
    ck_assert_msg(d, "dag: %s", err.msg);
    skel_model *m = skel_model_new(t, d, &err);
    ck_assert_msg(m, "model: %s", err.msg);
    skel_platform *p = skel_platform_default(n, &err);
    ck_assert_ptr_nonnull(p);
    int *where = malloc((size_t)n * sizeof *where);
    ck_assert_ptr_nonnull(where);
    skel_place_default(n, p, where);
    ck_assert_msg(skel_model_place(m, p, where, &err) == 0, "place: %s", err.msg);
    solved x;
    memset(&x, 0, sizeof x);
    x.m = m->pepa;
    int r = solve_model(&x, PEPA_METHOD_GS);
    ck_assert_msg(r == 0, "solve: %s", x.err.msg);
    double thr = thr_of(&x, "comp_0");
    x.m = NULL;   /* owned by the skel_model */
    solved_free(&x);
    free(where);
    skel_platform_free(p);
    skel_model_free(m);
    skel_dag_free(d);
    return thr;
}

/* ---- the corpus -------------------------------------------------------- */

static const char *const corpus[] = {
    "betsy-Flow-GraphExample.bpel", "betsy-Flow-Links-TransitionCondition.bpel",
    "betsy-Flow.bpel", "betsy-ForEach-CompletionCondition-Parallel.bpel",
    "betsy-ForEach-Parallel.bpel", "betsy-ForEach.bpel", "betsy-If-ElseIf-Else.bpel",
    "betsy-Pick-OnAlarm-For.bpel", "betsy-RepeatUntil.bpel",
    "betsy-Scope-EventHandlers-InitSync.bpel",
    "betsy-Scope-EventHandlers-OnAlarm-RepeatEvery.bpel", "betsy-Scope-FaultHandlers.bpel",
    "betsy-Sequence.bpel", "betsy-While.bpel", "ode-TestActivityFlow.bpel",
    "ode-draft-ForEach2-2.0.bpel", "ode11-Pick4.bpel", "ode11-Switch1.bpel",
    "ode11-flow3.bpel", "ode11-onmessage-1.bpel", "spec11-auction.bpel", "spec11-loan.bpel",
    "spec11-purchase.bpel", "spec11-shipping.bpel", "spec20-loanApprovalProcess.bpel",
    "spec20-purchaseOrderProcess.bpel", "spec20-shippingService-abstract.bpel",
};

START_TEST(test_corpus)
{
    char rel[256];
    snprintf(rel, sizeof rel, "corpus/bpel/%s", corpus[_i]);
    const char *path = shared_path(rel);
    diag err;
    diag_clear(&err);
    bpel_import imp;
    int r = bpel_import_file(path, NULL, &imp, &err);
    ck_assert_msg(r == 0, "%s: %s", corpus[_i], err.msg);
    ck_assert_int_ge(skel_tree_ntasks(imp.tree), 1);
    /* The corpus carries no parameters: the defaults are reported. */
    ck_assert_ptr_nonnull(imp.warning);
    ck_assert_int_gt(imp.nmissing, 0);
    ck_assert_ptr_nonnull(imp.ns);
    double thr = solve_tree(imp.tree);
    ck_assert_msg(thr > 0 && isfinite(thr), "%s: throughput %g", corpus[_i], thr);
    bpel_import_clear(&imp);
}
END_TEST

START_TEST(test_corpus_complete)
{
    /* Every .bpel file of the corpus is in the list above. */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.bpel$'", shared_path("corpus/bpel"));
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int n = 0;
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    ck_assert_int_eq(n, (int)(sizeof corpus / sizeof corpus[0]));
}
END_TEST

/* ---- one hand-checked skeleton per structured activity ----------------- */

START_TEST(test_sequence)
{
    expect_skel(HEAD20 "<sequence>"
                "<receive name='in' createInstance='yes' perf:arrival='2'/>"
                "<assign name='a'/>"
                "<invoke name='call' perf:rate='4'/>"
                "<reply name='out' perf:rate='8'/>"
                "</sequence></process>",
                "pipe(3);\n\ttask(\"in\", 2);\n\ttask(\"call\", 4);\n\ttask(\"out\", 8);\n");
}
END_TEST

START_TEST(test_flow)
{
    /* A flow without links: parallel branches (every instance forks to a
     * and b, then joins). */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<flow><invoke name='a' perf:rate='3'/><invoke name='b' perf:rate='5'/></flow>"
                "</sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tpar(2);\n\t\ttask(\"a\", 3);\n"
                "\t\ttask(\"b\", 5);\n");
    /* A flow that would start the process cannot fork: nothing sends to
     * it. It is reduced by visit ratios (its branches one after the other). */
    expect_skel(HEAD20 "<flow><invoke name='a' perf:rate='3'/><invoke name='b' perf:rate='5'/>"
                "</flow></process>",
                "pipe(2);\n\ttask(\"a\", 3);\n\ttask(\"b\", 5);\n");
}
END_TEST

START_TEST(test_flow_links)
{
    /* x is written first but waits on link l from 'in': the pipeline
     * follows the link; x runs with probability 0.25 (rate 1 / 0.25);
     * y joins l2 (0.5) OR l3 (from x: 0.25 * 1): taken as exclusive,
     * 0.5 + 0.25 = 0.75 (rate 3 / 0.75). */
    expect_skel(HEAD20 "<flow><links><link name='l'/><link name='l2'/><link name='l3'/></links>"
                "<invoke name='x' perf:rate='1'><targets><target linkName='l'/></targets>"
                "<sources><source linkName='l3'/></sources></invoke>"
                "<invoke name='y' perf:rate='3'><targets><target linkName='l2'/>"
                "<target linkName='l3'/></targets></invoke>"
                "<receive name='in' createInstance='yes' perf:arrival='1'><sources>"
                "<source linkName='l' perf:prob='0.25'><transitionCondition>1</transitionCondition>"
                "</source><source linkName='l2' perf:prob='0.5'/></sources></receive>"
                "</flow></process>",
                "pipe(3);\n\ttask(\"in\", 1);\n\ttask(\"x\", 4);\n\ttask(\"y\", 4);\n");
    /* BPEL4WS 1.1: <source>/<target> directly inside the activity. */
    expect_skel("<process name='p' xmlns='" NS11 "' xmlns:perf='" PERF "'><flow>"
                "<invoke name='b' perf:rate='2'><target linkName='k'/></invoke>"
                "<invoke name='a' perf:rate='3'><source linkName='k'/></invoke>"
                "</flow></process>",
                "pipe(2);\n\ttask(\"a\", 3);\n\ttask(\"b\", 2);\n");
    const char *cyc = HEAD20 "<flow>\n<invoke name='a'><targets><target linkName='k1'/></targets>"
                      "<sources><source linkName='k2'/></sources></invoke>"
                      "<invoke name='b'><targets><target linkName='k2'/></targets>"
                      "<sources><source linkName='k1'/></sources></invoke></flow></process>";
    import_fails(cyc, strlen(cyc), "h.bpel:1: the links of this <flow> form a cycle");
}
END_TEST

/* Links without conditions order a flow's activities: a series-parallel
 * order becomes nested pipe and par exactly; another order (the "N") is
 * reduced to link order. */
#define L(n) "<link name='" n "'/>"
#define SRC(n) "<source linkName='" n "'/>"
#define TGT(n) "<target linkName='" n "'/>"
START_TEST(test_flow_links_series_parallel)
{
    /* the diamond in -> (b | c) -> d, written in a scrambled order */
    expect_skel(HEAD20 "<flow><links>" L("ib") L("ic") L("bd") L("cd") "</links>"
                "<invoke name='d' perf:rate='4'><targets>" TGT("bd") TGT("cd") "</targets></invoke>"
                "<invoke name='c' perf:rate='3'><targets>" TGT("ic") "</targets>"
                "<sources>" SRC("cd") "</sources></invoke>"
                "<receive name='in' createInstance='yes' perf:arrival='1'>"
                "<sources>" SRC("ib") SRC("ic") "</sources></receive>"
                "<invoke name='b' perf:rate='2'><targets>" TGT("ib") "</targets>"
                "<sources>" SRC("bd") "</sources></invoke>"
                "</flow></process>",
                "pipe(3);\n\ttask(\"in\", 1);\n\tpar(2);\n\t\ttask(\"c\", 3);\n"
                "\t\ttask(\"b\", 2);\n\ttask(\"d\", 4);\n");
    /* the N: a -> c, b -> c, b -> d is not series-parallel */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<flow><links>" L("ac") L("bc") L("bd") "</links>"
                "<invoke name='a' perf:rate='1'><sources>" SRC("ac") "</sources></invoke>"
                "<invoke name='b' perf:rate='2'><sources>" SRC("bc") SRC("bd") "</sources></invoke>"
                "<invoke name='c' perf:rate='3'><targets>" TGT("ac") TGT("bc") "</targets></invoke>"
                "<invoke name='d' perf:rate='4'><targets>" TGT("bd") "</targets></invoke>"
                "</flow></sequence></process>",
                "pipe(5);\n\ttask(\"in\", 1);\n\ttask(\"a\", 1);\n\ttask(\"b\", 2);\n"
                "\ttask(\"c\", 3);\n\ttask(\"d\", 4);\n");
}
END_TEST
#undef L
#undef SRC
#undef TGT

START_TEST(test_while_repeat)
{
    /* loops with the expected counts as their means */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<while perf:iterations='4'><condition>true()</condition>"
                "<invoke name='w' perf:rate='8'/></while>"
                "<repeatUntil perf:iterations='2'><invoke name='r' perf:rate='3'/>"
                "<condition>true()</condition></repeatUntil>"
                "</sequence></process>",
                "pipe(3);\n\ttask(\"in\", 1);\n\tloop(4);\n\t\ttask(\"w\", 8);\n"
                "\tloop(2);\n\t\ttask(\"r\", 3);\n");
    /* a loop over two invokes, then a reply: the feedback goes from v
     * back to u; fewer than one iteration on average is a visit ratio */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<while perf:iterations='3'><condition>true()</condition><sequence>"
                "<invoke name='u' perf:rate='8'/><invoke name='v' perf:rate='9'/></sequence></while>"
                "<while perf:iterations='0.5'><condition>true()</condition>"
                "<invoke name='z' perf:rate='1'/></while>"
                "<reply name='out' perf:rate='4'/></sequence></process>",
                "pipe(4);\n\ttask(\"in\", 1);\n\tloop(3);\n\t\tpipe(2);\n"
                "\t\t\ttask(\"u\", 8);\n\t\t\ttask(\"v\", 9);\n\ttask(\"z\", 2);\n"
                "\ttask(\"out\", 4);\n");
    /* the same loop last in the process: its feedback would have no way
     * out in the producer style, so it is reduced (u, v three times each) */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<while perf:iterations='3'><condition>true()</condition><sequence>"
                "<invoke name='u' perf:rate='9'/><invoke name='v' perf:rate='6'/></sequence></while>"
                "</sequence></process>",
                "pipe(3);\n\ttask(\"in\", 1);\n\ttask(\"u\", 3);\n\ttask(\"v\", 2);\n");
}
END_TEST

START_TEST(test_if)
{
    /* then 1/4, else 3/4: a choice */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<if perf:prob='0.25'><condition>true()</condition>"
                "<invoke name='t' perf:rate='1'/>"
                "<else><invoke name='e' perf:rate='3'/></else></if>"
                "</sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tchoice(0.25, 0.75);\n\t\ttask(\"t\", 1);\n"
                "\t\ttask(\"e\", 3);\n");
    /* No else: the empty branch takes what elseif/then leave (0.5). The
     * choice is between the branches that work, each taken half the time
     * among them, and their work is halved (rate x 2): the load per
     * instance is kept. */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<if perf:prob='0.25'><condition>true()</condition>"
                "<invoke name='t' perf:rate='1'/>"
                "<elseif perf:prob='0.25'><condition>1</condition><invoke name='e' perf:rate='1'/>"
                "</elseif></if></sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tchoice(0.5, 0.5);\n\t\ttask(\"t\", 2);\n"
                "\t\ttask(\"e\", 2);\n");
}
END_TEST

START_TEST(test_if_draft_then)
{
    /* The 2004/03 draft (Apache ODE) wraps the then-activity of <if> and
     * <elseif> in <then>: the same skeleton as WS-BPEL 2.0's. */
    expect_skel("<process name='p' xmlns='" NSDRAFT "' xmlns:perf='" PERF "'>"
                "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<if perf:prob='0.25'><condition>true()</condition>"
                "<then><invoke name='t' perf:rate='1'/></then>"
                "<elseif perf:prob='0.25'><condition>1</condition>"
                "<then><invoke name='u' perf:rate='2'/></then></elseif>"
                "<else><invoke name='e' perf:rate='3'/></else></if>"
                "</sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tchoice(0.25, 0.25, 0.5);\n\t\ttask(\"t\", 1);\n"
                "\t\ttask(\"u\", 2);\n\t\ttask(\"e\", 3);\n");
    /* WS-BPEL 2.0 has no <then>: an error that says where it belongs */
    const char *x = HEAD20 "<if><condition>1</condition><then><empty/></then></if></process>";
    import_fails(x, strlen(x), "unknown BPEL element <then> in <if> (<then> is the 2004/03 draft's");
}
END_TEST

START_TEST(test_switch_11)
{
    expect_skel("<process name='p' xmlns='" NS11 "' xmlns:perf='" PERF "'>"
                "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<switch><case condition='x' perf:prob='0.5'><invoke name='a' perf:rate='1'/></case>"
                "<otherwise perf:prob='0.5'><invoke name='b' perf:rate='2'/></otherwise></switch>"
                "</sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tchoice(0.5, 0.5);\n\t\ttask(\"a\", 1);\n"
                "\t\ttask(\"b\", 2);\n");
}
END_TEST

START_TEST(test_pick)
{
    /* Given for every branch: normalised, so message rates act as weights
     * (exponential race: 1/(1+3), 3/(1+3)). */
    expect_skel(HEAD20 "<pick createInstance='yes' perf:arrival='2'>"
                "<onMessage operation='a' perf:prob='1'><invoke name='a' perf:rate='1'/></onMessage>"
                "<onMessage operation='b' perf:prob='3'><invoke name='b' perf:rate='3'/></onMessage>"
                "</pick></process>",
                "pipe(2);\n\ttask(\"/process/pick[1]\", 2);\n\tchoice(0.25, 0.75);\n"
                "\t\ttask(\"a\", 1);\n\t\ttask(\"b\", 3);\n");
    /* Inside the process, a message of a pick is a task as the same message
     * in a receive, and an alarm with a literal duration a task as the same
     * <for> in a wait (rate 1 / 4 s), each first in its branch. */
    const char *x = HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                    "<pick><onMessage operation='a' perf:prob='0.5' perf:rate='5'>"
                    "<invoke name='a' perf:rate='1'/></onMessage>"
                    "<onAlarm perf:prob='0.5'><for>'PT4S'</for><invoke name='b' perf:rate='3'/>"
                    "</onAlarm></pick></sequence></process>";
    int nmissing = -1;
    char *s = import_ok(x, NULL, &nmissing);
    ck_assert_str_eq(s, "pipe(2);\n\ttask(\"in\", 1);\n\tchoice(0.5, 0.5);\n\t\tpipe(2);\n"
                        "\t\t\ttask(\"/process/sequence[1]/pick[1]/onMessage[1]\", 5);\n"
                        "\t\t\ttask(\"a\", 1);\n\t\tpipe(2);\n"
                        "\t\t\ttask(\"/process/sequence[1]/pick[1]/onAlarm[1]\", 0.25);\n"
                        "\t\t\ttask(\"b\", 3);\n");
    ck_assert_int_eq(nmissing, 0);
    free(s);
    /* the same message's rate from a side file is read (not ignored) */
    const char *side = "/process/sequence[1]/pick[1]/onMessage[1] rate=7\n";
    diag err;
    diag_clear(&err);
    bpel_params *p = bpel_params_parse_string(side, strlen(side), "side.txt", &err);
    ck_assert_msg(p, "%s", err.msg);
    s = import_ok(x, p, &nmissing);
    ck_assert_msg(strstr(s, "onMessage[1]\", 7);"), "%s", s);
    free(s);
    bpel_params_free(p);
    /* without a rate, the message takes the default, reported */
    char *w = import_warning(HEAD20 "<sequence><receive name='in' createInstance='yes' "
                             "perf:arrival='1'/><pick><onMessage operation='a'><empty/>"
                             "</onMessage></pick></sequence></process>", NULL);
    ck_assert_msg(w && strstr(w, "\n  /process/sequence[1]/pick[1]/onMessage[1] rate=1"), "%s", w);
    free(w);
}
END_TEST

START_TEST(test_foreach)
{
    /* parallel: every instance forks to N copies of the body */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<forEach parallel='yes' counterName='i' perf:count='3'>"
                "<startCounterValue>1</startCounterValue><finalCounterValue>$n</finalCounterValue>"
                "<scope><invoke name='w' perf:rate='6'/></scope></forEach>"
                "</sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tpar(3);\n\t\ttask(\"w\", 6);\n"
                "\t\ttask(\"w\", 6);\n\t\ttask(\"w\", 6);\n");
    /* wider than a fork may be: a deal of N copies, each taking one item
     * in N at N branches' work (26 / 13 = 2 per copy) */
    expect_skel(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                "<forEach parallel='yes' counterName='i' perf:count='13'>"
                "<startCounterValue>1</startCounterValue><finalCounterValue>$n</finalCounterValue>"
                "<scope><invoke name='w' perf:rate='26'/></scope></forEach>"
                "</sequence></process>",
                "pipe(2);\n\ttask(\"in\", 1);\n\tdeal(13, \"w\", 2);\n");
    /* sequential with literal counters 1..4: four iterations, no parameter */
    int nmissing = -1;
    char *s = import_ok(HEAD20 "<sequence><receive name='in' createInstance='yes' "
                        "perf:arrival='1'/><forEach parallel='no' counterName='i'>"
                        "<startCounterValue>1</startCounterValue>"
                        "<finalCounterValue> 4 </finalCounterValue>"
                        "<scope><invoke name='w' perf:rate='8'/></scope></forEach>"
                        "</sequence></process>", NULL, &nmissing);
    ck_assert_str_eq(s, "pipe(2);\n\ttask(\"in\", 1);\n\tloop(4);\n\t\ttask(\"w\", 8);\n");
    ck_assert_int_eq(nmissing, 0);
    free(s);
}
END_TEST

START_TEST(test_wait)
{
    /* Literal durations give the rate (1 / seconds): 2.0 <for>, 1.1 for=. */
    int nmissing = -1;
    char *s = import_ok(HEAD20 "<sequence><wait name='a'><for>'P0Y0M0DT0H0M2.5S'</for></wait>"
                        "<wait name='b'><for>'PT1M'</for></wait>"
                        "<wait name='c'><for>$delay</for></wait></sequence></process>", NULL,
                        &nmissing);
    ck_assert_str_eq(s, "pipe(3);\n\ttask(\"a\", 0.40000000000000002);\n"
                        "\ttask(\"b\", 0.016666666666666666);\n\ttask(\"c\", 1);\n");
    ck_assert_int_eq(nmissing, 1);
    free(s);
    expect_skel("<process name='p' xmlns='" NS11 "'><wait name='w' for=\"'PT10S'\"/></process>",
                "task(\"w\", 0.10000000000000001);\n");
}
END_TEST

START_TEST(test_event_handlers)
{
    /* Each handler runs perf:iterations times per instance (a loop);
     * without it, 0 (not modelled) and reported. */
    int nmissing = -1;
    char *s = import_ok(HEAD20 "<eventHandlers><onEvent operation='cancel' perf:iterations='3'>"
                        "<scope><invoke name='h' perf:rate='6'/></scope></onEvent></eventHandlers>"
                        "<scope><eventHandlers><onAlarm><repeatEvery>'PT1S'</repeatEvery>"
                        "<scope><invoke name='tick' perf:rate='1'/></scope></onAlarm></eventHandlers>"
                        "<receive name='in' createInstance='yes' perf:arrival='1'/></scope>"
                        "</process>", NULL, &nmissing);
    ck_assert_str_eq(s, "pipe(2);\n\ttask(\"in\", 1);\n\tloop(3);\n\t\ttask(\"h\", 6);\n");
    ck_assert_int_eq(nmissing, 1);
    free(s);
}
END_TEST

START_TEST(test_scope_and_nop)
{
    /* A scope is its activity; handlers and zero-cost activities vanish. */
    expect_skel(HEAD20 "<scope><faultHandlers><catchAll><empty/></catchAll></faultHandlers>"
                "<sequence><receive name='in' createInstance='yes' perf:arrival='5'/>"
                "<assign/><empty/></sequence></scope></process>",
                "task(\"in\", 5);\n");
}
END_TEST

START_TEST(test_long_pipeline_merged)
{
    /* 12 stages > BPEL_MAX_STAGES: the cheapest adjacent pair merges, twice
     * (s0+s1: 1/8 + 1/8 s, then with s2: 1/4 + 1 s), work adds up. */
    char xml[4096];
    size_t k = (size_t)snprintf(xml, sizeof xml, HEAD20 "<sequence>");
    for (int i = 0; i < 12; i++)
        k += (size_t)snprintf(xml + k, sizeof xml - k, "<invoke name='s%d' perf:rate='%d'/>", i,
                              i < 2 ? 8 : 1);
    snprintf(xml + k, sizeof xml - k, "</sequence></process>");
    diag err;
    diag_clear(&err);
    bpel_import imp;
    ck_assert_msg(bpel_import_memory(xml, strlen(xml), "t.bpel", NULL, &imp, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_eq(skel_tree_ntasks(imp.tree), BPEL_MAX_STAGES);
    ck_assert_str_eq(skel_tree_task(imp.tree, 0)->name, "s0+s1+s2");
    ck_assert_rel(skel_tree_task(imp.tree, 0)->rate, 0.8, 1e-12);
    bpel_import_clear(&imp);
}
END_TEST

/* ---- hostile and invalid input ------------------------------------------ */

START_TEST(test_xxe_file)
{
    const char *x = "<?xml version='1.0'?><!DOCTYPE process [<!ENTITY x SYSTEM "
                    "'file:///etc/passwd'>]>" HEAD20 "<empty name='&x;'/></process>";
    import_fails(x, strlen(x), "DOCTYPE declarations are not accepted");
}
END_TEST

START_TEST(test_xxe_http)
{
    /* Port 9 of the loopback: nothing may be fetched, and nothing is. */
    const char *x = "<!DOCTYPE process [<!ENTITY x SYSTEM 'http://127.0.0.1:9/x'>]>" HEAD20
                    "<sequence>&x;</sequence></process>";
    import_fails(x, strlen(x), "DOCTYPE");
}
END_TEST

START_TEST(test_external_dtd)
{
    const char *x = "<!DOCTYPE process SYSTEM 'http://127.0.0.1:9/bpel.dtd'>" HEAD20
                    "<empty/></process>";
    import_fails(x, strlen(x), "h.bpel:1: DOCTYPE");
    const char *y = "<!DOCTYPE process>" HEAD20 "<empty/></process>";
    import_fails(y, strlen(y), "DOCTYPE");
}
END_TEST

START_TEST(test_billion_laughs)
{
    const char *x =
        "<!DOCTYPE process [<!ENTITY a 'lol'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
        "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'><!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>"
        "<!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'><!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>"
        "<!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'><!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'>"
        "<!ENTITY i '&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;'>]>" HEAD20
        "<empty name='&i;'/>&i;</process>";
    import_fails(x, strlen(x), "DOCTYPE");
}
END_TEST

START_TEST(test_quadratic_blowup)
{
    size_t ent = 50000, refs = 20000;
    size_t cap = ent + refs * 3 + 1024;
    char *x = malloc(cap);
    ck_assert_ptr_nonnull(x);
    size_t k = (size_t)snprintf(x, cap, "<!DOCTYPE process [<!ENTITY a '");
    memset(x + k, 'a', ent);
    k += ent;
    k += (size_t)snprintf(x + k, cap - k, "'>]>" HEAD20 "<empty/>");
    for (size_t i = 0; i < refs; i++) {
        memcpy(x + k, "&a;", 3);
        k += 3;
    }
    k += (size_t)snprintf(x + k, cap - k, "</process>");
    import_fails(x, k, "DOCTYPE");
    free(x);
}
END_TEST

START_TEST(test_undeclared_entity)
{
    const char *x = HEAD20 "<empty name='&x;'/></process>";
    import_fails(x, strlen(x), "h.bpel:1:");
}
END_TEST

static char *nested(int depth)
{
    size_t cap = (size_t)depth * 24 + 256;
    char *x = malloc(cap);
    ck_assert_ptr_nonnull(x);
    size_t k = (size_t)snprintf(x, cap, HEAD20);
    for (int i = 0; i < depth; i++)
        k += (size_t)snprintf(x + k, cap - k, "<sequence>\n");
    k += (size_t)snprintf(x + k, cap - k, "<empty/>");
    for (int i = 0; i < depth; i++)
        k += (size_t)snprintf(x + k, cap - k, "</sequence>");
    snprintf(x + k, cap - k, "</process>");
    return x;
}

START_TEST(test_depth)
{
    char *x = nested(300);   /* libxml2's own limit (256) */
    import_fails(x, strlen(x), "depth");
    free(x);
    x = nested(150);         /* ours */
    import_fails(x, strlen(x), "nested deeper than 128");
    free(x);
    x = nested(40);          /* real files reach 30+ */
    char *s = import_ok(x, NULL, NULL);
    ck_assert_str_eq(s, "task(\"process\", 1);\n");
    free(s);
    free(x);
}
END_TEST

START_TEST(test_nested_foreach_bomb)
{
    /* 64^6 copies if expanded: stopped at the task bound, promptly. */
    char xml[4096];
    size_t k = (size_t)snprintf(xml, sizeof xml, HEAD20);
    for (int i = 0; i < 6; i++)
        k += (size_t)snprintf(xml + k, sizeof xml - k,
                              "<forEach parallel='yes' perf:count='64'><scope>");
    k += (size_t)snprintf(xml + k, sizeof xml - k, "<invoke name='w' perf:rate='1'/>");
    for (int i = 0; i < 6; i++)
        k += (size_t)snprintf(xml + k, sizeof xml - k, "</scope></forEach>");
    snprintf(xml + k, sizeof xml - k, "</process>");
    import_fails(xml, strlen(xml), "more than 4096 tasks");
}
END_TEST

START_TEST(test_gzip)
{
    static const unsigned char gz[] = { 0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03,
                                        0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    char *path = temp_file(gz, sizeof gz);
    diag err;
    diag_clear(&err);
    bpel_import imp;
    ck_assert_int_lt(bpel_import_file(path, NULL, &imp, &err), 0);
    ck_assert_msg(strstr(err.msg, "compressed"), "%s", err.msg);
    unlink(path);
    free(path);
    import_fails((const char *)gz, sizeof gz, "compressed");
}
END_TEST

START_TEST(test_huge_file)
{
    /* A sparse 100 MB file: refused by its size, never read. */
    char *path = temp_file("<", 1);
    ck_assert_int_eq(truncate(path, (off_t)100 << 20), 0);
    diag err;
    diag_clear(&err);
    bpel_import imp;
    ck_assert_int_lt(bpel_import_file(path, NULL, &imp, &err), 0);
    ck_assert_msg(strstr(err.msg, "too large"), "%s", err.msg);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(test_not_bpel)
{
    const char *x = "<process xmlns='urn:other'><sequence/></process>";
    import_fails(x, strlen(x), "not a BPEL <process>");
    const char *y = "<p:process xmlns:p='" NS20 "'>\n<p:sequence>\n<p:frobnicate/>"
                    "</p:sequence></p:process>";
    import_fails(y, strlen(y), "h.bpel:3: unknown BPEL element <frobnicate> in <sequence>");
    const char *z = "<process xmlns='" NS20 "'><sequence>";
    import_fails(z, strlen(z), "XML error");
    /* Line numbers past 65535 stay exact (XML_PARSE_BIG_LINES). */
    size_t cap = 80000;
    char *big = malloc(cap);
    ck_assert_ptr_nonnull(big);
    size_t k = (size_t)snprintf(big, cap, HEAD20 "<sequence>");
    memset(big + k, '\n', 70000);
    k += 70000;
    snprintf(big + k, cap - k, "<frob/></sequence></process>");
    import_fails(big, strlen(big), "h.bpel:70001: unknown BPEL element <frob>");
    free(big);
    const char *u = HEAD20 "<sequence>\n<b:invoke name='x'/></sequence></process>";
    import_fails(u, strlen(u), "h.bpel:2:");
    const char *b = HEAD20 "<invoke perf:rate='fast'/></process>";
    import_fails(b, strlen(b), "perf:rate=\"fast\" is not a non-negative number");
    const char *q = HEAD20 "<if perf:prob='0.8'><empty/><elseif perf:prob='0.5'>"
                    "<empty/></elseif></if></process>";
    import_fails(q, strlen(q), "sum to 1.3 > 1");
}
END_TEST

/* ---- namespaces ---------------------------------------------------------- */

START_TEST(test_namespace_by_uri)
{
    const char *a = "<process xmlns='" NS20 "' xmlns:perf='" PERF "'><sequence>"
                    "<receive name='in' createInstance='yes' perf:arrival='2'/>"
                    "<invoke name='x' perf:rate='3'/></sequence></process>";
    const char *b = "<b:process xmlns:b='" NS20 "' xmlns:q='" PERF "'><b:sequence>"
                    "<b:receive name='in' createInstance='yes' q:arrival='2'/>"
                    "<b:invoke name='x' q:rate='3'/></b:sequence></b:process>";
    const char *c = "<bpws:process xmlns:bpws='" NS20 "' xmlns:perf='" PERF "'>"
                    "<sequence xmlns='" NS20 "'>"
                    "<receive name='in' createInstance='yes' perf:arrival='2'/>"
                    "<bpws:invoke name='x' perf:rate='3'/></sequence></bpws:process>";
    char *sa = import_ok(a, NULL, NULL), *sb = import_ok(b, NULL, NULL),
         *sc = import_ok(c, NULL, NULL);
    ck_assert_str_eq(sa, "pipe(2);\n\ttask(\"in\", 2);\n\ttask(\"x\", 3);\n");
    ck_assert_str_eq(sa, sb);
    ck_assert_str_eq(sa, sc);
    free(sa);
    free(sb);
    free(sc);
    /* The usual prefix bound to another URI is not BPEL. */
    const char *d = "<bpel:process xmlns:bpel='urn:not-bpel'><bpel:empty/></bpel:process>";
    import_fails(d, strlen(d), "not a BPEL <process>");
    /* perf attributes in another namespace are not parameters. */
    int nmissing = 0;
    char *s = import_ok("<process xmlns='" NS20 "' xmlns:perf='urn:other'>"
                        "<invoke name='x' perf:rate='3'/></process>", NULL, &nmissing);
    ck_assert_str_eq(s, "task(\"x\", 1);\n");
    ck_assert_int_eq(nmissing, 1);
    free(s);
}
END_TEST

START_TEST(test_namespaces_accepted)
{
    static const char *const ns[] = {
        NS20, "http://docs.oasis-open.org/wsbpel/2.0/process/abstract", NS11,
        "http://schemas.xmlsoap.org/ws/2004/03/business-process/",
    };
    for (size_t i = 0; i < 4; i++) {
        char xml[512];
        snprintf(xml, sizeof xml, "<process xmlns='%s'><invoke name='x'/></process>", ns[i]);
        char *s = import_ok(xml, NULL, NULL);
        ck_assert_str_eq(s, "task(\"x\", 1);\n");
        free(s);
    }
    /* A namespace URI libxml2 complains about (leading space) is only a
     * warning. */
    char *s = import_ok(HEAD20 "<invoke xmlns:w=' urn:x' name='x' perf:rate='2'/></process>",
                        NULL, NULL);
    ck_assert_str_eq(s, "task(\"x\", 2);\n");
    free(s);
}
END_TEST

/* ---- parameters ---------------------------------------------------------- */

START_TEST(test_side_file)
{
    const char *side = "# side file\n"
                       "in arrival=2\n"
                       "/process/sequence[1]/invoke[1] rate=5   # by path\n"
                       "named rate=7 \n"
                       "/process/sequence[1]/while[1] iterations=2\n";
    diag err;
    diag_clear(&err);
    bpel_params *p = bpel_params_parse_string(side, strlen(side), "side.txt", &err);
    ck_assert_msg(p, "%s", err.msg);
    int nmissing = -1;
    /* The side file wins over the attribute on 'named'. */
    char *s = import_ok(HEAD20 "<sequence><receive name='in' createInstance='yes'/>"
                        "<invoke/><invoke name='named' perf:rate='100'/>"
                        "<while><condition>1</condition><invoke name='w' perf:rate='4'/></while>"
                        "</sequence></process>", p, &nmissing);
    ck_assert_str_eq(s, "pipe(4);\n\ttask(\"in\", 2);\n\ttask(\"/process/sequence[1]/invoke[1]\", 5);"
                        "\n\ttask(\"named\", 7);\n\tloop(2);\n\t\ttask(\"w\", 4);\n");
    ck_assert_int_eq(nmissing, 0);
    free(s);
    bpel_params_free(p);

    diag_clear(&err);
    ck_assert_ptr_null(bpel_params_parse_string("x speed=3\n", 10, "side.txt", &err));
    ck_assert_msg(strstr(err.msg, "side.txt:1:3: unknown key 'speed'"), "%s", err.msg);
    diag_clear(&err);
    ck_assert_ptr_null(bpel_params_parse_string("x\ny rate=-1\n", 12, "side.txt", &err));
    ck_assert_msg(strstr(err.msg, "side.txt:1:1: no key=value"), "%s", err.msg);
}
END_TEST

START_TEST(test_missing_warning)
{
    diag err;
    diag_clear(&err);
    bpel_import imp;
    const char *x = HEAD20 "<sequence><receive name='in' createInstance='yes'/>"
                    "<invoke name='a'/><invoke perf:rate='2'/>"
                    "<while><condition>1</condition><invoke name='b' perf:rate='1'/></while>"
                    "<if><condition>1</condition><invoke name='c' perf:rate='1'/></if>"
                    "</sequence></process>";
    ck_assert_int_eq(bpel_import_memory(x, strlen(x), "m.bpel", NULL, &imp, &err), 0);
    ck_assert_int_eq(imp.nmissing, 4);
    ck_assert_ptr_nonnull(imp.warning);
    const char *w = imp.warning;
    ck_assert_msg(strstr(w, "m.bpel: warning: 4 performance parameters missing, defaults used:\n"),
                  "%s", w);
    ck_assert_msg(strstr(w, "\n  /process/sequence[1]/receive[1] (in) arrival=1\n"), "%s", w);
    ck_assert_msg(strstr(w, "\n  /process/sequence[1]/invoke[1] (a) rate=1\n"), "%s", w);
    ck_assert_msg(strstr(w, "\n  /process/sequence[1]/while[1] iterations=1\n"), "%s", w);
    ck_assert_msg(strstr(w, "\n  /process/sequence[1]/if[1] prob=0.5"), "%s", w);
    ck_assert_msg(!strstr(w, "invoke[2]"), "%s", w);
    bpel_import_clear(&imp);

    /* Fully annotated: no warning. */
    const char *y = HEAD20 "<receive name='in' createInstance='yes' perf:arrival='1'/></process>";
    ck_assert_int_eq(bpel_import_memory(y, strlen(y), "m.bpel", NULL, &imp, &err), 0);
    ck_assert_ptr_null(imp.warning);
    ck_assert_int_eq(imp.nmissing, 0);
    bpel_import_clear(&imp);
}
END_TEST

START_TEST(test_warnings)
{
    /* Side-file entries that match nothing, or a key the activity does not
     * take, are named by file:line. */
    const char *side = "in arrival=2\n"
                       "/process/sequence[1]/invok[1] rate=5\n"
                       "/process/sequence[1] rate=3\n"
                       "in rate=4\n";
    diag err;
    diag_clear(&err);
    bpel_params *p = bpel_params_parse_string(side, strlen(side), "side.txt", &err);
    ck_assert_msg(p, "%s", err.msg);
    char *w = import_warning(HEAD20 "<sequence><receive name='in' createInstance='yes'/>"
                             "<invoke perf:rate='1'/></sequence></process>", p);
    ck_assert_msg(w, "no warning");
    ck_assert_msg(strstr(w, "side.txt:2: warning: no activity or link is named "
                            "'/process/sequence[1]/invok[1]' or has that path: ignored"), "%s", w);
    ck_assert_msg(strstr(w, "side.txt:3: warning: '/process/sequence[1]' takes no rate: ignored"),
                  "%s", w);
    ck_assert_msg(strstr(w, "side.txt:4: warning: 'in' takes no rate: ignored"), "%s", w);
    ck_assert_msg(!strstr(w, "side.txt:1:"), "%s", w);
    free(w);
    bpel_params_free(p);

    /* A link between activities that are not children of one flow is
     * named, with both ends. */
    w = import_warning(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                       "<flow><links><link name='x'/></links>"
                       "<sequence><invoke name='a' perf:rate='1'><sources><source linkName='x'/>"
                       "</sources></invoke></sequence>"
                       "<invoke name='b' perf:rate='1'><targets><target linkName='x'/></targets>"
                       "</invoke></flow></sequence></process>", NULL);
    ck_assert_msg(w && strstr(w, "t.bpel:1: warning: link 'x' from <invoke name='a'> (line 1) to "
                                 "<invoke name='b'> (line 1) joins activities that are not "
                                 "children of the same <flow>: ignored"), "%s", w);
    free(w);

    /* parallel="true" is not BPEL: read as no, said so */
    w = import_warning(HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>"
                       "<forEach parallel='true' counterName='i' perf:count='2'>"
                       "<startCounterValue>1</startCounterValue><finalCounterValue>2"
                       "</finalCounterValue><scope><invoke name='w' perf:rate='1'/></scope>"
                       "</forEach></sequence></process>", NULL);
    ck_assert_msg(w && strstr(w, "t.bpel:1: warning: <forEach parallel=\"true\">: the value must "
                                 "be yes or no; read as no"), "%s", w);
    free(w);

    /* The missing parameters: the file named once, one per line, the
     * list capped (25 invokes: 20 listed, then how many more). */
    char x[4096] = HEAD20 "<sequence><receive name='in' createInstance='yes' perf:arrival='1'/>";
    for (int i = 0; i < 25; i++)
        strcat(x, "<invoke/>");
    strcat(x, "</sequence></process>");
    w = import_warning(x, NULL);
    ck_assert_msg(w && strncmp(w, "t.bpel: warning: 25 performance parameters missing, defaults "
                                  "used:\n  /process/sequence[1]/invoke[1] rate=1\n", 90) == 0,
                  "%s", w);
    ck_assert_msg(strstr(w, "\n  /process/sequence[1]/invoke[20] rate=1\n  ... and 5 more"), "%s",
                  w);
    ck_assert_msg(!strstr(w, "invoke[21]") && !strstr(w + 1, "t.bpel"), "%s", w);
    free(w);
}
END_TEST

START_TEST(test_example)
{
    /* The annotated example in examples/bpel imports with no default used
     * and solves. */
    const char *src = getenv("SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/bpel/order.bpel", src && *src ? src : TOP_SRCDIR);
    diag err;
    diag_clear(&err);
    bpel_import imp;
    ck_assert_msg(bpel_import_file(path, NULL, &imp, &err) == 0, "%s", err.msg);
    ck_assert_msg(imp.warning == NULL, "%s", imp.warning);
    ck_assert(solve_tree(imp.tree) > 0);
    bpel_import_clear(&imp);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("bpel");
    TCase *tc = tcase_create("bpel");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_corpus, 0, (int)(sizeof corpus / sizeof corpus[0]));
    tcase_add_test(tc, test_corpus_complete);
    tcase_add_test(tc, test_sequence);
    tcase_add_test(tc, test_flow);
    tcase_add_test(tc, test_flow_links);
    tcase_add_test(tc, test_flow_links_series_parallel);
    tcase_add_test(tc, test_while_repeat);
    tcase_add_test(tc, test_if);
    tcase_add_test(tc, test_if_draft_then);
    tcase_add_test(tc, test_switch_11);
    tcase_add_test(tc, test_pick);
    tcase_add_test(tc, test_foreach);
    tcase_add_test(tc, test_wait);
    tcase_add_test(tc, test_event_handlers);
    tcase_add_test(tc, test_scope_and_nop);
    tcase_add_test(tc, test_long_pipeline_merged);
    tcase_add_test(tc, test_xxe_file);
    tcase_add_test(tc, test_xxe_http);
    tcase_add_test(tc, test_external_dtd);
    tcase_add_test(tc, test_billion_laughs);
    tcase_add_test(tc, test_quadratic_blowup);
    tcase_add_test(tc, test_undeclared_entity);
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_nested_foreach_bomb);
    tcase_add_test(tc, test_gzip);
    tcase_add_test(tc, test_huge_file);
    tcase_add_test(tc, test_not_bpel);
    tcase_add_test(tc, test_namespace_by_uri);
    tcase_add_test(tc, test_namespaces_accepted);
    tcase_add_test(tc, test_side_file);
    tcase_add_test(tc, test_missing_warning);
    tcase_add_test(tc, test_warnings);
    tcase_add_test(tc, test_example);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
