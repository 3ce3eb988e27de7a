/* skeleton/share.c: processor sharing on one node (skel_share_product).
 *
 * The tasks placed on a node run as one component whose local state is the
 * tuple of their local states, so that it knows which of them compute and
 * gives each computing task Speed / (tasks computing). The tuple is a
 * function of the tasks' states (and their processors' phases): the chain
 * has exactly the states of the model with one component per task and one
 * per processor. Rates are those the cooperation of the separate components
 * would have (Hillston's passive weights): a move between two members,
 * passive in both, keeps weight (w1/W1)(w2/W2) of the network's rate; a
 * computation of weight w among W takes w/W of its processor's rate.
 *
 * Explored on its own, the product would let the moves it shares with the
 * rest of the model happen at any time: a second item could enter a loop
 * of cap 1 whose body is on the node, and the body's tasks then wait on
 * each other for ever (a local state with no activity, that the whole
 * model never reaches). So a loop's gate whose moves are all the node's
 * joins the product too, a copy of the top-level Loop<k> it stays in step
 * with: it owns no action, it only stops a move it does not allow, so the
 * rates are those of the product without it on the states both reach. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

typedef struct prod {
    const skel_share_in *in;
    int n;                    /* members: in->n, then the gates joined */
    const skel_lgraph **lg;   /* per member */
    int *comp;                /* per member: comp action, -1 */
    unsigned char *galpha;    /* per gate joined and action: the gate's */
    int **first;              /* per member: nstates + 1 offsets into by */
    skel_ltr **by;            /* per member: transitions grouped by source */
    unsigned char **busy;     /* per member and local state: computing */
    int *owner;               /* per action: two member positions, -1 */
    int *tuples;              /* nstates * n */
    long nstates, cap;
    long *slot;               /* hash: state + 1, 0 empty */
    size_t hcap;
    int *tmp;                 /* n */
} prod;

