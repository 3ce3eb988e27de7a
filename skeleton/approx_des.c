/* skeleton/approx_des.c: the estimate of last resort where the skeleton is
 * not an event graph (a farm's choice inside a deal of deals), or where a
 * node computes several of its tasks under processor sharing: its own
 * semantics sampled event by event (docs/approximation.md "Deals of deals
 * beyond the windows").
 *
 * A farm's dispatch is a race: in the generated model every task is
 * passive in its moves and the Network offers each move at its own rate
 * (gen.c), so a sender holding an item races every receiver of its step
 * that is ready for it, each move at its rate (the first to end takes the
 * item: the choice is by the rates), and a receiver of several senders
 * (the farm's collector) likewise. Which item goes where depends on which
 * task is ready first, so there is no fixed recursion item by item (the
 * max-plus one of approx_est.c): this samples the model's local states
 * instead, task by task, as the chain would move, with nothing stored per
 * state. Every activity is a sequence of exponential phases, so a race
 * keeps the clocks of the activities still enabled and draws one for an
 * activity as it becomes enabled:
 *  - a task receives from step k of its sources, computes, sends to step
 *    k of its destinations (k its round, as gen.c's template);
 *  - its work: Erlang-k or H2 phases (skel_erlang_phases, skel_h2), each
 *    phase under processor sharing at 1/n of its rate with n of its node's
 *    tasks computing: each phase's work is drawn in seconds alone, and the
 *    node keeps one clock, its virtual time (the seconds alone each of its
 *    computing tasks has done, growing at 1/n), so that a change of n
 *    reschedules the node's one activity, not each task's (exact, as
 *    drawing each clock again was: the phases are exponential);
 *  - a rendezvous: its Erlang phases advance while both ends offer the
 *    move (kept while they do not), an H2 link's branch drawn as its
 *    previous move ends (link.c);
 *  - a buffer of B items: the sender's hand-off (at `handoff`) while it
 *    holds fewer than B, each item's transit of its own (the link's
 *    phases), the receiver's take (at `handoff`) of any item delivered.
 * The throughput is the rate of items leaving (a consumer's computes, the
 * moves out) after AX_EST_WARM, up to AX_EST_ITEMS, with a 95% half-width
 * by batch means, as the recursion's. Private header approx_int.h. */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DES_RECV, DES_COMP, DES_SEND };

/* A time's phases (phases()): k Erlang phases, or H2 (h2 1: one phase,
 * its branch's mean, branch a with probability p). */
typedef struct des_ph {
    int k, h2;
    double mean[2];
    double p;
} des_ph;

typedef struct des {
    const skel_approx *a;
    const skel_dag *d;
    const double *mu, *lambda;
    int T, E, nact;
    int *st;              /* per task: DES_RECV, DES_COMP, DES_SEND */
    long *done;           /* per task: its computes */
    int *ks, *kd;         /* per task: its round's step of its sources, of its
                             destinations (its round modulo their steps) */
    int *left;            /* per task: phases of its work left */
    double *pmean;        /* per task: its current phase's mean, alone */
    double *fin;          /* per task: its node's virtual time its phase ends at */
    double *vt, *vt_at;   /* per node (by its first task): its virtual time, and
                             the time that was last brought up to */
    double *c0, *busy;    /* per task: its compute's start, seconds computing */
    int *rep, *ncomp;     /* per task: its node's first task (processor sharing;
                             itself under static), tasks computing there */
    int *next;            /* per task: the next task on its node (-1: none) */
    int *soff, *doff;     /* per task: where its sources' / destinations' members'
                             edges start in sedge / dedge (parallel to tasks[]) */
    int *sedge, *dedge;
    des_ph *work;      /* per task: its work's phases (mu's, this evaluation) */
    des_ph *mv;        /* per edge: a move's phases (lambda's, this evaluation) */
    int *cap;             /* per edge: its buffer's items (0: a rendezvous) */
    int *smoff, *dmoff;   /* per edge: where its steps' membership starts in mem
                             (-1: the world's side, always ready) */
    unsigned char *mem;   /* per edge, per step k of its receiver's sources (at
                             smoff) or its sender's destinations (at dmoff): 1
                             when the step holds the edge's other end */
    int *held, *dlv, *eph;   /* per edge: items in its buffer, delivered, its phase
                             (Erlang: phases done; H2: branch) */
    int *slot_edge;       /* per buffer slot: its edge, -1 when free */
    int *heap, *pos;      /* activities by time (pos -1: not scheduled) */
    double *hat;          /* per heap position: its activity's time (kept beside
                             the heap: a comparison reads no other array) */
    int hn;
    uint64_t seed;
    double *z;            /* the controls (skel_approx est_z): per task its work's
                             draws less their means, per edge its moves', then
                             the hand-offs' */
    double now;
    long out;             /* items that left */
} des;

