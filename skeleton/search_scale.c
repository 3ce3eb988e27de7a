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
 *      measure. Stopped by the time given (anytime).
 * The evaluator is a function pointer so that the analytical
 * approximation plugs in; without one it is search_bound_rates, the best
 * sound estimate the search has without the chain (an upper bound).
 * The driver (search.c) then confirms with the exact chain when it fits. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

/* ---- node classes from the written links ---------------------------------- */

typedef struct nbr {
    int other;
    double lat, bw;
} nbr;

typedef struct hkey {
    uint64_t h;
    int node;
} hkey;

static int cmp_hkey(const void *a, const void *b)
{
    const hkey *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

static uint64_t mix(uint64_t h, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits ^= bits >> 31;
    bits *= 0x9e3779b97f4a7c15ULL;
    return h + (bits ^ (bits >> 29));
}

/* Every link written, as lists per node sorted by the other end (links are
 * sorted by (a, b), a < b: a node's lower neighbours come first, in order,
 * then its higher ones). */
static int link_lists(const skel_platform *p, int **start, nbr **list)
{
    int nn = p->nnodes;
    *start = calloc((size_t)nn + 1, sizeof **start);
    *list = malloc((size_t)(2 * p->nlinks + 1) * sizeof **list);
    int *fill = calloc((size_t)nn + 1, sizeof *fill);
    if (!*start || !*list || !fill) {
        free(fill);
        return -1;
    }
    for (int k = 0; k < p->nlinks; k++) {
        (*start)[p->links[k].a + 1]++;
        (*start)[p->links[k].b + 1]++;
    }
    for (int j = 0; j < nn; j++)
        (*start)[j + 1] += (*start)[j];
    for (int k = 0; k < p->nlinks; k++) {
        const skel_link *l = &p->links[k];
        (*list)[(*start)[l->a] + fill[l->a]++] = (nbr){ l->b, l->latency, l->bandwidth };
        (*list)[(*start)[l->b] + fill[l->b]++] = (nbr){ l->a, l->latency, l->bandwidth };
    }
    free(fill);
    return 0;
}

/* a and r have the same links to every third node: their lists without
 * each other are equal. */
static int same_links(const int *start, const nbr *list, int a, int r)
{
    int i = start[a], j = start[r];
    for (;;) {
        while (i < start[a + 1] && list[i].other == r)
            i++;
        while (j < start[r + 1] && list[j].other == a)
            j++;
        if (i == start[a + 1] || j == start[r + 1])
            return i == start[a + 1] && j == start[r + 1];
        if (list[i].other != list[j].other || list[i].lat != list[j].lat || list[i].bw != list[j].bw)
            return 0;
        i++;
        j++;
    }
}

int search_fast_classes(const skel_platform *p, const unsigned char *keep, int *cls)
{
    int nn = p->nnodes, *start = NULL, rc = -1;
    nbr *list = NULL;
    hkey *hk = malloc((size_t)nn * sizeof *hk);
    if (!hk || link_lists(p, &start, &list) < 0)
        goto out;
    for (int a = 0; a < nn; a++) {
        /* order-free hash of speed, degree and link values: nodes that
         * link to each other still hash alike */
        uint64_t h = mix((uint64_t)(start[a + 1] - start[a]), p->nodes[a].speed);
        for (int k = start[a]; k < start[a + 1]; k++)
            h += mix(mix(0, list[k].lat), list[k].bw) * 0xff51afd7ed558ccdULL;
        hk[a] = (hkey){ h, a };
        cls[a] = a;
    }
    qsort(hk, (size_t)nn, sizeof *hk, cmp_hkey);
    for (int lo = 0, hi; lo < nn; lo = hi) {
        for (hi = lo + 1; hi < nn && hk[hi].h == hk[lo].h; hi++)
            ;
        for (int x = lo + 1; x < hi; x++) {
            int a = hk[x].node;
            if ((keep && keep[a]) || a == p->input || a == p->output)
                continue;
            for (int y = lo; y < x; y++) {
                int r = hk[y].node;
                if (cls[r] != r || (keep && keep[r]) || r == p->input || r == p->output ||
                    p->nodes[r].speed != p->nodes[a].speed || !same_links(start, list, a, r))
                    continue;
                cls[a] = r;
                break;
            }
        }
    }
    rc = 0;
out:
    free(list);
    free(start);
    free(hk);
    return rc;
}

#define MAX_BESIDE 4            /* partners' nodes tried per task */

/* ---- rates and the evaluator ---------------------------------------------- */

/* The default evaluator: the bounds of search_bound.c at the placement's
 * own rates. */
int search_eval_bound(void *ctx, const double *mu, const double *lambda, double *x, diag *err)
{
    search *s = ctx;
    (void)err;
    memcpy(s->bmu, mu, (size_t)s->nt * sizeof *mu);
    memcpy(s->blam, lambda, (size_t)s->ne * sizeof *lambda);
    *x = search_bound_rates(s);
    return 0;
}

/* Estimate of placement pl (complete): 0 when a link is missing. */
static int estimate(search *s, const int *pl, double *x)
{
    diag tmp;
    diag_clear(&tmp);
    if (skel_place_rates(s->m, s->p, pl, s->mu, s->lambda, &tmp) < 0) {
        *x = 0;               /* infeasible: a move over a link not described */
        return 0;
    }
    s->scale_evals++;
    s->bound_pl = pl;
    int rc = s->eval(s->eval_ctx, s->mu, s->lambda, x, s->err);
    s->bound_pl = NULL;
    return rc;
}

/* ---- the constructive placement --------------------------------------------- */

/* Seconds of a move of edge e's items between nodes a and b (SKEL_LOCAL
 * allowed), INFINITY when the platform has no such link. */
static double link_secs(const search *s, int a, int b, int e)
{
    if (a == SKEL_LOCAL || b == SKEL_LOCAL)
        return s->p->local_latency < 0 ? INFINITY : s->p->local_latency;
    double lat, bw;
    if (skel_platform_link(s->p, a, b, &lat, &bw, NULL) < 0)
        return INFINITY;
    int f = s->m->edges[e].from;
    double data = f >= 0 ? s->m->data[f] : 0;
    return lat + (bw > 0 && data > 0 ? data / bw : 0);
}

/* Node at the other end of edge e from task i, or UNPLACED_END. */
#define UNPLACED_END (-4)
static int other_end(const search *s, const int *pl, int e, int i)
{
    skel_edge ed = s->m->edges[e];
    int t = ed.from == i ? ed.to : ed.from;
    if (t == SKEL_IN)
        return s->p->input;
    if (t == SKEL_OUT)
        return s->p->output;
    return pl[t] >= 0 ? pl[t] : UNPLACED_END;
}

/* Cycle time of task i on node x with the tasks placed so far: its share
 * of x, and its moves to placed partners (an item's receive and send). */
static double cycle_on(const search *s, const int *pl, int i, int x)
{
    double c = 1.0 / (s->m->work[i] * s->p->nodes[x].speed / (s->load[x] + 1));
    for (int k = s->adj_start[i]; k < s->adj_start[i + 1]; k++) {
        int e = s->adj_edge[k], y = other_end(s, pl, e, i);
        if (y != UNPLACED_END)
            c += link_secs(s, x, y, e) / s->adj_deg[i];
    }
    return c;
}

/* First node of class c that holds no task, or -1. A cursor per class
 * skips the members known to be used (reset when one is freed). */
static int first_free(search *s, int c)
{
    for (int k = s->cls_next[c]; k < s->cls_start[c + 1]; k++)
        if (s->load[s->cls_member[k]] == 0) {
            s->cls_next[c] = k;
            return s->cls_member[k];
        }
    s->cls_next[c] = s->cls_start[c + 1];
    return -1;
}

static void node_freed(search *s, int x)
{
    int c = s->node_class[x];
    if (c >= 0 && s->load[x] == 0 && s->cls_pos[x] < s->cls_next[c])
        s->cls_next[c] = s->cls_pos[x];
}

/* Candidate nodes for task i: the first free node of every class, the
 * nodes of its placed partners, or where it is pinned. */
static int candidates(search *s, const int *pl, int i, int *out)
{
    int n = 0, pin = s->o->pins ? s->o->pins[i] : -1;
    if (pin >= 0) {
        out[0] = pin;
        return 1;
    }
    for (int c = 0; c < s->nclass; c++) {
        int x = first_free(s, c);
        if (x >= 0)
            out[n++] = x;
    }
    /* partners' nodes, distinct, a few (a farm's sink has hundreds) */
    int first = n;
    for (int k = s->adj_start[i]; k < s->adj_start[i + 1] && n - first < MAX_BESIDE; k++) {
        int y = other_end(s, pl, s->adj_edge[k], i), dup = 0;
        for (int c = first; c < n && !dup; c++)
            dup = out[c] == y;
        if (y >= 0 && !dup && (!s->o->allowed || s->o->allowed[y]))
            out[n++] = y;
    }
    if (n == 0)                 /* every node used: share the fastest */
        for (int c = 0; c < s->nclass; c++)
            out[n++] = s->cls_member[s->cls_start[c]];
    return n;
}

static void construct(search *s, int *pl)
{
    for (int i = 0; i < s->nt; i++)
        pl[i] = -1;
    for (int k = 0; k < s->nt; k++) {
        int i = s->order[k], best = -1;
        int n = candidates(s, pl, i, s->cand);
        double bc = INFINITY;
        for (int c = 0; c < n; c++) {
            double t = cycle_on(s, pl, i, s->cand[c]);
            if (best < 0 || t < bc) {
                bc = t;
                best = s->cand[c];
            }
        }
        pl[i] = best;
        s->load[best]++;
    }
}

/* ---- local moves --------------------------------------------------------- */

/* Move task i to the best of its candidate nodes by the evaluator; returns
 * 1 when the placement improved. */
static int improve_task(search *s, int *pl, int i, double *x)
{
    int from = pl[i], moved = 0;
    s->load[from]--;
    node_freed(s, from);
    int n = candidates(s, pl, i, s->cand);
    for (int c = 0; c < n; c++) {
        int y = s->cand[c];
        if (y == pl[i])
            continue;
        int was = pl[i];
        pl[i] = y;
        double v;
        if (estimate(s, pl, &v) < 0)
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

static void local_moves(search *s, int *pl, double *x, double until)
{
    for (int pass = 0, moved = 1; moved && pass < 100; pass++) {
        moved = 0;
        for (int k = 0; k < s->nt; k++) {
            if (clock_now() > until) {
                s->scale_stopped = 1;
                return;
            }
            moved |= improve_task(s, pl, s->order[k], x);
        }
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
    if (!s->order || !s->adj_start || !s->adj_edge || !s->adj_deg || !s->cand || !s->cls_start ||
        !s->cls_member || !s->cls_next || !s->cls_pos || !s->node_class || !s->cons || !s->heur)
        return diag_set(s->err, "out of memory");
    if (!s->eval) {
        s->eval = search_eval_bound;
        s->eval_ctx = s;
        s->eval_name = "the per-stage cycle bound (an upper bound)";
    }
    return order_tasks(s) < 0 || task_edges(s) < 0 ? -1 : make_classes(s);
}

void search_scale_free(search *s)
{
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

int search_scale(search *s, double until)
{
    if (scale_setup(s) < 0)
        return -1;
    double t0 = clock_now();
    construct(s, s->cons);
    s->cons_secs = clock_now() - t0;
    if (estimate(s, s->cons, &s->cons_x) < 0)
        return -1;
    memcpy(s->heur, s->cons, (size_t)s->nt * sizeof *s->heur);
    s->heur_x = s->cons_x;
    local_moves(s, s->heur, &s->heur_x, until);
    for (int j = 0; j < s->nn; j++)
        s->load[j] = 0;         /* the exact search starts from nothing placed */
    return 0;
}
