/* skeleton/search_plan.c: the rate plan (every transition of the chain as
 * coefficient x one rate parameter) and the exact evaluation of a complete
 * placement: re-rate, solve warm, rank. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"
#include "../base/clock.h"
#include "../pepa/solve.h"

/* ---- the rate plan ---------------------------------------------------------- */

#define PLAN_MAX_TRANSITIONS ((size_t)16000000)   /* 384 MB of plan at most */

/* Set the model's rates to the parameter vector r (nt mu, then ne lambda)
 * and re-rate the chain the reference way. */
static int reference_rate(search *s, const double *r)
{
    if (skel_model_set_rates(s->m, r, r + s->nt, s->err) < 0 ||
        pepa_system_rerate(s->sys, s->err) < 0 || pepa_space_rate(s->sp, s->err) < 0)
        return -1;
    return 0;
}

/* Tasks of task i's node computing in state k (i among them). */
static int busy_on_node(const search *s, uint32_t k, int i)
{
    int n = 0, j = s->place[i];
    for (uint64_t b = s->busy_first[k]; b < s->busy_first[k + 1]; b++)
        n += s->place[s->busy_task[b]] == j;
    return n > 0 ? n : 1;
}

/* The parameter of plan transition t. A phase of task i's work (work_i,
 * Erlang) is stored as -1 - i: rated by mu_i like comp_i, but no item
 * completes (throughputs count plan.param >= 0 only). */
static int param_of(const search *s, size_t t)
{
    return s->plan.param[t] >= 0 ? s->plan.param[t] : -1 - s->plan.param[t];
}

/* The rate of plan transition t at parameters r; shared: under Sharing=ps,
 * for the placement s->place. */
static double plan_rate(const search *s, size_t t, const double *r, int shared)
{
    int prm = param_of(s, t);
    double v = s->plan.coef[t] * r[prm];
    if (shared && prm < s->nt)
        v /= busy_on_node(s, s->plan.src[t], prm);
    return v;
}

static void plan_apply(search *s, const double *r, int shared)
{
    pepa_ctmc *q = s->sp->q;
    memset(q->val, 0, q->nnz * sizeof *q->val);
    memset(q->out, 0, (size_t)q->n * sizeof *q->out);
    for (size_t t = 0; t < s->plan.n; t++) {
        if (s->plan.entry[t] == PEPA_NO_ENTRY)
            continue;                        /* a self-loop */
        double v = plan_rate(s, t, r, shared);
        q->val[s->plan.entry[t]] += v;
        q->out[s->plan.src[t]] += v;
    }
}

/* Which tasks compute in each state: task i computes when its component's
 * local state offers comp_i (passively: the processor gives the rate). */
static int busy_tables(const search *s, int **of_leaf)
{
    const pepa_system *sys = s->sys;
    int *task_of = malloc((size_t)sys->nactions * sizeof *task_of);
    if (!task_of)
        return -1;
    for (int a = 0; a < sys->nactions; a++)
        task_of[a] = -1;
    for (int i = 0; i < s->nt; i++)
        task_of[s->comp[i]] = i;
    for (int l = 0; l < sys->nleaves; l++) {
        const pepa_node *nd = &sys->nodes[sys->leaves[l]];
        of_leaf[l] = NULL;
        if (nd->kind != PEPA_N_LEAF)
            continue;
        const pepa_seq *q = &sys->seqs[nd->seq];
        if (!(of_leaf[l] = malloc((size_t)q->nstates * sizeof **of_leaf))) {
            free(task_of);
            return -1;
        }
        for (int ls = 0; ls < q->nstates; ls++) {
            of_leaf[l][ls] = -1;
            for (int k = q->first[ls]; k < q->first[ls + 1]; k++)
                if (q->moves[k].passive && task_of[q->moves[k].action] >= 0)
                    of_leaf[l][ls] = task_of[q->moves[k].action];
        }
    }
    free(task_of);
    return 0;
}

