/* skeleton/link.c: the component of one move with phases or a buffer
 * (skel_link_graph, docs/platform.md "Links").
 *
 * A move's time of mean 1/lambda and squared coefficient of variation scv
 * is a phase-type distribution, as a task's work is (skel_erlang_phases,
 * skel_h2): Erlang-k below 1, one exponential phase at 1, a balanced H2
 * above. With a buffer of c items, every item handed over travels through
 * its own phases (a TCP stream: items in flight overlap, each delayed by
 * the latency), so the local state is the number of items in each phase
 * and the number delivered and waiting for the receiver, at most c in all:
 * C(c + m + 1, m + 1) states for m phases. The hand-off and the take are
 * as fast as a move within a node (rate `handoff`). */
#include "skeleton.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

#define SKEL_MAX_PHASES 100      /* skel_erlang_phases' largest k */

typedef struct phases {
    int m;                    /* phases */
    double start[2];          /* probability of starting in phase 0 / 1 */
    double rate[SKEL_MAX_PHASES]; /* leaving phase q, times lambda */
    int erlang;               /* phases in series (else parallel, H2) */
} phases;

static void phases_of(double scv, phases *ph)
{
    memset(ph, 0, sizeof *ph);
    if (scv > 1) {
        double p, ra, rb;
        skel_h2(scv, &p, &ra, &rb);
        *ph = (phases){ 2, { p, 1 - p }, { ra, rb }, 0 };
        return;
    }
    int k = skel_erlang_phases(scv);
    ph->m = k;
    ph->start[0] = 1;
    ph->erlang = 1;
    for (int q = 0; q < k; q++)
        ph->rate[q] = k;
}

/* ---- rendezvous: one move at a time, both ends taking part ------------- */

static int rendezvous(const skel_link_in *in, const phases *ph, skel_lgraph *out)
{
    int rc = 0, r = in->edge + 1;
    out->nstates = ph->m;
    if (!ph->erlang) {        /* H2: the branch of the next move drawn now */
        for (int t = 0; t < 4 && rc == 0; t++)
            rc = skel_lg_push(out, (skel_ltr){ t / 2, in->move, t % 2,
                                               ph->start[t % 2] * ph->rate[t / 2], -1, 1, r });
        return rc;
    }
    for (int q = 0; q < ph->m && rc == 0; q++)
        rc = skel_lg_push(out, (skel_ltr){ q, q < ph->m - 1 ? in->xfer : in->move,
                                           q < ph->m - 1 ? q + 1 : 0, ph->rate[q], -1, 1, r });
    return rc;
}

/* ---- a buffer of cap items ----------------------------------------------- */

/* States are vectors v[0..m]: items in phase q (q < m), delivered (q = m),
 * sum <= cap, listed in lexicographic order, so that a vector's number is
 * found by binary search. */
typedef struct space {
    int w;                    /* m + 1 */
    int *v;                   /* n * w */
    long n, cap;
} space;

static int space_add(space *s, const int *v)
{
    if (s->n == s->cap) {
        long nc = s->cap ? 2 * s->cap : 64;
        if (mem_grow((void **)&s->v, (size_t)nc * (size_t)s->w, sizeof *s->v) < 0)
            return -1;
        s->cap = nc;
    }
    memcpy(s->v + (size_t)s->n++ * (size_t)s->w, v, (size_t)s->w * sizeof *v);
    return 0;
}

/* Every vector from position pos on, with left items to spread. */
static int enumerate(space *s, int *v, int pos, int left, long max)
{
    if (pos == s->w)
        return s->n >= max ? 1 : space_add(s, v);
    for (int x = 0; x <= left; x++) {
        v[pos] = x;
        int rc = enumerate(s, v, pos + 1, left - x, max);
        if (rc != 0)
            return rc;
    }
    v[pos] = 0;
    return 0;
}

static long space_find(const space *s, const int *v)
{
    long lo = 0, hi = s->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        const int *a = s->v + (size_t)mid * (size_t)s->w;
        int k = 0;
        while (k < s->w && a[k] == v[k])
            k++;
        if (k == s->w)
            return mid;
        if (a[k] < v[k])
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The transitions of state k: hand-off, progress of each phase, take. */
static int buffer_state(const skel_link_in *in, const phases *ph, const space *s, long k,
                        int *t, skel_lgraph *out)
{
    const int *v = s->v + (size_t)k * (size_t)s->w;
    int m = ph->m, sum = 0, rc = 0;
    for (int q = 0; q <= m; q++)
        sum += v[q];
#define TO(act, w, rt)                                                                    \
    (rc = skel_lg_push(out, (skel_ltr){ (int)k, act, (int)space_find(s, t), w, -1, 1, rt }))
    for (int q = 0; q < 2 && q < m && sum < in->cap && rc == 0; q++)
        if (ph->start[q] > 0) {
            memcpy(t, v, (size_t)s->w * sizeof *t);
            t[q]++;
            TO(in->move, ph->start[q], SKEL_RATE_HANDOFF);
        }
    for (int q = 0; q < m && rc == 0; q++)
        if (v[q] > 0) {
            memcpy(t, v, (size_t)s->w * sizeof *t);
            t[q]--;
            t[ph->erlang && q < m - 1 ? q + 1 : m]++;
            TO(in->xfer, v[q] * ph->rate[q], in->edge + 1);
        }
    if (v[m] > 0 && rc == 0) {
        memcpy(t, v, (size_t)s->w * sizeof *t);
        t[m]--;
        TO(in->take, 1.0, SKEL_RATE_HANDOFF);
    }
#undef TO
    return rc;
}

static int buffered(const skel_link_in *in, const phases *ph, skel_lgraph *out)
{
    space s = { .w = ph->m + 1 };
    int *v = calloc((size_t)s.w, sizeof *v), *t = calloc((size_t)s.w, sizeof *t);
    int rc = v && t ? enumerate(&s, v, 0, in->cap, in->max_states) : -1;
    for (long k = 0; k < s.n && rc == 0; k++)
        rc = buffer_state(in, ph, &s, k, t, out);
    out->nstates = (int)s.n;
    free(s.v);
    free(t);
    free(v);
    return rc;
}

int skel_link_graph(const skel_link_in *in, skel_lgraph *out)
{
    phases ph;
    phases_of(in->scv, &ph);
    return in->cap > 0 ? buffered(in, &ph, out) : rendezvous(in, &ph, out);
}
