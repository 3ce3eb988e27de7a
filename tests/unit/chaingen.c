/* chaingen: chains for the solver suites and bench_solve (chaingen.h).
 * Each builds coordinate triples and hands them to
 * pepa_ctmc_from_triples; the triples' order and rates are those the
 * suites' and the bench's own copies had, so the chains are the same. */
#include "tests/unit/chaingen.h"

#include <stdlib.h>

pepa_ctmc *chaingen_triples_free(uint32_t n, size_t k, uint32_t *src, uint32_t *dst,
                                 double *rate)
{
    pepa_ctmc *q = src && dst && rate ? pepa_ctmc_from_triples(n, k, src, dst, rate) : NULL;
    free(rate);
    free(dst);
    free(src);
    return q;
}

/* Room for m triples. Returns 0, or -1 when out of memory (what was
 * allocated is left for chaingen_triples_free). */
static int triples_alloc(size_t m, uint32_t **src, uint32_t **dst, double **rate)
{
    *src = malloc(m * sizeof **src);
    *dst = malloc(m * sizeof **dst);
    *rate = malloc(m * sizeof **rate);
    return *src && *dst && *rate ? 0 : -1;
}

pepa_ctmc *chaingen_cube(unsigned d)
{
    if (d >= 32)
        return NULL;
    uint32_t n = 1u << d;
    size_t m = (size_t)d * n, k = 0;
    uint32_t *src, *dst;
    double *rate;
    if (triples_alloc(m, &src, &dst, &rate))
        return chaingen_triples_free(n, 0, src, dst, rate);
    for (uint32_t v = 0; v < n; v++)
        for (unsigned b = 0; b < d; b++) {
            src[k] = v;
            dst[k] = v ^ (1u << b);
            rate[k++] = v & (1u << b) ? 2.0 : 1.0 + (double)b / d;
        }
    return chaingen_triples_free(n, k, src, dst, rate);
}

/* n = base^count, or 0 when it does not fit in 32 bits; pw[k] = base^k
 * for k < count (pw may be NULL). */
static uint32_t powers(uint32_t base, unsigned count, uint32_t *pw)
{
    uint32_t n = 1;
    for (unsigned k = 0; k < count; k++) {
        if (pw)
            pw[k] = n;
        if (base == 0 || n > UINT32_MAX / base)
            return 0;
        n *= base;
    }
    return n;
}

pepa_ctmc *chaingen_grid(uint32_t L, int dims, double up, double down, double per_dim)
{
    if (dims < 1 || dims > 3 || powers(L, (unsigned)dims, NULL) == 0)
        return NULL;
    uint32_t n = 1, st[3];
    for (int d = dims - 1; d >= 0; d--)     /* d = 0 the slowest digit */
        st[d] = n, n *= L;
    size_t m = 2 * (size_t)dims * n, k = 0;
    uint32_t *src, *dst;
    double *rate;
    if (triples_alloc(m, &src, &dst, &rate))
        return chaingen_triples_free(n, 0, src, dst, rate);
    for (uint32_t v = 0; v < n; v++)
        for (int d = 0; d < dims; d++) {
            uint32_t c = v / st[d] % L;
            if (c + 1 < L)
                src[k] = v, dst[k] = v + st[d], rate[k++] = up + per_dim * d;
            if (c > 0)
                src[k] = v, dst[k] = v - st[d], rate[k++] = down + per_dim * d;
        }
    return chaingen_triples_free(n, k, src, dst, rate);
}

pepa_ctmc *chaingen_digits(unsigned w, unsigned s, chaingen_wrap wrap, double base,
                           double per_k, double per_d)
{
    uint32_t pw[32];
    uint32_t n = w < 32 ? powers(s, w, pw) : 0;
    if (n == 0)
        return NULL;
    size_t m = (size_t)w * n + 1, e = 0;
    uint32_t *src, *dst;
    double *rate;
    if (triples_alloc(m, &src, &dst, &rate))
        return chaingen_triples_free(n, 0, src, dst, rate);
    for (uint32_t v = 0; v < n; v++)
        for (unsigned k = 0; k < w; k++) {
            uint32_t d = v / pw[k] % s;
            if (d + 1 < s || wrap == CHAINGEN_CYCLE) {
                src[e] = v, dst[e] = d + 1 < s ? v + pw[k] : v - d * pw[k];
                rate[e++] = base + per_k * k + per_d * d;
            }
        }
    if (wrap == CHAINGEN_BARRIER)
        src[e] = n - 1, dst[e] = 0, rate[e++] = 1.0;
    return chaingen_triples_free(n, e, src, dst, rate);
}

pepa_ctmc *chaingen_cycles(unsigned c, unsigned L)
{
    return chaingen_digits(c, L, CHAINGEN_CYCLE, 6.0, 0.1, 0.0);
}

pepa_ctmc *chaingen_barrier(unsigned w, unsigned s)
{
    return chaingen_digits(w, s, CHAINGEN_BARRIER, 1.0, 0.1, 0.01);
}
