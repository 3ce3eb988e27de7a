/* test_solve: the CTMC container and the steady-state solvers, checked
 * against closed forms (two states, birth-death, cycles) and against each
 * other on random irreducible chains. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pepa/ctmc.h"
#include "pepa/lu.h"
#include "pepa/solve.h"
#include "chains.h"
#include "suite.h"

#ifdef HAVE_UMFPACK
#define DIRECT_OK 1
#else
#define DIRECT_OK 0
#endif

static const pepa_method all_methods[] = {PEPA_METHOD_DIRECT, PEPA_METHOD_GS, PEPA_METHOD_SOR,
                                          PEPA_METHOD_GMRES, PEPA_METHOD_AUTO};
#define N_METHODS (sizeof all_methods / sizeof all_methods[0])

/* Solve with method m at tolerance tol; fails the test on error. */
static void solve_ok(const pepa_ctmc *q, pepa_method m, double tol, double *pi,
                     pepa_solve_result *res)
{
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = m;
    o.tol = tol;
    if (m == PEPA_METHOD_SOR)
        o.omega = 1.1;
    diag e;
    diag_clear(&e);
    int rc = pepa_solve(q, &o, pi, res, &e);
    ck_assert_msg(rc == 0, "%s failed: %s", pepa_method_name(m), e.msg);
    ck_assert_int_eq(res->converged, 1);
    ck_assert(res->residual <= tol);
    ck_assert(res->method != PEPA_METHOD_AUTO);
    ck_assert(res->iterations >= 0);
    double s = 0.0;
    for (uint32_t i = 0; i < q->n; i++) {
        ck_assert_msg(pi[i] >= 0.0, "%s: pi[%u] = %g", pepa_method_name(m), i, pi[i]);
        s += pi[i];
    }
    ck_assert(fabs(s - 1.0) < 1e-12);
    /* the reported residual is the real one */
    ck_assert(fabs(pepa_ctmc_residual(q, pi) - res->residual) <= 1e-15 + 1e-6 * res->residual);
}

static int skip_method(pepa_method m)
{
    return m == PEPA_METHOD_DIRECT && !DIRECT_OK;
}

static double max_abs_diff(uint32_t n, const double *a, const double *b)
{
    double d = 0.0;
    for (uint32_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > d)
            d = fabs(a[i] - b[i]);
    return d;
}

/* ------------------------------------------------------------ chains */

static pepa_ctmc *two_state(double a, double b)
{
    uint32_t src[] = {0, 1}, dst[] = {1, 0};
    double rate[] = {a, b};
    return pepa_ctmc_from_triples(2, 2, src, dst, rate);
}

/* 0..n-1, up at lambda, down at mu */
static pepa_ctmc *birth_death(uint32_t n, double lambda, double mu)
{
    size_t m = 2 * (size_t)(n - 1);
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(src && dst && rate);
    size_t k = 0;
    for (uint32_t i = 0; i + 1 < n; i++) {
        src[k] = i, dst[k] = i + 1, rate[k++] = lambda;
        src[k] = i + 1, dst[k] = i, rate[k++] = mu;
    }
    return from_triples_free(n, m, src, dst, rate);
}

/* Irreducible: a random Hamiltonian cycle plus deg random edges per state,
 * rates log-uniform in [lo, hi]. */
static pepa_ctmc *random_chain(uint32_t n, int deg, double lo, double hi, uint64_t seed)
{
    uint64_t s = seed * 2654435761u + 1;
    size_t m = (size_t)n * (size_t)(deg + 1);
    uint32_t *perm = malloc(n * sizeof *perm);
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(perm && src && dst && rate);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rng_next(&s) % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        src[k] = perm[i];
        dst[k] = perm[(i + 1) % n];
        rate[k++] = lo * pow(hi / lo, rng_unit(&s));
        for (int d = 0; d < deg; d++) {
            src[k] = i;
            dst[k] = (uint32_t)(rng_next(&s) % n);
            rate[k++] = lo * pow(hi / lo, rng_unit(&s));
        }
    }
    free(perm);
    return from_triples_free(n, k, src, dst, rate);
}

/* ------------------------------------------------------------ ctmc */

START_TEST(test_triples)
{
    /* duplicates summed, self loops and zero rates dropped, rows sorted */
    uint32_t src[] = {2, 0, 1, 0, 1, 1, 2, 0};
    uint32_t dst[] = {0, 1, 0, 1, 1, 2, 0, 2};
    double rate[] = {1.0, 2.0, 3.0, 0.5, 7.0, 4.0, 0.25, 0.0};
    pepa_ctmc *q = pepa_ctmc_from_triples(3, 8, src, dst, rate);
    ck_assert(q);
    ck_assert_uint_eq(q->n, 3);
    ck_assert_uint_eq(q->nnz, 4);
    /* row 0 of Q^T: from 1 (3.0), from 2 (1.25) */
    ck_assert_uint_eq(q->rowp[1] - q->rowp[0], 2);
    ck_assert_uint_eq(q->col[0], 1);
    ck_assert(q->val[0] == 3.0);
    ck_assert_uint_eq(q->col[1], 2);
    ck_assert(q->val[1] == 1.25);
    /* row 1: from 0 (2.5) */
    ck_assert_uint_eq(q->rowp[2] - q->rowp[1], 1);
    ck_assert_uint_eq(q->col[2], 0);
    ck_assert(q->val[2] == 2.5);
    /* row 2: from 1 (4.0) */
    ck_assert_uint_eq(q->rowp[3], 4);
    ck_assert_uint_eq(q->col[3], 1);
    ck_assert(q->out[0] == 2.5);
    ck_assert(q->out[1] == 7.0);
    ck_assert(q->out[2] == 1.25);
    ck_assert(pepa_ctmc_bytes(q) > 4 * (sizeof(uint32_t) + sizeof(double)));
    /* residual of a hand-computed vector: pi Q for pi = (1, 0, 0) is
     * (-2.5, 2.5, 0) */
    double pi[3] = {1.0, 0.0, 0.0};
    ck_assert(fabs(pepa_ctmc_residual(q, pi) - 2.5) < 1e-15);
    pepa_ctmc_free(q);

    /* out of range, negative, NaN */
    uint32_t bad[] = {3};
    uint32_t zero[] = {0};
    double one[] = {1.0}, neg[] = {-1.0}, nan_[] = {NAN};
    ck_assert(pepa_ctmc_from_triples(3, 1, bad, zero, one) == NULL);
    ck_assert(pepa_ctmc_from_triples(3, 1, zero, bad, one) == NULL);
    ck_assert(pepa_ctmc_from_triples(3, 1, zero, zero, neg) == NULL);
    ck_assert(pepa_ctmc_from_triples(3, 1, zero, zero, nan_) == NULL);
    pepa_ctmc_free(NULL);
}
END_TEST

