/* Measures over time: throughput of every action and local-state measures
 * at each output time, and when throughput settles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

tr_series *tr_series_new(const pepa_system *s, const double *times, int ntimes)
{
    tr_series *ser = calloc(1, sizeof *ser);
    if (!ser)
        return NULL;
    ser->ntimes = ntimes;
    ser->nactions = s->nactions;
    ser->nleaves = s->nleaves;
    ser->times = malloc((size_t)ntimes * sizeof *ser->times);
    ser->thr = calloc((size_t)ntimes * (size_t)s->nactions, sizeof *ser->thr);
    ser->local = calloc((size_t)s->nleaves, sizeof *ser->local);
    if (!ser->times || !ser->thr || !ser->local) {
        tr_series_free(ser);
        return NULL;
    }
    memcpy(ser->times, times, (size_t)ntimes * sizeof *times);
    for (int i = 0; i < s->nleaves; i++) {
        int ns = s->seqs[s->nodes[s->leaves[i]].seq].nstates;
        if (!(ser->local[i] = calloc((size_t)ntimes * (size_t)ns, sizeof **ser->local))) {
            tr_series_free(ser);
            return NULL;
        }
    }
    return ser;
}

void tr_series_free(tr_series *ser)
{
    if (!ser)
        return;
    if (ser->local)
        for (int i = ser->nleaves - 1; i >= 0; i--)
            free(ser->local[i]);
    free(ser->local);
    free(ser->thr);
    free(ser->times);
    free(ser);
}

int tr_series_record(void *ctx, int k, double t, const double *pi, diag *err)
{
    (void)t;
    tr_series *ser = ctx;
    const pepa_space *sp = ser->sp;
    if (!sp || k < 0 || k >= ser->ntimes)
        return diag_set(err, "tr_series_record: no state space or time index out of range");
    if (pepa_space_throughput(sp, pi, ser->thr + (size_t)k * (size_t)ser->nactions, err) < 0)
        return -1;
    for (int i = 0; i < ser->nleaves; i++) {
        int ns = sp->sys->seqs[sp->sys->nodes[sp->sys->leaves[i]].seq].nstates;
        pepa_space_local(sp, pi, i, ser->local[i] + (size_t)k * (size_t)ns);
    }
    return 0;
}

double *tr_times_linear(double until, int n)
{
    if (n < 2)
        n = 2;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return NULL;
    for (int k = 0; k < n; k++)
        t[k] = until * k / (n - 1);
    t[n - 1] = until;
    return t;
}

double tr_settle_time(const tr_series *ser, int action, double ss, double tol)
{
    double bound = tol * fabs(ss);
    double settle = -1;
    /* scan backwards: the earliest time after which every point is close */
    for (int k = ser->ntimes - 1; k >= 0; k--) {
        if (fabs(ser->thr[(size_t)k * (size_t)ser->nactions + (size_t)action] - ss) > bound)
            break;
        settle = ser->times[k];
    }
    return settle;
}
