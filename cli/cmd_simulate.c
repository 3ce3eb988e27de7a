/* skelsched simulate: steady-state estimates of a PEPA model, skeleton or
 * BPEL process by stochastic simulation (sim/), for models whose chain is
 * too large to derive; 95% confidence intervals over replications. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "cli/cmds.h"
#include "cli/model.h"
#include "cli/opt.h"
#include "cli/util.h"
#include "cli/json.h"
#include "sim/sim.h"

static void usage(FILE *f)
{
    fputs("usage: skelsched simulate MODEL.pepa|SKELETON|PROCESS.bpel [--platform F --place SPEC]\n"
          "                 [--events N | --until T] [--warmup X] [--reps R] [--seed S]\n"
          "                 [--threads N] [--precision X [--precision-on A]\n"
          "                 [--time-limit S]] [--no-local] [--json]\n"
          "\n"
          "Stochastic simulation (Gillespie) of the model's CTMC, generating each state's\n"
          "transitions on the fly: no state space is stored, so any size of model runs.\n"
          "Independent replications (on every core) give the throughput of every action\n"
          "and the local-state measures with a 95% confidence interval. The same seed\n"
          "gives the same numbers whatever the number of threads.\n"
          "\n"
          "  --platform FILE    node speeds and latencies, for a skeleton (docs/platform.md)\n"
          "  --place SPEC       t0=NODE,t1=NODE,...: where each task runs (default round robin)\n"
          "  --style S          producer (default) or stream: a skeleton's boundaries\n"
          "  --events N         measured events per replication (default 100000)\n"
          "  --until T          measure T units of simulated time per replication instead\n"
          "  --warmup X         discarded first: X events, or X time units with --until\n"
          "                     (default a tenth of the measured length)\n"
          "  --reps R           independent replications, 2 .. 100000 (default 10)\n"
          "  --seed S           random seed (default 1)\n"
          "  --threads N        worker threads (default: every core)\n"
          "  --precision X      double the replications' length until every throughput's\n"
          "                     CI half-width is within X of it (e.g. 0.01 for 1%)\n"
          "  --precision-on A   the precision for action A's throughput only\n"
          "  --time-limit S     stop extending after S seconds (default 300; the precision\n"
          "                     not met: a warning)\n"
          "  --no-local         throughputs only (skips the local-state measures)\n"
          "  --json             print one JSON object instead of tables\n"
          "  -h, --help         this text\n", f);
}

typedef struct sim_args {
    const char *path;
    cli_input_opts in;
    sim_opts o;
    double warmup;            /* < 0: default */
    const char *precision_on; /* action name, or NULL */
    int json;
} sim_args;

static int bad_value(const char *opt, const char *range)
{
    fprintf(stderr, "skelsched simulate: %s must be %s\n", opt, range);
    return 2;
}

/* A positive finite number option. */
static int positive(const char *opt, const char *v, double *out)
{
    if (cli_double("simulate", opt, v, out) < 0)
        return 2;
    return *out > 0 ? 0 : bad_value(opt, "a positive number");
}

static int take_number(int c, const char *v, sim_args *a)
{
    unsigned long long u;
    double d;
    switch (c) {
    case 'e':
        if (cli_ulong_in("simulate", "--events", v, 1, 1000000000000ULL, &u) < 0)
            return 2;
        a->o.events = u;
        return 0;
    case 'u':
        if (positive("--until", v, &d))
            return 2;
        a->o.until = d;
        return 0;
    case 'w':
        if (cli_double("simulate", "--warmup", v, &d) < 0)
            return 2;
        a->warmup = d;
        return d >= 0 ? 0 : bad_value("--warmup", "0 or more");
    case 'r':
        if (cli_ulong_in("simulate", "--reps", v, 2, 100000, &u) < 0)
            return 2;
        a->o.reps = (int)u;
        return 0;
    case 's':
        if (cli_ulong("simulate", "--seed", v, &u) < 0)
            return 2;
        a->o.seed = u;
        return 0;
    case 'T':
        if (cli_ulong_in("simulate", "--threads", v, 1, 1024, &u) < 0)
            return 2;
        a->o.threads = (int)u;
        return 0;
    case 'p':
        if (positive("--precision", v, &d))
            return 2;
        a->o.precision = d;
        return d < 1 ? 0 : bad_value("--precision", "a fraction between 0 and 1 (0.01 is 1%)");
    case 'L':
        if (positive("--time-limit", v, &d))
            return 2;
        a->o.time_limit = d;
        return 0;
    }
    return -1;
}

