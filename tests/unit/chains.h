/* Chains and sparse matrices shared by the unit suites of the solvers
 * (test_solve, test_lu_order): chaingen.h's chains (which bench_solve
 * builds too), asserted with Check. */
#ifndef SKELSCHED_CHAINS_H
#define SKELSCHED_CHAINS_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pepa/ctmc.h"
#include "tests/unit/chaingen.h"

/* A chain of chaingen.h, asserted to be built. */
static inline pepa_ctmc *chains_built(pepa_ctmc *q)
{
    ck_assert(q);
    return q;
}

/* The chain of k triples, which are freed. */
static inline pepa_ctmc *from_triples_free(uint32_t n, size_t k, uint32_t *src, uint32_t *dst,
                                           double *rate)
{
    return chains_built(chaingen_triples_free(n, k, src, dst, rate));
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

/* The walk on the d-dimensional hypercube (chaingen_cube). */
static inline pepa_ctmc *cube(unsigned d)
{
    return chains_built(chaingen_cube(d));
}

/* A grid walk of L^dims states (dims 1 to 3), a step up along dimension
 * d at rate 1.5 + d, down at 1 + d. */
static inline pepa_ctmc *grid(uint32_t L, int dims)
{
    return chains_built(chaingen_grid(L, dims, 1.5, 1.0, 1.0));
}

/* A 3-D grid walk of L^3 states. */
static inline pepa_ctmc *grid3(uint32_t L)
{
    return grid(L, 3);
}

/* c one-way cycles of L states each (chaingen_cycles). */
static inline pepa_ctmc *cycles(unsigned c, unsigned L)
{
    return chains_built(chaingen_cycles(c, L));
}

/* w workers of s one-way steps joined by a barrier (chaingen_barrier). */
static inline pepa_ctmc *barrier(unsigned w, unsigned s)
{
    return chains_built(chaingen_barrier(w, s));
}

#endif