static int busy_fill(search *s, int *const *of_leaf)
{
    const pepa_system *sys = s->sys;
    size_t cap = 0, n = 0;
    if (!(s->busy_first = malloc(((size_t)s->sp->n + 1) * sizeof *s->busy_first)))
        return -1;
    for (uint32_t k = 0; k < s->sp->n; k++) {
        const uint64_t *st = pepa_space_state(s->sp, k);
        s->busy_first[k] = n;
        for (int l = 0; l < sys->nleaves; l++) {
            if (!of_leaf[l])
                continue;
            int i = of_leaf[l][pepa_field_get(st, sys->nodes[sys->leaves[l]].field)];
            if (i < 0)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                if (mem_grow((void **)&s->busy_task, cap, sizeof *s->busy_task) < 0)
                    return -1;
            }
            s->busy_task[n++] = i;
        }
    }
    s->busy_first[s->sp->n] = n;
    return 0;
}

int search_busy_build(search *s)
{
    const pepa_system *sys = s->sys;
    int **of_leaf = calloc((size_t)(sys->nleaves ? sys->nleaves : 1), sizeof *of_leaf);
    int rc = !of_leaf || busy_tables(s, of_leaf) < 0 || busy_fill(s, of_leaf) < 0 ? -1 : 0;
    for (int l = 0; of_leaf && l < sys->nleaves; l++)
        free(of_leaf[l]);
    free(of_leaf);
    return rc < 0 ? diag_set(s->err, "out of memory") : 0;
}

/* The parameters of a move's actions (docs/platform.md, "Links"):
 * rendezvous, the move and its phases (xfer) at lambda_e; buffered, the
 * item's transit (xfer) at lambda_e, the hand-off (move) and the take at
 * the constant `handoff`. */
static void edge_params(const search *s, int *act_param)
{
    const skel_model *m = s->m;
    for (int e = 0; e < s->ne; e++) {
        int buffered = m->buffer[e] > 0;
        act_param[m->move_action[e]] = buffered ? s->nt + s->ne : s->nt + e;
        if (buffered)
            act_param[m->take_action[e]] = s->nt + s->ne;
        if (m->xfer_action[e] >= 0)
            act_param[m->xfer_action[e]] = s->nt + e;
    }
}

/* Build the plan at probe rates, then check it against the reference
 * re-rating at other rates. A model where a transition's rate is not one
 * parameter times a constant keeps the slow, general path. */
