/* skeleton/approx_window.c: the partition into windows: which tasks, links
 * and partner bits each window holds (grown by its neighbours, or by its
 * reachable states when the skeleton has a deal), built at skel_approx_new
 * or when an evaluation needs them. Private header approx_int.h. */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/mem.h"

/* Keep the outside partners of window w's tasks as ready/not-ready bits
 * (so that a partner that just took an item is known not to be ready at
 * once) while the states stay within window_states. A move its task
 * chooses among others (a farm's) stays a delay, and so does every move
 * when some task has several rounds (a deal): kept as independent bits,
 * the round-robin partners of a deal wait for each other in a cycle that
 * the real order never makes, and the fixed point sinks towards zero
 * (measured: -88% on pipe(task, deal(2), task), -80% on a nested xdeal). */
static int choose_bits(skel_approx *a, ax_win *w, unsigned long nl, diag *err)
{
    w->b0 = a->nbit;
    w->nb = 0;
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p];
        for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : ax_partner(a, t);
            if (y < 0 || a->links.n[t->edge] > 0 || ax_win_pos(a, w, y) >= 0 ||
                ax_win_bit(a, w, t->edge) >= 0 ||
                ax_nchoices(a, x, t->from) > 1 || a->deal || w->nb >= 16 ||
                nl << (w->nb + 1) > a->o.window_states)
                continue;
            if (mem_grow((void **)&a->bit, (size_t)a->nbit + 1, sizeof *a->bit) < 0)
                return ax_oom(err);
            a->bit[a->nbit++] = (ax_bit){ t->edge, !t->send };
            a->as_bit[t->edge] = 1;
            w->nb++;
        }
    }
    return 0;
}

/* The states of a window of tasks wt[0 .. nt): theirs times those of the
 * links it holds (approx_link.h); infinite past AX_WLINK links. */
static double window_states(const skel_approx *a, const int *wt, int nt)
{
    int lk[AX_WLINK], nk = ax_links_in(&a->links, a->d, wt, nt, lk, AX_WLINK);
    double n = nk < 0 ? INFINITY : (double)ax_links_states(&a->links, lk, nk);
    for (int p = 0; p < nt; p++)
        n *= a->nloc[wt[p]];
    return n;
}

/* Every partner of task y is among wt[0 .. nt) or meets y as one of its
 * choices (a farm's consumer, which the window's delays of the members
 * represent as they do now). Not so: the next task of a sub-pipeline. */
static int partners_in(const skel_approx *a, int y, const int *wt, int nt)
{
    for (int k = a->lstart[y]; k < a->lstart[y + 1]; k++) {
        const ax_ltr *t = &a->ltr[k];
        int z = t->edge < 0 ? -1 : ax_partner(a, t), in = z < 0;
        for (int p = 0; p < nt && !in; p++)
            in = wt[p] == z;
        int l = in ? 0 : t->send ? a->use_r[t->edge] : a->use_s[t->edge];
        if (!in && (l < 0 || ax_nchoices(a, z, l) < 2))
            return 0;
    }
    return 1;
}

/* Grow the window by its tasks' partners, nearest first, while the
 * product of their local states stays within budget (a pipeline's window
 * of three tasks sees the neighbour's own blocking exactly, not through a
 * two-state partner: the median error on the random pipelines went from
 * 2.0% to 1.4%; four tasks since). With sib 0 the other members of a
 * choice (a farm's other workers) are skipped; with 1 only they are added,
 * and only those whose other partners are in the window or choose among
 * several (a farm's worker, not the first task of a sub-pipeline of an
 * xfarm: its items would go on through a delay, measured +24% on
 * bench_approx's nested-46 against +3.5% without), of choices of at most
 * AX_SIB_CHOICES members.
 * The links the window then holds (approx_link.h) count apart: within
 * AX_LINK_GROW states with them, or AX_LINK_MULT times the budget when
 * growing by neighbours (a pipeline's six tasks keep the buffers between
 * them: a window that holds one of two slow buffers feeding a node sees
 * the other as a delay, and over-states the line). */
static void grow_pass(const skel_approx *a, int *wt, int *nt, unsigned long *states,
                      unsigned long budget, int sib)
{
    for (int q = 0; q < *nt && *nt < AX_WMAX; q++) {
        int x = wt[q];
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && *nt < AX_WMAX; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : ax_partner(a, t), in = 0;
            for (int p = 0; p < *nt; p++)
                in |= wt[p] == y;
            int nch = ax_nchoices(a, x, t->from);
            if (y < 0 || in || (nch > 1) != sib ||
                (sib && (nch > AX_SIB_CHOICES || !partners_in(a, y, wt, *nt))))
                continue;
            wt[*nt] = y;
            double ts = 1;          /* the tasks' states (window_states: with links) */
            for (int p = 0; p <= *nt; p++)
                ts *= a->nloc[wt[p]];
            if (ts > (double)budget ||
                window_states(a, wt, *nt + 1) >
                    fmax((double)budget * (sib ? 1 : AX_LINK_MULT), AX_LINK_GROW))
                continue;
            *states = (unsigned long)window_states(a, wt, *nt + 1);
            wt[(*nt)++] = y;
        }
    }
}