/* Activities: 2e a move or hand-off on edge e, 2e + 1 its take, 2E + r
 * the first phase end of node r's tasks (r its first task), 2E + T + s
 * the transit in buffer slot s. */
static int act_task(const des *s, int i) { return 2 * s->E + i; }
static int act_slot(const des *s, int k) { return 2 * s->E + s->T + k; }

/* ---- the activities' times: a binary heap indexed by activity ------- */

/* The entry at x moved up or down to its place (a hole moved, the entries
 * it passes shifted: the layout of swapping them in turn). */
static void heap_fix(des *s, int x)
{
    int act = s->heap[x];
    double t = s->hat[x];
    while (x > 0 && t < s->hat[(x - 1) / 2]) {
        int p = (x - 1) / 2;
        s->heap[x] = s->heap[p];
        s->hat[x] = s->hat[p];
        s->pos[s->heap[x]] = x;
        x = p;
    }
    for (;;) {
        int l = 2 * x + 1, m = -1;
        double tm = t;
        if (l < s->hn && s->hat[l] < tm)
            tm = s->hat[m = l];
        if (l + 1 < s->hn && s->hat[l + 1] < tm)
            tm = s->hat[m = l + 1];
        if (m < 0)
            break;
        s->heap[x] = s->heap[m];
        s->hat[x] = tm;
        s->pos[s->heap[x]] = x;
        x = m;
    }
    s->heap[x] = act;
    s->hat[x] = t;
    s->pos[act] = x;
}

static void schedule(des *s, int act, double t)
{
    int x = s->pos[act];
    if (x < 0) {
        x = s->hn++;
        s->heap[x] = act;
    }
    s->hat[x] = t;
    heap_fix(s, x);
}

static void cancel(des *s, int act)
{
    int x = s->pos[act];
    if (x < 0)
        return;
    s->pos[act] = -1;
    if (x < --s->hn) {
        s->heap[x] = s->heap[s->hn];
        s->hat[x] = s->hat[s->hn];
        heap_fix(s, x);
    }
}

/* ---- who offers what ------------------------------------------------- */

/* Edge e's sender (or the world, SKEL_IN) offers its item to its
 * receiver now. */
static int sends_on(const des *s, int e)
{
    int i = s->d->edges[e].from;
    if (i < 0)
        return 1;
    return s->st[i] == DES_SEND && s->dmoff[e] >= 0 && s->mem[s->dmoff[e] + s->kd[i]];
}

/* Edge e's receiver (or the world, SKEL_OUT) is ready to take its
 * sender's item now. */
static int takes_on(const des *s, int e)
{
    int j = s->d->edges[e].to;
    if (j < 0)
        return 1;
    return s->st[j] == DES_RECV && s->smoff[e] >= 0 && s->mem[s->smoff[e] + s->ks[j]];
}

/* The phases of a time of mean m and squared coefficient of variation
 * scv, as gen.c gives them (link.c phases_of): Erlang-k of mean m/k each
 * below 1, one exponential at 1, above it H2's branch a (mean[0], with
 * probability p) or b (mean[1]). */
static des_ph phases(double m, double scv)
{
    des_ph ph = { 1, 0, { m, m }, 0 };
    if (scv > 1) {
        double ra, rb;
        skel_h2(scv, &ph.p, &ra, &rb);
        ph.mean[0] = m / ra;
        ph.mean[1] = m / rb;
        ph.h2 = 1;
        return ph;
    }
    ph.k = skel_erlang_phases(scv);
    ph.mean[0] = ph.mean[1] = m / ph.k;
    return ph;
}

/* The mean of edge e's next phase (a rendezvous'): its H2 branch's, or
 * one of its Erlang phases'. */
static double move_phase(const des *s, int e)
{
    const des_ph *ph = &s->mv[e];
    return ph->mean[ph->h2 ? s->eph[e] : 0];
}

