/* lu_par: the multifrontal LU's large fronts on two threads (single
 * precision), for pepa/lu.c; not a public header (see lu.h's
 * pepa_lu_set_threads).
 *
 * Debian's OpenBLAS here is the serial build, which must not be called
 * from two threads at once: its blas_memory_alloc, which every level-3
 * call goes through, claims a work buffer outside its lock, and two
 * threads are handed the same buffer (docs/pepa.md, "Both cores"). Its
 * buffers are the library's own static data, one table per loaded copy.
 * So the helper thread calls a second copy of the same library, loaded
 * into a link-map namespace of its own (glibc's dlmopen): its own buffer
 * table and lock, the same kernels at the same speed (it reads the same
 * OPENBLAS_CORETYPE), nothing shared with the caller's copy. The copy
 * belongs to one pepa_lu (lu_par_open, lu_par_close). Only the helper is
 * isolated: the caller's thread uses the process's copy, so
 * pepa_lu_factor (on one thread or two) must not run while any other
 * thread of the process calls the BLAS, another LU included: the race
 * above would be back. Where the copy cannot be loaded (no dlmopen in the build, a BLAS
 * linked into the program or a -no-pie program's PLT entry, glibc's
 * namespaces all taken; a threaded OpenBLAS, Debian's pthread or openmp
 * alternative, whose calls run on every core already: only the serial
 * build was measured; under valgrind, which reports invalid reads inside
 * glibc's loader as it maps a second namespace: base/blaskern.h; or
 * SKELSCHED_LU_COPY=0 in the environment, the user's refusal, which the
 * tests use to reach this fallback outside valgrind) lu_par_open returns NULL
 * with the reason and the LU runs on one thread. The answer is then the
 * same bit for bit as on two, given the same OpenBLAS kernels (under
 * valgrind OpenBLAS picks other kernels, blaskern.c, so the answers differ
 * from a run outside it by rounding: up to 1.4e-17 in throughputs).
 * (Before, the helper ran BLIS, at half OpenBLAS's speed on this CPU.) */
#ifndef SKELSCHED_PEPA_LU_PAR_H
#define SKELSCHED_PEPA_LU_PAR_H

#include <stdatomic.h>

#include "../base/diag.h"

/* Fronts of fewer flops than this stay on one thread: a fork and a join
 * (two thread starts a front) cost 50-100 us, 5-10e6 flops at sgemm's speed. */
#define LU_PAR_MIN_FLOPS 4e7

/* What the helper thread did in one front: the chunks it did, the
 * fork-join steps where it was started, and those where it could not be
 * (the caller then did the step alone). */
typedef struct lu_par_tally {
    int helped, offered, unstarted;
} lu_par_tally;

/* The helper's private copy of the process's BLAS. */
typedef struct lu_par_blas lu_par_blas;

typedef void lu_par_gemm_fn(const char *, const char *, const int *, const int *, const int *,
                            const float *, const float *, const int *, const float *,
                            const int *, const float *, float *, const int *);
typedef void lu_par_trsm_fn(const char *, const char *, const char *, const char *, const int *,
                            const int *, const float *, const float *, const int *, float *,
                            const int *);
typedef void lu_par_getrf_fn(const int *, const int *, float *, const int *, int *, int *);
typedef void lu_par_laswp_fn(const int *, float *, const int *, const int *, const int *,
                             const int *, const int *);

/* The kernels one thread calls: the caller's are the process's BLAS
 * (lu_par_caller), the helper's its private copy's (lu_par_kernels). A
 * thread may call only its own. */
typedef struct lu_par_kern {
    lu_par_gemm_fn *gemm;
    lu_par_trsm_fn *trsm;
    lu_par_getrf_fn *getrf;
    lu_par_laswp_fn *laswp;
} lu_par_kern;

const lu_par_kern *lu_par_caller(void);
const lu_par_kern *lu_par_kernels(const lu_par_blas *b);

/* Why b cannot factorise whole subtrees (its sgetrf_/slaswp_ could not be
 * taken from the file of the process's: they would not be the caller's
 * code, nor its bits), so that it only takes chunks of large fronts; NULL
 * when it can. */
const char *lu_par_whole_why(const lu_par_blas *b);

/* Who works on a front: the thread running it, with its kernels self,
 * and a helper thread it starts, on the kernels other (NULL: none), once
 * *ready is non-zero (ready NULL: at once). With the tree cut (lu_sub.h)
 * each of the two threads sets the other's ready when it has finished its
 * own subtrees and made its last BLAS call, so the other's large fronts
 * take its help, on its kernels, from their next step on: the helper's
 * from the caller (the process's BLAS, the caller then waiting in
 * lu_par_pair's join), the caller's from the helper (the copy's). */
typedef struct lu_par_team {
    const lu_par_kern *other;
    const lu_par_kern *self;
    const atomic_int *ready;
} lu_par_team;

/* Load it (a few milliseconds: mapping, OpenBLAS's set-up); NULL, with
 * the reason in why, when it cannot be (the LU then runs on one thread). */
lu_par_blas *lu_par_open(diag *why);
void lu_par_close(lu_par_blas *b);

/* The dense partial factorisation of a front (lu_front.h's dense_step),
 * by team:
 * the nc x nc diagonal block of the panel (nr x nc, leading dimension nr)
 * factorised with row exchanges inside it (ipiv, 1-based), F12 (nc x nb,
 * leading dimension nc) and the panel's lower nb rows solved, F22 (nb x nb)
 * updated; on the calling thread and a helper thread on team->other's
 * kernels (NULL, or not ready: the caller alone, the same chunks), *t
 * what the helper did. Returns LAPACK's info
 * (> 0: a zero pivot). */
int lu_par_dense(const lu_par_team *team, int nc, int nb, int nr, float *panel, float *f12,
                 float *f22, int *ipiv, lu_par_tally *t);

/* Chunk k of some work that calls no BLAS (a large front's assembly). */
typedef void lu_par_task(void *arg, int k);

/* Chunks 0 .. n - 1 of task, which do not depend on each other, taken in
 * turn by the caller and a helper thread as lu_par_dense's steps are
 * (team->other NULL, or not ready: the caller alone); *t what the helper
 * did (zeroed first). */
void lu_par_chunks(const lu_par_team *team, lu_par_task *task, void *arg, int n,
                   lu_par_tally *t);

/* How lu_par_pair runs its two jobs: at once, or (for tests, so that one
 * thread's help to the other is certain to be offered) the one first to
 * its end, then the other, each still on its own thread. */
typedef enum lu_par_order {
    LU_PAR_TOGETHER,
    LU_PAR_CALLER_FIRST,
    LU_PAR_HELPER_FIRST
} lu_par_order;

/* Two independent jobs: helper(harg) on a new thread, calling only the
 * copy's kernels, and caller(carg) on this one, as order says. Returns 0,
 * or -1 when no thread could be started: helper(harg) then ran on this
 * thread after caller(carg) (the same answer: the copy's kernels are the
 * same code). */
int lu_par_pair(void (*helper)(void *), void *harg, void (*caller)(void *), void *carg,
                lu_par_order order);

#endif
