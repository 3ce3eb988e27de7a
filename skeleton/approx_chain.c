/* skeleton/approx_chain.c: one window's sub-chain: its transitions out of a
 * state (computations, moves, delays of outside partners, partner bits,
 * link components) and its states reachable from the start (hashed
 * product codes). Private header approx_int.h. */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

/* Position of task x in window w, or -1. */
int ax_win_pos(const skel_approx *a, const ax_win *w, int x)
{
    for (int p = 0; p < w->nt; p++)
        if (a->wtask[w->t0 + p] == x)
            return p;
    return -1;
}

static int push_ctr(ax_cbuf *b, ax_ctr c, diag *err)
{
    ax_ctr *last = b->n > b->start ? &b->v[b->n - 1] : NULL;
    if (c.src == AX_RHO_SEND || c.src == AX_RHO_RECV) {
        if (last && last->from == c.from && last->to == c.to && last->src == c.src &&
            last->idx + last->cnt == c.idx && last->w == c.w) {
            last->cnt++;          /* the next member of the same choice */
            return 0;
        }
        c.cnt = 1;
    }
    if (b->n == b->cap) {
        int nc = b->cap ? 2 * b->cap : 256;
        if (mem_grow((void **)&b->v, (size_t)nc, sizeof *b->v) < 0)
            return ax_oom(err);
        b->cap = nc;
    }
    b->v[b->n++] = c;
    return 0;
}

int ax_push_ctr(ax_cbuf *b, ax_ctr c, diag *err)
{
    return push_ctr(b, c, err);
}

/* The rendezvous of send t with the receives on its edge of the task at
 * position q (in local state lq): one transition per receive (an H2
 * receiver forks), at the product of their weights (and wl, the link's). */
static int rendezvous(const skel_approx *a, const ax_ltr *t, int q, int lq, ax_code s,
                      ax_code to, const ax_code *stride, double wl, ax_cbuf *b, diag *err)
{
    int y = a->wtask[b->win_t0 + q];
    for (int k = a->lstart[y]; k < a->lstart[y + 1]; k++) {
        const ax_ltr *r = &a->ltr[k];
        if (r->from != lq || r->edge != t->edge || r->send)
            continue;
        ax_ctr c = { .from = s, .to = to + (r->to - r->from) * stride[q], .src = AX_LAMBDA,
                     .idx = t->edge, .w = t->w * r->w * wl };
        if (push_ctr(b, c, err) < 0)
            return -1;
    }
    return 0;
}

/* Bit of window w for edge e, or -1. */
int ax_win_bit(const skel_approx *a, const ax_win *w, int e)
{
    for (int k = 0; k < w->nb; k++)
        if (a->bit[w->b0 + k].edge == e)
            return k;
    return -1;
}

/* A move of the task at position p with partner y outside window w. */
static int outside_move(const skel_approx *a, const ax_win *w, const ax_ltr *t, ax_code s,
                        ax_code to, ax_cbuf *b, diag *err)
{
    int k = ax_win_bit(a, w, t->edge);
    if (k < 0)
        return push_ctr(b, (ax_ctr){ .from = s, .to = to, .src = t->send ? AX_RHO_SEND : AX_RHO_RECV, .idx = t->edge, .w = t->w }, err);
    int mask = (int)(s / w->nl);
    if (!(mask >> k & 1))
        return 0;                     /* the partner is not ready */
    return push_ctr(b, (ax_ctr){ .from = s, .to = to - w->nl * (1 << k), .src = AX_LAMBDA, .idx = t->edge, .w = t->w }, err);
}

/* Position of edge e's link among window w's components, or -1. */
static int win_link(const skel_approx *a, const ax_win *w, int e)
{
    for (int k = 0; k < w->nk; k++)
        if (a->wlink[w->k0 + k] == e)
            return w->nt + k;
    return -1;
}

/* Move t (edge e) of a task whose link is the window's component at
 * position k. Buffered: the sender's hand-off, or the receiver's take,
 * meets the link alone. A rendezvous with phases meets the link and the
 * partner (at position q; q < 0: the outside world, always ready), made
 * once, by the sender, when both tasks are in the window. */
