/* tr_solve: check the input, then integrate by the method asked for
 * (CVODE's BDF in cvode.c, uniformisation in uniform.c). */
#include <math.h>
#include <string.h>

#include "internal.h"

int tr_solve(const pepa_ctmc *q, const double *pi0, const double *times, int ntimes,
             const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err)
{
    tr_opts def;
    if (!o) {
        tr_opts_init(&def);
        o = &def;
    }
    memset(res, 0, sizeof *res);
    if (q->n == 0)
        return diag_set(err, "the chain has no states");
    if (tr_check_times(times, ntimes, err) < 0)
        return -1;
    if (pi0) {
        double s = 0;
        for (uint32_t i = 0; i < q->n; i++) {
            if (!(pi0[i] >= 0))
                return diag_set(err, "initial distribution: entry %u is negative or NaN", i);
            s += pi0[i];
        }
        if (fabs(s - 1) > 1e-9)
            return diag_set(err, "initial distribution sums to %.12g, not 1", s);
    }
    if (o->method == TR_UNIFORM)
        return tr_uniform_solve(q, pi0, times, ntimes, o, out, ctx, res, err);
    return tr_cvode_solve(q, pi0, times, ntimes, o, out, ctx, res, err);
}
