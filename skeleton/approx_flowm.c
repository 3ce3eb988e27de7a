/* skeleton/approx_flowm.c: the local state machines of tasks with par,
 * choice or loop steps (docs/approximation.md "Par, choice and loop"),
 * as gen.c's round_of generates them, for the windows of approx_window.c.
 *
 * A step made by par/choice/loop has alternatives, each of groups
 * (skeleton.h, skel_flow): a receiver takes the first item of any
 * alternative, then one from every other group of it, in any order (a
 * join: a lattice of the groups received so far); a sender draws the
 * alternative as it completes its computation, with the alternative's
 * probability, then sends to one member of every group of it in any order
 * (a fork); a member that is the task itself computes again (a loop over
 * one task), SKEL_NONE consumes the item. The windows need nothing else:
 * a window's sub-chain is the product of its tasks' local transitions,
 * and a lattice state that offers several moves is a state with several
 * moves, each with its partner exact or a delay. */
#include "approx_int.h"

#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

typedef struct fm {           /* one task's machine under construction */
    skel_approx *a;
    int *cap;
    int i;
    int n;                    /* local states so far */
    int round;                /* the round whose item the states made now receive next */
    unsigned char *busy;      /* per local state (AX_FM_MAX) */
    int *rx;                  /* per local state: its round then (AX_FM_MAX) */
    diag *err;
} fm;

static int step_groups(const skel_flow *f);
static int is_choice(const skel_dag *d, int p);

#define AX_FM_MAX 4096        /* local states of one task, as task_machine's */

static int fm_state(fm *m, int k, diag *err)
{
    if (m->n + k > AX_FM_MAX)
        return diag_set(err, "approximation: task t%d has more than %d local states", m->i,
                        AX_FM_MAX);
    for (int x = m->n; x < m->n + k; x++)
        m->rx[x] = m->round;
    m->n += k;
    return m->n - k;
}

static int alt_of(const skel_flow *f, int j)
{
    return f->alt ? f->alt[j] : 0;
}

static int grp_of(const skel_flow *f, int j)
{
    return f->grp ? f->grp[j] : 0;
}

/* The lattice of exchange (ng groups, its states st) for approx_lattice.c:
 * a join's only where its step has one alternative (the first state of
 * several would be shared), and of at most AX_FM_LAT moves. */
#define AX_FM_LAT 64

static int add_lattice(fm *m, const skel_flow *f, int k, int alt, int send, const int *st,
                       int ng)
{
    int edge[AX_FM_LAT], grp[AX_FM_LAT], n = 0, full = (1 << ng) - 1;
    if (ng < 2 || (!send && skel_flow_nalts(f, k) > 1))
        return 0;
    for (int j = f->start[k]; j < f->start[k + 1]; j++) {
        if (alt_of(f, j) != alt)
            continue;
        if (n == AX_FM_LAT || f->tasks[j] < 0)
            return 0;
        edge[n] = send ? skel_dag_edge(m->a->d, m->i, f->tasks[j])
                       : skel_dag_edge(m->a->d, f->tasks[j], m->i);
        grp[n++] = grp_of(f, j);
    }
    return ax_lat_add(m->a, m->i, send, st[0], st[1], full - 1, st[full ^ 1], edge, grp, n, ng,
                      m->err);
}

/* Alternative alt of step k: one item with one member of each group, in
 * any order, from state `from` to `to` (comp0: the computation the
 * transitions into `to` start, for H2 work; -1 none). */
static int exchange(fm *m, const skel_flow *f, int k, int alt, int from, int to, int send,
                    int comp0)
{
    int lo = f->start[k], hi = f->start[k + 1], ng = 0;
    for (int j = lo; j < hi; j++)
        if (alt_of(f, j) == alt && grp_of(f, j) >= ng)
            ng = grp_of(f, j) + 1;
    int full = (1 << ng) - 1, st[1 << 12], base = full > 1 ? fm_state(m, full - 1, m->err) : 0;
    if (ng > 12 || base < 0)
        return ng > 12 ? diag_set(m->err, "approximation: a fork of more than 12 groups") : -1;
    st[0] = from;
    st[full] = to;
    for (int mask = 1; mask < full; mask++)
        st[mask] = base + mask - 1;
    for (int mask = 0; mask < full; mask++)
        for (int j = lo; j < hi; j++) {
            int g = grp_of(f, j), x = f->tasks[j];
            if (alt_of(f, j) != alt || (mask >> g & 1))
                continue;
            int e = send ? skel_dag_edge(m->a->d, m->i, x) : skel_dag_edge(m->a->d, x, m->i);
            if (e < 0)
                return diag_set(m->err, "internal error: no edge for a move of task t%d", m->i);
            ax_ltr t = { st[mask], st[mask | 1 << g], e, send, 0, 1.0 };
            if (ax_ltr_into(m->a, m->cap, m->i, t, comp0, m->err) < 0)
                return -1;
        }
    return add_lattice(m, f, k, alt, send, st, ng);
}

