/* skeleton/search_scale.c: the large-scale search (issue 15, part 4).
 *
 * Answers for skeletons and platforms of any size, within the budget, and
 * needs no Markov chain:
 *   1. node classes (same speed, same links) found from the links that
 *      are written, in O(nodes log nodes + links);
 *   2. a constructive placement: tasks heaviest first, each on the free
 *      node of the class that gives it the shortest cycle (compute share
 *      plus moves to its placed neighbours), or beside a placed neighbour
 *      when the links to it are slow: the first answer, in microseconds;
 *   3. local moves: each task in turn tries the first free node of every
 *      class and its neighbours' nodes; a move is kept only when the
 *      evaluator (search->eval) says the whole placement improves, so the
 *      result is never worse than the constructive placement by its
 *      measure. Stopped by the time given (anytime);
 *   4. when the chain then does not fit and there is no deadline: a
 *      branch and bound on the estimate when there are at most SCALE_ENUM
 *      placements (subtrees cut by the exact search's bound), then an
 *      iterated local search: random kicks of a few tasks, then the local
 *      moves again (search_scale_more);
 *   5. when the chain fits and there is a deadline: the local moves again
 *      with the chain as the evaluator (search_scale_exact).
 * The evaluator is a function pointer so that the analytical
 * approximation plugs in; without one it is search_bound_rates, the best
 * sound estimate the search has without the chain (an upper bound).
 * The driver (search.c) then confirms with the exact chain when it fits.
 * Step 1 is search_classes.c's, step 2 search_construct.c's. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

/* A deal's sub-chains are the approximation's own (deal_states 2,500, its
 * default), not cut for speed: a window cut short of the deal's round robin
 * does not lose accuracy gradually, its fixed point collapses (measured on
 * `task("a",3), deal(4,"w",4), task("z",5)`, whose optimum is 14.9437:
 * valued 1.3e-8 and refused at 50 states, 0.24 at 200, 12.7 at 600 in
 * 2.2 s, 14.9437 at 2,500 in 0.2 s, exact because the window then holds
 * the whole deal and solves once). Their cost counts in the work units
 * (skel_approx_result.work) and the estimates are remembered
 * (search_memo.c). Without a deal, windows of three pipeline tasks (the approximation's
 * default, which giving deal_states alone turns into pairs): on a 5-task
 * pipe of the random suite pairs put the optimum 10% low (4.29 against
 * 4.77 exact, windows of three 4.77) and the answer lost 8.1%. */
#define SCALE_GROW_STATES 27
/* Under a deadline (a budget, or the plugin's deadline: it passes no
 * budget, and until 2026-11-26 this rule asked for a budget, so the
 * plugin's farm(1000) built the approximation and its first estimate ran
 * 120-170 ms past a 50 ms deadline in 8 of 11 runs, bench_scale with the
 * deadline made before the build), tasks + moves past which the
 * approximation is not tried:
 * building it for farm(1000) takes 0.4-0.5 s and its windows cannot be
 * cut finer than 16 at a time (measured: 290 ms decisions against 100 ms
 * with the bound at Budget=50ms). Nor with a deal: its windows hold the
 * deal's whole round robin, built in 5-15 ms and solved in 1-15 ms each
 * for deal(3)-deal(4) (loaded machine), more than the moves' tenth of a
 * 50 ms budget, whose end a solve overruns. The chain confirms the moves
 * anyway (on the random suite at Budget=50ms, 3 runs a case beside other
 * jobs, load ~10: 127-133 of 180 answers from the chain either way, 145-164
 * before the deal windows grew; the row follows the load more than this). */
#define SCALE_APPROX_MAX 1200

/* ---- rates and the evaluators --------------------------------------------- */

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

/* The analytical approximation (approx.c) at the placement's rates: an
 * estimate of the throughput itself, not a bound, so that it ranks
 * placements as the chain would. Under Sharing=ps the tasks of a node
 * share it. */
static int eval_approx(void *ctx, const int *pl, const double *mu, const double *lambda,
                       double *x, diag *err)
{
    search *s = ctx;
    skel_approx_result r = { 0 };
    int rc = skel_approx_eval(s->ax, mu, lambda, s->ps ? pl : NULL, &r, err);
    s->scale_work += r.work;
    if (rc < 0)
        return -1;
    *x = r.throughput;
    return 0;
}

static int eval_exact(void *ctx, const int *pl, const double *mu, const double *lambda,
                      double *x, diag *err);

