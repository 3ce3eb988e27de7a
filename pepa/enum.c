/* pepa_enum: transitions of a global state. See enum.h.
 *
 * A move that no ancestor synchronises goes straight to the output; only
 * moves that some cooperation synchronises are buffered, at that
 * cooperation. So each move is written once, wherever it sits in the tree,
 * instead of being copied up through every level.
 *
 * For each leaf move and each cooperation's combined moves the compiler of
 * this enumerator precomputes its destination: the nearest ancestor
 * cooperation whose set holds the action (after renaming by hidings on the
 * way), or the output. Nodes are visited in post-order, so a cooperation's
 * inputs are complete when it combines them.
 *
 * Combination: an action a in the set L fires as every pair (left move,
 * right move) on a, at rate (r1/ra1)(r2/ra2) min(ra1, ra2) where ra are the
 * apparent rates of a on each side; a passive rate w*infty makes min()
 * take the other side's apparent rate; two passive sides stay passive. */
#include "enum.h"

#include <stdlib.h>
#include <string.h>

typedef struct tbuf {
    pepa_tr *t;
    uint64_t *mask;
    size_t n, cap;
} tbuf;

/* Apparent rate of one action on one side of a cooperation. */
typedef struct apparent {
    double rate;
    unsigned char active, passive;
} apparent;

/* Where a move goes: buffer index (OUT, or 2 * node + side of a
 * cooperation), and whether a hiding on the way renamed it to tau. */
typedef struct dest {
    int buf;
    int tau;
} dest;

#define OUT 0
#define COOP_BUF(node, side) (1 + 2 * (node) + (side))

struct pepa_enum {
    const pepa_system *s;
    int nw;
    int *post;                 /* nodes in post-order */
    int *parent;
    dest **leaf_dest;          /* per leaf/array node: per move of its automaton */
    dest **coop_dest;          /* per cooperation node: per action */
    tbuf *buf;                 /* OUT, then two inputs per node */
    apparent *app[2];          /* per action, for the node being combined */
    long *head;                /* per action: first right-side move, -1 none */
    long *chain;               /* next right-side move with the same action */
    size_t chain_cap;
};

/* ---- set-up ----------------------------------------------------------- */

static dest find_dest(const pepa_system *s, const int *parent, int n, int action)
{
    dest d = { OUT, 0 };
    for (int p = parent[n]; p >= 0 && action != 0; n = p, p = parent[p]) {
        const pepa_node *pn = &s->nodes[p];
        if (pn->kind == PEPA_N_HIDE && pn->set[action]) {
            d.tau = 1;
            break;                                  /* tau never synchronises */
        }
        if (pn->kind == PEPA_N_COOP && pn->set[action]) {
            d.buf = COOP_BUF(p, pn->left == n ? 0 : 1);
            return d;
        }
    }
    return d;
}

static void post_order(const pepa_system *s, int n, int *order, int *k, int *parent, int par)
{
    const pepa_node *nd = &s->nodes[n];
    parent[n] = par;
    if (nd->left >= 0)
        post_order(s, nd->left, order, k, parent, n);
    if (nd->right >= 0)
        post_order(s, nd->right, order, k, parent, n);
    order[(*k)++] = n;
}

pepa_enum *pepa_enum_new(const pepa_system *s)
{
    pepa_enum *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    size_t nn = (size_t)s->nnodes, na = (size_t)s->nactions;
    e->s = s;
    e->nw = s->nwords;
    e->post = malloc(nn * sizeof *e->post);
    e->parent = malloc(nn * sizeof *e->parent);
    e->leaf_dest = calloc(nn, sizeof *e->leaf_dest);
    e->coop_dest = calloc(nn, sizeof *e->coop_dest);
    e->buf = calloc(1 + 2 * nn, sizeof *e->buf);
    e->app[0] = calloc(na, sizeof **e->app);
    e->app[1] = calloc(na, sizeof **e->app);
    e->head = malloc(na * sizeof *e->head);
    if (e->head)
        for (size_t a = 0; a < na; a++)
            e->head[a] = -1;
    if (!e->head ||
        !e->post || !e->parent || !e->leaf_dest || !e->coop_dest || !e->buf || !e->app[0] || !e->app[1])
        goto fail;
    int k = 0;
    post_order(s, s->root, e->post, &k, e->parent, -1);
    for (int n = 0; n < s->nnodes; n++) {
        const pepa_node *nd = &s->nodes[n];
        if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
            const pepa_seq *q = &s->seqs[nd->seq];
            int nm = q->first[q->nstates];
            e->leaf_dest[n] = malloc((size_t)(nm ? nm : 1) * sizeof **e->leaf_dest);
            if (!e->leaf_dest[n])
                goto fail;
            for (int j = 0; j < nm; j++)
                e->leaf_dest[n][j] = find_dest(s, e->parent, n, q->moves[j].action);
        } else if (nd->kind == PEPA_N_COOP) {
            e->coop_dest[n] = malloc(na * sizeof **e->coop_dest);
            if (!e->coop_dest[n])
                goto fail;
            for (size_t a = 0; a < na; a++)
                e->coop_dest[n][a] = nd->set[a] ? find_dest(s, e->parent, n, (int)a) : (dest){ OUT, 0 };
        }
    }
    return e;