START_TEST(test_method_names)
{
    pepa_method m;
    for (unsigned i = 0; i < N_METHODS; i++) {
        const char *name = pepa_method_name(all_methods[i]);
        ck_assert_int_eq(pepa_method_parse(name, &m), 0);
        ck_assert_int_eq(m, all_methods[i]);
    }
    ck_assert_str_eq(pepa_method_name(PEPA_METHOD_GS), "gs");
    m = PEPA_METHOD_GS;
    ck_assert_int_eq(pepa_method_parse("jacobi", &m), -1);
    ck_assert_int_eq(pepa_method_parse("", &m), -1);
    ck_assert_int_eq(pepa_method_parse("GS", &m), -1);
    ck_assert_int_eq(pepa_method_parse(NULL, &m), -1);
    ck_assert_int_eq(m, PEPA_METHOD_GS);           /* untouched on failure */
    ck_assert_str_eq(pepa_method_name((pepa_method)99), "unknown");

    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    ck_assert_int_eq(o.method, PEPA_METHOD_AUTO);
    ck_assert(o.tol == PEPA_DEFAULT_TOL && PEPA_DEFAULT_TOL <= 1e-12);
    ck_assert(o.recurrent == NULL && o.error == NULL);
    ck_assert_int_eq(o.max_iter, 100000);
    ck_assert(o.omega == 1.0);
    ck_assert_int_eq(o.warm, 0);
}
END_TEST

/* ------------------------------------------------------------ closed forms */

START_TEST(test_two_state)
{
    pepa_ctmc *q = two_state(3.0, 0.5);      /* pi = (0.5, 3) / 3.5 */
    double pi[2];
    pepa_solve_result res;
    for (unsigned i = 0; i < N_METHODS; i++) {
        if (skip_method(all_methods[i]))
            continue;
        solve_ok(q, all_methods[i], 1e-13, pi, &res);
        ck_assert_msg(fabs(pi[0] - 0.5 / 3.5) < 1e-13, "%s: %.17g",
                      pepa_method_name(all_methods[i]), pi[0]);
        ck_assert(fabs(pi[1] - 3.0 / 3.5) < 1e-13);
    }
    pepa_ctmc_free(q);
}
END_TEST

START_TEST(test_one_state)
{
    pepa_ctmc *q = pepa_ctmc_from_triples(1, 0, NULL, NULL, NULL);
    ck_assert(q);
    double pi[1] = {0.0};
    pepa_solve_result res;
    for (unsigned i = 0; i < N_METHODS; i++) {
        if (skip_method(all_methods[i]))
            continue;
        solve_ok(q, all_methods[i], 1e-12, pi, &res);
        ck_assert(pi[0] == 1.0);
    }
    pepa_ctmc_free(q);
}
END_TEST

/* pi_k proportional to rho^k, rho = lambda / mu */
START_TEST(test_birth_death)
{
    const uint32_t n = 60;
    const double lambda = 2.0, mu = 3.0, rho = lambda / mu;
    pepa_ctmc *q = birth_death(n, lambda, mu);
    double exact[60], pi[60];
    double z = (1.0 - pow(rho, n)) / (1.0 - rho);
    for (uint32_t k = 0; k < n; k++)
        exact[k] = pow(rho, k) / z;
    pepa_solve_result res;
    for (unsigned i = 0; i < N_METHODS; i++) {
        if (skip_method(all_methods[i]))
            continue;
        solve_ok(q, all_methods[i], 1e-13, pi, &res);
        double d = max_abs_diff(n, pi, exact);
        ck_assert_msg(d < 1e-11, "%s: error %g", pepa_method_name(all_methods[i]), d);
    }
    pepa_ctmc_free(q);
}
END_TEST

/* One-way cycle 0 -> 1 -> ... -> 0 with rates r_i: pi_i proportional to 1/r_i. */
START_TEST(test_cycle)
{
    enum { N = 37 };
    uint32_t src[N], dst[N];
    double rate[N], exact[N], pi[N], z = 0.0;
    for (uint32_t i = 0; i < N; i++) {
        src[i] = i;
        dst[i] = (i + 1) % N;
        rate[i] = 0.5 + (double)((i * 7) % 11);
        z += 1.0 / rate[i];
    }
    for (uint32_t i = 0; i < N; i++)
        exact[i] = 1.0 / rate[i] / z;
    pepa_ctmc *q = pepa_ctmc_from_triples(N, N, src, dst, rate);
    ck_assert(q);
    pepa_solve_result res;
    for (unsigned i = 0; i < N_METHODS; i++) {
        if (skip_method(all_methods[i]) || all_methods[i] == PEPA_METHOD_SOR)
            continue;
        solve_ok(q, all_methods[i], 1e-13, pi, &res);
        double d = max_abs_diff(N, pi, exact);
        ck_assert_msg(d < 1e-12, "%s: error %g", pepa_method_name(all_methods[i]), d);
    }
    /* Over-relaxation cannot converge on a periodic chain (its iteration
     * matrix keeps eigenvalues on the unit circle): it must say so. */
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_SOR;
    o.omega = 1.5;
    o.max_iter = 2000;
    diag e;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert_int_eq(res.converged, 0);
    ck_assert_msg(strstr(e.msg, "SOR") != NULL, "message: %s", e.msg);
    pepa_ctmc_free(q);
}
END_TEST

