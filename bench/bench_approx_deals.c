/* bench_approx parts (e) and (g): deals of deals (random, fixed, and
 * too large for the chain) and deals of 5-10 single tasks. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_approx.h"

#define DD_NSAMPLE 6   /* part (e)'s rows: random and fixed; decomposed, whole, and
                          by the estimate of last resort alone */
#define DD_EST_SEEDS 20 /* fresh seeds a case for the estimate's coverage of the exact
                           chain (APPROX_EST_SEEDS=N another number, 0 none) */

static const char dd_nodes[] =
    "Sharing=static\nLocalLatency=0.01 DefaultLatency=0.2 Input=a Output=c\n"
    "NodeName=a Speed=1\nNodeName=b Speed=3\nNodeName=c Speed=5\n"
    "Link=a,b Latency=0.05\nLink=b,c Latency=0.5\n";
static const char dd_p44[] =
    "LocalLatency=0.0127308 DefaultLatency=0.242897 Input=h0 Output=h3\n"
    "NodeName=h0 Speed=7\nNodeName=h1 Speed=6\nNodeName=h2 Speed=4\n"
    "NodeName=h3 Speed=5\nNodeName=h4 Speed=7\nNodeName=h5 Speed=4\nNodeName=h6 Speed=7\n"
    "Link=h0,h4 Latency=0.230827 Bandwidth=1e+08\nLink=h0,h5 Latency=0.0124656 Bandwidth=1e+08\n"
    "Link=h0,h6 Latency=0.0293317 Bandwidth=1e+06\nLink=h1,h2 Latency=0.0307266 Bandwidth=1e+08\n"
    "Link=h1,h6 Latency=0.036456 Bandwidth=1e+08\nLink=h2,h4 Latency=0.00930138 Bandwidth=1e+08\n"
    "Link=h2,h5 Latency=0.00336865 Bandwidth=1e+08\nLink=h3,h4 Latency=0.00626644 Bandwidth=1e+08\n"
    "Link=h4,h5 Latency=0.0819819 Bandwidth=1e+08\n";

/* One fixed case of part (e) (test_approx's test_deal_of_deals and
 * test_model4): skeleton text, style, platform text, placement. */
static int dd_fixed(const char *skel, skel_style st, const char *plat, const int *pl,
                    ba_sample *sm, const ba_opts *o, diag *err)
{
    skel_platform *p = skel_platform_parse_string(plat, strlen(plat), "dd.conf", NULL, NULL, err);
    skel_tree *t = p ? skel_parse_string(skel, strlen(skel), "dd.skel", err) : NULL;
    int rc = t ? ba_compare(t, st, p, pl, sm, o, "dd-fixed", err) : -1;
    skel_tree_free(t);
    skel_platform_free(p);
    return rc < 0 ? -1 : 0;
}

/* Part (e)'s fixed cases: model4.des, task, deal(3), deal(2), task, and
 * bench case nested-44 (an xdeal of sub-pipelines dealing to a deal). */
static int dd_fixed_cases(ba_sample *sm, const ba_opts *o, diag *err)
{
    static const int pl[] = { 0, 1, 2, 1, 2, 1, 0, 2, 1, 0, 2 };
    static const int p44[] = { 3, 4, 3, 1, 3, 4, 6, 0, 1 };
    const char *shared = getenv("SHARED_DIR");
    char path[BA_PATH_CAP];
    snprintf(path, sizeof path, "%s/corpus/wflow2pepa/model4.des", shared ? shared : "../shared");
    skel_tree *m4 = skel_parse_file(path, err);
    int rc = m4 ? 0 : -1;
    if (rc == 0) {
        skel_platform *p = skel_platform_parse_string(dd_nodes, strlen(dd_nodes), "dd.conf",
                                                      NULL, NULL, err);
        rc = p ? ba_compare(m4, SKEL_STYLE_PRODUCER, p, pl, sm, o, "dd-fixed", err) : -1;
        skel_platform_free(p);
    }
    skel_tree_free(m4);
    if (rc >= 0)
        rc = dd_fixed("pipe(4); task(\"a\", 1); deal(3, \"w\", 2); deal(2, \"x\", 1); "
                      "task(\"z\", 1);", SKEL_STYLE_STREAM, dd_nodes, pl, sm, o, err);
    if (rc >= 0)
        rc = dd_fixed("pipe(3); task(\"t\", 3.03); xdeal(3); pipe(2); task(\"t\", 0.641); "
                      "task(\"t\", 0.805); pipe(2); task(\"t\", 9.96, data=1e5); "
                      "task(\"t\", 5.29); pipe(2); task(\"t\", 1.71, data=1e5); "
                      "task(\"t\", 0.889, data=1e5); deal(2, \"w\", 2.84);",
                      SKEL_STYLE_STREAM, dd_p44, p44, sm, o, err);
    return rc < 0 ? -1 : 0;
}

/* Large deals of deals (deal(8) into deal(6); 31 tasks; a farm after
 * the deals and first, not event graphs: approx_des.c) against the
 * simulation, as part (c). */
