/* skeleton/search.c: the placement search (docs/mapping.md).
 *
 * The chain's structure does not depend on the placement, so it is derived
 * once; each placement sets the rates, re-rates the chain through a rate
 * plan (each transition = coefficient x one rate parameter) and solves it
 * warm from the previous solution. What is maximised is the job's
 * throughput X: items entering (= leaving) the skeleton per second,
 * skel_model_throughput. Placements are explored depth first
 * over tasks t0, t1, ... (branch and bound): a partial placement is cut
 * when an upper bound on every completion is below the K-th best solved
 * throughput. The bounds, all sound:
 *   - per-task cycle bound: receive -> compute -> send, each step at least
 *     the inverse of the fastest rate it may have; X = X_i / v_i with the
 *     visit ratio v_i where it is known (pipes, deals, one-task stages);
 *   - stage bound: by flow conservation a stage's members together carry
 *     every item, so X <= sum of their cycle bounds / the stage's ratio;
 *   - sub-pipeline windows: up to WIN_MAX consecutive one-to-one tasks
 *     solved alone with saturated ends (see search_window.c);
 *   - under Sharing=ps, the same windows with the tasks of a node sharing
 *     it (search_winps.c), on the children the search is about to enter.
 * Rates of a partial placement are bounded from above: a node's share only
 * falls as tasks are added, and a move to an unplaced task takes the
 * fastest link from the placed end. Nodes that can be swapped without
 * changing any rate (same speed, same links to every other node) are
 * interchangeable: of the unused ones of a class only the first is tried. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

int skel_search_classes(const skel_platform *p, const unsigned char *keep, int *cls, diag *err)
{
    /* Past a few dozen nodes, from the written links: O(n log n), not
     * O(n^2) per class (a Link equal to the default then counts as
     * different, which only makes classes finer). */
    if (p->nnodes > FAST_CLASSES)
        return search_fast_classes(p, keep, cls) < 0 ? diag_set(err, "out of memory") : 0;
    for (int a = 0; a < p->nnodes; a++) {
        cls[a] = a;
        if ((keep && keep[a]) || a == p->input || a == p->output)
            continue;
        for (int r = 0; r < a; r++) {
            if (cls[r] != r || (keep && keep[r]) || r == p->input || r == p->output ||
                p->nodes[r].speed != p->nodes[a].speed)
                continue;
            int same = 1;
            for (int c = 0; c < p->nnodes && same; c++) {
                if (c == a || c == r)
                    continue;
                double la, ba, lr, br;
                int ea = skel_platform_link(p, a, c, &la, &ba, NULL);
                int er = skel_platform_link(p, r, c, &lr, &br, NULL);
                same = ea == er && (ea < 0 || (la == lr && ba == br));
            }
            if (same) {
                cls[a] = r;
                break;
            }
        }
    }
    return 0;
}
int search_compile_fits(const search *s)
{
    return s->deadline.at <= 0 ||
           COMPILE_SECS * (double)s->nt * s->nt <= 0.5 * clock_deadline_left(s->deadline);
}

/* The exact phase gives up: the deadline passed at stage what. */
static int spent(search *s, const char *what)
{
    snprintf(s->why, sizeof s->why, "the decision time ran out %s", what);
    return 1;
}

/* Derive the chain within what is left of the budget. Returns 1 when it
 * does not fit (too many states, out of time: s->why says which), the
 * derivation then abandoned. */
/* A lower bound on the chain's states: a farm of w workers has at least
 * 2^w (any subset of them can be computing at once: the emitter hands
 * each item to any ready worker). */
static double chain_floor(const search *s)
{
    int w = 0;
    for (int i = 0; i < s->nt && !s->d->extended; i++) {
        const skel_flow *f = &s->d->dst[i];
        if (f->pattern != SKEL_PAT_FARM || f->nsteps != 1)
            continue;
        int n = f->start[1] - f->start[0], tasks = 1;
        for (int k = f->start[0]; k < f->start[1]; k++)
            tasks &= f->tasks[k] >= 0;
        if (tasks && n > w)
            w = n;
    }
    return ldexp(1.0, w);
}

