/* Options, method names and the output step shared by every integrator. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void tr_opts_init(tr_opts *o)
{
    memset(o, 0, sizeof *o);
    o->method = TR_CVODE;
    o->linsol = TR_LS_AUTO;
    o->rtol = 1e-8;
    o->atol = 1e-12;
    o->eps = 1e-12;
    o->max_steps = 100000000L;
    o->delta = 1e-7;
}

const char *tr_method_name(tr_method m)
{
    return m == TR_UNIFORM ? "uniformisation" : "cvode";
}

int tr_method_parse(const char *name, tr_method *m)
{
    if (strcmp(name, "cvode") == 0 || strcmp(name, "bdf") == 0)
        *m = TR_CVODE;
    else if (strcmp(name, "uniformisation") == 0 || strcmp(name, "uniformization") == 0 ||
             strcmp(name, "uniform") == 0)
        *m = TR_UNIFORM;
    else
        return -1;
    return 0;
}

int tr_check_times(const double *times, int ntimes, diag *err)
{
    if (ntimes < 1)
        return diag_set(err, "no output times");
    for (int k = 0; k < ntimes; k++) {
        if (!isfinite(times[k]) || times[k] < 0)
            return diag_set(err, "output time %g is not a finite time >= 0", times[k]);
        if (k && times[k] < times[k - 1])
            return diag_set(err, "output times must not decrease (%g after %g)", times[k], times[k - 1]);
    }
    return 0;
}

int tr_emit(const double *y, long n, int prob, double *buf, tr_result *res, tr_output_fn out,
            void *ctx, int k, double t, diag *err)
{
    double sum = 0;
    long neg = 0;
    for (long i = 0; i < n; i++) {
        buf[i] = y[i];
        sum += y[i];
    }
    if (!isfinite(sum))
        return diag_set(err, "the solution is not finite at t = %g", t);
    if (prob) {
        if (fabs(sum - 1) > res->mass_error)
            res->mass_error = fabs(sum - 1);
        /* Integration error may leave tiny negatives; measures must not see
         * them, but the user must know when it happened. */
        double s2 = 0;
        for (long i = 0; i < n; i++) {
            if (buf[i] < 0) {
                if (buf[i] < res->most_negative)
                    res->most_negative = buf[i];
                buf[i] = 0;
                neg++;
            }
            s2 += buf[i];
        }
        if (neg) {
            res->clipped += neg;
            snprintf(res->warning, sizeof res->warning,
                     "warning: %ld negative probabilit%s clipped to 0 (most negative %.3g); "
                     "tighten --rtol/--atol if this matters", res->clipped,
                     res->clipped == 1 ? "y" : "ies", res->most_negative);
        }
        if (s2 > 0)
            for (long i = 0; i < n; i++)
                buf[i] /= s2;
    }
    return out(ctx, k, t, buf, err);
}
