/* skeleton/search_construct.c: the large-scale search's constructive
 * placement (step 2 of search_scale.c) and the candidate nodes its local
 * moves try: tasks heaviest first, each on the free node of the class
 * that gives it the shortest cycle, or beside a placed neighbour. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BESIDE 4            /* partners' nodes tried per task */

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

void search_node_freed(search *s, int x)
{
    int c = s->node_class[x];
    if (c >= 0 && s->load[x] == 0 && s->cls_pos[x] < s->cls_next[c])
        s->cls_next[c] = s->cls_pos[x];
}

/* Adds node y to the candidates out[first..*n) unless there or not allowed. */
static void add_candidate(const search *s, int y, int *out, int first, int *n)
{
    int dup = 0;
    for (int c = first; c < *n && !dup; c++)
        dup = out[c] == y;
    if (y >= 0 && !dup && (!s->o->allowed || s->o->allowed[y]))
        out[(*n)++] = y;
}

/* Candidate nodes for task i: the first free node of every class, the
 * nodes of its placed partners, or where it is pinned. With the chain as
 * the evaluator (its model is small), the nodes of every other task, not
 * only its partners': on `task, deal(4), task` the best node for the
 * first task was the last one's, which no partner holds (bench_scale,
 * table 2: 1.9% lost). Used and free nodes are distinct: at most nn. */
int search_candidates(search *s, const int *pl, int i, int *out)
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
    int first = n;
    if (search_scale_on_chain(s))
        for (int j = 0; j < s->nt; j++)
            if (j != i)
                add_candidate(s, pl[j], out, first, &n);
    /* partners' nodes, distinct, a few (a farm's sink has hundreds) */
    for (int k = s->adj_start[i]; k < s->adj_start[i + 1] && n - first < MAX_BESIDE; k++)
        add_candidate(s, other_end(s, pl, s->adj_edge[k], i), out, first, &n);
    if (n == 0)                 /* every node used: share the fastest */
        for (int c = 0; c < s->nclass; c++)
            out[n++] = s->cls_member[s->cls_start[c]];
    return n;
}

/* The constructive placement into pl (s->load counts its tasks). */
void search_construct(search *s, int *pl)
{
    for (int i = 0; i < s->nt; i++)
        pl[i] = -1;
    for (int k = 0; k < s->nt; k++) {
        int i = s->order[k], best = -1;
        int n = search_candidates(s, pl, i, s->cand);
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
