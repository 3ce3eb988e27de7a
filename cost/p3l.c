/* cost/p3l.c: Zavanella 1999's P3L Pipe and Farm on a BSP computer: service
 * times (eq. 1-4), the grain and merge rules of §3, and the optimal farm
 * degree and grain (eq. 5-9).
 *
 * The text of eq. 6 and eq. 9 in our copy of the seed is garbled by the
 * extraction (fraction bars and floor bars lost), so n^ is computed here
 * from what eq. 6 and 9 are stated to achieve: the smallest integer n that
 * satisfies eq. 5 (both eq. 3 and eq. 4 below T_e) for the grain k^ of
 * eq. 7, or eq. 4 below 2 g d0 (1 + 1/prec) for the grain of eq. 8. Its
 * worker term reduces to the legible part of eq. 6, |(2 g d0 + tf)/T_e| + 1,
 * when (2 g N_1/2 + l)/k^ = T_e. */
#include "cost.h"

#include <math.h>

double cost_p3l_stage(const cost_bsp *b, double t, double din, double dout, double k)
{
    return t * k + b->l + b->g * k * (din + dout) + 2 * b->g * b->nhalf;
}

double cost_p3l_pipe(const cost_bsp *b, int z, const double *t, const double *d, double k,
                     double te)
{
    double worst = k * te;
    for (int i = 0; i < z; i++) {
        double s = cost_p3l_stage(b, t[i], d[i], d[i + 1], k);
        if (s > worst)
            worst = s;
    }
    return worst;
}

/* S(i) of §3: the stage's time per item without the per-superstep terms. */
static double stage_s(const cost_bsp *b, const double *t, const double *d, int i)
{
    return t[i] + b->g * (d[i] + d[i + 1]);
}

double cost_p3l_grain(const cost_bsp *b, int z, const double *t, const double *d, double te)
{
    double worst = 0;
    for (int i = 0; i < z; i++)
        worst = fmax(worst, stage_s(b, t, d, i));
    if (!(worst < te))
        return 1;
    return fmax(1, (b->l + 2 * b->g * b->nhalf) / (te - worst));
}

int cost_p3l_mergeable(const cost_bsp *b, int z, const double *t, const double *d, int j)
{
    if (j < 0 || j + 1 >= z)
        return 0;
    double worst = 0;
    for (int i = 0; i < z; i++)
        worst = fmax(worst, stage_s(b, t, d, i));
    return stage_s(b, t, d, j) + stage_s(b, t, d, j + 1) < worst;
}

double cost_p3l_emitter(const cost_bsp *b, double d0, int n, double k)
{
    return 2 * b->g * d0 + b->g * b->nhalf / k + (b->g * b->nhalf + b->l) / (n * k);
}

double cost_p3l_worker(const cost_bsp *b, double d0, double tf, int n, double k)
{
    return (2 * b->g * d0 + tf) / n + (2 * b->g * b->nhalf + b->l) / (n * k);
}

/* The smallest integer strictly above x (at least 1). */
static int above(double x)
{
    double n = floor(x) + 1;
    return n < 1 ? 1 : n > 1e6 ? 1000000 : (int)n;
}

int cost_p3l_optimal(const cost_bsp *b, double d0, double tf, double te, double prec, int *n,
                     double *k, int *limited, diag *err)
{
    if (!(te > 0))
        return diag_set(err, "the inter-arrival time T_e must be positive (got %g)", te);
    if (!(prec > 0))
        prec = 10;
    double floor_em = 2 * b->g * d0;
    double kk, target;
    if (floor_em < te) {
        /* eq. 7; the emitter's per-task term g N_1/2 / k must leave room
         * below T_e, else no n satisfies eq. 3: grow k until it does */
        kk = fmax(1, (2 * b->g * b->nhalf + b->l) / te);
        if (b->g * b->nhalf / kk >= te - floor_em)
            kk = 2 * b->g * b->nhalf / (te - floor_em);
        target = te;
        *limited = 0;
    } else {
        /* eq. 8: T_e is out of reach; aim at 2 g d0 (1 + 1/prec) */
        kk = fmax(1, prec * (b->g * b->nhalf + b->l) / floor_em);
        target = floor_em * (1 + 1 / prec);
        *limited = 1;
    }
    double need_w = (2 * b->g * d0 + tf + (2 * b->g * b->nhalf + b->l) / kk) / target;
    double need_e = 0;
    double room = kk * (target - floor_em) - b->g * b->nhalf;
    if (!*limited && room > 0)
        need_e = (b->g * b->nhalf + b->l) / room;
    *n = above(fmax(need_w, need_e));
    *k = kk;
    return 0;
}
