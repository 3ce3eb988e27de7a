/* bench_decide: what AUTO's decision costs, with pepa_solve_probe against
 * the decision as it was before it (bench_solve decide; part of "all"). */
#ifndef SKELSCHED_BENCH_DECIDE_H
#define SKELSCHED_BENCH_DECIDE_H

#include "pepa/ctmc.h"

/* A PEPA file's chain (the caller frees it), or NULL with a note printed
 * saying why. */
pepa_ctmc *bench_file_chain(const char *path);

/* One row per chain (NULL chains skipped), then one per PEPA file of
 * files (nfiles of them, derived here): AUTO as before the probe and
 * AUTO with it, alternated DECIDE_RUNS times in the same run, CPU and
 * wall seconds (medians) and their ratios, the decision and method of
 * each, the orderings of the whole chain computed, and the largest
 * difference between the two answers. */
void decide_table(pepa_ctmc *const *qs, const char *const *names, int nq, char *const *files,
                  int nfiles);

#endif
