/* Helpers for the unit suites: where the shared corpus is, and a one-call
 * "parse, derive, solve" for models given as text or files. */
#ifndef SKELSCHED_TESTUTIL_H
#define SKELSCHED_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pepa/check.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "suite.h"

/* Path of a file in ../shared (or $SHARED_DIR), in a static buffer. */
static inline const char *shared_path(const char *rel)
{
    static char buf[4096];
    const char *dir = getenv("SHARED_DIR");
    snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : "../shared", rel);
    return buf;
}

/* A solved model: everything a test may want to look at. */
typedef struct solved {
    pepa_model *m;
    pepa_system *s;
    pepa_space *sp;
    double *pi, *thr;
    pepa_solve_result res;
    diag err;
} solved;

static inline void solved_free(solved *x)
{
    free(x->thr);
    free(x->pi);
    pepa_space_free(x->sp);
    pepa_system_free(x->s);
    pepa_model_free(x->m);
    memset(x, 0, sizeof *x);
}

/* Derive and solve an already parsed model (x->m set). Returns 0 or -1
 * with x->err set. */
static inline int solve_model(solved *x, pepa_method method)
{
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = method;
    o.tol = 1e-12;
    if (!x->m || !(x->s = pepa_system_new(x->m, &x->err)) || !(x->sp = pepa_derive(x->s, NULL, &x->err)))
        return -1;
    x->pi = malloc(x->sp->n * sizeof *x->pi);
    x->thr = malloc((size_t)x->s->nactions * sizeof *x->thr);
    if (pepa_solve(x->sp->q, &o, x->pi, &x->res, &x->err) < 0)
        return -1;
    return pepa_space_throughput(x->sp, x->pi, x->thr, &x->err);
}

static inline int solve_text(solved *x, const char *text, pepa_method method)
{
    memset(x, 0, sizeof *x);
    x->m = pepa_parse_string(text, strlen(text), "test.pepa", &x->err);
    return solve_model(x, method);
}

static inline int solve_path(solved *x, const char *path, pepa_method method)
{
    memset(x, 0, sizeof *x);
    x->m = pepa_parse_file(path, &x->err);
    return solve_model(x, method);
}

/* Throughput of the named action (NaN if unknown). */
static inline double thr_of(const solved *x, const char *action)
{
    int a = pepa_model_find_action(x->m, action);
    return a < 0 ? NAN : x->thr[a];
}

/* Relative closeness, for "to N significant digits" assertions. */
#define ck_assert_rel(got, want, rel)                                                      \
    do {                                                                                   \
        double g_ = (got), w_ = (want);                                                    \
        ck_assert_msg(fabs(g_ - w_) <= (rel) * fabs(w_), "%s = %.15g, expected %.15g",     \
                      #got, g_, w_);                                                       \
    } while (0)

#endif
