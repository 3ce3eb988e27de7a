/* bench_approx's scores: a case's error into its sample (and the same
 * case by the method before, by the windows alone), the table's rows. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "bench/bench_approx.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(q * n) - 1;
    return v[k < 0 ? 0 : k];
}

/* One scored case: the approximation's relative error against the exact
 * throughput x (of a chain of states states), and the time each took. */
void ba_record(ba_sample *sm, const char *label, const skel_tree *t, unsigned long states,
               double x, const skel_approx_result *ar, double exact_s, double approx_s)
{
    double e = fabs(ar->throughput / x - 1);
    if (getenv("APPROX_VERBOSE"))
        printf("  %-8s %3d %-50.150s states %7lu exact %-12.6g approx %-12.6g err %6.3f%% it %d\n",
               label, sm->n, skel_tree_file(t), states, x, ar->throughput, 100 * e,
               ar->iterations);
    if (sm->n < BA_NSAMPLE)
        sm->err[sm->n++] = e;
    sm->nwhole += ar->whole;
    sm->exact_s += exact_s;
    sm->approx_s += approx_s;
    sm->states_max = states > sm->states_max ? states : sm->states_max;
}

/* The relative error against x of the approximation with options ao, or
 * -1 when it declines. With mu, by skel_approx_eval (part (a)), else
 * skel_approx_place (part (d)). */
static double alt_eval(const skel_dag *d, const skel_approx_opts *ao, const skel_model *m,
                       const skel_platform *p, const int *pl, const double *mu,
                       const double *lambda, double x, int *whole)
{
    diag e = { 0 };
    skel_approx *b = skel_approx_new(d, ao, &e);
    skel_approx_result r;
    int ok = b && (mu ? skel_approx_eval(b, mu, lambda, p->sharing == SKEL_SHARE_PS ? pl : NULL,
                                         &r, &e)
                      : skel_approx_place(b, m, p, pl, &r, &e)) == 0;
    skel_approx_free(b);
    if (getenv("APPROX_VERBOSE"))   /* under ba_record's line of the same case */
        printf("           windows alone %.3f%%%s\n", ok ? 100 * fabs(r.throughput / x - 1) : 0.0,
               !ok ? " (declined)" : r.estimate ? " (the estimate of last resort)" : "");
    if (ok && whole)
        *whole = r.whole;
    return ok ? fabs(r.throughput / x - 1) : -1;
}

/* The same case by the method before a farm member's window held its
 * siblings and before windows grew past four pipeline tasks or held a
 * small model whole (sibling_states and whole_states 1): its error into
 * sm->before, unless it declined. With mu, by
 * skel_approx_eval (part (a)), else skel_approx_place (part (d)).
 * o: part (f)'s and (g)'s "before" instead (ba_opts). */
void ba_before_err(ba_sample *sm, const ba_opts *o, const skel_dag *d, skel_approx_opts ao,
                   const skel_model *m, const skel_platform *p, const int *pl,
                   const double *mu, const double *lambda, double x)
{
    double t0 = clock_now();
    ao.sibling_states = o->wide_before ? ao.sibling_states : 1;
    ao.whole_states = o->wide_before ? ao.whole_states : 1;
    ao.count_tasks = o->wide_before ? INT_MAX : ao.count_tasks;
    if (o->flows_windows)
        ao.cut_whole_states = 1;   /* part (f): a par's whole model too */
    double err = alt_eval(d, &ao, m, p, pl, mu, lambda, x, NULL);
    if (err >= 0 && sm->nb < BA_NSAMPLE)
        sm->before[sm->nb++] = err;
    sm->before_s += err >= 0 ? clock_now() - t0 : 0;
}

/* The same case by the decomposition alone, every default kept but no
 * window of the whole model (whole_states and cut_whole_states 1): what
 * the rows' cases answered whole (sample.nwhole) would give were they
 * too large for it. Its error into sm->win, unless it declined. */
void ba_windows_err(ba_sample *sm, const skel_dag *d, skel_approx_opts ao, const skel_model *m,
                    const skel_platform *p, const int *pl, const double *mu,
                    const double *lambda, double x)
{
    ao.whole_states = 1;
    ao.cut_whole_states = 1;
    int whole = 0;
    double err = alt_eval(d, &ao, m, p, pl, mu, lambda, x, &whole);
    if (err >= 0 && sm->nw < BA_NSAMPLE) {
        sm->win[sm->nw++] = err;
        sm->nwwhole += whole;
    }
}