static int setup_chain(search *s)
{
    diag *err = s->err;
    unsigned long cap = s->o->max_states ? s->o->max_states : DEFAULT_MAX_STATES;
    if (chain_floor(s) > (double)cap) {
        snprintf(s->why, sizeof s->why, "the chain has at least %.3g states (a farm's workers "
                 "busy or idle in any combination), over the limit of %lu", chain_floor(s), cap);
        return 1;
    }
    /* Compiling the model cannot be stopped and grows faster than its
     * tasks: under a deadline, not started when it would take half of
     * what is left (a chain of that many tasks rarely fits anyway). */
    if (!search_compile_fits(s))
        return spent(s, "before the model could be compiled");
    if (!(s->sys = pepa_system_new(s->m->pepa, err)))
        return -1;
    pepa_derive_opts dopts = { 0 };
    dopts.max_states = s->o->max_states ? s->o->max_states : DEFAULT_MAX_STATES;
    dopts.threads = s->o->threads;
    if (s->deadline.at > 0) {
        /* leave a part of what is left for re-rating and solving; the
         * deadline itself stops the derivation too */
        dopts.time_limit = 0.8 * clock_deadline_left(s->deadline);
        dopts.deadline = s->deadline;
        if (dopts.time_limit <= 0)
            return spent(s, "before the chain was derived");
    }
    diag tmp;
    diag_clear(&tmp);
    if (!(s->sp = pepa_derive(s->sys, &dopts, &tmp))) {
        size_t n = strlen(tmp.msg) < sizeof s->why - 1 ? strlen(tmp.msg) : sizeof s->why - 1;
        memcpy(s->why, tmp.msg, n);    /* a long message is cut, on purpose */
        s->why[n] = '\0';
        return 1;
    }
    s->sp->deadline = s->deadline;   /* its re-ratings too */
    if (s->sp->deadlocks)
        return diag_set(err, "the model of the skeleton deadlocks (%u states can do nothing)",
                        s->sp->deadlocks);
    if (clock_deadline_passed(s->deadline))
        return spent(s, "after the chain was derived");
    pepa_chain_class cls;
    if (pepa_space_classify(s->sp, &cls, err) < 0)
        return -1;
    if (cls.bottom != 1)
        return diag_set(err, "the model of the skeleton has %u closed classes of states: no unique "
                        "steady state", cls.bottom);
    if (s->sp->n <= DENSE_MAX &&
        !(s->dense = malloc((size_t)s->sp->n * (2 * (size_t)s->sp->n + 1) * sizeof *s->dense)))
        return diag_set(err, "out of memory");
    if (!(s->pi = calloc(s->sp->n, sizeof *s->pi)) ||
        !(s->thr = calloc((size_t)s->sys->nactions, sizeof *s->thr)))
        return diag_set(err, "out of memory");
    s->comp = s->m->comp_action;
    return 0;
}

