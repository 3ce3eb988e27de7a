/* test_lu_order: the multifrontal LU's choice of ordering (lu.h's
 * PEPA_LU_AUTO) and the direct solver's use of it under memory and flop
 * caps (solve_direct.c). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "pepa/ctmc.h"
#include "pepa/lu.h"
#include "pepa/lu_par.h"
#include "pepa/lu_sub.h"
#include "pepa/solve.h"
#include "chains.h"
#include "suite.h"

#ifdef HAVE_UMFPACK
/* A chain's reduced generator M (Q without state 0's row and column) by
 * columns, as solve_direct.c builds it: column j holds Q(i, j). */
static void pinned_columns(const pepa_ctmc *q, int64_t **pp, int64_t **pi, double **px)
{
    uint32_t n = q->n;
    int64_t *p = malloc((size_t)n * sizeof *p), k = 0;
    int64_t *ri = malloc((size_t)(q->nnz + n) * sizeof *ri);
    double *x = malloc((size_t)(q->nnz + n) * sizeof *x);
    ck_assert(p && ri && x);
    for (uint32_t j = 1; j < n; j++) {
        p[j - 1] = k;
        ri[k] = j - 1;
        x[k++] = -q->out[j];
        for (uint64_t e = q->rowp[j]; e < q->rowp[j + 1]; e++)
            if (q->col[e] != 0) {
                ri[k] = q->col[e] - 1;
                x[k++] = q->val[e];
            }
    }
    p[n - 1] = k;
    *pp = p;
    *pi = ri;
    *px = x;
}

/* The flops lu.h predicts for (p, i) ordered by order; the bytes in
 * *bytes, the ordering used in *used. */
static double lu_flops(int64_t m, const int64_t *p, const int64_t *i, pepa_lu_order order,
                       double *bytes, pepa_lu_order *used)
{
    double flops;
    diag e;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(m, p, i, order, &flops, bytes, &e);
    ck_assert_msg(lu != NULL, "%s", e.msg);
    *used = pepa_lu_ordering(lu);
    pepa_lu_free(lu);
    return flops;
}

/* What AUTO's analysis of (p, i) learnt of the ordering it dropped
 * (pepa_lu_take_other): 1 with its ordering, flops and bytes, or 0. It
 * hands it over once. */
static int auto_other(int64_t m, const int64_t *p, const int64_t *i, pepa_lu_order *order,
                      double *flops, double *bytes)
{
    double f, b;
    diag e;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(m, p, i, PEPA_LU_AUTO, &f, &b, &e), *other, *again;
    ck_assert_msg(lu != NULL, "%s", e.msg);
    int tried = pepa_lu_take_other(lu, &other, flops, bytes);
    ck_assert(pepa_lu_take_other(lu, &again, &f, &b) == 0 && again == NULL);
    ck_assert(tried || other == NULL);
    if (other) {
        *order = pepa_lu_ordering(other);
        ck_assert(*order != pepa_lu_ordering(lu));
    }
    pepa_lu_free(other);
    pepa_lu_free(lu);
    return tried;
}

/* The normwise backward error max |A^T y - b| / (|A^T| max |y| + max |b|)
 * of y solved for b[k] = 1 + k mod 5. */
static double backward_error(int64_t m, const int64_t *p, const int64_t *i, const double *a,
                             const double *y)
{
    double *r = malloc((size_t)m * sizeof *r), norm = 0.0, res = 0.0, ymax = 0.0, big = 0.0;
    ck_assert(r);
    spmv(m, p, i, a, 1, y, r);
    for (int64_t k = 0; k < m; k++) {
        double row = 0.0;               /* row k of A^T: column k of A */
        for (int64_t t = p[k]; t < p[k + 1]; t++)
            row += fabs(a[t]);
        norm = fmax(norm, row);
        res = fmax(res, fabs(r[k] - (1.0 + (double)(k % 5))));
        big = fmax(big, 1.0 + (double)(k % 5));
        ymax = fmax(ymax, fabs(y[k]));
    }
    free(r);
    return res / (norm * ymax + big);
}

/* y solved for b[k] = 1 + k mod 5 after factorising A^T (A by columns, as
 * solve_direct.c does) ordered by order, in precision prec, on threads
 * threads; the fronts split between two threads in *split. */
static void lu_solved(int64_t m, const int64_t *p, const int64_t *i, const double *a,
                      pepa_lu_order order, pepa_lu_prec prec, int threads, double *y,
                      int64_t *split)
{
    double *b = malloc((size_t)m * sizeof *b), flops, bytes;
    ck_assert(b);
    for (int64_t k = 0; k < m; k++)
        b[k] = 1.0 + (double)(k % 5);
    diag e;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(m, p, i, order, &flops, &bytes, &e);
    ck_assert_msg(lu != NULL, "%s", e.msg);
    pepa_lu_set_threads(lu, threads);
    ck_assert_msg(pepa_lu_factor(lu, p, i, a, 1, prec, &e) == 0, "%s", e.msg);
    const char *why = pepa_lu_par_unavailable(lu);  /* the helper's BLAS loaded (lu_par.h) */
    ck_assert_msg(why == NULL || getenv("LU_TEST_NO_HELPER"), "helper's BLAS: %s", why);
    pepa_lu_solve(lu, b, y);
    *split = pepa_lu_split_fronts(lu);
    ck_assert_msg(pepa_lu_unstarted_fronts(lu) == 0, "%lld fronts found no helper thread",
                  (long long)pepa_lu_unstarted_fronts(lu));
    pepa_lu_free(lu);
    free(b);
}

/* The normwise backward error of y solved after factorising with order,
 * in double. */
static double lu_residual(int64_t m, const int64_t *p, const int64_t *i, const double *a,
                          pepa_lu_order order)
{
    double *y = malloc((size_t)m * sizeof *y);
    int64_t split;
    ck_assert(y);
    lu_solved(m, p, i, a, order, PEPA_LU_DOUBLE, 1, y, &split);
    double be = backward_error(m, p, i, a, y);
    free(y);
    return be;
}

