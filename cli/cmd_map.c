/* skelsched map: the best placement of a skeleton's tasks on a platform's
 * nodes, by steady-state throughput (docs/mapping.md). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "input.h"
#include "util.h"
#include "cli/json.h"
#include "opt.h"
#include "../skeleton/skeleton.h"
#include "../base/mem.h"
#include "../slurm/skelslurm.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched map SKELETON --platform FILE [--pin t0=NODE]... [--candidates FILE]\n"
            "                     [--top K] [--budget SECONDS] [--style producer|stream]\n"
            "                     [--sharing ps|static] [--buffer N] [--link-scv C]\n"
            "                     [--max-states N] [--json]\n"
            "\n"
            "Search the placements of the skeleton's tasks on the platform's nodes and rank\n"
            "them by the job's steady-state throughput: items through the skeleton per\n"
            "second (entering its first stage, equivalently leaving its last).\n"
            "\n"
            "  --platform FILE    node speeds and latencies (docs/platform.md); required\n"
            "  --pin tN=NODE      task tN must run on NODE (repeatable, or t0=a,t1=b)\n"
            "  --candidates FILE  search only these placements, one per line: the nodes of\n"
            "                     t0, t1, ... separated by commas ('p1,p2,p3'); '#' comments\n"
            "  --top K            rank the K best placements (default 10)\n"
            "  --budget SECONDS   stop after this long with the best found so far and a\n"
            "                     bound on what the rest may hold\n"
            "  --style S          producer (default, Yaikhom et al. 2007) or stream (Benoit et al. 2004)\n"
            "  --sharing S        ps (default: the tasks computing share a node) or static\n"
            "                     (Speed/n at all times, Benoit et al. 2004); overrides Sharing=\n"
            "  --buffer N         items every move may hold (the job's buffering, #SKEL\n"
            "                     --buffer); default: the platform's Buffer=, 0 = rendezvous\n"
            "  --link-scv C       squared coefficient of variation of a move's time;\n"
            "                     overrides LinkSCV=\n"
            "  --max-states N     derive the chain up to N states (default 2000000; the\n"
            "                     plugin's MaxStates=); past it the approximate search answers\n"
            "  --json             one JSON object on standard output\n"
            "\n"
            "Placements that differ only by swapping interchangeable nodes (same speed,\n"
            "same links) are solved once; equal throughputs (1e-9 relative) share a rank.\n"
            "Exit status: 0 ok, 1 bad input, 2 usage error.\n");
}

typedef struct map_args {
    const char *skel, *platform, *candidates, *sharing, *buffer, *link_scv;
    char *pins;              /* all --pin values joined by ',' */
    int top, json;
    double budget;
    unsigned long max_states;   /* --max-states (0: the search's default) */
    skel_style style;
} map_args;

static int add_pin(map_args *a, const char *v)
{
    size_t old = a->pins ? strlen(a->pins) : 0, len = strlen(v);
    if (mem_grow((void **)&a->pins, old + len + 2, 1) < 0) {
        fprintf(stderr, "skelsched map: out of memory\n");
        return -1;
    }
    char *p = a->pins;
    if (old)
        p[old++] = ',';
    memcpy(p + old, v, len + 1);
    return 0;
}

typedef enum map_opt {
    MAP_HELP, MAP_PLATFORM, MAP_CANDIDATES, MAP_PIN, MAP_TOP, MAP_BUDGET, MAP_SHARING, MAP_BUFFER,
    MAP_LINK_SCV, MAP_STYLE, MAP_JSON, MAP_MAX_STATES
} map_opt;

static const cli_opt map_opts[] = {
    { "--help", MAP_HELP, CLI_FLAG },            { "-h", MAP_HELP, CLI_FLAG },
    { "--platform", MAP_PLATFORM, CLI_VALUE },   { "--candidates", MAP_CANDIDATES, CLI_VALUE },
    { "--pin", MAP_PIN, CLI_VALUE },             { "--top", MAP_TOP, CLI_VALUE },
    { "--budget", MAP_BUDGET, CLI_VALUE },       { "--sharing", MAP_SHARING, CLI_VALUE },
    { "--buffer", MAP_BUFFER, CLI_VALUE },       { "--link-scv", MAP_LINK_SCV, CLI_VALUE },
    { "--style", MAP_STYLE, CLI_VALUE },         { "--json", MAP_JSON, CLI_FLAG },
    { "--max-states", MAP_MAX_STATES, CLI_VALUE },
    { NULL, 0, CLI_FLAG }
};