/* The other methods on a case the approximation answered (ar; x the
 * exact throughput): the method before (ba_before_err), then the windows
 * alone (ba_windows_err) when the whole model answered, else the answer's
 * own error as theirs (the windows answered already). */
void ba_methods_err(ba_sample *sm, const ba_opts *o, const skel_dag *d, skel_approx_opts ao,
                    const skel_model *m, const skel_platform *p, const int *pl,
                    const double *mu, const double *lambda, double x,
                    const skel_approx_result *ar)
{
    ba_before_err(sm, o, d, ao, m, p, pl, mu, lambda, x);
    if (ar->whole)
        ba_windows_err(sm, d, ao, m, p, pl, mu, lambda, x);
    else if (sm->nw < BA_NSAMPLE)
        sm->win[sm->nw++] = fabs(ar->throughput / x - 1);
}

/* A case the approximation declined to answer (its message, if verbose). */
void ba_refuse(ba_sample *sm, const char *label, const skel_tree *t, const char *why)
{
    sm->refused++;
    if (getenv("APPROX_VERBOSE"))
        printf("  %-8s %-50.150s refused: %s\n", label, skel_tree_file(t), why);
}

/* sm's cases into all (a row of every row above it). */
void ba_pool(ba_sample *all, const ba_sample *sm)
{
    for (int k = 0; k < sm->n && all->n < BA_NSAMPLE; k++)
        all->err[all->n++] = sm->err[k];
    for (int k = 0; k < sm->nb && all->nb < BA_NSAMPLE; k++)
        all->before[all->nb++] = sm->before[k];
    for (int k = 0; k < sm->nw && all->nw < BA_NSAMPLE; k++)
        all->win[all->nw++] = sm->win[k];
    all->nwhole += sm->nwhole;
    all->nwwhole += sm->nwwhole;
    all->exact_s += sm->exact_s;
    all->approx_s += sm->approx_s;
    all->before_s += sm->before_s;
    all->uncovered += sm->uncovered;
    all->too_big += sm->too_big;
    all->refused += sm->refused;
    all->states_max = sm->states_max > all->states_max ? sm->states_max : all->states_max;
}

/* The columns of a table of ba_row's. */
void ba_header(void)
{
    printf("%-8s %5s %9s %9s %9s  %-4s  %10s %10s %9s %9s %4s %4s %4s\n", "case", "n", "median",
           "p95", "max", "goal", "exact s", "approx s", "speedup", "states", "n/c", "big", "ref");
}

/* A sample's row: its errors against the goal, its times; under it the
 * same cases by the windows alone (when some were answered whole) and by
 * the method before (o: which one). */
void ba_row(const char *name, ba_sample *sm, const ba_opts *o)
{
    double med = quantile(sm->err, sm->n, 0.5), p95 = quantile(sm->err, sm->n, 0.95);
    double mx = quantile(sm->err, sm->n, 1.0);
    printf("%-8s %5d %8.3f%% %8.3f%% %8.3f%%  %s  %10.2e %10.2e %8.0fx %9lu %4d %4d %4d\n", name,
           sm->n, 100 * med, 100 * p95, 100 * mx,
           sm->n && med <= 0.01 && p95 <= 0.03 && mx <= 0.05 ? "met " : "MISS",
           sm->n ? sm->exact_s / sm->n : 0, sm->n ? sm->approx_s / sm->n : 0,
           sm->approx_s > 0 ? sm->exact_s / sm->approx_s : 0, sm->states_max, sm->uncovered,
           sm->too_big, sm->refused);
    if (sm->nwhole && sm->nw)   /* the row above holds exact answers: say how many */
        printf("%-8s %5d %8.3f%% %8.3f%% %8.3f%%  (no whole-model rule: %d of the %d answered "
               "whole above, i.e. exactly, by the windows instead; %d of those still one "
               "window of every task)\n",
               "", sm->nw, 100 * quantile(sm->win, sm->nw, 0.5),
               100 * quantile(sm->win, sm->nw, 0.95), 100 * quantile(sm->win, sm->nw, 1.0),
               sm->nwhole, sm->n, sm->nwwhole);
    if (sm->nb == 0)
        return;
    printf("%-8s %5d %8.3f%% %8.3f%% %8.3f%%        %10s %10.2e  (before: %s)\n", "", sm->nb,
           100 * quantile(sm->before, sm->nb, 0.5),
           100 * quantile(sm->before, sm->nb, 0.95), 100 * quantile(sm->before, sm->nb, 1.0), "",
           sm->nb ? sm->before_s / sm->nb : 0,
           o->wide_before ? "such deals never counted, cut by the windows"
                       : "windows of four tasks, no siblings, no whole model");
}