static int link_move(const skel_approx *a, const ax_ltr *t, int q, const int *loc, int k,
                     ax_code s, ax_code to, const ax_code *stride, ax_cbuf *b, diag *err)
{
    int e = t->edge, n, buffered = a->links.buffer[e] > 0;
    if (!buffered && q >= 0 && !t->send)
        return 0;
    ax_lact want = buffered && !t->send ? AX_LINK_TAKE : AX_LINK_MOVE;
    ax_src src = !buffered ? AX_LAMBDA : t->send ? AX_HANDOFF : AX_TAKE;
    const ax_ltrans *lt = ax_link_from(&a->links, e, loc[k], &n);
    for (int j = 0; j < n; j++) {
        ax_code to2 = to + (lt[j].to - loc[k]) * stride[k];
        int rc = 0;
        if (lt[j].act != want)
            continue;
        if (!buffered && q >= 0)
            rc = rendezvous(a, t, q, loc[q], s, to2, stride, lt[j].w, b, err);
        else
            rc = push_ctr(b, (ax_ctr){ .from = s, .to = to2, .src = src, .idx = e, .w = t->w * lt[j].w }, err);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Is the sender (send) or receiver of edge e ready for it: the outside
 * world always; a task of window w when its local state offers it. */
static int end_ready(const skel_approx *a, const ax_win *w, int e, int send, const int *loc)
{
    int x = send ? a->d->edges[e].from : a->d->edges[e].to, p = x < 0 ? -1 : ax_win_pos(a, w, x);
    return x < 0 || (p >= 0 && ax_is_ready(a, x, loc[p], e, send));
}

/* The phases of the link at position k that advance on their own: a
 * buffer's items in transit always; a rendezvous's only while both ends
 * offer the move (gen.c: the tasks offer xfer only there). */
static int link_xfer(const skel_approx *a, const ax_win *w, int k, ax_code s, const int *loc,
                     const ax_code *stride, ax_cbuf *b, diag *err)
{
    int e = a->wlink[w->k0 + k - w->nt], n;
    if (!a->links.buffer[e] && !(end_ready(a, w, e, 1, loc) && end_ready(a, w, e, 0, loc)))
        return 0;
    const ax_ltrans *lt = ax_link_from(&a->links, e, loc[k], &n);
    for (int j = 0; j < n; j++)
        if (lt[j].act == AX_LINK_XFER &&
            push_ctr(b, (ax_ctr){ .from = s, .to = s + (lt[j].to - loc[k]) * stride[k], .src = AX_XFER, .idx = e, .w = lt[j].w }, err) < 0)
            return -1;
    return 0;
}

/* The producer's move into member j of window w's counted deal, or the
 * consumer's out of it, j outside the window: at the delay its own window
 * measured for j's count of items (none into a full member or out of an
 * empty one). */
static int count_move(const skel_approx *a, const ax_win *w, const ax_ltr *t, ax_code s,
                      ax_code to, const int *loc, ax_cbuf *b, diag *err)
{
    int e = t->edge, j = a->ekm[e], n = ax_member_items(a, w, loc, j);
    if (a->edir[e] > 0 ? n >= a->mcap[a->grp[w->g].m0 + j] : n == 0)
        return 0;
    ax_src src = a->edir[e] > 0 ? AX_CNT_SEND : AX_CNT_RECV;
    return push_ctr(b, (ax_ctr){ .from = s, .to = to, .src = src, .idx = e, .pos = n, .w = t->w },
                    err);
}

/* Move t of a task of window w from state s to to (its own local state
 * changed): with the outside world, a partner in the window (made once, by
 * the sender), a link's component, an outside partner's delay, or a counted
 * deal's member outside the window. */
static int move_trans(const skel_approx *a, const ax_win *w, const ax_ltr *t, ax_code s,
                      ax_code to, const int *loc, const ax_code *stride, ax_cbuf *b, diag *err)
{
    int y = ax_partner(a, t), q = y >= 0 ? ax_win_pos(a, w, y) : -1, e = t->edge;
    int lk = w->nk ? win_link(a, w, e) : -1;
    if (w->g >= 0 && a->egrp[e] == w->g)
        to += a->edir[e] * stride[w->nt + w->nk];      /* the count of items in flight */
    if (lk >= 0)
        return link_move(a, t, q, loc, lk, s, to, stride, b, err);
    if (y < 0)                                /* the outside world is always ready */
        return push_ctr(b, (ax_ctr){ .from = s, .to = to, .src = AX_LAMBDA, .idx = e, .w = t->w }, err);
    if (q < 0 && w->g >= 0 && a->egrp[e] == w->g && a->edir[e])
        return count_move(a, w, t, s, to, loc, b, err);
    if (q < 0)
        return outside_move(a, w, t, s, to, b, err);
    return t->send ? rendezvous(a, t, q, loc[q], s, to, stride, 1.0, b, err) : 0;
}

/* The transitions of window w out of state s (locals in loc, radix in stride). */
static int state_trans(const skel_approx *a, const ax_win *w, ax_code s, const int *loc,
                       const ax_code *stride, ax_cbuf *b, diag *err)
{
    unsigned busy = 0;
    for (int p = 0; p < w->nt; p++)
        busy |= (unsigned)a->busy[a->loff[a->wtask[w->t0 + p]] + loc[p]] << p;
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p], lat = ax_lat_trans(a, w, p, loc[p], s, stride, b, err);
        if (lat < 0)
            return -1;
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && !lat; k++) {
            const ax_ltr *t = &a->ltr[k];
            if (t->from != loc[p])
                continue;
            ax_code to = s + (t->to - loc[p]) * stride[p];
            int rc = 0;
            if (t->edge < 0)
                rc = push_ctr(b, (ax_ctr){ .from = s, .to = to, .src = AX_MU, .idx = x, .pos = p, .done = t->done, .busy = busy, .w = t->w }, err);
            else
                rc = move_trans(a, w, t, s, to, loc, stride, b, err);
            if (rc < 0)
                return -1;
        }
    }
    for (int k = w->nt; k < w->nt + w->nk; k++)
        if (link_xfer(a, w, k, s, loc, stride, b, err) < 0)
            return -1;
    int mask = (int)(s / w->nl);
    for (int k = 0; k < w->nb; k++) {         /* outside partners change readiness */
        const ax_bit *bt = &a->bit[w->b0 + k];
        int on = mask >> k & 1;
        ax_code to = s + (on ? -1 : 1) * w->nl * (1 << k);
        ax_src src = on ? (bt->partner_sends ? AX_GAMMA_SEND : AX_GAMMA_RECV)
                        : (bt->partner_sends ? AX_ALPHA_SEND : AX_ALPHA_RECV);
        if (push_ctr(b, (ax_ctr){ .from = s, .to = to, .src = src, .idx = bt->edge, .w = 1.0 }, err) < 0)
            return -1;
    }
    return 0;
}

