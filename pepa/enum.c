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
 * take the other side's apparent rate; two passive sides stay passive.
 *
 * Memo: what a subtree pushes to buffers outside itself depends only on
 * its own local states, which repeat across many global states (the
 * workers' states recur with every arrangement of the tools). So for a
 * few subtrees of several components whose bits fit one word, the
 * enumerator keeps, per sub-state met, the moves the subtree pushed to
 * each outside buffer, and replays them with one copy per buffer; the
 * buffers end up exactly as if the subtree had been walked. The memo
 * holds rates, so it is dropped when the system is re-rated. */
#include "enum.h"

#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

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

#define MEMO_MAX_BITS 24              /* subtrees with more bits are split */
#define MEMO_MAX_MOVES ((size_t)1 << 18)  /* per memo: moves kept (6 MB), then no more */
#define MEMO_LEAF_MOVES 32                /* a single component with more moves gets a memo */
#define MEMO_TRIAL 1024                   /* misses before judging a memo's hit rate */

/* The memo of one subtree: post[lo..hi] are its nodes, hi its root. */
typedef struct memo {
    int lo, hi;
    int word;
    uint64_t bits;                /* the subtree's bits of st[word]: the key */
    int nouts;
    int *outs;                    /* buffers outside the subtree it pushes to */
    size_t *len0;                 /* scratch: their lengths before a walk */
    uint32_t *slot;               /* open addressing: entry + 1, 0 free */
    uint64_t slot_cap;
    uint64_t *key;                /* per entry: the sub-state */
    size_t *at;                   /* per entry: its first move in tr */
    uint32_t *cnt;                /* per entry, per out: moves pushed there */
    size_t nentries, entries_cap;
    pepa_tr *tr;                  /* moves of all entries, out after out */
    uint64_t *mask;               /* nw words per move */
    size_t nmoves, moves_cap;
    int full;                     /* MEMO_MAX_MOVES reached: keep no more */
    int off;                      /* sub-states rarely recur: just walk */
    uint64_t hits, misses;
} memo;

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
    memo *memos;
    int nmemos;
    int *memo_at;              /* per post-order position: the memo starting there, or -1 */
    unsigned rates_version;    /* of the system when the memos were filled */
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

/* Where a subtree's bits lie: one word (word >= 0, ok) or several (!ok). */
typedef struct span {
    int word, ok;
    uint64_t bits;
    int leaves, nodes;
} span;

static void span_field(span *sp, pepa_field f)
{
    if (!f.width)
        return;
    if (sp->word >= 0 && sp->word != f.word)
        sp->ok = 0;
    sp->word = f.word;
    sp->bits |= (f.width == 64 ? ~0ULL : (1ULL << f.width) - 1) << f.shift;
}

static void span_child(span *sp, const span *c)
{
    if (!c->ok || (c->word >= 0 && sp->word >= 0 && c->word != sp->word))
        sp->ok = 0;
    if (c->word >= 0)
        sp->word = c->word;
    sp->bits |= c->bits;
    sp->leaves += c->leaves;
    sp->nodes += c->nodes;
}

/* The spans of all nodes, children before parents (post-order). */
static void spans(const pepa_enum *e, span *sp)
{
    const pepa_system *s = e->s;
    for (int k = 0; k < s->nnodes; k++) {
        int n = e->post[k];
        const pepa_node *nd = &s->nodes[n];
        sp[n] = (span){ -1, 1, 0, 0, 1 };
        if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
            sp[n].leaves = 1;
            if (nd->kind == PEPA_N_LEAF)
                span_field(&sp[n], nd->field);
            else
                for (int j = 0; j < s->seqs[nd->seq].nstates; j++)
                    span_field(&sp[n], nd->fields[j]);
        }
        if (nd->left >= 0)
            span_child(&sp[n], &sp[nd->left]);
        if (nd->right >= 0)
            span_child(&sp[n], &sp[nd->right]);
    }
}

/* Add a memo for the subtree post[lo..hi]: find the buffers outside it
 * that it pushes to. inside and used are scratch (nnodes and 1 + 2 nnodes
 * entries, zeroed; left zeroed). */