int ax_try_add_set(skel_approx *a, ax_win *w, ax_cbuf *b, const int *set, int n, int budget,
                   int deal, diag *err)
{
    int nt0 = w->nt, full = 0, n0 = b->n;
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + AX_WMAX, sizeof *a->wtask) < 0)
        return ax_oom(err);
    for (int k = 0; k < n && !full; k++)
        if (ax_win_pos(a, w, set[k]) < 0) {
            full = w->nt == AX_WMAX;
            if (!full) {
                a->wtask[a->nwtask++] = set[k];
                w->nt++;
            }
        }
    w->nk = ax_links_in(&a->links, a->d, a->wtask + w->t0, w->nt, a->wlink + w->k0, AX_WLINK);
    if (w->nt == nt0)
        return 0;
    if (deal && w->nk > 0)
        budget = (int)ax_deal_budget(a, w->nk);
    int r = w->nk < 0 || full ? 0 : ax_explore(a, w, b, budget, err);
    b->n = n0;                /* its transitions: built again by finish_window (not
                                 w->c0, stale when the window was full and nothing was
                                 explored: the earlier windows' transitions were then
                                 overwritten, and task, deal(16), task crashed) */
    if (r <= 0) {
        a->nwtask -= w->nt - nt0;
        w->nt = nt0;
        w->nk = ax_links_in(&a->links, a->d, a->wtask + w->t0, w->nt, a->wlink + w->k0,
                            AX_WLINK);
    }
    return r < 0 ? -1 : r > 0;
}

/* The reachable states of a par's block the time left before the
 * deadline affords (all of top without one): AX_PAR_SHARE of it at
 * secs a state (the block explored, then solved in each sweep of the
 * evaluation that must answer by then; AX_PAR_STATE_SECS, or for a block
 * of several forks AX_PAR_FORKS_STATE_SECS). */
static unsigned long par_affordable(const skel_approx *a, unsigned long top, double secs)
{
    if (a->o.deadline <= 0)
        return top;
    double n = AX_PAR_SHARE * (a->o.deadline - clock_now()) / secs;
    return n <= 0 ? 0 : n >= (double)top ? top : (unsigned long)n;
}

unsigned long ax_par_top(const skel_approx *a, int blk)
{
    return ax_block_forks(a, blk) > 1 ? AX_PAR_FORKS_STATES : AX_PAR_STATES;
}

/* Window w holds a task of a par's block of several forks (or its fork):
 * only such a window may pass max_states (until 2026-11-27 every window
 * once any block had two forks). */
static int holds_forks_block(const skel_approx *a, const ax_win *w)
{
    for (int p = 0; w && p < w->nt; p++) {
        int z = a->wtask[w->t0 + p];
        if (ax_block_forks(a, z) > 1 || (a->dblk[z] >= 0 && ax_block_forks(a, a->dblk[z]) > 1))
            return 1;
    }
    return 0;
}

static unsigned long window_cap_at(const skel_approx *a, unsigned long top)
{
    return a->whole || a->given_max || a->given_deal || a->o.max_states >= top
               ? a->o.max_states
               : top;
}

unsigned long ax_par_window_cap(const skel_approx *a, const ax_win *w)
{
    return window_cap_at(a, holds_forks_block(a, w) ? AX_PAR_FORKS_STATES : AX_PAR_STATES);
}

/* The reachable states within which window w may take block blk whole
 * (budget: the window's own). A par's block up to AX_PAR_STATES, unless
 * the caller sizes the windows (deal_states given), and under a deadline
 * (the search's evaluations always carry one: ten seconds without a
 * budget) only as far as the time left affords (par_affordable; until
 * 2026-11-27 not at all, so the search kept deal_states): a par of three
 * branches of 2, 3 and 2 tasks between two tasks (spec11-purchase.bpel,
 * 10,434 states, its block the whole model) had windows of the fork and
 * some branches within deal_states, each lattice held in part as
 * independent delays, -45.3% by the windows alone; whole it is exact
 * (docs/approximation.md "Par, choice and loop"). */
static int block_budget(const skel_approx *a, int blk, int budget)
{
    unsigned long top = ax_par_top(a, blk), cap = window_cap_at(a, top);
    unsigned long par = cap < top ? cap : top;
    if (!ax_par_fork(a, blk) || a->given_deal || par <= (unsigned long)budget)
        return budget;
    par = par_affordable(a, par, top > AX_PAR_STATES ? AX_PAR_FORKS_STATE_SECS
                                                     : AX_PAR_STATE_SECS);
    return par <= (unsigned long)budget ? budget : (int)par;
}

unsigned long ax_par_cap(const skel_approx *a)
{
    unsigned long par = a->o.max_states < AX_PAR_STATES ? a->o.max_states : AX_PAR_STATES;
    return par_affordable(a, par, AX_PAR_STATE_SECS);
}

