/* skeleton/search_more.c: the large-scale search's more moves when the
 * chain did not fit and there is no deadline (step 4 of search_scale.c):
 * a branch and bound on the estimate when there are at most SCALE_ENUM
 * placements (subtrees cut by the exact search's bound), then an iterated
 * local search: random kicks of a few tasks, then the local moves again. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Placements past which the estimate does not value them all. */
#define SCALE_ENUM 1e6

/* Bound of every completion of the partial placement in s->place (the
 * branch and bound's search_bound, sound for the chain); INFINITY without
 * the latency matrices (search_setup_platform). */
static double subtree_bound(search *s)
{
    if (!s->lat || !s->mx_any)
        return INFINITY;
    s->scale_work += s->nt + s->ne;
    return search_bound(s);
}

/* Node x of task k's is interchangeable with an earlier unused node of
 * its class: its subtree is that node's. */
static int earlier_free(const search *s, int x)
{
    int r = s->cls[x], found = 0;
    for (int y = r; y < x && s->load[x] == 0 && !found; y++)
        found = s->cls[y] == r && s->load[y] == 0;
    return found;
}

/* Bound of the subtree of task k on node x below s->place[0..k). */
static double child_bound(search *s, int k, int x)
{
    s->place[k] = x;
    s->load[x]++;
    double b = subtree_bound(s);
    s->load[x]--;
    s->place[k] = -1;
    return b;
}

/* Node x (bound b) into the nc children cn, kept by decreasing bound (cb). */
static void insert_child(double *cb, int *cn, int nc, int x, double b)
{
    int q = nc;
    for (; q > 0 && cb[q - 1] < b; q--) {
        cb[q] = cb[q - 1];
        cn[q] = cn[q - 1];
    }
    cb[q] = b;
    cn[q] = x;
}

/* Task k's usable nodes below s->place[0..k) into cn, by decreasing bound
 * (cb): the most promising first, as in search_dfs; nodes interchangeable
 * with an earlier unused one, and those bounded below the best estimate,
 * left out. Returns their number. */
static int children(search *s, int k, double *cb, int *cn)
{
    int nc = 0, pin = s->o->pins ? s->o->pins[k] : -1;
    for (int x = pin >= 0 ? pin : 0; x < (pin >= 0 ? pin + 1 : s->nn); x++) {
        if ((pin < 0 && s->node_class[x] < 0) || earlier_free(s, x))
            continue;           /* not usable, or an image */
        double b = child_bound(s, k, x);
        if (s->heur_x > 0 && b <= s->heur_x * (1 + 1e-9))
            continue;
        insert_child(cb, cn, nc++, x, b);
    }
    return nc;
}

/* Every placement of tasks k.. below s->place[0..k) valued by the estimate,
 * a branch and bound on it (children()); the best into heur. Stopped by
 * until or the work cap. cb, cn: nt * nn scratch. */
static void enumerate(search *s, int k, double until, double *cb, int *cn)
{
    if (search_moves_spent(s, until))
        return;
    if (k == s->nt) {
        double x;
        search_estimate_above(s, s->place, s->heur_x, &x);
        search_keep_if_better(s, s->place, x);
        return;
    }
    double *kb = cb + (size_t)k * (size_t)s->nn;
    int *kn = cn + (size_t)k * (size_t)s->nn, nc = children(s, k, kb, kn);
    for (int c = 0; c < nc && !search_moves_spent(s, until); c++) {
        if (s->heur_x > 0 && kb[c] <= s->heur_x * (1 + 1e-9))
            continue;           /* the best rose past it meanwhile */
        s->place[k] = kn[c];
        s->load[kn[c]]++;
        enumerate(s, k + 1, until, cb, cn);
        s->load[kn[c]]--;
        s->place[k] = -1;
    }
}

/* The branch and bound on the estimate from nothing placed, with its
 * scratch; -1 when out of memory. */
static int enumerate_all(search *s, double until)
{
    search_unload(s);
    double *cb = malloc((size_t)s->nt * (size_t)s->nn * sizeof *cb);
    int *cn = malloc((size_t)s->nt * (size_t)s->nn * sizeof *cn);
    int ok = cb && cn;    /* tested before the frees: a freed pointer's value is
                             indeterminate */
    if (ok)
        enumerate(s, 0, until, cb, cn);
    free(cn);
    free(cb);
    return ok ? 0 : diag_set(s->err, "out of memory");
}

/* The kicks from the best placement (heur), each followed by the local
 * moves, kept when they end better; pl: nt scratch. */
static void kick_rounds(search *s, int *pl, double until)
{
    int nuse = s->cls_start[s->nclass];
    uint64_t r = KICK_SEED;
    for (int round = 0;
         round < SCALE_KICKS && nuse > 1 && s->heur_x > 0 && !search_moves_spent(s, until);
         round++) {
        memcpy(pl, s->heur, (size_t)s->nt * sizeof *pl);
        search_kick(s, pl, round, &r);
        search_descend_keep(s, pl, until);
    }
}

/* Iterated local search, for an answer the chain will not confirm: from
 * the best placement, one to three tasks moved to random usable nodes,
 * then the local moves; kept when it ends better (the estimate's local
 * optima are what the moves above do not leave). Half a fresh work cap
 * (SCALE_WORK / 2) and until stop it; the generator's seed is fixed, so the
 * answer is the same on every run. */
int search_scale_more(search *s, double until)
{
    int *pl = malloc((size_t)s->nt * sizeof *pl);
    if (!pl)
        return diag_set(s->err, "out of memory");
    if (s->ax)
        skel_approx_set_deadline(s->ax, until);
    s->scale_work = SCALE_WORK / 2;   /* half the first moves' work cap: a farm(1000)'s
                                         estimates cost seconds */
    if (s->raw[0] <= SCALE_ENUM && enumerate_all(s, until) < 0) {
        free(pl);
        return -1;
    }
    kick_rounds(s, pl, until);
    search_unload(s);
    free(pl);
    return 0;
}
