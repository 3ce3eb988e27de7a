/* skeleton/search.c: the placement search (docs/mapping.md).
 *
 * The chain's structure does not depend on the placement, so it is derived
 * once; each placement sets the rates, re-rates the chain through a rate
 * plan (each transition = coefficient x one rate parameter) and solves it
 * warm from the previous solution. Placements are explored depth first
 * over tasks t0, t1, ... (branch and bound): a partial placement is cut
 * when an upper bound on every completion is below the K-th best solved
 * throughput. The bounds, all sound:
 *   - per-task cycle bound: receive -> compute -> send, each step at least
 *     the inverse of the fastest rate it may have; X_0 = X_i / v_i with the
 *     visit ratio v_i where it is known (pipes, deals, one-task stages);
 *   - stage bound: by flow conservation a stage's members together carry
 *     every item, so X_0 <= sum of their cycle bounds / the stage's ratio;
 *   - sub-pipeline windows: up to WIN_MAX consecutive one-to-one tasks
 *     solved alone with saturated ends (see window_thr).
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
    (void)err;
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
static int setup_chain(search *s)
{
    diag *err = s->err;
    if (!(s->sys = pepa_system_new(s->m->pepa, err)))
        return -1;
    pepa_derive_opts dopts = { 0 };
    dopts.max_states = s->o->max_states ? s->o->max_states : DEFAULT_MAX_STATES;
    dopts.threads = s->o->threads;
    if (s->o->budget > 0)
        dopts.time_limit = s->o->budget;
    if (!(s->sp = pepa_derive(s->sys, &dopts, err)))
        return -1;
    if (s->sp->deadlocks)
        return diag_set(err, "the model of the skeleton deadlocks (%u states can do nothing)",
                        s->sp->deadlocks);
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
        !(s->thr = calloc((size_t)s->sys->nactions, sizeof *s->thr)) ||
        !(s->comp = malloc((size_t)s->nt * sizeof *s->comp)))
        return diag_set(err, "out of memory");
    for (int i = 0; i < s->nt; i++) {
        char name[32];
        snprintf(name, sizeof name, "comp_%d", i);
        if ((s->comp[i] = pepa_model_find_action(s->m->pepa, name)) < 0)
            return diag_set(err, "internal error: the model has no action %s", name);
    }
    return 0;
}

static int setup(search *s)
{
    size_t nt = (size_t)s->nt, nn = (size_t)s->nn;
    if (!(s->flows = calloc(nt, sizeof *s->flows)) || !(s->visit = calloc(nt, sizeof *s->visit)) ||
        !(s->cls = malloc(nn * sizeof *s->cls)) || !(s->place = malloc(nt * sizeof *s->place)) ||
        !(s->load = calloc(nn, sizeof *s->load)) || !(s->raw = malloc((nt + 1) * sizeof *s->raw)) ||
        !(s->cbound = malloc(nt * nn * sizeof *s->cbound)) ||
        !(s->cnode = malloc(nt * nn * sizeof *s->cnode)) ||
        !(s->mu = malloc(nt * sizeof *s->mu)) ||
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
    s->visit[0] = 1;           /* the others start unknown (0) */
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

static void search_free(search *s)
{
    for (int g = 0; s->stage && g < s->nstages; g++)
        free(s->stage[g]);
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
    free(s->wq);
    free(s->win);
    free(s->pthr);
    free(s->params);
    free(s->tr_coef);
    free(s->tr_param);
    free(s->tr_slot);
    free(s->tr_src);
    free(s->lambda);
    free(s->mu);
    free(s->cnode);
    free(s->cbound);
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
    free(s->comp);
    free(s->thr);
    free(s->pi);
    pepa_space_free(s->sp);
    pepa_system_free(s->sys);
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

skel_search_result *skel_search(skel_model *m, const skel_dag *d, const skel_platform *p,
                                const skel_search_opts *opts, diag *err)
{
    skel_search_opts none = { 0 };
    search s = { 0 };
    s.t0 = clock_now();
    s.m = m;
    s.d = d;
    s.p = p;
    s.o = opts ? opts : &none;
    s.err = err;
    s.nt = m->ntasks;
    s.nn = p->nnodes;
    s.ne = m->nedges;
    s.top = s.o->top > 0 ? (s.o->top < MAX_TOP ? s.o->top : MAX_TOP) : 10;
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
    if (setup(&s) < 0 || search_setup_platform(&s) < 0 || setup_chain(&s) < 0 ||
        (!s.o->no_plan && search_plan_build(&s) < 0))
        goto fail;
    if (s.o->candidates) {
        if (search_run_candidates(&s) < 0)
            goto fail;
    } else {
        s.total = s.raw[0];
        if (search_dfs(&s, 0) < 0)
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
    r->optimal = !s.timed_out || s.missed < best * (1 - TIE);
    r->bound = r->optimal ? 0 : s.missed;
    r->gap = r->optimal || s.missed <= best ? 0 : (s.missed - best) / best;
    r->evaluated = s.evaluated;
    r->pruned = s.pruned;
    r->symmetric = s.symmetric;
    r->total = s.total;
    r->states = s.sp->n;
    r->transitions = (unsigned long long)s.sp->q->nnz;
    search_free(&s);
    r->seconds = clock_now() - s.t0;
    return r;
fail:
    for (int i = 0; s.ranked && i < s.top; i++) {
        free(s.ranked[i].node_util);
        free(s.ranked[i].task_util);
        free(s.ranked[i].placement);
    }
    free(s.ranked);
    search_free(&s);
    return NULL;
}
