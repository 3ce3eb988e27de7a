/* pepa_derive: breadth-first exploration of the reachable states and the
 * CTMC (transposed, as solvers read it). See space.h.
 *
 * States are bit-packed vectors kept in one array. A hash index (open
 * addressing, linear probing, load <= 1/2) maps a vector to its number; a
 * slot keeps the vector itself when it fits one word, else its hash, so a
 * lookup usually touches one cache line. The targets of one state are
 * hashed and prefetched together before they are probed, so their cache
 * misses overlap.
 *
 * Exploration writes each state's outgoing rates by source; the chain is
 * then transposed into rows by target. The index is dropped before that
 * (solvers do not need it) and rebuilt only if someone asks for it. */
#include "space.h"

#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "enum.h"

typedef struct pepa_slot {
    uint64_t key;             /* the state (one word) or its hash */
    uint32_t id;              /* state number + 1; 0 = empty */
} pepa_slot;

static inline uint64_t hash_state(const uint64_t *st, int nw)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int w = 0; w < nw; w++) {
        uint64_t x = st[w] + h;
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        x ^= x >> 31;
        h = x;
    }
    return h;
}

static inline uint64_t slot_key(const uint64_t *st, int nw, uint64_t h)
{
    return nw == 1 ? st[0] : h;
}

static inline int same_state(const uint64_t *a, const uint64_t *b, int nw)
{
    for (int w = 0; w < nw; w++)
        if (a[w] != b[w])
            return 0;
    return 1;
}

/* The slot holding st, or the empty slot where it would go. */
static inline uint64_t probe(const pepa_space *sp, const uint64_t *st, uint64_t h)
{
    uint64_t mask = sp->index_cap - 1, key = slot_key(st, sp->nw, h);
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        const pepa_slot *s = &sp->index[i];
        if (s->id == 0)
            return i;
        if (s->key == key && (sp->nw == 1 || same_state(sp->states + (size_t)(s->id - 1) * sp->nw, st, sp->nw)))
            return i;
    }
}

static int index_resize(pepa_space *sp, uint64_t cap)
{
    pepa_slot *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return -1;
    free(sp->index);
    sp->index = idx;
    sp->index_cap = cap;
    for (uint32_t k = 0; k < sp->n; k++) {
        const uint64_t *st = sp->states + (size_t)k * sp->nw;
        uint64_t h = hash_state(st, sp->nw), i = probe(sp, st, h);
        idx[i] = (pepa_slot){ slot_key(st, sp->nw, h), k + 1 };
    }
    return 0;
}

int pepa_space_index(pepa_space *sp, diag *err)
{
    if (sp->index)
        return 0;
    uint64_t cap = 1024;
    while (cap < 2 * (uint64_t)sp->n)
        cap *= 2;
    if (index_resize(sp, cap) < 0)
        return diag_set(err, "out of memory while indexing %u states", sp->n);
    return 0;
}

int64_t pepa_space_find(const pepa_space *sp, const uint64_t *st)
{
    return (int64_t)sp->index[probe(sp, st, hash_state(st, sp->nw))].id - 1;
}

/* ---- exploration ------------------------------------------------------- */

typedef struct explore {
    uint64_t states_cap;          /* in states */
    uint64_t *rowp;               /* out-edges of each state, by source */
    uint32_t *col;
    double *val;
    uint64_t nnz, nnz_cap;
    uint32_t *mark;               /* last row that reached each state, + 1 */
    uint32_t *pos;                /* where in that row */
    uint64_t *target;             /* scratch: targets of one state */
    uint64_t *hash;
    size_t scratch_cap;
} explore;

