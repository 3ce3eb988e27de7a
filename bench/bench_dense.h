/* bench_dense: the dense kernels' rate on one thread, the ceiling of the
 * multifrontal LU's numerical phase (bench_solve bound). */
#ifndef SKELSCHED_BENCH_DENSE_H
#define SKELSCHED_BENCH_DENSE_H

/* Which kernel dense_rate times, in single precision as the LU
 * factorises: the LU of an n x n matrix (a root front, which has no
 * update block), or the product of two (a front's update). */
typedef enum dense_kernel {
    DENSE_GETRF,
    DENSE_GEMM
} dense_kernel;

/* GFlop/s of the calling thread's CPU time, the best of five runs at
 * order n (2/3 n^3 flops for the LU, 2 n^3 for the product); 0 when out
 * of memory. */
double dense_rate(dense_kernel k, int n);

#endif
