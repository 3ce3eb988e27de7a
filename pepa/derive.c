/* pepa_derive: breadth-first exploration of the reachable states and the
 * CTMC (transposed, as solvers read it). See space.h.
 *
 * The work is split in two halves that can run on two cores:
 *   - the enumerator takes a chunk of known states and lists their
 *     transitions: target vector, its hash, rate (enum.c does the
 *     semantics); it needs nothing but the states themselves;
 *   - the indexer takes the chunks in order, looks each target up in the
 *     hash index (adding new states), merges transitions to the same
 *     target and writes each state's row of outgoing rates.
 * With one thread the two alternate chunk by chunk; with two, they run
 * concurrently with two chunk buffers between them. States live in blocks
 * that never move, so the enumerator can read states while the indexer
 * adds new ones; the count of published states is the only shared
 * variable, read and written under one mutex.
 *
 * The rows are finally transposed into rows by target. The index is
 * dropped before that (solvers do not need it) and rebuilt only when
 * someone asks (pepa_space_index). */
#define _POSIX_C_SOURCE 200809L
#include "space.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "enum.h"
#include "index.h"

#define CHUNK_STATES 2048

/* The transitions of a run of states, as the enumerator hands them over. */
typedef struct chunk {
    uint32_t first, count;        /* states [first, first + count) */
    uint32_t *ntr;                /* per state: transitions listed */
    uint64_t *target;             /* per transition: nw words */
    uint64_t *hash;
    double *rate;
    size_t n, cap;
    uint64_t self_loops;
    uint32_t deadlocks, first_deadlock;
    int failed;
    diag err;
} chunk;

/* The indexer's side: rows by source. */
typedef struct rows {
    uint64_t *rowp;               /* n + 1 */
    uint32_t *col;
    double *val;
    uint64_t nnz, cap, rowp_cap;
    uint32_t *mark;               /* per state: last row that reached it, + 1 */
    uint32_t *pos;                /* per state: where in that row */
} rows;

typedef struct derivation {
    pepa_space *sp;
    const pepa_system *sys;
    uint64_t limit;
    double deadline;
    rows r;
    /* shared between the two threads, under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t published;           /* states the enumerator may read */
    uint32_t indexed;             /* states whose transitions are indexed */
    chunk *chunks[2];             /* both buffers, owned here */
    chunk *full[2];               /* queue: enumerated, not yet indexed */
    chunk *empty[2];              /* free buffers */
    int nfull, nempty;
    int stop;                     /* an error or a limit: both sides stop */
    int done;                     /* the enumerator found nothing left */
    diag err;
} derivation;