/* One option (code c, value v); -1 to go on, else the exit code. */
static int take_option(map_args *a, int c, const char *v)
{
    unsigned long long u;
    switch ((map_opt)c) {
    case MAP_HELP: usage(stdout); return 0;
    case MAP_PLATFORM: a->platform = v; break;
    case MAP_CANDIDATES: a->candidates = v; break;
    case MAP_PIN: return add_pin(a, v) < 0 ? 1 : -1;
    case MAP_TOP:
        if (cli_ulong_in("map", "--top", v, 1, 100000, &u) < 0)
            return 2;
        a->top = (int)u;
        break;
    case MAP_BUDGET:
        if (cli_double("map", "--budget", v, &a->budget) < 0 || !(a->budget > 0)) {
            fprintf(stderr, "skelsched map: --budget must be a positive number of seconds\n");
            return 2;
        }
        break;
    case MAP_SHARING:
        if (cli_sharing_arg("map", v) < 0)
            return 2;
        a->sharing = v;
        break;
    case MAP_BUFFER: a->buffer = v; break;
    case MAP_LINK_SCV: a->link_scv = v; break;
    case MAP_STYLE:
        if (cli_style_parse(v, &a->style) < 0) {
            fprintf(stderr, "skelsched map: --style must be producer or stream, not '%s'\n", v);
            return 2;
        }
        break;
    case MAP_JSON: a->json = 1; break;
    case MAP_MAX_STATES:
        if (cli_ulong_in("map", "--max-states", v, 1, SLURMSK_MAX_STATES_LIMIT, &u) < 0)
            return 2;
        a->max_states = (unsigned long)u;
        break;
    }
    return -1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, map_args *a)
{
    cli_parser p;
    cli_parser_init(&p, "map", argc, argv, map_opts, CLI_EXACT);
    for (int c, rc; (c = cli_parser_next(&p)) != CLI_END;) {
        if (c == CLI_NO_VALUE)
            return cli_no_value(&p);
        if (c == CLI_UNKNOWN) {
            fprintf(stderr, "skelsched map: unknown option '%s'\n", p.arg);
            usage(stderr);
            return 2;
        }
        if (c == CLI_OPERAND && a->skel) {
            fprintf(stderr, "skelsched map: one skeleton description only\n");
            return 2;
        }
        if (c == CLI_OPERAND)
            a->skel = p.arg;
        else if ((rc = take_option(a, c, p.value)) >= 0)
            return rc;
    }
    if (!a->skel || !a->platform) {
        fprintf(stderr, "skelsched map: %s\n", a->skel ? "--platform FILE is required"
                                                       : "expected a skeleton description");
        usage(stderr);
        return 2;
    }
    return -1;
}

/* One candidate line (s: its first non-blank character) into pl, the
 * node of each of the ntasks tasks. Returns 0, or -1 with a message naming
 * path, lineno and the column. */
static int parse_candidate(const char *path, int lineno, char *line, char *s, const skel_platform *p,
                           int ntasks, int *pl, diag *err)
{
    for (int t = 0;; t++) {
        while (*s == ' ' || *s == '\t')
            s++;
        char *name = s;
        while (*s && *s != ',' && !isspace((unsigned char)*s))
            s++;
        char *end = s;
        while (*s == ' ' || *s == '\t')
            s++;
        int col = (int)(name - line) + 1;
        if (end == name)
            return diag_at(err, path, lineno, col, "expected a node name");
        if (t >= ntasks)
            return diag_at(err, path, lineno, col, "more nodes than the %d tasks", ntasks);
        char c = *end;
        *end = '\0';
        int node = skel_platform_find(p, name);
        if (node < 0)
            return diag_at(err, path, lineno, col, "no node '%s' in %s", name, p->file);
        *end = c;
        pl[t] = node;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s && *s != '\n' && *s != '\r')
            return diag_at(err, path, lineno, (int)(s - line) + 1, "expected ',' or the end of the line");
        if (t + 1 != ntasks)
            return diag_at(err, path, lineno, (int)(s - line) + 1,
                           "%d nodes for the %d tasks t0..t%d", t + 1, ntasks, ntasks - 1);
        return 0;
    }
}

