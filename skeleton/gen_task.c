/* skeleton/gen_task.c: the local states of one task (Yaikhom et al. 2007,
 * Algorithm 2, generalised as gen.c's opening comment says): its rounds of
 * receive, compute and send as a local graph, which gen_states.c turns into
 * Task<i> definitions, or a node's or copies' product takes (gen_product.c). */
#include "gen_int.h"

#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

/* Transitions of a task's local states, built round by round; a target
 * may be a placeholder until the state it names exists. */
#define TO_NEXT (-1)      /* the start of the next round */
#define TO_JOINED (-2)    /* the state after a receive with alternatives */

int skel_lg_push(skel_lgraph *lg, skel_ltr t)
{
    if (lg->ntr == lg->cap) {
        int nc = lg->cap ? 2 * lg->cap : 64;
        if (mem_grow((void **)&lg->tr, (size_t)nc, sizeof *lg->tr) < 0)
            return -1;
        lg->cap = nc;
    }
    lg->tr[lg->ntr++] = t;
    return 0;
}

void skel_lg_group(const skel_lgraph *lg, int *first, skel_ltr *by)
{
    int n = lg->nstates;
    memset(first, 0, (size_t)(n + 1) * sizeof *first);
    for (int k = 0; k < lg->ntr; k++)
        first[lg->tr[k].from + 1]++;
    for (int s = 0; s < n; s++)
        first[s + 1] += first[s];
    for (int k = 0; k < lg->ntr; k++)
        by[first[lg->tr[k].from]++] = lg->tr[k];
    for (int s = n; s > 0; s--)
        first[s] = first[s - 1];
    first[0] = 0;
}

static int lg_add(gen *g, lgraph *lg, int from, int act, double w, int to)
{
    if (skel_lg_push(lg, (ltr){ from, act, to, w, -1, 1, 0 }) < 0)
        return gen_oom(g);
    if (++g->m->nprefixes > SKEL_MAX_PREFIXES)
        return diag_set(g->err, "the model would have more than %d activities",
                        SKEL_MAX_PREFIXES);
    return 0;
}

/* Placeholders are made within one round: only transitions from `since` on
 * can hold them. */
static void lg_patch(lgraph *lg, int since, int placeholder, int state)
{
    for (int k = since; k < lg->ntr; k++)
        if (lg->tr[k].to == placeholder)
            lg->tr[k].to = state;
}

/* The move action of task i with partner x (receive: x sends to i). */
static int move_edge(gen *g, int i, int x, int receive)
{
    int e = receive ? (x == SKEL_IN ? g->in_edge[i] : skel_dag_edge(g->dag, x, i))
                    : skel_dag_edge(g->dag, i, x);
    if (e < 0)
        return diag_set(g->err, "internal error: no edge for a move of task t%d", i);
    return e;
}

/* Erlang phases of a rendezvous advance only while both tasks offer the
 * move: a passive self-loop in each such state (once). */
static int xfer_loop(gen *g, lgraph *lg, int e, int state)
{
    if (g->xfer[e] < 0 || g->m->buffer[e] > 0)
        return 0;
    for (int k = 0; k < lg->ntr; k++)
        if (lg->tr[k].from == state && lg->tr[k].act == g->xfer[e])
            return 0;
    return lg_add(g, lg, state, g->xfer[e], 1.0, state);
}

/* Alternative alt of step k: one item with one member of each of its
 * groups, in any order (a lattice of the groups done so far), from state
 * `from` to `to`. */
