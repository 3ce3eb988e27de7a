/* skeleton/search_window.c: the sub-pipeline windows (search_bound.c's
 * bound of a partial placement, full speed; search_winps.c's with
 * processor sharing): their set-up, their chains solved densely or by
 * Gauss-Seidel, and the cache of their throughputs. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A window is up to WIN_MAX consecutive pipeline tasks joined by one-to-one
 * links. Solved alone, with its input always available and its output
 * always accepted, its throughput bounds the whole skeleton's: each task's
 * completion times are a max-plus function of the exponential durations
 * (receive, compute, send), increasing in every one of them, and cutting
 * the window loose only removes waits; faster rates only shorten
 * durations. Under Sharing=ps a computation is an exponential amount of
 * work done at Speed/(tasks computing) <= Speed: the window's full-speed
 * rates only shorten it too. The chains are tiny (3^len states) and cached by their rates. */
/* Task i's only partner on one side, through a one-step, one-member flow
 * (SKEL_IN / SKEL_OUT included); -4 when there is none, -5 when several. */
static int sole_partner(const skel_flow *f)
{
    if (f->pattern == SKEL_PAT_NONE || f->nsteps == 0)
        return -4;
    if (f->nsteps != 1 || f->start[1] - f->start[0] != 1)
        return -5;
    return f->tasks[0];
}

/* The longest window to build. A window of len tasks has 3^len states,
 * so one of nt - 1 or nt tasks costs about what the whole chain it would
 * prune costs: by default windows stop at nt - 2 (a ninth of the chain),
 * never below the dense WIN_DENSE_LEN nor above WIN_MAX. Measured idle
 * (bench_scale's third table, 256 nodes in 4 classes): pipe(6) 0.07 s
 * with windows of 4 against 0.14 s with 7; pipe(7) 0.46 s (4), 0.53 s (5),
 * 1.12 s (7); pipe(8) 5.56 s (4), 3.66 s (6), 4.42 s (7). */
static int window_most(const search *s)
{
    if (s->o->window_max >= 2 && s->o->window_max <= WIN_MAX)
        return s->o->window_max;
    int most = s->nt - 2;
    return most < WIN_DENSE_LEN ? WIN_DENSE_LEN : most > WIN_MAX ? WIN_MAX : most;
}

int search_setup_windows(search *s)
{
    size_t ws = WIN_STATES;
    if (!(s->win = calloc((size_t)WIN_MAX * (size_t)s->nt, sizeof *s->win)) ||
        !(s->wq = malloc((size_t)WIN_DENSE * (2 * WIN_DENSE + 1) * sizeof *s->wq)) ||
        !(s->wpi = malloc(ws * sizeof *s->wpi)) || !(s->wout = malloc(ws * sizeof *s->wout)) ||
        !(s->wrate = malloc(ws * WIN_MAX * sizeof *s->wrate)) ||
        !(s->wfirst = malloc((ws + 1) * sizeof *s->wfirst)) ||
        !(s->wfrom = malloc(ws * WIN_MAX * sizeof *s->wfrom)) ||
        !(s->wfill = malloc(ws * sizeof *s->wfill)) ||
        !(s->cache = malloc((size_t)WIN_CACHE * sizeof *s->cache)) ||
        !(s->bmu = malloc((size_t)s->nt * sizeof *s->bmu)) ||
        !(s->blam = malloc((size_t)(s->ne ? s->ne : 1) * sizeof *s->blam)))
        return diag_set(s->err, "out of memory");
    for (int k = 0; k < WIN_CACHE; k++)
        s->cache[k].win = -1;
    if (s->d->extended)
        return 0;             /* no windows: search_bound() has its own rule */
    for (int j = 0; j < s->nt; j++) {
        if (!(s->visit[j] > 0))
            continue;
        int src = sole_partner(&s->d->src[j]);
        if (src == -5)
            continue;
        window w = { .start = j, .len = 1, .in_edge = -1, .out_edge = -1 };
        if (src != -4 && (w.in_edge = skel_dag_edge(s->d, src, j)) < 0)
            continue;
        int last = j, most = window_most(s);
        while (w.len < most && last + 1 < s->nt && sole_partner(&s->d->dst[last]) == last + 1 &&
               sole_partner(&s->d->src[last + 1]) == last) {
            int e = skel_dag_edge(s->d, last, last + 1);
            if (e < 0)
                break;
            w.link[w.len - 1] = e;
            w.len++;
            last++;
        }
        /* The last task's send: none, or one partner. */
        int dst;
        while (w.len > 1 && (dst = sole_partner(&s->d->dst[last])) == -5) {
            w.len--;
            last--;
        }
        dst = sole_partner(&s->d->dst[last]);
        if (dst == -5 || w.len < 2)
            continue;
        if (dst != -4 && (w.out_edge = skel_dag_edge(s->d, last, dst)) < 0)
            continue;
        /* The window and its prefixes down to WIN_ALWAYS tasks, longest
         * first: search_bound_rates uses the longest whose tasks are
         * placed. */
        s->win[s->nwin++] = w;
        for (int len = w.len - 1; len >= WIN_ALWAYS && len >= 2; len--) {
            window p = w;
            p.len = len;
            p.out_edge = w.link[len - 1];
            s->win[s->nwin++] = p;
        }
    }
    return 0;
}

