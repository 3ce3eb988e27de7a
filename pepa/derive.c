/* pepa_derive: breadth-first exploration of the reachable states and the
 * CTMC (transposed, as solvers read it). See space.h.
 *
 * The work is split in two halves:
 *   - enumerating takes a chunk of known states and lists their
 *     transitions: target vector, its hash, rate (enum.c does the
 *     semantics), with the transitions of one state to one target merged;
 *     it needs nothing but the states themselves;
 *   - indexing takes the chunks in order, looks each target up in the
 *     hash index (adding new states), counts the target's in-degree in its
 *     slot and writes each state's row of outgoing rates.
 * With two threads, a helper enumerates chunk after chunk while the
 * calling thread indexes them in order, enumerating a chunk itself
 * whenever the next one is not ready: the two share the work whichever
 * half is heavier. With one thread, the caller does both. States live in
 * blocks that never move, so one thread can read states while the other
 * adds new ones; the counts of published, claimed and indexed states and
 * the chunk queues are the only shared variables, under one mutex.
 *
 * The rows are finally transposed into rows by target, sized by the
 * in-degrees. The index is dropped then (solvers do not need it) and
 * rebuilt only when someone asks (pepa_space_index). */
#define _POSIX_C_SOURCE 200809L
#include "space.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/mem.h"
#include "internal.h"

#define CHUNK_STATES 2048
#define NCHUNKS 4                 /* buffers: one per thread enumerating, two queued */
#define DEADLINE_EVERY 32         /* states enumerated between checks of the deadline */
#define INDEX_EVERY 1024          /* transitions indexed between checks of the deadline */
/* An index resize cannot be stopped: it allocates and fills cap slots,
 * measured at up to 2e-7 s a slot (262,144 slots: 40-60 ms on the loaded
 * 2-core machine, most of it page faults). Under a deadline a resize
 * predicted to end past it is not started: the derivation stops late. */
#define RESIZE_SECS_PER_SLOT 2e-7
#define PREFETCH_AHEAD 16         /* transitions between a slot's prefetch and its lookup */

/* The transitions of a run of states, as the enumerator hands them over.
 * Its rows (rates, and room for the targets' numbers) are a new block,
 * which the indexer keeps: allocated, filled and its pages faulted in by
 * whichever thread enumerates, not by the busier indexer. */
typedef struct chunk {
    uint32_t first, count;        /* states [first, first + count) */
    uint32_t *ntr;                /* per state: transitions listed */
    uint64_t *target;             /* per transition: nw words */
    uint64_t *hash;
    double *rate;
    size_t n, cap;
    double *rows;                 /* n rates, then n column slots (uint32) */
    uint64_t *seen;               /* one state's targets by hash: stamp << 32 | position */
    uint64_t seen_cap;            /* power of two */
    uint32_t stamp;               /* the state being listed; 0 marks a free entry */
    uint64_t self_loops;
    uint32_t deadlocks, first_deadlock;
    int failed;
    int late;                     /* stopped by the deadline */
    diag err;
} chunk;

/* The rows of one chunk's states: entries [base, base + n) of the rows,
 * in the chunk's block. */
typedef struct segment {
    uint32_t first, count;        /* states */
    uint64_t base;
    double *val;                  /* rates: the block */
    uint32_t *col;                /* targets: in the block, after the rates */
} segment;

/* The indexer's side: rows by source, kept in the chunks' own arrays. */
typedef struct rows {
    uint64_t *rowp;               /* n + 1 global entry offsets */
    uint64_t nnz, rowp_cap;
    segment *seg;
    size_t nseg, seg_cap;
} rows;

typedef struct derivation {
    pepa_space *sp;
    const pepa_system *sys;
    uint64_t limit;
    double deadline;
    int merge;                    /* a state's transitions may share targets */
    rows r;
    /* shared between the threads, under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t published;           /* states that may be enumerated */
    uint32_t claimed;             /* states handed out for enumeration */
    uint32_t indexed;             /* states whose transitions are indexed */
    chunk *chunks[NCHUNKS];       /* all buffers, owned here */
    chunk *ready[NCHUNKS];        /* enumerated, not yet indexed, by first state */
    chunk *empty[NCHUNKS];        /* free buffers */
    int nready, nempty;
    int stop;                     /* an error or a limit: everybody stops */
    int done;                     /* every state is enumerated and indexed */
    diag err;
} derivation;

