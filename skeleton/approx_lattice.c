/* skeleton/approx_lattice.c: a fork's sends (a join's receives) as one
 * delay in the windows that hold none of its partners (docs/approximation.md
 * "Par, choice and loop").
 *
 * A par's fork sends each item to every branch, in any order, and its
 * join receives one from each (approx_flowm.c: a lattice of the groups
 * moved with so far). A window that holds the fork but none of its
 * branches saw each send as an independent delay, so the fork waited for
 * the slowest of independent exponentials, though the branches of one
 * par are not independent: they take their items from the same fork and
 * give them to the same join, and are ready together or wait together.
 * Two pars sharing a task (the join of the first the fork of the second)
 * make windows of one par each, so every window saw the other par so:
 * bench_approx f-par-21 by the windows alone −24.5%, f-par-9 +7.0%.
 * Now such a window walks the whole lattice as one exponential delay,
 * from its first state to its last, at the rate measured in the windows
 * that hold the task with all the lattice's partners (its flow out over
 * its probability, Little's law: the mean time the fork spends there).
 * No window holds them all: the mean of the slowest of the independent
 * delays, as before (in the mean). */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

#define AX_LAT_GROUPS 12      /* groups of a lattice (a fork of at most 12 groups) */

int ax_lat_add(skel_approx *a, int task, int send, int base, int mid0, int nmid, int pen,
               const int *edge, const int *grp, int n, int ng, diag *err)
{
    if (mem_grow((void **)&a->lat, (size_t)a->nlat + 1, sizeof *a->lat) < 0 ||
        mem_grow((void **)&a->lat_edge, (size_t)a->nlat_edge + (size_t)n, sizeof *a->lat_edge) < 0 ||
        mem_grow((void **)&a->lat_grp, (size_t)a->nlat_edge + (size_t)n, sizeof *a->lat_grp) < 0)
        return ax_oom(err);
    a->lat[a->nlat++] = (ax_lat){ .task = task, .send = send, .base = base, .mid0 = mid0,
                                  .nmid = nmid, .pen = pen, .e0 = a->nlat_edge, .ne = n,
                                  .ng = ng };
    memcpy(a->lat_edge + a->nlat_edge, edge, (size_t)n * sizeof *edge);
    memcpy(a->lat_grp + a->nlat_edge, grp, (size_t)n * sizeof *grp);
    a->nlat_edge += n;
    return 0;
}

/* Lattice L moves over a buffered or phased link: the window's link
 * component makes those moves, not a delay (left as it was). */
static int lat_linked(const skel_approx *a, const ax_lat *L)
{
    for (int k = L->e0; k < L->e0 + L->ne; k++)
        if (a->links.n[a->lat_edge[k]] > 0)
            return 1;
    return 0;
}

int ax_lat_index(skel_approx *a, diag *err)
{
    if (a->nlat == 0)
        return 0;
    if (!(a->lat_of = malloc(((size_t)a->nbusy + 1) * sizeof *a->lat_of)))
        return ax_oom(err);
    for (int s = 0; s < a->nbusy; s++)
        a->lat_of[s] = -1;
    for (int l = 0; l < a->nlat; l++) {
        const ax_lat *L = &a->lat[l];
        if (lat_linked(a, L))
            continue;
        int *of = a->lat_of + a->loff[L->task];
        of[L->base] = l;
        for (int s = L->mid0; s < L->mid0 + L->nmid; s++)
            of[s] = l;
    }
    return 0;
}

/* The task at the other end of lattice L's k-th move. */
static int lat_partner(const skel_approx *a, const ax_lat *L, int k)
{
    const skel_edge *e = &a->d->edges[a->lat_edge[L->e0 + k]];
    return e->from == L->task ? e->to : e->from;
}

/* How many of lattice L's partners window w holds. */
static int lat_held(const skel_approx *a, const ax_win *w, const ax_lat *L)
{
    int n = 0;
    for (int k = 0; k < L->ne; k++)
        n += ax_win_pos(a, w, lat_partner(a, L, k)) >= 0;
    return n;
}

/* Local state l of task x: the lattice whose first or middle state it is. */
static int lat_at(const skel_approx *a, int x, int l)
{
    return a->lat_of ? a->lat_of[a->loff[x] + l] : -1;
}

int ax_lat_trans(const skel_approx *a, const ax_win *w, int p, int l, ax_code s,
                 const ax_code *stride, ax_cbuf *b, diag *err)
{
    int x = a->wtask[w->t0 + p], id = lat_at(a, x, l);
    if (id < 0 || w->g >= 0 || lat_held(a, w, &a->lat[id]) > 0)
        return 0;
    const ax_lat *L = &a->lat[id];
    if (l != L->base)
        return 1;                 /* a middle state: the delay passes it by */
    double wsum = 0;              /* the last move's ends (H2's two branches) */
    for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++)
        wsum += a->ltr[k].from == L->pen ? a->ltr[k].w : 0;
    for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
        const ax_ltr *t = &a->ltr[k];
        ax_ctr c = { .from = s, .to = s + (t->to - l) * stride[p], .src = AX_LAT, .idx = id,
                     .w = t->w / wsum };
        if (t->from == L->pen && ax_push_ctr(b, c, err) < 0)
            return -1;
    }
    return 1;
}

/* Window w (solved) holds lattice L's task at position p and all its
 * partners: L's probability and flow out into its sums. Each state decoded
 * once (lat_in), not again at each transition's two ends. */
