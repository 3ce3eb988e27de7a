/* skeleton/search_moves.c: the large-scale search's estimates of complete
 * placements and its local moves (step 3 of search_scale.c).
 *
 * An estimate goes through the evaluator (search->eval: the
 * approximation, the cycle bound, or on search_polish.c's moves the
 * chain), skipped when the placement's cycle bound says it cannot beat
 * the placement it would replace, remembered (search_memo.c) and offered
 * to the few best the chain confirms (keep_offer). The local moves: each
 * task in turn tries its candidate nodes (search_candidates), kept only
 * when the whole placement's estimate improves, then exchanges of two
 * tasks' nodes; stopped by the time given or the work cap (anytime). The
 * starts and kicks of the restarts and iterated local searches are here
 * too: search_scale.c, search_more.c and search_polish.c share them. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

/* ---- estimates ------------------------------------------------------------- */

/* The fallback evaluator: the bounds of search_bound.c at the placement's
 * own rates (an upper bound; costs microseconds at any size). */
int search_eval_bound(void *ctx, const int *pl, const double *mu, const double *lambda, double *x,
                      diag *err)
{
    search *s = ctx;
    (void)pl;
    (void)err;
    s->scale_work += s->nt + s->ne;
    memcpy(s->bmu, mu, (size_t)s->nt * sizeof *mu);
    memcpy(s->blam, lambda, (size_t)s->ne * sizeof *lambda);
    *x = search_bound_rates(s);
    return 0;
}

/* Keep pl (estimate x) among the SCALE_KEEP best distinct placements seen:
 * the chain confirms them when it fits. */
static void keep_offer(search *s, const int *pl, double x)
{
    if (search_scale_on_chain(s))
        return;                 /* solved: ranked already */
    size_t sz = (size_t)s->nt * sizeof *pl;
    for (int k = 0; k < s->nkeep; k++)
        if (memcmp(s->keep_pl + (size_t)k * (size_t)s->nt, pl, sz) == 0)
            return;
    int pos = s->nkeep;
    while (pos > 0 && x > s->keep_x[pos - 1])
        pos--;
    if (pos >= SCALE_KEEP)
        return;
    int last = s->nkeep < SCALE_KEEP ? s->nkeep : SCALE_KEEP - 1;
    memmove(s->keep_pl + (size_t)(pos + 1) * (size_t)s->nt, s->keep_pl + (size_t)pos * (size_t)s->nt,
            (size_t)(last - pos) * sz);
    memmove(s->keep_x + pos + 1, s->keep_x + pos, (size_t)(last - pos) * sizeof *s->keep_x);
    memcpy(s->keep_pl + (size_t)pos * (size_t)s->nt, pl, sz);
    s->keep_x[pos] = x;
    s->nkeep += s->nkeep < SCALE_KEEP;
}

/* The cycle bound of placement pl (its rates in s->mu, s->lambda) is at
 * most beat: no estimate of it can be worth having (the throughput is
 * below the bound), and the bound costs microseconds where a deal's
 * estimate costs tens of ms. */
static int bound_below(search *s, const int *pl, double beat)
{
    if (!(beat > 0) || s->eval == search_eval_bound)
        return 0;
    double b;
    s->bound_pl = pl;
    search_eval_bound(s, pl, s->mu, s->lambda, &b, NULL);
    s->bound_pl = NULL;
    return b <= beat * (1 + 1e-9);
}

/* The evaluator on pl (its rates in s->mu, s->lambda) into *x, remembered
 * when memo; -1 when it refused, *x then 0 and nothing remembered (out of
 * time may not recur). */
static int evaluate(search *s, const int *pl, int memo, double *x, diag *tmp)
{
    s->scale_evals++;
    s->bound_pl = pl;
    int rc = s->eval(s->eval_ctx, pl, s->mu, s->lambda, x, tmp);
    s->bound_pl = NULL;
    if (rc < 0) {
        *x = 0;
        return -1;
    }
    if (memo)
        search_memo_put(s, *x);
    keep_offer(s, pl, *x);
    return 0;
}

int search_estimate_above(search *s, const int *pl, double beat, double *x)
{
    diag tmp;
    diag_clear(&tmp);
    *x = 0;
    if (skel_place_rates(s->m, s->p, pl, s->mu, s->lambda, &tmp) < 0)
        return 0;             /* infeasible: a move over a link not described */
    int memo = s->eval != search_eval_bound;   /* a function of the rates and sharing */
    if (memo && search_memo_get(s, pl, x)) {
        keep_offer(s, pl, *x);
        return 0;
    }
    if (bound_below(s, pl, beat)) {
        s->scale_pruned++;
        return 0;
    }
    return evaluate(s, pl, memo, x, &tmp);
}