int search_plan_build(search *s)
{
    int np = s->nt + s->ne, rc = -1;
    const pepa_system *sys = s->sys;
    int *act_param = malloc((size_t)sys->nactions * sizeof *act_param);
    double *act_value = malloc((size_t)sys->nactions * sizeof *act_value);
    double *p2 = malloc(((size_t)np + 1) * sizeof *p2);
    if (!(s->params = malloc(((size_t)np + 1) * sizeof *s->params)) ||
        !(s->pthr = malloc(((size_t)np + 1) * sizeof *s->pthr)) || !act_param || !act_value || !p2) {
        diag_set(s->err, "out of memory");
        goto out;
    }
    for (int a = 0; a < sys->nactions; a++)
        act_param[a] = PEPA_PLAN_NONE;
    for (int i = 0; i < s->nt; i++) {
        act_param[s->comp[i]] = i;
        if (s->m->work_action[i] >= 0)
            act_param[s->m->work_action[i]] = -1 - i;
    }
    edge_params(s, act_param);
    /* Probe rates: distinct, irregular values (the constant stays 1). */
    for (int k = 0; k < np; k++) {
        s->params[k] = 1.0 + 0.37 * (k % 11) + 0.011 * k;
        p2[k] = 2.5 - 0.13 * (k % 7) + 0.007 * k;
    }
    s->params[np] = p2[np] = 1;
    if (reference_rate(s, s->params) < 0)
        goto out;
    for (int a = 0; a < sys->nactions; a++)
        act_value[a] = act_param[a] == PEPA_PLAN_NONE ? 0
                     : s->params[act_param[a] >= 0 ? act_param[a] : -1 - act_param[a]];
    int built = pepa_plan_build(s->sp, act_param, act_value, PLAN_MAX_TRANSITIONS, &s->plan, s->err);
    if (built != PEPA_PLAN_BUILT) {
        rc = built == PEPA_PLAN_REFUSED ? 0 : -1;
        goto out;
    }
    const pepa_ctmc *q = s->sp->q;
    /* Check: the plan at p2 against the reference at p2. */
    if (reference_rate(s, p2) < 0)
        goto out;
    double *val = malloc((q->nnz ? q->nnz : 1) * sizeof *val);
    double *outr = malloc((size_t)q->n * sizeof *outr);
    if (!val || !outr) {
        free(outr);
        free(val);
        diag_set(s->err, "out of memory");
        goto out;
    }
    memcpy(val, q->val, q->nnz * sizeof *val);
    memcpy(outr, q->out, (size_t)q->n * sizeof *outr);
    plan_apply(s, p2, 0);
    int same = 1;
    for (uint64_t k = 0; k < q->nnz && same; k++)
        same = fabs(val[k] - q->val[k]) <= 1e-12 * fabs(val[k]);
    for (uint32_t k = 0; k < q->n && same; k++)
        same = fabs(outr[k] - q->out[k]) <= 1e-12 * fabs(outr[k]);
    /* Leave the chain as the reference rated it. */
    memcpy(q->val, val, q->nnz * sizeof *val);
    memcpy(q->out, outr, (size_t)q->n * sizeof *outr);
    free(outr);
    free(val);
    s->use_plan = same;
    rc = 0;
out:
    if (!s->use_plan)
        s->plan.n = 0;
    free(p2);
    free(act_value);
    free(act_param);
    return rc;
}

/* ---- evaluation ------------------------------------------------------------- */

static int solve_dense(search *s)
{
    const pepa_ctmc *q = s->sp->q;
    int n = (int)q->n;
    double *g = s->dense, *a = s->dense + (size_t)n * (size_t)n;
    memset(g, 0, (size_t)n * (size_t)n * sizeof *g);
    for (int j = 0; j < n; j++) {
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            g[(size_t)q->col[k] * (size_t)n + (size_t)j] += q->val[k];
        g[(size_t)j * (size_t)n + (size_t)j] = -q->out[j];
    }
    if (search_dense_steady(g, n, a, s->pi) < 0)
        return -1;
    for (int j = 0; j < n; j++)
        if (!(s->pi[j] >= -1e-12) || !isfinite(s->pi[j]))
            return -1;
    return 0;
}

static int solve_now(search *s)
{
    if (s->dense && solve_dense(s) == 0)
        return 0;
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.tol = 1e-12;
    so.warm = s->warm;
    if (!so.warm && s->deadline.at > 0) {
        /* Under a deadline the first solve starts from the uniform vector:
         * AUTO then iterates, checking the clock, where its LU cannot be
         * stopped (211 ms for a 2,916-state pipe(8), GS 1 ms). */
        for (uint32_t j = 0; j < s->sp->n; j++)
            s->pi[j] = 1.0 / s->sp->n;
        so.warm = 1;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (s->deadline.at > 0) {
            /* never held past the deadline: a solve left unfinished is
             * given up, and none is started once it has passed */
            double left = clock_deadline_left(s->deadline);
            if (left <= 0) {
                s->solve_late = 1;
                return diag_set(s->err, "the decision time ran out before the chain was solved");
            }
            /* it stops between sweeps: the last one must end by the deadline */
            so.time_limit = left - SWEEP_SECS * (double)s->sp->q->nnz;
            if (so.time_limit <= 0) {
                s->solve_late = 1;
                return diag_set(s->err, "the decision time ran out before the chain was solved");
            }
        }
        pepa_solve_result res;
        diag tmp;
        diag_clear(&tmp);
        if (pepa_solve(s->sp->q, &so, s->pi, &res, attempt ? s->err : &tmp) == 0)
            return 0;
        /* A warm start that went astray: start again from scratch. */
        so.warm = 0;
        so.tol = 1e-10;
    }
    s->solve_late = clock_deadline_passed(s->deadline);
    return -1;
}