/* Events or time, and the warm-up in the same unit. */
static int settle_length(sim_args *a, int have_events)
{
    if (have_events && a->o.until > 0) {
        fprintf(stderr, "skelsched simulate: --events and --until exclude each other\n");
        return 2;
    }
    if (a->o.precision > 0 && a->o.time_limit == 0)
        a->o.time_limit = 300;          /* a target never met must not run forever */
    if (a->o.until > 0) {
        a->o.events = 0;
        a->o.warmup_time = a->warmup >= 0 ? a->warmup : a->o.until / 10;
        return 0;
    }
    if (a->warmup >= 0 && (a->warmup != floor(a->warmup) || a->warmup > 1e12))
        return bad_value("--warmup", "a whole number of events (0 .. 10^12) without --until");
    a->o.warmup_events = a->warmup >= 0 ? (uint64_t)a->warmup : a->o.events / 10;
    return 0;
}

static const cli_opt simulate_opts[] = {
    { "--events", 'e', CLI_VALUE },
    { "--until", 'u', CLI_VALUE },
    { "--warmup", 'w', CLI_VALUE },
    { "--reps", 'r', CLI_VALUE },
    { "--seed", 's', CLI_VALUE },
    { "--threads", 'T', CLI_VALUE },
    { "--precision", 'p', CLI_VALUE },
    { "--time-limit", 'L', CLI_VALUE },
    { "--precision-on", 'A', CLI_VALUE },
    { "--no-local", 'n', CLI_FLAG },
    { "--json", 'j', CLI_FLAG },
    { "--platform", 'P', CLI_VALUE },
    { "--place", 'l', CLI_VALUE },
    { "--style", 'y', CLI_VALUE },
    { "--help", 'h', CLI_FLAG },
    { "-h", 'h', CLI_FLAG },
    { NULL, 0, CLI_FLAG }
};

static int parse_args(int argc, char **argv, sim_args *a)
{
    cli_parser p;
    cli_parser_init(&p, "simulate", argc, argv, simulate_opts, CLI_GNU);
    int have_events = 0, operands = 0;
    for (int c; (c = cli_parser_next(&p)) != CLI_END;) {
        const char *v = p.value;
        if (c == CLI_OPERAND) {
            a->path = operands++ ? a->path : p.arg;
            continue;
        }
        int rc = take_number(c, v, a);
        if (rc == 2)
            return 2;
        have_events |= c == 'e';
        if (rc == 0)
            continue;
        switch (c) {
        case 'n': a->o.local = 0; break;
        case 'A': a->precision_on = v; break;
        case 'j': a->json = 1; break;
        case 'P': a->in.platform = v; break;
        case 'l': a->in.place = v; break;
        case 'y':
            if (cli_style_parse(v, &a->in.style) < 0)
                return bad_value("--style", "producer or stream");
            break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "skelsched simulate: unknown or incomplete option '%s'\n", p.arg);
            usage(stderr);
            return 2;
        }
    }
    if (operands != 1) {
        fprintf(stderr, "skelsched simulate: expected one model, skeleton or BPEL file\n");
        usage(stderr);
        return 2;
    }
    int rc = settle_length(a, have_events);
    return rc ? rc : -1;
}

/* ---- output ------------------------------------------------------------ */

/* key: a mean with its 95% interval */
static void json_stat(cli_json *j, const char *key, sim_stat st)
{
    cli_json_object(j, key);
    cli_json_number(j, "mean", st.mean);
    cli_json_number(j, "half_width", st.half);
    cli_json_number(j, "low", st.mean - st.half);
    cli_json_number(j, "high", st.mean + st.half);
    cli_json_end(j);
}

static void json_local(cli_json *j, const pepa_system *s, const sim_result *r)
{
    cli_json_object(j, "local");
    for (int l = 0; l < s->nleaves; l++) {
        const pepa_node *nd = &s->nodes[s->leaves[l]];
        const pepa_seq *q = &s->seqs[nd->seq];
        cli_json_object(j, nd->name);
        for (int k = 0; k < q->nstates; k++)
            json_stat(j, q->state_name[k], r->local[l][k]);
        cli_json_end(j);
    }
    cli_json_end(j);
}

/* Actions that happened (tau only when it did). */
static int shown(const sim_result *r, int a)
{
    return a > 0 || r->thr[0].mean != 0;
}