static int grow(void **p, uint64_t cap, size_t elem)
{
    void *q = realloc(*p, cap * elem);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* The number of state st (hash h), adding it if new; -1 out of memory,
 * -2 over the limit. */
static int64_t find_or_add(pepa_space *sp, explore *x, const uint64_t *st, uint64_t h, uint64_t limit)
{
    int nw = sp->nw;
    uint64_t i = probe(sp, st, h);
    if (sp->index[i].id)
        return sp->index[i].id - 1;
    if ((uint64_t)sp->n >= limit)
        return -2;
    if (sp->n == x->states_cap) {
        uint64_t cap = x->states_cap + x->states_cap / 2 + 1024;
        if (grow((void **)&sp->states, cap, (size_t)nw * sizeof *st) < 0 ||
            grow((void **)&x->mark, cap, sizeof *x->mark) < 0 ||
            grow((void **)&x->pos, cap, sizeof *x->pos) < 0 ||
            grow((void **)&x->rowp, cap + 1, sizeof *x->rowp) < 0)
            return -1;
        x->states_cap = cap;
    }
    uint32_t k = sp->n++;
    memcpy(sp->states + (size_t)k * nw, st, (size_t)nw * sizeof *st);
    x->mark[k] = 0;
    sp->index[i] = (pepa_slot){ slot_key(st, nw, h), k + 1 };
    if (2 * (uint64_t)sp->n > sp->index_cap && index_resize(sp, 2 * sp->index_cap) < 0)
        return -1;
    return k;
}

/* Transpose the by-source rows into the CTMC's by-target rows. Sources
 * are visited in increasing order, so every row comes out sorted. */
static pepa_ctmc *transpose(uint32_t n, const explore *x)
{
    pepa_ctmc *q = pepa_ctmc_new(n, x->nnz);
    uint64_t *next = malloc(((size_t)n + 1) * sizeof *next);
    if (!q || !next) {
        pepa_ctmc_free(q);
        free(next);
        return NULL;
    }
    for (uint64_t k = 0; k < x->nnz; k++)
        q->rowp[x->col[k] + 1]++;
    for (uint32_t j = 0; j < n; j++)
        q->rowp[j + 1] += q->rowp[j];
    memcpy(next, q->rowp, (size_t)n * sizeof *next);
    for (uint32_t i = 0; i < n; i++) {
        double out = 0;
        for (uint64_t k = x->rowp[i]; k < x->rowp[i + 1]; k++) {
            uint64_t s = next[x->col[k]]++;
            q->col[s] = i;
            q->val[s] = x->val[k];
            out += x->val[k];
        }
        q->out[i] = out;
    }
    free(next);
    return q;
}

static void explore_free(explore *x)
{
    free(x->rowp);
    free(x->col);
    free(x->val);
    free(x->mark);
    free(x->pos);
    free(x->target);
    free(x->hash);
    memset(x, 0, sizeof *x);
}

/* Record the transitions of state i; returns 0, -1 (memory, limit: message
 * in err). */
static int explore_state(pepa_space *sp, explore *x, pepa_enum *en, uint32_t i, uint64_t limit, diag *err)
{
    const int nw = sp->nw;
    const pepa_tr *tr;
    const uint64_t *mask;
    long nt = pepa_enum_state(en, sp->states + (size_t)i * nw, &tr, &mask, err);
    if (nt < 0)
        return -1;
    if (nt == 0 && sp->deadlocks++ == 0)
        sp->first_deadlock = i;
    if ((size_t)nt > x->scratch_cap) {
        size_t cap = (size_t)nt * 2;
        if (grow((void **)&x->target, cap, (size_t)nw * sizeof *x->target) < 0 ||
            grow((void **)&x->hash, cap, sizeof *x->hash) < 0)
            return diag_set(err, "out of memory");
        x->scratch_cap = cap;
    }
    if (x->nnz + (uint64_t)nt > x->nnz_cap) {
        uint64_t cap = x->nnz_cap + x->nnz_cap / 2 + (uint64_t)nt + 4096;
        if (grow((void **)&x->col, cap, sizeof *x->col) < 0 || grow((void **)&x->val, cap, sizeof *x->val) < 0)
            return diag_set(err, "out of memory");
        x->nnz_cap = cap;
    }
    /* targets and hashes first, with prefetches, then the probes */
    const uint64_t *src = sp->states + (size_t)i * nw;
    const uint64_t imask = sp->index_cap - 1;
    for (long t = 0; t < nt; t++) {
        uint64_t *tg = x->target + (size_t)t * nw, any = 0;
        for (int w = 0; w < nw; w++) {
            tg[w] = src[w] ^ mask[(size_t)t * nw + w];
            any |= mask[(size_t)t * nw + w];
        }
        x->hash[t] = any ? hash_state(tg, nw) : 0;
        if (any)
            __builtin_prefetch(&sp->index[x->hash[t] & imask]);
    }
    uint64_t row = x->nnz;
    for (long t = 0; t < nt; t++) {
        const uint64_t *tg = x->target + (size_t)t * nw;
        if (same_state(tg, src, nw)) {
            sp->self_loops++;
            continue;
        }
        int64_t j = find_or_add(sp, x, tg, x->hash[t], limit);
        if (j == -1)
            return diag_set(err, "out of memory");
        if (j == -2)
            return diag_set(err, "%s: the state space has more than %llu states (the limit; raise it "
                            "with --max-states)", pepa_model_file(sp->sys->model), (unsigned long long)limit);
        if (x->mark[j] == i + 1) {             /* same target again: rates add up */
            x->val[row + x->pos[j]] += tr[t].rate;
            continue;
        }
        x->mark[j] = i + 1;
        x->pos[j] = (uint32_t)(x->nnz - row);
        x->col[x->nnz] = (uint32_t)j;
        x->val[x->nnz++] = tr[t].rate;
    }
    x->rowp[i + 1] = x->nnz;
    return 0;
}

pepa_space *pepa_derive(const pepa_system *s, const pepa_derive_opts *opts, diag *err)
{
    uint64_t limit = opts && opts->max_states ? opts->max_states : UINT32_MAX - 1;
    if (limit > UINT32_MAX - 1)
        limit = UINT32_MAX - 1;
    double deadline = opts && opts->time_limit > 0 ? clock_now() + opts->time_limit : 0;
    pepa_space *sp = calloc(1, sizeof *sp);
    explore x = { 0 };
    pepa_enum *en = pepa_enum_new(s);
    if (!sp || !en)
        goto oom;
    sp->sys = s;
    sp->nw = s->nwords;
    if (index_resize(sp, 1024) < 0 || find_or_add(sp, &x, s->init, hash_state(s->init, sp->nw), limit) < 0)
        goto oom;
    x.rowp[0] = 0;
    for (uint32_t i = 0; i < sp->n; i++) {
        if (explore_state(sp, &x, en, i, limit, err) < 0)
            goto fail;
        if (deadline && (i & 4095) == 0 && clock_now() > deadline) {
            diag_set(err, "%s: state-space derivation exceeded its time limit after %u states",
                     pepa_model_file(s->model), sp->n);
            goto fail;
        }
    }
    pepa_enum_free(en);
    en = NULL;
    free(sp->index);
    sp->index = NULL;
    sp->index_cap = 0;
    free(x.mark);
    free(x.pos);
    x.mark = NULL;
    x.pos = NULL;
    sp->q = transpose(sp->n, &x);
    explore_free(&x);
    if (!sp->q)
        goto oom;
    return sp;
oom:
    diag_set(err, "out of memory while deriving the state space (%u states so far)", sp ? sp->n : 0);
fail:
    pepa_enum_free(en);
    explore_free(&x);
    pepa_space_free(sp);
    return NULL;
}

/* ---- re-rating ---------------------------------------------------------- */

/* Position of source i in row j of q (rows are sorted by source). */
static uint64_t slot_of(const pepa_ctmc *q, uint32_t j, uint32_t i)
{
    uint64_t lo = q->rowp[j], hi = q->rowp[j + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (q->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int pepa_space_rate(pepa_space *sp, diag *err)
{
    pepa_ctmc *q = sp->q;
    const int nw = sp->nw;
    uint64_t target[PEPA_MAX_WORDS];
    if (pepa_space_index(sp, err) < 0)
        return -1;
    pepa_enum *en = pepa_enum_new(sp->sys);
    if (!en)
        return diag_set(err, "out of memory");
    memset(q->val, 0, q->nnz * sizeof *q->val);
    memset(q->out, 0, (size_t)q->n * sizeof *q->out);
    for (uint32_t i = 0; i < sp->n; i++) {
        const uint64_t *src = sp->states + (size_t)i * nw;
        const pepa_tr *tr;
        const uint64_t *mask;
        long nt = pepa_enum_state(en, src, &tr, &mask, err);
        if (nt < 0) {
            pepa_enum_free(en);
            return -1;
        }
        for (long t = 0; t < nt; t++) {
            for (int w = 0; w < nw; w++)
                target[w] = src[w] ^ mask[(size_t)t * nw + w];
            if (same_state(target, src, nw))
                continue;
            int64_t j = pepa_space_find(sp, target);
            uint64_t k = j < 0 ? 0 : slot_of(q, (uint32_t)j, i);
            if (j < 0 || k >= q->rowp[j + 1] || q->col[k] != i) {
                pepa_enum_free(en);
                return diag_set(err, "internal error: re-rating found a transition that derivation did not");
            }
            q->val[k] += tr[t].rate;
            q->out[i] += tr[t].rate;
        }
    }
    pepa_enum_free(en);
    return 0;
}

void pepa_space_free(pepa_space *sp)
{
    if (!sp)
        return;
    pepa_ctmc_free(sp->q);
    free(sp->index);
    free(sp->states);
    free(sp);
}

void pepa_space_print_state(const pepa_space *sp, uint32_t k, FILE *f)
{
    pepa_state_print(sp->sys, sp->states + (size_t)k * sp->nw, f);
}