/* PEPA_LU_AUTO (lu.h): the ordering it keeps is the cheaper by its cost
 * (AMD's flops against METIS's plus PEPA_LU_METIS_FLOPS_PER_NZ an entry),
 * and it solves. A 3-D walk's matrix (7 entries a column, 2.2e7 flops:
 * AMD, METIS not tried since it could not pay), a random one of 6 a
 * column whose fill is heavy (both tried: AMD's 3.2e9 flops kept against
 * METIS's 4.0e9), and one of 12 a column (METIS, AMD not tried; here
 * AMD's flops would have been 6% fewer, 7.5e7 against 7.9e7: the
 * shortcut's price on a small random matrix, where on the closed
 * networks of bench_solve AMD's were 2.4 to 3.9 times METIS's). Where
 * both were tried, the one dropped is handed over as analysed
 * (pepa_lu_take_other), and only there. */
START_TEST(test_lu_auto)
{
    static const struct { int64_t m; int deg; pepa_lu_order want; } cases[] = {
        {0, 0, PEPA_LU_AMD}, {3000, 5, PEPA_LU_AUTO}, {600, 11, PEPA_LU_METIS}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t *p, *i, m = cases[c].m;
        double *a;
        if (m == 0) {                   /* the 3-D walk's generator, pinned at state 0 */
            pepa_ctmc *q = grid3(12);
            m = (int64_t)q->n - 1;
            pinned_columns(q, &p, &i, &a);
            pepa_ctmc_free(q);
        } else {
            random_sparse(m, cases[c].deg, 40 + c, &p, &i, &a);
        }
        double nz = (double)p[m];
        pepa_lu_order used, u1, u2;
        double bauto, bamd, bnd;
        double fauto = lu_flops(m, p, i, PEPA_LU_AUTO, &bauto, &used);
        double famd = lu_flops(m, p, i, PEPA_LU_AMD, &bamd, &u1);
        double fnd = lu_flops(m, p, i, PEPA_LU_METIS, &bnd, &u2);
        ck_assert(u1 == PEPA_LU_AMD && u2 == PEPA_LU_METIS);
        ck_assert(fauto == (used == PEPA_LU_AMD ? famd : fnd));
        if (cases[c].want != PEPA_LU_AUTO)
            ck_assert_msg(used == cases[c].want, "case %zu: ordering %d", c, (int)used);
        if (nz > PEPA_LU_AMD_DEGREE * (double)m)            /* AMD not tried */
            ck_assert(used == PEPA_LU_METIS);
        else if (famd <= PEPA_LU_METIS_FLOPS_PER_NZ * nz)   /* METIS could not pay */
            ck_assert_msg(used == PEPA_LU_AMD && bauto == bamd, "case %zu: %g of %g bytes", c,
                          bauto, bamd);
        else                                                /* both tried: fewer flops */
            ck_assert_msg(fauto == fmin(famd, fnd) && bauto == (fnd < famd ? bnd : bamd),
                          "case %zu: %g of %g, %g", c, fauto, famd, fnd);
        pepa_lu_order dropped = PEPA_LU_AUTO;
        double fo, bo;
        int tried = auto_other(m, p, i, &dropped, &fo, &bo);
        ck_assert_msg(tried == (nz <= PEPA_LU_AMD_DEGREE * (double)m
                                && famd > PEPA_LU_METIS_FLOPS_PER_NZ * nz), "case %zu", c);
        if (tried)                      /* the dropped one handed over, as analysed alone */
            ck_assert(dropped == (used == PEPA_LU_AMD ? PEPA_LU_METIS : PEPA_LU_AMD)
                      && fo == (used == PEPA_LU_AMD ? fnd : famd)
                      && bo == (used == PEPA_LU_AMD ? bnd : bamd));
        double res = lu_residual(m, p, i, a, PEPA_LU_AUTO);
        ck_assert_msg(res < 1e-14, "case %zu: backward error %g", c, res);
        free(a);
        free(i);
        free(p);
    }
}
END_TEST

/* Both orderings tried and METIS kept: a 40^3 walk's matrix (AMD's flops
 * 1.4e5 an entry, above PEPA_LU_METIS_FLOPS_PER_NZ); analysis only. */
START_TEST(test_lu_auto_metis)
{
    pepa_ctmc *q = grid3(40);
    int64_t *p, *i, m = (int64_t)q->n - 1;
    double *a, b[3], f[3];
    pepa_lu_order used[3], order[3] = {PEPA_LU_AUTO, PEPA_LU_AMD, PEPA_LU_METIS};
    pinned_columns(q, &p, &i, &a);
    for (int k = 0; k < 3; k++)
        f[k] = lu_flops(m, p, i, order[k], &b[k], &used[k]);
    ck_assert_msg(f[1] > PEPA_LU_METIS_FLOPS_PER_NZ * (double)p[m] && f[2] < f[1],
                  "AMD %g, METIS %g flops", f[1], f[2]);
    ck_assert(used[0] == PEPA_LU_METIS && f[0] == f[2] && b[0] == b[2]);
    pepa_lu_order dropped = PEPA_LU_METIS;
    double fo, bo;                      /* AMD's analysis held, not made again */
    ck_assert(auto_other(m, p, i, &dropped, &fo, &bo) == 1);
    ck_assert(dropped == PEPA_LU_AMD && fo == f[1] && bo == b[1]);
    free(a);
    free(i);
    free(p);
    pepa_ctmc_free(q);
}
END_TEST

/* q solved by pepa_solve_direct_capped within max_bytes and max_flops, its
 * steady state into *pi (allocated: the caller frees it); its return code. */
static int capped_solve(const pepa_ctmc *q, double max_bytes, double max_flops, double **pi,
                        pepa_solve_result *res, diag *d)
{
    *pi = malloc(q->n * sizeof **pi);
    ck_assert(*pi);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    diag_clear(d);
    return pepa_solve_direct_capped(q, &o, max_bytes, max_flops, *pi, res, d);
}

/* AUTO's ordering over the caps, the other within them: a 30^3 walk whose
 * AMD factors (kept by their flops) take 129 MB, METIS's 97 MB, UMFPACK's
 * 1 GB. Capped at 110 MB it solves, by METIS: two orderings computed
 * (AMD over by 1.2 times, not PEPA_DIRECT_FAR, so METIS is tried). */