/* Activity x's control: its edge's (a move's phase), or the hand-offs'. */
static double *control_of(const des *s, int x)
{
    return &s->z[s->T + (s->cap[x / 2] == 0 ? x / 2 : s->E)];
}

/* Activity x (a move, hand-off or take) enabled and not running: its
 * clock drawn (of this mean); disabled: stopped (an Erlang rendezvous
 * keeps its phases done). */
static void offer(des *s, int x, int on, double mean)
{
    if (!on) {
        cancel(s, x);
    } else if (s->pos[x] < 0) {
        double t = ax_draw(&s->seed, mean);
        *control_of(s, x) += t - mean;
        schedule(s, x, s->now + t);
    }
}

static void update_edge(des *s, int e)
{
    if (s->cap[e] == 0) {
        int on = sends_on(s, e) && takes_on(s, e);
        if (!on || s->pos[2 * e] < 0)
            offer(s, 2 * e, on, on ? move_phase(s, e) : 0);
        return;
    }
    offer(s, 2 * e, sends_on(s, e) && s->held[e] < s->cap[e], 1 / s->a->handoff);
    offer(s, 2 * e + 1, s->dlv[e] > 0 && takes_on(s, e), 1 / s->a->handoff);
}

/* The edges of task i's step k on its sources' side (dst 0) or its
 * destinations' (dst 1): the activities its state may change. */
static void touch(des *s, int i, int dst, int k)
{
    const skel_flow *f = dst ? &s->d->dst[i] : &s->d->src[i];
    const int *edge = dst ? s->dedge + s->doff[i] : s->sedge + s->soff[i];
    if (i < 0 || f->nsteps == 0)
        return;
    for (int q = f->start[k]; q < f->start[k + 1]; q++)
        if (edge[q] >= 0)
            update_edge(s, edge[q]);
}

/* ---- computing ------------------------------------------------------- */

/* Node r's virtual time brought up to now: each of its n computing
 * tasks did 1/n of the seconds since of its work alone. */
static void node_advance(des *s, int r)
{
    if (s->ncomp[r] > 0)
        s->vt[r] += (s->now - s->vt_at[r]) / s->ncomp[r];
    s->vt_at[r] = s->now;
}

/* The task of node r whose phase ends first; -1 when none computes. */
static int node_first(const des *s, int r)
{
    int best = -1;
    for (int x = r; x >= 0; x = s->next[x])
        if (s->st[x] == DES_COMP && (best < 0 || s->fin[x] < s->fin[best]))
            best = x;
    return best;
}

/* Node r's clock: its first phase end, its tasks at 1/n of their rates. */
static void node_schedule(des *s, int r)
{
    int i = node_first(s, r);
    if (i < 0)
        cancel(s, act_task(s, r));
    else
        schedule(s, act_task(s, r), s->now + (s->fin[i] - s->vt[r]) * s->ncomp[r]);
}

/* Task i's next phase: its work, in seconds alone, from its node's now. */
static void next_phase(des *s, int i)
{
    double t = ax_draw(&s->seed, s->pmean[i]);
    s->z[i] += t - s->pmean[i];
    s->fin[i] = s->vt[s->rep[i]] + t;
}

/* Task i starts computing: its work's phases (Erlang-k, or one of H2's
 * two branches, or one). */
static void compute(des *s, int i)
{
    const des_ph *w = &s->work[i];
    node_advance(s, s->rep[i]);
    s->st[i] = DES_COMP;
    s->c0[i] = s->now;
    s->left[i] = w->k;
    s->pmean[i] = w->mean[0];
    if (w->h2)
        s->pmean[i] = ax_uniform(&s->seed) < w->p ? w->mean[0] : w->mean[1];
    next_phase(s, i);
    s->ncomp[s->rep[i]]++;
    node_schedule(s, s->rep[i]);
    touch(s, i, 0, s->ks[i]);
}

/* Task i's item is sent: its next round, receiving (or computing, a
 * producer). */
static void sent(des *s, int i)
{
    if (i < 0)
        return;
    int kd = s->kd[i], ns = s->d->src[i].nsteps, nd = s->d->dst[i].nsteps;
    s->kd[i] = kd + 1 < nd ? kd + 1 : 0;
    s->ks[i] = s->ks[i] + 1 < ns ? s->ks[i] + 1 : 0;
    s->st[i] = DES_RECV;
    touch(s, i, 1, kd);
    if (ns == 0)
        compute(s, i);
    else
        touch(s, i, 0, s->ks[i]);
}

