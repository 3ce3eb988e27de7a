/* skeleton/search_exact.c: the exhaustive branch and bound over tasks t0,
 * t1, ... and the search among listed candidate placements. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

static double elapsed(const search *s)
{
    return clock_now() - s->t0;
}

static double threshold(const search *s)
{
    return s->nranked < s->top ? 0 : s->ranked[s->top - 1].throughput * (1 - TIE);
}

static void tick(search *s)
{
    double t = elapsed(s);
    if (clock_deadline_passed(s->deadline) && s->nranked > 0)
        s->timed_out = 1;
    if (s->o->progress && t - s->last_progress >= 0.1) {
        s->last_progress = t;
        double done = (double)s->evaluated + s->pruned + s->symmetric + s->unexplored;
        s->o->progress(s->o->progress_ctx, s->total > 0 ? done / s->total : 1, t);
    }
}

/* ---- exhaustive branch and bound ------------------------------------------ */

/* Whether the current placement, which the bounds of search_bound kept,
 * is cut by the windows that see processor sharing (search_winps.c):
 * they cost too much to bound every child with, so only the children the
 * search is about to enter are tried, against the threshold of then. */
static int shared_cut(search *s)
{
    double th = threshold(s);
    if (s->o->shared_windows == 0 && s->sp->n < WPS_CHAIN_MIN)
        return 0;
    if (s->o->no_prune || !(th > 0) || !(search_bound_shared(s, th) < th))
        return 0;
    s->wps_pruned++;
    return 1;
}