#define CAPS_BYTES 110e6   /* between the two orderings' factors */
START_TEST(test_lu_auto_caps)
{
    pepa_ctmc *q = grid3(30);
    int64_t *p, *i, m = (int64_t)q->n - 1;
    double *a, bamd, bnd;
    pepa_lu_order used;
    pinned_columns(q, &p, &i, &a);   /* the premise: AMD kept, over the cap; METIS within */
    lu_flops(m, p, i, PEPA_LU_AUTO, &bamd, &used);
    lu_flops(m, p, i, PEPA_LU_METIS, &bnd, &used);
    ck_assert_msg(bamd > CAPS_BYTES && bnd < CAPS_BYTES, "AUTO %g, METIS %g bytes", bamd, bnd);
    free(a);
    free(i);
    free(p);
    double *pi;
    pepa_solve_result res;
    diag d;
    int rc = capped_solve(q, CAPS_BYTES, 1e12, &pi, &res, &d);
    ck_assert_msg(rc == 0 && res.converged, "rc %d: %s", rc, d.msg);
    ck_assert_msg(res.orderings == 2 && res.decision == PEPA_DECIDE_ASKED, "%d orderings, %s",
                  res.orderings, pepa_decision_name(res.decision));
    ck_assert_msg(pepa_ctmc_residual(q, pi) <= 1e-12, "residual %g", pepa_ctmc_residual(q, pi));
    free(pi);
    pepa_ctmc_free(q);
}
END_TEST

/* The hand-over in the solver (solve_direct.c's mf_other_order): a 36^3
 * walk, where AUTO tries both orderings and keeps METIS (1.9e10 flops,
 * 211 MB), holding AMD's analysis (3.8e10, 320 MB). Capped at
 * HANDOVER_FLOPS, METIS's factors are over the cap, so the held AMD
 * analysis is the one weighed, not made again (res.orderings: AUTO's two
 * and UMFPACK's), and found over the cap too, as is UMFPACK's (4.8e11):
 * the solver refuses. On this chain
 * the held analysis cannot fit where the kept one does not (AMD's flops
 * and bytes both above METIS's), so no capped solve reaches it and
 * succeeds; the refusal after the hand-over is what is checked, the
 * analysis handed over freed (ASan). */
#define HANDOVER_L 36
#define HANDOVER_FLOPS 1e10
#define FAR_BYTES 20e6      /* METIS's ~200 MB over PEPA_DIRECT_FAR times this */
START_TEST(test_lu_auto_handover)
{
    pepa_ctmc *q = grid3(HANDOVER_L);
    int64_t *p, *i, m = (int64_t)q->n - 1;
    double *a, f, b, fo, bo;
    pepa_lu_order used, dropped = PEPA_LU_METIS;
    pinned_columns(q, &p, &i, &a);      /* the premise: both tried, METIS kept over the cap */
    f = lu_flops(m, p, i, PEPA_LU_AUTO, &b, &used);
    ck_assert(auto_other(m, p, i, &dropped, &fo, &bo) == 1);
    ck_assert_msg(used == PEPA_LU_METIS && dropped == PEPA_LU_AMD && f > HANDOVER_FLOPS
                  && fo > f && bo > b, "kept %d: %g flops, %g bytes; other %g, %g",
                  (int)used, f, b, fo, bo);
    free(a);
    free(i);
    free(p);
    double *pi;
    pepa_solve_result res;
    diag d;
    int rc = capped_solve(q, 1e12, HANDOVER_FLOPS, &pi, &res, &d);
    ck_assert_msg(rc == 1 && strstr(d.msg, "1e+10 flops"), "rc %d: %s", rc, d.msg);
    ck_assert_msg(res.orderings == 3 && res.decision == PEPA_DECIDE_ANALYSIS,
                  "%d orderings, %s", res.orderings, pepa_decision_name(res.decision));
    free(pi);
    /* capped at 20 MB: METIS's factors (about 200 MB) over PEPA_DIRECT_FAR times
     * the cap, refused at once with their estimate, the AMD analysis held
     * freed, no other ordering nor UMFPACK's analysis computed */
    rc = capped_solve(q, FAR_BYTES, 1e12, &pi, &res, &d);
    double mb = 0.0;                    /* the estimate in the message: METIS's */
    const char *at = strstr(d.msg, "about ");
    ck_assert_msg(rc == 1 && at && sscanf(at, "about %lf MB", &mb) == 1
                  && strstr(d.msg, "(limits 20 MB") && mb > PEPA_DIRECT_FAR * FAR_BYTES / 1e6
                  && mb < 1.1 * b / 1e6, "rc %d: %s", rc, d.msg);
    ck_assert_msg(res.orderings == 2 && res.decision == PEPA_DECIDE_FAR, "%d orderings, %s",
                  res.orderings, pepa_decision_name(res.decision));
    free(pi);
    pepa_ctmc_free(q);
}
END_TEST

/* AUTO's probe (pepa_solve_probe): a 15-dimensional hypercube walk (32,768
 * states) is refused on a ball of at most a quarter of its states, no ordering of
 * the whole chain computed, and answered by Gauss-Seidel; a 2-D walk of
 * 110^2 = 12,100 states, probed as well, is factorised. */
#define CUBE_D 15
START_TEST(test_auto_probe)
{
    pepa_ctmc *q = cube(CUBE_D);
    uint32_t states;
    double bytes, flops;
    ck_assert(pepa_solve_probe(q, PEPA_AUTO_DIRECT_BYTES, PEPA_AUTO_DIRECT_FLOPS, &states, &bytes,
                               &flops) == 1);
    ck_assert_msg(states >= PEPA_PROBE_FIRST && states <= q->n / 4
                  && (flops > PEPA_PROBE_MARGIN * PEPA_AUTO_DIRECT_FLOPS
                      || bytes > PEPA_PROBE_MARGIN * PEPA_AUTO_DIRECT_BYTES),
                  "%u states: %g flops, %g bytes", states, flops, bytes);
    double *pi = malloc(q->n * sizeof *pi);
    pepa_solve_result res;
    diag e;
    diag_clear(&e);
    ck_assert(pi);
    ck_assert_msg(pepa_solve(q, NULL, pi, &res, &e) == 0, "%s", e.msg);
    ck_assert_msg(res.method == PEPA_METHOD_GS && res.decision == PEPA_DECIDE_PROBE
                  && res.orderings == 0 && res.probe_states == states,
                  "%s, %s, %d orderings, %u states", pepa_method_name(res.method),
                  pepa_decision_name(res.decision), res.orderings, res.probe_states);
    double all_clear = 1.0;             /* product form: each coordinate clear w.p. 2 / (2 + r) */
    for (unsigned b = 0; b < CUBE_D; b++)
        all_clear *= 2.0 / (2.0 + 1.0 + (double)b / CUBE_D);
    ck_assert_msg(fabs(pi[0] - all_clear) <= 1e-8 * all_clear, "%g, %g", pi[0], all_clear);
    free(pi);
    pepa_ctmc_free(q);
    q = grid(110, 2);
    pi = malloc(q->n * sizeof *pi);
    ck_assert(pi);
    ck_assert_msg(pepa_solve(q, NULL, pi, &res, &e) == 0, "%s", e.msg);
    ck_assert_msg(res.method == PEPA_METHOD_DIRECT && res.decision == PEPA_DECIDE_DIRECT
                  && res.orderings == 1 && res.probe_states == 0,
                  "%s, %s, %d orderings, %u states", pepa_method_name(res.method),
                  pepa_decision_name(res.decision), res.orderings, res.probe_states);
    free(pi);
    pepa_ctmc_free(q);
}
END_TEST