static void print_json(const sim_args *a, const pepa_system *s, const sim_result *r, double parse)
{
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "model", a->path);
    cli_json_uint(&j, "seed", a->o.seed);
    cli_json_int(&j, "replications", r->reps);
    cli_json_int(&j, "threads", r->threads);
    cli_json_uint(&j, "measured_events", r->measured);
    cli_json_uint(&j, "warmup_events", a->o.warmup_events);
    cli_json_number(&j, "warmup_time", a->o.warmup_time);
    cli_json_uint(&j, "events", r->events);
    cli_json_number(&j, "simulated_time", r->sim_time);
    cli_json_bool(&j, "precision_met", r->precision_met);
    cli_json_object(&j, "throughput");
    for (int act = 0; act < s->nactions; act++)
        if (shown(r, act))
            json_stat(&j, pepa_model_action(s->model, act), r->thr[act]);
    cli_json_end(&j);
    if (r->local)
        json_local(&j, s, r);
    cli_json_object(&j, "time");
    cli_json_numberf(&j, "parse", "%.6f", parse);
    cli_json_numberf(&j, "simulate", "%.6f", r->wall);
    cli_json_numberf(&j, "cpu", "%.6f", r->cpu);
    cli_json_end(&j);
    cli_json_number(&j, "events_per_cpu_second", r->cpu > 0 ? (double)r->events / r->cpu : 0);
    cli_json_end(&j);
    fputc('\n', stdout);
}

static void print_stat(const char *name, int indent, sim_stat st)
{
    printf("%*s%-*s %-18.10g %-15.3g", indent, "", 32 - indent, name, st.mean, st.half);
    if (st.mean != 0)
        printf(" %.2g%%", 100 * st.half / fabs(st.mean));
    putchar('\n');
}

static void print_local(const pepa_system *s, const sim_result *r)
{
    for (int j = 0; j < s->nleaves; j++) {
        const pepa_node *nd = &s->nodes[s->leaves[j]];
        const pepa_seq *q = &s->seqs[nd->seq];
        printf("\n%-32s %-18s %s\n", nd->name, nd->kind == PEPA_N_ARRAY ? "mean copies" : "probability",
               "95% half-width");
        for (int k = 0; k < q->nstates; k++)
            print_stat(q->state_name[k], 2, r->local[j][k]);
    }
}

static void print_table(const sim_args *a, const pepa_system *s, const sim_result *r, double parse)
{
    printf("model        %s\n", a->path);
    if (a->o.events)
        printf("replications %d x %llu events, after %llu warm-up events each\n", r->reps,
               (unsigned long long)r->measured, (unsigned long long)a->o.warmup_events);
    else
        printf("replications %d x %.6g time units, after %.6g of warm-up each\n", r->reps, r->sim_time,
               a->o.warmup_time);
    printf("seed         %llu (%d thread%s)\n", (unsigned long long)a->o.seed, r->threads,
           r->threads == 1 ? "" : "s");
    printf("events       %llu in %.3f s: %.3g per CPU-second\n", (unsigned long long)r->events, r->wall,
           r->cpu > 0 ? (double)r->events / r->cpu : 0);
    printf("time         parse %.3f s, simulate %.3f s (simulated %.6g time units per replication)\n\n",
           parse, r->wall, r->sim_time);
    printf("%-32s %-18s %-15s %s\n", "action", "throughput", "95% half-width", "relative");
    for (int act = 0; act < s->nactions; act++)
        if (shown(r, act))
            print_stat(pepa_model_action(s->model, act), 0, r->thr[act]);
    if (r->local)
        print_local(s, r);
}

static void warn_precision(const sim_args *a, const pepa_system *s, const sim_result *r)
{
    double worst = 0;
    for (int act = 0; act < s->nactions; act++)
        if (r->thr[act].mean > 0 && r->thr[act].half / r->thr[act].mean > worst)
            worst = r->thr[act].half / r->thr[act].mean;
    fprintf(stderr, "%s: warning: --precision %g not reached within --time-limit %g s: the widest "
            "throughput interval is %.3g of its mean\n", a->path, a->o.precision, a->o.time_limit, worst);
}

int cmd_simulate(int argc, char **argv)
{
    sim_args a = { .warmup = -1 };
    sim_opts_init(&a.o);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    diag err;
    diag_clear(&err);
    cli_model cm;
    sim_result r = { 0 };
    double t = clock_now();
    const char *prefix = NULL;
    rc = 1;
    if (cli_model_load(a.path, &a.in, &cm, &err) < 0)
        goto done;
    double parse = clock_now() - t;
    if (a.precision_on && (a.o.precision_action = pepa_model_find_action(cm.m, a.precision_on)) <= 0) {
        diag_set(&err, "--precision-on: no action '%s' in the model", a.precision_on);
        prefix = a.path;
        goto done;
    }
    if (sim_run(cm.s, &a.o, &r, &err) < 0) {
        prefix = a.path;                 /* the engine's messages do not name the file */
        goto done;
    }
    if (!r.precision_met)
        warn_precision(&a, cm.s, &r);
    if (a.json)
        print_json(&a, cm.s, &r, parse);
    else
        print_table(&a, cm.s, &r, parse);
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "%s%s%s\n", prefix ? prefix : "", prefix ? ": " : "", err.msg);
    sim_result_free(&r);
    cli_model_free(&cm);
    return rc;
}