/* Solves the augmented n x (n + 1) system a in place (Gaussian
 * elimination, partial pivoting) into u; -1 when singular. */
int search_dense_solve(double *a, int n, double *u)
{
    int m = n + 1;
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * m + c]) > fabs(a[piv * m + c]))
                piv = r;
        if (a[piv * m + c] == 0)
            return -1;
        for (int k = 0; piv != c && k <= n; k++) {
            double t = a[c * m + k];
            a[c * m + k] = a[piv * m + k];
            a[piv * m + k] = t;
        }
        for (int r = c + 1; r < n; r++) {
            double f = a[r * m + c] / a[c * m + c];
            for (int k = c; f != 0 && k <= n; k++)
                a[r * m + k] -= f * a[c * m + k];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double v = a[r * m + n];
        for (int k = r + 1; k < n; k++)
            v -= a[r * m + k] * u[k];
        u[r] = v / a[r * m + r];
    }
    return 0;
}

/* Steady state of a dense generator q (n x n, row i = from state i) into
 * pi, by Gaussian elimination on pi Q = 0 with sum pi = 1. Returns -1 when
 * singular. a is n * (n + 1) scratch. */
int search_dense_steady(const double *q, int n, double *a, double *pi)
{
    int m = n + 1;
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++)
            a[r * m + c] = r == n - 1 ? 1.0 : q[c * n + r];
        a[r * m + n] = r == n - 1 ? 1.0 : 0.0;
    }
    return search_dense_solve(a, n, pi);
}

void search_wchain_shape(const window *w, wchain *c)
{
    c->len = w->len;
    c->n = 1;
    for (int k = 0; k < w->len; k++) {
        c->nph[k] = 0;
        if (k > 0 || w->in_edge >= 0)
            c->ph[k][c->nph[k]++] = PH_R;
        c->ph[k][c->nph[k]++] = PH_C;
        if (k + 1 < w->len || w->out_edge >= 0)
            c->ph[k][c->nph[k]++] = PH_S;
        c->radix[k] = c->n;
        c->n *= c->nph[k];
    }
}

/* The moves out of state x (at most len): targets into to, rates into
 * rate; returns how many. A task advances alone through its computation
 * and the window's ends; a move between tasks k-1 and k advances both.
 * share: NULL (every task computes at bmu), or the policy of a
 * processor-sharing window (search_winps.c): task k computes at bmu times
 * share[x WIN_MAX + k]. */
int search_wchain_out(const search *s, const window *w, const wchain *c, const double *share, int x,
                      int *to, double *rate)
{
    int at[WIN_MAX], m = 0;
    for (int k = 0; k < c->len; k++)
        at[k] = (x / c->radix[k]) % c->nph[k];
    for (int k = 0; k < c->len; k++) {
        int p = c->ph[k][at[k]], next = (at[k] + 1) % c->nph[k];
        int y = x + (next - at[k]) * c->radix[k];
        double r = 0;
        if (p == PH_C)
            r = s->bmu[w->start + k] * (share ? share[(size_t)x * WIN_MAX + (size_t)k] : 1);
        else if (p == PH_R && k == 0)
            r = s->blam[w->in_edge];
        else if (p == PH_S && k + 1 == c->len)
            r = s->blam[w->out_edge];
        else if (p == PH_R && c->ph[k - 1][at[k - 1]] == PH_S) {
            int pn = (at[k - 1] + 1) % c->nph[k - 1];
            y += (pn - at[k - 1]) * c->radix[k - 1];
            r = s->blam[w->link[k - 1]];
        }
        if (r > 0 && y != x) {   /* a self-loop (a lone compute phase) changes nothing */
            to[m] = y;
            rate[m++] = r;
        }
    }
    return m;
}

/* Steady state of a window of at most WIN_DENSE states, by elimination. */
static int window_dense(search *s, const window *w, const wchain *c, const double *share, double *pi)
{
    int n = c->n, to[WIN_MAX];
    double rate[WIN_MAX], *q = s->wq, *a = s->wq + (size_t)n * (size_t)n;
    memset(q, 0, (size_t)n * (size_t)n * sizeof *q);
    for (int x = 0; x < n; x++) {
        int m = search_wchain_out(s, w, c, share, x, to, rate);
        for (int k = 0; k < m; k++) {
            q[x * n + to[k]] += rate[k];
            q[x * n + x] -= rate[k];
        }
    }
    return search_dense_steady(q, n, a, pi);
}

/* Steady state of a larger window by Gauss-Seidel over its incoming
 * moves (at most len per state, so a sweep of 3^7 states costs ~15,000
 * products), until no probability changes by more than WIN_TOL of itself
 * in a sweep; -1 when that does not happen in WIN_SWEEPS sweeps. */