/* Add tasks to window w (its tasks last in wtask): y, or with blk >= 0
 * every task of deal blk's block (its producer blk, members and consumer)
 * not yet in it (ax_try_add_set; a par's block within block_budget). */
static int try_add(skel_approx *a, ax_win *w, ax_cbuf *b, int y, int blk, int budget,
                   diag *err)
{
    int set[AX_WMAX + 1], n = 0;   /* one more than a window holds: too many */
    for (int z = blk < 0 ? y : 0; z < (blk < 0 ? y + 1 : a->ntasks) && n <= AX_WMAX; z++)
        if (blk < 0 || a->dblk[z] == blk || z == blk)
            set[n++] = z;
    return ax_try_add_set(a, w, b, set, n, blk >= 0 ? block_budget(a, blk, budget) : budget,
                          blk >= 0, err);
}

/* Task z, of deal blk's block, is its consumer: no move of z stays in
 * the block (a member's, even a sub-pipeline's, lead to the consumer). */
static int block_consumer(const skel_approx *a, int z, int blk)
{
    for (int e = 0; e < a->nedges; e++)
        if (a->d->edges[e].from == z && a->d->edges[e].to >= 0 &&
            a->dblk[a->d->edges[e].to] == blk)
            return 0;
    return 1;
}

/* Window w holds a member of deal blk. Its consumer alone does not count,
 * nor a mate of a par's fork (a farm's member before the par forks: its
 * window holds the farm, and takes the par's block whole or not at all;
 * an inner par's fork nested in a branch is no mate, until 2026-11-27
 * exempted as every fork was):
 * a pipeline of deals (model1.des: task, deal(3), task, deal(2), task)
 * has the second deal's windows hold the first's consumer, and took the
 * first deal's members into them one by one, the others left as
 * independent delays (windows alone -6.10%). */
static int holds_block(const skel_approx *a, const ax_win *w, int blk)
{
    for (int p = 0; p < w->nt; p++) {
        int z = a->wtask[w->t0 + p];
        if (a->dblk[z] == blk && !block_consumer(a, z, blk) &&
            !ax_fork_mate(a, z, blk))
            return 1;
    }
    return 0;
}

/* Task y into window w: a deal's member or consumer with the whole of
 * its deal (producer, members, consumer) or not at all, unless w already
 * holds part of it (complete_blocks tried the rest). Cut by a window
 * holding a few of them, the others become independent delays whose wait
 * for the producer and the round robin the window also makes (counted
 * twice): the linked pipe of task, task, deal(3), task, task of
 * bench_approx part (d) was 19% low so, its first moves' windows holding
 * the producer and some workers but not the consumer. */
static int add_partner(skel_approx *a, ax_win *w, ax_cbuf *b, int y, int budget, diag *err)
{
    int blk = a->dblk[y];
    if (blk < 0 || holds_block(a, w, blk))
        return try_add(a, w, b, y, -1, budget, err);
    return try_add(a, w, b, y, blk, budget, err);
}

/* The deal of window w's own move (its producer and a member, or a
 * member and its consumer), or -1. */
static int move_block(const skel_approx *a, const ax_win *w)
{
    int b0 = a->dblk[w->a0], b1 = a->dblk[w->a1];
    return b1 >= 0 && b1 == w->a0 ? b1 : b0 >= 0 && b0 == b1 ? b0 : -1;
}

/* The deals window w holds part of are completed first, each when it fits
 * whole (before the window's other neighbours take the room): its own
 * move's deal before any other (model1.des, a deal(3) then a deal(2)
 * sharing a task: the second deal's windows took the first deal whole
 * and then had no room for their own, 13.8% off against 6.4% before). */
static int complete_blocks(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err)
{
    int own = move_block(a, w);
    if (own >= 0 && try_add(a, w, b, -1, own, budget, err) < 0)
        return -1;
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p], blk[2] = { a->dblk[x], x };
        if (ax_past_deadline(a, 0))
            return diag_set(err, "approximation: out of time growing the sub-chain of "
                                 "t%d, t%d", w->a0, w->a1);
        for (int k = 0; k < 2; k++)
            if (blk[k] >= 0 && try_add(a, w, b, -1, blk[k], budget, err) < 0)
                return -1;
    }
    return 0;
}

/* Without a deal: first the neighbours (grow_states), then the siblings
 * (sibling_states). A farm member's window that sees its siblings only as
 * one summed delay lets the producer hand items to them, and the consumer
 * take items from them, at mean rates whatever the window's state: with
 * workers of unequal speeds the producer's choice among the *ready*
 * workers and the items the others actually hold are lost, and farms were
 * over-estimated by up to 11% (bench_approx, also under static sharing).
 * Holding the siblings after the neighbours (the stage after the farm
 * first: siblings first, the consumer's side became delays, -8%) makes the
 * choice among them exact in the window; the rest stay delays. Measured
 * on bench_approx's 100 farms (docs/approximation.md): p95 3.54% -> 2.25%,
 * max 11.2% -> 4.54%; within 243 states max 8.8%, 2,187 max 5.7% (and
 * slower). */
