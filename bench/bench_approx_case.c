/* bench_approx's cases: one skeleton on one platform at one placement,
 * exact against approximate (random, or a corpus file on four platforms),
 * and a model too large for the chain against the simulation. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "bench/bench_approx.h"
#include "cli/input.h"
#include "pepa/system.h"
#include "sim/sim.h"

/* One case of ba_compare: its task graph, model and rates at the
 * placement, the exact answer, the approximation's workspace and options. */
typedef struct cmp_case {
    skel_dag *d;
    skel_model *m;
    double *mu, *lambda;
    skel_search_result *exact;
    skel_approx *a;
    skel_approx_opts ao;
} cmp_case;

/* The task graph, the placement-independent model and its rates at pl. */
static int case_build(cmp_case *c, const skel_tree *t, skel_style style, const skel_platform *p,
                      const int *pl, diag *err)
{
    c->d = skel_dag_build(t, style, err);
    c->m = c->d ? skel_model_new(t, c->d, err) : NULL;
    if (!c->m)
        return -1;
    c->mu = malloc((size_t)skel_tree_ntasks(t) * sizeof *c->mu);
    c->lambda = malloc((size_t)(c->m->nedges + 1) * sizeof *c->lambda);
    if (!c->mu || !c->lambda)
        return -1;
    return skel_place_rates(c->m, p, pl, c->mu, c->lambda, err) < 0 ? -1 : 0;
}

static void case_free(cmp_case *c)
{
    skel_approx_free(c->a);
    skel_search_result_free(c->exact);
    free(c->mu);
    free(c->lambda);
    skel_model_free(c->m);
    skel_dag_free(c->d);
}

/* The approximation's answer against the exact one, x, into sm (then the
 * other methods on the same case: ba_methods_err); exact_s: the exact
 * chain's seconds, t1 when the approximation's began. */
static int case_score(cmp_case *c, const skel_tree *t, const skel_platform *p, const int *pl,
                      ba_sample *sm, const ba_opts *o, const char *label, double exact_s,
                      double t1)
{
    diag aerr = { 0 };
    skel_approx_result ar;
    if (skel_approx_eval(c->a, c->mu, c->lambda, p->sharing == SKEL_SHARE_PS ? pl : NULL, &ar,
                         &aerr) < 0) {
        ba_refuse(sm, label, t, aerr.msg);  /* said so rather than answer: counted apart */
        return 0;
    }
    /* exact: items entering the first stage */
    double x = c->exact->ranked[0].throughput;
    ba_record(sm, label, t, c->exact->states, x, &ar, exact_s, clock_now() - t1);
    sm->nest += ar.estimate != 0;
    if (o->est_seeds > 0)
        ba_est_seeds(sm, c->d, c->ao, c->mu, c->lambda, p->sharing == SKEL_SHARE_PS ? pl : NULL,
                     x, o->est_seeds);
    if (!o->no_before)
        ba_methods_err(sm, o, c->d, c->ao, c->m, p, pl, c->mu, c->lambda, x, &ar);
    return 0;
}

/* The exact answer first (the suite does not depend on the
 * approximation), then the approximation's workspace, then its score. */
static int case_run(cmp_case *c, const skel_tree *t, const skel_platform *p, const int *pl,
                    ba_sample *sm, const ba_opts *o, const char *label)
{
    double t0 = clock_now();
    diag serr = { 0 }, aerr = { 0 };
    if (!(c->exact = skel_search_one(c->m, c->d, p, pl, MAX_STATES, &serr))) {
        sm->too_big++;
        return 1;
    }
    double t1 = clock_now();
    c->ao.scv = c->m->scv;
    c->ao.cut_whole_states = o->cut_whole;
    c->ao.whole_states = o->whole;
    c->ao.estimate = o->estimate;
    if (!(c->a = skel_approx_new(c->d, &c->ao, &aerr))) {
        sm->uncovered++;
        return 1;
    }
    if (o->dry)                     /* APPROX_CORPUS: covered, not scored */
        return 0;
    return case_score(c, t, p, pl, sm, o, label, t1 - t0, t1);
}

/* Exact and approximate throughput of t on p at placement pl, scored as o
 * says; 1 when the exact chain is too large or the approximation does not
 * cover t. */
int ba_compare(const skel_tree *t, skel_style style, const skel_platform *p, const int *pl,
               ba_sample *sm, const ba_opts *o, const char *label, diag *err)
{
    cmp_case c = { 0 };
    int rc = case_build(&c, t, style, p, pl, err);
    if (rc == 0)
        rc = case_run(&c, t, p, pl, sm, o, label);
    case_free(&c);
    return rc;
}

/* APPROX_DUMP=DIR: case k of kind cat (links: part (d)'s) into
 * DIR/KIND-K.skel, .conf and .place (the --place argument, then the
 * style), so that a case
 * the table shows can be run again with `skelsched solve`. */