/* Read the candidates file: one placement per line, node names separated
 * by commas; blank lines and '#' comments are skipped. */
static int read_candidates(const char *path, const skel_platform *p, int ntasks, int **out,
                           int *count, diag *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f)
        return diag_set(err, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int *cand = NULL, n = 0, ncap = 0, lineno = 0, rc = 0;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            rc = diag_at(err, path, lineno, 1, "NUL byte in the candidates file");
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            continue;
        if (n == ncap) {
            int nc = ncap ? 2 * ncap : 16;
            if (nc > 1000000 || mem_grow((void **)&cand, (size_t)nc * (size_t)ntasks, sizeof *cand) < 0) {
                rc = diag_at(err, path, lineno, 1, nc > 1000000 ? "more than 1000000 candidates"
                                                                 : "out of memory");
                break;
            }
            ncap = nc;
        }
        rc = parse_candidate(path, lineno, line, s, p, ntasks, cand + (size_t)n * (size_t)ntasks, err);
        n++;
    }
    if (rc == 0 && ferror(f))
        rc = diag_set(err, "%s: read error", path);
    if (rc == 0 && n == 0)
        rc = diag_set(err, "%s: no candidate placements", path);
    free(line);
    if (f != stdin)
        fclose(f);
    if (rc) {
        free(cand);
        return -1;
    }
    *out = cand;
    *count = n;
    return 0;
}

typedef struct bar {
    int shown;
} bar;

static void progress(void *ctx, double done, double seconds)
{
    bar *b = ctx;
    if (seconds < 1.0)
        return;
    int width = 40, fill = (int)(done * width + 0.5);
    fill = fill < 0 ? 0 : fill > width ? width : fill;
    fprintf(stderr, "\r[%.*s%*s] %5.1f%% %6.1f s", fill, "########################################",
            width - fill, "", 100 * done, seconds);
    b->shown = 1;
}

/* The bottleneck's name, "tN", or "-" when the search could not name it
 * (an estimate's task of unknown visit ratio: skel_search_entry). */
static const char *bottleneck_name(const skel_search_entry *e, char *buf, size_t size)
{
    if (e->bottleneck == SKEL_BOTTLENECK_UNKNOWN)
        return "-";
    snprintf(buf, size, "t%d", e->bottleneck);
    return buf;
}

/* One ranked placement (key: as for cli_json_object): its nodes,
 * throughput, rank, bottleneck, and the utilisation of every node it uses
 * and of every task; an unknown one (NAN) is null, as is an unknown
 * bottleneck. */
static void json_placement(cli_json *j, const char *key, const skel_search_result *r,
                           const skel_platform *p, const skel_search_entry *e)
{
    char bottleneck[32];
    bottleneck_name(e, bottleneck, sizeof bottleneck);
    cli_json_object(j, key);
    cli_json_array(j, "placement");
    for (int i = 0; i < r->ntasks; i++)
        cli_json_string(j, NULL, p->nodes[e->placement[i]].name);
    cli_json_end(j);
    cli_json_number(j, "throughput", e->throughput);
    cli_json_int(j, "rank", e->rank);
    if (e->bottleneck == SKEL_BOTTLENECK_UNKNOWN)
        cli_json_null(j, "bottleneck");
    else
        cli_json_string(j, "bottleneck", bottleneck);
    cli_json_object(j, "utilisation");
    for (int n = 0; n < r->nnodes; n++) {
        int used = 0;
        for (int i = 0; i < r->ntasks && !used; i++)
            used = e->placement[i] == n;
        if (used)                /* idle nodes: 0, left out to keep it short */
            cli_json_number(j, p->nodes[n].name, e->node_util[n]);
    }
    cli_json_end(j);
    cli_json_array(j, "task_utilisation");
    for (int i = 0; i < r->ntasks; i++)
        cli_json_number(j, NULL, e->task_util[i]);
    cli_json_end(j);
    cli_json_end(j);
}

