/* bench_approx part "est": the cost of one evaluation of the estimate of
 * last resort (skeleton/approx_est.c, approx_des.c; docs/approximation.md
 * "Deals of deals beyond the windows") on the skeletons of the docs'
 * tables, each against the simulation of the same placed model.
 *
 * Per row: the estimate alone (opts.estimate), the workspace built once,
 * then EST_REPS evaluations (skel_approx_place: rates, links, the
 * sampler), their mean CPU milliseconds; its throughput, 95% half-width
 * and items counted; and the simulation's mean and 95% half-width (10
 * replications of `events`, seed 1, one thread; events 0: none).
 * APPROX_EST_ROW=NAME runs the row of that name alone (the whole name: "dd
 * default" is not "fdd default"). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_approx.h"
#include "cli/input.h"
#include "sim/sim.h"

#define EST_REPS 5   /* evaluations timed per row */

#define EST_NODES \
    "LocalLatency=0.01 DefaultLatency=0.2 Input=a Output=c\n" \
    "NodeName=a Speed=1\nNodeName=b Speed=3\nNodeName=c Speed=5\n" \
    "Link=a,b Latency=0.05\nLink=b,c Latency=0.5\n"
#define EST_NODES6 EST_NODES "NodeName=d Speed=2\nNodeName=e Speed=2\nNodeName=f Speed=4\n"

/* A row: skeleton, platform (NULL: the default, task i on node i), and
 * task i on node i mod k (a-f). */
typedef struct est_row {
    const char *name, *skel, *plat;
    int k;
} est_row;

#define DDF "pipe(5); task(\"s\", 20); deal(8, \"w\", 1); deal(6, \"x\", 1.5); " \
            "farm(3, \"f\", 2); task(\"z\", 20);\n"
#define FDD "pipe(5); task(\"s\", 20); farm(4, \"f\", 2); deal(8, \"w\", 1); " \
            "deal(6, \"x\", 1.5); task(\"z\", 20);\n"
#define DD "pipe(4); task(\"src\", 20); deal(8, \"w\", 1); deal(6, \"x\", 1.5); " \
           "task(\"sink\", 20);\n"

static const est_row est_rows[] = {
    { "ddf default", DDF, NULL, 0 },
    { "fdd default", FDD, NULL, 0 },
    { "f4,d5,d4 default",
      "pipe(4); task(\"s\", 20); farm(4, \"f\", 2); deal(5, \"w\", 1); deal(4, \"x\", 1.5);\n",
      NULL, 0 },
    { "d6,d5,f3 default",
      "pipe(5); task(\"s\", 20); deal(6, \"w\", 1); deal(5, \"x\", 1.5); farm(3, \"f\", 2); "
      "task(\"z\", 20);\n", NULL, 0 },
    { "ddf static a-c", DDF, "Sharing=static\n" EST_NODES, 3 },
    { "fdd static a-c", FDD, "Sharing=static\n" EST_NODES, 3 },
    { "fdd ps a-f B2 H2", FDD, "Sharing=ps\nDefaultBuffer=2\nLinkSCV=2\n" EST_NODES6, 6 },
    { "ddf static E2", DDF, "Sharing=static\nLinkSCV=0.5\n" EST_NODES, 3 },
    { "ddf static B4 H2", DDF, "Sharing=static\nDefaultBuffer=4\nLinkSCV=2\n" EST_NODES, 3 },
    { "ddf ps a-f H2", DDF, "Sharing=ps\nLinkSCV=2\n" EST_NODES6, 6 },
    { "dd ps a-f", DD, "Sharing=ps\n" EST_NODES6, 6 },
    { "dd ps a-f E2", DD, "Sharing=ps\nLinkSCV=0.5\n" EST_NODES6, 6 },
    { "dd ps a-f H2", DD, "Sharing=ps\nLinkSCV=2\n" EST_NODES6, 6 },
    { "dd default (recursion)", DD, NULL, 0 },
    { "dd static a-c (recursion)", DD, "Sharing=static\n" EST_NODES, 3 },
};

static double est_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* text into a temporary file whose path is written to path (-1: none). */
static int est_tmp(char *path, const char *text)
{
    strcpy(path, "/tmp/bench_approx_est_XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    return 0;
}

/* "t0=a,t1=b,...": task i on node i mod k, into buf. */
static void est_place(char *buf, size_t cap, int ntasks, int k)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < ntasks && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%st%d=%c", i ? "," : "", i, 'a' + i % k);
}

