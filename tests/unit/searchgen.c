/* searchgen: the search of a par with its chain refused (searchgen.h). */
#include "tests/unit/searchgen.h"

#include "base/clock.h"

const char searchgen_purchase[] =
    "pipe(3);\n"
    "  task(\"receive\", 2);\n"
    "  par(3);\n"
    "    pipe(2); task(\"ship1\", 1); task(\"ship2\", 3);\n"
    "    pipe(3); task(\"inv1\", 2); task(\"inv2\", 1); task(\"inv3\", 4);\n"
    "    pipe(2); task(\"sched1\", 3); task(\"sched2\", 1.5);\n"
    "  task(\"reply\", 2);\n";

skel_search_result *searchgen_refused(skel_model *m, const skel_dag *d, const skel_platform *p,
                                      double budget, double *secs, double *cpu, diag *err)
{
    skel_search_opts o = { 0 };
    o.top = 1;
    o.max_states = SEARCHGEN_REFUSED_STATES;
    o.budget = budget;
    double t0 = clock_now(), c0 = clock_cpu();
    skel_search_result *r = skel_search(m, d, p, &o, err);
    *secs = clock_now() - t0;
    *cpu = clock_cpu() - c0;
    return r;
}