/* Task i's computing phases: the caller's (opts.phase_n), else H2's two
 * branches or Erlang-k's k. */
static int fm_phases(const skel_approx *a, int i)
{
    if (a->o.phase_n && a->o.phase_n[i] > 0)
        return a->o.phase_n[i];
    return a->scv[i] > 1 ? 2 : skel_erlang_phases(a->scv[i]);
}

/* Task i's work is H2's two branches (not phases in a row). */
static int fm_h2(const skel_approx *a, int i)
{
    return a->scv[i] > 1 && !(a->o.phase_n && a->o.phase_n[i] > 0);
}

/* The rate over mu of phase ph of task i's K in a row. */
static double fm_rate(const skel_approx *a, int i, int ph, int K)
{
    if (a->o.phase_n && a->o.phase_n[i] > 0)
        return a->o.phase_w[(size_t)i * SKEL_APPROX_PHASES + (size_t)ph];
    return K;
}

/* The end of the computation at c (its K phases, c .. c + K - 1, or H2's
 * two branches) into t with weight w. */
static int comp_end(fm *m, int c, int t, double w, int comp0)
{
    double sc = m->a->scv[m->i];
    if (fm_h2(m->a, m->i)) {
        double p, ra, rb;
        skel_h2(sc, &p, &ra, &rb);
        if (ax_ltr_into(m->a, m->cap, m->i, (ax_ltr){ c, t, -1, 0, 1, ra * w }, comp0, m->err) < 0)
            return -1;
        return ax_ltr_into(m->a, m->cap, m->i, (ax_ltr){ c + 1, t, -1, 0, 1, rb * w }, comp0,
                           m->err);
    }
    int K = fm_phases(m->a, m->i);
    return ax_ltr_into(m->a, m->cap, m->i,
                       (ax_ltr){ c + K - 1, t, -1, 0, 1, fm_rate(m->a, m->i, K - 1, K) * w },
                       comp0, m->err);
}

/* The computation at c (phases before its end) and, per alternative of
 * the send step kd, its end: into that alternative's fork, back into c
 * (compute again), or to the next round (consumed, or no destination). */
static int comp_round(fm *m, int c, int kd, int next, int next_comp)
{
    const skel_flow *D = &m->a->d->dst[m->i];
    int K = fm_phases(m->a, m->i), na = D->nsteps ? skel_flow_nalts(D, kd) : 1;
    int h2 = fm_h2(m->a, m->i);
    for (int ph = 0; ph < K; ph++)
        m->busy[c + ph] = 1;
    for (int ph = 0; !h2 && ph < K - 1; ph++)
        if (ax_ltr_into(m->a, m->cap, m->i,
                        (ax_ltr){ c + ph, c + ph + 1, -1, 0, 0, fm_rate(m->a, m->i, ph, K) },
                        -1, m->err) < 0)
            return -1;
    for (int al = 0; al < na; al++) {
        int x = D->nsteps ? skel_flow_sole(D, kd, al) : SKEL_NONE;
        double w = na > 1 ? skel_flow_alt_weight(D, kd, al) : 1.0;
        if (x == m->i || x == SKEL_NONE) {
            if (comp_end(m, c, x == m->i ? c : next, w, x == m->i ? c : next_comp) < 0)
                return -1;
            continue;
        }
        int y = fm_state(m, 1, m->err);
        if (y < 0 || comp_end(m, c, y, w, -1) < 0 ||
            exchange(m, D, kd, al, y, next, 1, next_comp) < 0)
            return -1;
    }
    return 0;
}

/* Round k of l: receive (step k % ns), compute, send (step k % nd); the
 * rounds' first states are start[0 .. l). */
