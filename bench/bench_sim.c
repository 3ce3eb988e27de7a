/* bench_sim: the simulator (sim/) against the exact engine, in one run.
 *
 * For each model: events per CPU-second on one thread; the wall time to
 * reach a 95% interval within 1% of every non-zero throughput (or of the
 * job's throughput, comp_<last task>, for skeletons), on every core; the
 * exact engine's derive + solve time on the same model where the chain
 * fits, and the ratio exact time / simulation time-to-CI; and the largest
 * distance between exact and simulated throughputs in half-widths (the
 * exact answer is inside the interval when it is <= 1).
 *
 * The PEPA Eclipse Plug-in's simulator is not installed here, so the
 * reference is our own exact engine (which EXPECTED.md compares with the
 * Plug-in: derive + solve of jobshop5 takes it 17-19 s).
 *
 * usage: bench_sim [quick]   (SHARED_DIR locates the corpus) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/input.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "sim/sim.h"

typedef struct exact {
    double sec;               /* derive + solve, wall; < 0: not run */
    double cpu;               /* the same, CPU seconds of the process */
    double *thr;
} exact;

static double process_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *shared(const char *rel, char *buf, size_t n)
{
    const char *dir = getenv("SHARED_DIR");
    snprintf(buf, n, "%s/%s", dir && *dir ? dir : "../shared", rel);
    return buf;
}

static int solve_exact(const pepa_system *s, exact *x, diag *err)
{
    double t = clock_now(), c = process_cpu();
    pepa_space *sp = pepa_derive(s, NULL, err);
    double *pi = sp ? malloc(sp->n * sizeof *pi) : NULL;
    x->thr = calloc((size_t)s->nactions, sizeof *x->thr);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    pepa_solve_result res;
    int rc = -1;
    if (sp && pi && x->thr && pepa_solve(sp->q, &o, pi, &res, err) == 0 &&
        pepa_space_throughput(sp, pi, x->thr, err) == 0)
        rc = 0;
    x->sec = clock_now() - t;
    x->cpu = process_cpu() - c;
    free(pi);
    pepa_space_free(sp);
    return rc;
}

/* Events per CPU-second of one thread. */
static double speed(const pepa_system *s, uint64_t events, diag *err)
{
    sim_opts o;
    sim_opts_init(&o);
    o.events = events;
    o.warmup_events = 0;
    o.reps = 2;
    o.threads = 1;
    o.local = 0;
    sim_result r;
    if (sim_run(s, &o, &r, err) < 0)
        return -1;
    double v = (double)r.events / r.cpu;
    sim_result_free(&r);
    return v;
}

/* Largest |simulated - exact| / half-width over the actions. */
static double worst_distance(const sim_result *r, const exact *x)
{
    double worst = 0;
    for (int a = 1; x->thr && a < r->nactions; a++) {
        double d = fabs(r->thr[a].mean - x->thr[a]);
        if (d > 0)
            worst = fmax(worst, r->thr[a].half > 0 ? d / r->thr[a].half : INFINITY);
    }
    return worst;
}

static void row(const char *name, const pepa_system *s, int job, uint64_t chunk, exact *x, int quick)
{
    diag err;
    diag_clear(&err);
    double ev = speed(s, quick ? chunk : 10 * chunk, &err);
    sim_opts o;
    sim_opts_init(&o);
    o.events = chunk;
    o.warmup_events = chunk;
    o.precision = 0.01;
    o.precision_action = job;
    o.time_limit = quick ? 5 : 120;
    o.local = 0;
    sim_result r;
    if (ev < 0 || sim_run(s, &o, &r, &err) < 0) {
        printf("%-24s %s\n", name, err.msg);
        return;
    }
    printf("%-24s %10.3g %12llu %10.3f%s %8.2f ", name, ev, (unsigned long long)r.events, r.wall,
           r.precision_met ? " " : "*", r.cpu);
    if (x->sec >= 0)
        printf("%8.3f %8.2f %8.3g %8.3g %8.2f\n", x->sec, x->cpu, x->sec / r.wall, x->cpu / r.cpu,
               worst_distance(&r, x));
    else
        printf("%8s %8s %8s %8s %8s\n", "-", "-", "-", "-", "-");
    sim_result_free(&r);
}

static void pepa_row(const char *rel, uint64_t chunk, int quick)
{
    char path[4096];
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_file(shared(rel, path, sizeof path), &err);
    pepa_system *s = m ? pepa_system_new(m, &err) : NULL;
    exact x = { -1, 0, NULL };
    if (s && solve_exact(s, &x, &err) == 0)
        row(strrchr(rel, '/') + 1, s, -1, chunk, &x, quick);
    else
        printf("%-24s %s\n", rel, err.msg);
    free(x.thr);
    pepa_system_free(s);
    pepa_model_free(m);
}

/* A skeleton file: simulation only, to 1% on the job's throughput. */
static void skel_row(const char *name, const char *path, uint64_t chunk, int quick)
{
    cli_input_opts io = { 0 };
    cli_input in = { 0 };
    diag err;
    diag_clear(&err);
    pepa_system *s = NULL;
    if (cli_input_load(path, &io, &in, &err) == 0 && (s = pepa_system_new(in.model, &err))) {
        exact x = { -1, 0, NULL };
        row(name, s, in.skel->comp_action[in.skel->ntasks - 1], chunk, &x, quick);
    } else
        printf("%-24s %s\n", name, err.msg);
    pepa_system_free(s);
    cli_input_free(&in);
}

static void farm_row(int workers, uint64_t chunk, int quick)
{
    char path[] = "/tmp/bench_sim_XXXXXX", name[64];
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return;
    fprintf(f, "pipe(3);\ntask(\"src\", 50.0);\nfarm(%d, \"w\", 1.0);\ntask(\"sink\", 100.0);\n", workers);
    fclose(f);
    snprintf(name, sizeof name, "farm(%d) skeleton", workers);
    skel_row(name, path, chunk, quick);
    unlink(path);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    char path[4096];
    printf("simulation (10 replications, 95%% CI within 1%% of every throughput; skeletons: of the\n"
           "job's throughput) against the exact engine's derive + solve, same run, %ld cores\n\n",
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("%-24s %10s %12s %11s %8s %8s %8s %8s %8s %8s\n", "model", "events/cpu-s", "events",
           "time-to-CI", "cpu-s", "exact s", "cpu-s", "ratio", "cpu-rat.", "|err|/hw");
    pepa_row("corpus/pepa/pepa-eclipse-plugin/browser.pepa", 20000, quick);
    pepa_row("corpus/pepa/pepa-eclipse-plugin/ws-large.pepa", 20000, quick);
    if (!quick)
        pepa_row("corpus/pepa/pepa-eclipse-plugin/jobshop5.pepa", 20000, quick);
    skel_row("model2.des (>110 M st.)", shared("corpus/wflow2pepa/model2.des", path, sizeof path), 20000, quick);
    farm_row(100, 2000, quick);
    if (!quick)
        farm_row(1000, 1000, quick);
    printf("\nevents/cpu-s: one thread, no local measures. time-to-CI: wall seconds, every core, until\n"
           "the 95%% intervals are within 1%% (* = not within the time limit); cpu-s: the CPU seconds\n"
           "of its replications (the machine's load inflates wall times, not these). exact: derive +\n"
           "solve, wall and CPU seconds. ratio: exact wall / time-to-CI, cpu-rat.: exact CPU / simulation\n"
           "CPU (> 1: the simulation answers first). |err|/hw: largest distance between the\n"
           "exact and simulated throughputs, in half-widths (<= 1: the exact value is inside).\n");
    return 0;
}