static int grow(void **p, uint64_t cap, size_t elem)
{
    void *q = realloc(*p, cap * elem);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* ---- the enumerator's half --------------------------------------------------- */

static int chunk_reserve(chunk *c, size_t need, int nw)
{
    if (need <= c->cap)
        return 0;
    size_t cap = c->cap ? c->cap : 4096;
    while (cap < need)
        cap *= 2;
    if (grow((void **)&c->target, cap, (size_t)nw * sizeof *c->target) < 0 ||
        grow((void **)&c->hash, cap, sizeof *c->hash) < 0 || grow((void **)&c->rate, cap, sizeof *c->rate) < 0)
        return -1;
    c->cap = cap;
    return 0;
}

/* List the transitions of states [first, first + count). */
static void enumerate(const pepa_space *sp, pepa_enum *en, chunk *c, uint32_t first, uint32_t count)
{
    const int nw = sp->nw;
    c->first = first;
    c->count = count;
    c->n = 0;
    c->self_loops = 0;
    c->deadlocks = 0;
    c->failed = 0;
    for (uint32_t s = 0; s < count; s++) {
        const uint64_t *src = pepa_space_state(sp, first + s);
        const pepa_tr *tr;
        const uint64_t *mask;
        long nt = pepa_enum_state(en, src, &tr, &mask, &c->err);
        if (nt < 0 || chunk_reserve(c, c->n + (size_t)nt, nw) < 0) {
            if (nt >= 0)
                diag_set(&c->err, "out of memory while enumerating transitions");
            c->failed = 1;
            return;
        }
        if (nt == 0 && c->deadlocks++ == 0)
            c->first_deadlock = first + s;
        uint32_t kept = 0;
        for (long t = 0; t < nt; t++) {
            const uint64_t *m = mask + (size_t)t * nw;
            uint64_t *tg = c->target + c->n * (size_t)nw, any = 0;
            for (int w = 0; w < nw; w++) {
                tg[w] = src[w] ^ m[w];
                any |= m[w];
            }
            if (!any) {
                c->self_loops++;
                continue;
            }
            /* the same target as the transition before (one component
             * offering several actions into one state): merge here,
             * sparing the indexer a lookup */
            if (kept > 0 && pepa_same_state(tg - nw, tg, nw)) {
                c->rate[c->n - 1] += tr[t].rate;
                continue;
            }
            c->hash[c->n] = pepa_hash_state(tg, nw);
            c->rate[c->n++] = tr[t].rate;
            kept++;
        }
        c->ntr[s] = kept;
    }
}

/* ---- the indexer's half -------------------------------------------------------- */

/* The number of state st (hash h), adding it if new; -1 out of memory,
 * -2 over the limit. Only the indexer calls this. */
static int64_t find_or_add(derivation *d, const uint64_t *st, uint64_t h)
{
    pepa_space *sp = d->sp;
    rows *r = &d->r;
    int nw = sp->nw;
    uint64_t i = pepa_probe(sp, st, h);
    if (sp->index[i].id)
        return sp->index[i].id - 1;
    if ((uint64_t)sp->n >= d->limit)
        return -2;
    uint32_t k = sp->n;
    if ((k & (PEPA_BLOCK_STATES - 1)) == 0) {
        uint64_t *b = malloc((size_t)PEPA_BLOCK_STATES * (size_t)nw * sizeof *b);
        if (!b || grow((void **)&r->mark, (uint64_t)k + PEPA_BLOCK_STATES, sizeof *r->mark) < 0 ||
            grow((void **)&r->pos, (uint64_t)k + PEPA_BLOCK_STATES, sizeof *r->pos) < 0) {
            free(b);
            return -1;
        }
        sp->blocks[k >> PEPA_BLOCK_SHIFT] = b;
    }
    memcpy((uint64_t *)pepa_space_state(sp, k), st, (size_t)nw * sizeof *st);
    r->mark[k] = 0;
    sp->index[i] = (pepa_slot){ pepa_slot_key(st, nw, h), k + 1 };
    sp->n++;
    if (2 * (uint64_t)sp->n > sp->index_cap && pepa_index_resize(sp, 2 * sp->index_cap) < 0)
        return -1;
    return k;
}

/* Index one chunk: new states, and one row of rates per state. */
static int index_chunk(derivation *d, const chunk *c)
{
    pepa_space *sp = d->sp;
    rows *r = &d->r;
    const int nw = sp->nw;
    const uint64_t imask = sp->index_cap - 1;
    if (c->failed) {
        diag_set(&d->err, "%s", c->err.msg);
        return -1;
    }
    sp->self_loops += c->self_loops;
    if (c->deadlocks && sp->deadlocks == 0)
        sp->first_deadlock = c->first_deadlock;
    sp->deadlocks += c->deadlocks;
    if (r->nnz + c->n > r->cap) {
        uint64_t cap = r->cap + r->cap / 2 + c->n + 4096;
        if (grow((void **)&r->col, cap, sizeof *r->col) < 0 || grow((void **)&r->val, cap, sizeof *r->val) < 0)
            return diag_set(&d->err, "out of memory while deriving the state space (%u states)", sp->n);
        r->cap = cap;
    }
    if ((uint64_t)c->first + c->count + 1 > r->rowp_cap) {
        uint64_t cap = r->rowp_cap + r->rowp_cap / 2 + c->count + 4096;
        if (grow((void **)&r->rowp, cap, sizeof *r->rowp) < 0)
            return diag_set(&d->err, "out of memory while deriving the state space (%u states)", sp->n);
        r->rowp_cap = cap;
    }
    size_t t = 0;
    for (uint32_t s = 0; s < c->count; s++) {
        uint32_t i = c->first + s;
        uint64_t row = r->nnz;
        size_t end = t + c->ntr[s];
        for (size_t p = t; p < end; p++)           /* overlap the cache misses */
            __builtin_prefetch(&sp->index[c->hash[p] & imask]);
        for (; t < end; t++) {
            int64_t j = find_or_add(d, c->target + t * (size_t)nw, c->hash[t]);
            if (j == -1)
                return diag_set(&d->err, "out of memory while deriving the state space (%u states)", sp->n);
            if (j == -2)
                return diag_set(&d->err, "%s: the state space has more than %llu states (the limit; raise it "
                                "with --max-states)", pepa_model_file(d->sys->model),
                                (unsigned long long)d->limit);
            if (r->mark[j] == i + 1) {               /* same target again: rates add up */
                r->val[row + r->pos[j]] += c->rate[t];
                continue;
            }
            r->mark[j] = i + 1;
            r->pos[j] = (uint32_t)(r->nnz - row);
            r->col[r->nnz] = (uint32_t)j;
            r->val[r->nnz++] = c->rate[t];
        }
        r->rowp[i + 1] = r->nnz;
    }
    if (d->deadline && clock_now() > d->deadline)
        return diag_set(&d->err, "%s: state-space derivation exceeded its time limit after %u states",
                        pepa_model_file(d->sys->model), sp->n);
    return 0;
}

/* ---- the two halves together --------------------------------------------------- */

/* The enumerator's loop (a thread of its own, or nothing when single). */
static void *enumerator(void *arg)
{
    derivation *d = arg;
    pepa_enum *en = pepa_enum_new(d->sys);
    uint32_t next = 0;
    pthread_mutex_lock(&d->lock);
    if (!en) {
        diag_set(&d->err, "out of memory");
        d->stop = 1;
    }
    while (!d->stop) {
        /* wait for a free buffer and either new states or the end */
        while (!d->stop && (d->nempty == 0 || (next == d->published && d->indexed != next)))
            pthread_cond_wait(&d->cond, &d->lock);
        if (d->stop)
            break;
        if (next == d->published) {                /* all indexed, none new */
            d->done = 1;
            break;
        }
        uint32_t count = d->published - next;
        if (count > CHUNK_STATES)
            count = CHUNK_STATES;
        chunk *c = d->empty[--d->nempty];
        pthread_mutex_unlock(&d->lock);
        enumerate(d->sp, en, c, next, count);
        next += count;
        pthread_mutex_lock(&d->lock);
        d->full[d->nfull++] = c;
        pthread_cond_broadcast(&d->cond);
    }
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
    pepa_enum_free(en);
    return NULL;
}

/* The indexer's loop, on the calling thread. */
static void indexer(derivation *d)
{
    pthread_mutex_lock(&d->lock);
    while (1) {
        while (!d->stop && !d->done && d->nfull == 0)
            pthread_cond_wait(&d->cond, &d->lock);
        if (d->stop || d->nfull == 0)
            break;
        chunk *c = d->full[0];
        d->full[0] = d->full[1];
        d->nfull--;
        pthread_mutex_unlock(&d->lock);
        int rc = index_chunk(d, c);
        pthread_mutex_lock(&d->lock);
        d->empty[d->nempty++] = c;
        d->published = d->sp->n;
        d->indexed = c->first + c->count;
        if (rc < 0)
            d->stop = 1;
        pthread_cond_broadcast(&d->cond);
    }
    pthread_mutex_unlock(&d->lock);
}

/* Single-threaded: enumerate a chunk, index it, repeat. */
static void alternate(derivation *d)
{
    pepa_enum *en = pepa_enum_new(d->sys);
    chunk *c = d->chunks[0];
    if (!en) {
        diag_set(&d->err, "out of memory");
        d->stop = 1;
    }
    for (uint32_t next = 0; !d->stop && next < d->sp->n;) {
        uint32_t count = d->sp->n - next < CHUNK_STATES ? d->sp->n - next : CHUNK_STATES;
        enumerate(d->sp, en, c, next, count);
        next += count;
        if (index_chunk(d, c) < 0)
            d->stop = 1;
    }
    pepa_enum_free(en);
}

/* Transpose the by-source rows into the CTMC's by-target rows. Sources
 * are visited in increasing order, so every row comes out sorted. With two
 * threads the sources are split in halves: the second half's entries of
 * row j start after the first half's, so each half scatters into its own
 * positions and the result is the same. */
typedef struct scatter {
    const rows *r;
    pepa_ctmc *q;
    uint32_t from, to;              /* sources */
    uint64_t *next;                 /* per target: next free position */
} scatter;

static void *scatter_half(void *arg)
{
    scatter *h = arg;
    const rows *r = h->r;
    pepa_ctmc *q = h->q;
    for (uint32_t i = h->from; i < h->to; i++) {
        double out = 0;
        for (uint64_t k = r->rowp[i]; k < r->rowp[i + 1]; k++) {
            uint64_t s = h->next[r->col[k]]++;
            q->col[s] = i;
            q->val[s] = r->val[k];
            out += r->val[k];
        }
        q->out[i] = out;
    }
    return NULL;
}

static pepa_ctmc *transpose(uint32_t n, const rows *r, int threads)
{
    pepa_ctmc *q = pepa_ctmc_new(n, r->nnz);
    uint64_t *next = malloc(((size_t)n + 1) * sizeof *next);
    uint64_t *next2 = threads > 1 ? malloc(((size_t)n + 1) * sizeof *next2) : NULL;
    if (!q || !next || (threads > 1 && !next2)) {
        pepa_ctmc_free(q);
        free(next);
        free(next2);
        return NULL;
    }
    for (uint64_t k = 0; k < r->nnz; k++)
        q->rowp[r->col[k] + 1]++;
    for (uint32_t j = 0; j < n; j++)
        q->rowp[j + 1] += q->rowp[j];
    memcpy(next, q->rowp, (size_t)n * sizeof *next);
    scatter h[2] = { { r, q, 0, n, next }, { r, q, n, n, next2 } };
    pthread_t th;
    if (next2) {
        h[0].to = h[1].from = n / 2;
        memcpy(next2, q->rowp, (size_t)n * sizeof *next2);
        for (uint64_t k = 0; k < r->rowp[n / 2]; k++)
            next2[r->col[k]]++;                  /* skip the first half's entries */
        if (pthread_create(&th, NULL, scatter_half, &h[1]) != 0) {
            scatter_half(&h[1]);                 /* no thread: do both halves here */
            next2 = NULL;
        }
    }
    scatter_half(&h[0]);
    if (next2)
        pthread_join(th, NULL);
    free(h[1].next);
    free(next);
    return q;
}

static void rows_free(rows *r)
{
    free(r->rowp);
    free(r->col);
    free(r->val);
    free(r->mark);
    free(r->pos);
    memset(r, 0, sizeof *r);
}

static chunk *chunk_new(void)
{
    chunk *c = calloc(1, sizeof *c);
    if (c && !(c->ntr = malloc(CHUNK_STATES * sizeof *c->ntr))) {
        free(c);
        c = NULL;
    }
    return c;
}

static void chunk_free(chunk *c)
{
    if (!c)
        return;
    free(c->ntr);
    free(c->target);
    free(c->hash);
    free(c->rate);
    free(c);
}

pepa_space *pepa_derive(const pepa_system *s, const pepa_derive_opts *opts, diag *err)
{
    derivation d = { .sys = s };
    d.limit = opts && opts->max_states ? opts->max_states : UINT32_MAX - 1;
    if (d.limit > UINT32_MAX - 1)
        d.limit = UINT32_MAX - 1;
    d.deadline = opts && opts->time_limit > 0 ? clock_now() + opts->time_limit : 0;
    int threads = opts && opts->threads == 1 ? 1 : 2;
    pepa_space *sp = d.sp = calloc(1, sizeof *sp);
    d.empty[0] = d.chunks[0] = chunk_new();
    d.empty[1] = d.chunks[1] = chunk_new();
    d.nempty = 2;
    if (!sp || !d.chunks[0] || !d.chunks[1] || !(sp->blocks = calloc(PEPA_MAX_BLOCKS, sizeof *sp->blocks)))
        goto oom;
    sp->sys = s;
    sp->nw = s->nwords;
    if (pepa_index_resize(sp, 1024) < 0 ||
        grow((void **)&d.r.rowp, 4096, sizeof *d.r.rowp) < 0)
        goto oom;
    d.r.rowp_cap = 4096;
    d.r.rowp[0] = 0;
    if (find_or_add(&d, s->init, pepa_hash_state(s->init, sp->nw)) < 0)
        goto oom;
    d.published = 1;
    if (threads == 1) {
        alternate(&d);
    } else {
        pthread_t th;
        pthread_mutex_init(&d.lock, NULL);
        pthread_cond_init(&d.cond, NULL);
        if (pthread_create(&th, NULL, enumerator, &d) != 0) {
            alternate(&d);                         /* no thread to be had: do it alone */
        } else {
            indexer(&d);
            pthread_join(th, NULL);
        }
        pthread_cond_destroy(&d.cond);
        pthread_mutex_destroy(&d.lock);
    }
    chunk_free(d.chunks[0]);
    chunk_free(d.chunks[1]);
    d.chunks[0] = d.chunks[1] = NULL;
    if (d.stop || d.err.set) {
        diag_set(err, "%s", d.err.set ? d.err.msg : "derivation stopped");
        goto fail;
    }
    free(sp->index);
    sp->index = NULL;
    sp->index_cap = 0;
    free(d.r.mark);
    free(d.r.pos);
    d.r.mark = d.r.pos = NULL;
    sp->q = transpose(sp->n, &d.r, threads);
    rows_free(&d.r);
    if (!sp->q)
        goto oom;
    return sp;
oom:
    diag_set(err, "out of memory while deriving the state space (%u states so far)", sp ? sp->n : 0);
fail:
    chunk_free(d.chunks[0]);
    chunk_free(d.chunks[1]);
    rows_free(&d.r);
    pepa_space_free(sp);
    return NULL;
}
