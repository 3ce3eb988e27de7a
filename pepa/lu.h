/* pepa_lu: the sparse LU of a reduced CTMC generator, multifrontal.
 *
 * Internal to pepa/ (solve_direct.c uses it). The matrix A is a chain's
 * balance equations with one state pinned: a nonsingular M-matrix (off
 * diagonal <= 0 after a sign change, columns weakly diagonally dominant),
 * whose Gaussian elimination needs no pivoting for stability and whose
 * pattern is nearly symmetric (a move and its reverse). So the factors
 * take the pattern of the Cholesky factor of A + A^T: SuiteSparse CHOLMOD
 * orders it (METIS or AMD) and finds its supernodes, and the numerical
 * work is dense LAPACK/BLAS on one frontal matrix per supernode
 * (partial pivoting inside each supernode's diagonal block).
 *
 * Why not UMFPACK: it finds its pivots as it goes, which costs assembly,
 * memory management and zeroing that on these chains takes most of its
 * time (a 30^3 grid walk: dense kernels 8% of 1.7 s); bench_solve direct
 * shows the numbers. */
#ifndef SKELSCHED_PEPA_LU_H
#define SKELSCHED_PEPA_LU_H

#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"

typedef struct pepa_lu pepa_lu;

typedef enum pepa_lu_order {
    PEPA_LU_AMD,        /* cheap to compute */
    PEPA_LU_METIS,      /* nested dissection: less fill on large product spaces */
    PEPA_LU_AUTO        /* AMD, or METIS where it may pay (below) */
} pepa_lu_order;

/* PEPA_LU_AUTO's cost of an ordering: the factorisation's predicted
 * flops, plus for METIS its own time in flops, PEPA_LU_METIS_FLOPS_PER_NZ
 * per entry of A (METIS took 0.7 to 1.8 us an entry more than AMD on the
 * chains of bench_solve direct, and a microsecond of the factorisation is
 * 40,000 to 80,000 flops there; METIS saved half to three quarters of AMD's flops there,
 * so it pays above about twice that). So METIS runs only where AMD's
 * flops exceed its cost (it could not pay below), the ordering with fewer
 * flops is kept, and on chains whose columns hold more than
 * PEPA_LU_AMD_DEGREE entries on average AMD is not tried: the products of
 * many components whose AMD flops were 2.4 to 3.9 times METIS's (closed
 * networks of 5 to 9 stations, 11 to 13 entries a column). */
#define PEPA_LU_METIS_FLOPS_PER_NZ 1e5
#define PEPA_LU_AMD_DEGREE 10.0

/* The symbolic analysis of the m x m matrix A given in compressed columns
 * (Ap: m + 1 pointers, Ai row indices; no values needed). On success
 * *flops and *bytes predict the numerical factorisation's work and peak
 * memory. Returns NULL with a message on failure. */
pepa_lu *pepa_lu_analyse(int64_t m, const int64_t *Ap, const int64_t *Ai, pepa_lu_order order,
                         double *flops, double *bytes, diag *err);

/* The precision of the factors. Single precision halves their memory
 * and runs the dense kernels twice as fast (OpenBLAS sgemm against
 * dgemm); its solutions are right to about cond(A) * 6e-8 only, so a
 * caller refines them in double (solve_direct.c) and factorises again
 * in double where that does not converge. */
typedef enum pepa_lu_prec {
    PEPA_LU_DOUBLE,
    PEPA_LU_SINGLE
} pepa_lu_prec;

/* Factorise A (same pattern as analysed, values Ax), or A^T when trans
 * is non-zero (the pattern of A + A^T is the same), in precision prec
 * (replacing any factors held). Returns 0, or -1 with a message (out of
 * memory; a zero pivot: the matrix is singular, or in single precision
 * may only look so). */
int pepa_lu_factor(pepa_lu *lu, const int64_t *Ap, const int64_t *Ai, const double *Ax,
                   int trans, pepa_lu_prec prec, diag *err);

/* Solve with the matrix factorised: x = A^-1 b (or A^-T b), in the
 * factors' precision, b and x in double. m entries each; x and b may not
 * overlap. */
void pepa_lu_solve(const pepa_lu *lu, const double *b, double *x);

/* The ordering the analysis used (PEPA_LU_AMD or PEPA_LU_METIS). */
pepa_lu_order pepa_lu_ordering(const pepa_lu *lu);