/* ---- the enumerator's half --------------------------------------------------- */

static int chunk_reserve(chunk *c, size_t need, int nw)
{
    if (need <= c->cap)
        return 0;
    size_t cap = c->cap ? c->cap : 4096;
    while (cap < need)
        cap *= 2;
    if (mem_grow((void **)&c->target, cap, (size_t)nw * sizeof *c->target) < 0 ||
        mem_grow((void **)&c->hash, cap, sizeof *c->hash) < 0 || mem_grow((void **)&c->rate, cap, sizeof *c->rate) < 0)
        return -1;
    c->cap = cap;
    return 0;
}

/* The block of the run's rows: its rates, and zeroed column slots. */
static int rows_ready(chunk *c)
{
    if (!(c->rows = malloc((c->n ? c->n : 1) * (sizeof *c->rows + sizeof(uint32_t)))))
        return -1;
    memcpy(c->rows, c->rate, c->n * sizeof *c->rows);
    memset(c->rows + c->n, 0, c->n * sizeof(uint32_t));   /* its page faults, here */
    return 0;
}

/* Make room for the targets of a state with nt transitions in c's table
 * of targets seen, and start the state's stamp. */
static int seen_start(chunk *c, long nt)
{
    uint64_t cap = c->seen_cap ? c->seen_cap : 64;
    while (cap < 2 * (uint64_t)nt)
        cap *= 2;
    if (cap > c->seen_cap || ++c->stamp == 0) {
        free(c->seen);
        if (!(c->seen = calloc(cap, sizeof *c->seen)))
            return -1;
        c->seen_cap = cap;
        c->stamp = 1;
    }
    return 0;
}

/* The position in c of the target listed before that equals tg (hash h),
 * the state's transitions starting at base; or -1 after recording tg as
 * the one at position c->n. Transitions to one target need not be
 * adjacent (two components can each lead there), hence the table. */
static int64_t seen_find(chunk *c, const uint64_t *tg, uint64_t h, size_t base, int nw)
{
    uint64_t mask = c->seen_cap - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t e = c->seen[i];
        if ((uint32_t)(e >> 32) != c->stamp) {
            c->seen[i] = (uint64_t)c->stamp << 32 | (uint32_t)(c->n - base);
            return -1;
        }
        size_t p = base + (uint32_t)e;
        if (c->hash[p] == h && pepa_same_state(c->target + p * (size_t)nw, tg, nw))
            return (int64_t)p;
    }
}

/* List the transitions of states [first, first + count), merging those
 * to one target unless no two can have one (merge == 0). */
static void enumerate(const pepa_space *sp, pepa_enum *en, int merge, double deadline, chunk *c,
                      uint32_t first, uint32_t count)
{
    const int nw = sp->nw;
    c->first = first;
    c->count = count;
    c->n = 0;
    c->self_loops = 0;
    c->deadlocks = 0;
    c->failed = 0;
    c->late = 0;
    for (uint32_t s = 0; s < count; s++) {
        /* states with hundreds of components take long to list: a chunk
         * of them must not run far past the deadline */
        if (deadline > 0 && (s % DEADLINE_EVERY) == DEADLINE_EVERY - 1 && clock_now() > deadline) {
            c->failed = c->late = 1;
            return;
        }
        const uint64_t *src = pepa_space_state(sp, first + s);
        const pepa_tr *tr;
        const uint64_t *mask;
        long nt = pepa_enum_state(en, src, &tr, &mask, &c->err);
        if (nt < 0 || chunk_reserve(c, c->n + (size_t)nt, nw) < 0 || (merge && seen_start(c, nt) < 0)) {
            if (nt >= 0)
                diag_set(&c->err, "out of memory while enumerating transitions");
            c->failed = 1;
            return;
        }
        if (nt == 0 && c->deadlocks++ == 0)
            c->first_deadlock = first + s;
        size_t base = c->n;
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
            uint64_t h = pepa_hash_state(tg, nw);
            int64_t p = merge ? seen_find(c, tg, h, base, nw) : -1;
            if (p >= 0) {
                c->rate[p] += tr[t].rate;
                continue;
            }
            c->hash[c->n] = h;
            c->rate[c->n++] = tr[t].rate;
        }
        c->ntr[s] = (uint32_t)(c->n - base);
    }
    if (rows_ready(c) < 0) {
        diag_set(&c->err, "out of memory while enumerating transitions");
        c->failed = 1;
    }
}