static int setup(search *s)
{
    size_t nt = (size_t)s->nt, nn = (size_t)s->nn;
    if (!(s->flows = calloc(nt, sizeof *s->flows)) || !(s->visit = calloc(nt, sizeof *s->visit)) ||
        !(s->cls = malloc(nn * sizeof *s->cls)) || !(s->place = malloc(nt * sizeof *s->place)) ||
        !(s->load = calloc(nn, sizeof *s->load)) || !(s->raw = malloc((nt + 1) * sizeof *s->raw)) ||
        !(s->mu = malloc(nt * sizeof *s->mu)) || !(s->xi = malloc(nt * sizeof *s->xi)) ||
        !(s->lambda = malloc((size_t)(s->ne ? s->ne : 1) * sizeof *s->lambda)) ||
        !(s->ranked = calloc((size_t)s->top, sizeof *s->ranked)))
        return diag_set(s->err, "out of memory");
    for (int i = 0; i < s->top; i++) {
        skel_search_entry *e = &s->ranked[i];
        if (!(e->placement = malloc(nt * sizeof *e->placement)) ||
            !(e->task_util = malloc(nt * sizeof *e->task_util)) ||
            !(e->node_util = malloc(nn * sizeof *e->node_util)))
            return diag_set(s->err, "out of memory");
    }
    for (int i = 0; i < s->nt; i++)
        s->place[i] = -1;
    for (int i = 0; i < s->nt && !s->d->extended; i++) {
        if (search_build_flow(s, &s->d->src[i], i, 1, &s->flows[i].src, &s->flows[i].nsrc) < 0 ||
            search_build_flow(s, &s->d->dst[i], i, 0, &s->flows[i].dst, &s->flows[i].ndst) < 0)
            return -1;
    }
    /* X_i / X where X is the job's throughput: known for tasks outside
     * farms (the dag's visits), the others start unknown (0). */
    for (int i = 0; i < s->nt && !s->d->extended; i++)
        s->visit[i] = s->d->visits[i];
    search_visit_ratios(s);
    if (!(s->stage = calloc(nt + 1, sizeof *s->stage)) ||
        !(s->stage_n = calloc(nt + 1, sizeof *s->stage_n)) ||
        !(s->stage_v = calloc(nt + 1, sizeof *s->stage_v)))
        return diag_set(s->err, "out of memory");
    if (!s->d->extended && search_stage_groups(s, &s->nstages) < 0)
        return -1;
    search_visit_ratios(s);           /* again, from the one-task stages */
    if (search_setup_windows(s) < 0)
        return -1;
    int ng = 0;
    for (int i = 0; i < s->nt; i++)
        ng += s->flows[i].ndst;
    if (!(s->bcyc = malloc(nt * sizeof *s->bcyc)) ||
        !(s->group = malloc((size_t)(ng ? ng : 1) * sizeof *s->group)) ||
        !(s->group_scale = malloc((size_t)(ng ? ng : 1) * sizeof *s->group_scale)))
        return diag_set(s->err, "out of memory");
    for (int i = 0; i < s->nt; i++) {
        if (!(s->visit[i] > 0))
            continue;
        for (int k = 0; k < s->flows[i].ndst; k++) {
            const step *st = &s->flows[i].dst[k];
            int tasks_only = st->n > 1;
            for (int q = 0; q < st->n && tasks_only; q++)
                tasks_only = s->m->edges[st->edges[q]].to >= 0;
            if (!tasks_only)
                continue;
            s->group[s->ngroups] = st;
            s->group_scale[s->ngroups++] = s->flows[i].ndst / s->visit[i];
        }
    }
    if (search_setup_capacity(s) < 0)
        return -1;
    /* Nodes named by a pin, and nodes no task may use, are not
     * interchangeable with any other. */
    unsigned char *keep = calloc(nn, 1);
    if (!keep)
        return diag_set(s->err, "out of memory");
    for (int i = 0; s->o->pins && i < s->nt; i++)
        if (s->o->pins[i] >= 0)
            keep[s->o->pins[i]] = 1;
    int usable = 0;
    for (int j = 0; j < s->nn; j++) {
        if (s->o->allowed && !s->o->allowed[j])
            keep[j] = 1;
        else
            usable++;
    }
    skel_search_classes(s->p, keep, s->cls, s->err);
    free(keep);
    if (s->o->no_symmetry)
        for (int j = 0; j < s->nn; j++)
            s->cls[j] = j;
    s->raw[s->nt] = 1;
    for (int k = s->nt - 1; k >= 0; k--)
        s->raw[k] = s->raw[k + 1] * (s->o->pins && s->o->pins[k] >= 0 ? 1 : usable);
    return 0;
}
/* ---- driver ------------------------------------------------------------------ */

/* Frees everything the search holds, the ranked entries included unless
 * skel_search handed them to its result (s->ranked is NULL then). */