/* A birth-death chain of n states whose up rates alternate (even, odd
 * i) and down rates follow i % 3 (zero, non-zero); w receives the exact
 * probabilities from detailed balance, normalised. */
static pepa_ctmc *alt_birth_death(uint32_t n, const double up[2], const double down[2], double *w)
{
    uint32_t *src = malloc(2 * n * sizeof *src), *dst = malloc(2 * n * sizeof *dst);
    double *rate = malloc(2 * n * sizeof *rate), z = 0.0;
    ck_assert(src && dst && rate);
    size_t m = 0;
    w[0] = 1.0;
    for (uint32_t i = 0; i + 1 < n; i++) {
        double u = up[i % 2], d = down[(i % 3) != 0];
        src[m] = i, dst[m] = i + 1, rate[m++] = u;
        src[m] = i + 1, dst[m] = i, rate[m++] = d;
        w[i + 1] = w[i] * u / d;
    }
    for (uint32_t i = 0; i < n; i++)
        z += w[i];
    for (uint32_t i = 0; i < n; i++)
        w[i] /= z;
    return from_triples_free(n, m, src, dst, rate);
}

/* A stiff birth-death chain: rates from 1e-2 to 1e4, probabilities over
 * six orders of magnitude; detailed balance gives the exact answer. It is
 * nearly completely decomposable, where Gauss-Seidel crawls (about 1e5
 * sweeps for 1e-6): the direct method and GMRES must get it right. */
START_TEST(test_stiff)
{
    enum { N = 40 };
    double w[N], pi[N], z = 1.0;
    pepa_ctmc *q = alt_birth_death(N, (const double[2]){1e-2, 1e4}, (const double[2]){1e3, 1.0}, w);
    pepa_solve_result res;
    for (unsigned i = 0; i < N_METHODS; i++) {
        if (skip_method(all_methods[i]) || all_methods[i] == PEPA_METHOD_SOR
            || all_methods[i] == PEPA_METHOD_GS)
            continue;
        solve_ok(q, all_methods[i], 1e-12, pi, &res);
        for (uint32_t k = 0; k < N; k++)
            ck_assert_msg(fabs(pi[k] - w[k] / z) <= 1e-9 * (w[k] / z) + 1e-14,
                          "%s: pi[%u] = %g, want %g", pepa_method_name(all_methods[i]), k,
                          pi[k], w[k] / z);
    }
    pepa_ctmc_free(q);
}
END_TEST

/* ------------------------------------------------------------ agreement */

START_TEST(test_random_agree)
{
    static const uint32_t sizes[] = {5, 50, 400, 3000};
    for (unsigned t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        uint32_t n = sizes[t];
        pepa_ctmc *q = random_chain(n, 4, 0.1, 10.0, 17 + t);
        double *ref = malloc(n * sizeof *ref), *pi = malloc(n * sizeof *pi);
        ck_assert(ref && pi);
        pepa_solve_result res;
        pepa_method refm = DIRECT_OK ? PEPA_METHOD_DIRECT : PEPA_METHOD_GMRES;
        solve_ok(q, refm, 1e-14, ref, &res);
        for (unsigned i = 0; i < N_METHODS; i++) {
            if (skip_method(all_methods[i]))
                continue;
            solve_ok(q, all_methods[i], 1e-13, pi, &res);
            double d = max_abs_diff(n, pi, ref);
            ck_assert_msg(d < 1e-9, "n=%u %s differs from %s by %g", n,
                          pepa_method_name(all_methods[i]), pepa_method_name(refm), d);
        }
        free(pi);
        free(ref);
        pepa_ctmc_free(q);
    }
}
END_TEST

/* Anderson acceleration must pay on a slowly mixing chain, and the plain
 * sweeps must still be right. Closed form: birth-death. */
START_TEST(test_acceleration)
{
    const uint32_t n = 300;
    const double lambda = 1.0, mu = 1.2, rho = lambda / mu;
    pepa_ctmc *q = birth_death(n, lambda, mu);
    double *exact = malloc(n * sizeof *exact), *pi = malloc(n * sizeof *pi);
    ck_assert(exact && pi);
    double z = (1.0 - pow(rho, n)) / (1.0 - rho);
    for (uint32_t k = 0; k < n; k++)
        exact[k] = pow(rho, k) / z;
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_GS;
    o.tol = 1e-13;      /* slow mixing: error ~ residual x relaxation time */
    pepa_solve_result fast, slow;
    diag e;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &fast, &e), 0);
    ck_assert(max_abs_diff(n, pi, exact) < 1e-9);
    o.plain = 1;
    ck_assert_int_eq(pepa_solve(q, &o, pi, &slow, &e), 0);
    ck_assert(max_abs_diff(n, pi, exact) < 1e-9);
    ck_assert_msg(2 * fast.iterations < slow.iterations, "accelerated %ld, plain %ld sweeps",
                  fast.iterations, slow.iterations);
    free(pi);
    free(exact);
    pepa_ctmc_free(q);
}
END_TEST

/* The threaded Gauss-Seidel: same answer, and the same bits every run. */
START_TEST(test_gs_threads)
{
    uint32_t n = 20000;
    pepa_ctmc *q = random_chain(n, 3, 0.5, 2.0, 99);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    ck_assert(a && b && c);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_GS;
    o.tol = 1e-13;
    pepa_solve_result r1, r2, r3;
    diag e;
    diag_clear(&e);
    o.threads = 1;
    ck_assert_int_eq(pepa_solve(q, &o, a, &r1, &e), 0);
    o.threads = 2;
    ck_assert_int_eq(pepa_solve(q, &o, b, &r2, &e), 0);
    ck_assert_int_eq(pepa_solve(q, &o, c, &r3, &e), 0);
    ck_assert(max_abs_diff(n, a, b) < 1e-11);
    ck_assert(memcmp(b, c, n * sizeof *b) == 0);
    ck_assert_int_eq(r2.iterations, r3.iterations);
    free(c);
    free(b);
    free(a);
    pepa_ctmc_free(q);
}
END_TEST

