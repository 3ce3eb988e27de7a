/* bench_lump: exact lumping of farms (issue 15, part 2; docs/pepa.md,
 * "Lumped farms").
 *
 * For farms that grow, the chain of the model with one component per
 * member (skel_model_new_placed, the reference) and of the lumped model
 * (skel_model_new_lumped): states, and time to generate, derive and solve
 * (direct or the engine's automatic method), with the ratios and the
 * relative difference of the job's throughputs. The unlumped chain is
 * derived only up to UNLUMPED_MAX states (estimated from the previous
 * size's growth), then the lumped one alone goes on (to 100 members). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"
#include "skeleton/skeleton.h"

#define UNLUMPED_MAX 800000.0

/* Nodes of one class for the members, others for the stages around. */
static const char plat_text[] =
    "LocalLatency=0.0001\nDefaultLatency=0.01\nInput=io\nOutput=local\n"
    "NodeName=io Speed=1\nNodeName=s[1-8] Speed=4\nNodeName=w[1-256] Speed=1\n";

typedef struct run {
    double thr, secs;
    unsigned states;
    int ok;
} run;

static void run_model(skel_model *m, run *r)
{
    diag err;
    diag_clear(&err);
    pepa_system *sys = pepa_system_new(m->pepa, &err);
    pepa_derive_opts d = { 0 };
    pepa_space *sp = sys ? pepa_derive(sys, &d, &err) : NULL;
    double *pi = sp ? calloc(sp->n, sizeof *pi) : NULL;
    double *thr = sys ? calloc((size_t)sys->nactions, sizeof *thr) : NULL;
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    pepa_solve_result res;
    r->ok = pi && thr && pepa_solve(sp->q, &o, pi, &res, &err) == 0 &&
            pepa_space_throughput(sp, pi, thr, &err) == 0;
    if (r->ok) {
        r->thr = skel_model_throughput(m, thr);
        r->states = sp->n;
    } else {
        fprintf(stderr, "bench_lump: %s\n", err.set ? err.msg : "out of memory");
    }
    free(thr);
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(sys);
}

/* Build and solve text placed round robin from the io node on: the first
 * stage on io, members on w*, the other stages on s*. */
static void measure(const char *text, int lumped, run *r)
{
    diag err;
    diag_clear(&err);
    double t0 = clock_now();
    skel_tree *t = skel_parse_string(text, strlen(text), "bench.skel", &err);
    skel_dag *d = t ? skel_dag_build(t, SKEL_STYLE_STREAM, &err) : NULL;
    skel_platform *p = d ? skel_platform_parse_string(plat_text, strlen(plat_text), "bench.conf",
                                                      NULL, NULL, &err) : NULL;
    int n = t ? skel_tree_ntasks(t) : 0, *where = malloc((size_t)(n ? n : 1) * sizeof *where);
    skel_model *m = NULL;
    r->ok = 0;
    if (p && where) {
        for (int i = 0, s = 0, w = 0; i < n; i++) {
            int member = 0;
            for (const skel_node *k = skel_tree_task(t, i); k; k = k->parent)
                member |= k->kind == SKEL_FARM;
            where[i] = member ? 9 + w++ : 1 + s++ % 8;
        }
        m = (lumped ? skel_model_new_lumped : skel_model_new_placed)(t, d, p, where, &err);
    }
    if (m)
        run_model(m, r);
    else
        fprintf(stderr, "bench_lump: %s\n", err.set ? err.msg : "out of memory");
    r->secs = clock_now() - t0;
    skel_model_free(m);
    free(where);
    skel_platform_free(p);
    skel_dag_free(d);
    skel_tree_free(t);
}

/* kind 0: src, farm(n), sink; 1: src, xfarm of n pipes of two tasks, sink
 * (each copy has 9 local states: C(n + 8, 8) counts, so it stops at 12);
 * 2: a pipe of two farms of n/2 members with a stage between */
static void skeleton_text(int kind, int n, char *buf, size_t len)
{
    if (kind == 0) {
        snprintf(buf, len, "pipe(3); task(\"src\", 8); farm(%d, \"w\", 1); task(\"sink\", 8);", n);
        return;
    }
    if (kind == 2) {
        snprintf(buf, len, "pipe(5); task(\"src\", 8); farm(%d, \"v\", 1); task(\"mid\", 8);"
                 " farm(%d, \"w\", 1); task(\"sink\", 8);", n / 2, n / 2);
        return;
    }
    size_t at = (size_t)snprintf(buf, len, "pipe(3); task(\"src\", 8); xfarm(%d);", n);
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, " pipe(2); task(\"x\", 2); task(\"y\", 3);");
    if (at < len)
        snprintf(buf + at, len - at, " task(\"sink\", 8);");
}

static void row(const char *name, int n, const run *u, const run *l)
{
    if (u) {
        double diff = fabs(u->thr - l->thr) / fmax(u->thr, l->thr);
        printf("%-18s %5d %10u %9.3f %8u %9.4f %9.1f %9.1f %9.1e\n", name, n, u->states,
               u->secs, l->states, l->secs, (double)u->states / l->states, u->secs / l->secs,
               diff);
    } else {
        printf("%-18s %5d %10s %9s %8u %9.4f %9s %9s %9s\n", name, n, "-", "-", l->states,
               l->secs, "-", "-", "-");
    }
}

int main(void)
{
    static const char *names[] = { "farm(n)", "xfarm(n) of pipes", "pipe of 2 farms" };
    static const int sizes[][9] = { { 2, 4, 6, 8, 10, 11, 30, 60, 100 },
                                    { 2, 3, 4, 5, 6, 7, 8, 10, 12 },
                                    { 4, 6, 8, 10, 12, 14, 16, 20, 30 } };
    char *buf = malloc(1 << 16);
    if (!buf)
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);     /* rows as they come */
    printf("lumped farms against one component per member (the reference), stream style,\n"
           "members on nodes of one class; time: generate, derive, solve\n\n");
    printf("%-18s %5s %10s %9s %8s %9s %9s %9s %9s\n", "skeleton", "n", "states", "time s",
           "lumped", "time s", "states x", "time x", "thr diff");
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        double grow = 0, last = 0;
        for (int j = 0; j < 9; j++) {
            int n = sizes[k][j];
            skeleton_text(k, n, buf, 1 << 16);
            run u, l;
            measure(buf, 1, &l);
            int with_ref = last > 0 ? last * grow <= UNLUMPED_MAX : 1;
            if (with_ref) {
                measure(buf, 0, &u);
                grow = last > 0 ? u.states / last : 0;
                last = u.states;
            }
            bad |= !l.ok || (with_ref && !u.ok);
            if (l.ok && (!with_ref || u.ok))
                row(names[k], n, with_ref ? &u : NULL, &l);
            if (with_ref && u.ok && last > 0 && grow == 0)
                grow = 3;
        }
    }
    printf("\n");
    free(buf);
    return bad;
}