/* The row's input loaded (its placement given when k > 0): 0 or -1. */
static int est_load(const est_row *r, const char *skel, const char *plat, cli_input *in,
                    diag *err)
{
    cli_input_opts io = { 0 };
    io.style = SKEL_STYLE_PRODUCER;
    io.platform = plat;
    if (cli_input_load(skel, &io, in, err) < 0 || r->k == 0)
        return in->skel ? 0 : -1;
    char place[BA_PATH_CAP];
    est_place(place, sizeof place, skel_tree_ntasks(in->tree), r->k);
    cli_input_free(in);
    memset(in, 0, sizeof *in);
    io.place = place;
    return cli_input_load(skel, &io, in, err);
}

/* The estimate alone, EST_REPS evaluations: the last answer in *ar, their
 * mean CPU seconds. */
static double est_time(const cli_input *in, skel_approx_result *ar, diag *err)
{
    skel_approx_opts ao = { 0 };
    ao.scv = in->skel->scv;
    ao.estimate = 1;
    skel_approx *a = skel_approx_new(in->dag, &ao, err);
    double c0 = est_cpu();
    int rc = a ? 0 : -1;
    for (int k = 0; k < EST_REPS && rc == 0; k++)
        rc = skel_approx_place(a, in->skel, in->platform, in->node_of_task, ar, err);
    double c = (est_cpu() - c0) / EST_REPS;
    skel_approx_free(a);
    return rc == 0 ? c : -1;
}

/* The simulation of the placed model: its mean, *half its 95% half-width. */
static double est_sim(const cli_input *in, long events, double *half, diag *err)
{
    pepa_system *sys = pepa_system_new(in->model, err);
    sim_opts o;
    sim_opts_init(&o);
    o.local = 0;
    o.threads = 1;
    o.events = (uint64_t)events;
    o.warmup_events = (uint64_t)events / 10;
    sim_result sr = { 0 };
    double x = NAN;
    if (sys && sim_run(sys, &o, &sr, err) == 0) {
        x = sr.thr[in->skel->comp_action[0]].mean;
        *half = sr.thr[in->skel->comp_action[0]].half;
        sim_result_free(&sr);
    }
    pepa_system_free(sys);
    return x;
}

static void est_one(const est_row *r, long events)
{
    char skel[64], plat[64];
    cli_input in = { 0 };
    diag err = { 0 };
    skel_approx_result ar = { 0 };
    int ok = est_tmp(skel, r->skel) == 0 && (!r->plat || est_tmp(plat, r->plat) == 0);
    ok = ok && est_load(r, skel, r->plat ? plat : NULL, &in, &err) == 0;
    double c = ok ? est_time(&in, &ar, &err) : -1, half = 0;
    double sim = ok && c >= 0 && events > 0 ? est_sim(&in, events, &half, &err) : NAN;
    if (c < 0)
        printf("%-26s %s\n", r->name, err.msg);
    else
        printf("%-26s %-6s %10.6g %9.3g %7ld %9.2f %10.6g %9.3g %8.2f%%\n", r->name,
               ar.estimate == SKEL_APPROX_EST_EVENTS ? "events" : "graph", ar.throughput,
               ar.half_width, ar.items, 1e3 * c, sim, half, 100 * (ar.throughput / sim - 1));
    fflush(stdout);
    cli_input_free(&in);
    unlink(skel);
    if (r->plat)
        unlink(plat);
}

/* Part "est": every row; events: the simulation's per replication (0: none). */
int ba_estimate_cost(long events)
{
    printf("\nbench_approx: the estimate of last resort alone, one evaluation (CPU ms, mean of "
           "%d, workspace built once; times depend on load) against the simulation (10 x %ld "
           "events, seed 1, one thread)\n", EST_REPS, events);
    printf("%-26s %-6s %10s %9s %7s %9s %10s %9s %9s\n", "skeleton, platform", "by",
           "estimate", "95% hw", "items", "cpu-ms", "simulated", "95% hw", "diff");
    const char *only = getenv("APPROX_EST_ROW");   /* one row, by its whole name */
    for (size_t k = 0; k < sizeof est_rows / sizeof est_rows[0]; k++)
        if (!only || !strcmp(est_rows[k].name, only))
            est_one(&est_rows[k], events);
    return 0;
}
