/* bench_pepa: derivation and steady-state solution of the corpus's large
 * PEPA models, against the timings of the established tools measured on
 * this kind of machine (../shared/corpus/pepa/EXPECTED.md: the PEPA
 * Eclipse Plug-in and PRISM; neither runs here, so their published
 * figures are the reference and the ratio column compares with them).
 *
 * Prints one table: states, transitions, derive time, states/s,
 * transitions/s, bytes per state of the chain, solver, iterations,
 * residual, solve time, the solver's effective bandwidth and the
 * machine's measured copy bandwidth, peak resident memory.
 *
 * Times are medians of REPEAT runs in one process (the slowest and the
 * fastest derivation are printed below the table): a virtual machine
 * shared with others drifts by a fifth from one run to the next. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"

#define REPEAT 5

typedef struct ref {
    const char *file;
    double derive_ref, solve_ref;   /* seconds of the reference tool */
    const char *tool;
} ref;

static const ref models[] = {
    { "pepa-eclipse-plugin/ws-large.pepa", 0.7, 2.1, "PEPA Plug-in" },
    { "pepa-eclipse-plugin/x-large-t.pepa", 7.9, 0.44, "PEPA Plug-in" },
    { "pepa-eclipse-plugin/jobshop5.pepa", 7.2, 9.3, "PEPA Plug-in" },
    { "pepa-eclipse-plugin/jobshop5.pepa", 0.12, 9.8, "PRISM" },
};

/* Sustained copy bandwidth of this machine (GB/s, read + write). */
static double copy_bandwidth(void)
{
    size_t n = (size_t)64 << 20;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (double)i;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t = clock_now();
        memcpy(b, a, n * sizeof *a);
        t = clock_now() - t;
        double gbs = 2.0 * (double)(n * sizeof *a) / t / 1e9;
        if (gbs > best)
            best = gbs;
    }
    free(a);
    free(b);
    return best;
}

/* Reset the peak resident size (Linux: "5" to clear_refs), so that each
 * model's peak is measured on its own, not the bandwidth probe's. */
static void peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Peak resident size since the last reset, in MB (VmHWM). */
static double peak_mb(void)
{
    char line[256];
    double kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = atof(line + 6);
    if (f)
        fclose(f);
    return kb / 1024.0;
}

int main(void)
{
    const char *dir = getenv("SHARED_DIR");
    char path[4096];
    double bw = copy_bandwidth();
    printf("machine copy bandwidth: %.1f GB/s\n\n", bw);
    printf("%-12s %9s %10s %8s %9s %10s %6s %-6s %5s %9s %7s %6s %6s %-13s %8s %8s\n", "model", "states",
           "transitns", "derive_s", "states/s", "trans/s", "B/st", "solver", "iters", "residual",
           "solve_s", "GB/s", "peakMB", "reference", "derive_x", "solve_x");
    const char *last = NULL;
    double derive_s = 0, solve_s = 0;
    char spread[1024] = "";
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        const ref *r = &models[i];
        if (!last || strcmp(last, r->file) != 0) {
            snprintf(path, sizeof path, "%s/corpus/pepa/%s", dir && *dir ? dir : "../shared", r->file);
            diag err;
            diag_clear(&err);
            peak_reset();
            pepa_model *m = pepa_parse_file(path, &err);
            pepa_system *s = m ? pepa_system_new(m, &err) : NULL;
            double dt[REPEAT], st[REPEAT];
            pepa_space *sp = NULL;
            for (int k = 0; k < REPEAT && s; k++) {
                pepa_space_free(sp);
                double t = clock_now();
                sp = pepa_derive(s, NULL, &err);
                dt[k] = clock_now() - t;
                if (!sp)
                    break;
            }
            if (!sp) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            pepa_solve_opts o;
            pepa_solve_opts_init(&o);
            o.tol = 1e-8;
            pepa_solve_result res;
            double *pi = malloc(sp->n * sizeof *pi);
            for (int k = 0; k < REPEAT; k++) {
                if (!pi || pepa_solve(sp->q, &o, pi, &res, &err) < 0) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                st[k] = res.seconds;
            }
            qsort(dt, REPEAT, sizeof *dt, by_value);
            qsort(st, REPEAT, sizeof *st, by_value);
            derive_s = dt[REPEAT / 2];
            solve_s = st[REPEAT / 2];
            /* bytes a sweep streams: col + val per entry, out + pi per state */
            double sweep_bytes = (double)sp->q->nnz * 12.0 + (double)sp->n * 24.0;
            const char *name = strrchr(r->file, '/') + 1;
            size_t used = strlen(spread);
            snprintf(spread + used, sizeof spread - used, "  %-12.12s derive %.3f .. %.3f s, solve %.3f .. %.3f s\n",
                     name, dt[0], dt[REPEAT - 1], st[0], st[REPEAT - 1]);
            printf("%-12.12s %9u %10llu %8.3f %9.3g %10.3g %6.0f %-6s %5ld %9.2g %7.3f %6.1f",
                   name, sp->n, (unsigned long long)sp->q->nnz, derive_s, sp->n / derive_s,
                   (double)sp->q->nnz / derive_s, (double)pepa_ctmc_bytes(sp->q) / sp->n,
                   pepa_method_name(res.method), res.iterations, res.residual, solve_s,
                   res.method == PEPA_METHOD_DIRECT ? 0.0 : sweep_bytes * (double)res.iterations / solve_s / 1e9);
            free(pi);
            pepa_space_free(sp);
            pepa_system_free(s);
            pepa_model_free(m);
            printf(" %6.0f", peak_mb());
            last = r->file;
        } else {
            printf("%-12s %9s %10s %8s %9s %10s %6s %-6s %5s %9s %7s %6s %6s", "", "", "", "", "", "", "", "", "",
                   "", "", "", "");
        }
        printf(" %-13s %7.1fx %7.1fx\n", r->tool, r->derive_ref / derive_s, r->solve_ref / solve_s);
    }
    printf("\nderive_s, solve_s: medians of %d runs; fastest .. slowest:\n%s", REPEAT, spread);
    printf("\npeakMB: peak resident memory of parsing, deriving and solving the model (PEPA Plug-in on\n"
           "jobshop5: 2600 MB). derive_x, solve_x: the reference tool's time / ours (above 1: we are\n"
           "faster). GB/s: bytes of the chain a sweep reads / time per sweep.\n");
    return 0;
}
