/* What the files of pepa/ share and nothing outside pepa/ includes: the
 * hash index of the states (index.h) and the enumerator of one state's
 * transitions (enum.h). Code outside pepa/ reads a chain through space.h
 * (pepa_space_find, pepa_space_entry, pepa_space_walk); and the solvers'
 * answer for the chains of none or one state. */
#ifndef SKELSCHED_PEPA_INTERNAL_H
#define SKELSCHED_PEPA_INTERNAL_H

#include "enum.h"
#include "index.h"
#include "solve.h"

/* The chains every solver answers alike: none (-1, "the chain has no
 * states") and one state (pi = 1, exact: returns 1). 0 for any other. */
int pepa_solve_trivial(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                       pepa_solve_result *res, diag *err);

/* UMFPACK's matrix (solve_direct.c's M: Q^T's rows read as columns, -out
 * on the diagonal) over a subset of q's states, in compressed columns:
 * order[a] (a < m) is the subset's state a, place[i] state i's index in
 * it (m or more: not in it). Column a holds the entries of row order[a]
 * of Q^T within the subset, renumbered, and the diagonal, rows sorted;
 * p has m + 1 entries, i and x room for the subset's entries and m more.
 * With b, b[a] is minus the rates into order[a] from outside the subset:
 * the right-hand side when those states are pinned at probability 1
 * (the direct solver's one pinned state). Built with UMFPACK only. */
void pepa_solve_umf_matrix(const pepa_ctmc *q, uint32_t m, const uint32_t *order,
                           const uint32_t *place, int64_t *p, int64_t *i, double *x, double *b);

#endif
