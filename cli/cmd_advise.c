/* skelsched advise: replication advice for a placed skeleton - its
 * bottleneck, the throughput of replicating it as a deal or a farm over
 * free nodes, of merging fast stages, and the smallest replication that
 * reaches a target; --sweep reproduces Yaikhom et al. 2007's Fig. 5-6
 * (docs/advice.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "input.h"
#include "util.h"
#include "cli/json.h"
#include "../advice/advice.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched advise SKELETON [--platform FILE] [--place t0=NODE,...]\n"
            "                        [--task tN] [--replicas K] [--target X] [--no-merge]\n"
            "                        [--style producer|stream] [--json]\n"
            "       skelsched advise SKELETON --sweep tI,tJ,...=FROM:TO:STEP [--plot PREFIX]\n"
            "                        [--task tN] [--replicas K] [--platform FILE] [--place ...]\n"
            "\n"
            "Find the bottleneck of the placed skeleton with the Markov model and solve the\n"
            "options: the bottleneck replicated as a deal (round robin) and as a farm (on\n"
            "demand) of 2..K copies, the copies on the fastest free nodes; two consecutive\n"
            "pipe stages merged into one sequential stage, or grouped on one node, where\n"
            "Zavanella 1999's rule allows it.\n"
            "\n"
            "  --platform FILE   node speeds and latencies (docs/platform.md). Without it:\n"
            "                    one node of Speed=1 per task plus K-1 free ones, rate-1 moves\n"
            "  --place SPEC      where the tasks run (default: round robin in node order)\n"
            "  --task tN         replicate tN instead of the bottleneck\n"
            "  --replicas K      largest degree tried (default 4; at most 1 + free nodes)\n"
            "  --target X        throughput wanted: report the smallest replication reaching it\n"
            "  --no-merge        no merged or grouped stages\n"
            "  --style S         producer (default, Yaikhom et al. 2007) or stream (Benoit et al. 2004)\n"
            "  --sharing S       ps (default: tasks computing share a node) or static\n"
            "                    (Speed/n, Benoit et al. 2004); overrides the platform's Sharing=\n"
            "  --json            one JSON object on standard output\n"
            "  --sweep SPEC      set the listed tasks' rate to FROM, FROM+STEP, ... TO and solve,\n"
            "                    for each value: 'uniform' (the replicated task at that rate\n"
            "                    too), 'current', deal and farm of 2..K (default K 3)\n"
            "  --plot PREFIX     with --sweep: write PREFIX.dat, PREFIX.gp and, with gnuplot,\n"
            "                    PREFIX-bottleneck.svg and PREFIX-replication.svg\n"
            "\n"
            "Throughput is the items per second entering the skeleton (the first stage's\n"
            "tasks together). Exit status: 0 ok, 1 bad input, 2 usage error.\n");
}

typedef struct args {
    const char *skel, *sweep, *plot;
    cli_input_opts io;
    int task, replicas, json, no_merge;
    double target;
} args;

static int task_arg(const char *v, int *out)
{
    char *end;
    errno = 0;
    long t = v[0] == 't' ? strtol(v + 1, &end, 10) : -1;
    if (t < 0 || *end || errno || t > SKEL_MAX_TASKS) {
        fprintf(stderr, "skelsched advise: --task wants tN, not '%s'\n", v);
        return -1;
    }
    *out = (int)t;
    return 0;
}

typedef enum advise_opt {
    ADV_HELP, ADV_SWEEP, ADV_PLOT, ADV_TASK, ADV_REPLICAS, ADV_TARGET, ADV_JSON, ADV_NO_MERGE
} advise_opt;

static const cli_opt advise_opts[] = {
    CLI_INPUT_OPTS,
    { "--help", ADV_HELP, CLI_FLAG },             { "-h", ADV_HELP, CLI_FLAG },
    { "--sweep", ADV_SWEEP, CLI_VALUE },          { "--plot", ADV_PLOT, CLI_VALUE },
    { "--task", ADV_TASK, CLI_VALUE },            { "--replicas", ADV_REPLICAS, CLI_VALUE },
    { "--target", ADV_TARGET, CLI_VALUE },        { "--json", ADV_JSON, CLI_FLAG },
    { "--no-merge", ADV_NO_MERGE, CLI_FLAG },     { NULL, 0, CLI_FLAG }
};

/* One option (code c, value v); -1 to go on, else the exit code. */
static int take_option(void *cmd_args, int c, const char *v)
{
    args *a = cmd_args;
    unsigned long long u;
    switch ((advise_opt)c) {
    case ADV_HELP: usage(stdout); return 0;
    case ADV_SWEEP: a->sweep = v; break;
    case ADV_PLOT: a->plot = v; break;
    case ADV_TASK: return task_arg(v, &a->task) < 0 ? 2 : -1;
    case ADV_REPLICAS:
        if (cli_ulong_in("advise", "--replicas", v, 2, 64, &u) < 0)
            return 2;
        a->replicas = (int)u;
        break;
    case ADV_TARGET:
        if (cli_double("advise", "--target", v, &a->target) < 0 || !(a->target > 0)) {
            fprintf(stderr, "skelsched advise: --target must be a positive throughput\n");
            return 2;
        }
        break;
    case ADV_JSON: a->json = 1; break;
    case ADV_NO_MERGE: a->no_merge = 1; break;
    }
    return -1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, args *a)
{
    cli_parser p;
    cli_parser_init(&p, "advise", argc, argv, advise_opts, CLI_EXACT);
    int rc = cli_parse_input(&p, &a->skel, &a->io, take_option, a, usage);
    if (rc >= 0)
        return rc;
    if (a->plot && !a->sweep) {
        fprintf(stderr, "skelsched advise: --plot goes with --sweep\n");
        return 2;
    }
    return -1;
}

