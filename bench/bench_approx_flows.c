/* bench_approx part (f): par, choice and loop flows, random and the BPEL
 * corpus as the CLI translates it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_approx.h"
#include "cli/input.h"

#define NFLOW 4    /* part (f)'s kinds: par, choice, loop, mixed */
#define NBIG 16    /* BPEL processes too large for the chain, at most */
static const char *const flowname[NFLOW] = { "f-par", "f-choice", "f-loop", "f-mixed" };

static void sput(ba_sbuf *t, const char *fmt, double x)
{
    t->n += snprintf(t->b + t->n, sizeof t->b - (size_t)t->n, fmt, x);
}

/* One construct of kind k (0 par, 1 choice, 2 loop) of 1-3 tasks. */
static int put_flow(ba_sbuf *t, uint64_t *s, int k)
{
    int b = ba_pick(s, 2, 3);
    if (k == 2) {
        int len = ba_pick(s, 1, 2);
        sput(t, " loop(%.3g);", 1 + ba_loguni(s, 0.1, 2.0));
        ba_put_sub(t, s, len);
        return len;
    }
    sput(t, k == 0 ? " par(%g);" : " choice(", (double)b);
    for (int j = 0; k == 1 && j < b; j++)
        sput(t, j + 1 < b ? "%.2g, " : "%.2g);", 0.1 + ba_uniform(s));
    for (int j = 0; j < b; j++)
        ba_put_task(t, s);
    return b;
}

/* A pipe of a task, then 1-3 constructs of kind (3: any) each followed by
 * a task (a join, a decision's successor, a loop's exit): 2-12 tasks. */
static void random_flow(int kind, uint64_t *s, ba_sbuf *t)
{
    int nc = ba_pick(s, 1, 3);
    ba_sbuf body = { .n = 0 };
    ba_put_task(&body, s);
    int tasks = 1, stages = 1;
    for (int c = 0; c < nc && tasks <= 8; c++) {
        tasks += put_flow(&body, s, kind == 3 ? ba_pick(s, 0, 2) : kind);
        ba_put_task(&body, s);
        tasks++;
        stages += 2;
    }
    t->n = snprintf(t->b, sizeof t->b, "pipe(%d);%s", stages, body.b);
}

/* Every BPEL process of the corpus as the CLI translates it: against the
 * chain where it fits, else (listed after the table) the simulation. */
static int bpel_corpus(uint64_t *s, ba_sample *sm, const ba_opts *o, char big[][BA_PATH_CAP],
                       int *nbig, diag *err)
{
    const char *shared = getenv("SHARED_DIR");
    char dir[BA_PATH_CAP];
    snprintf(dir, sizeof dir, "%s/corpus/bpel", shared ? shared : "../shared");
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), rc = 0;
    if (n < 0)
        return diag_set(err, "%s: cannot list", dir);
    for (int k = 0; k < n; k++) {
        size_t len = strlen(ents[k]->d_name);
        char path[BA_PATH_CAP];
        if (snprintf(path, sizeof path, "%s/%.200s", dir, ents[k]->d_name) >= (int)sizeof path)
            len = 0;
        cli_input_opts io = { 0 };
        cli_input in = { 0 };
        diag lerr = { 0 };
        if (rc == 0 && len > 5 && strcmp(ents[k]->d_name + len - 5, ".bpel") == 0 &&
            cli_input_load(path, &io, &in, &lerr) == 0 && in.tree) {
            int r = ba_corpus_tree(in.tree, SKEL_STYLE_PRODUCER, s, sm, o, "bpel", err);
            rc = r < 0 ? -1 : 0;
            if (r == 1 && *nbig < NBIG)
                memcpy(big[(*nbig)++], path, sizeof path);
        }
        cli_input_free(&in);
        free(ents[k]);
    }
    free(ents);
    return rc;
}

/* Part (f)'s table: a row per kind, the BPEL corpus's, all; then the BPEL
 * processes too large for the chain against the simulation. */
static void flow_table(ba_sample *sm, const ba_opts *o, char big[][BA_PATH_CAP], int nbig)
{
    ba_sample *all = sm + NFLOW + 1;
    printf("\nbench_approx: par, choice and loop flows (serial reduction), approximation vs "
           "the exact chain\n");
    ba_header();
    for (int c = 0; c <= NFLOW; c++) {
        ba_row(c < NFLOW ? flowname[c] : "bpel", &sm[c], o);
        ba_pool(all, &sm[c]);
    }
    ba_row("flows", all, o);
    if (nbig) {
        printf("\nBPEL processes over %lu states: approximation against the simulation\n",
               MAX_STATES);
        ba_large_header();
    }
    for (int k = 0; k < nbig; k++) {
        const char *b = strrchr(big[k], '/');
        ba_large_row(b ? b + 1 : big[k], big[k], SKEL_STYLE_PRODUCER, 200000);
    }
}

/* Part (f): ncases random flows, then the BPEL corpus; their "before" the
 * windows without any whole-model window (flows_windows). */
int ba_flow_suite(int ncases)
{
    ba_sample *sm = calloc(NFLOW + 2, sizeof *sm);   /* per kind, bpel, all */
    char (*big)[BA_PATH_CAP] = calloc(NBIG, sizeof *big);
    int nbig = 0;
    ba_opts o = { .flows_windows = 1 };
    uint64_t s = 20261127;   /* part (f)'s seed */
    diag err = { 0 };
    int rc = sm && big ? 0 : diag_set(&err, "out of memory");
    const char *fk = getenv("APPROX_FLOW_KIND");   /* one kind, on cases of its own */
    for (int k = 0; k < ncases && rc == 0; k++) {
        if (fk && atoi(fk) != k % NFLOW)
            continue;
        rc = ba_random_case_of(random_flow, flowname[k % NFLOW], k % NFLOW, &s, &sm[k % NFLOW],
                               &o, 0, &err);
    }
    if (rc == 0 && !fk)
        rc = bpel_corpus(&s, &sm[NFLOW], &o, big, &nbig, &err);
    if (rc == 0)
        flow_table(sm, &o, big, nbig);
    else
        fprintf(stderr, "bench_approx: %s\n", err.msg);
    free(big);
    free(sm);
    return rc < 0 ? 1 : 0;
}
