/* skeleton/approx_member.c: interchangeable members (a farm's workers,
 * copies of a sub-skeleton): their shapes found once per skeleton, their
 * rate classes per evaluation, each class evaluated as one representative
 * window. Private header approx_int.h. */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* x and y have the same local machine and work, the same partners, each
 * meeting both in the same local state (the same choice of a farm's
 * producer and consumer): with equal rates, swapping them changes
 * nothing, so their windows give the same delays. */
static int same_shape(const skel_approx *a, int x, int y)
{
    int n = a->lstart[x + 1] - a->lstart[x];
    if (a->nloc[x] != a->nloc[y] || n != a->lstart[y + 1] - a->lstart[y] ||
        a->scv[x] != a->scv[y] || a->entry[x] != a->entry[y])
        return 0;
    for (int k = 0; k < n; k++) {
        const ax_ltr *t = &a->ltr[a->lstart[x] + k], *u = &a->ltr[a->lstart[y] + k];
        if (t->from != u->from || t->to != u->to || t->send != u->send || t->done != u->done ||
            t->w != u->w || (t->edge < 0) != (u->edge < 0))
            return 0;
        if (t->edge < 0)
            continue;
        const int *o = t->send ? a->use_r : a->use_s;   /* the partner's side */
        if (ax_partner(a, t) != ax_partner(a, u) || o[t->edge] != o[u->edge] || o[t->edge] == -2 ||
            a->links.scv[t->edge] != a->links.scv[u->edge] ||
            a->links.buffer[t->edge] != a->links.buffer[u->edge])
            return 0;
    }
    return 1;
}

/* Structural classes (srep), found among the members of each choice, up
 * to AX_NCLASS shapes per choice. */
void ax_struct_classes(skel_approx *a)
{
    for (int x = 0; x < a->ntasks; x++)
        a->srep[x] = -1;
    for (int p = 0; p < a->ntasks; p++) {
        int reps[AX_NCLASS], nr = 0;
        for (int k = a->lstart[p]; k < a->lstart[p + 1]; k++) {
            const ax_ltr *t = &a->ltr[k];
            if (k == a->lstart[p] || t->from != t[-1].from || t->send != t[-1].send)
                nr = 0;                   /* a new step */
            int x = t->edge < 0 ? -1 : ax_partner(a, t);
            if (x < 0 || a->srep[x] >= 0)
                continue;
            a->srep[x] = x;
            for (int j = 0; j < nr && a->srep[x] == x; j++)
                a->srep[x] = same_shape(a, x, reps[j]) ? reps[j] : x;
            if (a->srep[x] == x && nr < AX_NCLASS)
                reps[nr++] = x;
        }
    }
    for (int x = 0; x < a->ntasks; x++)
        a->srep[x] = a->srep[x] < 0 ? x : a->srep[x];
}

/* Members of one shape with the same compute and move rates (and, under
 * processor sharing, alone on their nodes or on the same node). */
static int same_rates(const skel_approx *a, int x, int y)
{
    if (a->mu[x] != a->mu[y] ||
        (a->node && a->node[x] != a->node[y] && (a->grpn[x] > 1 || a->grpn[y] > 1)))
        return 0;
    for (int k = 0; k < a->lstart[x + 1] - a->lstart[x]; k++) {
        int e = a->ltr[a->lstart[x] + k].edge, f = a->ltr[a->lstart[y] + k].edge;
        if (e >= 0 && a->lambda[e] != a->lambda[f])
            return 0;
    }
    return 1;
}

/* A member whose partner is itself represented stays its own (every
 * edge then has at most one represented end, and a representative edge). */
static void keep_partners(skel_approx *a)
{
    for (int x = 0; x < a->ntasks; x++)
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && a->rep[x] != x; k++) {
            int y = a->ltr[k].edge < 0 ? -1 : ax_partner(a, &a->ltr[k]);
            if (y >= 0 && a->rep[y] != y)
                a->rep[x] = x;
        }
}

/* This evaluation's classes: interchangeable members are evaluated as one
 * representative window (the others' delays are copies of its own), which
 * removes a farm's O(n) windows per sweep and its slow symmetric mode. */
void ax_rate_classes(skel_approx *a)
{
    for (int x = 0; x < a->ntasks; x++)
        a->nrr[x] = 0;
    for (int x = 0; x < a->ntasks; x++) {
        int s = a->srep[x], *rr = a->rr + (size_t)s * AX_NCLASS;
        a->rep[x] = x;
        for (int j = 0; j < a->nrr[s] && a->rep[x] == x; j++)
            a->rep[x] = same_rates(a, x, rr[j]) ? rr[j] : x;
        if (a->rep[x] == x && a->nrr[s] < AX_NCLASS)
            rr[a->nrr[s]++] = x;
    }
    keep_partners(a);
    for (int e = 0; e < a->nedges; e++)
        a->erep[e] = e, a->ehead[e] = -1;
    for (int x = 0; x < a->ntasks; x++)
        for (int k = 0; a->rep[x] != x && k < a->lstart[x + 1] - a->lstart[x]; k++) {
            int e = a->ltr[a->lstart[x] + k].edge;
            if (e >= 0)
                a->erep[e] = a->ltr[a->lstart[a->rep[x]] + k].edge;
        }
    for (int e = 0; e < a->nedges; e++)
        if (a->erep[e] != e) {
            a->enext[e] = a->ehead[a->erep[e]];
            a->ehead[a->erep[e]] = e;
        }
}

/* Window w measures a represented member's move: not solved. */
int ax_represented(const skel_approx *a, const ax_win *w)
{
    return w->edge >= 0 ? a->erep[w->edge] != w->edge : a->rep[w->a0] != w->a0;
}
