/* A skeleton ready to place, for the unit suites: parsed, its task graph,
 * its PEPA model and a platform, each asserted to build. */
#ifndef SKELSCHED_TEST_PLACED_H
#define SKELSCHED_TEST_PLACED_H

#include <check.h>
#include <string.h>

#include <stdlib.h>

#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"
#include "skeleton/skeleton.h"

typedef struct placed {
    skel_tree *tree;
    skel_dag *dag;
    skel_model *model;
    skel_platform *plat;
} placed;

/* Build x from skeleton and platform texts; the suite fails on an error. */
static inline void placed_build(placed *x, const char *skel, skel_style style, const char *plat)
{
    diag err;
    diag_clear(&err);
    x->tree = skel_parse_string(skel, strlen(skel), "test.skel", &err);
    ck_assert_msg(x->tree, "%s", err.msg);
    x->dag = skel_dag_build(x->tree, style, &err);
    ck_assert_msg(x->dag, "%s", err.msg);
    x->model = skel_model_new(x->tree, x->dag, &err);
    ck_assert_msg(x->model, "%s", err.msg);
    x->plat = skel_platform_parse_string(plat, strlen(plat), "test.conf", NULL, NULL, &err);
    ck_assert_msg(x->plat, "%s", err.msg);
}

/* Free what placed_build made, in reverse order. */
static inline void placed_free(placed *x)
{
    skel_platform_free(x->plat);
    skel_model_free(x->model);
    skel_dag_free(x->dag);
    skel_tree_free(x->tree);
}

/* The throughput of every action of model m (an array to free), solved
 * directly or, iterative, to a residual of 1e-13 (thousands of states: the
 * direct method's fill-in makes a brute force over placements slow); its
 * number of states into *states. */
static inline double *placed_solve_all(pepa_model *m, int direct, unsigned *states)
{
    diag err;
    diag_clear(&err);
    pepa_system *sys = pepa_system_new(m, &err);
    ck_assert_msg(sys, "%s", err.msg);
    pepa_derive_opts d = { 0 };
    pepa_space *sp = pepa_derive(sys, &d, &err);
    ck_assert_msg(sp, "%s", err.msg);
    double *pi = calloc(sp->n, sizeof *pi), *thr = calloc((size_t)sys->nactions, sizeof *thr);
    ck_assert(pi && thr);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    if (direct)
        o.method = PEPA_METHOD_DIRECT;
    else
        o.tol = 1e-13;
    pepa_solve_result res;
    ck_assert_msg(pepa_solve(sp->q, &o, pi, &res, &err) == 0, "%s", err.msg);
    ck_assert_msg(pepa_space_throughput(sp, pi, thr, &err) == 0, "%s", err.msg);
    if (states)
        *states = sp->n;
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(sys);
    return thr;
}

/* Throughput of action `act` in model m (solved directly), and its number
 * of states. */
static inline double placed_solve_thr(pepa_model *m, const char *act, unsigned *states)
{
    double *thr = placed_solve_all(m, 1, states);
    int a = pepa_model_find_action(m, act);
    ck_assert_int_ge(a, 0);
    double x = thr[a];
    free(thr);
    return x;
}

/* The job's throughput (skel_model_throughput) of placement where on b's
 * platform: the placement's own generated model, solved iteratively. */
static inline double placed_job_thr(const placed *b, const int *where)
{
    diag err;
    diag_clear(&err);
    skel_model *m = skel_model_new_placed(b->tree, b->dag, b->plat, where, &err);
    ck_assert_msg(m, "%s", err.msg);
    double *thr = placed_solve_all(m->pepa, 0, NULL);
    double x = skel_model_throughput(m, thr);
    free(thr);
    skel_model_free(m);
    return x;
}

#endif