/* ---- the indexer's half -------------------------------------------------------- */

/* Why a state could not be added (add_state's negative returns; a state's
 * number is >= 0). */
typedef enum add_fail {
    ADD_NO_MEMORY = -1,
    ADD_OVER_LIMIT = -2,
    ADD_LATE = -3       /* the index is full and a resize would end past the deadline */
} add_fail;

/* Add state st (hash h) in the free slot i, with edges transitions into
 * it. Returns its number, or an add_fail. */
static int64_t add_state(derivation *d, const uint64_t *st, uint64_t h, uint64_t i, uint32_t edges)
{
    pepa_space *sp = d->sp;
    int nw = sp->nw;
    if ((uint64_t)sp->n >= d->limit)
        return ADD_OVER_LIMIT;
    uint32_t k = sp->n;
    if ((k & (PEPA_BLOCK_STATES - 1)) == 0) {
        uint64_t *b = malloc((size_t)PEPA_BLOCK_STATES * (size_t)nw * sizeof *b);
        if (!b)
            return ADD_NO_MEMORY;
        sp->blocks[k >> PEPA_BLOCK_SHIFT] = b;
    }
    memcpy((uint64_t *)pepa_space_state(sp, k), st, (size_t)nw * sizeof *st);
    sp->index[i] = (pepa_slot){ pepa_slot_key(st, nw, h), k + 1, edges };
    sp->n++;
    if (2 * (uint64_t)sp->n > sp->index_cap) {
        if (d->deadline > 0 &&
            clock_now() + RESIZE_SECS_PER_SLOT * 2 * (double)sp->index_cap > d->deadline)
            return ADD_LATE;
        if (pepa_index_resize(sp, 2 * sp->index_cap) < 0)
            return ADD_NO_MEMORY;
    }
    return k;
}

/* The number of state st (hash h), adding it if new, with edges more
 * transitions into it; or an add_fail. Only the indexer calls this. */
static inline int64_t find_or_add(derivation *d, const uint64_t *st, uint64_t h, uint32_t edges)
{
    pepa_space *sp = d->sp;
    uint64_t i = pepa_probe(sp, st, h);
    if (sp->index[i].id) {
        sp->index[i].indeg += edges;
        return sp->index[i].id - 1;
    }
    return add_state(d, st, h, i, edges);
}

/* The derivation ran past its deadline: the one message for every check. */
static int out_of_time(derivation *d)
{
    return diag_set(&d->err, "%s: state-space derivation exceeded its time limit after %u states",
                    pepa_model_file(d->sys->model), d->sp->n);
}