static uint64_t hash_tuple(const int *t, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < n; k++) {
        h ^= (uint64_t)(unsigned)t[k];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

static int rehash(prod *pr)
{
    size_t nc = pr->hcap ? 2 * pr->hcap : 1024;
    long *ns = calloc(nc, sizeof *ns);
    if (!ns)
        return -1;
    int n = pr->n;
    for (long s = 0; s < pr->nstates; s++) {
        size_t h = (size_t)hash_tuple(pr->tuples + (size_t)s * (size_t)n, n) & (nc - 1);
        while (ns[h])
            h = (h + 1) & (nc - 1);
        ns[h] = s + 1;
    }
    free(pr->slot);
    pr->slot = ns;
    pr->hcap = nc;
    return 0;
}

/* The number of tuple t, added when new. Returns it, -2 past the limit, -1
 * out of memory. */
static long state_of(prod *pr, const int *t)
{
    int n = pr->n;
    size_t h = (size_t)hash_tuple(t, n) & (pr->hcap - 1);
    for (; pr->slot[h]; h = (h + 1) & (pr->hcap - 1))
        if (memcmp(pr->tuples + (size_t)(pr->slot[h] - 1) * (size_t)n, t,
                   (size_t)n * sizeof *t) == 0)
            return pr->slot[h] - 1;
    if (pr->nstates >= pr->in->max_states)
        return -2;
    if (pr->nstates == pr->cap) {
        long nc = pr->cap ? 2 * pr->cap : 256;
        if (mem_grow((void **)&pr->tuples, (size_t)nc * (size_t)n, sizeof *pr->tuples) < 0)
            return -1;
        pr->cap = nc;
    }
    long s = pr->nstates++;
    memcpy(pr->tuples + (size_t)s * (size_t)n, t, (size_t)n * sizeof *t);
    pr->slot[h] = s + 1;
    if ((size_t)pr->nstates * 2 > pr->hcap && rehash(pr) < 0)
        return -1;
    return s;
}

/* Transitions of member p grouped by source state; which states compute;
 * which members own each action. */
static int index_member(prod *pr, int p)
{
    const skel_lgraph *lg = pr->lg[p];
    int ns = lg->nstates;
    int *first = calloc((size_t)ns + 1, sizeof *first);
    skel_ltr *by = malloc((size_t)(lg->ntr ? lg->ntr : 1) * sizeof *by);
    unsigned char *busy = calloc((size_t)ns, 1);
    pr->first[p] = first;
    pr->by[p] = by;
    pr->busy[p] = busy;
    if (!first || !by || !busy)
        return -1;
    skel_lg_group(lg, first, by);
    for (int k = 0; k < lg->ntr; k++) {
        int a = lg->tr[k].act;
        if (a == pr->comp[p] && lg->tr[k].task < 0)
            busy[lg->tr[k].from] = 1;
        int *o = pr->owner + 2 * (size_t)a;
        if (p >= pr->in->n)
            pr->galpha[(size_t)(p - pr->in->n) * (size_t)pr->in->nactions + (size_t)a] = 1;
        else if (o[0] != p && o[1] != p)
            o[o[0] < 0 ? 0 : 1] = p;
    }
    return 0;
}

/* Total weight of action a in member p's local state ls. */
static double wsum(const prod *pr, int p, int ls, int a)
{
    double w = 0;
    for (int k = pr->first[p][ls]; k < pr->first[p][ls + 1]; k++)
        if (pr->by[p][k].act == a)
            w += pr->by[p][k].w;
    return w;
}

/* Whether the gates joined let t.act happen in pr->tmp, moving them. */
static int gates_allow(prod *pr, int act)
{
    for (int g = pr->in->n; g < pr->n; g++) {
        if (!pr->galpha[(size_t)(g - pr->in->n) * (size_t)pr->in->nactions + (size_t)act])
            continue;
        int k = pr->first[g][pr->tmp[g]], end = pr->first[g][pr->tmp[g] + 1];
        while (k < end && pr->by[g][k].act != act)
            k++;
        if (k == end)
            return 0;
        pr->tmp[g] = pr->by[g][k].to;
    }
    return 1;
}

static int emit(prod *pr, skel_lgraph *out, long s, skel_ltr t)
{
    if (!gates_allow(pr, t.act))
        return 0;
    long to = state_of(pr, pr->tmp);
    if (to < 0)
        return to == -2 ? 1 : -1;
    t.from = (int)s;
    t.to = (int)to;
    return skel_lg_push(out, t) < 0 ? -1 : 0;
}

/* One activity of two members on the same action: moves between two tasks
 * (both passive) keep the product of their fractions of weight; a task's
 * computation (passive) with its processor's phase (active) keeps the
 * phase's rate times the task's fraction (Hillston's rule). */
static skel_ltr combine(skel_ltr t, double wt, skel_ltr u, double wu)
{
    if (u.task >= 0)
        return (skel_ltr){ 0, t.act, 0, u.w * (t.w / wt), u.task, 1, 0 };
    if (t.task >= 0)
        return (skel_ltr){ 0, t.act, 0, t.w * (u.w / wu), t.task, 1, 0 };
    return (skel_ltr){ 0, t.act, 0, (t.w / wt) * (u.w / wu), -1, 1, 0 };
}

/* The activities of member p in product state s (its tuple in cur). An
 * action of two members is made once, by the first of them; every active
 * rate (a computation) is divided among the tasks computing. */
static int expand_member(prod *pr, skel_lgraph *out, long s, const int *cur, int p, int nbusy)
{
    int n = pr->n, ls = cur[p], rc = 0;
    for (int k = pr->first[p][ls]; k < pr->first[p][ls + 1] && rc == 0; k++) {
        skel_ltr t = pr->by[p][k];
        const int *o = pr->owner + 2 * (size_t)t.act;
        int q = o[0] == p ? o[1] : o[0];
        memcpy(pr->tmp, cur, (size_t)n * sizeof *cur);
        pr->tmp[p] = t.to;
        if (q < 0) {
            t.div = t.task >= 0 ? nbusy : 1;
            rc = emit(pr, out, s, t);
            continue;
        }
        if (q < p)
            continue;
        double wt = wsum(pr, p, ls, t.act), wu = wsum(pr, q, cur[q], t.act);
        for (int j = pr->first[q][cur[q]]; j < pr->first[q][cur[q] + 1] && rc == 0; j++) {
            skel_ltr u = pr->by[q][j];
            if (u.act != t.act)
                continue;
            pr->tmp[q] = u.to;
            skel_ltr a = combine(t, wt, u, wu);
            a.div = a.task >= 0 ? nbusy : 1;
            rc = emit(pr, out, s, a);
        }
    }
    return rc;
}

static int explore(prod *pr, skel_lgraph *out)
{
    int n = pr->n, rc = 0;
    int *cur = malloc((size_t)n * sizeof *cur);
    if (!cur || !(pr->tmp = calloc((size_t)n, sizeof *pr->tmp)) || rehash(pr) < 0 ||
        state_of(pr, pr->tmp) < 0) {
        free(cur);
        return -1;
    }
    for (long s = 0; s < pr->nstates && rc == 0; s++) {
        memcpy(cur, pr->tuples + (size_t)s * (size_t)n, (size_t)n * sizeof *cur);
        int nbusy = 0;
        for (int p = 0; p < n; p++)
            nbusy += pr->busy[p][cur[p]];
        for (int p = 0; p < pr->in->n && rc == 0; p++)
            rc = expand_member(pr, out, s, cur, p, nbusy);
    }
    out->nstates = (int)pr->nstates;
    free(cur);
    return rc;
}

/* Whether gate lg can join: each of its actions is some member's, so that
 * the product sees every move the gate counts. */
static int gate_fits(const prod *pr, const skel_lgraph *lg)
{
    for (int k = 0; k < lg->ntr; k++)
        if (pr->owner[2 * (size_t)lg->tr[k].act] < 0)
            return 0;
    return lg->ntr > 0;
}

/* The members: the tasks and processors, then each gate that fits, which
 * owns no action: it only stops the moves it does not allow (gates_allow). */
static int index_members(prod *pr)
{
    const skel_share_in *in = pr->in;
    for (int p = 0; p < in->n; p++) {
        pr->lg[p] = in->lg[p];
        pr->comp[p] = in->comp[p];
        if (index_member(pr, pr->n++) < 0)
            return -1;
    }
    for (int k = 0; k < in->ngates; k++) {
        if (!gate_fits(pr, in->gate[k]))
            continue;
        pr->lg[pr->n] = in->gate[k];
        pr->comp[pr->n] = -1;
        if (index_member(pr, pr->n++) < 0)
            return -1;
    }
    return 0;
}

int skel_share_product(const skel_share_in *in, skel_lgraph *out)
{
    prod pr = { .in = in };
    int n = in->n + in->ngates, rc = -1;
    pr.first = calloc((size_t)n, sizeof *pr.first);
    pr.by = calloc((size_t)n, sizeof *pr.by);
    pr.busy = calloc((size_t)n, sizeof *pr.busy);
    pr.lg = malloc((size_t)n * sizeof *pr.lg);
    pr.comp = malloc((size_t)n * sizeof *pr.comp);
    pr.owner = malloc(2 * (size_t)in->nactions * sizeof *pr.owner);
    pr.galpha = calloc((size_t)in->ngates * (size_t)in->nactions + 1, 1);
    if (pr.first && pr.by && pr.busy && pr.lg && pr.comp && pr.owner && pr.galpha) {
        for (size_t k = 0; k < 2 * (size_t)in->nactions; k++)
            pr.owner[k] = -1;
        rc = index_members(&pr);
        if (rc == 0)
            rc = explore(&pr, out);
    }
    for (int p = 0; p < n; p++) {
        if (pr.first)
            free(pr.first[p]);
        if (pr.by)
            free(pr.by[p]);
        if (pr.busy)
            free(pr.busy[p]);
    }
    free(pr.first);
    free(pr.by);
    free(pr.busy);
    free(pr.lg);
    free(pr.comp);
    free(pr.owner);
    free(pr.galpha);
    free(pr.tuples);
    free(pr.slot);
    free(pr.tmp);
    return rc;
}

int skel_gate_graph(int cap, const int *enter, int nin, const int *leave, int nout,
                    skel_lgraph *out)
{
    out->nstates = cap + 1;
    for (int c = 0; c <= cap; c++) {
        for (int j = 0; c < cap && j < nin; j++)
            if (skel_lg_push(out, (skel_ltr){ c, enter[j], c + 1, 1.0, -1, 1, 0 }) < 0)
                return -1;
        for (int j = 0; c > 0 && j < nout; j++)
            if (skel_lg_push(out, (skel_ltr){ c, leave[j], c - 1, 1.0, -1, 1, 0 }) < 0)
                return -1;
    }
    return 0;
}
