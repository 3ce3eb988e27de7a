/* skeleton/search_memo.c: the large-scale search's estimates remembered.
 *
 * The approximation's estimate of a placement is a function of its rates
 * alone (each task's compute rate, each move's rate) and, under
 * Sharing=ps, of which tasks share a node: placements on interchangeable
 * nodes, and the placements the local moves, restarts and kicks come back
 * to, are valued once. A deal's estimate solves sub-chains of a thousand
 * states or more (10-100 ms), so a repeat is worth a lookup of its key.
 * Keys are compared whole (no hash-only match); open addressing, doubled
 * at half full, within SEARCH_MEMO_BYTES (past it nothing more is kept). */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

/* Memory the memo may take: a farm(1000)'s key is 3,000 doubles (24 KB),
 * so its memo holds ~1,300 estimates; a 6-task skeleton's, ~400,000. */
#define SEARCH_MEMO_BYTES (32u << 20)

static uint64_t key_hash(const double *k, int n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, &k[i], sizeof b);
        h = (h ^ b) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h;
}

/* The key of the rates in s->mu, s->lambda and, under ps, of placement pl's
 * sharing (per task, the first task on its node) into s->memo_cur. */
static void make_key(search *s, const int *pl)
{
    double *k = s->memo_cur;
    memcpy(k, s->mu, (size_t)s->nt * sizeof *k);
    memcpy(k + s->nt, s->lambda, (size_t)s->ne * sizeof *k);
    if (!s->ps)
        return;
    for (int i = 0; i < s->nt; i++) {
        int f = i;
        for (int j = 0; j < i && f == i; j++)
            f = pl[j] == pl[i] ? j : f;
        k[s->nt + s->ne + i] = f;
    }
}

/* Slot of the key in memo_cur: its entry, or the empty slot for it. */
static size_t memo_slot(const search *s, uint64_t h)
{
    size_t mask = s->memo_cap - 1, i = (size_t)h & mask, kb = (size_t)s->memo_klen * sizeof(double);
    while (s->memo_used[i] &&
           memcmp(s->memo_keys + i * (size_t)s->memo_klen, s->memo_cur, kb) != 0)
        i = (i + 1) & mask;
    return i;
}

int search_memo_init(search *s)
{
    s->memo_klen = s->nt + s->ne + (s->ps ? s->nt : 0);
    s->memo_cur = malloc((size_t)s->memo_klen * sizeof *s->memo_cur);
    return s->memo_cur ? 0 : diag_set(s->err, "out of memory");
}

/* The estimate remembered for placement pl (its rates in s->mu and
 * s->lambda) into *x: 1 when found, else 0 (the key then kept for
 * search_memo_put). */
int search_memo_get(search *s, const int *pl, double *x)
{
    make_key(s, pl);
    s->scale_work += s->memo_klen;
    if (s->memo_n == 0)
        return 0;
    size_t i = memo_slot(s, key_hash(s->memo_cur, s->memo_klen));
    if (!s->memo_used[i])
        return 0;
    *x = s->memo_x[i];
    s->memo_hits++;
    return 1;
}

/* Twice the slots, entries moved; -1 when past the byte cap or out of
 * memory (the memo then stays as it is: a miss only costs an estimate). */
static int memo_double(search *s)
{
    size_t cap = s->memo_cap ? 2 * s->memo_cap : 64, kl = (size_t)s->memo_klen;
    if (cap * (kl * sizeof(double) + sizeof(double) + 1) > SEARCH_MEMO_BYTES)
        return -1;
    double *keys = NULL, *xs = NULL;
    unsigned char *used = calloc(cap, 1);
    if (!used || mem_grow((void **)&keys, cap * kl, sizeof *keys) < 0 ||
        mem_grow((void **)&xs, cap, sizeof *xs) < 0) {
        free(used), free(keys), free(xs);
        return -1;
    }
    double *old_keys = s->memo_keys, *old_x = s->memo_x, *cur = s->memo_cur;
    unsigned char *old_used = s->memo_used;
    size_t old_cap = s->memo_cap;
    s->memo_keys = keys, s->memo_x = xs, s->memo_used = used, s->memo_cap = cap;
    for (size_t j = 0; j < old_cap; j++) {
        if (!old_used[j])
            continue;
        s->memo_cur = old_keys + j * kl;
        size_t i = memo_slot(s, key_hash(s->memo_cur, s->memo_klen));
        memcpy(keys + i * kl, s->memo_cur, kl * sizeof *keys);
        xs[i] = old_x[j];
        used[i] = 1;
    }
    s->memo_cur = cur;
    free(old_keys), free(old_x), free(old_used);
    return 0;
}

/* Remember estimate x for the key search_memo_get last missed. */
void search_memo_put(search *s, double x)
{
    if (2 * (s->memo_n + 1) > s->memo_cap && memo_double(s) < 0)
        return;
    size_t i = memo_slot(s, key_hash(s->memo_cur, s->memo_klen));
    memcpy(s->memo_keys + i * (size_t)s->memo_klen, s->memo_cur,
           (size_t)s->memo_klen * sizeof *s->memo_keys);
    s->memo_x[i] = x;
    s->memo_used[i] = 1;
    s->memo_n++;
}

/* Forget every value (the evaluator changed); the slots are kept. */
void search_memo_clear(search *s)
{
    if (s->memo_used)
        memset(s->memo_used, 0, s->memo_cap);
    s->memo_n = 0;
}

void search_memo_free(search *s)
{
    free(s->memo_used);
    free(s->memo_x);
    free(s->memo_keys);
    free(s->memo_cur);
}