/* ------------------------------------------------------------ options */

/* Re-rate a chain slightly (as the mapping search does) and recompute the
 * exit rates. */
static void rerate(pepa_ctmc *q, uint64_t seed)
{
    uint64_t s = seed;
    for (uint32_t i = 0; i < q->n; i++)
        q->out[i] = 0.0;
    for (uint64_t k = 0; k < q->nnz; k++) {
        q->val[k] *= 1.0 + 0.02 * (rng_unit(&s) - 0.5);
        q->out[q->col[k]] += q->val[k];
    }
}

START_TEST(test_warm_start)
{
    uint32_t n = 2000;
    static const pepa_method ms[] = {PEPA_METHOD_GS, PEPA_METHOD_SOR, PEPA_METHOD_GMRES};
    for (unsigned i = 0; i < 3; i++) {
        pepa_ctmc *q = random_chain(n, 3, 0.1, 10.0, 5);
        double *pi = malloc(n * sizeof *pi), *pj = malloc(n * sizeof *pj);
        ck_assert(pi && pj);
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.method = ms[i];
        o.tol = 1e-11;
        pepa_solve_result cold, warm;
        diag e;
        diag_clear(&e);
        ck_assert_int_eq(pepa_solve(q, &o, pi, &cold, &e), 0);
        rerate(q, 77);
        ck_assert_int_eq(pepa_solve(q, &o, pj, &cold, &e), 0);
        o.warm = 1;
        ck_assert_int_eq(pepa_solve(q, &o, pi, &warm, &e), 0);
        ck_assert_msg(warm.iterations < cold.iterations, "%s: warm %ld, cold %ld",
                      pepa_method_name(ms[i]), warm.iterations, cold.iterations);
        ck_assert(max_abs_diff(n, pi, pj) < 1e-9);
        /* already converged: no iteration at all for Gauss-Seidel */
        if (ms[i] == PEPA_METHOD_GS) {
            ck_assert_int_eq(pepa_solve(q, &o, pi, &warm, &e), 0);
            ck_assert_int_eq(warm.iterations, 0);
        }
        free(pj);
        free(pi);
        pepa_ctmc_free(q);
    }
}
END_TEST

START_TEST(test_not_converged)
{
    uint32_t n = 3000;
    pepa_ctmc *q = random_chain(n, 4, 0.1, 10.0, 3);
    double *pi = malloc(n * sizeof *pi);
    ck_assert(pi);
    static const pepa_method ms[] = {PEPA_METHOD_GS, PEPA_METHOD_SOR, PEPA_METHOD_GMRES};
    for (unsigned i = 0; i < 3; i++) {
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.method = ms[i];
        o.max_iter = 1;
        pepa_solve_result res;
        diag e;
        diag_clear(&e);
        ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
        ck_assert_int_eq(res.converged, 0);
        ck_assert_int_eq(res.iterations, 1);
        ck_assert(isfinite(res.residual) && res.residual > o.tol);
        ck_assert(res.method == ms[i]);
        ck_assert(e.set);
        ck_assert_msg(strstr(e.msg, "converge") != NULL, "message: %s", e.msg);
        /* the residual reported is the one of the returned vector */
        ck_assert(fabs(pepa_ctmc_residual(q, pi) - res.residual) <= 1e-6 * res.residual);
    }
    /* a time limit too short for the job */
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_GS;
    o.tol = 1e-15;
    o.time_limit = 1e-9;
    pepa_solve_result res;
    diag e;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert_int_eq(res.converged, 0);
    ck_assert(strstr(e.msg, "time limit") != NULL);
    free(pi);
    pepa_ctmc_free(q);
}
END_TEST

START_TEST(test_absorbing)
{
    /* 0 -> 1 -> 2, 1 -> 0; state 2 absorbs */
    uint32_t src[] = {0, 1, 1}, dst[] = {1, 2, 0};
    double rate[] = {1.0, 1.0, 2.0};
    pepa_ctmc *q = pepa_ctmc_from_triples(3, 3, src, dst, rate);
    ck_assert(q);
    double pi[3];
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    pepa_solve_result res;
    diag e;
    static const pepa_method ms[] = {PEPA_METHOD_GS, PEPA_METHOD_SOR, PEPA_METHOD_GMRES};
    for (unsigned i = 0; i < 3; i++) {
        o.method = ms[i];
        diag_clear(&e);
        ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
        ck_assert_int_eq(res.converged, 0);
        ck_assert_msg(strstr(e.msg, "state 2") != NULL, "message: %s", e.msg);
    }
#ifdef HAVE_UMFPACK
    /* one closed class: the direct method finds pi = e_2 */
    o.method = PEPA_METHOD_DIRECT;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), 0);
    ck_assert(fabs(pi[2] - 1.0) < 1e-14);
#endif
    pepa_ctmc_free(q);
}
END_TEST

START_TEST(test_bad_input)
{
    pepa_ctmc *q = two_state(1.0, 2.0);
    double pi[2] = {0.5, -0.5};
    pepa_solve_opts o;
    pepa_solve_result res;
    diag e;

    pepa_solve_opts_init(&o);                  /* bad omega */
    o.method = PEPA_METHOD_SOR;
    o.omega = 2.5;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert(strstr(e.msg, "2.5") != NULL);

    pepa_solve_opts_init(&o);                  /* bad warm start */
    o.method = PEPA_METHOD_GS;
    o.warm = 1;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert(strstr(e.msg, "warm") != NULL);

    pepa_solve_opts_init(&o);                  /* bad tolerance, method */
    o.tol = -1.0;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    pepa_solve_opts_init(&o);
    o.method = (pepa_method)42;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert(e.set);

    /* NULL opts means defaults */
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, NULL, pi, &res, &e), 0);
    ck_assert(fabs(pi[0] - 2.0 / 3.0) < 1e-10);
    pepa_ctmc_free(q);

    /* a NaN rate makes the iteration report "not a finite number" */
    q = pepa_ctmc_new(2, 2);
    ck_assert(q);
    q->rowp[0] = 0, q->rowp[1] = 1, q->rowp[2] = 2;
    q->col[0] = 1, q->col[1] = 0;
    q->val[0] = NAN, q->val[1] = 1.0;
    q->out[0] = 1.0, q->out[1] = NAN;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_GS;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert_int_eq(res.converged, 0);
    pepa_ctmc_free(q);
}
END_TEST