fail:
    pepa_enum_free(e);
    return NULL;
}

void pepa_enum_free(pepa_enum *e)
{
    if (!e)
        return;
    const pepa_system *s = e->s;
    for (int i = 0; e->buf && i < 1 + 2 * s->nnodes; i++) {
        free(e->buf[i].t);
        free(e->buf[i].mask);
    }
    for (int n = 0; n < s->nnodes; n++) {
        if (e->leaf_dest)
            free(e->leaf_dest[n]);
        if (e->coop_dest)
            free(e->coop_dest[n]);
    }
    free(e->leaf_dest);
    free(e->coop_dest);
    free(e->buf);
    free(e->app[0]);
    free(e->app[1]);
    free(e->head);
    free(e->chain);
    free(e->post);
    free(e->parent);
    free(e);
}

/* ---- enumeration ------------------------------------------------------ */

static int reserve(tbuf *b, size_t need, int nw)
{
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 16;
    while (cap < need)
        cap *= 2;
    pepa_tr *t = realloc(b->t, cap * sizeof *t);
    if (t)
        b->t = t;
    uint64_t *m = realloc(b->mask, cap * (size_t)nw * sizeof *m);
    if (m)
        b->mask = m;
    if (!t || !m)
        return -1;
    b->cap = cap;
    return 0;
}

/* Append a transition to the buffer d names; returns its (zeroed) mask,
 * or NULL when out of memory. */
static inline uint64_t *push(pepa_enum *e, dest d, int action, int passive, double rate)
{
    tbuf *b = &e->buf[d.buf];
    if (b->n == b->cap && reserve(b, b->n + 1, e->nw) < 0)
        return NULL;
    b->t[b->n] = (pepa_tr){ d.tau ? 0 : action, passive, rate };
    uint64_t *m = b->mask + b->n * (size_t)e->nw;
    for (int w = 0; w < e->nw; w++)
        m[w] = 0;
    b->n++;
    return m;
}

static int oom(diag *err)
{
    return diag_set(err, "out of memory while enumerating transitions");
}

static int gen_leaf(pepa_enum *e, int n, const uint64_t *st, diag *err)
{
    const pepa_node *nd = &e->s->nodes[n];
    const pepa_seq *q = &e->s->seqs[nd->seq];
    const dest *ds = e->leaf_dest[n];
    unsigned k = pepa_field_get(st, nd->field);
    for (int j = q->first[k]; j < q->first[k + 1]; j++) {
        const pepa_move *mv = &q->moves[j];
        uint64_t *m = push(e, ds[j], mv->action, mv->passive, mv->rate);
        if (!m)
            return oom(err);
        m[nd->field.word] = ((uint64_t)(k ^ (unsigned)mv->target)) << nd->field.shift;
    }
    return 0;
}

/* An array of count copies: a move of local state k happens at count_k
 * times the single-copy rate, and moves one copy from k to its target. */
static int gen_array(pepa_enum *e, int n, const uint64_t *st, diag *err)
{
    const pepa_node *nd = &e->s->nodes[n];
    const pepa_seq *q = &e->s->seqs[nd->seq];
    const dest *ds = e->leaf_dest[n];
    for (int k = 0; k < q->nstates; k++) {
        uint64_t ck = pepa_field_get(st, nd->fields[k]);
        if (ck == 0)
            continue;
        for (int j = q->first[k]; j < q->first[k + 1]; j++) {
            const pepa_move *mv = &q->moves[j];
            uint64_t *m = push(e, ds[j], mv->action, mv->passive, mv->rate * (double)ck);
            if (!m)
                return oom(err);
            if (mv->target == k)
                continue;
            pepa_field fk = nd->fields[k], ft = nd->fields[mv->target];
            uint64_t ct = pepa_field_get(st, ft);
            m[fk.word] ^= (ck ^ (ck - 1)) << fk.shift;
            m[ft.word] ^= (ct ^ (ct + 1)) << ft.shift;
        }
    }
    return 0;
}