static void print_json(const skel_search_result *r, const skel_platform *p)
{
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    json_placement(&j, "best", r, p, &r->ranked[0]);
    cli_json_array(&j, "ranked");
    for (int i = 0; i < r->nranked; i++)
        json_placement(&j, NULL, r, p, &r->ranked[i]);
    cli_json_end(&j);
    cli_json_int(&j, "ties", r->ties);
    cli_json_bool(&j, "optimal", r->optimal);
    cli_json_number(&j, "bound", r->bound);
    cli_json_number(&j, "gap", r->gap);
    /* counts of placements are doubles: n^t overflows any integer */
    cli_json_int(&j, "evaluated", (long long)r->evaluated);
    cli_json_number(&j, "pruned", r->pruned);
    cli_json_number(&j, "symmetric", r->symmetric);
    cli_json_number(&j, "placements", r->total);
    cli_json_int(&j, "states", (long long)r->states);
    cli_json_int(&j, "transitions", (long long)r->transitions);
    cli_json_numberf(&j, "seconds", "%.6f", r->seconds);
    cli_json_string(&j, "method", skel_search_method_name(r->method));
    cli_json_number(&j, "constructive", r->constructive);
    cli_json_string(&j, "why", r->why);
    cli_json_end(&j);
    fputc('\n', stdout);
}

/* The large-scale search's answer: what it is and why. */
static void print_exact(const map_args *a, const skel_search_result *r)
{
    printf("skeleton     %s (%d tasks, %lu states, %llu transitions)\n", a->skel, r->ntasks,
           r->states, r->transitions);
    printf("platform     %s (%d nodes)\n", a->platform, r->nnodes);
    printf("placements   %.0f%s: %llu solved, %.0f cut by bounds, %.0f symmetric, in %.3f s\n",
           r->total, a->candidates ? " candidates" : "", r->evaluated, r->pruned, r->symmetric,
           r->seconds);
    if (r->optimal)
        printf("optimal      yes%s\n", r->ties > 1 ? " (tied)" : "");
    else if (isfinite(r->bound))
        printf("optimal      not proven: the budget ran out; unexplored placements are at most "
               "%.6g (gap %.3g%%)\n", r->bound, 100 * r->gap);
    else
        printf("optimal      not proven: the budget ran out during a solve\n");
}

/* Without the whole chain: the bound on every placement (capacity of the
 * nodes, tasks' cycles, stages) against the answer's value. */
static void print_unproven(const skel_search_result *r)
{
    if (isfinite(r->bound) && r->bound > 0)
        printf("optimal      not proven: every placement is at most %.6g (bounds), gap %.3g%%\n",
               r->bound, 100 * r->gap);
    else
        printf("optimal      not proven\n");
}

static void print_approx(const map_args *a, const skel_search_result *r)
{
    printf("skeleton     %s (%d tasks)\n", a->skel, r->ntasks);
    printf("platform     %s (%d nodes)\n", a->platform, r->nnodes);
    printf("method       approximate: %s\n", r->why);
    printf("             constructive placement, then local moves valued by %s\n", r->estimator);
    printf("             (try `skelsched simulate` on the best placement for a confidence interval)\n");
    printf("constructive %.6g in %.3f ms; answered in %.3f s\n", r->constructive,
           1000 * r->constructive_secs, r->seconds);
    print_unproven(r);
}

/* The whole chain did not fit; the placements ranked were solved exactly
 * on their lumped chains (docs/mapping.md). */