/* Local states of window w's component at position p: its tasks', then
 * its links', then a counted deal's count of items in flight. */
int ax_comp_n(const skel_approx *a, const ax_win *w, int p)
{
    if (p < w->nt)
        return a->nloc[a->wtask[w->t0 + p]];
    if (p < w->nt + w->nk)
        return a->links.n[a->wlink[w->k0 + p - w->nt]];
    return a->grp[w->g].ncap + 1;
}

void ax_decode(const skel_approx *a, const ax_win *w, ax_code c, int *loc)
{
    ax_code stride = 1;
    for (int p = 0; p < ax_ncomp(w); p++) {
        int m = ax_comp_n(a, w, p);
        loc[p] = (int)(c % w->nl / stride % m);
        stride *= m;
    }
}

int ax_hash_init(ax_hash *h, size_t slots)
{
    h->mask = slots - 1;
    h->used = 0;
    h->key = malloc(slots * sizeof *h->key);
    h->val = malloc(slots * sizeof *h->val);
    if (!h->key || !h->val)
        return -1;
    memset(h->key, 0xff, slots * sizeof *h->key);
    return 0;
}

void ax_hash_free(ax_hash *h)
{
    free(h->key);
    free(h->val);
    h->key = NULL;
    h->val = NULL;
}

/* The slot of code c (found, or the empty one where it goes). */
static size_t hash_slot(const ax_hash *h, ax_code c)
{
    size_t i = (size_t)((uint64_t)c * 0x9E3779B97F4A7C15ULL >> 17) & h->mask;
    while (h->key[i] != -1 && h->key[i] != c)
        i = (i + 1) & h->mask;
    return i;
}

int ax_hash_find(const ax_hash *h, ax_code c)
{
    size_t i = hash_slot(h, c);
    return h->key[i] == -1 ? -1 : h->val[i];
}

/* Enter code c with index v, doubling the table first if it is half
 * full (the probe in hash_slot then always finds an empty slot). */
int ax_hash_put(ax_hash *h, ax_code c, int v)
{
    if (2 * (h->used + 1) > h->mask + 1) {
        ax_hash g;
        if (ax_hash_init(&g, 2 * (h->mask + 1)) < 0) {
            ax_hash_free(&g);
            return -1;
        }
        for (size_t i = 0; i <= h->mask; i++)
            if (h->key[i] != -1) {
                size_t j = hash_slot(&g, h->key[i]);
                g.key[j] = h->key[i];
                g.val[j] = h->val[i];
            }
        g.used = h->used;
        ax_hash_free(h);
        *h = g;
    }
    size_t i = hash_slot(h, c);
    h->key[i] = c;
    h->val[i] = v;
    h->used++;
    return 0;
}

/* Room in a->code (from a->npi) for n states' codes: grown by doubling,
 * as a window's states are found. */
