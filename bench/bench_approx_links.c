/* bench_approx part (d): links with buffers and phases against the
 * placement's own chain (link components included). */
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "bench/bench_approx.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"

#define NLINK 4   /* part (d)'s kinds: part (a)'s four */

/* The job's throughput of m (a placed model) from its own chain, solved
 * as `skelsched solve` does; its states into *states. 1 when the chain has
 * more than MAX_STATES states. */
static int exact_placed(const skel_model *m, double *x, unsigned long *states, diag *err)
{
    pepa_system *sys = pepa_system_new(m->pepa, err);
    pepa_derive_opts d = { 0 };
    d.max_states = MAX_STATES;
    diag derr = { 0 };
    pepa_space *sp = sys ? pepa_derive(sys, &d, &derr) : NULL;
    double *pi = sp ? calloc(sp->n, sizeof *pi) : NULL;
    double *thr = sp ? calloc((size_t)sys->nactions + 1, sizeof *thr) : NULL;
    int rc = !sys ? -1 : !sp ? 1 : -1;
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    pepa_solve_result res;
    if (pi && thr && pepa_solve(sp->q, &o, pi, &res, err) == 0 &&
        pepa_space_throughput(sp, pi, thr, err) == 0) {
        *x = skel_model_throughput(m, thr);
        *states = sp->n;
        rc = 0;
    }
    free(thr);
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(sys);
    return rc;
}

/* Exact and approximate throughput of t on p at pl, the links' kinds those
 * of the placement: 0, 1 when the chain is too large (counted in too_big),
 * -1 on an error. */
int ba_compare_links(const skel_tree *t, skel_style style, const skel_platform *p,
                     const int *pl, ba_sample *sm, const ba_opts *o, const char *label,
                     diag *err)
{
    skel_dag *d = skel_dag_build(t, style, err);
    skel_model *m = d ? skel_model_new_placed(t, d, p, pl, err) : NULL;
    skel_approx *a = NULL;
    unsigned long states = 0;
    double x = 0, t0 = clock_now();
    int rc = m ? exact_placed(m, &x, &states, err) : d ? 1 : -1;   /* no model: too large */
    sm->too_big += rc == 1;
    if (rc != 0)
        goto done;
    double t1 = clock_now();
    skel_approx_opts ao = { 0 };
    ao.scv = m->scv;
    ao.link_scv = m->link_scv;
    ao.buffer = m->buffer;
    diag aerr = { 0 };
    skel_approx_result ar;
    if (!(a = skel_approx_new(d, &ao, &aerr)) ||
        skel_approx_place(a, m, p, pl, &ar, &aerr) < 0) {
        ba_refuse(sm, label, t, aerr.msg);
        goto done;
    }
    ba_record(sm, label, t, states, x, &ar, t1 - t0, clock_now() - t1);
    ba_methods_err(sm, o, d, ao, m, p, pl, NULL, NULL, x, &ar);
done:
    skel_approx_free(a);
    skel_model_free(m);
    skel_dag_free(d);
    return rc;
}

/* Part (d): ncases random cases of part (a)'s kinds, their platforms'
 * moves buffered and phased, against the placement's own chain. */
int ba_link_suite(int ncases)
{
    static const char *const name[NLINK] = { "l-pipe", "l-farm", "l-deal", "l-nested" };
    ba_sample *sm = calloc(NLINK + 1, sizeof *sm), *all = sm + NLINK;   /* per kind, all */
    ba_opts o = { 0 };
    uint64_t s = 20261126;   /* part (d)'s seed */
    diag err = { 0 };
    int rc = sm ? 0 : diag_set(&err, "out of memory");
    for (int k = 0; k < ncases && rc == 0; k++)
        rc = ba_random_case(k % NLINK, &s, &sm[k % NLINK], &o, 1, &err);
    if (rc == 0) {
        printf("\nbench_approx: links with buffers (0-4 items) and phases (SCV 0.25-4), "
               "approximation vs the placement's own chain\n");
        ba_header();
        for (int c = 0; c < NLINK; c++) {
            ba_row(name[c], &sm[c], &o);
            ba_pool(all, &sm[c]);
        }
        ba_row("links", all, &o);
    } else
        fprintf(stderr, "bench_approx: %s\n", err.msg);
    free(sm);
    return rc < 0 ? 1 : 0;
}