/* AUTO: the LU on small and medium chains (issue 17: it ran
 * Gauss-Seidel on a 4-state chain), Gauss-Seidel beyond, GMRES where
 * Gauss-Seidel crawls. */
START_TEST(test_auto_choice)
{
    pepa_ctmc *q = random_chain(500, 4, 0.5, 2.0, 8);
    double pi[500];
    pepa_solve_result res;
    solve_ok(q, PEPA_METHOD_AUTO, 1e-12, pi, &res);
    pepa_method small = DIRECT_OK ? PEPA_METHOD_DIRECT : PEPA_METHOD_GS;
    ck_assert_int_eq(res.method, small);
    ck_assert_int_eq(pepa_solve_choose(q), small);
    pepa_ctmc_free(q);
    q = two_state(1.0, 3.0);
    solve_ok(q, PEPA_METHOD_AUTO, 1e-12, pi, &res);
    ck_assert_int_eq(res.method, small);
    pepa_ctmc_free(q);
    {   /* a ring beyond the LU's size: Gauss-Seidel */
        uint32_t big = PEPA_AUTO_DIRECT_STATES + 1;
        uint32_t *rs = malloc(big * sizeof *rs), *rd = malloc(big * sizeof *rd);
        double *rr = malloc(big * sizeof *rr);
        ck_assert(rs && rd && rr);
        for (uint32_t i = 0; i < big; i++)
            rs[i] = i, rd[i] = (i + 1) % big, rr[i] = 1.0;
        q = from_triples_free(big, big, rs, rd, rr);
        ck_assert_int_eq(pepa_solve_choose(q), PEPA_METHOD_GS);
        pepa_ctmc_free(q);
    }

    enum { N = 40 };
    double w[N], z = 1.0;
    q = alt_birth_death(N, (const double[2]){1e-2, 1e4}, (const double[2]){1e3, 1.0}, w);
    solve_ok(q, PEPA_METHOD_AUTO, 1e-10, pi, &res);
    ck_assert_int_eq(res.method, DIRECT_OK ? PEPA_METHOD_DIRECT : PEPA_METHOD_GMRES);
    for (uint32_t k = 0; k < N; k++)
        ck_assert(fabs(pi[k] - w[k] / z) <= 1e-8 * (w[k] / z) + 1e-13);
    pepa_ctmc_free(q);
    {   /* under a time limit, beyond PEPA_AUTO_TIMED_DIRECT_STATES: no LU,
         * which could not be stopped at the limit */
        q = birth_death(PEPA_AUTO_TIMED_DIRECT_STATES + 1, 1.0, 1.0);
        double *bp = malloc((PEPA_AUTO_TIMED_DIRECT_STATES + 1) * sizeof *bp);
        ck_assert(bp);
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.time_limit = 100.0;
        diag e;
        diag_clear(&e);
        ck_assert_msg(pepa_solve(q, &o, bp, &res, &e) == 0, "%s", e.msg);
        ck_assert_int_ne(res.method, PEPA_METHOD_DIRECT);
        ck_assert(fabs(bp[0] * (PEPA_AUTO_TIMED_DIRECT_STATES + 1) - 1.0) <= 1e-9);
        o.time_limit = 0.0;
        ck_assert_msg(pepa_solve(q, &o, bp, &res, &e) == 0, "%s", e.msg);
        ck_assert_int_eq(res.method, small);
        free(bp);
        pepa_ctmc_free(q);
    }
    /* A k x k grid walk mixes slowly: the LU solves it, where the
     * Gauss-Seidel sweeps and one GMRES iteration would not. */
    {
        enum { K = 40 };
        uint32_t gs_[4 * K * K], gd[4 * K * K];
        double gr[4 * K * K];
        size_t gm = 0;
        for (uint32_t i = 0; i < K; i++)
            for (uint32_t j = 0; j < K; j++) {
                uint32_t u = i * K + j;
                if (i + 1 < K)
                    gs_[gm] = u, gd[gm] = u + K, gr[gm++] = 1.0 + j % 3;
                if (i > 0)
                    gs_[gm] = u, gd[gm] = u - K, gr[gm++] = 1.5;
                if (j + 1 < K)
                    gs_[gm] = u, gd[gm] = u + 1, gr[gm++] = 2.0;
                if (j > 0)
                    gs_[gm] = u, gd[gm] = u - 1, gr[gm++] = 1.0 + i % 2;
            }
        q = pepa_ctmc_from_triples(K * K, gm, gs_, gd, gr);
        ck_assert(q);
        double *gp = malloc(K * K * sizeof *gp);
        ck_assert(gp);
        pepa_solve_opts og;
        pepa_solve_opts_init(&og);
        og.tol = 1e-13;
        og.max_iter = PEPA_AUTO_GS_SWEEPS + 1;
        diag eg;
        diag_clear(&eg);
        int rg = pepa_solve(q, &og, gp, &res, &eg);
        if (DIRECT_OK) {
            ck_assert_msg(rg == 0, "auto on the grid: %s", eg.msg);
            ck_assert_int_eq(res.method, PEPA_METHOD_DIRECT);
            ck_assert(res.residual <= og.tol);
        } else {
            ck_assert_int_eq(rg, -1);
            ck_assert_int_eq(res.converged, 0);
        }
        free(gp);
        pepa_ctmc_free(q);
    }
#ifdef HAVE_UMFPACK
    /* a factorisation over budget is refused, not attempted */
    q = random_chain(400, 4, 0.5, 2.0, 9);
    pepa_solve_opts oc;
    pepa_solve_opts_init(&oc);
    diag ec;
    diag_clear(&ec);
    ck_assert_int_eq(pepa_solve_direct_capped(q, &oc, 1e3, 1e3, pi, &res, &ec), 1);
    ck_assert_msg(strstr(ec.msg, "MB") != NULL, "message: %s", ec.msg);
    diag_clear(&ec);
    ck_assert_int_eq(pepa_solve_direct_capped(q, &oc, 1e9, 1e10, pi, &res, &ec), 0);
    ck_assert(res.converged);
    pepa_ctmc_free(q);
#else
    q = two_state(1.0, 1.0);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_DIRECT;
    diag e;
    diag_clear(&e);
    ck_assert_int_eq(pepa_solve(q, &o, pi, &res, &e), -1);
    ck_assert(strstr(e.msg, "UMFPACK") != NULL);
    pepa_ctmc_free(q);
#endif
}
END_TEST