static void search_free(search *s)
{
    for (int i = 0; s->ranked && i < s->top; i++) {
        free(s->ranked[i].node_util);
        free(s->ranked[i].task_util);
        free(s->ranked[i].placement);
    }
    free(s->ranked);
    for (int g = 0; s->stage && g < s->nstages; g++)
        free(s->stage[g]);
    free(s->cap_mark);
    free(s->cap_order);
    free(s->cap_coef);
    free(s->cap_task);
    free(s->cap_first);
    free(s->stage_v);
    free(s->stage_n);
    free(s->stage);
    free(s->group_scale);
    free(s->group);
    free(s->bcyc);
    free(s->dense);
    free(s->blam);
    free(s->bmu);
    free(s->cache);
    search_winps_free(s);
    free(s->wq);
    free(s->wpi);
    free(s->wout);
    free(s->wrate);
    free(s->wfirst);
    free(s->wfrom);
    free(s->wfill);
    free(s->win);
    free(s->pthr);
    free(s->busy_task);
    free(s->busy_first);
    free(s->params);
    pepa_plan_free(&s->plan);
    free(s->lambda);
    free(s->xi);
    free(s->mu);
    free(s->cnode);
    free(s->cbound);
    search_scale_free(s);
    free(s->raw);
    free(s->load);
    free(s->place);
    free(s->cls);
    free(s->visit);
    for (int i = 0; s->flows && i < s->nt; i++) {
        for (int k = 0; k < s->flows[i].nsrc; k++)
            free(s->flows[i].src[k].edges);
        for (int k = 0; k < s->flows[i].ndst; k++)
            free(s->flows[i].dst[k].edges);
        free(s->flows[i].src);
        free(s->flows[i].dst);
    }
    free(s->flows);
    free(s->mx_any);
    free(s->mx_to);
    free(s->mx_from);
    free(s->bw);
    free(s->lat);
    free(s->thr);
    free(s->pi);
    pepa_space_free(s->sp);
    pepa_system_free(s->sys);
}

double search_mark(search *s, skel_search_phase k)
{
    return s->mark[k] = clock_now();
}

const char *skel_search_phase_name(skel_search_phase k)
{
    static const char *const names[SKEL_PHASE_N] = {
        "setup", "construct", "evaluator", "moves", "chain", "chain search", "lumped", "result"
    };
    return k >= 0 && k < SKEL_PHASE_N ? names[k] : "?";
}

/* Each phase's time from the marks: since the previous phase that ran. */
static void phase_times(const search *s, skel_search_result *r)
{
    double prev = s->t0;
    for (int k = 0; k < SKEL_PHASE_N; k++) {
        r->phase_secs[k] = s->mark[k] > 0 ? s->mark[k] - prev : 0;
        prev = s->mark[k] > 0 ? s->mark[k] : prev;
    }
}

const char *skel_search_method_name(skel_search_method m)
{
    return m == SKEL_SEARCH_EXACT ? "exact" : m == SKEL_SEARCH_LUMPED ? "lumped" : "approximate";
}

/* Time the local moves may take: a tenth of the time left (the chain, when
 * it fits, gets the rest: deriving it is what runs out of time under
 * load); without a deadline 10 s, a guard only: their work cap
 * (SCALE_WORK, about 2 s) stops them first, the same on any machine. */
static double scale_until(const search *s)
{
    if (s->deadline.at <= 0)
        return s->t0 + 10.0;
    double left = clock_deadline_left(s->deadline);
    return clock_now() + (left > 0 ? 0.1 * left : 0);
}

/* Time kept for releasing the chains: 5% of what is left, at most
 * RELEASE_MAX seconds (none without a deadline). */
#define RELEASE_MAX 0.025
static double release_reserve(const search *s)
{
    if (s->deadline.at <= 0)
        return 0;
    double r = 0.05 * clock_deadline_left(s->deadline);
    return r < 0 ? 0 : r < RELEASE_MAX ? r : RELEASE_MAX;
}

/* Solve placement pl exactly as a seed of the ranking; its throughput, or
 * -1 on an error. */
static double seed(search *s, const int *pl, int *canon, int *map)
{
    search_canonical(s, pl, canon, map);
    memcpy(s->place, canon, (size_t)s->nt * sizeof *s->place);
    s->seeding = 1;
    int rc = search_evaluate(s);
    s->seeding = 0;
    double x = rc < 0 ? -1 : skel_model_throughput(s->m, s->thr);
    for (int i = 0; i < s->nt; i++)
        s->place[i] = -1;
    return x;
}

/* Confirm the large-scale answer on the chain, then search: the branch and
 * bound starts with the answer ranked, so its cuts are sharper and it can
 * only improve on it. */
