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

#endif