static void grow_window(const skel_approx *a, int *wt, int *nt, unsigned long *states)
{
    grow_pass(a, wt, nt, states, a->o.grow_states, 0);
    if (a->o.sibling_states <= a->o.grow_states)
        return;
    grow_pass(a, wt, nt, states, a->o.sibling_states, 1);
    /* then the neighbours further out, in the room the siblings left (a
     * pipeline's window: six tasks). Tasks sharing a node under processor
     * sharing are coupled through everything between them; a window of
     * four held two or three of a node's five (bench_approx pipe-5: -7.0%,
     * one window of six: exact; the 100 pipelines' p95 4.51% -> 2.9%, max
     * 7.00% -> 4.6%, docs/approximation.md) */
    grow_pass(a, wt, nt, states, a->o.sibling_states, 0);
}

/* Without a deal, a model whose tasks' local states (with their links)
 * multiply to at most whole_states is one window: every move's window is
 * that one sub-chain, solved once an evaluation, and the answer is the
 * exact chain's. Windows of four (or the search's three) tasks put a
 * 6-task pipeline with five tasks on one node 7% low (bench_approx
 * pipe-5) and made the search rank such placements wrongly (bench_scale:
 * a 5.09% loss). All tasks, in index order (one order: shared). */
static int whole_model(const skel_approx *a, int *wt, int *nt)
{
    if (a->deal || a->ntasks > AX_WMAX)
        return 0;
    for (int i = 0; i < a->ntasks; i++)
        wt[i] = i;
    if (window_states(a, wt, a->ntasks) > (double)a->o.whole_states)
        return 0;
    *nt = a->ntasks;
    return 1;
}

/* f is one step to one task (a pipe's): that task, else -1. */
static int pipe_to(const skel_flow *f)
{
    return f->pattern == SKEL_PAT_PIPE && f->nsteps == 1 && f->start[1] == 1 && !f->alt
               ? f->tasks[0]
               : -1;
}

/* The pipe of tasks from r (r, then each task r alone sends to that
 * receives from r alone) into set from n, within AX_WMAX; the new count. */
static int pipe_from(const skel_dag *d, int r, int *set, int n)
{
    int x;
    for (set[n++] = r; n < AX_WMAX && (x = pipe_to(&d->dst[r])) >= 0 &&
                       pipe_to(&d->src[x]) == r; r = x)
        set[n++] = x;
    return n;
}

/* Tasks p and q send to the same tasks, step by step. */
static int same_dst(const skel_dag *d, int p, int q)
{
    const skel_flow *P = &d->dst[p], *Q = &d->dst[q];
    if (P->nsteps != Q->nsteps || (P->nsteps && P->start[P->nsteps] != Q->start[Q->nsteps]))
        return 0;
    for (int k = 0; P->nsteps && k < P->start[P->nsteps]; k++)
        if (P->tasks[k] != Q->tasks[k])
            return 0;
    return 1;
}

/* The farm whose member task y is in, every member a pipe of tasks that
 * hands on to the same tasks (an xfarm of sub-pipelines; one member of
 * two or more tasks: a farm of tasks is left to add_partner): its
 * producer, then every member's tasks, into set[0 .. AX_WMAX); their
 * number, 0 when y is in no such farm, a member holds anything but a
 * pipe of tasks (its last task's destinations not the first member's),
 * or they are more than a window holds. */
static int farm_set(const skel_approx *a, int y, int *set)
{
    const skel_dag *d = a->d;
    int r = y, x, walk = 0;
    while ((x = pipe_to(&d->src[r])) >= 0 && pipe_to(&d->dst[x]) == r && walk++ < a->ntasks)
        r = x;
    if (x < 0 || d->src[r].nsteps != 1 || d->src[r].start[1] != 1 || d->src[r].tasks[0] != x ||
        d->dst[x].pattern != SKEL_PAT_FARM || d->dst[x].nsteps != 1)
        return 0;
    const skel_flow *D = &d->dst[x];
    int n = 0, longest = 0, last0 = -1;
    set[n++] = x;
    for (int j = 0; j < D->start[1] && n < AX_WMAX; j++) {
        int f = D->tasks[j], n0 = n;
        if (f < 0 || d->src[f].nsteps != 1 || d->src[f].start[1] != 1)
            return 0;
        n = pipe_from(d, f, set, n);
        last0 = j == 0 ? set[n - 1] : last0;
        if (!same_dst(d, last0, set[n - 1]))
            return 0;
        longest = n - n0 > longest ? n - n0 : longest;
    }
    return n < AX_WMAX && longest > 1 ? n : 0;
}

/* Task x chooses among several tasks, y one of them. */
static int chooses(const skel_approx *a, int x, int y)
{
    const skel_flow *D = &a->d->dst[x];
    if (!D->nsteps || skel_flow_nalts(D, 0) < 2)
        return 0;
    for (int j = 0; j < D->start[1]; j++)
        if (D->tasks[j] == y)
            return 1;
    return 0;
}

/* The most tasks of window w that choose y (y outside it) and are
 * members of one farm of sub-pipelines (farm_set: one producer). */