/* Task j has received an item (the world out: it left). */
static void received(des *s, int j)
{
    if (j < 0)
        s->out++;
    else
        compute(s, j);
}

/* Node r's first phase end: its task's next phase, or its compute done. */
static void phase_end(des *s, int r)
{
    int i = node_first(s, r);
    node_advance(s, r);
    if (--s->left[i] > 0) {
        next_phase(s, i);
        node_schedule(s, r);
        return;
    }
    s->busy[i] += s->now - s->c0[i];
    s->done[i]++;
    s->st[i] = DES_SEND;
    s->ncomp[r]--;
    node_schedule(s, r);
    if (s->d->dst[i].nsteps == 0) {   /* a consumer: the item leaves */
        s->out++;
        sent(s, i);
    } else {
        touch(s, i, 1, s->kd[i]);
    }
}

/* ---- moving ---------------------------------------------------------- */

static void move_end(des *s, int e)
{
    int i = s->d->edges[e].from, j = s->d->edges[e].to;
    const des_ph *ph = &s->mv[e];
    cancel(s, 2 * e);
    if (ph->h2) {                     /* H2: the next move's branch */
        s->eph[e] = ax_uniform(&s->seed) < ph->p ? 0 : 1;
    } else if (++s->eph[e] < ph->k) { /* Erlang: the next phase */
        update_edge(s, e);
        return;
    } else {
        s->eph[e] = 0;
    }
    sent(s, i);
    received(s, j);
    update_edge(s, e);
}

/* A hand-off into edge e's buffer: the item's transit in a free slot. */
static void handoff_end(des *s, int e)
{
    int i = s->d->edges[e].from;
    long lo = s->a->est_roff[e], hi = s->a->est_roff[e + 1], k = lo;
    cancel(s, 2 * e);
    while (k < hi && s->slot_edge[k] >= 0)
        k++;
    s->slot_edge[k] = e;
    s->held[e]++;
    double t = ax_draw_ph(&s->seed, 1 / s->lambda[e], s->a->est_scv[e]);
    s->z[s->T + e] += t - 1 / s->lambda[e];
    schedule(s, act_slot(s, (int)k), s->now + t);
    sent(s, i);
    update_edge(s, e);
}

static void transit_end(des *s, int k)
{
    int e = s->slot_edge[k];
    cancel(s, act_slot(s, k));
    s->slot_edge[k] = -1;
    s->dlv[e]++;
    update_edge(s, e);
}

static void take_end(des *s, int e)
{
    cancel(s, 2 * e + 1);
    s->held[e]--;
    s->dlv[e]--;
    received(s, s->d->edges[e].to);
    update_edge(s, e);
}

/* The next activity; 0, or -1 when none is enabled (a deadlock). */
static int step(des *s)
{
    if (s->hn == 0)
        return -1;
    int x = s->heap[0];
    s->now = s->hat[0];
    if (x >= act_slot(s, 0))
        transit_end(s, x - act_slot(s, 0));
    else if (x >= act_task(s, 0))
        phase_end(s, x - act_task(s, 0));
    else if (x % 2 == 0 && s->cap[x / 2] == 0)
        move_end(s, x / 2);
    else if (x % 2 == 0)
        handoff_end(s, x / 2);
    else
        take_end(s, x / 2);
    return 0;
}

/* The time the n-th item from now leaves; -1 on a deadlock. */
static double run_items(des *s, long n)
{
    long goal = s->out + n;
    while (s->out < goal)
        if (step(s) < 0)
            return -1;
    return s->now;
}

/* ---- the run ---------------------------------------------------------- */

/* Only tasks and the world in every step, no par/choice/loop: what this
 * samples (else the rough estimate answers). */
int ax_des_applies(const skel_dag *d)
{
    if (d->extended)
        return 0;
    for (int i = 0; i < d->ntasks; i++)
        for (int side = 0; side < 2; side++) {
            const skel_flow *f = side ? &d->dst[i] : &d->src[i];
            for (int q = 0; f->nsteps > 0 && q < f->start[f->nsteps]; q++)
                if (f->alt || f->tasks[q] == i || f->tasks[q] == SKEL_NONE)
                    return 0;
        }
    return 1;
}

