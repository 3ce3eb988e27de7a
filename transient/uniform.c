/* Uniformisation: pi(t) = sum_k Poisson(k; L t) pi0 P^k with P = I + Q / L
 * and L >= every exit rate. Exact up to the truncation of the Poisson sum,
 * which we bound ourselves (a Fox-Glynn-style window around the mode):
 *
 * The weights are computed relative to the mode m = floor(lt) (w_m = 1) by
 * the ratios w_{k+1}/w_k = lt/(k+1) and w_{k-1}/w_k = k/lt, so nothing
 * overflows or underflows for any lt we can afford to iterate. Beyond the
 * right end R > lt the ratios are <= q = lt/(R+1) < 1, so the mass to the
 * right is <= w_R q / (1 - q); below the left end L < lt the ratios are <=
 * q = L/lt, so the mass to the left is <= w_L q / (1 - q). We extend the
 * window until each bound is <= eps/2 times the partial sum S (a lower
 * bound of the full sum), then divide by S. The dropped mass is then <= eps
 * of the true weights, and since every P^k is stochastic, the 1-norm error
 * of pi(t) is <= 2 eps per output interval (dropping, plus renormalising);
 * intervals add up. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../base/mem.h"

double *tr_poisson_weights(double lt, double eps, long *left, long *right)
{
    if (!(lt > 0)) {
        double *w = malloc(sizeof *w);
        if (w)
            w[0] = 1;
        *left = *right = 0;
        return w;
    }
    if (!(eps > 0))
        eps = 1e-12;
    long m = (long)floor(lt);
    size_t cap_lo = 64, cap_hi = 64, nlo = 0, nhi = 1;
    double *lo = malloc(cap_lo * sizeof *lo), *hi = malloc(cap_hi * sizeof *hi);
    if (!lo || !hi)
        goto oom;
    hi[0] = 1;
    double sum = 1;
    /* downwards: lo[i] is the weight of m - 1 - i */
    long k = m;
    double wk = 1;
    while (k > 0) {
        double q = (double)k / lt;
        if (q < 1 && wk * q / (1 - q) <= eps / 2 * sum)
            break;
        wk *= q;
        k--;
        if (nlo == cap_lo) {
            if (mem_grow((void **)&lo, cap_lo *= 2, sizeof *lo) < 0)
                goto oom;
        }
        lo[nlo++] = wk;
        sum += wk;
    }
    /* upwards: hi[i] is the weight of m + i */
    k = m;
    wk = 1;
    for (;;) {
        double q = lt / (double)(k + 1);
        if (q < 1 && wk * q / (1 - q) <= eps / 2 * sum)
            break;
        wk *= q;
        k++;
        if (nhi == cap_hi) {
            if (mem_grow((void **)&hi, cap_hi *= 2, sizeof *hi) < 0)
                goto oom;
        }
        hi[nhi++] = wk;
        sum += wk;
    }
    double *w = malloc((nlo + nhi) * sizeof *w);
    if (!w)
        goto oom;
    for (size_t i = 0; i < nlo; i++)
        w[i] = lo[nlo - 1 - i] / sum;
    for (size_t i = 0; i < nhi; i++)
        w[nlo + i] = hi[i] / sum;
    *left = m - (long)nlo;
    *right = m + (long)nhi - 1;
    free(lo);
    free(hi);
    return w;
oom:
    free(lo);
    free(hi);
    return NULL;
}

/* v_out = v P = v + (v Q) / L */
static void step(const pepa_ctmc *q, double L, const double *v, double *vo)
{
    for (uint32_t j = 0; j < q->n; j++) {
        double s = v[j] * (1 - q->out[j] / L);
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            s += q->val[k] / L * v[q->col[k]];
        vo[j] = s;
    }
}

int tr_uniform_solve(const pepa_ctmc *q, const double *pi0, const double *times, int ntimes,
                     const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err)
{
    size_t n = q->n;
    double *pi = malloc(n * sizeof *pi), *v = malloc(n * sizeof *v), *v2 = malloc(n * sizeof *v2),
           *acc = malloc(n * sizeof *acc), *buf = malloc(n * sizeof *buf);
    int rc = -1;
    if (!pi || !v || !v2 || !acc || !buf) {
        diag_set(err, "out of memory for %zu states", n);
        goto done;
    }
    if (pi0)
        memcpy(pi, pi0, n * sizeof *pi);
    else {
        memset(pi, 0, n * sizeof *pi);
        pi[0] = 1;
    }
    double L = 0;
    for (size_t j = 0; j < n; j++)
        L = q->out[j] > L ? q->out[j] : L;
    res->lambda = L;
    double tprev = 0;
    for (int k = 0; k < ntimes; k++) {
        double dt = times[k] - tprev;
        if (dt > 0 && L > 0) {
            long left, right;
            double *w = tr_poisson_weights(L * dt, o->eps, &left, &right);
            if (!w) {
                diag_set(err, "out of memory for the Poisson weights of L t = %g", L * dt);
                goto done;
            }
            if (right > o->max_steps) {
                diag_set(err, "uniformisation needs %ld vector-matrix products for an interval of "
                         "%g (rate %g), more than the limit of %ld; use --method cvode",
                         right, dt, L, o->max_steps);
                free(w);
                goto done;
            }
            memcpy(v, pi, n * sizeof *v);
            memset(acc, 0, n * sizeof *acc);
            for (long i = 0; i <= right; i++) {
                if (i >= left) {
                    double wi = w[i - left];
                    for (size_t j = 0; j < n; j++)
                        acc[j] += wi * v[j];
                }
                if (i < right) {
                    step(q, L, v, v2);
                    double *t = v;
                    v = v2;
                    v2 = t;
                }
            }
            res->steps += right;
            free(w);
            double *t = pi;
            pi = acc;
            acc = t;
        }
        tprev = times[k];
        int r = tr_emit(pi, (long)n, 1, buf, res, out, ctx, k, times[k], err);
        if (r < 0)
            goto done;
        if (r > 0)
            break;
    }
    rc = 0;
done:
    free(buf);
    free(acc);
    free(v2);
    free(v);
    free(pi);
    return rc;
}