static int choosers_in(const skel_approx *a, const ax_win *w, int y)
{
    int prod[AX_WMAX], n = 0, most = 0, set[AX_WMAX];
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p];
        if (chooses(a, x, y) && farm_set(a, x, set) > 0)
            prod[n++] = set[0];
    }
    for (int k = 0; k < n; k++) {
        int c = 0;
        for (int m = 0; m < n; m++)
            c += prod[m] == prod[k];
        most = c > most ? c : most;
    }
    return most;
}

/* A choice's branch whose first task y several of window w's tasks
 * choose, members of one farm (a farm's members before a choice), is
 * taken past the window's budget, within a par block's (AX_PAR_STATES,
 * what the deadline affords): left out, each member's sends to y are an
 * independent delay, y accepting from all at once (xfarm(2) of pipes
 * before a choice, 6 nodes static: +8.71%). Other choosers are left to
 * the budget (review 30: unmeasured there). */
static int add_choice_merges(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err)
{
    unsigned long cap = window_cap_at(a, AX_PAR_STATES);
    cap = par_affordable(a, cap < AX_PAR_STATES ? cap : AX_PAR_STATES, AX_PAR_STATE_SECS);
    if (a->given_deal || cap <= (unsigned long)budget)
        return 0;
    for (int y = 0; y < a->ntasks && w->nt < AX_WMAX; y++)
        if (ax_win_pos(a, w, y) < 0 && a->dblk[y] < 0 && a->gmem[y] < 0 &&
            choosers_in(a, w, y) > 1 && try_add(a, w, b, y, -1, (int)cap, err) < 0)
            return -1;
    return 0;
}

/* The farm of sub-pipelines whose member holds window w's move (its
 * producer and every member), before any other neighbour takes the room,
 * as complete_blocks does for a deal's: 1 added, 0 not (none, or too
 * large), -1 on an error. */
static int own_farm(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err)
{
    int set[AX_WMAX], r = 0;
    for (int k = 0; k < 2 && r == 0; k++) {
        int n = farm_set(a, k ? w->a1 : w->a0, set);
        r = n > 0 ? ax_try_add_set(a, w, b, set, n, budget, 0, err) : 0;
    }
    return r;
}

/* Task y into window w (grow_reach): a member of a farm of sub-pipelines
 * with the farm's producer and every member, whole, where they fit, as a
 * deal's block; where they do not, y alone as before (add_partner). A
 * member cut after its first task sends its items on through a delay,
 * and a window holding one member with a part of the other sees the
 * farm's choice between them wrongly (xfarm(2) of pipes before a choice,
 * six nodes static: the second member +28%, the job +8.71%). */
static int add_reach(skel_approx *a, ax_win *w, ax_cbuf *b, int y, int budget, diag *err)
{
    int set[AX_WMAX], n = farm_set(a, y, set);
    int r = n ? ax_try_add_set(a, w, b, set, n, budget, 0, err) : 0;
    return r != 0 ? r : add_partner(a, w, b, y, budget, err);
}

/* With a deal: grow window w (its tasks last in wtask) by its tasks'
 * partners, nearest first, while its states reachable from the start stay
 * within budget. The round robin keeps them far below the product of the
 * local states (a task, deal(4) and a task: 11,664 combinations, of which
 * the order reaches a few hundred), so a deal's producer, workers and
 * consumer wait for each other in one exact sub-chain, in the real order,
 * rather than as independent delays that make a cyclic wait the order
 * never makes. */
static int grow_reach(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err)
{
    if (complete_blocks(a, w, b, budget, err) < 0)
        return -1;
    if (own_farm(a, w, b, budget, err) < 0)
        return -1;
    for (int q = 0; q < w->nt && w->nt < AX_WMAX; q++) {
        int x = a->wtask[w->t0 + q];
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && w->nt < AX_WMAX; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : ax_partner(a, t);
            if (y < 0 || ax_win_pos(a, w, y) >= 0 || a->gmem[y] >= 0)
                continue;             /* a counted deal's member: its own windows */
            if (ax_past_deadline(a, 0))   /* each try explores up to budget states */
                return diag_set(err, "approximation: out of time growing the sub-chain of "
                                     "t%d, t%d", w->a0, w->a1);
            if (add_reach(a, w, b, y, budget, err) < 0)
                return -1;
        }
    }
    return add_choice_merges(a, w, b, budget, err);
}

/* The links window w's tasks hold (approx_link.h): wlink from nwlink,
 * kept by finish_window. */
static int window_links(skel_approx *a, ax_win *w, diag *err)
{
    if (mem_grow((void **)&a->wlink, (size_t)a->nwlink + AX_WLINK, sizeof *a->wlink) < 0)
        return ax_oom(err);
    w->k0 = a->nwlink;
    w->nk = ax_links_in(&a->links, a->d, a->wtask + w->t0, w->nt, a->wlink + w->k0, AX_WLINK);
    if (w->nk < 0)
        return diag_set(err, "approximation: a sub-chain of tasks t%d, t%d holds more than %d "
                             "buffered or phased moves", w->a0, w->a1, AX_WLINK);
    return 0;
}

