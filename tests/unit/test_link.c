/* test_link: moves with phases and buffers (docs/platform.md, "Links").
 *  - a two-stage pipe whose link holds c items (Buffer=, DefaultBuffer=,
 *    the job's --buffer), each item in transit through k Erlang phases,
 *    has the throughput of a Markov chain written here state by state
 *    from the documented semantics (no PEPA involved), for c = 1..3, k =
 *    1, 2, under static sharing and with both stages on one node under
 *    processor sharing;
 *  - a rendezvous of SCV 1/k likewise (k phases advancing only while both
 *    tasks offer the move), and of SCV > 1 (balanced H2) against a
 *    hand-written PEPA model;
 *  - the keys parse with the documented precedence and bad values fail
 *    with file:line:column messages;
 *  - the defaults (rendezvous, exponential) generate the very model of
 *    before: Benoit et al. 2004's table is test_skel_amoget's. */
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

/* ---- an independent chain ------------------------------------------------ */

#define MAXS 512

/* Steady state of the dense generator q (n states): pi q = 0, sum pi = 1,
 * by Gaussian elimination with partial pivoting on q transposed, the last
 * equation replaced by the normalisation. */
static void dense_steady(int n, double (*q)[MAXS], double *pi)
{
    static double a[MAXS][MAXS + 1];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            a[i][j] = i == n - 1 ? 1.0 : q[j][i];
        a[i][n] = i == n - 1 ? 1.0 : 0.0;
    }
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        for (int j = 0; j <= n; j++) {
            double t = a[c][j];
            a[c][j] = a[p][j];
            a[p][j] = t;
        }
        for (int r = 0; r < n; r++) {
            if (r == c || a[r][c] == 0)
                continue;
            double f = a[r][c] / a[c][c];
            for (int j = c; j <= n; j++)
                a[r][j] -= f * a[c][j];
        }
    }
    for (int i = 0; i < n; i++)
        pi[i] = a[i][n] / a[i][i];
}

/* The diagonal of generator q (the off-diagonal rates set), then its
 * steady state. */
static void finish_steady(int n, double (*q)[MAXS], double *pi)
{
    for (int s = 0; s < n; s++) {
        double out = 0;
        for (int t = 0; t < n; t++)
            if (t != s)
                out += q[s][t];
        q[s][s] = -out;
    }
    dense_steady(n, q, pi);
}

/* The chain of pipe(2) in the producer style: t0 computes (rate mu0) then
 * hands its item to the link (rate h, when it holds fewer than c); each
 * item passes k phases of rate k lam, on its own (items overlap); the
 * receiver takes a delivered item (rate h) and computes it (mu1). With
 * shared != 0 the two stages share one node: each computes at half its
 * rate while both compute. Link state: digits v[0..k] in base c + 1
 * (items per phase, delivered). Returns the throughput. */
typedef struct hand {
    double mu0, mu1, lam, h;
    int c, k, shared;
} hand;

static int digits(int code, int c, int k, int *v)
{
    int sum = 0;
    for (int q = 0; q <= k; q++) {
        v[q] = code % (c + 1);
        code /= c + 1;
        sum += v[q];
    }
    return sum;
}

static int encode(const int *v, int c, int k)
{
    int code = 0;
    for (int q = k; q >= 0; q--)
        code = code * (c + 1) + v[q];
    return code;
}

