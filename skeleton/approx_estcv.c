/* skeleton/approx_estcv.c: the estimate of last resort's statistics
 * (approx_est.c's recursion and approx_des.c's events both): its batch
 * means, its sequential stopping rule, and its control variate
 * (docs/approximation.md "The estimate's cost").
 *
 * A control variate (Lavenberg and Welch 1981; for the throughput of
 * queueing networks, Lavenberg, Moeller and Welch 1982): every time the
 * samplers draw (a task's work, a move, a hand-off) is added, less its
 * mean, to its group's sum (skel_approx est_z: per task, per edge, the
 * hand-offs). Each draw is made before its value is known to anything,
 * so each sum is a martingale: its change over any run of items has mean
 * 0 exactly, whatever the model. Where the items' time is driven by the
 * draws (a bottleneck's work, its moves), the time of a batch of items
 * and the change of the right sums are strongly correlated, and the
 * batches' time per item regressed on the control, taken at the control's
 * known mean 0, has a smaller variance than the plain batch mean, without
 * bias from the control (its coefficient is estimated: a bias of order
 * 1/n, as the ratio's own). Which sums, weighted how: a pilot within the
 * warm-up (ax_est_pilot) fits the time of short chunks on candidates
 * (each task's cycle: its work and its moves' sums; its work alone; every
 * draw), AX_EST_PICKS of them chosen greedily, and their fitted weights
 * make one control; the batches then estimate its coefficient afresh,
 * so that the half-width is the regression's own (Student's t with 8
 * degrees of freedom, widened for the repeated looks as the plain
 * one's). Private header approx_int.h. */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rate of m sub-batches of nb items taking dt[0..m) seconds, and
 * (*se) its standard error by batch means: AX_EST_BATCHES batches of m /
 * AX_EST_BATCHES consecutive sub-batches each (m a multiple of
 * AX_EST_BATCHES), their rates' standard deviation over the square root
 * of their number. -1 when no time passed. */
double ax_est_look(const double *dt, int m, long nb, double *se)
{
    double x[AX_EST_BATCHES], t = 0, mean = 0, v = 0;
    int g = m / AX_EST_BATCHES;
    for (int k = 0; k < AX_EST_BATCHES; k++) {
        double b = 0;
        for (int q = k * g; q < (k + 1) * g; q++)
            b += dt[q];
        x[k] = b > 0 ? (double)(g * nb) / b : 0;
        mean += x[k] / AX_EST_BATCHES;
        t += b;
    }
    for (int k = 0; k < AX_EST_BATCHES; k++)
        v += (x[k] - mean) * (x[k] - mean) / (AX_EST_BATCHES - 1);
    *se = sqrt(v / AX_EST_BATCHES);
    return t > 0 ? (double)(m * nb) / t : -1;
}

/* As ax_est_look, with the control's change c[0..m) per sub-batch: per
 * batch its seconds per item y and its control per item u, y regressed on
 * u, the mean time per item the fit at u = 0 (the control's mean), its
 * variance the regression's (s^2 (1/n + u_mean^2 / Suu), n - 2 degrees of
 * freedom); the rate its inverse, the standard error by the delta method.
 * -1 when the control does not vary or the fit is not a time. */
double ax_est_look_cv(const double *dt, const double *c, int m, long nb, double *se)
{
    enum { N = AX_EST_BATCHES };
    double y[N], u[N], ym = 0, um = 0, syy = 0, suu = 0, suy = 0;
    int g = m / N;
    for (int k = 0; k < N; k++) {
        y[k] = u[k] = 0;
        for (int q = k * g; q < (k + 1) * g; q++) {
            y[k] += dt[q] / (double)(g * nb);
            u[k] += c[q] / (double)(g * nb);
        }
        ym += y[k] / N;
        um += u[k] / N;
    }
    for (int k = 0; k < N; k++) {
        syy += (y[k] - ym) * (y[k] - ym);
        suu += (u[k] - um) * (u[k] - um);
        suy += (u[k] - um) * (y[k] - ym);
    }
    if (!(suu > 0))
        return -1;
    double beta = suy / suu, fit = ym - beta * um, sse = syy - beta * suy;
    double var = (sse > 0 ? sse : 0) / (N - 2) * (1.0 / N + um * um / suu);
    *se = sqrt(var) / (fit * fit);
    return fit > 0 ? 1 / fit : -1;
}