/* Index one chunk: new states, and one row of rates per state. */
static int index_chunk(derivation *d, chunk *c)
{
    pepa_space *sp = d->sp;
    rows *r = &d->r;
    const int nw = sp->nw;
    if (c->late)
        return out_of_time(d);
    if (c->failed) {
        diag_set(&d->err, "%s", c->err.msg);
        return -1;
    }
    sp->self_loops += c->self_loops;
    if (c->deadlocks && sp->deadlocks == 0)
        sp->first_deadlock = c->first_deadlock;
    sp->deadlocks += c->deadlocks;
    if (r->nseg == r->seg_cap) {
        size_t cap = r->seg_cap ? 2 * r->seg_cap : 256;
        if (mem_grow((void **)&r->seg, cap, sizeof *r->seg) < 0)
            return diag_set(&d->err, "out of memory while deriving the state space (%u states)", sp->n);
        r->seg_cap = cap;
    }
    if ((uint64_t)c->first + c->count + 1 > r->rowp_cap) {
        uint64_t cap = r->rowp_cap + r->rowp_cap / 2 + c->count + 4096;
        if (mem_grow((void **)&r->rowp, cap, sizeof *r->rowp) < 0)
            return diag_set(&d->err, "out of memory while deriving the state space (%u states)", sp->n);
        r->rowp_cap = cap;
    }
    /* the chunk's transitions are its states' rows, in order: the rates
     * stay as they are, only targets need numbers */
    uint32_t *col = (uint32_t *)(c->rows + c->n);
    for (size_t p = 0; p < PREFETCH_AHEAD && p < c->n; p++)
        __builtin_prefetch(&sp->index[c->hash[p] & (sp->index_cap - 1)]);
    for (size_t t = 0; t < c->n; t++) {
        if (t + PREFETCH_AHEAD < c->n)              /* overlap the cache misses */
            __builtin_prefetch(&sp->index[c->hash[t + PREFETCH_AHEAD] & (sp->index_cap - 1)]);
        int64_t j = find_or_add(d, c->target + t * (size_t)nw, c->hash[t], 1);
        if (j == ADD_LATE || (d->deadline > 0 && (t % INDEX_EVERY) == INDEX_EVERY - 1 &&
                        clock_now() > d->deadline))
            return out_of_time(d);
        if (j == ADD_NO_MEMORY)
            return diag_set(&d->err, "out of memory while deriving the state space (%u states)", sp->n);
        if (j == ADD_OVER_LIMIT)
            return diag_set(&d->err, "%s: the state space has more than %llu states (the limit)", pepa_model_file(d->sys->model),
                            (unsigned long long)d->limit);
        col[t] = (uint32_t)j;
    }
    r->seg[r->nseg++] = (segment){ c->first, c->count, r->nnz, c->rows, col };
    c->rows = NULL;
    for (uint32_t s = 0; s < c->count; s++) {
        r->nnz += c->ntr[s];
        r->rowp[c->first + s + 1] = r->nnz;
    }
    if (d->deadline && clock_now() > d->deadline)
        return out_of_time(d);
    return 0;
}

/* ---- the two halves together --------------------------------------------------- */

/* Claim the next run of published states and enumerate it into a free
 * buffer, then queue it in order of its first state. Called and returns
 * with the lock held; 0 when there was nothing to claim. */
static int claim_and_enumerate(derivation *d, pepa_enum *en)
{
    if (d->nempty == 0 || d->claimed == d->published)
        return 0;
    uint32_t first = d->claimed, count = d->published - first;
    if (count > CHUNK_STATES)
        count = CHUNK_STATES;
    d->claimed += count;
    chunk *c = d->empty[--d->nempty];
    pthread_mutex_unlock(&d->lock);
    enumerate(d->sp, en, d->merge, d->deadline, c, first, count);
    pthread_mutex_lock(&d->lock);
    int k = d->nready;
    for (; k > 0 && d->ready[k - 1]->first > first; k--)
        d->ready[k] = d->ready[k - 1];
    d->ready[k] = c;
    d->nready++;
    pthread_cond_broadcast(&d->cond);
    return 1;
}

/* The helper thread: it only enumerates. */
static void *enumerator(void *arg)
{
    derivation *d = arg;
    pepa_enum *en = pepa_enum_new(d->sys);
    pthread_mutex_lock(&d->lock);
    if (!en) {
        diag_set(&d->err, "out of memory");
        d->stop = 1;
    }
    while (!d->stop && !d->done)
        if (!claim_and_enumerate(d, en))
            pthread_cond_wait(&d->cond, &d->lock);
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
    pepa_enum_free(en);
    return NULL;
}

/* The calling thread: it indexes the chunks in order and, when the next
 * one is not ready, enumerates one itself, so that neither thread waits
 * while the other has work. Alone, it does everything. */