/* A chain of one-way moves (barrier(7, 4): 16,384 states, pattern
 * symmetry 0) whose multifrontal orderings of A + A^T are far over the
 * caps (AUTO's METIS: 400 MB against 20) while UMFPACK, ordering it as
 * the nearly triangular matrix it is, needs 7 MB: factorised, through
 * UMFPACK, without the other multifrontal ordering, and nothing refused
 * (decision "asked"). Before: refused at once ("far"). */
#define ONEWAY_BYTES 20e6
START_TEST(test_direct_far_oneway)
{
    pepa_ctmc *q = barrier(7, 4);
    ck_assert(pepa_solve_pattern_symmetry(q) < PEPA_UMFPACK_SYMMETRIC);
    double *pi;
    pepa_solve_result res;
    diag d;
    int rc = capped_solve(q, ONEWAY_BYTES, 1e12, &pi, &res, &d);
    ck_assert_msg(rc == 0 && res.converged && res.residual < 1e-12, "rc %d: %s", rc, d.msg);
    ck_assert_msg(res.orderings == 3 && res.decision == PEPA_DECIDE_ASKED, "%d orderings, %s",
                  res.orderings, pepa_decision_name(res.decision));
    free(pi);
    pepa_ctmc_free(q);
}
END_TEST

/* AUTO's probe on chains UMFPACK orders by its unsymmetric strategy
 * counts a ball by UMFPACK's analysis, not AMD's: barrier(7, 5), 78,125
 * states, whose 16,384-state ball AMD counts at 7.7e10 flops, is
 * factorised by UMFPACK (before: refused by the probe, then Gauss-Seidel);
 * eight one-way 4-cycles (medium-t.pepa's 65,536 states, 1.1e14 flops)
 * are refused on a ball (uniform answer). And an LU that fails without an answer
 * (two closed classes: singular) is "failed", not "inaccurate". */
START_TEST(test_auto_probe_oneway)
{
    pepa_ctmc *q = barrier(7, 5);
    uint32_t states = 7;
    double bytes, flops, *pi = malloc(q->n * sizeof *pi);
    ck_assert(pi);
    ck_assert(pepa_solve_probe(q, PEPA_AUTO_DIRECT_BYTES, PEPA_AUTO_DIRECT_FLOPS, &states, &bytes,
                               &flops) == 0 && states == 0);
    pepa_solve_result res;
    diag e;
    diag_clear(&e);
    ck_assert_msg(pepa_solve(q, NULL, pi, &res, &e) == 0, "%s", e.msg);
    ck_assert_msg(res.method == PEPA_METHOD_DIRECT && res.decision == PEPA_DECIDE_DIRECT
                  && res.orderings == 1 && res.residual < 1e-12, "%s, %s, %d orderings, %g",
                  pepa_method_name(res.method), pepa_decision_name(res.decision), res.orderings,
                  res.residual);
    free(pi);
    pepa_ctmc_free(q);
    q = cycles(8, 4);                   /* medium-t.pepa's chain: UMFPACK's estimate refuses */
    pi = malloc(q->n * sizeof *pi);
    ck_assert(pi && pepa_solve_pattern_symmetry(q) < PEPA_UMFPACK_SYMMETRIC);
    ck_assert(pepa_solve_probe(q, PEPA_AUTO_DIRECT_BYTES, PEPA_AUTO_DIRECT_FLOPS, &states, &bytes,
                               &flops) == 1);
    ck_assert_msg(states >= PEPA_PROBE_FIRST && states <= q->n / 4
                  && flops > PEPA_PROBE_MARGIN * PEPA_AUTO_DIRECT_FLOPS, "%u states: %g flops",
                  states, flops);
    ck_assert_msg(pepa_solve(q, NULL, pi, &res, &e) == 0, "%s", e.msg);
    ck_assert_msg(res.decision == PEPA_DECIDE_PROBE && res.orderings == 0
                  && fabs(pi[0] - 1.0 / (double)q->n) < 1e-9, "%s, %d orderings, %g",
                  pepa_decision_name(res.decision), res.orderings, pi[0]);
    free(pi);
    pepa_ctmc_free(q);
    q = cube(3);                        /* under PEPA_PROBE_MIN_STATES: *states still set */
    states = 7;
    ck_assert(pepa_solve_probe(q, 1.0, 1.0, &states, &bytes, &flops) == 0 && states == 0);
    pepa_ctmc_free(q);
    uint32_t src[] = {0, 1, 2, 3}, dst[] = {1, 0, 3, 2};
    double rate[] = {1.0, 2.0, 1.0, 2.0}, two[4];
    q = pepa_ctmc_from_triples(4, 4, src, dst, rate);
    ck_assert(q);
    pepa_solve(q, NULL, two, &res, &e); /* Gauss-Seidel's answer: one of many */
    ck_assert_msg(res.decision == PEPA_DECIDE_FAILED, "%s", pepa_decision_name(res.decision));
    pepa_ctmc_free(q);
}
END_TEST

/* max |x - y| over max |x|. */
static double max_rel_diff(int64_t n, const double *x, const double *y)
{
    double d = 0.0, big = 0.0;
    for (int64_t k = 0; k < n; k++) {
        d = fmax(d, fabs(x[k] - y[k]));
        big = fmax(big, fabs(x[k]));
    }
    return d / big;
}

/* The LU on two threads (lu.h's pepa_lu_set_threads, lu_par.h) against
 * one, on a 30^3 walk: its top fronts (the root's 900 pivots and more,
 * factorised blocked) are split, and the answers are the same bit for bit,
 * the single-precision factors' solutions and the direct method's refined
 * answers, and from run to run: each chunk of a large front is computed by
 * the same OpenBLAS code whichever thread takes it, and one thread cuts
 * the front into the same chunks (lu_par.h; before, the helper ran BLIS
 * and one thread ran sgetrf whole, and the last digits differed). */