/* Solve the complete placement s->place and rank it. */
/* Does the placement p of throughput x rank before entry e? Higher
 * throughput first; among ties (SKEL_TIE), the placement first in node
 * order: the lowest node index for t0, then for t1, and so on. */
static int search_before(double x, const int *p, const skel_search_entry *e, int nt)
{
    if (!skel_tied(x, e->throughput))
        return x > e->throughput;
    for (int i = 0; i < nt; i++)
        if (p[i] != e->placement[i])
            return p[i] < e->placement[i];
    return 0;
}

int search_evaluate(search *s)
{
    if (skel_place_rates(s->m, s->p, s->place, s->mu, s->lambda, s->err) < 0 ||
        skel_model_set_rates(s->m, s->mu, s->lambda, s->err) < 0)
        return -1;
    if (s->use_plan) {
        memcpy(s->params, s->mu, (size_t)s->nt * sizeof *s->mu);
        memcpy(s->params + s->nt, s->lambda, (size_t)s->ne * sizeof *s->lambda);
        s->params[s->nt + s->ne] = 1;
        plan_apply(s, s->params, s->ps);
    } else if (pepa_system_rerate(s->sys, s->err) < 0 || pepa_space_rate(s->sp, s->err) < 0) {
        return -1;
    }
    if (solve_now(s) < 0)
        return -1;
    s->warm = 1;
    if (s->use_plan) {
        /* Throughput of comp_i: pi-weighted rate of its transitions,
         * self-loops included. */
        for (int i = 0; i < s->nt; i++)
            s->pthr[i] = 0;
        for (size_t t = 0; t < s->plan.n; t++)
            if (s->plan.param[t] >= 0 && s->plan.param[t] < s->nt)
                s->pthr[s->plan.param[t]] += s->pi[s->plan.src[t]] *
                                             (s->ps ? plan_rate(s, t, s->params, 1) : s->plan.coef[t]);
        for (int i = 0; i < s->nt; i++)
            s->thr[s->comp[i]] = s->pthr[i] * (s->ps ? 1 : s->mu[i]);
    } else if (pepa_space_throughput(s->sp, s->pi, s->thr, s->err) < 0) {
        return -1;
    }
    s->evaluated += !s->seeding;
    for (int i = 0; i < s->nt; i++)
        s->xi[i] = s->thr[s->comp[i]];
    return search_rank(s, s->place, skel_model_throughput(s->m, s->thr), s->xi);
}

int search_rank(search *s, const int *pl, double x, const double *xi)
{
    /* A placement solved again (a seed from the large-scale search, found
     * again by the branch and bound) is ranked once. */
    for (int k = 0; k < s->nranked; k++)
        if (fabs(s->ranked[k].throughput - x) <= 1e-6 * x &&
            memcmp(s->ranked[k].placement, pl, (size_t)s->nt * sizeof *pl) == 0)
            return 0;
    /* Where it goes: after every entry better, and among ties in node
     * order, so that the order of the search never decides a tie. */
    int pos = s->nranked;
    while (pos > 0 && search_before(x, pl, &s->ranked[pos - 1], s->nt))
        pos--;
    if (pos >= s->top)
        return 0;
    skel_search_entry spare = s->ranked[s->nranked < s->top ? s->nranked : s->top - 1];
    int last = s->nranked < s->top ? s->nranked : s->top - 1;
    memmove(&s->ranked[pos + 1], &s->ranked[pos], (size_t)(last - pos) * sizeof *s->ranked);
    if (s->nranked < s->top)
        s->nranked++;
    skel_search_entry *e = &s->ranked[pos];
    *e = spare;
    memcpy(e->placement, pl, (size_t)s->nt * sizeof *pl);
    e->throughput = x;
    search_utils(s, e, xi);
    return 0;
}