/* Error estimates bound the real error, and are small: the stiff
 * birth-death chain (closed form) by every method. */
START_TEST(test_error_estimate)
{
    enum { N = 30 };
    double w[N], z = 1.0, pi[N], e[N];
    pepa_ctmc *q = alt_birth_death(N, (const double[2]){0.5, 3.0}, (const double[2]){2.0, 1.0}, w);
    for (size_t k = 0; k < N_METHODS; k++) {
        if (skip_method(all_methods[k]))
            continue;
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.method = all_methods[k];
        o.tol = 1e-6;                      /* loose: the estimate must say so */
        o.error = e;
        pepa_solve_result res;
        diag d;
        diag_clear(&d);
        ck_assert_msg(pepa_solve(q, &o, pi, &res, &d) == 0, "%s", d.msg);
        double worst = 0.0, big = 0.0;
        for (uint32_t i = 0; i < N; i++) {
            double real = fabs(pi[i] - w[i] / z);
            ck_assert_msg(real <= 4.0 * e[i] + 1e-16, "%s: state %u error %g, estimate %g",
                          pepa_method_name(all_methods[k]), i, real, e[i]);
            worst = fmax(worst, e[i]);
            big = fmax(big, pi[i]);
        }
        if (all_methods[k] == PEPA_METHOD_DIRECT)
            ck_assert_msg(worst <= 1e-13 * big, "direct: estimate %g", worst);
    }
    pepa_ctmc_free(q);
}
END_TEST

/* Transient states: the closed class alone is solved, by every method
 * (the absorbing state 3 stalled Gauss-Seidel; issue 17). 0 -> 1 -> {2
 * <-> 3}, then 3 alone absorbing. */
START_TEST(test_recurrent_only)
{
    uint32_t src[] = {0, 1, 2, 3, 0, 4}, dst[] = {1, 2, 3, 2, 4, 3};
    double rate[] = {1.0, 2.0, 3.0, 1.0, 0.5, 1.0};
    unsigned char closed[] = {0, 0, 1, 1, 0};
    pepa_ctmc *q = pepa_ctmc_from_triples(5, 6, src, dst, rate);
    ck_assert(q);
    /* 0 -> 1 -> {2 <-> 3} and 0 -> 4 -> 3, then without 3 -> 2 */
    for (int absorbing = 0; absorbing < 2; absorbing++) {
        for (size_t k = 0; k < N_METHODS; k++) {
            if (skip_method(all_methods[k]))
                continue;
            double pi[5], e[5];
            pepa_solve_opts o;
            pepa_solve_opts_init(&o);
            o.method = all_methods[k];
            o.recurrent = closed;
            o.error = e;
            pepa_solve_result res;
            diag d;
            diag_clear(&d);
            ck_assert_msg(pepa_solve(q, &o, pi, &res, &d) == 0, "%s: %s",
                          pepa_method_name(all_methods[k]), d.msg);
            ck_assert(pi[0] == 0.0 && pi[1] == 0.0 && pi[4] == 0.0 && e[0] == 0.0);
            ck_assert(fabs(pi[2] - (absorbing ? 0.0 : 0.25)) < 1e-12);
            ck_assert(fabs(pi[3] - (absorbing ? 1.0 : 0.75)) < 1e-12);
        }
        uint32_t s2[] = {0, 1, 2, 0, 4}, d2[] = {1, 2, 3, 4, 3};
        double r2[] = {1.0, 2.0, 3.0, 0.5, 1.0};
        pepa_ctmc_free(q);
        q = pepa_ctmc_from_triples(5, 5, s2, d2, r2);
        closed[2] = 0;
        ck_assert(q);
    }
    pepa_ctmc_free(q);
}
END_TEST

#ifdef HAVE_UMFPACK
/* ------------------------------------------------------------ multifrontal LU */

/* Factorise (A or A^T, AMD or METIS, in precision prec) and solve for a
 * known x: right to 1e-10 in double, to 1e-4 in single (these matrices
 * are well conditioned; the refinement to double is solve_direct's). */
static void lu_check(int64_t m, const int64_t *p, const int64_t *i, const double *a, int trans,
                     pepa_lu_order order, pepa_lu_prec prec)
{
    double *x = malloc((size_t)m * sizeof *x), *b = malloc((size_t)m * sizeof *b);
    double *y = malloc((size_t)m * sizeof *y), flops, bytes;
    ck_assert(x && b && y);
    for (int64_t k = 0; k < m; k++)
        x[k] = 1.0 + (double)(k % 7);
    spmv(m, p, i, a, trans, x, b);
    diag e;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(m, p, i, order, &flops, &bytes, &e);
    ck_assert_msg(lu != NULL, "%s", e.msg);
    ck_assert(flops >= 0.0 && bytes > 0.0);
    ck_assert_msg(pepa_lu_factor(lu, p, i, a, trans, prec, &e) == 0, "%s", e.msg);
    pepa_lu_solve(lu, b, y);
    double err = max_abs_diff((uint32_t)m, x, y);
    ck_assert_msg(err < (prec == PEPA_LU_SINGLE ? 1e-4 : 1e-10) && (prec == PEPA_LU_DOUBLE
                  || m < 17 || err > 1e-12), "m %ld trans %d order %d prec %d: error %g",
                  (long)m, trans, (int)order, (int)prec, err);
    pepa_lu_free(lu);
    free(y);
    free(b);
    free(x);
}