/* The LU of q's pinned columns on one and two threads: the fronts the
 * helper thread did part of (at least two: counted only when
 * it took a chunk, so a helper that never ran fails here), on the first
 * run and on each repeat (until 2026-11-28 the repeats' count was not
 * read: one thread cuts the same chunks, so a repeat the helper sat out
 * matched bit for bit and passed), and the two answers' backward errors
 * alike. */
static void two_thread_factors(const pepa_ctmc *q)
{
    int64_t *p, *i, m = (int64_t)q->n - 1, s1, s2;
    double *a, *y1 = malloc((size_t)m * sizeof *y1), *y2 = malloc((size_t)m * sizeof *y2);
    double *y3 = malloc((size_t)m * sizeof *y3);
    ck_assert_msg(y1 && y2 && y3, "out of memory");
    pinned_columns(q, &p, &i, &a);
    lu_solved(m, p, i, a, PEPA_LU_METIS, PEPA_LU_SINGLE, 1, y1, &s1);
    lu_solved(m, p, i, a, PEPA_LU_METIS, PEPA_LU_SINGLE, 2, y2, &s2);
    ck_assert_int_eq(s1, 0);
    ck_assert_msg(s2 >= 2, "%lld fronts split", (long long)s2);
    /* the helper factorised whole subtrees (lu_sub.h), not only chunks of
     * the 15-39 fronts of 4e7 flops or more: 3,084 fronts of the 30^3 walk
     * (before, 15) */
    ck_assert_msg(s2 > 200, "the helper thread did part of %lld fronts: no whole subtree",
                  (long long)s2);
    ck_assert_msg(memcmp(y1, y2, (size_t)m * sizeof *y2) == 0,
                  "two threads' solution differs from one thread's");
    for (int run = 0; run < 3; run++) {         /* the same bits, however scheduled */
        int64_t s3 = -1;
        memset(y3, 0, (size_t)m * sizeof *y3);
        lu_solved(m, p, i, a, PEPA_LU_METIS, PEPA_LU_SINGLE, 2, y3, &s3);
        ck_assert_msg(s3 >= 2, "run %d: %lld fronts split (a run the helper sat out would "
                      "give one thread's bits)", run + 2, (long long)s3);
        ck_assert_msg(memcmp(y2, y3, (size_t)m * sizeof *y3) == 0,
                      "two threads' solutions differ from run to run (run %d)", run + 2);
    }
    free(y3);
    double e1 = backward_error(m, p, i, a, y1), e2 = backward_error(m, p, i, a, y2);
    ck_assert_msg(e2 < 1e-6 && e2 < 4.0 * e1 + 1e-7, "backward errors %g (one thread), %g (two)",
                  e1, e2);
    free(a);
    free(i);
    free(p);
    free(y2);
    free(y1);
}

/* pepa_solve's direct method on q with LU threads 1 and 2: the same
 * answer within the refinement's tolerance. */
static void two_thread_solves(const pepa_ctmc *q)
{
    double *pi[2] = {malloc(q->n * sizeof(double)), malloc(q->n * sizeof(double))};
    ck_assert(pi[0] && pi[1]);
    for (int t = 0; t < 2; t++) {
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.method = PEPA_METHOD_DIRECT;
        o.lu_threads = t + 1;
        pepa_solve_result res;
        diag e;
        diag_clear(&e);
        ck_assert_msg(pepa_solve(q, &o, pi[t], &res, &e) == 0, "%s", e.msg);
        ck_assert_msg(res.lu_threads == t + 1 && !res.lu_par_unavailable[0],
                      "asked for %d threads: lu_threads %d (%s)", t + 1, res.lu_threads,
                      res.lu_par_unavailable);
    }
    double d = max_rel_diff(q->n, pi[0], pi[1]);
    ck_assert_msg(d < 1e-12, "direct answers %g apart", d);
    ck_assert_msg(memcmp(pi[0], pi[1], q->n * sizeof(double)) == 0,
                  "direct answers %g apart: not the same bits", d);
    free(pi[1]);
    free(pi[0]);
}

/* The 30^3 walk pinned, its one-thread single-precision solution y1 for
 * lu_solved's right-hand side b, and room for another, y2. */
typedef struct walk30 {
    pepa_ctmc *q;
    int64_t *p, *i, m;
    double *a, *y1, *y2, *b;
} walk30;

static void walk30_make(walk30 *w)
{
    int64_t s1;
    w->q = grid3(30);
    w->m = (int64_t)w->q->n - 1;
    w->y1 = malloc((size_t)w->m * sizeof *w->y1);
    w->y2 = malloc((size_t)w->m * sizeof *w->y2);
    w->b = malloc((size_t)w->m * sizeof *w->b);
    ck_assert_msg(w->y1 && w->y2 && w->b, "out of memory");
    pinned_columns(w->q, &w->p, &w->i, &w->a);
    lu_solved(w->m, w->p, w->i, w->a, PEPA_LU_METIS, PEPA_LU_SINGLE, 1, w->y1, &s1);
    for (int64_t k = 0; k < w->m; k++)          /* lu_solved's right-hand side */
        w->b[k] = 1.0 + (double)(k % 5);
}

/* Its METIS analysis, set for two threads. */
static pepa_lu *walk30_lu(const walk30 *w)
{
    double flops, bytes;
    diag e;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(w->m, w->p, w->i, PEPA_LU_METIS, &flops, &bytes, &e);
    ck_assert_msg(lu != NULL, "%s", e.msg);
    pepa_lu_set_threads(lu, 2);
    return lu;
}

static void walk30_free(walk30 *w)
{
    free(w->b);
    free(w->a);
    free(w->i);
    free(w->p);
    free(w->y2);
    free(w->y1);
    pepa_ctmc_free(w->q);
}

/* Two threads on the 30^3 walk within the analysis's prediction (the
 * default memory) cut the tree; with pepa_lu_set_memory at 1 MB, less than
 * the cut's stacks, they do not (before, nothing bounded the stacks: the
 * tree was cut whatever they took), the reason says so, and the answer is
 * one thread's bit for bit. */
