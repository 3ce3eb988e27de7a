/* A skeleton ready to place, for the unit suites: parsed, its task graph,
 * its PEPA model and a platform, each asserted to build. */
#ifndef SKELSCHED_TEST_PLACED_H
#define SKELSCHED_TEST_PLACED_H

#include <check.h>
#include <string.h>

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

#endif