static int confirm_and_search(search *s)
{
    if (s->o->candidates)
        return search_run_candidates(s);
    int *canon = malloc((size_t)s->nt * sizeof *canon), *map = malloc(2 * (size_t)s->nn * sizeof *map);
    if (!canon || !map) {
        free(map);
        free(canon);
        return diag_set(s->err, "out of memory");
    }
    /* the best few by the estimate, then the constructive placement: the
     * chain, not the estimate, ranks them (the estimate errs by a few %) */
    int feasible = s->heur_x > 0;
    double h = feasible ? seed(s, s->heur, canon, map) : 0;
    for (int k = 0; k < s->nkeep && feasible && h >= 0 && s->keep_x[k] > 0; k++)
        h = seed(s, s->keep_pl + (size_t)k * (size_t)s->nt, canon, map);
    double c = feasible && h >= 0 ? seed(s, s->cons, canon, map) : 0;
    free(map);
    free(canon);
    if (h < 0 || c < 0)
        return -1;
    s->cons_exact = c;
    s->total = s->raw[0];
    /* Under a deadline the branch and bound may not finish: first the
     * local moves on the chain, from the best seed, in half the time left
     * (its other half for the branch and bound, which they give a higher
     * threshold to cut by). */
    if (s->deadline.at > 0 &&
        search_scale_exact(s, clock_now() + 0.5 * clock_deadline_left(s->deadline)) < 0)
        return -1;
    return search_dfs(s, 0);
}

/* The exact phase. Returns 0, -1 on an error, 1 when the chain does not
 * fit (s->why says why). */
static int exact_phase(search *s)
{
    size_t cells = (size_t)s->nt * (size_t)s->nn;
    if (s->nn > MAX_MATRIX_NODES) {
        snprintf(s->why, sizeof s->why, "%s: %d nodes: the exact search handles at most %d",
                 s->p->file, s->nn, MAX_MATRIX_NODES);
        return 1;
    }
    /* The latency matrices cost milliseconds at 256 nodes and 2,000 moves
     * (farm(1000)): not started once the deadline has passed. */
    if (clock_deadline_passed(s->deadline))
        return spent(s, "before the exact search was set up");
    if (search_setup_platform(s) < 0)
        return -1;
    if (!(s->cbound = malloc(cells * sizeof *s->cbound)) ||
        !(s->cnode = malloc(cells * sizeof *s->cnode)))
        return diag_set(s->err, "out of memory");
    int rc = setup_chain(s);
    if (rc != 0)
        return rc;
    if ((!s->o->no_plan || s->ps) && search_plan_build(s) < 0)
        return clock_deadline_passed(s->deadline) ? spent(s, "while the chain was re-rated") : -1;
    if (clock_deadline_passed(s->deadline))
        return spent(s, "before the chain could be solved");
    /* Processor sharing divides each state's rates: only the plan can. */
    if (s->ps && !s->use_plan) {
        snprintf(s->why, sizeof s->why, "Sharing=ps: the chain (%llu transitions) is too large "
                 "to re-rate state by state", (unsigned long long)s->sp->q->nnz);
        return 1;
    }
    if (s->ps && search_busy_build(s) < 0)
        return -1;
    s->exact = 1;
    search_mark(s, SKEL_PHASE_CHAIN);
    return confirm_and_search(s);
}

/* Entry e's utilisations from its tasks' throughputs xi (NAN: unknown)
 * at its placement's rates s->mu, for the exact and the approximate
 * answers alike: task i's the fraction of time it computes, X_i / mu_i,
 * at most 1 (a time fraction: an estimate's X_i may exceed mu_i, a
 * solve's only by rounding); node j's the work done over its capacity,
 * of the tasks' capped times; the bottleneck the task of the highest.
 * Where a task's X_i is unknown its utilisation is NAN, and so is its
 * node's, and the bottleneck is not named: a 0 reads as an idle node, and
 * the argmax of the known ones need not be the bottleneck. */
void search_utils(search *s, skel_search_entry *e, const double *xi)
{
    int known = 1;
    for (int j = 0; j < s->nn; j++)
        e->node_util[j] = 0;
    for (int i = 0; i < s->nt; i++) {
        int j = e->placement[i];
        if (isnan(xi[i])) {
            e->task_util[i] = e->node_util[j] = NAN;
            known = 0;
            continue;
        }
        double u = xi[i] / s->mu[i];
        e->task_util[i] = u < 1 ? u : 1;
        e->node_util[j] += e->task_util[i] * s->mu[i] / (s->m->work[i] * s->p->nodes[j].speed);
    }
    e->bottleneck = known ? skel_argmax_tied(e->task_util, s->nt) : SKEL_BOTTLENECK_UNKNOWN;
}

