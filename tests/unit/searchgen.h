/* searchgen: the search of a par that test_search_par and bench_scale's
 * table 4 (bench/bench_scale.c par_row) both run, written once and free
 * of Check, so that the suite checks the search the bench measures. */
#ifndef SKELSCHED_TESTS_SEARCHGEN_H
#define SKELSCHED_TESTS_SEARCHGEN_H

#include "skeleton/skeleton.h"

/* The state cap that refuses the purchase process's chain (10,434
 * states), so that the large-scale search answers. */
#define SEARCHGEN_REFUSED_STATES 5000

/* spec11-purchase.bpel's skeleton (`skelsched bpel`: a par of three
 * branches of 2, 3 and 2 tasks between two tasks, 10,434 states), with
 * rates of its own so that the placement matters. */
extern const char searchgen_purchase[];

/* The best placement of model m (task graph d) on p by the search with
 * the chain refused (SEARCHGEN_REFUSED_STATES) and budget (0: none); its
 * wall and CPU seconds into *secs and *cpu. Returns the result to free
 * (skel_search_result_free), or NULL with err set. */
skel_search_result *searchgen_refused(skel_model *m, const skel_dag *d, const skel_platform *p,
                                      double budget, double *secs, double *cpu, diag *err);

#endif