/* The looks: counted items, each about 1.5 times the last, whole
 * sub-batches regrouped into AX_EST_BATCHES equal batches, the last on the
 * cap. Geometric, so that a case needing n items counts at most 1.5 n
 * (plus the first look), with few looks for the constant to cover. */
const long ax_est_looks[AX_EST_NLOOKS] = { 5000, 7500, 12500, 20000, 30000, 45000, 67500,
                                           AX_EST_ITEMS };
_Static_assert(AX_EST_ITEMS % (AX_EST_SUB * AX_EST_BATCHES) == 0 &&
               5000 % (AX_EST_SUB * AX_EST_BATCHES) == 0 &&
               7500 % (AX_EST_SUB * AX_EST_BATCHES) == 0 &&
               67500 % (AX_EST_SUB * AX_EST_BATCHES) == 0,
               "each look's sub-batches split into equal batches");
_Static_assert(AX_EST_PILOT * AX_EST_CHUNK < AX_EST_WARM, "the pilot is within the warm-up");

/* The control's change since *prev (cv's weights over its groups' sums),
 * prev brought up to now. 0 without a control. */
static double control_step(const ax_est_cv *cv, double *prev)
{
    double c = 0;
    for (int g = 0; cv && cv->w && g < cv->nz; g++) {
        c += cv->w[g] * (cv->z[g] - prev[g]);
        prev[g] = cv->z[g];
    }
    return c;
}

/* One look at m sub-batches: the rate and its half-width (*half), by the
 * control where it varies (its critical value), else plain. */
static double look(const double *dt, const double *c, int m, int with_cv, double *half)
{
    double se, x = with_cv ? ax_est_look_cv(dt, c, m, AX_EST_SUB, &se) : -1;
    if (x > 0) {
        *half = AX_EST_CRIT_CV * se;
        return x;
    }
    x = ax_est_look(dt, m, AX_EST_SUB, &se);
    *half = AX_EST_CRIT * se;
    return x;
}

/* Batch means, stopped sequentially on the half-width: ax_est_looks[0]
 * items counted in sub-batches of AX_EST_SUB, their AX_EST_BATCHES
 * batches' 95% half-width checked, and while it is above AX_EST_REL of
 * the rate more items run up to the next look (the batches regrouped),
 * up to AX_EST_ITEMS items; with cv's control (cv
 * NULL or its weights NULL: none), per sub-batch its change too. The
 * half-width is AX_EST_CRIT standard errors (AX_EST_CRIT_CV with the
 * control), not Student's t (2.262 for 9 degrees of freedom): a check
 * passes more often when its half-width happens to be low, so that with t
 * the interval where the rule stopped held the rate 92-94% of the time
 * (bench_approx cov, docs/approximation.md "The estimate's cost"). prev:
 * scratch of cv->nz. */
double ax_est_batches(ax_est_run run, void *ctx, const ax_est_cv *cv, double *prev, double t0,
                      double *half, long *items)
{
    enum { MAXSUB = AX_EST_ITEMS / AX_EST_SUB };
    double dt[MAXSUB], c[MAXSUB], t = t0, rate = -1;
    int m = 0, with_cv = cv && cv->w;
    for (int g = 0; with_cv && g < cv->nz; g++)
        prev[g] = cv->z[g];
    for (int k = 0; t0 >= 0 && k < AX_EST_NLOOKS; k++) {
        for (int goal = (int)(ax_est_looks[k] / AX_EST_SUB); m < goal; m++) {
            double t1 = run(ctx, AX_EST_SUB, t);
            if (t1 < 0)
                return -1;
            dt[m] = t1 - t;
            c[m] = control_step(cv, prev);
            t = t1;
        }
        rate = look(dt, c, m, with_cv, half);
        *items = (long)m * AX_EST_SUB;
        if (rate < 0 || *half <= AX_EST_REL * rate)
            return rate;
    }
    return rate;
}