/* The LU module alone: random unsymmetric patterns of many sizes, A and
 * A^T, both orderings; a block that needs a row exchange; a singular
 * matrix refused. */
START_TEST(test_lu_module)
{
    static const int64_t sizes[] = {1, 2, 3, 17, 200, 1500};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int64_t *p, *i;
        double *a;
        random_sparse(sizes[k], 3, (uint64_t)k + 1, &p, &i, &a);
        for (int trans = 0; trans < 2; trans++) {
            lu_check(sizes[k], p, i, a, trans, PEPA_LU_AMD, PEPA_LU_DOUBLE);
            lu_check(sizes[k], p, i, a, trans, PEPA_LU_METIS, PEPA_LU_DOUBLE);
            lu_check(sizes[k], p, i, a, trans, PEPA_LU_METIS, PEPA_LU_SINGLE);
        }
        free(a);
        free(i);
        free(p);
    }
    int64_t p2[] = {0, 2, 4}, i2[] = {0, 1, 0, 1};
    double swap[] = {0.0, 1.0, 1.0, 0.0}, ones[] = {1.0, 1.0, 1.0, 1.0};
    lu_check(2, p2, i2, swap, 0, PEPA_LU_AMD, PEPA_LU_DOUBLE);   /* zero leading pivot: */
    lu_check(2, p2, i2, swap, 0, PEPA_LU_AMD, PEPA_LU_SINGLE);   /* exchanged */
    double flops, bytes;
    diag e;
    diag_clear(&e);
    pepa_lu *lu = pepa_lu_analyse(2, p2, i2, PEPA_LU_AMD, &flops, &bytes, &e);
    ck_assert(lu);
    ck_assert_int_eq(pepa_lu_factor(lu, p2, i2, ones, 0, PEPA_LU_DOUBLE, &e), -1);
    ck_assert_msg(strstr(e.msg, "singular") != NULL, "%s", e.msg);
    ck_assert_int_eq(pepa_lu_pivot_lost(lu), 1);        /* solve_direct then tries double */
    ck_assert_int_eq(pepa_lu_factor(lu, p2, i2, swap, 0, PEPA_LU_DOUBLE, &e), 0);
    ck_assert_int_eq(pepa_lu_pivot_lost(lu), 0);
    pepa_lu_free(lu);
}
END_TEST


/* A 2-D walk of L x L states: right and up, and back diagonally down-left
 * (an unsymmetric pattern), rates by position. */
static pepa_ctmc *diag_walk(uint32_t L)
{
    uint32_t n = L * L;
    size_t m = 3 * (size_t)n, k = 0;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(src && dst && rate);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t x = v % L, y = v / L;
        if (x + 1 < L)
            src[k] = v, dst[k] = v + 1, rate[k++] = 1.0 + 0.01 * (double)(y % 7);
        if (y + 1 < L)
            src[k] = v, dst[k] = v + L, rate[k++] = 1.5 + 0.02 * (double)(x % 5);
        if (x > 0 && y > 0)
            src[k] = v, dst[k] = v - L - 1, rate[k++] = 2.0;
    }
    return from_triples_free(n, k, src, dst, rate);
}

/* An L x L walk whose moves have the same rate both ways (so pi is
 * uniform), rates by position, and rate eps across the middle column:
 * two halves that barely communicate, whose reduced generator has a
 * condition number near 1 / eps. */
static pepa_ctmc *split_walk(uint32_t L, double eps)
{
    uint32_t n = L * L;
    size_t m = 4 * (size_t)n, k = 0;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(src && dst && rate);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t x = v % L, y = v / L;
        double r = x + 1 == L / 2 ? eps : 1.0 + 0.1 * (double)(y % 3);
        if (x + 1 < L) {
            src[k] = v, dst[k] = v + 1, rate[k++] = r;
            src[k] = v + 1, dst[k] = v, rate[k++] = r;
        }
        if (y + 1 < L) {
            src[k] = v, dst[k] = v + L, rate[k++] = 2.0 + 0.1 * (double)(x % 4);
            src[k] = v + L, dst[k] = v, rate[k++] = 2.0 + 0.1 * (double)(x % 4);
        }
    }
    return from_triples_free(n, k, src, dst, rate);
}

/* The multifrontal LU factorises in single precision and refines in
 * double: on a chain as well conditioned as eps = 0.1 that converges; at
 * eps = 1e-6 (a condition number past single precision's 1.7e7) the
 * refinement diverges and the LU factorises again in double. Either way
 * the answer is the uniform one to double precision, and the error
 * estimate bounds the real error. */
/* The answer does not depend on the unit of time: a chain whose rates are
 * all 1e40 times larger (or smaller) has the same distribution, and every
 * method must say so rather than refuse it because its residual, which
 * scales with the rates, stays above an absolute tolerance. */