static int window_gs(search *s, const window *w, const wchain *c, const double *share, double *pi)
{
    int n = c->n, *first = s->wfirst, *from = s->wfrom, to[WIN_MAX];
    double *out = s->wout, *rin = s->wrate, rate[WIN_MAX];
    memset(first, 0, ((size_t)n + 1) * sizeof *first);
    for (int x = 0; x < n; x++) {
        int m = search_wchain_out(s, w, c, share, x, to, rate);
        out[x] = 0;
        for (int k = 0; k < m; k++) {
            first[to[k] + 1]++;
            out[x] += rate[k];
        }
    }
    for (int y = 0; y < n; y++)
        first[y + 1] += first[y];
    int *fill = s->wfill;
    memcpy(fill, first, (size_t)n * sizeof *fill);
    for (int x = 0; x < n; x++) {
        int m = search_wchain_out(s, w, c, share, x, to, rate);
        for (int k = 0; k < m; k++) {
            from[fill[to[k]]] = x;
            rin[fill[to[k]]++] = rate[k];
        }
    }
    for (int y = 0; y < n; y++)
        pi[y] = 1.0 / n;
    for (int sweep = 0; sweep < WIN_SWEEPS; sweep++) {
        double change = 0, sum = 0;
        for (int y = 0; y < n; y++) {
            if (!(out[y] > 0))
                return -1;
            double v = 0;
            for (int t = first[y]; t < first[y + 1]; t++)
                v += pi[from[t]] * rin[t];
            v /= out[y];
            double d = fabs(v - pi[y]) / (v > 0 ? v : 1);
            change = d > change ? d : change;
            pi[y] = v;
            sum += v;
        }
        for (int y = 0; y < n; y++)
            pi[y] /= sum;
        if (change < WIN_TOL)
            return 0;
    }
    return -1;
}

/* Steady state of window w's chain c under share (NULL: full speed) into
 * pi: by elimination up to WIN_DENSE states, else by Gauss-Seidel. */
int search_window_steady(search *s, const window *w, const wchain *c, const double *share, double *pi)
{
    return c->n <= WIN_DENSE ? window_dense(s, w, c, share, pi) : window_gs(s, w, c, share, pi);
}

/* Window wi's rates as a cache key into key (WIN_RATES at most); returns
 * how many, 0 when one is 0 (a missing link: the window's throughput is 0). */
int search_window_key(const search *s, int wi, double *key)
{
    const window *w = &s->win[wi];
    int nk = 0;
    for (int k = 0; k < w->len; k++)
        key[nk++] = s->bmu[w->start + k];
    key[nk++] = w->in_edge >= 0 ? s->blam[w->in_edge] : -1;
    key[nk++] = w->out_edge >= 0 ? s->blam[w->out_edge] : -1;
    for (int k = 0; k + 1 < w->len; k++)
        key[nk++] = s->blam[w->link[k]];
    for (int k = 0; k < nk; k++)
        if (key[k] == 0)
            return 0;
    return nk;
}

/* The cache's entry for id and key (nk doubles): *hit when it holds
 * them, else the entry to fill (direct mapped: it replaces another). */
wcache *search_wcache(search *s, int id, const double *key, int nk, int *hit)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)id;
    for (int k = 0; k < nk; k++) {
        uint64_t bits;
        memcpy(&bits, &key[k], sizeof bits);
        h = (h ^ bits) * 1099511628211ULL;
    }
    wcache *c = &s->cache[(h ^ (h >> 29)) % WIN_CACHE];
    *hit = c->win == id && memcmp(c->key, key, (size_t)nk * sizeof *key) == 0;
    return c;
}

/* Throughput of window w alone at rates bmu/blam (its first task's
 * compute), 0 when a rate is 0 (a missing link), cached. A window solved
 * iteratively is inflated by WIN_MARGIN: its iterate stops when a sweep
 * changes no probability by WIN_TOL of itself, and the margin is 10^5
 * times that (numerical, like every solve here; test_bound_above_exact
 * checks the bound against exact throughputs). */
double search_window_thr(search *s, int wi)
{
    const window *w = &s->win[wi];
    double key[WIN_KEY];
    int nk = search_window_key(s, wi, key), hit;
    if (nk == 0)
        return 0;
    wcache *c = search_wcache(s, wi, key, nk, &hit);
    if (hit) {
        s->win_hits++;
        return c->thr;
    }
    wchain ch;
    search_wchain_shape(w, &ch);
    double *pi = s->wpi, thr = INFINITY;
    if (search_window_steady(s, w, &ch, NULL, pi) == 0) {
        int cph = ch.ph[0][0] == PH_C ? 0 : 1;
        double pc = 0;
        for (int x = 0; x < ch.n; x++)
            if ((x / ch.radix[0]) % ch.nph[0] == cph)
                pc += pi[x];
        thr = s->bmu[w->start] * pc * (ch.n <= WIN_DENSE ? 1 : 1 + WIN_MARGIN);
    }
    s->win_solved++;
    if (!isfinite(thr) || thr < 0)
        thr = INFINITY;       /* no usable answer: no constraint */
    c->win = wi;
    memcpy(c->key, key, (size_t)nk * sizeof *key);
    c->thr = thr;
    return thr;
}