static void print_lumped(const map_args *a, const skel_search_result *r)
{
    printf("skeleton     %s (%d tasks; lumped chains of at most %lu states)\n", a->skel, r->ntasks,
           r->states);
    printf("platform     %s (%d nodes)\n", a->platform, r->nnodes);
    printf("method       lumped: %s\n", r->why);
    printf("             the large-scale search's placements, each solved exactly on its chain\n"
           "             with a farm's interchangeable members lumped\n");
    printf("constructive %.6g in %.3f ms; answered in %.3f s\n", r->constructive,
           1000 * r->constructive_secs, r->seconds);
    print_unproven(r);
}

static void print_table(const map_args *a, const skel_search_result *r, const skel_platform *p)
{
    if (r->method == SKEL_SEARCH_APPROX)
        print_approx(a, r);
    else if (r->method == SKEL_SEARCH_LUMPED)
        print_lumped(a, r);
    else
        print_exact(a, r);
    printf("\n%-5s %-14s %-10s %s\n", "rank", "throughput", "bottleneck", "placement (t0 t1 ...)");
    for (int i = 0; i < r->nranked; i++) {
        const skel_search_entry *e = &r->ranked[i];
        char bn[16];
        printf("%-5d %-14.10g %-10s", e->rank, e->throughput, bottleneck_name(e, bn, sizeof bn));
        for (int t = 0; t < r->ntasks; t++)
            printf(" %s", p->nodes[e->placement[t]].name);
        putchar('\n');
    }
    const skel_search_entry *b = &r->ranked[0];
    printf("\nutilisation of the best placement's nodes:\n");
    for (int j = 0; j < r->nnodes; j++) {
        int used = 0;
        for (int t = 0; t < r->ntasks && !used; t++)
            used = b->placement[t] == j;
        if (used && isnan(b->node_util[j]))   /* unknown: skel_search_entry */
            printf("  %-20s -\n", p->nodes[j].name);
        else if (used)
            printf("  %-20s %.6f\n", p->nodes[j].name, b->node_util[j]);
    }
}

int cmd_map(int argc, char **argv)
{
    map_args a = { 0 };
    a.style = SKEL_STYLE_PRODUCER;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        free(a.pins);
        return rc;
    }
    diag err;
    diag_clear(&err);
    rc = 1;
    cli_input in = { 0 };
    cli_input_opts io = { a.platform, NULL, a.style, 1, a.sharing, 1, a.buffer, a.link_scv, 1 };
    const skel_platform *plat = NULL;
    int *pins = NULL, *cand = NULL, ncand = 0;
    skel_search_result *res = NULL;
    bar b = { 0 };

    /* a skeleton description, or a BPEL process imported as one */
    if (cli_input_load(a.skel, &io, &in, &err) < 0)
        goto out;
    plat = in.platform;
    int n = skel_tree_ntasks(in.tree);
    if (!(pins = malloc((size_t)n * sizeof *pins))) {
        diag_set(&err, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++)
        pins[i] = -1;
    if (a.pins && skel_place_parse(a.pins, n, plat, pins, &err) < 0) {
        diag_prefix(&err, "--pin: ");
        goto out;
    }
    if (a.candidates && read_candidates(a.candidates, plat, n, &cand, &ncand, &err) < 0)
        goto out;
    skel_search_opts so = { 0 };
    so.pins = pins;
    so.candidates = cand;
    so.ncandidates = ncand;
    so.top = a.top;
    so.budget = a.budget;
    so.max_states = a.max_states;
    so.tree = in.tree;
    if (!a.json && isatty(STDERR_FILENO)) {
        so.progress = progress;
        so.progress_ctx = &b;
    }
    res = skel_search(in.skel, in.dag, plat, &so, &err);
    if (b.shown)
        fprintf(stderr, "\r%*s\r", 60, "");
    if (!res)
        goto out;
    if (a.json)
        print_json(res, plat);
    else
        print_table(&a, res, plat);
    if (cli_flush_stdout(&err) < 0)
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "skelsched map: %s\n", err.set ? err.msg : "failed");
    skel_search_result_free(res);
    free(cand);
    free(pins);
    cli_input_free(&in);
    free(a.pins);
    return rc;
}
