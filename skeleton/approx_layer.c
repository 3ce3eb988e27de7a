/* skeleton/approx_layer.c: the windows of a deal of deals (a deal whose
 * members deal on to another deal: model4.des, an xdeal of sub-pipelines
 * dealing to a deal; approx_group.c cut_deal). No task closes such a
 * deal's round robin, so neither a window of its producer, members and
 * consumer nor counting (approx_group.c) applies, and a window grown by
 * single partners, nearest first, cuts the order where a task's cyclic
 * receive or send is: the cut partners become independent delays, each
 * waited for in a cycle the order never makes, and the fixed point sank
 * 10-96% (docs/approximation.md). Here a window grows by *blocks* that
 * keep each task's round robin whole: for the move a0 -> a1, first every
 * task a1 receives from (its sources, in whose cyclic order it takes
 * items) and every task a0 sends to, then, breadth first over the tasks
 * it holds, each one's sources and destinations as one block, each block
 * added whole when the window's reachable states stay within the budget,
 * else skipped. Private header approx_int.h. */
#include "approx_int.h"


/* The tasks x sends to (dir 1) or receives from (dir 0), into set (of
 * AX_WMAX + 1: more than a window holds); their number. */
static int block_of(const skel_approx *a, int x, int dir, int *set)
{
    int n = 0;
    for (int e = 0; e < a->nedges; e++) {
        const skel_edge *ed = &a->d->edges[e];
        int y = dir ? (ed->from == x ? ed->to : -1) : (ed->to == x ? ed->from : -1);
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = set[k] == y;
        if (y >= 0 && !dup && n <= AX_WMAX)   /* one more: too many */
            set[n++] = y;
    }
    return n;
}

unsigned long ax_layer_budget(const skel_approx *a)
{
    return a->o.layer_states;
}

/* The first two blocks of window w (its receiver's sources, its sender's
 * destinations) are not whole in it: the move's own round robins are cut,
 * the cyclic error whatever the fixed point does (bench_approx dd: deal(8)
 * into deal(6), -40% and converged; four deals of 31 tasks collapsed, 36
 * CPU s). Refused at once: skel_approx_new answers by the estimate
 * (approx_est.c) instead. */
static int short_window(const skel_approx *a, const ax_win *w, diag *err)
{
    int set[AX_WMAX + 1];
    for (int dir = 0; dir < 2; dir++) {
        int n = block_of(a, dir ? w->a0 : w->a1, dir, set), cut = n > AX_WMAX;
        for (int k = 0; k < n && !cut; k++)
            cut = ax_win_pos(a, w, set[k]) < 0;
        if (cut)
            return diag_set(err, "approximation: a deal of deals whose round robins "
                                 "around t%d, t%d exceed one sub-chain of %lu states "
                                 "(use simulate)", w->a0, w->a1, a->o.layer_states);
    }
    return 0;
}

int ax_grow_layers(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err)
{
    int set[AX_WMAX + 1];
    if (ax_try_add_set(a, w, b, set, block_of(a, w->a1, 0, set), budget, 0, err) < 0 ||
        ax_try_add_set(a, w, b, set, block_of(a, w->a0, 1, set), budget, 0, err) < 0)
        return -1;
    if (short_window(a, w, err) < 0)
        return a->short_cut = 1, -1;
    for (int q = 0; q < w->nt && w->nt < AX_WMAX; q++) {
        int x = a->wtask[w->t0 + q];
        if (ax_past_deadline(a, 0))
            return diag_set(err, "approximation: out of time growing the sub-chain of "
                                 "t%d, t%d", w->a0, w->a1);
        for (int dir = 0; dir < 2; dir++)
            if (ax_try_add_set(a, w, b, set, block_of(a, x, dir, set), budget, 0, err) < 0)
                return -1;
    }
    return 0;
}