/* "t0,t1,t3=100:500:50" */
static int parse_sweep(const char *spec, int ntasks, adv_sweep_opts *o, int *tasks, diag *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return diag_set(err, "--sweep: expected tI,tJ,...=FROM:TO:STEP, not '%s'", spec);
    const char *s = spec;
    o->nswept = 0;
    while (s < eq) {
        char *end;
        long t = *s == 't' ? strtol(s + 1, &end, 10) : -1;
        if (t < 0 || end > eq || (end != eq && *end != ','))
            return diag_set(err, "--sweep: expected a task tN at '%.*s'", (int)(eq - s), s);
        if (t >= ntasks)
            return diag_set(err, "--sweep: no task t%ld (the skeleton has t0..t%d)", t, ntasks - 1);
        for (int i = 0; i < o->nswept; i++)
            if (tasks[i] == t)
                return diag_set(err, "--sweep: t%ld listed twice", t);
        tasks[o->nswept++] = (int)t;
        s = end == eq ? eq : end + 1;
    }
    if (o->nswept == 0)
        return diag_set(err, "--sweep: no tasks before '='");
    char *end;
    errno = 0;
    o->from = strtod(eq + 1, &end);
    if (*end == ':')
        o->to = strtod(end + 1, &end);
    if (*end == ':')
        o->step = strtod(end + 1, &end);
    if (*end || errno || !(o->from > 0) || !(o->to >= o->from) || !(o->step > 0))
        return diag_set(err, "--sweep: expected FROM:TO:STEP with 0 < FROM <= TO, STEP > 0 "
                        "after '=', not '%s'", eq + 1);
    o->swept = tasks;
    return 0;
}

/* The nodes an option uses (a merge: the one it keeps), for the table. */
static void node_list(FILE *f, const skel_platform *p, const adv_option *o)
{
    int n = o->kind >= ADV_MERGE ? 1 : o->nnodes;
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? " " : "", p->nodes[o->nodes[i]].name);
}