/* Utilisations from the estimate x: X_i = x v_i where the visit ratio v_i
 * is known. With par, choice or loop steps (d->extended) those are the
 * dag's visits (a par's branches once per item, a choice's by its
 * probability, a loop's by its mean, as the capacity bound reads them);
 * otherwise search_visit_ratios'. Where v_i is unknown (a farm's workers:
 * the placement sets their shares) X_i is unknown (search_utils). */
static void approx_utils(search *s, skel_search_entry *e)
{
    const double *v = s->d->extended ? s->d->visits : s->visit;
    diag tmp;
    diag_clear(&tmp);
    int rated = skel_place_rates(s->m, s->p, e->placement, s->mu, s->lambda, &tmp) == 0;
    for (int i = 0; i < s->nt; i++)
        s->xi[i] = rated && v[i] > 0 ? e->throughput * v[i] : NAN;
    search_utils(s, e, s->xi);
}

/* The best sound bound on every placement the search has without the
 * chain: the branch and bound's root (capacity, cycles, stages, windows),
 * or the capacity alone where the latency matrices were not built. It is
 * the answer's bound when the chain did not fit or ran out of time. */
static double root_bound(search *s)
{
    for (int i = 0; i < s->nt; i++)
        s->place[i] = -1;
    s->bound_pl = NULL;
    double b = s->lat ? search_bound(s) : search_capacity(s);
    return isfinite(b) && b > 0 ? b : INFINITY;
}

/* The large-scale search's answer when the chain did not fit: its
 * placement, the best others its moves valued and the constructive one,
 * by their estimates (the keep list is best first; heur is its first). */
static int approx_answer(search *s)
{
    s->exact = 0;
    s->nranked = 0;
    const int *pl[SCALE_KEEP + 2] = { s->heur };
    double x[SCALE_KEEP + 2] = { s->heur_x };
    int n = 1;
    for (int k = 0; k < s->nkeep; k++, n++) {
        pl[n] = s->keep_pl + (size_t)k * (size_t)s->nt;
        x[n] = s->keep_x[k];
    }
    pl[n] = s->cons;
    x[n++] = s->cons_x;
    for (int k = 0; k < n && s->nranked < s->top; k++) {
        int dup = 0;
        for (int q = 0; q < s->nranked && !dup; q++)
            dup = memcmp(s->ranked[q].placement, pl[k], (size_t)s->nt * sizeof *pl[k]) == 0;
        if (!(x[k] > 0) || dup)
            continue;
        skel_search_entry *e = &s->ranked[s->nranked++];
        memcpy(e->placement, pl[k], (size_t)s->nt * sizeof *pl[k]);
        e->throughput = x[k];
        approx_utils(s, e);
    }
    return 0;
}

void skel_search_result_free(skel_search_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nranked; i++) {
        free(r->ranked[i].node_util);
        free(r->ranked[i].task_util);
        free(r->ranked[i].placement);
    }
    free(r->ranked);
    free(r);
}

/* What of the model's semantics the bounds depend on. */
static void semantics(search *s)
{
    s->ps = s->p->sharing == SKEL_SHARE_PS;
    s->exp_work = 1;
    for (int i = 0; i < s->nt; i++)
        s->exp_work &= s->m->scv[i] == 1;
    s->plain_links = 1;
    for (int e = 0; e < s->ne; e++)
        s->plain_links &= s->m->buffer[e] == 0 && s->m->link_scv[e] == 1;
    s->handoff = s->p->local_latency > 0 ? 1 / s->p->local_latency : 1.0;   /* gen.c's handoff */
}

/* What every search starts from: nothing placed or allocated, the inputs,
 * the sizes, the ranking's length (opts->top, 10 by default) and the
 * model's semantics. skel_search_bound and skel_search share it. */
static void search_init(search *s, skel_model *m, const skel_dag *d, const skel_platform *p,
                        const skel_search_opts *o, diag *err)
{
    *s = (search){ 0 };
    s->t0 = clock_now();
    s->m = m;
    s->d = d;
    s->p = p;
    s->o = o;
    s->err = err;
    s->nt = m->ntasks;
    s->nn = p->nnodes;
    s->ne = m->nedges;
    s->top = o->top > 0 ? (o->top < MAX_TOP ? o->top : MAX_TOP) : 10;
    semantics(s);
}