/* The arrays of a run, each freed by des_free (NULL when not allocated). */
#define DES_ARRAYS(X) \
    X(st) X(done) X(ks) X(kd) X(left) X(pmean) X(fin) X(vt) X(vt_at) X(c0) X(busy) \
    X(rep) X(ncomp) X(next) X(soff) X(doff) X(sedge) X(dedge) X(work) X(mv) X(cap) \
    X(smoff) X(dmoff) X(mem) X(held) X(dlv) X(eph) X(slot_edge) X(heap) X(pos) X(hat)

static void des_free(des *s)
{
#define DES_FREE(f) free(s->f);
    DES_ARRAYS(DES_FREE)
#undef DES_FREE
}

/* The members of every task's source steps (dst 0) or destination steps
 * (dst 1), the edges' steps' membership (mem) with them. */
static size_t des_members(const des *s, int dst)
{
    size_t n = 1;
    for (int i = 0; i < s->T; i++) {
        const skel_flow *f = dst ? &s->d->dst[i] : &s->d->src[i];
        n += f->nsteps ? (size_t)f->start[f->nsteps] : 0;
    }
    return n;
}

/* Steps of edge e's receiver's sources (dst 0) or sender's destinations. */
static int des_steps(const des *s, int e, int dst)
{
    int i = dst ? s->d->edges[e].from : s->d->edges[e].to;
    return i < 0 ? 0 : dst ? s->d->dst[i].nsteps : s->d->src[i].nsteps;
}

static int des_alloc(des *s)
{
    size_t t = (size_t)s->T + 1, e = (size_t)s->E + 1, n = (size_t)s->nact + 1;
    size_t slots = (size_t)s->a->est_roff[s->E] + 1, nm = 1;
    for (int x = 0; x < s->E; x++)
        nm += (size_t)des_steps(s, x, 0) + (size_t)des_steps(s, x, 1);
#define DES_T(f) s->f = calloc(t, sizeof *s->f);
    DES_T(st) DES_T(done) DES_T(ks) DES_T(kd) DES_T(left) DES_T(pmean) DES_T(fin) DES_T(vt)
    DES_T(vt_at) DES_T(c0) DES_T(busy) DES_T(rep) DES_T(ncomp) DES_T(next) DES_T(soff)
    DES_T(doff) DES_T(work)
#define DES_E(f) s->f = calloc(e, sizeof *s->f);
    DES_E(mv) DES_E(cap) DES_E(smoff) DES_E(dmoff) DES_E(held) DES_E(dlv) DES_E(eph)
    s->sedge = malloc(des_members(s, 0) * sizeof *s->sedge);
    s->dedge = malloc(des_members(s, 1) * sizeof *s->dedge);
    s->mem = calloc(nm, sizeof *s->mem);
    s->slot_edge = malloc(slots * sizeof *s->slot_edge);
    s->heap = calloc(n, sizeof *s->heap);
    s->pos = malloc(n * sizeof *s->pos);
    s->hat = calloc(n, sizeof *s->hat);
#define DES_OK(f) &&s->f
    return 1 DES_ARRAYS(DES_OK) ? 0 : -1;
#undef DES_OK
#undef DES_E
#undef DES_T
}

/* Per task the edge of each member of its steps (sources', destinations'). */
static void des_edges(des *s)
{
    int ns = 0, nd = 0;
    for (int i = 0; i < s->T; i++) {
        const skel_flow *fs = &s->d->src[i], *fd = &s->d->dst[i];
        s->soff[i] = ns;
        s->doff[i] = nd;
        for (int q = 0; fs->nsteps && q < fs->start[fs->nsteps]; q++)
            s->sedge[ns++] = skel_dag_edge(s->d, fs->tasks[q], i);
        for (int q = 0; fd->nsteps && q < fd->start[fd->nsteps]; q++)
            s->dedge[nd++] = skel_dag_edge(s->d, i, fd->tasks[q]);
    }
}

/* Per edge which of its ends' steps hold the other end (mem, at smoff and
 * dmoff; -1: the world's side), from every task's steps' members. */