static int fm_round(fm *m, const int *start, int k, int l)
{
    const skel_flow *S = &m->a->d->src[m->i], *D = &m->a->d->dst[m->i];
    int K = fm_phases(m->a, m->i), ns = S->nsteps, nd = D->nsteps;
    int next = start[(k + 1) % l], nc = ns ? -1 : next, c = start[k];
    if (ns) {
        if ((c = fm_state(m, K, m->err)) < 0)
            return -1;
        for (int al = 0; al < skel_flow_nalts(S, k % ns); al++)
            if (exchange(m, S, k % ns, al, start[k], c, 0, c) < 0)
                return -1;
    }
    return comp_round(m, c, nd ? k % nd : 0, next, nc);
}

int ax_flow_machine(skel_approx *a, int *cap, int i, long l, diag *err)
{
    int ns = a->d->src[i].nsteps;
    int K = fm_phases(a, i), rc = 0;
    fm m = { a, cap, i, 0, 0, calloc(AX_FM_MAX, 1), malloc(AX_FM_MAX * sizeof *m.rx), err };
    int *start = l <= AX_FM_MAX ? malloc((size_t)l * sizeof *start) : NULL;
    if (l > AX_FM_MAX) {            /* a state a round at least */
        rc = diag_set(err, "approximation: task t%d has more than %d local states", i,
                      AX_FM_MAX);
        goto done;
    }
    if (!m.busy || !m.rx || !start) {
        rc = ax_oom(err);
        goto done;
    }
    for (long k = 0; k < l && rc == 0; k++) {  /* round k's first state: waits for item k */
        m.round = (int)k;
        rc = (start[k] = fm_state(&m, ns ? 1 : K, err)) < 0 ? -1 : 0;
    }
    for (long k = 0; k < l && rc == 0; k++) {  /* the rest of round k: item k received */
        m.round = (int)((k + 1) % l);
        rc = fm_round(&m, start, (int)k, (int)l);
    }
    /* a fork: its block (ax_par_blocks); a choice: windows by reachable
     * states (ax_has_fork) */
    a->deal |= step_groups(&a->d->dst[i]) > 1 || is_choice(a->d, i);
    if (rc == 0) {
        a->nloc[i] = m.n;
        a->loff[i] = a->nbusy;
        a->nbusy += m.n;
        if (mem_grow((void **)&a->busy, (size_t)a->nbusy, sizeof *a->busy) < 0 ||
            mem_grow((void **)&a->rx, (size_t)a->nbusy, sizeof *a->rx) < 0)
            rc = ax_oom(err);
        else {
            memcpy(a->busy + a->loff[i], m.busy, (size_t)m.n);
            memcpy(a->rx + a->loff[i], m.rx, (size_t)m.n * sizeof *m.rx);
        }
    }
done:
    free(start);
    free(m.rx);
    free(m.busy);
    return rc;
}

/* Groups of task x's first step of flow f (1: no fork or join). */
static int step_groups(const skel_flow *f)
{
    int ng = 1;
    for (int j = 0; f->nsteps && j < f->start[1]; j++)
        if (grp_of(f, j) + 1 > ng)
            ng = grp_of(f, j) + 1;
    return ng;
}

/* The join of fork p, whose branches start at s0 (the lowest) .. sk (the
 * highest): depth-first numbers put a par's branches between its fork and
 * its join, so the join is the first task after sk that joins a member
 * before sk (a par nested in the last branch joins only tasks after sk).
 * -1 if none. */
static int join_of(const skel_approx *a, int sk)
{
    for (int c = sk + 1; c < a->ntasks; c++) {
        const skel_flow *S = &a->d->src[c];
        for (int j = 0; step_groups(S) > 1 && j < S->start[1]; j++)
            if (S->tasks[j] >= 0 && S->tasks[j] < sk)
                return c;
    }
    return -1;
}

/* Task p's first send step is a choice among other tasks (not a loop
 * over p itself, nor an alternative that consumes the item). */
static int is_choice(const skel_dag *d, int p)
{
    const skel_flow *D = &d->dst[p];
    if (!D->nsteps || skel_flow_nalts(D, 0) < 2)
        return 0;
    for (int j = 0; j < D->start[1]; j++)
        if (D->tasks[j] < 0 || D->tasks[j] == p)
            return 0;
    return 1;
}