static int memo_add(pepa_enum *e, int lo, int hi, const span *sp, unsigned char *inside, unsigned char *used)
{
    const pepa_system *s = e->s;
    memo *m = &e->memos[e->nmemos];
    /* a subtree without bits (components of one local state) has one
     * sub-state: key 0 of word 0 */
    *m = (memo){ .lo = lo, .hi = hi, .word = sp->word < 0 ? 0 : sp->word, .bits = sp->bits };
    int nb = 1 + 2 * s->nnodes;
    for (int k = lo; k <= hi; k++)
        inside[e->post[k]] = 1;
    for (int k = lo; k <= hi; k++) {
        int n = e->post[k];
        const pepa_node *nd = &s->nodes[n];
        if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
            const pepa_seq *q = &s->seqs[nd->seq];
            for (int j = 0; j < q->first[q->nstates]; j++)
                used[e->leaf_dest[n][j].buf] = 1;
        } else if (nd->kind == PEPA_N_COOP) {
            for (int a = 0; a < s->nactions; a++)
                if (nd->set[a])
                    used[e->coop_dest[n][a].buf] = 1;
        }
    }
    for (int b = 0; b < nb; b++)
        if (used[b] && b != OUT && inside[(b - 1) / 2])
            used[b] = 0;                        /* consumed inside the subtree */
    m->outs = malloc((size_t)nb * sizeof *m->outs);
    m->len0 = malloc((size_t)nb * sizeof *m->len0);
    for (int b = 0; m->outs && b < nb; b++)
        if (used[b])
            m->outs[m->nouts++] = b;
    memset(used, 0, (size_t)nb);
    for (int k = lo; k <= hi; k++)
        inside[e->post[k]] = 0;
    e->nmemos++;                                /* counted even when short of memory: freed */
    if (!m->outs || !m->len0)
        return -1;
    e->memo_at[lo] = e->nmemos - 1;
    return 0;
}

/* Moves of leaf n's automaton over all its local states (0: not a leaf). */
static int leaf_moves(const pepa_system *s, int n)
{
    const pepa_node *nd = &s->nodes[n];
    if (nd->kind != PEPA_N_LEAF && nd->kind != PEPA_N_ARRAY)
        return 0;
    const pepa_seq *q = &s->seqs[nd->seq];
    return q->first[q->nstates];
}

/* Memoise the largest subtrees below the root whose bits fit one word
 * (at most MEMO_MAX_BITS of them, none at all for components of one local
 * state) and which hold several components, or one with many moves (a
 * network component offering a move per link: one copy replays them). */
static int memo_choose(pepa_enum *e, const span *sp, const int *pos, int n, unsigned char *inside,
                       unsigned char *used)
{
    const pepa_node *nd = &e->s->nodes[n];
    if (n != e->s->root && sp[n].ok && (sp[n].leaves >= 2 || leaf_moves(e->s, n) >= MEMO_LEAF_MOVES) &&
        __builtin_popcountll(sp[n].bits) <= MEMO_MAX_BITS)
        return memo_add(e, pos[n] - sp[n].nodes + 1, pos[n], &sp[n], inside, used);
    if (nd->kind == PEPA_N_COOP || nd->kind == PEPA_N_HIDE)
        if (memo_choose(e, sp, pos, nd->left, inside, used) < 0 ||
            (nd->right >= 0 && memo_choose(e, sp, pos, nd->right, inside, used) < 0))
            return -1;
    return 0;
}

static int memos_new(pepa_enum *e)
{
    const pepa_system *s = e->s;
    size_t nn = (size_t)s->nnodes;
    span *sp = malloc(nn * sizeof *sp);
    int *pos = malloc(nn * sizeof *pos);
    unsigned char *inside = calloc(nn, 1), *used = calloc(1 + 2 * nn, 1);
    e->memos = calloc(nn, sizeof *e->memos);
    e->memo_at = malloc(nn * sizeof *e->memo_at);
    int rc = -1;
    if (sp && pos && inside && used && e->memos && e->memo_at) {
        for (size_t k = 0; k < nn; k++) {
            pos[e->post[k]] = (int)k;
            e->memo_at[k] = -1;
        }
        spans(e, sp);
        rc = memo_choose(e, sp, pos, s->root, inside, used);
    }
    free(sp);
    free(pos);
    free(inside);
    free(used);
    e->rates_version = s->rates_version;
    return rc;
}

