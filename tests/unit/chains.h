/* Chains and sparse matrices shared by the unit suites of the solvers
 * (test_solve, test_lu_order). */
#ifndef SKELSCHED_CHAINS_H
#define SKELSCHED_CHAINS_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pepa/ctmc.h"

/* The chain of k triples, which are freed. */
static inline pepa_ctmc *from_triples_free(uint32_t n, size_t k, uint32_t *src, uint32_t *dst,
                                    double *rate)
{
    pepa_ctmc *q = pepa_ctmc_from_triples(n, k, src, dst, rate);
    free(rate);
    free(dst);
    free(src);
    ck_assert(q);
    return q;
}

static inline uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

/* A random sparse m x m matrix by columns: deg entries per column at
 * random rows (an unsymmetric pattern), of either sign, and a diagonal
 * that dominates its column. */
static inline void random_sparse(int64_t m, int deg, uint64_t seed, int64_t **pp, int64_t **pi,
                          double **px)
{
    uint64_t s = seed * 2654435761u + 7;
    int64_t *p = malloc((size_t)(m + 1) * sizeof *p);
    int64_t *ri = malloc((size_t)m * (size_t)(deg + 1) * sizeof *ri);
    double *x = malloc((size_t)m * (size_t)(deg + 1) * sizeof *x);
    ck_assert(p && ri && x);
    int64_t k = 0;
    for (int64_t j = 0; j < m; j++) {
        p[j] = k;
        double sum = 0.0;
        int64_t dk = k++;
        ri[dk] = j;
        for (int d = 0; d < deg && m > 1; d++) {
            int64_t i = (int64_t)(rng_next(&s) % (uint64_t)m);
            int dup = i == j;
            for (int64_t q = p[j]; q < k; q++)
                dup |= ri[q] == i;
            if (dup)
                continue;
            ri[k] = i;
            x[k] = rng_unit(&s) - 0.7;
            sum += fabs(x[k++]);
        }
        x[dk] = 1.0 + sum;
    }
    p[m] = k;
    *pp = p;
    *pi = ri;
    *px = x;
}

/* y = A x, or A^T x (A by columns). */
static inline void spmv(int64_t m, const int64_t *p, const int64_t *i, const double *a, int trans,
                 const double *x, double *y)
{
    for (int64_t r = 0; r < m; r++)
        y[r] = 0.0;
    for (int64_t j = 0; j < m; j++)
        for (int64_t k = p[j]; k < p[j + 1]; k++) {
            if (trans)
                y[j] += a[k] * x[i[k]];
            else
                y[i[k]] += a[k] * x[j];
        }
}

/* The walk on the d-dimensional hypercube (2^d states: d independent
 * two-state components), a coordinate set at rate 1 + d' / d, cleared
 * at 2: a product space of high dimension, whose LU fills in heavily. */
static inline pepa_ctmc *cube(unsigned d)
{
    uint32_t n = 1u << d;
    size_t m = (size_t)d * n, k = 0;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(src && dst && rate);
    for (uint32_t v = 0; v < n; v++)
        for (unsigned b = 0; b < d; b++) {
            src[k] = v;
            dst[k] = v ^ (1u << b);
            rate[k++] = v & (1u << b) ? 2.0 : 1.0 + (double)b / d;
        }
    return from_triples_free(n, k, src, dst, rate);
}

/* A grid walk of L^dims states (dims 1 to 3), rates by direction. */
static inline pepa_ctmc *grid(uint32_t L, int dims)
{
    uint32_t n = 1, st[3];
    for (int d = dims - 1; d >= 0; d--)
        st[d] = n, n *= L;
    size_t m = 2 * (size_t)dims * n, k = 0;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(src && dst && rate);
    for (uint32_t v = 0; v < n; v++)
        for (int d = 0; d < dims; d++) {
            uint32_t c = v / st[d] % L;
            if (c + 1 < L)
                src[k] = v, dst[k] = v + st[d], rate[k++] = 1.5 + d;
            if (c > 0)
                src[k] = v, dst[k] = v - st[d], rate[k++] = 1.0 + d;
        }
    return from_triples_free(n, k, src, dst, rate);
}

/* A 3-D grid walk of L^3 states. */
static inline pepa_ctmc *grid3(uint32_t L)
{
    return grid(L, 3);
}

/* c one-way cycles of L states each, independent (medium-t.pepa's
 * chain for c = 8, L = 4): L^c states, pattern symmetry 0 for L > 2. */
static inline pepa_ctmc *cycles(unsigned c, unsigned L)
{
    uint32_t n = 1, pw[32];
    for (unsigned k = 0; k < c; k++)
        pw[k] = n, n *= L;
    size_t m = (size_t)c * n, e = 0;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(c < 32 && src && dst && rate);
    for (uint32_t v = 0; v < n; v++)
        for (unsigned k = 0; k < c; k++) {
            uint32_t d = v / pw[k] % L;
            src[e] = v, dst[e] = d + 1 < L ? v + pw[k] : v - d * pw[k];
            rate[e++] = 6.0 + 0.1 * k;
        }
    return from_triples_free(n, e, src, dst, rate);
}

/* w workers of s one-way steps each, joined by one shared barrier action
 * (PEPA: W_k = (step, r).W_k' ... (sync, 1.0).W_k, cooperating on sync):
 * s^w states, state v's digit k in base s is worker k's step; the barrier
 * takes every worker from its last step back to 0. Pattern symmetry 0:
 * a one-way chain, nearly triangular (UMFPACK removes it as singletons),
 * whose A + A^T fills in heavily. */
static inline pepa_ctmc *barrier(unsigned w, unsigned s)
{
    uint32_t n = 1, pw[32];
    for (unsigned k = 0; k < w; k++)
        pw[k] = n, n *= s;
    size_t m = (size_t)w * n + 1, c = 0;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *rate = malloc(m * sizeof *rate);
    ck_assert(w < 32 && src && dst && rate);
    for (uint32_t v = 0; v < n; v++)
        for (unsigned k = 0; k < w; k++) {
            uint32_t d = v / pw[k] % s;
            if (d + 1 < s)
                src[c] = v, dst[c] = v + pw[k], rate[c++] = 1.0 + 0.1 * k + 0.01 * d;
        }
    src[c] = n - 1, dst[c] = 0, rate[c++] = 1.0;
    return from_triples_free(n, c, src, dst, rate);
}

#endif
