/* skeleton/search_capacity.c: the capacity bound of a partial placement
 * (search_bound.c's other bounds cannot see it): the nodes' speeds shared
 * among disjoint sets of tasks. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A node delivers at most Speed_j of work a second whatever the sharing
 * (ps is work-conserving; under static each of its n tasks has Speed_j / n),
 * and an item of task i costs 1/work_i of it on average (work_i: its rate
 * at Speed=1, whatever its phases). So for any set of tasks, the sum of
 * X_i / work_i is at most the speed of the nodes they run on: one node
 * each at most, their own where placed. The sets are disjoint: a stage's
 * members together carry X stage_v (so they consume at least X stage_v /
 * their largest work_i), a farm step's members at least X / scale, a task
 * of known visit ratio X v_i. It bounds what the other bounds cannot see:
 * a farm of 1000 workers on 30 nodes has 1000 fast cycles but only the
 * nodes' speed to share. */
typedef struct cap_node {
    double speed;
    int node;
} cap_node;

static int cap_faster(const void *a, const void *b)
{
    const cap_node *x = a, *y = b;
    return x->speed > y->speed ? -1 : x->speed < y->speed ? 1 : x->node - y->node;
}

/* Add the set of n tasks (members[k], each through to_task's edge when
 * edges is non-zero) with coefficient coef unless one is already in a set. */
static void cap_add(search *s, unsigned char *used, const int *members, int n, int edges, double v)
{
    double w = 0;
    for (int k = 0; k < n; k++) {
        int i = edges ? s->m->edges[members[k]].to : members[k];
        if (i < 0 || used[i] || !(s->m->work[i] > 0))
            return;
        w = s->m->work[i] > w ? s->m->work[i] : w;
    }
    int at = s->cap_first[s->ncap];
    for (int k = 0; k < n; k++) {
        int i = edges ? s->m->edges[members[k]].to : members[k];
        used[i] = 1;
        s->cap_task[at++] = i;
    }
    s->cap_coef[s->ncap] = v / w;
    s->cap_all += v / w;
    s->cap_first[++s->ncap] = at;
}

static int cap_sort_nodes(search *s)
{
    cap_node *cn = malloc((size_t)s->nn * sizeof *cn);
    if (!cn)
        return diag_set(s->err, "out of memory");
    int n = 0;
    for (int j = 0; j < s->nn; j++)
        if (!s->o->allowed || s->o->allowed[j])
            cn[n++] = (cap_node){ s->p->nodes[j].speed, j };
    qsort(cn, (size_t)n, sizeof *cn, cap_faster);
    for (int k = 0; k < n; k++)
        s->cap_order[k] = cn[k].node;
    s->cap_order[n] = -1;
    free(cn);
    return 0;
}

int search_setup_capacity(search *s)
{
    size_t nt = (size_t)s->nt;
    unsigned char *used = calloc(nt, 1);
    if (!used || !(s->cap_first = calloc(nt + 1, sizeof *s->cap_first)) ||
        !(s->cap_task = malloc(nt * sizeof *s->cap_task)) ||
        !(s->cap_coef = malloc(nt * sizeof *s->cap_coef)) ||
        !(s->cap_order = malloc(((size_t)s->nn + 1) * sizeof *s->cap_order)) ||
        !(s->cap_mark = calloc((size_t)s->nn, sizeof *s->cap_mark))) {
        free(used);
        return diag_set(s->err, "out of memory");
    }
    for (int g = 0; g < s->nstages; g++)
        if (s->stage_n[g] > 1)
            cap_add(s, used, s->stage[g], s->stage_n[g], 0, s->stage_v[g]);
    for (int g = 0; g < s->ngroups; g++)
        cap_add(s, used, s->group[g]->edges, s->group[g]->n, 1, 1 / s->group_scale[g]);
    const double *v = s->d->extended ? s->d->visits : s->visit;
    for (int i = 0; i < s->nt; i++)
        if (v[i] > 0)
            cap_add(s, used, &i, 1, 0, v[i]);
    free(used);
    return cap_sort_nodes(s);
}

/* The speed n tasks can have together under placement pl: their nodes
 * (placed or pinned) once each, and for each of the others one of the
 * fastest usable nodes not yet counted. */
static double cap_speed(search *s, const int *tasks, int n, const int *pl)
{
    if (++s->cap_stamp == 0) {
        memset(s->cap_mark, 0, (size_t)s->nn * sizeof *s->cap_mark);
        s->cap_stamp = 1;
    }
    double sum = 0;
    int others = 0;
    for (int k = 0; k < n; k++) {
        int i = tasks[k], j = pl[i] >= 0 ? pl[i] : s->o->pins ? s->o->pins[i] : -1;
        if (j < 0)
            others++;
        else if (s->cap_mark[j] != s->cap_stamp) {
            s->cap_mark[j] = s->cap_stamp;
            sum += s->p->nodes[j].speed;
        }
    }
    for (int q = 0; others > 0 && s->cap_order[q] >= 0; q++) {
        int j = s->cap_order[q];
        if (s->cap_mark[j] != s->cap_stamp) {
            sum += s->p->nodes[j].speed;
            others--;
        }
    }
    return sum;
}

/* Upper bound on X from the nodes' capacity: each set alone, and all of
 * them together (INFINITY when no task has a known share). */
double search_capacity(search *s)
{
    if (s->ncap == 0)
        return INFINITY;
    const int *pl = s->bound_pl ? s->bound_pl : s->place;
    double best = cap_speed(s, s->cap_task, s->cap_first[s->ncap], pl) / s->cap_all;
    for (int g = 0; g < s->ncap; g++) {
        int lo = s->cap_first[g], n = s->cap_first[g + 1] - lo;
        double x = cap_speed(s, s->cap_task + lo, n, pl) / s->cap_coef[g];
        best = x < best ? x : best;
    }
    return best;
}
