/* advice/sweep.c: the throughput of a skeleton and of its replications as
 * the rate of some stages varies - Yaikhom et al. 2007's Fig. 5 (a pipeline with a
 * bottleneck stage against the same pipeline with uniform rates) and
 * Fig. 6 (the bottleneck replicated as a deal or a farm of 2 and 3). */
#include "advice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void adv_sweep_free(adv_sweep *s)
{
    for (int c = 0; s->col && c < s->ncols; c++)
        free(s->col[c]);
    free(s->col);
    free(s->x);
    free(s->y);
    memset(s, 0, sizeof *s);
}

static int eval_tree(const skel_tree *t, const skel_platform *p, const int *pl, skel_style st,
                     double *thr, int *bn, diag *err)
{
    adv_eval ev;
    if (adv_evaluate(t, st, p, pl, &ev, err) < 0)
        return -1;
    *thr = ev.throughput;
    if (bn)
        *bn = ev.bottleneck;
    adv_eval_free(&ev);
    return 0;
}

/* One row: every column at value x. */
static int row(const skel_tree *t, const skel_platform *p, const int *place, const int *free_nodes,
               const adv_sweep_opts *o, adv_sweep *s, int kmax, double x, double *rate,
               double *y, int *pl, diag *err)
{
    int nt = skel_tree_ntasks(t);
    for (int i = 0; i < nt; i++)
        rate[i] = 0;
    for (int i = 0; i < o->nswept; i++)
        rate[o->swept[i]] = x;
    skel_tree *cur = adv_with_rates(t, rate, err);
    rate[s->task] = x;
    skel_tree *uni = cur ? adv_with_rates(t, rate, err) : NULL;
    int rc = -1, col = 2;
    if (!uni || eval_tree(uni, p, place, o->style, &y[0], NULL, err) < 0 ||
        eval_tree(cur, p, place, o->style, &y[1], NULL, err) < 0)
        goto done;
    for (int kind = 0; kind < 2; kind++)
        for (int n = 2; n <= kmax; n++) {
            skel_tree *u = adv_replicate(cur, s->task, kind ? SKEL_FARM : SKEL_DEAL, n, err);
            if (!u)
                goto done;
            for (int i = 0; i < nt; i++)
                pl[i <= s->task ? i : i + n - 1] = place[i];
            for (int r = 1; r < n; r++)
                pl[s->task + r] = free_nodes[r - 1];
            int e = eval_tree(u, p, pl, o->style, &y[col++], NULL, err);
            skel_tree_free(u);
            if (e < 0)
                goto done;
        }
    rc = 0;
done:
    skel_tree_free(uni);
    skel_tree_free(cur);
    return rc;
}

int adv_sweep_run(const skel_tree *t, const skel_platform *p, const int *place,
                  const adv_sweep_opts *o, adv_sweep *out, diag *err)
{
    memset(out, 0, sizeof *out);
    int nt = skel_tree_ntasks(t);
    if (!(o->step > 0) || !(o->to >= o->from) || !(o->from > 0))
        return diag_set(err, "sweep: need 0 < FROM <= TO and STEP > 0");
    double np = floor((o->to - o->from) / o->step + 1e-9) + 1;
    if (np > 10000)
        return diag_set(err, "sweep: %.0f values, at most 10000", np);
    for (int i = 0; i < o->nswept; i++)
        if (o->swept[i] < 0 || o->swept[i] >= nt)
            return diag_set(err, "sweep: no task t%d (the skeleton has t0..t%d)", o->swept[i],
                            nt - 1);
    int kmax0 = o->max_replicas > 0 ? o->max_replicas : 3;
    int *free_nodes = malloc((size_t)(p->nnodes + 1) * sizeof *free_nodes);
    double *rate = malloc((size_t)nt * sizeof *rate);
    int *pl = malloc((size_t)(nt + kmax0) * sizeof *pl);
    int rc = -1;
    if (!free_nodes || !rate || !pl) {
        diag_set(err, "out of memory");
        goto done;
    }
    int nfree = adv_free_nodes(p, nt, place, free_nodes);
    int kmax = kmax0 < nfree + 1 ? kmax0 : nfree + 1;
    out->npoints = (int)np;
    out->task = o->task;
    if (out->task < 0) {
        for (int i = 0; i < nt; i++)
            rate[i] = 0;
        for (int i = 0; i < o->nswept; i++)
            rate[o->swept[i]] = o->from;
        skel_tree *first = adv_with_rates(t, rate, err);
        double thr;
        int e = first ? eval_tree(first, p, place, o->style, &thr, &out->task, err) : -1;
        skel_tree_free(first);
        if (e < 0)
            goto done;
    }
    if (out->task >= nt) {
        diag_set(err, "no task t%d (the skeleton has t0..t%d)", out->task, nt - 1);
        goto done;
    }
    out->ncols = 2 + 2 * (kmax > 1 ? kmax - 1 : 0);
    out->col = calloc((size_t)out->ncols, sizeof *out->col);
    out->x = malloc((size_t)out->npoints * sizeof *out->x);
    out->y = malloc((size_t)out->npoints * (size_t)out->ncols * sizeof *out->y);
    if (!out->col || !out->x || !out->y) {
        diag_set(err, "out of memory");
        goto done;
    }
    for (int c = 0; c < out->ncols; c++) {
        char name[32];
        if (c < 2)
            snprintf(name, sizeof name, "%s", c ? "current" : "uniform");
        else
            snprintf(name, sizeof name, "%s%d", c - 2 < kmax - 1 ? "deal" : "farm",
                     2 + (c - 2) % (kmax - 1));
        if (!(out->col[c] = malloc(strlen(name) + 1))) {
            diag_set(err, "out of memory");
            goto done;
        }
        strcpy(out->col[c], name);
    }
    for (int k = 0; k < out->npoints; k++) {
        out->x[k] = o->from + k * o->step;
        if (row(t, p, place, free_nodes, o, out, kmax, out->x[k], rate,
                out->y + (size_t)k * (size_t)out->ncols, pl, err) < 0)
            goto done;
    }
    rc = 0;
done:
    free(pl);
    free(rate);
    free(free_nodes);
    if (rc)
        adv_sweep_free(out);
    return rc;
}