/* Forget m's entries and give their memory back. */
static void memo_drop(memo *m)
{
    free(m->slot);
    free(m->key);
    free(m->at);
    free(m->cnt);
    free(m->tr);
    free(m->mask);
    m->slot = NULL;
    m->key = NULL;
    m->at = NULL;
    m->cnt = NULL;
    m->tr = NULL;
    m->mask = NULL;
    m->slot_cap = m->entries_cap = m->moves_cap = 0;
    m->nentries = m->nmoves = 0;
}

static void memo_free(memo *m)
{
    free(m->outs);
    free(m->len0);
    memo_drop(m);
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
    if (memos_new(e) < 0)
        goto fail;
    return e;
fail:
    pepa_enum_free(e);
    return NULL;
}

int pepa_enum_targets_distinct(const pepa_system *s)
{
    for (int i = 0; i < s->nseqs; i++) {
        const pepa_seq *q = &s->seqs[i];
        for (int k = 0; k < q->nstates; k++)
            for (int j = q->first[k]; j < q->first[k + 1]; j++) {
                if (q->moves[j].target == k)
                    return 0;
                for (int o = q->first[k]; o < j; o++)
                    if (q->moves[o].target == q->moves[j].target)
                        return 0;
            }
    }
    return 1;
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
    for (int m = 0; m < e->nmemos; m++)
        memo_free(&e->memos[m]);
    free(e->memos);
    free(e->memo_at);
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
    if (mem_grow((void **)&b->t, cap, sizeof *b->t) < 0 ||
        mem_grow((void **)&b->mask, cap * (size_t)nw, sizeof *b->mask) < 0)
        return -1;
    b->cap = cap;
    return 0;
}

/* Append a transition to the buffer d names; returns its mask for the
 * caller to fill, or NULL when out of memory. */
static inline uint64_t *push(pepa_enum *e, dest d, int action, int passive, double rate)
{
    tbuf *b = &e->buf[d.buf];
    if (b->n == b->cap && reserve(b, b->n + 1, e->nw) < 0)
        return NULL;
    b->t[b->n] = (pepa_tr){ d.tau ? 0 : action, passive, rate };
    return b->mask + b->n++ * (size_t)e->nw;
}