static void lat_measure_one(skel_approx *a, const ax_win *w, ax_lat *L, int p)
{
    ax_code stride = 1;
    for (int q = 0; q < p; q++)
        stride *= a->nloc[a->wtask[w->t0 + q]];
    int n = a->nloc[L->task], id = (int)(L - a->lat);
    const double *pi = a->pi + w->p0;
    const ax_code *code = a->code + w->p0;
    const ax_ctr *c = a->ctr + w->c0;
    unsigned char *in = a->lat_in;
    for (int s = 0; s < w->n; s++) {
        in[s] = lat_at(a, L->task, (int)(code[s] % w->nl / stride % n)) == id;
        L->prob += in[s] ? pi[s] : 0;
    }
    for (int k = 0; k < w->nc; k++)
        if (in[c[k].from] && !in[c[k].to])
            L->flow += pi[c[k].from] * a->rate[k];
    L->held = 1;
}

/* Only a lattice some window cuts: the others' rates are used nowhere,
 * and measuring every lattice in every window holding its partners (the
 * whole-model ones too, each over all their states and transitions) took
 * 28% of bench_approx part (f)'s time. */
int ax_lat_mark(skel_approx *a, diag *err)
{
    int any = 0, nmax = 0;
    for (int l = 0; l < a->nlat; l++)
        a->lat[l].cut = 0;
    for (int k = 0; k < a->nctr; k++)
        if (a->ctr[k].src == AX_LAT)
            any = a->lat[a->ctr[k].idx].cut = 1;
    for (int k = 0; k < a->nwin && any; k++)
        nmax = a->win[k].built && a->win[k].n > nmax ? a->win[k].n : nmax;
    if (nmax > a->nlat_in) {
        if (mem_grow((void **)&a->lat_in, (size_t)nmax, sizeof *a->lat_in) < 0)
            return ax_oom(err);
        a->nlat_in = nmax;
    }
    return 0;
}

/* A sweep cut short by the deadline leaves its partial sums: emptied here,
 * not only by the update that sweep never reached. */
void ax_lat_sweep(skel_approx *a)
{
    for (int l = 0; l < a->nlat; l++) {
        a->lat[l].flow = a->lat[l].prob = 0;
        a->lat[l].held = 0;
    }
}

void ax_lat_measure(skel_approx *a, const ax_win *w)
{
    for (int l = 0; l < a->nlat && a->lat_of && w->g < 0; l++) {
        ax_lat *L = &a->lat[l];
        int p = L->cut ? ax_win_pos(a, w, L->task) : -1;
        if (p >= 0 && lat_held(a, w, L) == L->ne)
            lat_measure_one(a, w, L, p);
    }
}

/* The mean of the slowest of the groups' independent delays (each group's
 * the sum of its members'), as the windows made it before: inclusion and
 * exclusion over the groups. Its rate. A group of rate 0 (a window where
 * its move never happened: side_update's te 0) never ends: rate 0, as the
 * independent delays made it, not the NaN of inf + inf - inf the sum gave
 * for two such groups; a NaN delay gives NaN (ax_lat_update refuses it). */
static double lat_independent(const skel_approx *a, const ax_lat *L)
{
    double r[AX_LAT_GROUPS] = { 0 }, mean = 0;
    const double *rho = L->send ? a->rho_send : a->rho_recv;
    for (int k = 0; k < L->ne; k++)
        r[a->lat_grp[L->e0 + k]] += rho[a->lat_edge[L->e0 + k]];
    for (int g = 0; g < L->ng; g++)
        if (!(r[g] > 0))
            return isnan(r[g]) ? NAN : 0;
    for (int m = 1; m < 1 << L->ng; m++) {
        double sum = 0;
        int bits = 0;
        for (int g = 0; g < L->ng; g++)
            if (m >> g & 1) {
                sum += r[g];
                bits++;
            }
        mean += (bits & 1 ? 1 : -1) / sum;
    }
    return 1 / mean;
}

/* Lattice L's rate this sweep: measured where a window held it with its
 * partners (a finite, positive flow over probability), else independent. */
static double lat_rate(const skel_approx *a, const ax_lat *L)
{
    double r = L->held && L->prob > 0 ? L->flow / L->prob : 0;
    return r > 0 && isfinite(r) ? r : lat_independent(a, L);
}

/* A rate not finite (a NaN delay) is not taken: the last one stays and the
 * change is infinite, so the fixed point does not pass for converged (fmax
 * drops a NaN change). */
double ax_lat_update(skel_approx *a)
{
    double ch = 0;
    for (int l = 0; l < a->nlat; l++) {
        ax_lat *L = &a->lat[l];
        if (!L->cut)
            continue;             /* its rate is used nowhere */
        double r = lat_rate(a, L);
        if (!isfinite(r) || r < 0) {
            ch = INFINITY;
            continue;
        }
        ch = fmax(ch, fabs(r - L->rate) / fmax(r, 1e-300));
        L->rate = r;
    }
    return ch;
}

void ax_lat_start(skel_approx *a)
{
    for (int l = 0; l < a->nlat; l++) {
        ax_lat *L = &a->lat[l];
        L->rate = lat_independent(a, L);
        L->rate = isfinite(L->rate) ? L->rate : 0;
    }
    ax_lat_sweep(a);
}

void ax_lat_free(skel_approx *a)
{
    free(a->lat);
    free(a->lat_edge);
    free(a->lat_grp);
    free(a->lat_of);
    free(a->lat_in);
}