/* The positions of window w's move's tasks. */
static void end_positions(const skel_approx *a, ax_win *w)
{
    w->pa = ax_win_pos(a, w, w->a0);
    w->pb = w->a1 >= 0 ? ax_win_pos(a, w, w->a1) : -1;
}

/* The stride of position p in window w's product codes. */
static ax_code pos_stride(const skel_approx *a, const ax_win *w, int p)
{
    ax_code s = 1;
    for (int q = 0; q < p; q++)
        s *= ax_comp_n(a, w, q);
    return s;
}

/* Flag the transitions of window w (its distribution's codes at p0, its
 * transitions c) that take its move's sender (1) or receiver (2) out of
 * readiness for the move. */
static int mark_leaves(skel_approx *a, ax_win *w, const ax_ctr *c, diag *err)
{
    if (mem_grow((void **)&a->leave, (size_t)a->nleave + (size_t)w->nc + 1, 1) < 0)
        return ax_oom(err);
    w->l0 = a->nleave;
    a->nleave += (size_t)w->nc;
    unsigned char *lv = a->leave + w->l0;
    memset(lv, 0, (size_t)w->nc);
    int x0 = a->wtask[w->t0 + w->pa], x1 = w->pb >= 0 ? a->wtask[w->t0 + w->pb] : -1;
    ax_code s0 = pos_stride(a, w, w->pa), s1 = w->pb >= 0 ? pos_stride(a, w, w->pb) : 1;
    const ax_code *code = a->code + w->p0;
    for (int k = 0; k < w->nc && w->edge >= 0; k++) {
        ax_code f = code[c[k].from] % w->nl, t = code[c[k].to] % w->nl;
        int n0 = a->nloc[x0], n1 = x1 >= 0 ? a->nloc[x1] : 1;
        int f0 = (int)(f / s0 % n0), t0 = (int)(t / s0 % n0), f1 = (int)(f / s1 % n1),
            t1 = (int)(t / s1 % n1);
        if (ax_is_ready(a, x0, f0, w->edge, 1) && !ax_is_ready(a, x0, t0, w->edge, 1))
            lv[k] |= 1;
        if (x1 >= 0 && ax_is_ready(a, x1, f1, w->edge, 0) && !ax_is_ready(a, x1, t1, w->edge, 0))
            lv[k] |= 2;
    }
    return 0;
}

/* Window w, its tasks, links and bits chosen: its sub-chain and
 * distribution's place. */
static int finish_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    if (ax_window_chain(a, w, b, err) < 0 || ax_sort_by_target(b, w, err) < 0)
        return -1;
    a->nwlink += w->nk;
    w->p0 = a->npi;
    end_positions(a, w);
    if (mark_leaves(a, w, b->v + w->c0, err) < 0)
        return -1;
    a->npi += (size_t)w->n;
    a->maxc = w->nc > a->maxc ? w->nc : a->maxc;
    w->built = 1;
    return 0;
}

/* An earlier window built with the same tasks as w (in the same order),
 * no partner bits and no count: its sub-chain, or -1. */
static int same_chain(const skel_approx *a, const ax_win *w)
{
    for (int v = 0; v < a->nwin; v++) {
        const ax_win *o = &a->win[v];
        if (o == w || !o->built || o->g >= 0 || o->nb || o->nt != w->nt)
            continue;
        if (!memcmp(a->wtask + o->t0, a->wtask + w->t0, (size_t)w->nt * sizeof *a->wtask))
            return v;
    }
    return -1;
}

/* Window w shares window v's sub-chain (and distribution): a deal's moves
 * mostly grow to the same tasks, and are solved once, not once per move. */
static int share_chain(skel_approx *a, ax_win *w, int v, ax_cbuf *b, diag *err)
{
    const ax_win *o = &a->win[v];
    *w = (ax_win){ .t0 = o->t0, .nt = o->nt, .edge = w->edge, .n = o->n, .nl = o->nl,
                   .c0 = o->c0, .nc = o->nc, .k0 = o->k0, .nk = o->nk, .p0 = o->p0,
                   .a0 = w->a0, .a1 = w->a1, .g = o->g, .km = o->km, .built = 1 };
    end_positions(a, w);
    return mark_leaves(a, w, b->v + w->c0, err);
}

static int cmp_int(const void *x, const void *y)
{
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

/* Window v holds every partner of its tasks (the whole model, or a part
 * that meets the rest only through the outside world). */
static int closed_window(const skel_approx *a, const ax_win *v)
{
    for (int p = 0; p < v->nt; p++) {
        int x = a->wtask[v->t0 + p];
        for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
            int y = a->ltr[k].edge < 0 ? -1 : ax_partner(a, &a->ltr[k]);
            if (y >= 0 && ax_win_pos(a, v, y) < 0)
                return 0;
        }
    }
    return 1;
}