static void dd_large(void)
{
    enum { DD_LARGE = 4 };
    static const char *const sk[DD_LARGE] = {
        "pipe(4); task(\"src\", 20); deal(8, \"w\", 1); deal(6, \"x\", 1.5); "
        "task(\"sink\", 20);\n",
        "pipe(6); task(\"src\", 20); deal(8, \"w\", 1); deal(7, \"x\", 1.2); "
        "deal(8, \"y\", 1); deal(6, \"z\", 1.5); task(\"sink\", 20);\n",
        "pipe(5); task(\"s\", 20); deal(8, \"w\", 1); deal(6, \"x\", 1.5); "
        "farm(3, \"f\", 2); task(\"z\", 20);\n",
        "pipe(5); task(\"s\", 20); farm(4, \"f\", 2); deal(8, \"w\", 1); "
        "deal(6, \"x\", 1.5); task(\"z\", 20);\n" };
    static const char *const name[DD_LARGE] = { "deal(8), deal(6)", "four deals, 31 tasks",
                                                 "deals, then farm(3)", "farm(4), then deals" };
    printf("\nbench_approx: deals of deals too large for the exact chain, approximation against\n"
           "the simulation's 95%% CI (10 replications, seed 1, one thread; CPU seconds)\n");
    ba_large_header();
    for (int k = 0; k < DD_LARGE; k++) {
        char path[] = "/tmp/bench_approx_dd_XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f)
            continue;
        fputs(sk[k], f);
        fclose(f);
        ba_large_row(name[k], path, SKEL_STYLE_PRODUCER, 400000);
        unlink(path);
    }
}

/* Part (e)'s table: the random and the fixed cases, decomposed and whole. */
static void dd_table(ba_sample *sm)
{
    static const char *const name[DD_NSAMPLE] = { "dd",       "dd-whole", "fixed",
                                                  "fx-whole", "dd-est",   "fx-est" };
    static const int order[DD_NSAMPLE] = { 0, 1, 4, 2, 3, 5 };
    ba_opts o = { 0 };   /* no "before" line: none scored */
    printf("\nbench_approx: deals of deals (4-12 tasks), decomposition (cut_whole_states 1) "
           "against the exact chain; \"whole\": the default, one window where it fits; "
           "\"est\": the estimate of last resort alone (opts.estimate)\n");
    ba_header();
    for (int k = 0; k < DD_NSAMPLE; k++)
        ba_row(name[order[k]], &sm[order[k]], &o);
    for (int k = 0; k < DD_NSAMPLE; k++)
        if (sm[order[k]].n)
            printf("%-8s %d of %d answered by the estimate of last resort, the others by the "
                   "windows (or the whole model)\n", name[order[k]], sm[order[k]].nest,
                   sm[order[k]].n);
    for (int k = 0; k < DD_NSAMPLE; k++)
        if (sm[k].cov_n)
            ba_est_seeds_row(name[k], &sm[k]);
    if (!getenv("APPROX_NO_LARGE"))
        dd_large();
}

/* Part (e): deals of deals by the decomposition alone (cut_whole_states 1)
 * and, on the same random cases, by default (the whole model as one
 * window where it fits: the exact chain); APPROX_DD_NO_WHOLE=1 the first
 * pass alone; APPROX_DD_EST_ONLY=1 the estimate's pass alone, which also
 * runs each case on DD_EST_SEEDS fresh seeds (ba_est_seeds). */
int ba_deals_of_deals(int ncases)
{
    ba_sample *sm = calloc(DD_NSAMPLE, sizeof *sm);   /* random, then fixed: pass 0, 1 */
    diag err = { 0 };
    int rc = sm ? 0 : diag_set(&err, "out of memory");
    for (int pass = 0; pass < 3 && rc == 0; pass++) {
        if ((pass == 1 && getenv("APPROX_DD_NO_WHOLE")) ||
            (pass < 2 && getenv("APPROX_DD_EST_ONLY")))
            continue;
        ba_opts o = { .no_before = 1, .cut_whole = pass == 1 ? 0 : 1, .estimate = pass == 2 };
        const char *seeds = getenv("APPROX_EST_SEEDS");   /* the estimate's coverage */
        o.est_seeds = pass != 2 ? 0 : seeds ? atoi(seeds) : DD_EST_SEEDS;
        int rs = pass == 2 ? 4 : pass, fs = pass == 2 ? 5 : 2 + pass;   /* their rows */
        uint64_t s = 20261126;   /* part (e)'s seed: each pass the same cases */
        for (int k = 0; k < ncases && rc == 0; k++)
            rc = ba_random_case(DD_CAT, &s, &sm[rs], &o, 0, &err);
        if (rc == 0)
            rc = dd_fixed_cases(&sm[fs], &o, &err);
    }
    if (rc == 0)
        dd_table(sm);
    else
        fprintf(stderr, "bench_approx: %s\n", err.msg);
    free(sm);
    return rc < 0 ? 1 : 0;
}

/* Part (g): deals of 5-10 single tasks between 0-2 tasks either side, on
 * part (a)'s random platforms, against the exact chain; before: the same
 * cases with such deals never counted (count_tasks INT_MAX: cut by the
 * windows when they pass deal_states whole). */
int ba_wide_deals(int ncases)
{
    ba_sample *sm = calloc(1, sizeof *sm);
    ba_opts o = { .wide_before = 1 };
    uint64_t s = 20261127;   /* part (g)'s seed */
    diag err = { 0 };
    int rc = sm ? 0 : diag_set(&err, "out of memory");
    for (int k = 0; k < ncases && rc == 0; k++)
        rc = ba_random_case(WIDE_CAT, &s, sm, &o, 0, &err);
    if (rc == 0) {
        printf("\nbench_approx: deals of 5-10 single tasks, approximation vs exact chain\n");
        ba_header();
        ba_row("wide", sm, &o);
    } else
        fprintf(stderr, "bench_approx: %s\n", err.msg);
    free(sm);
    return rc < 0 ? 1 : 0;
}