START_TEST(test_lu_two_threads_memory)
{
    walk30 w;
    walk30_make(&w);
    double part[3];
    diag e;
    diag_clear(&e);
    pepa_lu *lu = walk30_lu(&w);
    ck_assert_msg(pepa_lu_factor(lu, w.p, w.i, w.a, 1, PEPA_LU_SINGLE, &e) == 0, "%s", e.msg);
    ck_assert_msg(pepa_lu_part_seconds(lu, part) == 1, "the default memory: no cut");
    pepa_lu_set_memory(lu, 1e6);
    ck_assert_msg(pepa_lu_factor(lu, w.p, w.i, w.a, 1, PEPA_LU_SINGLE, &e) == 0, "%s", e.msg);
    ck_assert_msg(pepa_lu_part_seconds(lu, part) == 0, "cut with 1 MB allowed");
    const char *why = pepa_lu_par_unavailable(lu);
    ck_assert_msg(why && strstr(why, "MB"), "reason: %s", why ? why : "(none)");
    pepa_lu_solve(lu, w.b, w.y2);
    ck_assert_msg(memcmp(w.y1, w.y2, (size_t)w.m * sizeof *w.y2) == 0,
                  "uncut two threads' solution differs from one thread's");
    pepa_lu_free(lu);
    walk30_free(&w);
}
END_TEST

/* The environment variable name set to value; its value before (NULL:
 * unset) into *old, to be given back with env_restore. */
static void env_set(const char *name, const char *value, char **old)
{
    const char *v = getenv(name);
    *old = v ? strdup(v) : NULL;
    ck_assert_msg(!v || *old, "out of memory");
    ck_assert_int_eq(setenv(name, value, 1), 0);
}

static void env_restore(const char *name, char *old)
{
    ck_assert_int_eq(old ? setenv(name, old, 1) : unsetenv(name), 0);
    free(old);
}

/* Factorise with threads 1, then 2, where the helper's copy of the BLAS
 * is refused (SKELSCHED_LU_COPY=0; until 2026-11-28 an LD_PRELOAD naming
 * vgpreload, valgrind's old sign), the environment given back before any
 * assert can end the test: the fallback's reason in *why (a copy, NULL:
 * none), any reason given on one thread in *why1, y solved as lu_solved
 * does; returns the fronts split. */
static int64_t refused_factor(int64_t m, const int64_t *p, const int64_t *i, const double *a,
                              double *y, char **why1, char **why)
{
    char *pre, *noh;
    env_set("SKELSCHED_LU_COPY", "0", &pre);
    env_set("LU_TEST_NO_HELPER", "1", &noh);
    diag e;
    double flops, bytes;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(m, p, i, PEPA_LU_METIS, &flops, &bytes, &e);
    const char *w1 = NULL;
    int rc = -1;
    if (lu) {
        pepa_lu_set_threads(lu, 1);
        w1 = pepa_lu_par_unavailable(lu);
        pepa_lu_set_threads(lu, 2);
        rc = pepa_lu_factor(lu, p, i, a, 1, PEPA_LU_SINGLE, &e);
    }
    *why1 = w1 ? strdup(w1) : NULL;
    const char *w = rc == 0 ? pepa_lu_par_unavailable(lu) : e.msg;
    *why = w ? strdup(w) : NULL;
    int64_t split = rc == 0 ? pepa_lu_split_fronts(lu) : -1;
    double *b = rc == 0 ? malloc((size_t)m * sizeof *b) : NULL;
    for (int64_t k = 0; b && k < m; k++)
        b[k] = 1.0 + (double)(k % 5);
    int solved = b != NULL;
    if (b)
        pepa_lu_solve(lu, b, y);
    free(b);
    pepa_lu_free(lu);
    env_restore("LU_TEST_NO_HELPER", noh);
    env_restore("SKELSCHED_LU_COPY", pre);
    ck_assert_msg(rc == 0, "%s", *why ? *why : "analyse failed");
    ck_assert_msg(solved, "out of memory");
    return split;
}

/* Two threads asked for where the helper's copy of the BLAS cannot be
 * loaded: the reason is kept (pepa_lu_par_unavailable; before, the LU
 * fell back to one thread silently), no front is split, the solution is
 * one thread's bit for bit; and on one thread nothing is tried (no
 * reason). The environment is given back (until 2026-11-28 the variable
 * stayed set: under CK_FORK=no every later LU fell back; this test runs
 * before test_lu_two_threads, which then failed: "0 fronts split"). */
START_TEST(test_lu_two_threads_fallback)
{
    pepa_ctmc *q = grid3(30);
    int64_t *p, *i, m = (int64_t)q->n - 1, s1;
    double *a, *y1 = malloc((size_t)m * sizeof *y1), *y2 = malloc((size_t)m * sizeof *y2);
    ck_assert_msg(y1 && y2, "out of memory");
    pinned_columns(q, &p, &i, &a);
    lu_solved(m, p, i, a, PEPA_LU_METIS, PEPA_LU_SINGLE, 1, y1, &s1);
    char *why1, *why;
    int64_t split = refused_factor(m, p, i, a, y2, &why1, &why);
    ck_assert_msg(why1 == NULL, "one thread: a reason before factorising: %s", why1);
    ck_assert_msg(why && strstr(why, "SKELSCHED_LU_COPY=0"), "fallback reason: %s",
                  why ? why : "(none)");
    ck_assert_int_eq(split, 0);
    free(why);
    ck_assert_msg(memcmp(y1, y2, (size_t)m * sizeof *y2) == 0,
                  "the fallback's solution differs from one thread's");
    free(a);
    free(i);
    free(p);
    free(y2);
    free(y1);
    pepa_ctmc_free(q);
}
END_TEST

/* lu_sub's plan on two small trees. Seven supernodes, two subtrees of
 * three under a root (flops 1 each, the root's 2; blocks of 4 entries for
 * the leaves, 9 for the subtrees' roots): the cut is at the root, one
 * subtree to each thread, each thread's stack holding two leaves' blocks
 * and its root's (4 + 4 + 9); the root's stack none. A chain of three
 * cannot be cut. */