static void indexer(derivation *d)
{
    pepa_enum *en = pepa_enum_new(d->sys);
    pthread_mutex_lock(&d->lock);
    if (!en) {
        diag_set(&d->err, "out of memory");
        d->stop = 1;
    }
    while (!d->stop) {
        if (d->nready > 0 && d->ready[0]->first == d->indexed) {
            chunk *c = d->ready[0];
            memmove(d->ready, d->ready + 1, (size_t)--d->nready * sizeof *d->ready);
            pthread_mutex_unlock(&d->lock);
            int rc = index_chunk(d, c);
            pthread_mutex_lock(&d->lock);
            d->empty[d->nempty++] = c;
            d->indexed = c->first + c->count;
            d->published = d->sp->n;
            if (rc < 0)
                d->stop = 1;
            pthread_cond_broadcast(&d->cond);
        } else if (d->indexed == d->published) {  /* nothing in flight, nothing new */
            d->done = 1;
        } else if (!claim_and_enumerate(d, en)) {
            pthread_cond_wait(&d->cond, &d->lock);
        }
        if (d->done)
            break;
    }
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
    pepa_enum_free(en);
}

/* Transpose the by-source rows into the CTMC's by-target rows, sized by
 * the in-degrees counted in the index (which is dropped here). Sources
 * are visited in increasing order, so every row comes out sorted. With two
 * threads the segments are split where the entries are halved: the first
 * part fills each row from its start upwards, the second part, visiting
 * sources downwards, fills it from its end; they meet exactly, with no
 * pass to count either part's share of a row. */
typedef struct scatter {
    const rows *r;
    pepa_ctmc *q;
    size_t from, to;                /* segments */
    int down;                       /* visit sources downwards, fill rows from the end */
    uint64_t *at;                   /* per target: next position (down: one past it) */
} scatter;

/* Sources ahead of the one being scattered (in its segment): their
 * targets' counters are fetched FAR sources ahead, the places they will
 * write NEAR ahead, so that the random accesses overlap instead of
 * waiting one by one. */
#define SCATTER_FAR 4
#define SCATTER_NEAR 2

/* Entries of source i, as offsets into its segment g. */
static inline uint64_t src_begin(const rows *r, const segment *g, uint32_t i)
{
    return r->rowp[i] - g->base;
}

static inline uint64_t src_end(const rows *r, const segment *g, uint32_t i)
{
    return r->rowp[i + 1] - g->base;
}

static void scatter_segment(const scatter *h, const segment *g)
{
    const rows *r = h->r;
    pepa_ctmc *q = h->q;
    for (uint32_t m = 0; m < g->count; m++) {
        uint32_t i = h->down ? g->first + g->count - 1 - m : g->first + m;
        if (m + SCATTER_FAR < g->count) {
            uint32_t f = h->down ? i - SCATTER_FAR : i + SCATTER_FAR;
            for (uint64_t k = src_begin(r, g, f); k < src_end(r, g, f); k++)
                __builtin_prefetch(&h->at[g->col[k]], 1);
        }
        if (m + SCATTER_NEAR < g->count) {
            uint32_t f = h->down ? i - SCATTER_NEAR : i + SCATTER_NEAR;
            for (uint64_t k = src_begin(r, g, f); k < src_end(r, g, f); k++) {
                uint64_t s = h->at[g->col[k]] - (uint64_t)h->down;
                __builtin_prefetch(&q->col[s], 1);
                __builtin_prefetch(&q->val[s], 1);
            }
        }
        double out = 0;
        for (uint64_t k = src_begin(r, g, i); k < src_end(r, g, i); k++) {
            uint64_t s = h->down ? --h->at[g->col[k]] : h->at[g->col[k]]++;
            q->col[s] = i;
            q->val[s] = g->val[k];
            out += g->val[k];
        }
        q->out[i] = out;
    }
}

static void *scatter_part(void *arg)
{
    const scatter *h = arg;
    for (size_t m = 0; m < h->to - h->from; m++)
        scatter_segment(h, &h->r->seg[h->down ? h->to - 1 - m : h->from + m]);
    return NULL;
}

