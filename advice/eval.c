/* advice/eval.c: the Markov model's throughput and utilisations of one
 * placed skeleton: generate (skel_model_new), derive and solve through the
 * placement search restricted to that one placement. */
#include "advice.h"

#include <stdlib.h>
#include <string.h>

void adv_eval_free(adv_eval *e)
{
    free(e->task_util);
    free(e->task_thr);
    free(e->mu);
    free(e->send_time);
    memset(e, 0, sizeof *e);
}

int adv_evaluate(const skel_tree *t, skel_style style, const skel_platform *p, const int *place,
                 adv_eval *out, diag *err)
{
    memset(out, 0, sizeof *out);
    int nt = skel_tree_ntasks(t);
    skel_dag *d = NULL;
    skel_model *m = NULL;
    skel_search_result *r = NULL;
    double *lambda = NULL;
    int rc = -1;
    if (!(d = skel_dag_build(t, style, err)) || !(m = skel_model_new_placed(t, d, p, NULL, err)))
        goto done;
    size_t per = (size_t)(nt > 0 ? nt : 1);
    out->task_util = malloc(per * sizeof *out->task_util);
    out->task_thr = malloc(per * sizeof *out->task_thr);
    out->mu = malloc(per * sizeof *out->mu);
    out->send_time = calloc(per, sizeof *out->send_time);
    lambda = malloc((size_t)(m->nedges > 0 ? m->nedges : 1) * sizeof *lambda);
    if (!out->task_util || !out->task_thr || !out->mu || !out->send_time || !lambda) {
        diag_set(err, "out of memory");
        goto done;
    }
    if (skel_place_rates(m, p, place, out->mu, lambda, err) < 0)
        goto done;
    for (int e = 0; e < m->nedges; e++) {
        int from = m->edges[e].from;
        if (from >= 0 && 1 / lambda[e] > out->send_time[from])
            out->send_time[from] = 1 / lambda[e];
    }
    if (!(r = skel_search_one(m, d, p, place, 0, err)))
        goto done;
    const skel_search_entry *e = &r->ranked[0];
    /* advice reads every task's utilisation and replicates the
     * bottleneck: an answer that knows neither cannot be advised on */
    if (e->bottleneck == SKEL_BOTTLENECK_UNKNOWN) {
        diag_set(err, "the tasks' utilisations of this placement are unknown (an estimate), so there is no bottleneck to advise on");
        goto done;
    }
    out->ntasks = nt;
    out->bottleneck = e->bottleneck;
    out->states = r->states;
    for (int i = 0; i < nt; i++) {
        out->task_util[i] = e->task_util[i];
        out->task_thr[i] = e->task_util[i] * out->mu[i];
    }
    out->throughput = e->throughput;   /* the job's: items through the skeleton */
    rc = 0;
done:
    if (rc)
        adv_eval_free(out);
    free(lambda);
    skel_search_result_free(r);
    skel_model_free(m);
    skel_dag_free(d);
    return rc;
}
