/* Makespan of a finite stream of N items.
 *
 * Definition: T(N) is the time at which the expected number of completed
 * items reaches N, where an item completes with each occurrence of the
 * given action (the last task's compute, or the output move), so that
 * E[completions by t] = C(t) = integral over [0, t] of its throughput. This
 * is the expected-count makespan, not the expected time of the N-th
 * completion (they differ by the spread of the completion process, which
 * vanishes relative to T as N grows). The model's item source is assumed
 * not to run dry: the CTMC describes an unbounded stream, and we read off
 * when it has produced N.
 *
 * C is integrated interval by interval with the cubic Hermite rule
 * h/2 (f0 + f1) + h^2/12 (f0' - f1'), exact for cubics (error O(h^5) per
 * interval); f' is the throughput of Q^T pi. Inside the crossing interval
 * the same interpolant is inverted by bisection. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

typedef struct ms_ctx {
    const pepa_space *sp;
    int action;
    double items;
    double *thr;          /* nactions */
    double *dpi;          /* d pi / dt = Q^T pi at the current output */
    double *pi_last;      /* the state at the last output, to continue from */
    double t_prev, f_prev, fp_prev, c; /* previous time, throughput and its
                                          derivative; count so far */
    double found;         /* the crossing time, or -1 */
} ms_ctx;

/* Integral over [0, th h] of the cubic Hermite interpolant of f on [0, h]
 * with end values f0, f1 and slopes d0, d1. */
static double hermite_int(double h, double th, double f0, double d0, double f1, double d1)
{
    double t2 = th * th, t3 = t2 * th, t4 = t3 * th;
    return h * (f0 * (t4 / 2 - t3 + th) + h * d0 * (t4 / 4 - 2 * t3 / 3 + t2 / 2) + f1 * (t3 - t4 / 2) +
                h * d1 * (t4 / 4 - t3 / 3));
}

static int ms_record(void *ctx, int k, double t, const double *pi, diag *err)
{
    ms_ctx *m = ctx;
    const pepa_ctmc *q = m->sp->q;
    if (pepa_space_throughput(m->sp, pi, m->thr, err) < 0)
        return -1;
    double f = m->thr[m->action];
    /* throughput is linear in pi, so its derivative is the throughput of
     * d pi/dt = Q^T pi: the rule below is then exact for cubics */
    for (uint32_t j = 0; j < q->n; j++) {
        double v = -q->out[j] * pi[j];
        for (uint64_t e = q->rowp[j]; e < q->rowp[j + 1]; e++)
            v += q->val[e] * pi[q->col[e]];
        m->dpi[j] = v;
    }
    if (pepa_space_throughput(m->sp, m->dpi, m->thr, err) < 0)
        return -1;
    double fp = m->thr[m->action];
    for (uint32_t i = 0; i < q->n; i++)
        m->pi_last[i] = pi[i];
    if (k > 0 || t > m->t_prev) {
        double h = t - m->t_prev;
        double dc = hermite_int(h, 1, m->f_prev, m->fp_prev, f, fp);
        if (m->c + dc >= m->items && dc > 0) {
            /* C is increasing: bisect the interpolant's integral */
            double lo = 0, hi = 1;
            for (int it = 0; it < 60; it++) {
                double mid = (lo + hi) / 2;
                if (m->c + hermite_int(h, mid, m->f_prev, m->fp_prev, f, fp) < m->items)
                    lo = mid;
                else
                    hi = mid;
            }
            m->found = m->t_prev + (lo + hi) / 2 * h;
            return 1;
        }
        m->c += dc;
    }
    m->t_prev = t;
    m->f_prev = f;
    m->fp_prev = fp;
    return 0;
}

int tr_makespan(const pepa_space *sp, int action, double items, double ss_thr, double max_time,
                int grid, const tr_opts *o, double *t_out, diag *err)
{
    if (action < 0 || action >= sp->sys->nactions)
        return diag_set(err, "makespan: no such action");
    if (!(items > 0) || !(ss_thr > 0))
        return diag_set(err, "makespan: need a positive number of items and a positive steady-state "
                        "throughput (the action never happens in the long run)");
    if (grid < 16)
        grid = 16;
    int rc = -1;
    ms_ctx m = { sp, action, items, NULL, NULL, NULL, 0, 0, 0, 0, -1 };
    double *times = malloc((size_t)(grid + 1) * sizeof *times);
    m.thr = malloc((size_t)sp->sys->nactions * sizeof *m.thr);
    m.pi_last = malloc((size_t)sp->n * sizeof *m.pi_last);
    m.dpi = malloc((size_t)sp->n * sizeof *m.dpi);
    if (!times || !m.thr || !m.pi_last || !m.dpi) {
        diag_set(err, "out of memory");
        goto done;
    }
    double horizon = 2 * items / ss_thr, t0 = 0;
    const double *pi0 = NULL;
    tr_result res;
    for (;;) {
        /* one horizon at a time, continuing from where the last one ended */
        /* The first horizon starts in the initial state, where the fast
         * transients are: quadratic spacing puts small steps there. */
        for (int k = 0; k <= grid; k++)
            times[k] = t0 == 0 ? horizon * ((double)k / grid) * ((double)k / grid) : horizon * k / grid;
        if (t0 == 0) {
            if (tr_solve(sp->q, pi0, times, grid + 1, o, ms_record, &m, &res, err) < 0)
                goto done;
        } else {
            /* times relative to t0; shift the recorder's clock */
            double *pi = malloc((size_t)sp->n * sizeof *pi);
            if (!pi) {
                diag_set(err, "out of memory");
                goto done;
            }
            for (uint32_t i = 0; i < sp->n; i++)
                pi[i] = m.pi_last[i];
            m.t_prev -= t0;
            int r = tr_solve(sp->q, pi, times + 1, grid, o, ms_record, &m, &res, err);
            free(pi);
            if (r < 0)
                goto done;
            m.t_prev += t0;
            if (m.found >= 0)
                m.found += t0;
        }
        if (m.found >= 0 || t0 + horizon >= max_time)
            break;
        t0 += horizon;
        horizon *= 2;
    }
    *t_out = m.found;
    rc = 0;
done:
    free(m.dpi);
    free(m.pi_last);
    free(m.thr);
    free(times);
    return rc;
}