/* An earlier deal window holding both of w's tasks and every partner of
 * its own: w's window is the same whole, exact there, and its growth (an
 * exploration per task added, most of a deal's cost) is skipped. */
static int whole_window(const skel_approx *a, const ax_win *w)
{
    for (int v = 0; v < a->nwin; v++) {
        const ax_win *o = &a->win[v];
        if (o != w && o->built && o->g < 0 && !o->nb && ax_win_pos(a, o, w->a0) >= 0 &&
            ax_win_pos(a, o, w->a1) >= 0 && closed_window(a, o))
            return v;
    }
    return -1;
}

/* Window w (its move's two tasks last in wtask) holds every task: the
 * whole model (a->whole, skel_approx_eval's fallback), exact. */
static int all_tasks(skel_approx *a, ax_win *w, diag *err)
{
    if (a->ntasks > AX_WMAX)
        return diag_set(err, "approximation: %d tasks, more than one sub-chain holds (%d)",
                        a->ntasks, AX_WMAX);
    if (mem_grow((void **)&a->wtask, (size_t)w->t0 + (size_t)a->ntasks, sizeof *a->wtask) < 0)
        return ax_oom(err);
    for (int x = 0; x < a->ntasks; x++)
        a->wtask[w->t0 + x] = x;
    a->nwtask = w->t0 + a->ntasks;
    w->nt = a->ntasks;
    return 0;
}

static int build_deal_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    int v = whole_window(a, w);
    if (v >= 0)
        return share_chain(a, w, v, b, err);
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + 2, sizeof *a->wtask) < 0)
        return ax_oom(err);
    w->t0 = a->nwtask;
    w->nt = 2;
    a->wtask[a->nwtask++] = w->a0;
    a->wtask[a->nwtask++] = w->a1;
    unsigned long lim = a->o.deal_states < a->o.max_states ? a->o.deal_states : a->o.max_states;
    if (a->whole) {
        if (all_tasks(a, w, err) < 0 || window_links(a, w, err) < 0)
            return -1;
    } else if (window_links(a, w, err) < 0 ||
               (a->cut ? ax_grow_layers(a, w, b, (int)ax_layer_budget(a), err)
                       : grow_reach(a, w, b, (int)lim, err)) < 0)
        return -1;
    qsort(a->wtask + w->t0, (size_t)w->nt, sizeof *a->wtask, cmp_int);   /* one order */
    v = same_chain(a, w);
    if (v >= 0) {
        a->nwtask = w->t0;
        return share_chain(a, w, v, b, err);
    }
    return window_links(a, w, err) < 0 ? -1 : finish_window(a, w, b, err);
}

/* A window of counted deal g's member km (approx_group.c): its tasks, the
 * producer, the consumer, their links, the count. The member's moves all
 * measure in the same sub-chain: it is built once, the others share it. */
static int build_count_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    const ax_group *G = &a->grp[a->egrp[w->edge]];
    w->g = a->egrp[w->edge];
    w->km = a->ekm[w->edge];
    for (int v = 0; v < a->nwin; v++)
        if (&a->win[v] != w && a->win[v].built && a->win[v].g == w->g && a->win[v].km == w->km)
            return share_chain(a, w, v, b, err);
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + AX_WMAX, sizeof *a->wtask) < 0)
        return ax_oom(err);
    w->t0 = a->nwtask;
    for (int x = 0; x < a->ntasks; x++)
        if (a->gmem[x] == w->g && a->gmk[x] == w->km)
            a->wtask[a->nwtask++] = x;
    a->wtask[a->nwtask++] = G->p;
    a->wtask[a->nwtask++] = G->c;
    w->nt = a->nwtask - w->t0;
    w->b0 = a->nbit;
    return window_links(a, w, err) < 0 ? -1 : finish_window(a, w, b, err);
}

/* Build window w: its tasks (grown), partner bits, sub-chain. */
static int build_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    if (a->deal && w->a1 >= 0 && a->egrp[w->edge] >= 0)
        return build_count_window(a, w, b, err);
    if (a->deal && w->a1 >= 0)
        return build_deal_window(a, w, b, err);
    int nt = w->a1 < 0 ? 1 : 2, wt[AX_WMAX] = { w->a0, w->a1 };
    int whole = whole_model(a, wt, &nt);
    if (!whole) {
        wt[0] = w->a0;
        wt[1] = w->a1;
    }
    double n0 = window_states(a, wt, nt);
    unsigned long nl = n0 < (double)ULONG_MAX ? (unsigned long)n0 : ULONG_MAX;
    if (w->a1 >= 0 && !whole)
        grow_window(a, wt, &nt, &nl);
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + (size_t)nt, sizeof *a->wtask) < 0)
        return ax_oom(err);
    w->t0 = a->nwtask;
    w->nt = nt;
    for (int p = 0; p < nt; p++)
        a->wtask[a->nwtask++] = wt[p];
    int v = whole ? same_chain(a, w) : -1;
    if (v >= 0) {
        a->nwtask = w->t0;
        return share_chain(a, w, v, b, err);
    }
    if (window_links(a, w, err) < 0 || choose_bits(a, w, nl, err) < 0)
        return -1;
    return finish_window(a, w, b, err);
}

