/* bench_decision: the plugin's decision time, measured around
 * slurmsk_decide (what job_submit runs under slurmctld's locks, and what
 * `skelsched plan` runs): reading the #SKEL lines, the candidates, the
 * model, the search, the plan's strings and messages. Budget=50 ms (the
 * default), on platforms of 16, 256 and 10,000 nodes in four classes of
 * speed, for pipe(8/16/32/64), farm(16/64/256/1000) and a pipe of farms
 * (src, farm(100), mid, farm(100), sink). Prints p50, p99 and max of the
 * wall time, the target p99 <= budget + 10 ms as the ratio
 * p99 / (budget + 10 ms) (goal <= 1), the methods that valued the plans
 * (exact: the whole chain; lumped: the plan's lumped chain; approximate)
 * and how many jobs were refused (goal 0).
 * Usage: bench_decision [RUNS] (default 20 per cell). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "slurm/skelslurm.h"

#define SLACK 0.010                /* the target: p99 <= budget + 10 ms */

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* skeleton.conf text of n nodes in four classes (Speed 1, 2, 4, 8). */
static char *conf_text(int n)
{
    size_t cap = 1024;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    int q = n / 4, len = snprintf(s, cap, "MaxTasks=1024\nLocalLatency=0.0001\nDefaultLatency=0.001\n");
    for (int c = 0; c < 4; c++)
        len += snprintf(s + len, cap - (size_t)len, "NodeName=c%dn[1-%d] Speed=%d\n", c, q, 1 << c);
    return s;
}

/* The hostlist of every node of such a platform (the plugin's avail and idle). */
static void all_nodes(int n, char *buf, size_t size)
{
    int q = n / 4;
    snprintf(buf, size, "c0n[1-%d],c1n[1-%d],c2n[1-%d],c3n[1-%d]", q, q, q, q);
}

/* The #SKEL script of shape k (see names[]). */
static char *script_of(int k, const char **name)
{
    static const char *const names[] = { "pipe(8)",   "pipe(16)",  "pipe(32)",   "pipe(64)",
                                         "farm(16)",  "farm(64)",  "farm(256)",  "farm(1000)",
                                         "pipe-of-farms(203)" };
    static const int size[] = { 8, 16, 32, 64, 16, 64, 256, 1000, 100 };
    *name = names[k];
    size_t cap = 16384, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    if (k < 4) {
        len += (size_t)snprintf(s + len, cap - len, "#SKEL pipe(%d);\n", size[k]);
        for (int i = 0; i < size[k]; i++)
            len += (size_t)snprintf(s + len, cap - len, "#SKEL task(\"s%d\", %g);\n", i,
                                    1.0 + (double)((i * 7) % 5));
    } else if (k < 8) {
        snprintf(s, cap, "#SKEL farm(%d, \"w\", 1.0);\n", size[k]);
    } else {
        snprintf(s, cap, "#SKEL pipe(5);\n#SKEL task(\"src\", 50.0);\n#SKEL farm(100, \"v\", 1.0);\n"
                 "#SKEL task(\"mid\", 50.0);\n#SKEL farm(100, \"w\", 1.0);\n"
                 "#SKEL task(\"sink\", 50.0);\n");
    }
    return s;
}

typedef struct cell {
    int exact, optimal, approx, lumped, refused;
    unsigned long states;
} cell;

/* runs decisions of script on conf; their wall times (ms) into t. */
static int measure(slurmsk_conf *conf, const char *script, const char *nodes, int runs, double *t,
                   cell *c)
{
    slurmsk_request rq = { 0 };
    rq.script = script;
    rq.avail = nodes;
    rq.idle = nodes;
    for (int r = 0; r < runs; r++) {
        slurmsk_decision d;
        double t0 = clock_now();
        int rc = slurmsk_decide(conf, NULL, &rq, &d);
        t[r] = (clock_now() - t0) * 1000;
        if (rc < 0)
            return -1;
        if (d.fault != SLURMSK_FAULT_NONE || !d.accepted) {
            if (c->refused++ == 0)
                fprintf(stderr, "bench_decision: refused: %s\n", d.log ? d.log : "?");
        } else {
            c->exact += d.plan.method == SKEL_SEARCH_EXACT;
            c->optimal += d.plan.optimal;
            c->approx += d.plan.method == SKEL_SEARCH_APPROX;
            c->lumped += d.plan.method == SKEL_SEARCH_LUMPED;
            c->states = d.plan.states;
        }
        slurmsk_decision_clear(&d);
    }
    return 0;
}