void ba_dump_case(const char *cat, int k, int links, const char *skel, const char *plat,
                  const int *pl, int nt, skel_style st)
{
    const char *dir = getenv("APPROX_DUMP"), *ext[3] = { "skel", "conf", "place" };
    for (int f = 0; dir && f < 3; f++) {
        char path[BA_PATH_CAP];
        snprintf(path, sizeof path, "%s/%s%s-%d.%s", dir, links ? "l-" : "", cat, k, ext[f]);
        FILE *o = fopen(path, "w");
        if (!o)
            continue;
        if (f < 2)
            fprintf(o, "%s\n", f ? (plat ? plat : "") : skel);
        for (int i = 0; f == 2 && i < nt; i++)
            fprintf(o, "%st%d=h%d", i ? "," : "", i, pl[i]);
        if (f == 2)
            fprintf(o, "\n%s\n", st == SKEL_STYLE_STREAM ? "stream" : "producer");
        fclose(o);
    }
}

/* One random case of category cat drawn by gen (name: its kind's; links:
 * part (d)'s, with buffered and phased moves); retried on a chain too
 * large. */
int ba_random_case_of(ba_gen gen, const char *name, int cat, uint64_t *s, ba_sample *sm,
                      const ba_opts *o, int links, diag *err)
{
    for (int tries = 0; tries < 40; tries++) {
        ba_sbuf sk;
        gen(cat, s, &sk);
        int nn = ba_pick(s, 2, 8);
        char *pt = ba_random_platform(nn, s, links);
        skel_platform *p = pt ? skel_platform_parse_string(pt, strlen(pt), "random.conf",
                                                           NULL, NULL, err) : NULL;
        skel_tree *t = p ? skel_parse_string(sk.b, (size_t)sk.n, sk.b, err) : NULL;
        int rc = -1, pl[SKEL_MAX_TASKS];
        if (t) {
            int nt = skel_tree_ntasks(t);
            for (int i = 0; i < nt; i++)
                pl[i] = ba_pick(s, 0, nn - 1);
            int big = sm->too_big;
            skel_style st = ba_uniform(s) < 0.5 ? SKEL_STYLE_STREAM : SKEL_STYLE_PRODUCER;
            ba_dump_case(name, sm->n, links, sk.b, pt, pl, nt, st);
            rc = (links ? ba_compare_links : ba_compare)(t, st, p, pl, sm, o, name, err);
            if (rc == 1 && sm->too_big > big) {
                sm->too_big = big;          /* redraw: the suite is of chains that fit */
                rc = 2;
            }
        }
        free(pt);
        skel_tree_free(t);
        skel_platform_free(p);
        if (rc != 2)
            return rc < 0 ? -1 : 0;
    }
    return diag_set(err, "no random %s case fits in %lu states", name, MAX_STATES);
}

/* One random case of category cat (ba_random_skeleton's). */
int ba_random_case(int cat, uint64_t *s, ba_sample *sm, const ba_opts *o, int links,
                   diag *err)
{
    return ba_random_case_of(ba_random_skeleton, ba_catname[cat], cat, s, sm, o, links, err);
}

/* APPROX_DUMP=DIR: a corpus case (platform k of file t) as ba_dump_case
 * writes a random one, its skeleton the file's text (k 0: the default
 * platform, an empty .conf: run it without --platform and --place). */
static void dump_corpus(const skel_tree *t, int k, const char *pt, const int *pl,
                        skel_style st)
{
    FILE *f = getenv("APPROX_DUMP") ? fopen(skel_tree_file(t), "r") : NULL;
    char text[16384];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = 0;
    char name[300];
    const char *base = strrchr(skel_tree_file(t), '/');
    snprintf(name, sizeof name, "corpus-%s-p%d", base ? base + 1 : skel_tree_file(t), k);
    if (n)
        ba_dump_case(name, 0, 0, text, pt, pl, skel_tree_ntasks(t), st);
}

/* A corpus tree on the default platform and on three random ones: 1 when
 * it is not covered or its chain too large (on the default platform). */