/* Push with a zeroed mask (most states fit one word: no memset call). */
static inline uint64_t *push_zeroed(pepa_enum *e, dest d, int action, int passive, double rate)
{
    uint64_t *m = push(e, d, action, passive, rate);
    if (m && e->nw == 1)
        m[0] = 0;
    else if (m)
        memset(m, 0, (size_t)e->nw * sizeof *m);
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
        uint64_t *m = push_zeroed(e, ds[j], mv->action, mv->passive, mv->rate);
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
            uint64_t *m = push_zeroed(e, ds[j], mv->action, mv->passive, mv->rate * (double)ck);
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
        if (mem_grow((void **)&e->chain, 2 * r->n, sizeof *e->chain) < 0)
            return oom(err);
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

static int gen_node(pepa_enum *e, int n, const uint64_t *st, diag *err)
{
    switch (e->s->nodes[n].kind) {
    case PEPA_N_LEAF: return gen_leaf(e, n, st, err);
    case PEPA_N_ARRAY: return gen_array(e, n, st, err);
    case PEPA_N_COOP: return gen_coop(e, n, err);
    case PEPA_N_HIDE: return 0;                   /* renaming is in the destinations */
    }
    return 0;
}

/* ---- the memo --------------------------------------------------------- */

static uint64_t memo_hash(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    return x ^ (x >> 29);
}

/* The entry of key, or -1. */
static long memo_find(const memo *m, uint64_t key)
{
    if (!m->slot_cap)
        return -1;
    uint64_t mask = m->slot_cap - 1;
    for (uint64_t i = memo_hash(key) & mask;; i = (i + 1) & mask) {
        uint32_t v = m->slot[i];
        if (!v)
            return -1;
        if (m->key[v - 1] == key)
            return (long)v - 1;
    }
}

static void memo_insert(memo *m, uint64_t key, uint32_t entry)
{
    uint64_t mask = m->slot_cap - 1, i = memo_hash(key) & mask;
    while (m->slot[i])
        i = (i + 1) & mask;
    m->slot[i] = entry + 1;
}

/* Room for one more entry of moves more moves; -1 when out of memory. */
static int memo_reserve(memo *m, size_t moves, int nw)
{
    if (2 * (m->nentries + 1) > m->slot_cap) {
        uint64_t cap = m->slot_cap ? 2 * m->slot_cap : 256;
        uint32_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return -1;
        free(m->slot);
        m->slot = slot;
        m->slot_cap = cap;
        for (size_t k = 0; k < m->nentries; k++)
            memo_insert(m, m->key[k], (uint32_t)k);
    }
    if (m->nentries == m->entries_cap) {
        size_t cap = m->entries_cap ? 2 * m->entries_cap : 128;
        if (mem_grow((void **)&m->key, cap, sizeof *m->key) < 0 ||
            mem_grow((void **)&m->at, cap, sizeof *m->at) < 0 ||
            mem_grow((void **)&m->cnt, cap * (size_t)m->nouts + 1, sizeof *m->cnt) < 0)
            return -1;
        m->entries_cap = cap;
    }
    if (m->nmoves + moves > m->moves_cap) {
        size_t cap = m->moves_cap ? 2 * m->moves_cap : 1024;
        while (cap < m->nmoves + moves)
            cap *= 2;
        if (mem_grow((void **)&m->tr, cap, sizeof *m->tr) < 0 ||
            mem_grow((void **)&m->mask, cap * (size_t)nw, sizeof *m->mask) < 0)
            return -1;
        m->moves_cap = cap;
    }
    return 0;
}

/* Keep what the walk of m's subtree just pushed outside, as key's entry.
 * A memo short of memory or over MEMO_MAX_MOVES keeps nothing more: it
 * only saves work, so walking instead is always right. */
static void memo_keep(pepa_enum *e, memo *m, uint64_t key)
{
    const int nw = e->nw;
    size_t moves = 0;
    for (int b = 0; b < m->nouts; b++)
        moves += e->buf[m->outs[b]].n - m->len0[b];
    if (m->nmoves + moves > MEMO_MAX_MOVES || m->nentries >= UINT32_MAX - 1 ||
        memo_reserve(m, moves, nw) < 0) {
        m->full = 1;
        return;
    }
    size_t k = m->nentries++;
    m->key[k] = key;
    m->at[k] = m->nmoves;
    for (int b = 0; b < m->nouts; b++) {
        const tbuf *bf = &e->buf[m->outs[b]];
        size_t c = bf->n - m->len0[b];
        m->cnt[k * (size_t)m->nouts + (size_t)b] = (uint32_t)c;
        if (c == 0)
            continue;                           /* (a buffer never used has no arrays) */
        memcpy(m->tr + m->nmoves, bf->t + m->len0[b], c * sizeof *m->tr);
        memcpy(m->mask + m->nmoves * (size_t)nw, bf->mask + m->len0[b] * (size_t)nw,
               c * (size_t)nw * sizeof *m->mask);
        m->nmoves += c;
    }
    memo_insert(m, key, (uint32_t)k);
}

/* Push entry k's moves, as the walk did. */
static int memo_replay(pepa_enum *e, const memo *m, long k, diag *err)
{
    const int nw = e->nw;
    size_t at = m->at[k];
    for (int b = 0; b < m->nouts; b++) {
        size_t c = m->cnt[(size_t)k * (size_t)m->nouts + (size_t)b];
        tbuf *bf = &e->buf[m->outs[b]];
        if (c == 0)
            continue;                           /* (an entry with no moves has no arrays) */
        if (reserve(bf, bf->n + c, nw) < 0)
            return oom(err);
        memcpy(bf->t + bf->n, m->tr + at, c * sizeof *m->tr);
        memcpy(bf->mask + bf->n * (size_t)nw, m->mask + at * (size_t)nw, c * (size_t)nw * sizeof *m->mask);
        bf->n += c;
        at += c;
    }
    return 0;
}

/* The moves of m's subtree in state st: replayed, or walked and kept. */
static int gen_memo(pepa_enum *e, memo *m, const uint64_t *st, diag *err)
{
    uint64_t key = st[m->word] & m->bits;
    long k = m->off ? -1 : memo_find(m, key);
    if (k >= 0) {
        m->hits++;
        return memo_replay(e, m, k, err);
    }
    for (int b = 0; b < m->nouts; b++)
        m->len0[b] = e->buf[m->outs[b]].n;
    for (int p = m->lo; p <= m->hi; p++)
        if (gen_node(e, e->post[p], st, err) < 0)
            return -1;
    if (m->off)
        return 0;
    if (++m->misses >= MEMO_TRIAL && m->hits < m->misses) {
        memo_drop(m);                           /* keeping costs more than it saves */
        m->off = 1;
    } else if (!m->full)
        memo_keep(e, m, key);
    return 0;
}

/* Forget every memo: the rates they hold are stale. */
static void memos_clear(pepa_enum *e)
{
    for (int i = 0; i < e->nmemos; i++) {
        memo *m = &e->memos[i];
        m->nentries = m->nmoves = 0;
        m->full = m->off = 0;
        m->hits = m->misses = 0;
        if (m->slot)
            memset(m->slot, 0, m->slot_cap * sizeof *m->slot);
    }
    e->rates_version = e->s->rates_version;
}

/* ---- a state's transitions ---------------------------------------------- */

/* The component performing a passive activity that no cooperation
 * synchronised: the one whose local state the transition's mask changes,
 * or for a self-loop the first with a passive move on the action. */
static const char *mover(const pepa_system *s, int action, const uint64_t *mask)
{
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        int nf = nd->kind == PEPA_N_ARRAY ? s->seqs[nd->seq].nstates : 1;
        for (int k = 0; k < nf; k++)
            if (pepa_field_get(mask, nd->kind == PEPA_N_ARRAY ? nd->fields[k] : nd->field))
                return nd->name;
    }
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_seq *q = &s->seqs[s->nodes[s->leaves[i]].seq];
        for (int j = 0; j < q->first[q->nstates]; j++)
            if (q->moves[j].action == action && q->moves[j].passive)
                return s->nodes[s->leaves[i]].name;
    }
    return NULL;
}