static void apparent_rates(apparent *app, const tbuf *in)
{
    for (size_t i = 0; i < in->n; i++) {
        apparent *a = &app[in->t[i].action];
        a->rate += in->t[i].rate;
        if (in->t[i].passive)
            a->passive = 1;
        else
            a->active = 1;
    }
}

static int mixed(const pepa_enum *e, const pepa_node *nd, int action, const char *side, diag *err)
{
    return diag_at(err, pepa_model_file(e->s->model), nd->pos.line, nd->pos.col,
                   "action '%s' is both active and passive on the %s of this cooperation",
                   pepa_model_action(e->s->model, action), side);
}

static int gen_coop(pepa_enum *e, int n, diag *err)
{
    const pepa_node *nd = &e->s->nodes[n];
    tbuf *l = &e->buf[COOP_BUF(n, 0)], *r = &e->buf[COOP_BUF(n, 1)];
    const int nw = e->nw;
    int rc = 0;
    if (r->n > e->chain_cap) {
        long *c = realloc(e->chain, 2 * r->n * sizeof *c);
        if (!c)
            return oom(err);
        e->chain = c;
        e->chain_cap = 2 * r->n;
    }
    apparent_rates(e->app[0], l);
    apparent_rates(e->app[1], r);
    /* right-side moves chained by action, in their original order */
    for (size_t j = r->n; j-- > 0;) {
        e->chain[j] = e->head[r->t[j].action];
        e->head[r->t[j].action] = (long)j;
    }
    for (size_t i = 0; rc == 0 && i < l->n; i++) {
        const pepa_tr *tl = &l->t[i];
        const apparent *al = &e->app[0][tl->action], *ar = &e->app[1][tl->action];
        if (ar->rate == 0)
            continue;                             /* the partner cannot do it now */
        if (al->active && al->passive) {
            rc = mixed(e, nd, tl->action, "left", err);
            break;
        }
        if (ar->active && ar->passive) {
            rc = mixed(e, nd, tl->action, "right", err);
            break;
        }
        dest d = e->coop_dest[n][tl->action];
        /* each side is all active or all passive on this action (checked
         * above), so min() and the left share are the same for every
         * right partner: rate = scale * r2 */
        int rpassive = ar->passive;
        double lo;
        if (tl->passive == rpassive)
            lo = al->rate < ar->rate ? al->rate : ar->rate;
        else
            lo = tl->passive ? ar->rate : al->rate;
        double scale = tl->rate / al->rate * lo / ar->rate;
        for (long j = e->head[tl->action]; j >= 0; j = e->chain[j]) {
            const pepa_tr *tr = &r->t[j];
            uint64_t *m = push(e, d, tl->action, tl->passive && rpassive, scale * tr->rate);
            if (!m) {
                rc = oom(err);
                break;
            }
            const uint64_t *ml = l->mask + i * (size_t)nw, *mr = r->mask + (size_t)j * nw;
            for (int w = 0; w < nw; w++)
                m[w] = ml[w] ^ mr[w];
        }
    }
    for (size_t i = 0; i < l->n; i++)
        e->app[0][l->t[i].action] = (apparent){ 0, 0, 0 };
    for (size_t j = 0; j < r->n; j++) {
        e->app[1][r->t[j].action] = (apparent){ 0, 0, 0 };
        e->head[r->t[j].action] = -1;
    }
    l->n = r->n = 0;
    return rc;
}

long pepa_enum_state(pepa_enum *e, const uint64_t *st, const pepa_tr **tr,
                     const uint64_t **mask, diag *err)
{
    const pepa_system *s = e->s;
    e->buf[OUT].n = 0;
    for (int k = 0; k < s->nnodes; k++) {
        int n = e->post[k];
        int rc = 0;
        switch (s->nodes[n].kind) {
        case PEPA_N_LEAF: rc = gen_leaf(e, n, st, err); break;
        case PEPA_N_ARRAY: rc = gen_array(e, n, st, err); break;
        case PEPA_N_COOP: rc = gen_coop(e, n, err); break;
        case PEPA_N_HIDE: break;                  /* renaming is in the destinations */
        }
        if (rc < 0) {
            for (int b = 1; b < 1 + 2 * s->nnodes; b++)
                e->buf[b].n = 0;
            return -1;
        }
    }
    const tbuf *b = &e->buf[OUT];
    for (size_t i = 0; i < b->n; i++)
        if (b->t[i].passive)
            return diag_set(err, "%s: action '%s' is passive in every component that performs it at the "
                            "top level, so its rate is undefined (make one partner active, or "
                            "cooperate with an active component)", pepa_model_file(s->model),
                            pepa_model_action(s->model, b->t[i].action));
    *tr = b->t;
    *mask = b->mask;
    return (long)b->n;
}