/* The threads pepa_lu_factor's single-precision factorisation may use: 1
 * (the default) or 2: independent subtrees of the elimination tree
 * factorised at once by the caller and one helper thread, then the fronts
 * of 4e7 flops or more at the top split between the two (lu_sub.h,
 * lu_par.h), each thread on its own copy of OpenBLAS; more than 2 counts
 * as 2. On two threads the stacks are arrays of their own, not the
 * factors' tail: 1.3-1.7 times one thread's single-precision array on
 * bench_solve's closed networks (docs/pepa.md), 0.64 of pepa_lu_analyse's
 * *bytes on the 30^3 walk; the tree is cut only where that stays within
 * *bytes (pepa_lu_set_memory). The helper's
 * copy is loaded by pepa_lu_factor before its first factorisation where a
 * front has 4e7 flops or more (a few milliseconds; never on one thread);
 * where no front is that large the factorisation runs on one thread,
 * subtrees and all, even where lu_sub's plan found a cut (no such chain
 * has been measured). The copy is held until pepa_lu_free; where it cannot be, the LU runs on one thread
 * and pepa_lu_par_unavailable says why. One thread and two give the same
 * answer bit for bit with the same OpenBLAS kernels, and two the same from
 * run to run. pepa_lu_factor must not run while another thread of the
 * process calls the BLAS (lu_par.h). */
void pepa_lu_set_threads(pepa_lu *lu, int threads);

/* Why two threads were asked for and the last pepa_lu_factor ran on one:
 * the helper's copy of the BLAS could not be loaded (lu_par.h), or the
 * factorisation cut into subtrees failed (out of memory, or an internal
 * error) and was done again without the cut; NULL when none of these. */
const char *pepa_lu_par_unavailable(const pepa_lu *lu);

/* The bytes pepa_lu_factor may take (the default: pepa_lu_analyse's
 * *bytes, which the caller checks against its caps). Two threads cut
 * the tree into subtrees (pepa_lu_set_threads) only where their stacks,
 * arrays of their own, keep the factorisation within it; otherwise the
 * subtrees run on one thread and pepa_lu_par_unavailable says why. */
void pepa_lu_set_memory(pepa_lu *lu, double bytes);

/* 1 when the last pepa_lu_factor failed on a zero pivot (in single
 * precision the matrix may only look singular: try double), 0 when it
 * succeeded or failed otherwise (out of memory, internal error). */
int pepa_lu_pivot_lost(const pepa_lu *lu);

/* How many fronts of the last pepa_lu_factor the helper thread did part
 * of (a chunk of its assembly or of its dense step), or all of: every
 * front of its subtrees where the tree was cut (a front sent to two
 * threads whose helper took no chunk, or could not be started, is not
 * counted). */
int64_t pepa_lu_split_fronts(const pepa_lu *lu);

/* How many fronts of the last pepa_lu_factor were assembled by chunks of
 * their columns (zeroed, the matrix's entries and the children's blocks
 * added), which a helper thread shares on two threads: the large fronts
 * (4e7 flops or more, lu_par.h) in single precision, as many on one
 * thread as on two. */
int64_t pepa_lu_chunked_fronts(const pepa_lu *lu);

/* How many fronts of the last pepa_lu_factor ran on the caller alone
 * because a helper thread could not be started (pthread_create failed;
 * with the tree cut, every front of the helper's subtrees):
 * non-zero means two threads were asked for and one was used. */
int64_t pepa_lu_unstarted_fronts(const pepa_lu *lu);

/* Where the last pepa_lu_factor on two threads spent its time when it
 * cut the elimination tree into subtrees (lu_sub.h): part[0] and part[1]
 * the CPU seconds of the caller's and the helper's subtrees (run at
 * once), part[2] the calling thread's CPU seconds in the top part after
 * them (its large fronts chunked with the helper). max(part[0], part[1])
 * + part[2] is a CPU-time model of the factorisation on two idle cores, a
 * low one: it leaves out the caller's serial work outside these parts
 * (transpose, allocation; on a fresh pepa_lu the plan and the copy's
 * loading) and its waits in the joins.
 * Returns 1, or 0 (parts 0) when the tree was not cut. */
int pepa_lu_part_seconds(const pepa_lu *lu, double part[3]);

/* What PEPA_LU_AUTO learnt of the ordering it did not keep, so that a
 * caller who finds the kept one over its limits need not analyse the
 * other again (where AUTO tries both on bench_solve's chains it keeps
 * METIS, so what is held is AMD's analysis, ~0.08 s; METIS's, 0.15-0.26 s,
 * is held only where AMD is kept after METIS was tried):
 * returns 1 when AUTO analysed it too, its analysis then in *other (the
 * caller frees it) and its predictions in *flops and *bytes, or, when
 * that analysis failed, *other NULL and *flops, *bytes NAN; 0 when it
 * did not (or lu's analysis was not AUTO's). Either way lu holds it no more (pepa_lu_free frees it when
 * not taken). */
int pepa_lu_take_other(pepa_lu *lu, pepa_lu **other, double *flops, double *bytes);

void pepa_lu_free(pepa_lu *lu);

#endif
