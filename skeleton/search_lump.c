/* skeleton/search_lump.c: exact values on the lumped chain.
 *
 * The search derives one chain for every placement (the
 * placement-independent model): one component per task, so a farm of w
 * workers gives a chain exponential in w, and past MaxStates or the
 * deadline the large-scale search's answer is only estimated. For one
 * placement, though, the farm members on nodes of one class are
 * interchangeable and skel_model_new_lumped counts them (an array, exact
 * strong lumping: skeleton/lump.c), a chain polynomial in w. So the
 * placements the large-scale search found (or listed candidates) are each
 * valued exactly on their own lumped chain, when it fits the same limits
 * (max_states, the deadline). The answer then has exact throughputs, but
 * no proof that no other placement is better: method LUMPED, optimal only
 * among listed candidates. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pepa/solve.h"

#define LUMP_MAX_SHARED 4

/* A lumped chain's pieces, freed together. */
typedef struct lumped {
    skel_model *m;
    pepa_system *sys;
    pepa_space *sp;
    double *pi, *thr;
} lumped;

static void lumped_free(lumped *l)
{
    free(l->thr);
    free(l->pi);
    pepa_space_free(l->sp);
    pepa_system_free(l->sys);
    skel_model_free(l->m);
}

/* Derive and solve l's chain within s's limits: 0, 1 when it does not fit
 * or could not be solved in time, -1 on an error. */
static int lumped_solve(search *s, lumped *l)
{
    diag tmp;
    diag_clear(&tmp);
    if (!(l->sys = pepa_system_new(l->m->pepa, s->err)))
        return -1;
    pepa_derive_opts dopts = { 0 };
    dopts.max_states = s->o->max_states ? s->o->max_states : DEFAULT_MAX_STATES;
    dopts.threads = s->o->threads;
    dopts.deadline = s->deadline;
    if (!(l->sp = pepa_derive(l->sys, &dopts, &tmp)) || l->sp->deadlocks)
        return 1;
    if (!(l->pi = malloc((size_t)l->sp->n * sizeof *l->pi)) ||
        !(l->thr = calloc((size_t)l->sys->nactions, sizeof *l->thr)))
        return diag_set(s->err, "out of memory");
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.tol = 1e-12;
    if (s->deadline.at > 0) {
        /* a solve stops between sweeps: the last one started must end by
         * the deadline (a sweep costs about SWEEP_SECS a transition) */
        so.time_limit = clock_deadline_left(s->deadline) - SWEEP_SECS * (double)l->sp->q->nnz;
        if (so.time_limit <= 0)
            return 1;
    }
    pepa_solve_result res;
    if (pepa_solve(l->sp->q, &so, l->pi, &res, &tmp) < 0)
        return 1;
    return pepa_space_throughput(l->sp, l->pi, l->thr, s->err) < 0 ? -1 : 0;
}

/* Value placement pl on its lumped chain and rank it: 0, 1 when the chain
 * does not fit, -1 on an error. */
static int lumped_rank(search *s, const int *pl)
{
    lumped l = { 0 };
    diag tmp;
    diag_clear(&tmp);
    /* a model that cannot be built for this placement (too many joint
     * states of the tasks on one node under Sharing=ps) does not fit */
    if (!(l.m = skel_model_new_lumped(s->o->tree, s->d, s->p, pl, &tmp)))
        return strstr(tmp.msg, "out of memory") ? diag_set(s->err, "%s", tmp.msg) : 1;
    int rc = lumped_solve(s, &l);
    if (rc == 0)
        rc = skel_place_rates(s->m, s->p, pl, s->mu, s->lambda, s->err) < 0 ? -1 : 0;
    if (rc == 0) {
        /* a lumped array's action counts all its copies: each copy's X_i
         * is the array's over the copies sharing the action */
        for (int i = 0; i < s->nt; i++) {
            int copies = 0;
            for (int j = 0; j < s->nt; j++)
                copies += l.m->comp_action[j] == l.m->comp_action[i];
            s->xi[i] = l.thr[l.m->comp_action[i]] / copies;
        }
        if (l.sp->n > s->lumped_states)
            s->lumped_states = l.sp->n;
        rc = search_rank(s, pl, skel_model_throughput(l.m, l.thr), s->xi);
    }
    lumped_free(&l);
    return rc;
}

/* Copies of the ranked placements (the large-scale search's answers). */
static int *ranked_copy(const search *s, int *n)
{
    *n = s->nranked;
    int *pl = malloc((size_t)(*n ? *n : 1) * (size_t)s->nt * sizeof *pl);
    for (int k = 0; pl && k < *n; k++)
        memcpy(pl + (size_t)k * s->nt, s->ranked[k].placement, (size_t)s->nt * sizeof *pl);
    return pl;
}

/* Worth trying on placement pl: a farm to lump, time to compile the model
 * (search_compile_fits), and under Sharing=ps no node holding more than
 * LUMP_MAX_SHARED tasks (their joint local states are one component, whose
 * construction cannot be stopped; and copies sharing a node do not lump). */
static int lump_worth(search *s, const int *pl)
{
    if (!s->o->tree || s->ngroups == 0 || !search_compile_fits(s))
        return 0;
    if (!s->ps)
        return 1;
    int *count = calloc((size_t)s->nn, sizeof *count), ok = count != NULL;
    for (int i = 0; i < s->nt && ok; i++)
        ok = ++count[pl[i]] <= LUMP_MAX_SHARED;
    free(count);
    return ok;
}

int search_lumped_answer(search *s)
{
    if (s->nranked < 1 || !lump_worth(s, s->ranked[0].placement))
        return 0;
    int n, *pl = ranked_copy(s, &n);
    if (!pl)
        return diag_set(s->err, "out of memory");
    int saved = s->nranked;
    s->nranked = 0;
    /* the large-scale search's best first: without its exact value the
     * estimates stand (untouched: nothing was ranked), for a ranking must
     * not mix estimates and exact values */
    int rc = lumped_rank(s, pl);
    if (rc == 1) {
        s->nranked = saved;
        rc = 0;
    } else if (rc == 0) {
        s->lumped = 1;
        for (int k = 1; k < n && rc >= 0; k++)
            rc = lumped_rank(s, pl + (size_t)k * s->nt);   /* one that does not fit: left out */
    }
    free(pl);
    return rc < 0 ? -1 : 0;
}

int search_lumped_candidates(search *s)
{
    const skel_search_opts *o = s->o;
    for (int c = 0; c < o->ncandidates; c++) {
        int rc = lumped_rank(s, o->candidates + (size_t)c * s->nt);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            snprintf(s->why, sizeof s->why,
                     "the lumped chain of candidate %d does not fit (states or time)", c + 1);
            return 1;
        }
        s->evaluated++;
    }
    s->lumped = 1;
    return 0;
}