static void print_table(const args *a, const skel_platform *p, const skel_tree *t,
                        const int *place, const adv_report *r)
{
    const adv_eval *c = &r->current;
    const skel_node *bt = skel_tree_task(t, c->bottleneck);
    printf("skeleton     %s (%d tasks, %lu states)\n", a->skel, c->ntasks, c->states);
    printf("platform     %s (%d nodes, %d free)\n", p->file, p->nnodes, r->nfree);
    printf("throughput   %.10g\n", c->throughput);
    printf("bottleneck   t%d \"%s\" on %s, utilisation %.4f\n", c->bottleneck, bt->name,
           p->nodes[place[c->bottleneck]].name, c->task_util[c->bottleneck]);
    printf("replicating  t%d\n\n", r->task);
    printf("%-12s %-8s %-14s %-10s %s\n", "option", "replicas", "throughput", "gain", "nodes");
    for (int i = 0; i < r->noptions; i++) {
        const adv_option *o = &r->options[i];
        char name[32], deg[16];
        if (o->kind >= ADV_MERGE) {
            snprintf(name, sizeof name, "%s t%d+t%d", adv_kind_name(o->kind), o->task, o->task + 1);
            snprintf(deg, sizeof deg, "-");
        } else {
            snprintf(name, sizeof name, "%s", adv_kind_name(o->kind));
            snprintf(deg, sizeof deg, "%d", o->degree);
        }
        char gain[32];
        snprintf(gain, sizeof gain, "%+.2f%%", 100 * (o->throughput / c->throughput - 1));
        printf("%-12s %-8s %-14.10g %-10s ", name, deg, o->throughput, gain);
        node_list(stdout, p, o);
        if (o->kind >= ADV_MERGE && o->nnodes == 2)
            printf(" (frees %s)", p->nodes[o->nodes[1]].name);
        putchar('\n');
    }
    if (r->nfree == 0)
        printf("(no free node to put a replica of t%d on: add nodes to the platform, or free\n"
               " one by merging stages)\n", r->task);
    else if (r->noptions == 0)
        printf("(no options)\n");
    if (a->target > 0) {
        putchar('\n');
        if (c->throughput >= a->target)
            printf("target       %g: met already (%.6g)\n", a->target, c->throughput);
        else if (r->reach < 0)
            printf("target       %g: no replication tried reaches it\n", a->target);
        else {
            const adv_option *o = &r->options[r->reach];
            printf("target       %g: %s of %d (", a->target, adv_kind_name(o->kind), o->degree);
            node_list(stdout, p, o);
            printf("), throughput %.6g\n", o->throughput);
        }
    }
}

/* One option: what it does, its throughput and the nodes it uses. */
static void json_option(cli_json *j, const skel_platform *p, const adv_option *o)
{
    char task[32];
    snprintf(task, sizeof task, "t%d", o->task);
    cli_json_object(j, NULL);
    cli_json_string(j, "kind", adv_kind_name(o->kind));
    cli_json_string(j, "task", task);
    cli_json_int(j, "degree", o->degree);
    cli_json_number(j, "throughput", o->throughput);
    cli_json_array(j, "nodes");
    for (int i = 0; i < (o->kind >= ADV_MERGE ? 1 : o->nnodes); i++)
        cli_json_string(j, NULL, p->nodes[o->nodes[i]].name);
    cli_json_end(j);
    if (o->kind >= ADV_MERGE && o->nnodes == 2)
        cli_json_string(j, "frees", p->nodes[o->nodes[1]].name);
    else if (o->kind >= ADV_MERGE)
        cli_json_null(j, "frees");
    cli_json_end(j);
}

/* "target" and "reach": the first option reaching --target, "current"
 * when the placement already does, null when none does or no target. */
