/* The approximation of a placed skeleton and its simulation (the real
 * simulator, sim/, on the placement's own model), for the unit suites that
 * check the approximation where no exact chain fits (test_approx,
 * test_approx_est). */
#ifndef SKELSCHED_TEST_APPROX_SIM_H
#define SKELSCHED_TEST_APPROX_SIM_H

#include "placed.h"
#include "sim/sim.h"

/* Benoit et al. 2004's semantics (static sharing, exponential work) on
 * three nodes ... */
#define NODES \
    "LocalLatency=0.01 DefaultLatency=0.2 Input=a Output=c\n" \
    "NodeName=a Speed=1\nNodeName=b Speed=3\nNodeName=c Speed=5\n" \
    "Link=a,b Latency=0.05\nLink=b,c Latency=0.5\n"
static const char plat_static[] = "Sharing=static\n" NODES;

/* The simulated job throughput (items task 0 computes per second, 10 x
 * events, seed 1) of skel on platform pf at placement pl, and its 95%
 * half-width. */
static inline double simulated_on(const char *skel, const int *pl, const char *pf, long events,
                                  double *half)
{
    placed x;
    placed_build(&x, skel, SKEL_STYLE_PRODUCER, pf);
    diag err;
    diag_clear(&err);
    /* the placement's model: gen.c's, with pf's link buffers and phases */
    skel_model *m = skel_model_new_placed(x.tree, x.dag, x.plat, pl, &err);
    ck_assert_msg(m, "%s", err.msg);
    pepa_system *sys = pepa_system_new(m->pepa, &err);
    ck_assert_msg(sys, "%s", err.msg);
    sim_opts o;
    sim_opts_init(&o);
    o.events = (uint64_t)events;
    o.warmup_events = (uint64_t)events / 10;
    o.threads = 1;
    o.local = 0;
    sim_result r;
    ck_assert_msg(sim_run(sys, &o, &r, &err) == 0, "%s", err.msg);
    sim_stat st = r.thr[m->comp_action[0]];
    *half = st.half;
    sim_result_free(&r);
    pepa_system_free(sys);
    skel_model_free(m);
    placed_free(&x);
    return st.mean;
}

/* skel_approx_new then skel_approx_place on platform pf: 0 or -1 (err). */
static inline int approx_on(const char *skel, const int *pl, const char *pf,
                            skel_approx_result *ar, diag *err)
{
    placed z;
    placed_build(&z, skel, SKEL_STYLE_PRODUCER, pf);
    diag_clear(err);
    skel_approx *a = skel_approx_new(z.dag, NULL, err);
    int rc = a ? skel_approx_place(a, z.model, z.plat, pl, ar, err) : -1;
    skel_approx_free(a);
    placed_free(&z);
    return rc;
}

/* The same on plat_static. */
static inline double simulated(const char *skel, const int *pl, long events, double *half)
{
    return simulated_on(skel, pl, plat_static, events, half);
}

/* The approximation of skel on plat_static at pl (answered, or the test fails). */
static inline skel_approx_result approximated(const char *skel, const int *pl)
{
    diag err;
    skel_approx_result ar;
    ck_assert_msg(approx_on(skel, pl, plat_static, &ar, &err) == 0, "%s", err.msg);
    return ar;
}

#endif