static int platform_rows(int nn, int runs, double *t)
{
    char *text = conf_text(nn), nodes[256];
    diag err;
    diag_clear(&err);
    slurmsk_conf *conf = text ? slurmsk_conf_parse(text, strlen(text), "bench.conf", &err) : NULL;
    free(text);
    if (!conf) {
        fprintf(stderr, "bench_decision: %s\n", err.msg);
        return -1;
    }
    all_nodes(nn, nodes, sizeof nodes);
    double budget = slurmsk_budget(conf);
    for (int k = 0; k < 9; k++) {
        const char *name;
        char *script = script_of(k, &name);
        cell c = { 0 };
        if (!script || measure(conf, script, nodes, runs, t, &c) < 0) {
            free(script);
            slurmsk_conf_free(conf);
            return -1;
        }
        free(script);
        qsort(t, (size_t)runs, sizeof *t, cmp);
        int p99 = (int)(0.99 * (runs - 1) + 0.5);
        printf("%-19s %-6d %-8.2f %-8.2f %-8.2f %-7.2f %-6d %-8d %-7d %-7d %d\n", name, nn,
               t[(runs - 1) / 2], t[p99], t[runs - 1], t[p99] / (1000 * (budget + SLACK)), c.exact,
               c.optimal, c.lumped, c.approx, c.refused);
    }
    slurmsk_conf_free(conf);
    return 0;
}

/* The lumped chain in the plugin's path: farms between a source and a
 * sink at the 500 ms cap on 256 nodes: which method valued the plan, and
 * the states of its chain (the whole chain of farm(w) has about 3^(w+2):
 * bench_lump's table). */
static int lumped_rows(int runs, double *t, const char *sharing)
{
    char *text = conf_text(256), nodes[256];
    size_t len = text ? strlen(text) : 0;
    char *with = text ? malloc(len + 64) : NULL;
    diag err;
    diag_clear(&err);
    if (with)
        snprintf(with, len + 64, "Budget=500\nSharing=%s\n%s", sharing, text);
    slurmsk_conf *conf = with ? slurmsk_conf_parse(with, strlen(with), "bench.conf", &err) : NULL;
    free(with);
    free(text);
    if (!conf) {
        fprintf(stderr, "bench_decision: %s\n", err.msg[0] ? err.msg : "out of memory");
        return -1;
    }
    all_nodes(256, nodes, sizeof nodes);
    printf("\nfarms between a source and a sink, Budget=500 ms (the cap), 256 nodes, Sharing=%s, %d runs "
           "each\n", sharing, runs);
    printf("%-19s %-8s %-8s %-6s %-7s %-7s %-8s %s\n", "skeleton", "p50 ms", "p99 ms", "exact", "lumped",
           "approx", "refused", "states (last plan)");
    static const int width[] = { 4, 8, 16, 32, 64 };
    for (int k = 0; k < 5; k++) {
        char script[256], name[32];
        snprintf(script, sizeof script, "#SKEL pipe(3);\n#SKEL task(\"src\", 50.0);\n"
                 "#SKEL farm(%d, \"w\", 1.0);\n#SKEL task(\"sink\", 50.0);\n", width[k]);
        snprintf(name, sizeof name, "src-farm(%d)-sink", width[k]);
        cell c = { 0 };
        if (measure(conf, script, nodes, runs, t, &c) < 0) {
            slurmsk_conf_free(conf);
            return -1;
        }
        qsort(t, (size_t)runs, sizeof *t, cmp);
        int p99 = (int)(0.99 * (runs - 1) + 0.5);
        printf("%-19s %-8.2f %-8.2f %-6d %-7d %-7d %-8d %lu\n", name, t[(runs - 1) / 2], t[p99], c.exact,
               c.lumped, c.approx, c.refused, c.states);
    }
    slurmsk_conf_free(conf);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20;
    if (runs < 1 || runs > 100000) {
        fprintf(stderr, "usage: bench_decision [RUNS]\n");
        return 2;
    }
    double *t = malloc((size_t)runs * sizeof *t);
    if (!t)
        return 1;
    printf("decision time of job_submit/skeleton (slurmsk_decide, wall), Budget=50 ms, %d runs "
           "each; ratio = p99 / (budget + 10 ms), goal <= 1\n", runs);
    printf("%-19s %-6s %-8s %-8s %-8s %-7s %-6s %-8s %-7s %-7s %s\n", "skeleton", "nodes", "p50 ms",
           "p99 ms", "max ms", "ratio", "exact", "optimal", "lumped", "approx", "refused");
    static const int sizes[] = { 16, 256, 10000 };
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = platform_rows(sizes[i], runs, t);
    if (rc == 0)
        rc = lumped_rows(runs, t, "ps");
    if (rc == 0)
        rc = lumped_rows(runs, t, "static");
    free(t);
    return rc < 0;
}
