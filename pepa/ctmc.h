/* pepa_ctmc: the generator matrix Q of a finite continuous-time Markov chain,
 * stored the way steady-state and transient solvers read it.
 *
 * Solvers need, for each state j, the transitions INTO j (to compute
 * (pi Q)_j), so Q is kept transposed in compressed-row form: row j of Q^T
 * lists the states i with Q(i,j) > 0:
 *
 *     for k in [rowp[j], rowp[j+1]):  Q(col[k], j) = val[k]
 *
 * The diagonal is kept apart as the exit rate out[j] = -Q(j,j) = sum of
 * Q(j,i) over i != j. Self-loops are not stored (they do not change the
 * chain). Entries of a row are sorted by col, without duplicates.
 *
 * Ownership: a pepa_ctmc owns its four arrays; pepa_ctmc_free frees them. */
#ifndef SKELSCHED_PEPA_CTMC_H
#define SKELSCHED_PEPA_CTMC_H

#include <stddef.h>
#include <stdint.h>

typedef struct pepa_ctmc {
    uint32_t n;        /* number of states */
    uint64_t nnz;      /* number of off-diagonal non-zeros */
    uint64_t *rowp;    /* n + 1 row starts into col/val */
    uint32_t *col;     /* nnz: source state of each entry */
    double *val;       /* nnz: rate of each entry, > 0 */
    double *out;       /* n: exit rate of each state, >= 0 */
} pepa_ctmc;

/* Allocate a chain of n states and nnz entries (rowp zeroed, the rest
 * uninitialised). Returns NULL when out of memory. */
pepa_ctmc *pepa_ctmc_new(uint32_t n, uint64_t nnz);

/* Build a chain from coordinate triples Q(src[k], dst[k]) = rate[k],
 * k < m. Duplicates are summed; self-loops and zero rates are dropped.
 * Meant for tests and importers, not for the state-space derivation.
 * O(n + m) time (two counting sorts), O(n + m) extra memory.
 * Returns NULL when out of memory, or when a state index is >= n or a
 * rate is negative or not finite. */
pepa_ctmc *pepa_ctmc_from_triples(uint32_t n, size_t m, const uint32_t *src,
                                  const uint32_t *dst, const double *rate);

/* The chain restricted to the states with keep[j] != 0, renumbered in
 * order; map (q->n entries) receives each state's new number, UINT32_MAX
 * for the dropped ones. Entries between kept states are kept, exit rates
 * are copied: meant for a closed set of states (no transition leaves it),
 * where the result is the chain of that set. NULL when out of memory. */
pepa_ctmc *pepa_ctmc_sub(const pepa_ctmc *q, const unsigned char *keep, uint32_t *map);

/* Free q and everything it owns. q may be NULL. */
void pepa_ctmc_free(pepa_ctmc *q);

/* Residual of a probability vector: the infinity norm of pi Q (pi is
 * taken as given, not normalised). NaN if any term is NaN. */
double pepa_ctmc_residual(const pepa_ctmc *q, const double *pi);

/* The largest exit rate of q (0 for a chain without transitions): the
 * scale of its residuals. */
double pepa_ctmc_max_exit(const pepa_ctmc *q);

/* Bytes held by q's arrays. */
size_t pepa_ctmc_bytes(const pepa_ctmc *q);

#endif
