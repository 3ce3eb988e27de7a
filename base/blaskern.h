/* blaskern: make a program run on the BLAS kernels its CPU can run.
 *
 * Debian 12's OpenBLAS (0.3.21, built DYNAMIC_ARCH) picks its kernels from
 * the CPU's family and model as it loads. A CPU newer than that release
 * (e.g. Intel family 6 model 207, the machines this project is built and
 * measured on) is not in its table, and it falls back to its oldest x86-64
 * kernels, "Prescott" (SSE3): the multifrontal LU's sgemm (pepa/lu.c) then
 * runs at about 25 GFlop/s where the AVX-512 kernels run at 80 (bench_solve
 * direct; docs/pepa.md, "Solving"). OpenBLAS reads OPENBLAS_CORETYPE to
 * choose its kernels, but only as it loads, before main() runs: so a
 * program that finds itself on the fallback kernels of a CPU that has AVX2
 * or AVX-512 runs itself again, once, with OPENBLAS_CORETYPE set.
 *
 * For a program's main() only, before it does anything else: library code
 * (the Slurm plugin inside slurmctld) must never exec; an administrator
 * sets OPENBLAS_CORETYPE in slurmctld's environment instead (docs/admin.md).
 */
#ifndef SKELSCHED_BLASKERN_H
#define SKELSCHED_BLASKERN_H

#include <stddef.h>

/* Runs argv again through /proc/self/exe with OPENBLAS_CORETYPE set when
 * the loaded OpenBLAS fell back to "Prescott" on a CPU with AVX2 and FMA
 * ("Haswell") or AVX-512 ("SkylakeX"). Returns, changing nothing, when
 * OPENBLAS_CORETYPE is already set (by the user, or by the run before this
 * one), when SKELSCHED_BLAS_REEXEC=0, when the BLAS is not OpenBLAS, under
 * valgrind (which follows no exec unless asked, and has no AVX-512), or
 * when the exec fails (the program then runs on the slower kernels). */
void blaskern_reexec(char **argv);

/* Non-zero when the process runs under valgrind (RUNNING_ON_VALGRIND
 * where configure found <valgrind/valgrind.h>, else its preloaded core in
 * LD_PRELOAD): no re-exec then, and no second copy of the BLAS
 * (pepa/lu_par.h). */
int blaskern_under_valgrind(void);

/* "OpenBLAS 0.3.21, SkylakeX kernels" or "not OpenBLAS" into buf (n bytes),
 * for --version and the benches' headers; returns buf. */
const char *blaskern_describe(char *buf, size_t n);

#endif