static pepa_ctmc *transpose(pepa_space *sp, const rows *r, int threads)
{
    uint32_t n = sp->n;
    pepa_ctmc *q = pepa_ctmc_new(n, r->nnz);
    uint64_t *up = malloc(((size_t)n + 1) * sizeof *up);
    uint64_t *down = threads > 1 ? malloc(((size_t)n + 1) * sizeof *down) : NULL;
    if (!q || !up || (threads > 1 && !down)) {
        pepa_ctmc_free(q);
        free(up);
        free(down);
        return NULL;
    }
    for (uint64_t s = 0; s < sp->index_cap; s++)
        if (sp->index[s].id)
            q->rowp[sp->index[s].id] = sp->index[s].indeg;
    free(sp->index);
    sp->index = NULL;
    sp->index_cap = 0;
    for (uint32_t j = 0; j < n; j++)
        q->rowp[j + 1] += q->rowp[j];
    memcpy(up, q->rowp, (size_t)n * sizeof *up);
    scatter h[2] = { { r, q, 0, r->nseg, 0, up }, { r, q, r->nseg, r->nseg, 1, down } };
    pthread_t th;
    if (down) {
        size_t half = 0;                         /* first segment past half the entries */
        while (half < r->nseg && r->seg[half].base < r->nnz / 2)
            half++;
        h[0].to = h[1].from = half;
        memcpy(down, q->rowp + 1, (size_t)n * sizeof *down);
        if (pthread_create(&th, NULL, scatter_part, &h[1]) != 0) {
            scatter_part(&h[1]);                 /* no thread: do both parts here */
            free(down);
            down = NULL;
        }
    }
    scatter_part(&h[0]);
    if (down) {
        pthread_join(th, NULL);
        free(down);
    }
    free(up);
    return q;
}

static void rows_free(rows *r)
{
    for (size_t g = 0; g < r->nseg; g++)
        free(r->seg[g].val);
    free(r->seg);
    free(r->rowp);
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
    free(c->rows);
    free(c->seen);
    free(c);
}

static void chunks_free(derivation *d)
{
    for (int k = 0; k < NCHUNKS; k++) {
        chunk_free(d->chunks[k]);
        d->chunks[k] = NULL;
    }
}

pepa_space *pepa_derive(const pepa_system *s, const pepa_derive_opts *opts, diag *err)
{
    derivation d = { .sys = s };
    d.limit = opts && opts->max_states ? opts->max_states : UINT32_MAX - 1;
    if (d.limit > UINT32_MAX - 1)
        d.limit = UINT32_MAX - 1;
    clock_deadline dl = opts ? opts->deadline : (clock_deadline){ 0 };
    if (opts && opts->time_limit > 0)
        dl = clock_deadline_within(dl, opts->time_limit);
    d.deadline = dl.at;
    int threads = opts && opts->threads == 1 ? 1 : 2;
    d.merge = !pepa_enum_targets_distinct(s);
    pepa_space *sp = d.sp = calloc(1, sizeof *sp);
    for (d.nempty = 0; d.nempty < NCHUNKS; d.nempty++)
        if (!(d.empty[d.nempty] = d.chunks[d.nempty] = chunk_new()))
            goto oom;
    if (!sp || !(sp->blocks = calloc(PEPA_MAX_BLOCKS, sizeof *sp->blocks)))
        goto oom;
    sp->sys = s;
    sp->nw = s->nwords;
    if (opts)
        sp->deadline = opts->deadline;   /* its re-ratings stop by the caller's deadline */
    if (pepa_index_resize(sp, 1024) < 0 ||
        mem_grow((void **)&d.r.rowp, 4096, sizeof *d.r.rowp) < 0)
        goto oom;
    d.r.rowp_cap = 4096;
    d.r.rowp[0] = 0;
    if (find_or_add(&d, s->init, pepa_hash_state(s->init, sp->nw), 0) < 0)
        goto oom;
    d.published = 1;
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.cond, NULL);
    pthread_t th;
    int helper = threads > 1 && pthread_create(&th, NULL, enumerator, &d) == 0;
    indexer(&d);                                 /* with no helper, it does everything */
    if (helper)
        pthread_join(th, NULL);
    pthread_cond_destroy(&d.cond);
    pthread_mutex_destroy(&d.lock);
    chunks_free(&d);
    if (d.stop || d.err.set) {
        diag_set(err, "%s", d.err.set ? d.err.msg : "derivation stopped");
        goto fail;
    }
    sp->q = transpose(sp, &d.r, threads);
    rows_free(&d.r);
    if (!sp->q)
        goto oom;
    return sp;
oom:
    diag_set(err, "out of memory while deriving the state space (%u states so far)", sp ? sp->n : 0);
fail:
    chunks_free(&d);
    rows_free(&d.r);
    pepa_space_free(sp);
    return NULL;
}