/* The pilot's candidates for one chunk, from its groups' changes dz: per
 * task its cycle (its work's and its moves' sums), per task its work
 * alone, and every draw: 2T + 1 of them into row. */
static void pilot_row(const skel_approx *a, const double *dz, double *row)
{
    int T = a->ntasks;
    double all = 0;
    for (int i = 0; i < T; i++)
        row[i] = row[T + i] = dz[i];
    for (int e = 0; e < a->nedges; e++) {
        const skel_edge *ed = &a->d->edges[e];
        if (ed->from >= 0)
            row[ed->from] += dz[T + e];
        if (ed->to >= 0)
            row[ed->to] += dz[T + e];
    }
    for (int g = 0; g <= T + a->nedges; g++)
        all += dz[g];
    row[2 * T] = all;
}

/* Solves the n x n system m x = b (n <= AX_EST_PICKS + 1) into b by
 * elimination with partial pivoting: 0, or -1 when singular (a pivot
 * below AX_EST_PIVOT of its column's scale: a candidate the others
 * nearly make, whose coefficient would be noise). */
static int small_solve(double m[AX_EST_PICKS + 1][AX_EST_PICKS + 1], double *b, int n)
{
    double scale[AX_EST_PICKS + 1];   /* each column's largest, before elimination */
    for (int i = 0; i < n; i++) {
        scale[i] = 0;
        for (int r = 0; r < n; r++)
            scale[i] = fmax(scale[i], fabs(m[r][i]));
    }
    for (int i = 0; i < n; i++) {
        int p = i;
        for (int r = i + 1; r < n; r++)
            p = fabs(m[r][i]) > fabs(m[p][i]) ? r : p;
        if (!(fabs(m[p][i]) > AX_EST_PIVOT * scale[i]))
            return -1;
        for (int k = 0; k < n; k++) {
            double x = m[i][k];
            m[i][k] = m[p][k];
            m[p][k] = x;
        }
        double x = b[i];
        b[i] = b[p];
        b[p] = x;
        for (int r = i + 1; r < n; r++) {
            double f = m[r][i] / m[i][i];
            for (int k = i; k < n; k++)
                m[r][k] -= f * m[i][k];
            b[r] -= f * b[i];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++)
            b[i] -= m[i][k] * b[k];
        b[i] /= m[i][i];
    }
    return 0;
}

/* The pilot's chunk times regressed on a constant and the candidates
 * picks[0..q): their coefficients into beta[0..q] (beta[0] the
 * constant), the residual sum of squares returned (INFINITY: singular). */
static double pilot_fit(const skel_approx *a, const int *picks, int q, double *beta)
{
    int K = 2 * a->ntasks + 1;
    double m[AX_EST_PICKS + 1][AX_EST_PICKS + 1] = { { 0 } }, x[AX_EST_PICKS + 1];
    for (int k = 0; k <= q; k++)
        beta[k] = 0;
    for (int c = 0; c < AX_EST_PILOT; c++) {
        x[0] = 1;
        for (int k = 0; k < q; k++)
            x[k + 1] = a->est_pilot[c * K + picks[k]];
        for (int i = 0; i <= q; i++) {
            beta[i] += x[i] * a->est_pdt[c];
            for (int k = 0; k <= q; k++)
                m[i][k] += x[i] * x[k];
        }
    }
    if (small_solve(m, beta, q + 1) < 0)
        return INFINITY;
    double sse = 0;
    for (int c = 0; c < AX_EST_PILOT; c++) {
        double r = a->est_pdt[c] - beta[0];
        for (int k = 0; k < q; k++)
            r -= beta[k + 1] * a->est_pilot[c * K + picks[k]];
        sse += r * r;
    }
    return sse;
}