/* Some task forks (a par) or chooses: the whole model is then tried as
 * one window first where it fits (whole_first in approx.c:
 * cut_whole_states reachable states, no deadline; cut_whole_states 1: the
 * windows alone): bench_approx's two pars of three sharing their join and
 * fork (9 tasks, 19,035 states) were 24.6% low with the blocks cut by the
 * windows' 2,500 states, exact so. A choice makes the windows those of a
 * deal (grown by reachable states, partners as delays, ax_flow_machine):
 * its windows of 729 local combinations saw a branch they did not hold as
 * a delay of its mean rate, though the sender, having drawn it, waits for
 * that branch alone (bench_approx f-choice: p95 5.35%, max 8.32%; so
 * 0.00% and 4.82%, docs/approximation.md). Its sender, branches and merge
 * as one block (as a par's) were measured worse: f-choice-35 +7.33%
 * against +4.82%. */
int ax_has_fork(const skel_dag *d)
{
    for (int p = 0; p < d->ntasks; p++)
        if (step_groups(&d->dst[p]) > 1 || is_choice(d, p))
            return 1;
    return 0;
}

/* Task p is a par's fork (its block, a->dblk == p, a par's, not a deal's). */
int ax_par_fork(const skel_approx *a, int p)
{
    return p >= 0 && p < a->ntasks && step_groups(&a->d->dst[p]) > 1;
}

/* The first tasks of fork p's branches, s0 (the lowest) .. *sk (the
 * highest); *sk -1 when p has none. */
static int fork_span(const skel_approx *a, int p, int *sk)
{
    const skel_flow *D = &a->d->dst[p];
    int s0 = a->ntasks;
    *sk = -1;
    for (int j = 0; j < D->start[1]; j++)
        if (D->tasks[j] >= 0) {
            s0 = D->tasks[j] < s0 ? D->tasks[j] : s0;
            *sk = D->tasks[j] > *sk ? D->tasks[j] : *sk;
        }
    return s0;
}

/* Every other fork to the branches s0 .. sk of fork p joins p's block
 * (a->dblk = p): after a farm or a deal of sub-pipelines each member's
 * last task forks to the par's branches, which take their items from any
 * of them. The block held only the first fork until 2026-11-27: every
 * window saw the others' sends to each branch as independent delays (the
 * par's rendezvous lost), and the block was cut. Issue 15's m5, an
 * xfarm(2) of pipe(2) before a par of pipes of 3 and 4 tasks: -8.25%,
 * 173 sweeps; with both forks in one block (47,162 states) -0.21%. */
static void fork_mates(skel_approx *a, int p, int s0, int sk)
{
    for (int q = p + 1; q < s0; q++) {
        int qk, q0 = step_groups(&a->d->dst[q]) > 1 ? fork_span(a, q, &qk) : -1;
        if (q0 == s0 && qk == sk && a->dblk[q] < 0)
            a->dblk[q] = p;
    }
}

/* Task q is a mate of fork p: another fork to the same branches, in p's
 * block (fork_mates). An inner par's fork nested in one of p's branches
 * is in p's block too, but forks to other branches: not a mate. */
int ax_fork_mate(const skel_approx *a, int q, int p)
{
    if (q == p || !ax_par_fork(a, q) || !ax_par_fork(a, p) || a->dblk[q] != p)
        return 0;
    int qk, pk, q0 = fork_span(a, q, &qk), p0 = fork_span(a, p, &pk);
    return q0 == p0 && qk == pk;
}

/* The forks par block p holds: p and its mates (0: p is no par's fork). */
int ax_block_forks(const skel_approx *a, int p)
{
    if (!ax_par_fork(a, p))
        return 0;
    int n = 1;
    for (int q = 0; q < a->ntasks; q++)
        n += ax_fork_mate(a, q, p);
    return n;
}


/* A par's fork, branches and join form a block (a->dblk, as a deal's
 * producer, members and consumer): a window takes them all or none
 * (approx_window.c). Cut, a window sees the branches it does not hold as
 * independent delays, and the join's wait for them, which the window's
 * own branch also makes, is counted twice: bench_approx's random pars
 * were 34% low (median) and some refused, below the one-item-at-a-time
 * bound. Outer pars first: a block holds the pars nested in it. A fork's
 * mate (a later fork to the same branches, fork_mates) passes through
 * adding nothing: it and its branches are in the first fork's block. */
void ax_par_blocks(skel_approx *a)
{
    for (int p = 0; p < a->ntasks; p++) {
        if (step_groups(&a->d->dst[p]) < 2)
            continue;           /* no fork */
        int sk, s0 = fork_span(a, p, &sk);
        int c = join_of(a, sk);
        for (int x = s0; c >= 0 && x <= c; x++)
            if (a->dblk[x] < 0)
                a->dblk[x] = p;
        if (c >= 0)
            fork_mates(a, p, s0, sk);
    }
}