static void json_target(cli_json *j, const args *a, const adv_report *r)
{
    if (!(a->target > 0)) {
        cli_json_null(j, "target");
        return;
    }
    cli_json_number(j, "target", a->target);
    if (r->reach >= 0) {
        cli_json_object(j, "reach");
        cli_json_string(j, "kind", adv_kind_name(r->options[r->reach].kind));
        cli_json_int(j, "degree", r->options[r->reach].degree);
        cli_json_end(j);
    } else if (r->current.throughput >= a->target) {
        cli_json_string(j, "reach", "current");
    } else {
        cli_json_null(j, "reach");
    }
}

static void print_json(const args *a, const skel_platform *p, const adv_report *r)
{
    const adv_eval *c = &r->current;
    char bottleneck[32], replicated[32];
    snprintf(bottleneck, sizeof bottleneck, "t%d", c->bottleneck);
    snprintf(replicated, sizeof replicated, "t%d", r->task);
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "skeleton", a->skel);
    cli_json_int(&j, "states", (long long)c->states);
    cli_json_number(&j, "throughput", c->throughput);
    cli_json_string(&j, "bottleneck", bottleneck);
    cli_json_number(&j, "utilisation", c->task_util[c->bottleneck]);
    cli_json_string(&j, "replicated", replicated);
    cli_json_int(&j, "free_nodes", r->nfree);
    cli_json_array(&j, "options");
    for (int i = 0; i < r->noptions; i++)
        json_option(&j, p, &r->options[i]);
    cli_json_end(&j);
    json_target(&j, a, r);
    cli_json_end(&j);
    fputc('\n', stdout);
}