static double hand_buffer(const hand *x)
{
    static double q[MAXS][MAXS];
    double pi[MAXS];
    int ncode = 1, v[8], w[8];
    for (int q2 = 0; q2 <= x->k; q2++)
        ncode *= x->c + 1;
    int n = 4 * ncode;      /* state = (t0 busy?, t1 busy?, link code) */
    ck_assert_int_le(n, MAXS);
    memset(q, 0, sizeof q);
#define ST(b0, b1, code) (((b0) * 2 + (b1)) * ncode + (code))
    for (int b0 = 0; b0 < 2; b0++)
        for (int b1 = 0; b1 < 2; b1++)
            for (int code = 0; code < ncode; code++) {
                int sum = digits(code, x->c, x->k, v), s = ST(b0, b1, code);
                if (sum > x->c)
                    continue;
                double div = x->shared && b0 && b1 ? 2 : 1;
                if (b0)                     /* t0 computes: b0 = 1 means computing */
                    q[s][ST(0, b1, code)] += x->mu0 / div;
                if (b1)
                    q[s][ST(b0, 0, code)] += x->mu1 / div;
                if (!b0 && sum < x->c) {    /* hand-off into phase 0 */
                    memcpy(w, v, sizeof w);
                    w[0]++;
                    q[s][ST(1, b1, encode(w, x->c, x->k))] += x->h;
                }
                for (int p = 0; p < x->k; p++)
                    if (v[p]) {
                        memcpy(w, v, sizeof w);
                        w[p]--;
                        w[p + 1]++;
                        q[s][ST(b0, b1, encode(w, x->c, x->k))] += v[p] * x->k * x->lam;
                    }
                if (!b1 && v[x->k]) {       /* take a delivered item */
                    memcpy(w, v, sizeof w);
                    w[x->k]--;
                    q[s][ST(b0, 1, encode(w, x->c, x->k))] += x->h;
                }
            }
    /* unreachable codes (sum > c) get a self-contained absorbing-free row:
     * make them transient to state 0 so that they carry no mass */
    for (int s = 0; s < n; s++)
        if (digits(s % ncode, x->c, x->k, v) > x->c)
            q[s][ST(1, 1, 0)] += 1;
    finish_steady(n, q, pi);
    double thr = 0;
    for (int b0 = 0; b0 < 2; b0++)
        for (int code = 0; code < ncode; code++)
            thr += pi[ST(b0, 1, code)] * x->mu1 / (x->shared && b0 ? 2 : 1);
#undef ST
    return thr;
}

/* Rendezvous with k Erlang phases: they advance only while t0 waits to
 * send and t1 waits to receive; the last one is the move. */
static double hand_rendezvous(double mu0, double mu1, double lam, int k)
{
    static double q[MAXS][MAXS];
    double pi[MAXS];
    int n = 4 * k;
    memset(q, 0, sizeof q);
#define ST(b0, b1, ph) (((b0) * 2 + (b1)) * k + (ph))
    for (int b0 = 0; b0 < 2; b0++)
        for (int b1 = 0; b1 < 2; b1++)
            for (int ph = 0; ph < k; ph++) {
                int s = ST(b0, b1, ph);
                if (b0)
                    q[s][ST(0, b1, ph)] += mu0;
                if (b1)
                    q[s][ST(b0, 0, ph)] += mu1;
                if (!b0 && !b1)
                    q[s][ph < k - 1 ? ST(0, 0, ph + 1) : ST(1, 1, 0)] += k * lam;
            }
    finish_steady(n, q, pi);
    double thr = 0;
    for (int b0 = 0; b0 < 2; b0++)
        for (int ph = 0; ph < k; ph++)
            thr += pi[ST(b0, 1, ph)] * mu1;
#undef ST
    return thr;
}

/* ---- the generated model ------------------------------------------------- */

static const char pipe2[] = "pipe(2); task(\"a\", 2.0); task(\"b\", 1.0);";

/* pipe2 placed t0 on `n0`, t1 on `n1` of platform text conf, solved. */
static double generated(const char *conf, const char *n0, const char *n1, int job_buffer,
                        unsigned *states)
{
    placed b;
    placed_build(&b, pipe2, SKEL_STYLE_PRODUCER, conf);
    b.plat->job_buffer = job_buffer;
    int where[2] = { skel_platform_find(b.plat, n0), skel_platform_find(b.plat, n1) };
    diag err;
    diag_clear(&err);
    skel_model *m = skel_model_new_placed(b.tree, b.dag, b.plat, where, &err);
    ck_assert_msg(m, "%s", err.msg);
    double x = placed_solve_thr(m->pepa, "comp_1", states);
    skel_model_free(m);
    placed_free(&b);
    return x;
}

