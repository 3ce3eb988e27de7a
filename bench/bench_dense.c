/* bench_dense: see bench_dense.h. The matrices are diagonally dominant
 * (the LU's pivots stay on the diagonal, as on the reduced generators)
 * and filled afresh before each run (sgetrf overwrites its input). */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include "bench/bench_dense.h"

#ifdef HAVE_UMFPACK             /* LAPACK is linked with it */

#include <stdlib.h>
#include <time.h>

#include "pepa/lu_blas.h"

static double dense_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs timed, the best kept: on a machine shared with other work a run
 * can lose a third of its rate to a neighbour on the same core. */
#define DENSE_RUNS 5

static void dense_fill(float *a, int n)
{
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        a[k] = (float)(rand() % 1000) / 1000.0f;
    for (int i = 0; i < n; i++)
        a[(size_t)i * (size_t)n + (size_t)i] += (float)n;
}

/* One timed call of kernel k on a (and b, c for the product). */
static double dense_once(dense_kernel k, int n, float *a, float *b, float *c, int *ipiv)
{
    dense_fill(a, n);
    dense_fill(b, n);
    float one = 1.0f, zero = 0.0f;
    int info = 0;
    double t0 = dense_cpu();
    if (k == DENSE_GETRF)
        sgetrf_(&n, &n, a, &n, ipiv, &info);
    else
        sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    return dense_cpu() - t0;
}

double dense_rate(dense_kernel k, int n)
{
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    double best = 0.0;
    for (int r = 0; r < DENSE_RUNS && a && b && c && ipiv; r++) {
        double t = dense_once(k, n, a, b, c, ipiv);
        best = r == 0 || t < best ? t : best;
    }
    double fl = (k == DENSE_GETRF ? 2.0 / 3.0 : 2.0) * (double)n * (double)n * (double)n;
    double rate = a && b && c && ipiv && best > 0.0 ? fl / best / 1e9 : 0.0;
    free(ipiv);
    free(c);
    free(b);
    free(a);
    return rate;
}

#endif /* HAVE_UMFPACK */