static int code_room(skel_approx *a, size_t n, size_t *cap)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    if (mem_grow((void **)&a->code, a->npi + c, sizeof *a->code) < 0)
        return -1;
    *cap = c;
    return 0;
}

/* The radix of window w's product codes: per position (its tasks, then
 * its links), its stride. */
static int window_radix(const skel_approx *a, ax_win *w, ax_code *stride)
{
    ax_code n = 1;
    for (int p = 0; p < ax_ncomp(w); p++) {
        stride[p] = n;
        int m = ax_comp_n(a, w, p);
        if (n > (INT64_C(1) << 46) / m)
            return -1;
        n *= m;
    }
    w->nl = n;
    return 0;
}

/* Breadth-first from the start over window w's states (at most limit),
 * its transitions into b by product codes, then renumbered to indices in
 * reachability order; a->code from a->npi gets the states' codes. A
 * window of several tasks of a deal holds only the phase combinations
 * the round robin makes (others would form closed classes of their own,
 * and no unique steady state), so far fewer than the product. Returns
 * the number of states, 0 above limit, -1 on an error. */
int ax_explore(skel_approx *a, ax_win *w, ax_cbuf *b, int limit, diag *err)
{
    ax_code stride[AX_WPOS];
    int loc[AX_WPOS], head = 0, tail = 1;
    size_t cap = 0;
    ax_hash h;
    if (window_radix(a, w, stride) < 0)
        return 0;
    if (ax_hash_init(&h, 64) < 0 || code_room(a, 1, &cap) < 0 || ax_hash_put(&h, 0, 0) < 0) {
        ax_hash_free(&h);
        return ax_oom(err);
    }
    a->code[a->npi] = 0;
    w->c0 = b->start = b->n;
    b->win_t0 = w->t0;
    while (head < tail && tail <= limit) {
        ax_code s = a->code[a->npi + (size_t)head++];
        int k0 = b->n;
        for (int p = 0; p < ax_ncomp(w); p++)
            loc[p] = (int)(s % w->nl / stride[p] % ax_comp_n(a, w, p));
        if (state_trans(a, w, s, loc, stride, b, err) < 0) {
            ax_hash_free(&h);
            return -1;
        }
        for (int k = k0; k < b->n && tail <= limit; k++) {
            ax_code to = b->v[k].to;
            if (ax_hash_find(&h, to) >= 0)
                continue;
            if (code_room(a, (size_t)tail + 1, &cap) < 0 || ax_hash_put(&h, to, tail) < 0) {
                ax_hash_free(&h);
                return ax_oom(err);
            }
            a->code[a->npi + (size_t)tail++] = to;
        }
    }
    int n = tail <= limit ? tail : 0;
    w->nc = b->n - w->c0;
    if (n) {
        for (int k = w->c0; k < b->n; k++) {
            b->v[k].from = ax_hash_find(&h, b->v[k].from);
            b->v[k].to = ax_hash_find(&h, b->v[k].to);
        }
    }
    ax_hash_free(&h);
    return n;
}

/* Window w's sub-chain: its reachable states (at most max_states; a
 * counted deal's member's, at least AX_COUNT_MAX; a deal of deals',
 * ax_layer_budget). */
int ax_window_chain(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    unsigned long cap = ax_par_window_cap(a, w);   /* max_states, or a block of forks' */
    if (w->g >= 0 && cap < AX_COUNT_MAX)
        cap = AX_COUNT_MAX;
    if (a->cut && !a->whole && cap < ax_layer_budget(a))
        cap = ax_layer_budget(a);
    int lim = (int)(cap < INT32_MAX / 4 ? cap : INT32_MAX / 4);
    int n = ax_explore(a, w, b, lim, err);
    if (n < 0)
        return -1;
    if (n == 0) {
        b->n = w->c0;
        return diag_set(err, "approximation: a sub-chain of more than %lu states", cap);
    }
    w->n = n;
    return 0;
}

/* Sort window w's transitions by target (Gauss-Seidel reads them so). */
int ax_sort_by_target(ax_cbuf *b, const ax_win *w, diag *err)
{
    ax_ctr *tmp = malloc((size_t)(w->nc ? w->nc : 1) * sizeof *tmp);
    int *cnt = calloc((size_t)w->n + 1, sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return ax_oom(err);
    }
    ax_ctr *v = b->v + w->c0;
    for (int k = 0; k < w->nc; k++)
        cnt[v[k].to + 1]++;
    for (int s = 0; s < w->n; s++)
        cnt[s + 1] += cnt[s];
    for (int k = 0; k < w->nc; k++)
        tmp[cnt[v[k].to]++] = v[k];
    memcpy(v, tmp, (size_t)w->nc * sizeof *v);
    free(tmp);
    free(cnt);
    return 0;
}