static int exchange(gen *g, lgraph *lg, int i, const skel_flow *f, int k, int alt, int from,
                    int to, int receive)
{
    int lo = f->start[k], hi = f->start[k + 1], ngroups = 0;
    for (int j = lo; j < hi; j++)
        if ((f->alt ? f->alt[j] : 0) == alt && (f->grp ? f->grp[j] : 0) >= ngroups)
            ngroups = (f->grp ? f->grp[j] : 0) + 1;
    int full = (1 << ngroups) - 1;          /* ngroups <= SKEL_MAX_GROUPS */
    int *state = malloc((size_t)(full + 1) * sizeof *state);
    if (!state)
        return gen_oom(g);
    state[0] = from;
    state[full] = to;
    for (int mask = 1; mask < full; mask++)
        state[mask] = lg->nstates++;
    int rc = 0;
    for (int mask = 0; mask < full && rc == 0; mask++)
        for (int j = lo; j < hi && rc == 0; j++) {
            int grp = f->grp ? f->grp[j] : 0;
            if ((f->alt ? f->alt[j] : 0) != alt || (mask >> grp & 1))
                continue;
            /* a later copy's move is its first copy's, at the same
             * alternative and group of this step (skel_lump_find) */
            if (gen_later_copy(g, f->tasks[j]))
                continue;
            int e = move_edge(g, i, f->tasks[j], receive);
            int act = e < 0 ? -1 : receive ? g->take[e] : g->move[e];
            rc = act < 0 ? -1 : lg_add(g, lg, state[mask], act, 1.0, state[mask | 1 << grp]);
            if (rc == 0)
                rc = xfer_loop(g, lg, e, state[mask]);
        }
    free(state);
    return rc;
}

/* One round: receive (step ks of S), compute, send (step kd of D). */
static int round_of(gen *g, lgraph *lg, int i, int cur, int ks, int kd)
{
    const skel_flow *S = &g->dag->src[i], *D = &g->dag->dst[i];
    if (S->nsteps) {
        int since = lg->ntr;
        for (int a = 0; a < skel_flow_nalts(S, ks); a++)
            if (exchange(g, lg, i, S, ks, a, cur, TO_JOINED, 1) < 0)
                return -1;
        cur = lg->nstates++;
        lg_patch(lg, since, TO_JOINED, cur);
    }
    int na = D->nsteps ? skel_flow_nalts(D, kd) : 1;
    /* Erlang phases of the work advance only while the task computes */
    if (g->work[i] >= 0 && lg_add(g, lg, cur, g->work[i], 1.0, cur) < 0)
        return -1;
    for (int a = 0; a < na; a++) {
        int x = D->nsteps ? skel_flow_sole(D, kd, a) : SKEL_NONE;
        double w = na > 1 ? skel_flow_alt_weight(D, kd, a) : 1.0;
        if (x == i || x == SKEL_NONE) {   /* compute again / consume */
            if (lg_add(g, lg, cur, g->comp[i], w, x == i ? cur : TO_NEXT) < 0)
                return -1;
            continue;
        }
        int y = lg->nstates++;
        if (lg_add(g, lg, cur, g->comp[i], w, y) < 0 ||
            exchange(g, lg, i, D, kd, a, y, TO_NEXT, 0) < 0)
            return -1;
    }
    return 0;
}

/* The process definitions of task i (Algorithm 2, generalised): l =
 * lcm(|S|, |D|) rounds, round k receiving by step k of its source cycle and
 * sending by step k of its destination cycle. */
int gen_task(gen *g, int i)
{
    const skel_flow *S = &g->dag->src[i], *D = &g->dag->dst[i];
    long ls = S->nsteps ? S->nsteps : 1, ld = D->nsteps ? D->nsteps : 1;
    long l = skel_lcm(ls, ld, SKEL_MAX_PERIOD);
    if (l < 0)
        return diag_set(g->err, "task t%d: its receive/send cycle is longer than %d rounds",
                        i, SKEL_MAX_PERIOD);
    lgraph lg = { .nstates = 1 };
    int rc = 0, since = 0;
    for (long k = 0; k < l && rc == 0; k++) {
        int cur = 0;
        if (k > 0) {
            cur = lg.nstates++;
            lg_patch(&lg, since, TO_NEXT, cur);
        }
        since = lg.ntr;
        rc = round_of(g, &lg, i, cur, (int)(k % ls), (int)(k % ld));
    }
    if (rc == 0) {
        lg_patch(&lg, since, TO_NEXT, 0);
        if ((g->node_share && g->node_share[i] >= 0) || gen_grouped(g, i)) {
            g->lgs[i] = lg;            /* its node's or copy's product defines it */
            return 0;
        }
        rc = gen_define_states(g, &lg, "Task", i);
    }
    free(lg.tr);
    return rc;
}