/* A passive activity reached the top level: whether or not other
 * components perform the action actively, none cooperates with this one on
 * it (issue 17: the message said "passive in every component" where
 * another component performed it actively, in parallel). */
static int passive_at_top(const pepa_system *s, int action, const uint64_t *mask, diag *err)
{
    const char *who = mover(s, action, mask), *a = pepa_model_action(s->model, action);
    return diag_set(err, "%s: %s%s%sperforms '%s' passively, and no cooperation on '%s' joins it to an "
                    "active partner, so the rate of this activity is undefined (put '%s' in the "
                    "cooperation set between it and a component that performs '%s' actively, or give "
                    "it a rate)", pepa_model_file(s->model), who ? "component " : "a component ",
                    who ? who : "", who ? " " : "", a, a, a, a);
}

long pepa_enum_state(pepa_enum *e, const uint64_t *st, const pepa_tr **tr,
                     const uint64_t **mask, diag *err)
{
    const pepa_system *s = e->s;
    if (e->rates_version != s->rates_version)
        memos_clear(e);
    e->buf[OUT].n = 0;
    for (int k = 0; k < s->nnodes; k++) {
        int rc;
        if (e->memo_at[k] >= 0) {
            memo *m = &e->memos[e->memo_at[k]];
            rc = gen_memo(e, m, st, err);
            k = m->hi;
        } else {
            rc = gen_node(e, e->post[k], st, err);
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
            return passive_at_top(s, b->t[i].action, b->mask + i * (size_t)s->nwords, err);
    *tr = b->t;
    *mask = b->mask;
    return (long)b->n;
}
