/* lu_par: the multifrontal LU's large fronts on two threads (single
 * precision), for pepa/lu.c; not a public header (see lu.h's
 * pepa_lu_set_threads).
 *
 * Debian's OpenBLAS here is the serial build, which must not be called
 * from two threads at once: its blas_memory_alloc, which every level-3
 * call goes through, claims a work buffer outside its lock, and two
 * threads are handed the same buffer (docs/pepa.md, "Both cores"). So the
 * caller keeps OpenBLAS and the helper thread runs BLIS's typed API, one
 * thread per call (a per-call rntm_t: no process-wide setting), on the
 * chunks of the columns it takes. Without BLIS (configure found none)
 * lu_par_available() is 0 and the LU runs on one thread. */
#ifndef SKELSCHED_PEPA_LU_PAR_H
#define SKELSCHED_PEPA_LU_PAR_H

/* Fronts of fewer flops than this stay on one thread: a fork and a join
 * (two thread starts a front) cost 50-100 us, 5-10e6 flops at sgemm's speed. */
#define LU_PAR_MIN_FLOPS 4e7

/* What the helper thread did in one front: the chunks it did, and the
 * fork-join steps where it could not be started (the caller then did the
 * step alone). */
typedef struct lu_par_tally {
    int helped, unstarted;
} lu_par_tally;

/* Non-zero when the two-thread fronts are built in. */
int lu_par_available(void);

/* The dense partial factorisation of a front (lu_front.h's dense_step):
 * the nc x nc diagonal block of the panel (nr x nc, leading dimension nr)
 * factorised with row exchanges inside it (ipiv, 1-based), F12 (nc x nb,
 * leading dimension nc) and the panel's lower nb rows solved, F22 (nb x nb)
 * updated; on two threads, *t what the helper did. Returns LAPACK's info
 * (> 0: a zero pivot). */
int lu_par_dense(int nc, int nb, int nr, float *panel, float *f12, float *f22, int *ipiv,
                 lu_par_tally *t);

#endif