static int write_sweep(const args *a, const adv_sweep *s, const skel_tree *t, diag *err)
{
    size_t len = strlen(a->plot) + 32;
    char *dat = malloc(len), *gp = malloc(len), *svg1 = malloc(len), *svg2 = malloc(len);
    int rc = -1;
    FILE *f = NULL;
    if (!dat || !gp || !svg1 || !svg2) {
        diag_set(err, "out of memory");
        goto out;
    }
    snprintf(dat, len, "%s.dat", a->plot);
    snprintf(gp, len, "%s.gp", a->plot);
    snprintf(svg1, len, "%s-bottleneck.svg", a->plot);
    snprintf(svg2, len, "%s-replication.svg", a->plot);
    if (!(f = fopen(dat, "w"))) {
        diag_set(err, "--plot: cannot write %s: %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# skelsched advise --sweep %s %s (t%d replicated)\n# rate", a->sweep, a->skel,
            s->task);
    for (int c = 0; c < s->ncols; c++)
        fprintf(f, " %s", s->col[c]);
    fputc('\n', f);
    for (int k = 0; k < s->npoints; k++) {
        fprintf(f, "%g", s->x[k]);
        for (int c = 0; c < s->ncols; c++)
            fprintf(f, " %.10g", s->y[(size_t)k * (size_t)s->ncols + (size_t)c]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        f = NULL;
        diag_set(err, "--plot: error writing %s", dat);
        goto out;
    }
    if (!(f = fopen(gp, "w"))) {
        diag_set(err, "--plot: cannot write %s: %s", gp, strerror(errno));
        goto out;
    }
    /* Fig. 5: uniform against current; Fig. 6: current and the replicas */
    const skel_node *bt = skel_tree_task(t, s->task);
    fprintf(f, "# gnuplot %s  (written by skelsched advise --plot)\n"
               "set terminal svg size 720,450 font 'sans,11'\n"
               "set xlabel 'Rate'\nset ylabel 'Throughput'\nset key left top\nset grid\n"
               "set style data linespoints\n", gp);
    fprintf(f, "set output '%s'\nset title 'Bottleneck t%d (%s, rate %g)'\n", svg1, s->task,
            bt->name, bt->rate);
    fprintf(f, "plot '%s' using 1:2 title 'uniform' lw 2, '' using 1:3 title 'bottleneck' lw 2\n",
            dat);
    fprintf(f, "set output '%s'\nset title 't%d replicated'\nplot '%s' using 1:3 title "
               "'bottleneck' lw 2", svg2, s->task, dat);
    for (int c = 2; c < s->ncols; c++)
        fprintf(f, ", '' using 1:%d title '%s' lw 2", c + 2, s->col[c]);
    fputc('\n', f);
    if (fclose(f) != 0) {
        f = NULL;
        diag_set(err, "--plot: error writing %s", gp);
        goto out;
    }
    f = NULL;
    if (cli_gnuplot(gp, svg1, err) < 0) {
        /* the data and script stay: they are the result without gnuplot */
        fprintf(stderr, "skelsched advise: %s; wrote %s and %s\n", err->msg, dat, gp);
        diag_clear(err);
    } else {
        printf("wrote %s, %s, %s, %s\n", dat, gp, svg1, svg2);
    }
    rc = 0;
out:
    if (f)
        fclose(f);
    free(dat);
    free(gp);
    free(svg1);
    free(svg2);
    return rc;
}

static void print_sweep(const adv_sweep *s)
{
    printf("%-10s", "rate");
    for (int c = 0; c < s->ncols; c++)
        printf(" %-12s", s->col[c]);
    putchar('\n');
    for (int k = 0; k < s->npoints; k++) {
        printf("%-10g", s->x[k]);
        for (int c = 0; c < s->ncols; c++)
            printf(" %-12.6g", s->y[(size_t)k * (size_t)s->ncols + (size_t)c]);
        putchar('\n');
    }
}

int cmd_advise(int argc, char **argv)
{
    args a = { 0 };
    a.task = -1;
    a.io.style = SKEL_STYLE_PRODUCER;
    a.io.skeleton = 1;
    a.io.unplaced = 1;      /* adv_evaluate builds its own models */
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    diag err;
    diag_clear(&err);
    rc = 1;
    cli_input in = { 0 };
    adv_report rep = { 0 };
    adv_sweep sw = { 0 };
    int *swept = NULL;
    if (cli_input_load(a.skel, &a.io, &in, &err) < 0)
        goto out;
    int nt = skel_tree_ntasks(in.tree);
    int k = a.replicas ? a.replicas : a.sweep ? 3 : 4;
    if (!a.io.platform) {
        /* the default platform, with room for the replicas */
        skel_platform *p = skel_platform_default(nt + k - 1, &err);
        if (!p)
            goto out;
        skel_platform_free(in.platform);
        in.platform = p;
    }
    if (a.task >= nt) {
        diag_set(&err, "--task: no task t%d (the skeleton has t0..t%d)", a.task, nt - 1);
        goto out;
    }
    if (a.sweep) {
        adv_sweep_opts so = { .style = a.io.style, .task = a.task, .max_replicas = k };
        if (!(swept = malloc((size_t)nt * sizeof *swept))) {
            diag_set(&err, "out of memory");
            goto out;
        }
        if (parse_sweep(a.sweep, nt, &so, swept, &err) < 0 ||
            adv_sweep_run(in.tree, in.platform, in.node_of_task, &so, &sw, &err) < 0)
            goto out;
        print_sweep(&sw);
        if (a.plot && write_sweep(&a, &sw, in.tree, &err) < 0)
            goto out;
    } else {
        adv_opts ao = { .style = a.io.style, .max_replicas = k, .target = a.target, .task = a.task,
                        .no_merge = a.no_merge };
        if (adv_advise(in.tree, in.platform, in.node_of_task, &ao, &rep, &err) < 0)
            goto out;
        if (a.json)
            print_json(&a, in.platform, &rep);
        else
            print_table(&a, in.platform, in.tree, in.node_of_task, &rep);
    }
    if (cli_flush_stdout(&err) < 0)
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "skelsched advise: %s\n", err.set ? err.msg : "failed");
    free(swept);
    adv_sweep_free(&sw);
    adv_report_free(&rep);
    cli_input_free(&in);
    return rc;
}