int skel_search_bound(skel_model *m, const skel_dag *d, const skel_platform *p, const int *pl,
                      double *bound, diag *err)
{
    return skel_search_bound_opts(m, d, p, pl, NULL, bound, err);
}

int skel_search_bound_opts(skel_model *m, const skel_dag *d, const skel_platform *p, const int *pl,
                           const skel_search_opts *o, double *bound, diag *err)
{
    skel_search_opts none = { 0 };
    if (o)
        none = *o;
    none.top = 1;
    search s;
    search_init(&s, m, d, p, &none, err);
    int rc = -1;
    if (d->ntasks != s.nt || d->nedges != s.ne || m->shared)
        diag_set(err, "internal error: the model is not the placement-independent one of this "
                 "task graph");
    else if (setup(&s) == 0 && search_setup_platform(&s) == 0) {
        for (int i = 0; i < s.nt && (rc = pl[i] >= -1 && pl[i] < s.nn ? 0 : -1) == 0; i++) {
            s.place[i] = pl[i];   /* -1: not placed */
            if (pl[i] >= 0)
                s.load[pl[i]]++;
        }
        if (rc < 0) {
            diag_set(err, "the placement names no node of %s (-1: not placed)", p->file);
        } else {
            *bound = search_bound(&s);
            double shared = search_bound_shared(&s, 0);
            *bound = shared < *bound ? shared : *bound;
        }
    }
    search_free(&s);
    return rc;
}