static void des_membership(des *s)
{
    int n = 0;
    for (int e = 0; e < s->E; e++) {
        int k = des_steps(s, e, 0);
        s->smoff[e] = k ? n : -1;
        n += k;
        k = des_steps(s, e, 1);
        s->dmoff[e] = k ? n : -1;
        n += k;
    }
    for (int i = 0; i < s->T; i++)
        for (int dst = 0; dst < 2; dst++) {
            const skel_flow *f = dst ? &s->d->dst[i] : &s->d->src[i];
            const int *edge = dst ? s->dedge + s->doff[i] : s->sedge + s->soff[i];
            for (int k = 0; k < f->nsteps; k++)
                for (int q = f->start[k]; q < f->start[k + 1]; q++)
                    if (edge[q] >= 0)
                        s->mem[(dst ? s->dmoff : s->smoff)[edge[q]] + k] = 1;
        }
}

/* This evaluation's phases: each task's work, each edge's moves. */
static void des_phases(des *s)
{
    for (int i = 0; i < s->T; i++)
        s->work[i] = phases(1 / s->mu[i], s->a->scv[i]);
    for (int e = 0; e < s->E; e++) {
        s->mv[e] = phases(1 / s->lambda[e], s->a->est_scv[e]);
        s->cap[e] = (int)(s->a->est_roff[e + 1] - s->a->est_roff[e]);
    }
}

/* The nodes shared (processor sharing: each task's node by its first
 * task, the node's tasks a list from it), nothing scheduled, every task
 * receiving (a producer computing). */
static void des_init(des *s, const int *ps_node)
{
    des_edges(s);
    des_membership(s);
    des_phases(s);
    for (int i = 0; i < s->T; i++) {
        s->rep[i] = i;
        s->next[i] = -1;
        for (int x = 0; ps_node && x < i && s->rep[i] == i; x++)
            s->rep[i] = ps_node[x] == ps_node[i] ? x : i;
    }
    for (int i = s->T - 1; i >= 0; i--)   /* push each onto its node's list */
        if (s->rep[i] != i) {
            s->next[i] = s->next[s->rep[i]];
            s->next[s->rep[i]] = i;
        }
    for (long k = 0; k < s->a->est_roff[s->E]; k++)
        s->slot_edge[k] = -1;
    for (int x = 0; x < s->nact; x++)
        s->pos[x] = -1;
    for (int i = 0; i < s->T; i++)
        if (s->d->src[i].nsteps == 0)
            compute(s, i);
        else
            touch(s, i, 0, 0);
}

static double run_batch(void *ctx, long n, double last)
{
    (void)last;
    return run_items(ctx, n);
}

/* The run: AX_EST_WARM items (the control's pilot their last,
 * ax_est_pilot), then batches (ax_est_batches); their rate
 * (items per second; -1 on a deadlock), *half its 95% half-width, *items
 * the items counted; per task its computes per second (thr) and its
 * seconds computing per second (util), both per item counted times the
 * rate, so that the sinks' rows sum to it. */
static double des_run(skel_approx *a, des *s, double *half, long *items)
{
    for (int g = 0; g <= s->T + s->E; g++)   /* the controls from 0: each evaluation alike */
        s->z[g] = 0;
    double t0 = run_items(s, AX_EST_WARM - AX_EST_PILOT * AX_EST_CHUNK);
    ax_est_cv cv = { 0 };
    if (t0 >= 0 && ax_est_pilot(run_batch, s, a, &cv, &t0) < 0)
        t0 = -1;
    for (int i = 0; i < s->T; i++) {
        s->busy[i] = 0;
        s->done[i] = 0;
    }
    double x = ax_est_batches(run_batch, s, &cv, a->est_prev, t0, half, items);
    /* per item counted, each task's computes at the estimate's rate x:
     * with the control x is not the plain count over time, and the
     * table's rows must sum to the headline. Its seconds computing per
     * second stay the plain fraction of the time run, which cannot
     * exceed 1 as x times them could (the control's correction) */
    for (int i = 0; x > 0 && i < s->T; i++) {
        a->thr[i] = x * s->done[i] / (double)*items;
        a->util[i] = s->busy[i] / (s->now - t0);
    }
    return x;
}

double ax_des_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                   double *half, long *items, diag *err)
{
    des s = { .a = a, .d = a->d, .mu = mu, .lambda = lambda, .T = a->ntasks,
              .E = a->nedges, .seed = ax_est_seed(a), .z = a->est_z };
    s.nact = 2 * s.E + s.T + (int)a->est_roff[s.E];
    double x = -2;
    if (des_alloc(&s) < 0) {
        ax_oom(err);
        goto done;
    }
    des_init(&s, ps_node);
    x = des_run(a, &s, half, items);
done:
    des_free(&s);
    return x;
}
