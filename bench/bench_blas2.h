/* bench_blas2: whether the BLAS's work-buffer allocator may be called
 * from two threads at once (bench_solve blas2; part of "all"). */
#ifndef SKELSCHED_BENCH_BLAS2_H
#define SKELSCHED_BENCH_BLAS2_H

/* Prints one row: allocations made by each of two threads, and the times
 * a buffer was handed to both at once. Returns that count, or -1 when the
 * BLAS loaded has no such allocator (not OpenBLAS) or a thread could not
 * be started. */
long blas2_table(void);

#endif