int ba_corpus_tree(const skel_tree *t, skel_style style, uint64_t *s, ba_sample *sm,
                   const ba_opts *o, const char *label, diag *err)
{
    int nt = skel_tree_ntasks(t), rc = 0, pl[SKEL_MAX_TASKS];
    const char *only = getenv("APPROX_CORPUS");
    ba_opts co = *o;   /* APPROX_CORPUS: the other files only draw their platforms */
    co.dry = only && !strstr(skel_tree_file(t), only);
    int dry = co.dry;
    for (int k = 0; k < 4 && rc >= 0; k++) {
        int nn = k == 0 ? nt : ba_pick(s, 2, 8);
        char *pt = k ? ba_random_platform(nn, s, 0) : NULL;
        skel_platform *p = k ? (pt ? skel_platform_parse_string(pt, strlen(pt), "random.conf",
                                                                NULL, NULL, err) : NULL)
                             : skel_platform_default(nt, err);
        for (int i = 0; p && i < nt; i++)
            pl[i] = k == 0 ? i : ba_pick(s, 0, nn - 1);
        if (p && !dry && strcmp(label, "corpus") == 0)   /* a BPEL file is not a skeleton */
            dump_corpus(t, k, pt, pl, style);
        free(pt);
        if (!p)
            return -1;
        rc = dry && k ? 0 : ba_compare(t, style, p, pl, sm, &co, label, err);
        skel_platform_free(p);
        if (rc == 1)
            break;        /* not covered or too large: the same on every platform */
    }
    return rc;
}

/* A corpus file on the default platform and on three random ones. */
static int corpus_file(const char *path, skel_style style, uint64_t *s, ba_sample *sm,
                       const ba_opts *o, diag *err)
{
    skel_tree *t = skel_parse_file(path, err);
    if (!t)
        return -1;
    int rc = ba_corpus_tree(t, style, s, sm, o, "corpus", err);
    skel_tree_free(t);
    return rc < 0 ? -1 : 0;
}

/* Every file of dir ending in ext, in name order (the draws' order). */
int ba_corpus_dir(const char *dir, const char *ext, skel_style style, uint64_t *s,
                  ba_sample *sm, const ba_opts *o, diag *err)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), rc = 0;
    if (n < 0)
        return diag_set(err, "%s: cannot list", dir);
    for (int k = 0; k < n; k++) {
        size_t len = strlen(ents[k]->d_name), el = strlen(ext);
        if (rc == 0 && len > el && strcmp(ents[k]->d_name + len - el, ext) == 0) {
            char path[BA_PATH_CAP];
            snprintf(path, sizeof path, "%s/%s", dir, ents[k]->d_name);
            rc = corpus_file(path, style, s, sm, o, err);
        }
        free(ents[k]);
    }
    free(ents);
    return rc;
}

/* CPU seconds of this process. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The columns of a table of ba_large_row's. */
void ba_large_header(void)
{
    printf("%-24s %12s %8s %6s %12s %10s %8s %8s %9s\n", "model", "approx", "cpu-s", "sweeps",
           "simulated", "95% hw", "events", "cpu-s", "diff");
}

/* The approximation of the skeleton at path (default platform, task i on
 * node i) against the simulation of the same placed model: the job's
 * throughput, items the first task computes per second. */
void ba_large_row(const char *name, const char *path, skel_style style, long events)
{
    cli_input_opts io = { 0 };
    io.style = style;
    cli_input in = { 0 };
    diag err = { 0 };
    pepa_system *sys = NULL;
    skel_approx *a = NULL;
    skel_approx_result ar = { 0 };
    sim_result sr = { 0 };
    double c0 = cpu_now(), c1 = c0, c2 = c0;
    int ok = cli_input_load(path, &io, &in, &err) == 0;
    skel_approx_opts ao = { 0 };
    ao.scv = ok ? in.skel->scv : NULL;
    ok = ok && (a = skel_approx_new(in.dag, &ao, &err)) &&
         skel_approx_place(a, in.skel, in.platform, in.node_of_task, &ar, &err) == 0;
    c1 = cpu_now();
    int sok = (sys = in.model ? pepa_system_new(in.model, &err) : NULL) != NULL;
    sim_opts o;
    sim_opts_init(&o);
    o.local = 0;
    o.threads = 1;
    o.events = events;
    sok = sok && sim_run(sys, &o, &sr, &err) == 0;
    c2 = cpu_now();
    if (sok) {
        sim_stat x = sr.thr[in.skel->comp_action[0]];
        printf("%-24s %12.6g %8.3f %6d %12.6g %10.3g %8ld %8.3f %8.3f%% %s%s\n", name,
               ok ? ar.throughput : NAN, c1 - c0, ar.iterations, x.mean, x.half, events, c2 - c1,
               ok ? 100 * (ar.throughput / x.mean - 1) : NAN,
               !ok ? err.msg : fabs(ar.throughput - x.mean) <= x.half ? "inside the CI"
               : ar.converged ? "outside the CI" : "outside the CI, not converged",
               ok && ar.estimate == SKEL_APPROX_EST_EVENTS ? " (the estimate, event by event)"
               : ok && ar.estimate                          ? " (the estimate of last resort)"
                                                            : "");
    } else
        printf("%-24s %s\n", name, err.msg);
    if (sok)
        sim_result_free(&sr);
    pepa_system_free(sys);
    skel_approx_free(a);
    cli_input_free(&in);
}