/* Whether the chain is the evaluator (search_scale_exact's moves). */
int search_scale_on_chain(const search *s)
{
    return s->eval == eval_exact;
}

/* Keep pl (estimate x) among the SCALE_KEEP best distinct placements seen:
 * the chain confirms them when it fits. */
static void keep_offer(search *s, const int *pl, double x)
{
    if (s->eval == eval_exact)
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

/* Estimate of placement pl (complete) into *x: 0 when a link is missing
 * (infeasible) or when its bound says it cannot beat beat (0: always
 * estimated). Returns -1 when the evaluator refused (out of time, a fixed
 * point it does not trust), *x then 0. */
static int estimate_above(search *s, const int *pl, double beat, double *x)
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
    s->scale_evals++;
    s->bound_pl = pl;
    int rc = s->eval(s->eval_ctx, pl, s->mu, s->lambda, x, &tmp);
    s->bound_pl = NULL;
    if (rc < 0) {             /* not remembered: out of time may not recur */
        *x = 0;
        return -1;
    }
    if (memo)
        search_memo_put(s, *x);
    keep_offer(s, pl, *x);
    return 0;
}

static int estimate(search *s, const int *pl, double *x)
{
    return estimate_above(s, pl, 0, x);
}

/* ---- local moves --------------------------------------------------------- */

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
        if (estimate_above(s, pl, *x, &v) < 0)
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

/* The moves' time or work is spent. */
static int spent(const search *s, double until)
{
    return s->scale_work > SCALE_WORK || s->polish_failed || clock_now() > until;
}

/* Exchange the nodes of task i and of each later task on another node;
 * returns 1 when the placement improved. A move of one task cannot reach
 * these: the node it wants is taken, and freeing it first looks worse. */