int search_estimate(search *s, const int *pl, double *x)
{
    return search_estimate_above(s, pl, 0, x);
}

/* ---- local moves ----------------------------------------------------------- */

/* Move task i to the best of its candidate nodes by the evaluator; returns
 * 1 when the placement improved. */
static int improve_task(search *s, int *pl, int i, double *x)
{
    int from = pl[i], moved = 0;
    s->load[from]--;
    search_node_freed(s, from);
    int n = search_candidates(s, pl, i, s->cand);
    for (int c = 0; c < n; c++) {
        int y = s->cand[c];
        if (y == pl[i])
            continue;
        int was = pl[i];
        pl[i] = y;
        double v;
        if (search_estimate_above(s, pl, *x, &v) < 0)
            v = 0;
        if (v > *x * (1 + 1e-9)) {
            *x = v;
            moved = 1;
        } else {
            pl[i] = was;
        }
    }
    s->load[pl[i]]++;
    return moved;
}

int search_moves_spent(const search *s, double until)
{
    return s->scale_work > SCALE_WORK || s->polish_failed || clock_now() > until;
}

/* Exchange the nodes of task i and of each later task on another node;
 * returns 1 when the placement improved. A move of one task cannot reach
 * these: the node it wants is taken, and freeing it first looks worse. */
static int swap_task(search *s, int *pl, int i, double *x, double until)
{
    int moved = 0;
    for (int j = 0; j < s->nt && !search_moves_spent(s, until); j++) {
        if (pl[j] == pl[i] || (s->o->pins && (s->o->pins[i] >= 0 || s->o->pins[j] >= 0)))
            continue;
        int a = pl[i];
        pl[i] = pl[j];
        pl[j] = a;
        double v;
        search_estimate_above(s, pl, *x, &v);
        if (v > *x * (1 + 1e-9)) {
            *x = v;
            moved = 1;
        } else {
            pl[j] = pl[i];
            pl[i] = a;
        }
    }
    return moved;
}

void search_local_moves(search *s, int *pl, double *x, double until)
{
    for (int pass = 0, moved = 1; moved && pass < 100; pass++) {
        moved = 0;
        for (int k = 0; k < s->nt; k++) {
            if (search_moves_spent(s, until)) {
                s->scale_stopped = 1;
                return;
            }
            moved |= improve_task(s, pl, s->order[k], x);
        }
        for (int k = 0; !moved && k < s->nt; k++)
            moved |= swap_task(s, pl, s->order[k], x, until);
    }
}

/* ---- starts, kicks and what they leave ------------------------------------- */

void search_set_loads(search *s, const int *pl)
{
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;
    for (int i = 0; i < s->nt; i++)
        s->load[pl[i]]++;
    for (int c = 0; c < s->nclass; c++)
        s->cls_next[c] = s->cls_start[c];
}

void search_keep_if_better(search *s, const int *pl, double x)
{
    if (x > s->heur_x * (1 + 1e-9)) {
        memcpy(s->heur, pl, (size_t)s->nt * sizeof *pl);
        s->heur_x = x;
    }
}

void search_descend_keep(search *s, int *pl, double until)
{
    double x;
    search_set_loads(s, pl);
    search_estimate(s, pl, &x);
    search_local_moves(s, pl, &x, until);
    search_keep_if_better(s, pl, x);
}

void search_start_at(const search *s, int kind, int *pl)
{
    int j = -1;
    for (int i = 0; i < s->nt; i++) {
        int pin = s->o->pins ? s->o->pins[i] : -1;
        if (pin < 0 && kind == 1)
            do              /* the next usable node, in index order, round robin */
                j = (j + 1) % s->nn;
            while (s->node_class[j] < 0);
        pl[i] = pin >= 0 ? pin : kind == 0 ? s->cls_member[0] : j;
    }
}

static unsigned next_rand(uint64_t *r)
{
    *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*r >> 33);
}

void search_kick(const search *s, int *pl, int round, uint64_t *r)
{
    int nuse = s->cls_start[s->nclass];
    for (int k = 0; k <= round % 3; k++) {
        int i = (int)(next_rand(r) % (unsigned)s->nt);
        if (!s->o->pins || s->o->pins[i] < 0)
            pl[i] = s->cls_member[next_rand(r) % (unsigned)nuse];
    }
}

void search_unload(search *s)
{
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;
}