START_TEST(test_lu_sub_plan)
{
    const int64_t parent[7] = {2, 2, 6, 5, 5, 6, -1};
    const double fl[7] = {1, 1, 1, 1, 1, 1, 2};
    const size_t cb[7] = {4, 4, 9, 4, 4, 9, 0};
    lu_sub_plan p;
    ck_assert_int_eq(lu_sub_plan_make(7, parent, fl, cb, &p), 1);
    static const unsigned char want[7] = {LU_SUB_CALLER, LU_SUB_CALLER, LU_SUB_CALLER,
                                          LU_SUB_HELPER, LU_SUB_HELPER, LU_SUB_HELPER,
                                          LU_SUB_TOP};
    for (int s = 0; s < 7; s++)
        ck_assert_msg(p.owner[s] == want[s], "supernode %d owned by %d", s, p.owner[s]);
    ck_assert_uint_eq(p.peak[LU_SUB_CALLER], 17);
    ck_assert_uint_eq(p.peak[LU_SUB_HELPER], 17);
    ck_assert_uint_eq(p.peak[LU_SUB_TOP], 0);
    ck_assert(p.flops[LU_SUB_TOP] == 2.0 && p.flops[LU_SUB_CALLER] == 3.0);
    lu_sub_plan_free(&p);
    const int64_t chain[3] = {1, 2, -1};
    ck_assert_int_eq(lu_sub_plan_make(3, chain, fl, cb, &p), 0);
    ck_assert(p.owner == NULL);
    /* parents above children but not a postorder: 2's subtree {0, 2} is
     * not a range (1 lies inside it); a cut at the root (3) would deal
     * 0..2 as 2's subtree, 1 with it (before, 1: a race) */
    const int64_t mixed[4] = {2, 3, 3, -1};
    const double fl4[4] = {10, 10, 1, 1};
    ck_assert_int_eq(lu_sub_plan_make(4, mixed, fl4, cb, &p), 0);
    ck_assert(p.owner == NULL);
}
END_TEST

/* The large fronts' assembly by chunks of columns (lu_front.h): taken in
 * single precision on one thread and on two alike, for every front of 4e7
 * flops or more (the 30^3 walk ordered by METIS has some), never in
 * double; the factors' bits one thread's are checked by
 * two_thread_factors. Before the chunked assembly there was no count. */
START_TEST(test_lu_chunked_assembly)
{
    pepa_ctmc *q = grid3(30);
    int64_t *p, *i, m = (int64_t)q->n - 1, n[3];
    double *a, flops, bytes;
    pinned_columns(q, &p, &i, &a);
    for (int r = 0; r < 3; r++) {
        diag e;
        diag_clear(&e);
        pepa_lu *lu = pepa_lu_analyse(m, p, i, PEPA_LU_METIS, &flops, &bytes, &e);
        ck_assert_msg(lu != NULL, "%s", e.msg);
        pepa_lu_set_threads(lu, r == 1 ? 2 : 1);
        ck_assert_msg(pepa_lu_factor(lu, p, i, a, 1, r == 2 ? PEPA_LU_DOUBLE : PEPA_LU_SINGLE,
                                     &e) == 0, "%s", e.msg);
        n[r] = pepa_lu_chunked_fronts(lu);
        pepa_lu_free(lu);
    }
    ck_assert_msg(n[0] >= 2 && n[1] == n[0], "chunked assemblies: %lld on one thread, %lld on two",
                  (long long)n[0], (long long)n[1]);
    ck_assert_msg(n[2] == 0, "%lld chunked assemblies in double", (long long)n[2]);
    free(a);
    free(i);
    free(p);
    pepa_ctmc_free(q);
}
END_TEST

/* Help in both directions (lu_par_team): with the tree cut, the thread
 * whose subtrees are done first helps the other's large fronts. Made
 * certain by running one thread's subtrees to their end before the other
 * starts (lu_sub_test_order): the other then has a helper started in its
 * large fronts. The helper helped by the caller is new (before, the
 * caller only waited in the join: LU_PAR_CALLER_FIRST found 0 such
 * fronts); either way the solution is one thread's bit for bit. */
START_TEST(test_lu_two_way_help)
{
    walk30 w;
    walk30_make(&w);
    static const struct {
        lu_par_order order;
        lu_sub_owner helped;
    } runs[2] = {{LU_PAR_CALLER_FIRST, LU_SUB_HELPER}, {LU_PAR_HELPER_FIRST, LU_SUB_CALLER}};
    for (int r = 0; r < 2; r++) {
        double part[3];
        diag e;
        diag_clear(&e);
        pepa_lu *lu = walk30_lu(&w);
        lu_sub_test_order(lu, runs[r].order);
        ck_assert_msg(pepa_lu_factor(lu, w.p, w.i, w.a, 1, PEPA_LU_SINGLE, &e) == 0, "%s", e.msg);
        ck_assert_msg(pepa_lu_part_seconds(lu, part) == 1, "the tree was not cut");
        ck_assert_msg(lu_sub_offered(lu, runs[r].helped) > 0,
                      "order %d: no large front of owner %d was offered help", r, runs[r].helped);
        pepa_lu_solve(lu, w.b, w.y2);
        ck_assert_msg(memcmp(w.y1, w.y2, (size_t)w.m * sizeof *w.y2) == 0,
                      "order %d: the solution differs from one thread's", r);
        pepa_lu_free(lu);
    }
    walk30_free(&w);
}
END_TEST

/* lu_par_dense on a block that pivots (review 31: every generator the
 * other tests factorise is column diagonally dominant, so partial
 * pivoting exchanges no rows and a wrong exchange goes unseen): a random
 * 1,000-pivot block, blocked as the large fronts are, solves A11 x = b
 * to single precision's accuracy; on two threads (where the copy loads)
 * its factors and pivots are one thread's bit for bit, three times. A
 * look-ahead that exchanged the next panel's rows in the L21 being read
 * gave wrong factors on this block. */
enum { DN_C = 1000, DN_B = 200, DN_R = DN_C + DN_B };

static void dense_fill(float *x, size_t n, uint32_t *seed)
{
    for (size_t k = 0; k < n; k++) {
        *seed = *seed * 1664525u + 1013904223u;
        x[k] = (float)((double)(*seed >> 8) / (double)(1u << 24) * 2.0 - 1.0);
    }
}

/* The relative error of x solved from the block's factors (panel, ipiv)
 * for A11 x = A11 1, A11 the block before factorising (a11, leading
 * dimension DN_R). */
static double dense_error(const float *a11, const float *lu, const int *ipiv)
{
    double *y = calloc(DN_C, sizeof *y), err = 0.0;
    ck_assert(y);
    for (int j = 0; j < DN_C; j++)
        for (int i = 0; i < DN_C; i++)
            y[i] += (double)a11[(size_t)j * DN_R + (size_t)i];
    for (int i = 0; i < DN_C; i++) {             /* P y */
        double t = y[i];
        y[i] = y[ipiv[i] - 1];
        y[ipiv[i] - 1] = t;
    }
    for (int j = 0; j < DN_C; j++)               /* L z = P y */
        for (int i = j + 1; i < DN_C; i++)
            y[i] -= (double)lu[(size_t)j * DN_R + (size_t)i] * y[j];
    for (int j = DN_C - 1; j >= 0; j--) {        /* U x = z */
        y[j] /= (double)lu[(size_t)j * DN_R + (size_t)j];
        for (int i = 0; i < j; i++)
            y[i] -= (double)lu[(size_t)j * DN_R + (size_t)i] * y[j];
    }
    for (int i = 0; i < DN_C; i++)
        err = fmax(err, fabs(y[i] - 1.0));
    free(y);
    return err;
}