static int swap_task(search *s, int *pl, int i, double *x, double until)
{
    int moved = 0;
    for (int j = 0; j < s->nt && !spent(s, until); j++) {
        if (pl[j] == pl[i] || (s->o->pins && (s->o->pins[i] >= 0 || s->o->pins[j] >= 0)))
            continue;
        int a = pl[i];
        pl[i] = pl[j];
        pl[j] = a;
        double v;
        estimate_above(s, pl, *x, &v);
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

/* Passes of single moves until none improves, then of exchanges; again
 * while an exchange improves. Stopped at until (anytime). */
static void local_moves(search *s, int *pl, double *x, double until)
{
    for (int pass = 0, moved = 1; moved && pass < 100; pass++) {
        moved = 0;
        for (int k = 0; k < s->nt; k++) {
            if (spent(s, until)) {
                s->scale_stopped = 1;
                return;
            }
            moved |= improve_task(s, pl, s->order[k], x);
        }
        for (int k = 0; !moved && k < s->nt; k++)
            moved |= swap_task(s, pl, s->order[k], x, until);
    }
}

/* ---- set-up and driver ------------------------------------------------------- */

typedef struct wkey {
    double work;
    int task;
} wkey;

static int cmp_wkey(const void *a, const void *b)
{
    const wkey *x = a, *y = b;
    if (x->work != y->work)
        return x->work < y->work ? -1 : 1;
    return (x->task > y->task) - (x->task < y->task);
}

typedef struct ckey {
    double speed;
    int rep;
} ckey;

static int cmp_ckey(const void *a, const void *b)
{
    const ckey *x = a, *y = b;
    if (x->speed != y->speed)
        return x->speed > y->speed ? -1 : 1;
    return (x->rep > y->rep) - (x->rep < y->rep);
}

/* Tasks heaviest first: the fewest items per second on Speed=1. */
static int order_tasks(search *s)
{
    wkey *wk = malloc((size_t)s->nt * sizeof *wk);
    if (!wk)
        return diag_set(s->err, "out of memory");
    for (int i = 0; i < s->nt; i++)
        wk[i] = (wkey){ s->m->work[i], i };
    qsort(wk, (size_t)s->nt, sizeof *wk, cmp_wkey);
    for (int i = 0; i < s->nt; i++)
        s->order[i] = wk[i].task;
    free(wk);
    return 0;
}

/* Each task's edges (both directions), as lists. */
static int task_edges(search *s)
{
    int *fill = calloc((size_t)s->nt, sizeof *fill);
    if (!fill)
        return diag_set(s->err, "out of memory");
    for (int e = 0; e < s->ne; e++) {
        skel_edge ed = s->m->edges[e];
        if (ed.from >= 0)
            s->adj_start[ed.from + 1]++;
        if (ed.to >= 0)
            s->adj_start[ed.to + 1]++;
    }
    for (int i = 0; i < s->nt; i++) {
        s->adj_deg[i] = s->adj_start[i + 1] > 0 ? s->adj_start[i + 1] : 1;
        s->adj_start[i + 1] += s->adj_start[i];
    }
    for (int e = 0; e < s->ne; e++) {
        skel_edge ed = s->m->edges[e];
        if (ed.from >= 0)
            s->adj_edge[s->adj_start[ed.from] + fill[ed.from]++] = e;
        if (ed.to >= 0)
            s->adj_edge[s->adj_start[ed.to] + fill[ed.to]++] = e;
    }
    free(fill);
    return 0;
}

/* The classes of the nodes tasks may use (s->cls), fastest first; their
 * members in index order. */
static int make_classes(search *s)
{
    ckey *ck = malloc((size_t)s->nn * sizeof *ck);
    int *id_of_rep = malloc((size_t)s->nn * sizeof *id_of_rep);
    if (!ck || !id_of_rep) {
        free(id_of_rep);
        free(ck);
        return diag_set(s->err, "out of memory");
    }
    int n = 0;
    for (int j = 0; j < s->nn; j++) {
        s->node_class[j] = -1;
        if (s->cls[j] == j && (!s->o->allowed || s->o->allowed[j]))
            ck[n++] = (ckey){ s->p->nodes[j].speed, j };
    }
    qsort(ck, (size_t)n, sizeof *ck, cmp_ckey);
    for (int c = 0; c < n; c++)
        id_of_rep[ck[c].rep] = c;
    s->nclass = n;
    for (int j = 0; j < s->nn; j++)
        if (!s->o->allowed || s->o->allowed[j])
            s->cls_start[id_of_rep[s->cls[j]] + 1]++;
    for (int c = 0; c < n; c++)
        s->cls_start[c + 1] += s->cls_start[c];
    for (int c = 0; c < n; c++)
        s->cls_next[c] = s->cls_start[c];
    for (int j = 0; j < s->nn; j++) {
        if (s->o->allowed && !s->o->allowed[j])
            continue;
        int c = id_of_rep[s->cls[j]];
        s->node_class[j] = c;
        s->cls_pos[j] = s->cls_next[c];
        s->cls_member[s->cls_next[c]++] = j;
    }
    for (int c = 0; c < n; c++)
        s->cls_next[c] = s->cls_start[c];
    free(id_of_rep);
    free(ck);
    return 0;
}

static int scale_setup(search *s)
{
    size_t nt = (size_t)s->nt, nn = (size_t)s->nn;
    s->order = malloc(nt * sizeof *s->order);
    s->adj_start = calloc(nt + 1, sizeof *s->adj_start);
    s->adj_edge = malloc((size_t)(2 * s->ne + 1) * sizeof *s->adj_edge);
    s->adj_deg = calloc(nt, sizeof *s->adj_deg);
    s->cand = malloc((nn + 2 * (size_t)s->ne + 1) * sizeof *s->cand);
    s->cls_start = calloc(nn + 1, sizeof *s->cls_start);
    s->cls_member = malloc(nn * sizeof *s->cls_member);
    s->cls_next = calloc(nn + 1, sizeof *s->cls_next);
    s->cls_pos = malloc(nn * sizeof *s->cls_pos);
    s->node_class = malloc(nn * sizeof *s->node_class);
    s->cons = malloc(nt * sizeof *s->cons);
    s->heur = malloc(nt * sizeof *s->heur);
    s->keep_pl = malloc(SCALE_KEEP * nt * sizeof *s->keep_pl);
    s->keep_x = malloc(SCALE_KEEP * sizeof *s->keep_x);
    s->canon_map = malloc(2 * nn * sizeof *s->canon_map);   /* search_scale_exact's */
    if (!s->order || !s->adj_start || !s->adj_edge || !s->adj_deg || !s->cand || !s->cls_start ||
        !s->cls_member || !s->cls_next || !s->cls_pos || !s->node_class || !s->cons || !s->heur ||
        !s->keep_pl || !s->keep_x || !s->canon_map)
        return diag_set(s->err, "out of memory");
    return order_tasks(s) < 0 || task_edges(s) < 0 || search_memo_init(s) < 0 ? -1
                                                                              : make_classes(s);
}

void search_scale_free(search *s)
{
    skel_approx_free(s->ax);
    search_memo_free(s);
    free(s->canon_map);
    free(s->keep_x);
    free(s->keep_pl);
    free(s->heur);
    free(s->cons);
    free(s->node_class);
    free(s->cls_pos);
    free(s->cls_next);
    free(s->cls_member);
    free(s->cls_start);
    free(s->cand);
    free(s->adj_deg);
    free(s->adj_edge);
    free(s->adj_start);
    free(s->order);
}

/* Loads and class cursors for placement pl. */
static void set_loads(search *s, const int *pl)
{
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;
    for (int i = 0; i < s->nt; i++)
        s->load[pl[i]]++;
    for (int c = 0; c < s->nclass; c++)
        s->cls_next[c] = s->cls_start[c];
}

/* pl (estimate x) becomes the answer when it is better. */
static void keep_if_better(search *s, const int *pl, double x)
{
    if (x > s->heur_x * (1 + 1e-9)) {
        memcpy(s->heur, pl, (size_t)s->nt * sizeof *pl);
        s->heur_x = x;
    }
}

/* Local moves from the complete placement pl (the loads set from it),
 * kept as the answer when they end better. */
static void descend_keep(search *s, int *pl, double until)
{
    double x;
    set_loads(s, pl);
    estimate(s, pl, &x);
    local_moves(s, pl, &x, until);
    keep_if_better(s, pl, x);
}

/* Another start for the local moves, into pl: kind 0, every free task on
 * the fastest usable node (the moves then spread them: co-location the
 * constructive rule never tries); kind 1, the usable nodes in index order
 * (Slurm's way). Local optima differ by start. */
static void start_at(const search *s, int kind, int *pl)
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

/* Local moves again from start kind (start_at), kept when they end better. */
static int restart(search *s, int kind, double until)
{
    int *pl = malloc((size_t)s->nt * sizeof *pl);
    if (!pl)
        return diag_set(s->err, "out of memory");
    start_at(s, kind, pl);
    descend_keep(s, pl, until);
    free(pl);
    return 0;
}

static void use_bound(search *s)
{
    s->eval = search_eval_bound;
    s->eval_ctx = s;
    s->eval_name = "the per-stage cycle bound (an upper bound)";
}

/* The approximation is the evaluator when it answers for the skeleton
 * (it refuses some: docs/approximation.md) and values the constructive
 * placement by mid; the
 * moves then have until. Else the cycle bound values them: it costs
 * microseconds at any size (farm(1000)'s approximation takes seconds). */
static void choose_eval(search *s, double mid, double until)
{
    diag tmp;
    diag_clear(&tmp);
    skel_approx_opts ao = { 0 };
    ao.scv = s->m->scv;
    ao.link_scv = s->m->link_scv;     /* the model's links, which the chain confirms */
    ao.buffer = s->m->buffer;
    ao.handoff = s->handoff;
    ao.deadline = mid;
    ao.cold = 1;
    ao.grow_states = SCALE_GROW_STATES;
    if ((s->ax = skel_approx_new(s->d, &ao, &tmp))) {
        s->eval = eval_approx;
        s->eval_ctx = s;
        s->eval_name = "the analytical approximation";
        if (estimate(s, s->cons, &s->cons_x) == 0) {
            skel_approx_set_deadline(s->ax, until);
            return;
        }
        skel_approx_free(s->ax);
        s->ax = NULL;
        s->nkeep = 0;
    }
    use_bound(s);
    estimate(s, s->cons, &s->cons_x);
}

int search_scale(search *s, double until)
{
    if (scale_setup(s) < 0)
        return -1;
    double t0 = search_mark(s, SKEL_PHASE_SETUP);
    search_construct(s, s->cons);
    s->cons_secs = search_mark(s, SKEL_PHASE_CONSTRUCT) - t0;
    if (!s->eval && ((s->deadline.at > 0 && s->nt + s->ne > SCALE_APPROX_MAX) ||
                     (s->deadline.at > 0 && skel_dag_has_rounds(s->d))))
        use_bound(s);
    if (s->eval)
        estimate(s, s->cons, &s->cons_x);
    else
        choose_eval(s, t0 + 0.5 * (until - t0), until);
    search_mark(s, SKEL_PHASE_EVALUATOR);
    memcpy(s->heur, s->cons, (size_t)s->nt * sizeof *s->heur);
    s->heur_x = s->cons_x;
    local_moves(s, s->heur, &s->heur_x, until);
    for (int k = 0; k < 2 && !spent(s, until); k++)
        if (restart(s, k, until) < 0)
            return -1;
    search_mark(s, SKEL_PHASE_MOVES);
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;         /* the exact search starts from nothing placed */
    return 0;
}

/* ---- more moves when the chain did not fit ------------------------------------ */

static unsigned next_rand(uint64_t *r)
{
    *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*r >> 33);
}

/* The kicks' generator starts from a fixed seed: the same kicks on every
 * run. */
#define KICK_SEED 0x2545f4914f6cdd1dULL

/* Kick round of the iterated local search: 1 + round % 3 tasks of pl
 * moved to random usable nodes (pins kept). */
static void kick(const search *s, int *pl, int round, uint64_t *r)
{
    int nuse = s->cls_start[s->nclass];
    for (int k = 0; k <= round % 3; k++) {
        int i = (int)(next_rand(r) % (unsigned)s->nt);
        if (!s->o->pins || s->o->pins[i] < 0)
            pl[i] = s->cls_member[next_rand(r) % (unsigned)nuse];
    }
}

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

/* Task k's usable nodes below s->place[0..k) into cn, by decreasing bound
 * (cb): the most promising first, as in search_dfs; nodes interchangeable
 * with an earlier unused one, and those bounded below the best estimate,
 * left out. Returns their number. */
static int children(search *s, int k, double *cb, int *cn)
{
    int nc = 0, pin = s->o->pins ? s->o->pins[k] : -1;
    for (int x = pin >= 0 ? pin : 0; x < (pin >= 0 ? pin + 1 : s->nn); x++) {
        if (pin < 0 && s->node_class[x] < 0)
            continue;           /* not usable */
        int r = s->cls[x], earlier_free = 0;
        for (int y = r; y < x && s->load[x] == 0 && !earlier_free; y++)
            earlier_free = s->cls[y] == r && s->load[y] == 0;
        if (earlier_free)
            continue;
        s->place[k] = x;
        s->load[x]++;
        double b = subtree_bound(s);
        s->load[x]--;
        s->place[k] = -1;
        if (s->heur_x > 0 && b <= s->heur_x * (1 + 1e-9))
            continue;
        int q = nc++;
        for (; q > 0 && cb[q - 1] < b; q--) {
            cb[q] = cb[q - 1];
            cn[q] = cn[q - 1];
        }
        cb[q] = b;
        cn[q] = x;
    }
    return nc;
}

/* Every placement of tasks k.. below s->place[0..k) valued by the estimate,
 * a branch and bound on it (children()); the best into heur. Stopped by
 * until or the work cap. cb, cn: nt * nn scratch. */
static void enumerate(search *s, int k, double until, double *cb, int *cn)
{
    if (spent(s, until))
        return;
    if (k == s->nt) {
        double x;
        estimate_above(s, s->place, s->heur_x, &x);
        keep_if_better(s, s->place, x);
        return;
    }
    double *kb = cb + (size_t)k * (size_t)s->nn;
    int *kn = cn + (size_t)k * (size_t)s->nn, nc = children(s, k, kb, kn);
    for (int c = 0; c < nc && !spent(s, until); c++) {
        if (s->heur_x > 0 && kb[c] <= s->heur_x * (1 + 1e-9))
            continue;           /* the best rose past it meanwhile */
        s->place[k] = kn[c];
        s->load[kn[c]]++;
        enumerate(s, k + 1, until, cb, cn);
        s->load[kn[c]]--;
        s->place[k] = -1;
    }
}

/* Placements past which the estimate does not value them all. */
#define SCALE_ENUM 1e6

/* Iterated local search, for an answer the chain will not confirm: from
 * the best placement, one to three tasks moved to random usable nodes,
 * then the local moves; kept when it ends better (the estimate's local
 * optima are what the moves above do not leave). Half a fresh work cap
 * (SCALE_WORK / 2) and until stop it; the generator's seed is fixed, so the
 * answer is the same on every run. */
int search_scale_more(search *s, double until)
{
    int nuse = s->cls_start[s->nclass], *pl = malloc((size_t)s->nt * sizeof *pl);
    if (!pl)
        return diag_set(s->err, "out of memory");
    if (s->ax)
        skel_approx_set_deadline(s->ax, until);
    s->scale_work = SCALE_WORK / 2;   /* half the first moves' work cap: a farm(1000)'s
                                         estimates cost seconds */
    if (s->raw[0] <= SCALE_ENUM) {
        for (int j = 0; j < s->nn; j++)     /* nothing placed */
            s->load[j] = 0;
        double *cb = malloc((size_t)s->nt * (size_t)s->nn * sizeof *cb);
        int *cn = malloc((size_t)s->nt * (size_t)s->nn * sizeof *cn);
        int ok = cb && cn;    /* tested before the frees: a freed pointer's value is
                                 indeterminate */
        if (ok)
            enumerate(s, 0, until, cb, cn);
        free(cn);
        free(cb);
        if (!ok) {
            free(pl);
            return diag_set(s->err, "out of memory");
        }
    }
    uint64_t r = KICK_SEED;
    for (int round = 0; round < SCALE_KICKS && nuse > 1 && s->heur_x > 0 && !spent(s, until);
         round++) {
        memcpy(pl, s->heur, (size_t)s->nt * sizeof *pl);
        kick(s, pl, round, &r);
        descend_keep(s, pl, until);
    }
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;
    free(pl);
    return 0;
}

/* ---- local moves on the chain itself ----------------------------------------- */

/* The chain as the evaluator: placement pl (its canonical image, as the
 * branch and bound would name it) solved and ranked by search_evaluate. */
static int eval_exact(void *ctx, const int *pl, const double *mu, const double *lambda,
                      double *x, diag *err)
{
    search *s = ctx;
    (void)mu;
    (void)lambda;
    (void)err;
    search_canonical(s, pl, s->place, s->canon_map);
    s->seeding = 1;             /* not counted as the branch and bound's */
    int rc = search_evaluate(s);
    s->seeding = 0;
    for (int i = 0; i < s->nt; i++)
        s->place[i] = -1;
    s->scale_work += (double)s->sp->q->nnz;
    if (rc < 0) {
        s->polish_failed = 1;
        return -1;
    }
    *x = skel_model_throughput(s->m, s->thr);
    return 0;
}

/* Local moves on the chain from complete placement pl (solved first). */
static void descend_exact(search *s, int *pl, double until)
{
    double x;
    set_loads(s, pl);
    if (estimate(s, pl, &x) == 0 && !spent(s, until))
        local_moves(s, pl, &x, until);
}

/* The local moves again, each placement solved on the chain: from the best
 * solved so far, then from the other starts (start_at), then an iterated
 * local search from the best (kicks as in search_scale_more); until stops
 * them. What the estimate ranked wrong (it errs by a few %) and what its
 * moves did not reach in their share of a budget (a tenth: with 1 ms an
 * estimate, 5 of them in 50 ms), the chain's own moves find: for a chain
 * of hundreds of states a solve costs less than an estimate. Every
 * placement solved is ranked (search_evaluate), so the best of all starts
 * is the answer. Returns -1 when a solve failed (s->err; the deadline
 * passed, or a fault). */
int search_scale_exact(search *s, double until)
{
    if (s->nranked == 0)
        return 0;
    int *pl = malloc((size_t)s->nt * sizeof *pl);
    if (!pl)
        return diag_set(s->err, "out of memory");
    search_eval_fn was = s->eval;
    void *was_ctx = s->eval_ctx;
    s->eval = eval_exact;
    s->eval_ctx = s;
    search_memo_clear(s);       /* the estimates are not the chain's */
    s->scale_work = 0;
    s->scale_stopped = 0;
    memcpy(pl, s->ranked[0].placement, (size_t)s->nt * sizeof *pl);
    descend_exact(s, pl, until);
    for (int kind = 0; kind < 2 && !spent(s, until); kind++) {
        start_at(s, kind, pl);
        descend_exact(s, pl, until);
    }
    uint64_t r = KICK_SEED;
    for (int round = 0; round < SCALE_KICKS && s->cls_start[s->nclass] > 1 && !spent(s, until);
         round++) {
        memcpy(pl, s->ranked[0].placement, (size_t)s->nt * sizeof *pl);
        kick(s, pl, round, &r);
        descend_exact(s, pl, until);
    }
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;
    s->eval = was;
    s->eval_ctx = was_ctx;
    search_memo_clear(s);
    free(pl);
    return s->polish_failed ? -1 : 0;
}