skel_search_result *skel_search(skel_model *m, const skel_dag *d, const skel_platform *p,
                                const skel_search_opts *opts, diag *err)
{
    skel_search_opts none = { 0 };
    search s;
    search_init(&s, m, d, p, opts ? opts : &none, err);
    skel_search_result *r = NULL;
    if (s.nt < 1 || s.nn < 1) {
        diag_set(err, s.nt < 1 ? "the skeleton has no tasks" : "%s: no nodes", p->file);
        return NULL;
    }
    if (d->ntasks != s.nt || d->nedges != s.ne) {
        diag_set(err, "internal error: the model was not built from this task graph");
        return NULL;
    }
    for (int i = 0; s.o->pins && i < s.nt; i++) {
        if (s.o->pins[i] >= s.nn) {
            diag_set(err, "pin of t%d: no node %d in %s", i, s.o->pins[i], p->file);
            return NULL;
        }
        if (s.o->pins[i] >= 0 && s.o->allowed && !s.o->allowed[s.o->pins[i]]) {
            diag_set(err, "t%d is pinned to %s, which the job may not use", i,
                     p->nodes[s.o->pins[i]].name);
            return NULL;
        }
    }
    int usable = 0;
    for (int j = 0; j < s.nn; j++)
        usable += !s.o->allowed || s.o->allowed[j];
    if (!usable) {
        diag_set(err, "no node of %s may be used", p->file);
        return NULL;
    }
    if (s.o->candidates && s.o->ncandidates < 1) {
        diag_set(err, "no candidate placements");
        return NULL;
    }
    if (m->shared) {
        diag_set(err, "internal error: the search needs the placement-independent model "
                 "(skel_model_new), not one placed under Sharing=ps");
        return NULL;
    }
    s.deadline = s.o->deadline;
    if (s.o->budget > 0)
        s.deadline = clock_deadline_within(s.deadline, s.o->budget);
    if (setup(&s) < 0 || search_scale(&s, scale_until(&s)) < 0)
        goto fail;
    /* Freeing a chain cannot be stopped and costs with its size (a few
     * ms for 10^5 states on the loaded machine): the chain phases end
     * that much before the deadline, so that the search returns by it. */
    s.deadline = clock_deadline_less(s.deadline, release_reserve(&s));
    int ex = s.o->force_lumped && s.o->tree && s.o->candidates ? search_lumped_candidates(&s)
                                                                : exact_phase(&s);
    search_mark(&s, s.exact ? SKEL_PHASE_CHAIN_SEARCH : SKEL_PHASE_CHAIN);
    if (ex < 0 && clock_deadline_passed(s.deadline))
        s.solve_late = 1;         /* stopped by the deadline, not by a fault */
    if (ex < 0 && s.solve_late && s.exact && s.nranked > 0) {
        ex = 0;                   /* out of time mid-search: the best solved so far */
        s.timed_out = 1;
        s.missed = INFINITY;
    }
    if (ex < 0 && !(s.solve_late && !s.o->candidates))
        goto fail;
    /* The chain did not fit: without a deadline, more local search (its
     * work cap stops it, 10 s a guard); under one the time left is the
     * lumped chain's (the ILS took the plugin's p99 over budget + 10 ms). */
    if (ex != 0 && !s.o->candidates &&
        ((s.deadline.at <= 0 && search_scale_more(&s, clock_now() + 10.0) < 0) ||
         approx_answer(&s) < 0 ||
         search_lumped_answer(&s) < 0))
        goto fail;
    if (ex != 0 && !s.o->candidates)
        search_mark(&s, SKEL_PHASE_LUMPED);
    if ((ex != 0 || s.timed_out) && !s.o->candidates) {
        double b = root_bound(&s);
        s.missed = s.missed > 0 && s.missed < b ? s.missed : b;
    }
    if (ex > 0 && s.o->candidates) {
        diag_set(err, "%s", s.why);
        goto fail;
    }
    if (s.nranked == 0) {
        diag_set(err, "no feasible placement: every one needs a link %s does not describe "
                 "(add Link= or DefaultLatency= and LocalLatency=)", p->file);
        goto fail;
    }
    if (!(r = calloc(1, sizeof *r))) {
        diag_set(err, "out of memory");
        goto fail;
    }
    r->ntasks = s.nt;
    r->nnodes = s.nn;
    double best = s.ranked[0].throughput;
    /* Ranks: ties within TIE share one; unused buffers are released. */
    for (int i = 0; i < s.nranked; i++) {
        skel_search_entry *e = &s.ranked[i];
        e->rank = i == 0 ? 1 : (fabs(s.ranked[i - 1].throughput - e->throughput) <=
                                TIE * s.ranked[i - 1].throughput ? s.ranked[i - 1].rank : i + 1);
        if (fabs(best - e->throughput) <= TIE * best)
            r->ties++;
    }
    for (int i = s.nranked; i < s.top; i++) {
        free(s.ranked[i].node_util);
        free(s.ranked[i].task_util);
        free(s.ranked[i].placement);
    }
    r->nranked = s.nranked;
    r->ranked = s.ranked;
    s.ranked = NULL;
    /* Proven when nothing was left out, or everything left out is bounded
     * below the best. */
    r->optimal = (s.exact && (!s.timed_out || s.missed < best * (1 - TIE))) ||
                 (s.lumped && s.o->candidates);   /* every candidate valued */
    r->bound = r->optimal ? 0 : s.missed;
    r->gap = r->optimal || s.missed <= best ? 0 : (s.missed - best) / best;
    r->evaluated = s.evaluated;
    r->pruned = s.pruned;
    r->symmetric = s.symmetric;
    r->total = s.total;
    r->states = s.lumped ? s.lumped_states : s.sp ? s.sp->n : 0;
    r->transitions = s.sp ? (unsigned long long)s.sp->q->nnz : 0;
    r->method = s.lumped ? SKEL_SEARCH_LUMPED : s.exact ? SKEL_SEARCH_EXACT : SKEL_SEARCH_APPROX;
    r->constructive = s.cons_exact > 0 ? s.cons_exact : s.cons_x;
    r->constructive_secs = s.cons_secs;
    snprintf(r->why, sizeof r->why, "%s", s.exact && !s.lumped ? "" : s.why);
    r->estimator = s.eval_name;
    search_free(&s);
    search_mark(&s, SKEL_PHASE_RESULT);
    phase_times(&s, r);
    r->seconds = clock_now() - s.t0;
    return r;
fail:
    search_free(&s);
    return NULL;
}

skel_search_result *skel_search_one(skel_model *m, const skel_dag *d, const skel_platform *p,
                                    const int *place, unsigned long max_states, diag *err)
{
    skel_search_opts so = { 0 };
    so.candidates = place;
    so.ncandidates = 1;
    so.top = 1;
    so.no_prune = 1;
    so.max_states = max_states;
    return skel_search(m, d, p, &so, err);
}