int search_dfs(search *s, int k)
{
    if (k == s->nt) {
        int rc = search_evaluate(s);
        tick(s);
        return rc;
    }
    if ((++s->ticks & 255) == 0)
        tick(s);
    double *cb = s->cbound + (size_t)k * (size_t)s->nn;
    int *cn = s->cnode + (size_t)k * (size_t)s->nn;
    int nc = 0;
    int pin = s->o->pins ? s->o->pins[k] : -1;
    for (int x = pin >= 0 ? pin : 0; x < (pin >= 0 ? pin + 1 : s->nn); x++) {
        if (s->o->allowed && !s->o->allowed[x])
            continue;
        if (x > 0 && (x & 63) == 0)
            tick(s);          /* hundreds of nodes: bounding the children takes time too */
        if (s->load[x] == 0 && s->cls[x] != x) {
            /* An unused node whose class has an earlier unused member: the
             * placements below are images of that member's. */
            int r = s->cls[x], earlier_free = 0;
            for (int y = r; y < x && !earlier_free; y++)
                earlier_free = s->cls[y] == r && s->load[y] == 0;
            if (earlier_free) {
                s->symmetric += s->raw[k + 1];
                continue;
            }
        }
        s->place[k] = x;
        s->load[x]++;
        double b = search_bound(s);
        s->load[x]--;
        s->place[k] = -1;
        /* insertion by decreasing bound: the most promising first */
        int q = nc++;
        while (q > 0 && cb[q - 1] < b) {
            cb[q] = cb[q - 1];
            cn[q] = cn[q - 1];
            q--;
        }
        cb[q] = b;
        cn[q] = x;
    }
    for (int c = 0; c < nc; c++) {
        if (s->timed_out) {
            if (cb[c] > s->missed)
                s->missed = cb[c];
            s->unexplored += s->raw[k + 1];
            continue;
        }
        if (!(cb[c] > 0) || (!s->o->no_prune && cb[c] < threshold(s))) {
            s->pruned += s->raw[k + 1];
            continue;
        }
        s->place[k] = cn[c];
        s->load[cn[c]]++;
        int cut = shared_cut(s);
        if (cut)
            s->pruned += s->raw[k + 1];
        int rc = cut ? 0 : search_dfs(s, k + 1);
        s->load[cn[c]]--;
        s->place[k] = -1;
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ---- listed candidates ------------------------------------------------------ */

/* Canonical image of a placement: each node of a class with several
 * members becomes the first member not yet used by an earlier task. map:
 * 2 nn scratch (each node's image, then which nodes are taken). */
void search_canonical(const search *s, const int *pl, int *out, int *map)
{
    int *taken = map + s->nn;
    for (int j = 0; j < s->nn; j++) {
        map[j] = -1;
        taken[j] = 0;
    }
    for (int i = 0; i < s->nt; i++) {
        int x = pl[i];
        if (map[x] < 0) {
            /* the first member of x's class not yet taken */
            int r = s->cls[x], y;
            for (y = r; y < s->nn && (s->cls[y] != r || taken[y]); y++)
                ;
            map[x] = y;
            taken[y] = 1;
        }
        out[i] = map[x];
    }
}

int search_run_candidates(search *s)
{
    const skel_search_opts *o = s->o;
    size_t nc = (size_t)o->ncandidates, nt = (size_t)s->nt;
    int *canon = malloc((nc ? nc : 1) * nt * sizeof *canon);
    int *order = malloc((nc ? nc : 1) * sizeof *order);
    double *cb = malloc((nc ? nc : 1) * sizeof *cb);
    int *map = malloc(2 * (size_t)s->nn * sizeof *map);
    int rc = -1;
    if (!canon || !order || !cb || !map) {
        diag_set(s->err, "out of memory");
        goto out;
    }
    s->total = (double)nc;
    for (size_t c = 0; c < nc; c++) {
        const int *pl = o->candidates + c * nt;
        for (size_t i = 0; i < nt; i++) {
            if (pl[i] < 0 || pl[i] >= s->nn) {
                diag_set(s->err, "candidate %zu: task t%zu is not on a node of %s", c + 1, i,
                         s->p->file);
                goto out;
            }
            if (o->allowed && !o->allowed[pl[i]]) {
                diag_set(s->err, "candidate %zu puts t%zu on %s, which the job may not use", c + 1, i,
                         s->p->nodes[pl[i]].name);
                goto out;
            }
            if (o->pins && o->pins[i] >= 0 && o->pins[i] != pl[i]) {
                diag_set(s->err, "candidate %zu puts t%zu on %s, but it is pinned to %s", c + 1, i,
                         s->p->nodes[pl[i]].name, s->p->nodes[o->pins[i]].name);
                goto out;
            }
        }
        search_canonical(s, pl, canon + c * nt, map);
        memcpy(s->place, pl, nt * sizeof *s->place);
        for (size_t i = 0; i < nt; i++)
            s->load[pl[i]]++;
        double b = search_bound(s);
        for (size_t i = 0; i < nt; i++)
            s->load[pl[i]]--;
        size_t q = c;
        while (q > 0 && cb[q - 1] < b) {
            cb[q] = cb[q - 1];
            order[q] = order[q - 1];
            q--;
        }
        cb[q] = b;
        order[q] = (int)c;
    }
    for (size_t q = 0; q < nc; q++) {
        size_t c = (size_t)order[q];
        if (s->timed_out) {
            if (cb[q] > s->missed)
                s->missed = cb[q];
            s->unexplored++;
            continue;
        }
        if (!(cb[q] > 0) || (!o->no_prune && cb[q] < threshold(s))) {
            s->pruned++;
            continue;
        }
        /* An image of a candidate already solved (or listed twice). */
        int seen = 0;
        for (size_t r = 0; r < q && !seen; r++) {
            size_t c2 = (size_t)order[r];
            seen = memcmp(canon + c2 * nt, canon + c * nt, nt * sizeof *canon) == 0;
        }
        if (seen) {
            s->symmetric++;
            continue;
        }
        memcpy(s->place, o->candidates + c * nt, nt * sizeof *s->place);
        if (search_evaluate(s) < 0)
            goto out;
        tick(s);
    }
    rc = 0;
out:
    free(map);
    free(cb);
    free(order);
    free(canon);
    return rc;
}