/* Greedily, up to AX_EST_PICKS candidates, each the one that lowers the
 * pilot's residual most; their number returned, the last fit in beta;
 * none (0) unless the fit leaves below AX_EST_CV_KEEP of the chunk
 * times' own sum of squares (a control that explains little costs the
 * batches a degree of freedom and its coefficient's noise for nothing). */
static int pilot_pick(const skel_approx *a, int *picks, double *beta)
{
    double sst = pilot_fit(a, picks, 0, beta);
    int K = 2 * a->ntasks + 1, q = 0;
    for (; q < AX_EST_PICKS && q < K; q++) {
        double best = INFINITY, b[AX_EST_PICKS + 1];
        int pick = -1;
        for (int k = 0; k < K; k++) {
            int taken = 0;
            for (int j = 0; j < q; j++)
                taken |= picks[j] == k;
            picks[q] = k;
            double r = taken ? INFINITY : pilot_fit(a, picks, q + 1, b);
            if (r < best) {
                best = r;
                pick = k;
            }
        }
        if (pick < 0)
            break;
        picks[q] = pick;
    }
    return q > 0 && pilot_fit(a, picks, q, beta) < AX_EST_CV_KEEP * sst ? q : 0;
}

/* The control's weight per group (est_w) from the picks' coefficients:
 * a cycle's weight on its task's work and its moves, a work's on it,
 * every draw's on all. */
static void pilot_weights(skel_approx *a, const int *picks, int q, const double *beta)
{
    int T = a->ntasks, G = T + a->nedges + 1;
    for (int g = 0; g < G; g++)
        a->est_w[g] = 0;
    for (int j = 0; j < q; j++) {
        int k = picks[j];
        double b = beta[j + 1];
        for (int g = 0; k == 2 * T && g < G; g++)
            a->est_w[g] += b;
        if (k >= T && k < 2 * T)
            a->est_w[k - T] += b;
        if (k >= T)
            continue;
        a->est_w[k] += b;
        for (int e = 0; e < a->nedges; e++)
            a->est_w[T + e] += a->d->edges[e].from == k || a->d->edges[e].to == k ? b : 0;
    }
}

/* The pilot: AX_EST_PILOT chunks of AX_EST_CHUNK items from *t (the
 * sampler's time, brought up to their end), their times and candidates,
 * the control's weights fitted into est_w (cv->w set, or NULL when no
 * fit). -1 when the sampler cannot run. */
int ax_est_pilot(ax_est_run run, void *ctx, skel_approx *a, ax_est_cv *cv, double *t)
{
    int K = 2 * a->ntasks + 1, G = a->ntasks + a->nedges + 1, picks[AX_EST_PICKS] = { 0 };
    double beta[AX_EST_PICKS + 1];
    cv->z = a->est_z;
    cv->nz = G;
    cv->w = NULL;
    for (int g = 0; g < G; g++)
        a->est_prev[g] = a->est_z[g];
    for (int c = 0; c < AX_EST_PILOT; c++) {
        double t1 = run(ctx, AX_EST_CHUNK, *t);
        if (t1 < 0)
            return -1;
        a->est_pdt[c] = t1 - *t;
        *t = t1;
        for (int g = 0; g < G; g++) {   /* the groups' changes, in est_w meanwhile */
            a->est_w[g] = a->est_z[g] - a->est_prev[g];
            a->est_prev[g] = a->est_z[g];
        }
        pilot_row(a, a->est_w, a->est_pilot + (size_t)c * K);
    }
    int q = pilot_pick(a, picks, beta);
    if (q > 0) {
        pilot_weights(a, picks, q, beta);
        cv->w = a->est_w;
    }
    return 0;
}
