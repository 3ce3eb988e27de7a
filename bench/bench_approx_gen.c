/* bench_approx's random draws: a seeded LCG, random platforms (part (d)'s
 * kinds of move too) and random skeletons of part (a)'s kinds, (e)'s deals
 * of deals and (g)'s wide deals. A draw's order is the cases': do not
 * reorder draws (every part's table would change). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_approx.h"

const char *const ba_catname[NCAT + 2] = { "pipe", "farm", "deal", "nested", "corpus", "dd",
                                           "wide" };

double ba_uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

int ba_pick(uint64_t *s, int lo, int hi)   /* lo..hi inclusive */
{
    return lo + (int)(ba_uniform(s) * (hi - lo + 1));
}

double ba_loguni(uint64_t *s, double lo, double hi)
{
    return lo * pow(hi / lo, ba_uniform(s));
}

/* Part (d)'s kinds of move: a default buffer (0-4 items) and SCV
 * (0.25-4), and per link its own, each half the time. */
static int put_kinds(char *buf, size_t cap, int global, uint64_t *s)
{
    int len = 0;
    if (!global || ba_uniform(s) < 0.5)
        len += snprintf(buf, cap, " %s=%d", global ? "DefaultBuffer" : "Buffer", ba_pick(s, 0, 4));
    if (!global || ba_uniform(s) < 0.5)
        len += snprintf(buf + len, cap - (size_t)len, " %s=%.3g", global ? "LinkSCV" : "SCV",
                        ba_loguni(s, 0.25, 4.0));
    return len;
}

/* A platform of n nodes: speeds 1..8, a default latency, some links
 * faster or slower, some with bandwidths (tasks then send data); with
 * kinds, part (d)'s buffers and SCVs too (no draw of its own otherwise, so
 * that the other parts' platforms stay the same). */
char *ba_random_platform(int n, uint64_t *s, int kinds)
{
    size_t cap = 8192;   /* a platform of 8 nodes, every link set: about 1,500 bytes */
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    int len = snprintf(buf, cap, "LocalLatency=%g DefaultLatency=%g Input=h0 Output=h%d",
                       ba_loguni(s, 1e-3, 0.05), ba_loguni(s, 0.01, 1.0), ba_pick(s, 0, n - 1));
    if (kinds)
        len += put_kinds(buf + len, cap - (size_t)len, 1, s);
    len += snprintf(buf + len, cap - (size_t)len, "\n");
    for (int j = 0; j < n; j++)
        len += snprintf(buf + len, cap - (size_t)len, "NodeName=h%d Speed=%d\n", j,
                        ba_pick(s, 1, 8));
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n && len < (int)cap - 200; b++)
            if (ba_uniform(s) < 0.4) {
                len += snprintf(buf + len, cap - (size_t)len,
                                "Link=h%d,h%d Latency=%g Bandwidth=%g", a, b,
                                ba_loguni(s, 1e-3, 1.0), ba_uniform(s) < 0.5 ? 1e6 : 1e8);
                if (kinds && ba_uniform(s) < 0.5)
                    len += put_kinds(buf + len, cap - (size_t)len, 0, s);
                len += snprintf(buf + len, cap - (size_t)len, "\n");
            }
    return buf;
}

void ba_put_task(ba_sbuf *t, uint64_t *s)
{
    t->n += snprintf(t->b + t->n, sizeof t->b - (size_t)t->n, " task(\"t\", %.3g%s);",
                     ba_loguni(s, 0.3, 10.0), ba_uniform(s) < 0.3 ? ", data=1e5" : "");
}

static void put_rep(ba_sbuf *t, uint64_t *s, const char *kind, int n)
{
    t->n += snprintf(t->b + t->n, sizeof t->b - (size_t)t->n, " %s(%d, \"w\", %.3g);", kind, n,
                     ba_loguni(s, 0.3, 10.0));
}

/* A sub-pipeline of len tasks (a task when len is 1). */
void ba_put_sub(ba_sbuf *t, uint64_t *s, int len)
{
    if (len > 1)
        t->n += snprintf(t->b + t->n, sizeof t->b - (size_t)t->n, " pipe(%d);", len);
    for (int k = 0; k < len; k++)
        ba_put_task(t, s);
}

/* A random deal of deals of 4-12 tasks (part (e)): a deal(2-4) dealing on
 * to a deal(2-4), a task or none either side; three deals of 2-3 between
 * two tasks (model4.des's shape); an xdeal(2-3) of pipe(2) dealing to a
 * deal(2-3) after a task (bench case nested-44's). */
static void dd_skeleton(uint64_t *s, ba_sbuf *t)
{
    int kind = ba_pick(s, 0, 2), before = kind ? 1 : ba_pick(s, 0, 1);
    int after = kind == 1 ? 1 : ba_pick(s, 0, 1), nd = kind == 1 ? 3 : 2;
    t->n = snprintf(t->b, sizeof t->b, "pipe(%d);", before + nd + after);
    if (before)
        ba_put_task(t, s);
    for (int k = 0; k < nd; k++)
        if (kind == 2 && k == 0) {
            int x = ba_pick(s, 2, 3);
            t->n += snprintf(t->b + t->n, sizeof t->b - (size_t)t->n, " xdeal(%d);", x);
            for (int j = 0; j < x; j++)
                ba_put_sub(t, s, 2);
        } else
            put_rep(t, s, "deal", ba_pick(s, 2, kind == 0 ? 4 : 3));
    if (after)
        ba_put_task(t, s);
}

/* Random skeleton of category cat with 2..12 tasks. */
void ba_random_skeleton(int cat, uint64_t *s, ba_sbuf *t)
{
    t->n = 0;
    if (cat == DD_CAT) {
        dd_skeleton(s, t);
        return;
    }
    if (cat == 0) {                                  /* pipe of tasks */
        int m = ba_pick(s, 2, 10);
        ba_put_sub(t, s, m);
        return;
    }
    if (cat == 1 || cat == 2 || cat == WIDE_CAT) {   /* a farm or a deal of tasks */
        int w = cat == WIDE_CAT ? ba_pick(s, 5, 10) : ba_pick(s, 2, cat == 1 ? 5 : 4);
        int before = ba_pick(s, 0, 2), after = ba_pick(s, 0, 2);
        if (before + after == 0 && ba_uniform(s) < 0.5)
            after = 1;
        int m = before + 1 + after;
        if (m > 1)
            t->n += snprintf(t->b, sizeof t->b, "pipe(%d);", m);
        for (int k = 0; k < before; k++)
            ba_put_task(t, s);
        put_rep(t, s, cat == 1 ? "farm" : "deal", w);
        for (int k = 0; k < after; k++)
            ba_put_task(t, s);
        return;
    }
    /* nested: task, x{farm,deal}(2) of sub-pipelines, and a replicated stage or a task */
    int x = ba_pick(s, 2, 3), len = ba_pick(s, 1, 2), tail = ba_pick(s, 0, 2);
    t->n += snprintf(t->b, sizeof t->b, "pipe(%d);", 2 + (tail > 0));
    ba_put_task(t, s);
    t->n += snprintf(t->b + t->n, sizeof t->b - (size_t)t->n, " %s(%d);",
                     ba_uniform(s) < 0.5 ? "xfarm" : "xdeal", x);
    for (int k = 0; k < x; k++)
        ba_put_sub(t, s, len);
    if (tail == 1)
        ba_put_task(t, s);
    else if (tail == 2)
        put_rep(t, s, ba_uniform(s) < 0.5 ? "farm" : "deal", 2);
}