/* A window per move; a structurally interchangeable member's is built
 * only when an evaluation's rates make it differ from its class (a farm
 * of a thousand workers: two windows, not two thousand, each of which
 * would scan the producer's thousand moves). */
static int add_window(skel_approx *a, int *wcap, int t0, int t1, int edge, ax_cbuf *b,
                      diag *err)
{
    if (a->nwin == *wcap) {
        int nc = *wcap ? 2 * *wcap : 16;
        if (mem_grow((void **)&a->win, (size_t)nc, sizeof *a->win) < 0)
            return ax_oom(err);
        *wcap = nc;
    }
    ax_win *w = &a->win[a->nwin++];
    memset(w, 0, sizeof *w);
    w->a0 = t0;
    w->a1 = t1;
    w->edge = edge;
    w->g = -1;
    if (a->srep[t0] != t0 || (t1 >= 0 && a->srep[t1] != t1))
        return 0;
    return build_window(a, w, b, err);
}

/* A deal's round robin is kept whole only in one window, and its links'
 * states multiply that window's: a deal(2) with a 3-item H2 buffer and an
 * Erlang-2 one (l-deal-9 of bench_approx part (d)) fits 2,500 states only
 * with a buffer cut and both links made exponential, -4.0%; within 8,192
 * it keeps them, exact. Deals without links keep deal_states. */
unsigned long ax_deal_budget(const skel_approx *a, int nk)
{
    unsigned long lim = a->o.deal_states;
    unsigned long big = nk > 0 && lim < AX_DEAL_LINKS ? AX_DEAL_LINKS : lim;
    return big < a->o.max_states ? big : a->o.max_states;
}

/* The deadline has passed: checked every 16th step k (clock_now is a
 * system call's worth). */
int ax_past_deadline(const skel_approx *a, int k)
{
    return a->o.deadline > 0 && (k & 15) == 0 && clock_now() > a->o.deadline;
}

/* One window per move between two tasks; one per task with no such move. */
int ax_build_windows(skel_approx *a, diag *err)
{
    ax_cbuf b = { 0 };
    int wcap = 0, rc = 0;
    int *linked = calloc((size_t)a->ntasks, sizeof *linked);
    if (!linked)
        rc = ax_oom(err);
    for (int e = 0; e < a->nedges && rc == 0; e++) {
        skel_edge ed = a->d->edges[e];
        if (ax_past_deadline(a, a->deal ? 0 : e))   /* a deal's windows: ms each */
            rc = diag_set(err, "approximation: out of time building its %d sub-chains",
                          a->nedges);
        if (ed.from < 0 || ed.to < 0 || rc != 0)
            continue;
        linked[ed.from] = linked[ed.to] = 1;
        rc = add_window(a, &wcap, ed.from, ed.to, e, &b, err);
    }
    for (int i = 0; i < a->ntasks && rc == 0; i++)
        if (!linked[i])
            rc = add_window(a, &wcap, i, -1, -1, &b, err);
    free(linked);
    a->ctr = b.v;
    a->nctr = b.n;
    a->ctrcap = b.cap;
    return rc;
}

/* Build the windows this evaluation solves that were left unbuilt (their
 * members' rates differ from their class's): the sub-chain arrays grow. */
int ax_build_needed(skel_approx *a, diag *err)
{
    ax_cbuf b = { a->ctr, a->nctr, a->ctrcap, 0, 0 };
    int rc = 0, late = 0;
    size_t npi = a->npi;
    int nctr = a->nctr;
    /* farm(1000): 2,000 windows to build when its members' rates differ,
     * 120-170 ms without a look at the clock. Out of time, the windows
     * built so far are kept (their arrays grown below), the rest later. */
    for (int k = 0; k < a->nwin && rc == 0 && !(late = ax_past_deadline(a, k)); k++)
        if (!a->win[k].built && !ax_represented(a, &a->win[k]))
            rc = build_window(a, &a->win[k], &b, err);
    a->ctr = b.v;
    a->nctr = b.n;
    a->ctrcap = b.cap;
    if (rc == 0 && late)
        rc = diag_set(err, "approximation: out of time building its %d sub-chains", a->nwin);
    if (a->npi == npi && a->nctr == nctr)
        return rc;
    if (mem_grow((void **)&a->pi, a->npi + 1, sizeof *a->pi) < 0 ||
        mem_grow((void **)&a->prev, (size_t)a->nctr + 1, sizeof *a->prev) < 0 ||
        mem_grow((void **)&a->rate, (size_t)a->maxc + 1, sizeof *a->rate) < 0)
        return ax_oom(err);
    for (int k = 0; k < a->nwin; k++)
        for (int s = 0; a->win[k].p0 >= npi && s < a->win[k].n; s++)
            a->pi[a->win[k].p0 + (size_t)s] = 1.0 / a->win[k].n;
    for (int k = nctr; k < a->nctr; k++)
        a->prev[k] = NAN;
    return rc;
}