START_TEST(test_rate_scale)
{
    static const double scale[] = {1e40, 1e-40};
    const uint32_t n = 300;
    pepa_ctmc *ref = random_chain(n, 3, 0.1, 10.0, 7);
    double *want = malloc(n * sizeof *want), *pi = malloc(n * sizeof *pi);
    ck_assert(want && pi);
    pepa_solve_result res;
    solve_ok(ref, PEPA_METHOD_DIRECT, 1e-12, want, &res);
    for (int c = 0; c < 2; c++) {
        pepa_ctmc *q = random_chain(n, 3, 0.1 * scale[c], 10.0 * scale[c], 7);
        for (unsigned i = 0; i < N_METHODS; i++) {
            /* iterative methods stop at the tolerance: with rates of 1e40 they
             * cannot reach 1e-12 and say so (test_not_converged) */
            if (skip_method(all_methods[i]) ||
                (scale[c] > 1 && all_methods[i] != PEPA_METHOD_DIRECT &&
                 all_methods[i] != PEPA_METHOD_AUTO))
                continue;
            pepa_solve_opts o;
            pepa_solve_opts_init(&o);
            o.method = all_methods[i];
            diag e;
            diag_clear(&e);
            int rc = pepa_solve(q, &o, pi, &res, &e);
            ck_assert_msg(rc == 0 && res.converged, "%s at scale %g: %s",
                          pepa_method_name(all_methods[i]), scale[c], e.msg);
            double d = max_abs_diff(n, pi, want);
            ck_assert_msg(d < 1e-9, "%s at scale %g: error %g", pepa_method_name(all_methods[i]),
                          scale[c], d);
        }
        pepa_ctmc_free(q);
    }
    pepa_ctmc_free(ref);
    free(pi);
    free(want);
}
END_TEST

START_TEST(test_direct_single_fallback)
{
    static const double eps[] = {0.1, 1e-6};
    for (int c = 0; c < 2; c++) {
        pepa_ctmc *q = split_walk(101, eps[c]);
        ck_assert(q->n >= 10000);
        double *pi = malloc(q->n * sizeof *pi), *e = malloc(q->n * sizeof *e), want = 1.0 / q->n;
        ck_assert(pi && e);
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.method = PEPA_METHOD_DIRECT;
        o.error = e;
        pepa_solve_result res;
        diag d;
        diag_clear(&d);
        ck_assert_msg(pepa_solve(q, &o, pi, &res, &d) == 0, "eps %g: %s", eps[c], d.msg);
        for (uint32_t i = 0; i < q->n; i++)
            ck_assert_msg(fabs(pi[i] - want) <= 4.0 * e[i] + 1e-16 && e[i] <= 1e-8 * want,
                          "eps %g state %u: %.17g, want %.17g (estimate %g)", eps[c], i, pi[i],
                          want, e[i]);
        free(e);
        free(pi);
        pepa_ctmc_free(q);
    }
}
END_TEST

/* Chains of 10,000 states and more under --method direct take the
 * multifrontal LU: its answer agrees with UMFPACK's (the reference) and
 * with Gauss-Seidel's to their error estimates, its residual is the real
 * one, and its error estimate bounds the difference. */
START_TEST(test_direct_large)
{
    pepa_ctmc *chains[2] = {grid3(22), diag_walk(105)};
    for (int c = 0; c < 2; c++) {
        pepa_ctmc *q = chains[c];
        ck_assert(q->n >= 10000);
        double *pi = malloc(q->n * sizeof *pi), *e = malloc(q->n * sizeof *e);
        double *pu = malloc(q->n * sizeof *pu), *eu = malloc(q->n * sizeof *eu);
        double *pg = malloc(q->n * sizeof *pg);
        ck_assert(pi && e && pu && eu && pg);
        pepa_solve_result res;
        solve_ok(q, PEPA_METHOD_DIRECT, 1e-12, pi, &res);
        ck_assert(res.method == PEPA_METHOD_DIRECT);
        pepa_solve_opts o;
        pepa_solve_opts_init(&o);
        o.method = PEPA_METHOD_DIRECT;
        o.error = e;
        diag d;
        diag_clear(&d);
        ck_assert_msg(pepa_solve(q, &o, pi, &res, &d) == 0, "%s", d.msg);
        o.error = eu;
        o.tol = PEPA_DEFAULT_TOL;
        ck_assert_msg(pepa_solve_direct_umfpack(q, &o, pu, &res, &d) == 0, "%s", d.msg);
        solve_ok(q, PEPA_METHOD_GS, 1e-14, pg, &res);
        for (uint32_t i = 0; i < q->n; i++)
            ck_assert_msg(fabs(pi[i] - pu[i]) <= 4.0 * (e[i] + eu[i]) + 1e-16,
                          "chain %d state %u: %.17g vs %.17g (estimates %g, %g)", c, i, pi[i],
                          pu[i], e[i], eu[i]);
        ck_assert_msg(max_abs_diff(q->n, pi, pg) < 1e-10, "chain %d: GS differs by %g", c,
                      max_abs_diff(q->n, pi, pg));
        free(pg);
        free(eu);
        free(pu);
        free(e);
        free(pi);
        pepa_ctmc_free(q);
    }
}
END_TEST
#endif

static Suite *solve_suite(void)
{
    Suite *s = suite_create("solve");
    TCase *tc = tcase_create("ctmc");
    tcase_add_test(tc, test_triples);
    tcase_add_test(tc, test_method_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("closed_form");
    tcase_add_test(tc, test_two_state);
    tcase_add_test(tc, test_one_state);
    tcase_add_test(tc, test_birth_death);
    tcase_add_test(tc, test_rate_scale);
    tcase_add_test(tc, test_cycle);
    tcase_add_test(tc, test_stiff);
    suite_add_tcase(s, tc);

    tc = tcase_create("agreement");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_agree);
    tcase_add_test(tc, test_acceleration);
    tcase_add_test(tc, test_gs_threads);
    suite_add_tcase(s, tc);

    tc = tcase_create("options");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_warm_start);
    tcase_add_test(tc, test_not_converged);
    tcase_add_test(tc, test_absorbing);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_auto_choice);
    tcase_add_test(tc, test_error_estimate);
    tcase_add_test(tc, test_recurrent_only);
    suite_add_tcase(s, tc);

#ifdef HAVE_UMFPACK
    tc = tcase_create("multifrontal");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lu_module);
    tcase_add_test(tc, test_direct_large);
    tcase_add_test(tc, test_direct_single_fallback);
    suite_add_tcase(s, tc);
#endif
    return s;
}

int main(void)
{
    return run_suite(solve_suite());
}