/* The block factorised by team into f (panel, F12, F22 in a row) and
 * ipiv, from the same random start each time. */
static void dense_run(const lu_par_team *team, float *f, int *ipiv)
{
    uint32_t seed = 17;
    size_t np = (size_t)DN_R * DN_C, n12 = (size_t)DN_C * DN_B;
    dense_fill(f, np + n12 + (size_t)DN_B * DN_B, &seed);
    lu_par_tally t;
    ck_assert_int_eq(lu_par_dense(team, DN_C, DN_B, DN_R, f, f + np, f + np + n12, ipiv, &t), 0);
}

START_TEST(test_lu_par_dense_pivots)
{
    size_t nf = (size_t)DN_R * DN_C + (size_t)DN_C * DN_B + (size_t)DN_B * DN_B;
    float *a = malloc(nf * sizeof *a), *f1 = malloc(nf * sizeof *f1);
    float *f2 = malloc(nf * sizeof *f2);
    int *p1 = malloc(DN_C * sizeof *p1), *p2 = malloc(DN_C * sizeof *p2), moved = 0;
    ck_assert(a && f1 && f2 && p1 && p2);
    uint32_t seed = 17;
    dense_fill(a, nf, &seed);
    lu_par_team one = {.self = lu_par_caller()};
    dense_run(&one, f1, p1);
    for (int i = 0; i < DN_C; i++)
        moved += p1[i] != i + 1;
    ck_assert_msg(moved > DN_C / 2, "only %d rows exchanged: the test needs pivoting", moved);
    double err = dense_error(a, f1, p1);
    ck_assert_msg(err < 1e-2, "one thread: x solved %g from 1", err);
    diag why;
    diag_clear(&why);
    lu_par_blas *b = lu_par_open(&why);
    lu_par_team two = {.self = lu_par_caller(), .other = b ? lu_par_kernels(b) : NULL};
    for (int r = 0; b && r < 3; r++) {
        dense_run(&two, f2, p2);
        ck_assert_msg(memcmp(f1, f2, nf * sizeof *f2) == 0 && memcmp(p1, p2, DN_C * sizeof *p2) == 0,
                      "run %d: two threads' factors differ from one thread's", r);
    }
    lu_par_close(b);
    free(p2);
    free(p1);
    free(f2);
    free(f1);
    free(a);
}
END_TEST

START_TEST(test_lu_two_threads)
{
    pepa_ctmc *q = grid3(30);
    two_thread_factors(q);
    two_thread_solves(q);
    pepa_ctmc_free(q);
}
END_TEST

/* pepa_solve_result.phases (solve.h): a direct solve's time by phase.
 * The multifrontal LU (a 25^3 walk, 15,625 states) and UMFPACK (a 12^3
 * walk) each spend wall time in every phase, the phases together no more
 * than the solve's wall time around them; an iterative method leaves
 * them zero, even in a result a direct solve filled before. */
static void phases_of(const pepa_ctmc *q, pepa_method m, pepa_solve_result *res, double *wall)
{
    double *pi = malloc(q->n * sizeof *pi);
    ck_assert(pi);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = m;
    diag e;
    diag_clear(&e);
    double w0 = clock_now();
    ck_assert_msg(pepa_solve(q, &o, pi, res, &e) == 0, "%s", e.msg);
    *wall = clock_now() - w0;
    free(pi);
}

START_TEST(test_direct_phases)
{
    pepa_ctmc *qs[2] = {grid3(25), grid3(12)};
    for (int k = 0; k < 2; k++) {
        pepa_solve_result r;
        double wall;
        phases_of(qs[k], PEPA_METHOD_DIRECT, &r, &wall);
        const pepa_solve_phases *p = &r.phases;
        const double *ph[4] = {p->pin, p->analyse, p->factor, p->refine};
        double sum = 0.0;
        for (int i = 0; i < 4; i++) {
            ck_assert_msg(ph[i][0] > 0.0 && ph[i][1] >= 0.0, "chain %d phase %d: %g, %g", k, i,
                          ph[i][0], ph[i][1]);
            sum += ph[i][0];
        }
        ck_assert_msg(sum <= wall, "chain %d: phases %g s of %g s", k, sum, wall);
        ck_assert_int_eq(r.lu_threads, k == 0 ? 1 : 0);    /* which LU ran */
        phases_of(qs[k], PEPA_METHOD_GS, &r, &wall);
        ck_assert(p->pin[0] == 0.0 && p->analyse[0] == 0.0 && p->factor[0] == 0.0
                  && p->refine[0] == 0.0 && p->factor[1] == 0.0);
        pepa_ctmc_free(qs[k]);
    }
}
END_TEST
#endif

static Suite *lu_order_suite(void)
{
    Suite *s = suite_create("lu_order");
#ifdef HAVE_UMFPACK
    TCase *tc = tcase_create("auto");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lu_auto);
    tcase_add_test(tc, test_lu_auto_metis);
    tcase_add_test(tc, test_lu_auto_caps);
    tcase_add_test(tc, test_lu_auto_handover);
    tcase_add_test(tc, test_auto_probe);
    tcase_add_test(tc, test_direct_far_oneway);
    tcase_add_test(tc, test_auto_probe_oneway);
    tcase_add_test(tc, test_direct_phases);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("threads");
    tcase_set_timeout(tt, 120);
    tcase_add_test(tt, test_lu_sub_plan);
    tcase_add_test(tt, test_lu_two_threads_memory);
    tcase_add_test(tt, test_lu_two_threads_fallback);   /* before: under CK_FORK=no a */
    tcase_add_test(tt, test_lu_two_threads);            /* leaked variable fails this */
    tcase_add_test(tt, test_lu_chunked_assembly);
    tcase_add_test(tt, test_lu_two_way_help);
    tcase_add_test(tt, test_lu_par_dense_pivots);
    suite_add_tcase(s, tt);
#endif
    return s;
}

int main(void)
{
    return run_suite(lu_order_suite());
}
