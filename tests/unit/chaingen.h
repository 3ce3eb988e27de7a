/* chaingen: the chains the solver suites (tests/unit/chains.h, which
 * asserts on them) and bench_solve (bench/bench_decide.c, bench_solve.c)
 * both build, written once and free of Check. Each returns a chain the
 * caller frees, or NULL when out of memory or too large for 32-bit state
 * numbers. */
#ifndef SKELSCHED_TESTS_CHAINGEN_H
#define SKELSCHED_TESTS_CHAINGEN_H

#include <stddef.h>
#include <stdint.h>

#include "pepa/ctmc.h"

/* pepa_ctmc_from_triples on k triples, which are freed (any may be NULL,
 * as malloc leaves them: then the answer is NULL). */
pepa_ctmc *chaingen_triples_free(uint32_t n, size_t k, uint32_t *src, uint32_t *dst,
                                 double *rate);

/* The walk on the d-dimensional hypercube (2^d states: d independent
 * two-state components), coordinate b set at rate 1 + b / d, cleared at
 * 2: a product space of high dimension, whose LU fills in heavily. */
pepa_ctmc *chaingen_cube(unsigned d);

/* A grid walk of L^dims states (dims 1 to 3): along dimension d (d = 0 the
 * slowest digit of a state's number) a step up at rate up + per_dim d, a
 * step down at down + per_dim d. */
pepa_ctmc *chaingen_grid(uint32_t L, int dims, double up, double down, double per_dim);

/* What a component at its last step does (chaingen_digits). */
typedef enum chaingen_wrap {
    CHAINGEN_CYCLE,     /* goes back to step 0 on its own */
    CHAINGEN_BARRIER    /* waits for all the others at theirs: one joint move to 0 */
} chaingen_wrap;

/* w components of s one-way steps each (w < 32; s^w states, state v's
 * digit k in base s is component k's step), a step from d to d + 1 of
 * component k at rate base + per_k k + per_d d; from its last step a
 * component goes back to 0 as wrap says, the barrier's joint move at
 * rate 1. */
pepa_ctmc *chaingen_digits(unsigned w, unsigned s, chaingen_wrap wrap, double base,
                           double per_k, double per_d);

/* c one-way cycles of L states each, independent (medium-t.pepa's chain
 * for c = 8, L = 4): L^c states, pattern symmetry 0 for L > 2. */
pepa_ctmc *chaingen_cycles(unsigned c, unsigned L);

/* w workers of s one-way steps each, joined by one shared barrier action
 * (PEPA: W_k = (step, r).W_k' ... (sync, 1.0).W_k, cooperating on sync):
 * s^w states; the barrier takes every worker from its last step back to
 * 0. Pattern symmetry 0: a one-way chain, nearly triangular (UMFPACK
 * removes it as singletons), whose A + A^T fills in heavily. */
pepa_ctmc *chaingen_barrier(unsigned w, unsigned s);

#endif