static int close_rel(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* Link a,b of latency 0.5 (lam 2), hand-off 1/LocalLatency = 100. */
START_TEST(test_buffer_hand)
{
    for (int c = 1; c <= 3; c++)
        for (int k = 1; k <= 2; k++) {
            char conf[256];
            snprintf(conf, sizeof conf,
                     "LocalLatency=0.01 Sharing=static\nNodeName=a,b\n"
                     "Link=a,b Latency=0.5 Buffer=%d SCV=%g\n", c, 1.0 / k);
            unsigned ns;
            double got = generated(conf, "a", "b", -1, &ns);
            hand h = { 2.0, 1.0, 2.0, 100.0, c, k, 0 };
            double want = hand_buffer(&h);
            ck_assert_msg(close_rel(got, want, 1e-9), "c=%d k=%d: %.12g, hand %.12g", c, k,
                          got, want);
        }
}
END_TEST

/* The buffer lets the sender run ahead: with latency 0.5 s and rendezvous
 * the pipe is far slower than its bottleneck stage (rate 1); two items in
 * flight come close to it. */
START_TEST(test_buffer_overlaps)
{
    const char *conf = "LocalLatency=0.01 Sharing=static\nNodeName=a,b\nLink=a,b Latency=0.5\n";
    double rv = generated(conf, "a", "b", -1, NULL);
    double b2 = generated(conf, "a", "b", 2, NULL);
    ck_assert_msg(b2 > rv * 1.2 && b2 < 1.0, "rendezvous %g, buffer 2 %g", rv, b2);
}
END_TEST

/* Both stages on one node under processor sharing, the job's own buffer
 * (--buffer) on their local move: half speed while both compute. */
START_TEST(test_buffer_shared_node)
{
    const char *conf = "LocalLatency=0.25\nNodeName=a\n";
    for (int c = 1; c <= 2; c++) {
        double got = generated(conf, "a", "a", c, NULL);
        hand h = { 2.0, 1.0, 4.0, 4.0, c, 1, 1 };
        double want = hand_buffer(&h);
        ck_assert_msg(close_rel(got, want, 1e-9), "c=%d: %.12g, hand %.12g", c, got, want);
    }
}
END_TEST

START_TEST(test_rendezvous_erlang_hand)
{
    for (int k = 2; k <= 4; k++) {
        char conf[256];
        snprintf(conf, sizeof conf, "LocalLatency=0.01 Sharing=static LinkSCV=%.17g\n"
                 "NodeName=a,b\nLink=a,b Latency=0.5\n", 1.0 / k);
        double got = generated(conf, "a", "b", -1, NULL);
        double want = hand_rendezvous(2.0, 1.0, 2.0, k);
        ck_assert_msg(close_rel(got, want, 1e-9), "k=%d: %.12g, hand %.12g", k, got, want);
    }
    /* exponential (k = 1): the seeds' model, Network alone */
    const char *conf = "LocalLatency=0.01 Sharing=static\nNodeName=a,b\nLink=a,b Latency=0.5\n";
    ck_assert(close_rel(generated(conf, "a", "b", -1, NULL), hand_rendezvous(2, 1, 2, 1), 1e-9));
}
END_TEST

/* SCV 4 on the link: a balanced H2 drawn per move, hand-written in PEPA. */
START_TEST(test_rendezvous_h2_hand)
{
    double p, ra, rb;
    skel_h2(4.0, &p, &ra, &rb);
    char text[1024];
    snprintf(text, sizeof text,
             "l = 2.0; p = %.17g; ra = %.17g; rb = %.17g;\n"
             "S = (comp_0, 2.0).(move_0_1, infty).S;\n"
             "R = (move_0_1, infty).(comp_1, 1.0).R;\n"
             "A = (move_0_1, p * ra * l).A + (move_0_1, (1 - p) * ra * l).B;\n"
             "B = (move_0_1, p * rb * l).A + (move_0_1, (1 - p) * rb * l).B;\n"
             "(S <move_0_1> R) <move_0_1> A\n", p, ra, rb);
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_string(text, strlen(text), "hand.pepa", &err);
    ck_assert_msg(m, "%s", err.msg);
    double want = placed_solve_thr(m, "comp_1", NULL);
    pepa_model_free(m);
    const char *conf = "LocalLatency=0.01 Sharing=static\nNodeName=a,b\n"
                       "Link=a,b Latency=0.5 SCV=4\n";
    double got = generated(conf, "a", "b", -1, NULL);
    ck_assert_msg(close_rel(got, want, 1e-9), "%.12g, hand %.12g", got, want);
}
END_TEST

/* The job's buffer, then the link's, then the platform's defaults. */
START_TEST(test_precedence)
{
    diag err;
    diag_clear(&err);
    const char *t = "LinkSCV=0.5 DefaultBuffer=1\nNodeName=a,b,c\n"
                    "Link=a,b Latency=1 Buffer=3 SCV=0.1\nLink=b,c Latency=1\n";
    skel_platform *p = skel_platform_parse_string(t, strlen(t), "p.conf", NULL, NULL, &err);
    ck_assert_msg(p, "%s", err.msg);
    double scv;
    int buf;
    skel_platform_move_kind(p, 1, 0, &scv, &buf);
    ck_assert(scv == 0.1 && buf == 3);
    skel_platform_move_kind(p, 1, 2, &scv, &buf);
    ck_assert(scv == 0.5 && buf == 1);
    skel_platform_move_kind(p, 0, 0, &scv, &buf);
    ck_assert(scv == 0.5 && buf == 1);
    p->job_buffer = 0;
    skel_platform_move_kind(p, 1, 0, &scv, &buf);
    ck_assert(scv == 0.1 && buf == 0);
    skel_platform_free(p);
}
END_TEST

static void bad(const char *text, const char *want)
{
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string(text, strlen(text), "p.conf", NULL, NULL, &err);
    ck_assert_msg(!p, "accepted: %s", text);
    ck_assert_msg(strcmp(err.msg, want) == 0, "got '%s', want '%s'", err.msg, want);
}

START_TEST(test_errors)
{
    bad("NodeName=a,b\nLink=a,b Latency=1 Buffer=17\n",
        "p.conf:2:27: Buffer=17: must be a whole number of items from 0 to 16");
    bad("NodeName=a,b\nLink=a,b Latency=1 Buffer=1.5\n",
        "p.conf:2:27: Buffer=1.5: must be a whole number of items from 0 to 16");
    bad("NodeName=a,b\nLink=a,b Latency=1 SCV=0.001\n",
        "p.conf:2:24: SCV= must be between 0.01 and 100");
    bad("NodeName=a,b\nLink=a,b Latency=1 SCV=1 SCV=2\n", "p.conf:2:26: SCV= given twice");
    bad("DefaultBuffer=1\nDefaultBuffer=2\n",
        "p.conf:2:1: DefaultBuffer= given twice (first at line 1)");
    bad("LinkSCV=200\n", "p.conf:1:9: LinkSCV= must be between 0.01 and 100");
    bad("Buffer=2\n", "p.conf:1:1: Buffer= belongs on a Link= line");
}
END_TEST

/* A buffer too large for its phases is refused with a message. */
START_TEST(test_link_limit)
{
    placed b;
    placed_build(&b, pipe2, SKEL_STYLE_PRODUCER,
                 "LocalLatency=0.01\nNodeName=a,b\nLink=a,b Latency=1 Buffer=16 SCV=0.01\n");
    int where[2] = { 0, 1 };
    diag err;
    diag_clear(&err);
    skel_model *m = skel_model_new_placed(b.tree, b.dag, b.plat, where, &err);
    ck_assert(!m);
    ck_assert_msg(strstr(err.msg, "Link_0_1: a buffer of 16 items with 100 phases each has more "
                         "than 100000 states"), "%s", err.msg);
    placed_free(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("link");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_buffer_hand);
    tcase_add_test(tc, test_buffer_overlaps);
    tcase_add_test(tc, test_buffer_shared_node);
    tcase_add_test(tc, test_rendezvous_erlang_hand);
    tcase_add_test(tc, test_rendezvous_h2_hand);
    tcase_add_test(tc, test_precedence);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_link_limit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
