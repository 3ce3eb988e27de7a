/* skelsched estimate: the papers' analytic cost models (Darlington,
 * P3L, remote execution) for a placed skeleton, beside the Markov
 * model's throughput of the same placement (docs/advice.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "input.h"
#include "util.h"
#include "cli/json.h"
#include "../advice/advice.h"
#include "../cost/cost.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched estimate SKELETON [--platform FILE] [--place t0=NODE,...]\n"
            "                          [--items N] [--grain K] [--style producer|stream] [--json]\n"
            "\n"
            "Predict the throughput of the placed skeleton with each analytic model of the\n"
            "papers (docs/references.md) and with the Markov model, and show what each model advises:\n"
            "  darlington  Darlington et al. 1993: pipe cycle t_e v + t_c, farm t_e + 2 t_c; the §5\n"
            "              implementation times of PIPE and FARM for N items\n"
            "  p3l         Zavanella 1999: stage service time (eq. 2) on tasks of K items, farms\n"
            "              by eq. 3-4; the optimal degree and grain of the bottleneck (eq. 6-9)\n"
            "  remote      Alt et al. 2002: T = 2ts + (n+o+r)tw + tskel per task (no sharing of\n"
            "              a node); the server it chooses for each task\n"
            "\n"
            "  --platform FILE  speeds, latencies and the models' keys (docs/platform.md)\n"
            "  --place SPEC     where the tasks run (default: round robin in node order)\n"
            "  --items N        items in the stream for the total times (default 1000)\n"
            "  --grain K        items per task for Darlington et al. 1993's g and Zavanella 1999's k (default 1)\n"
            "  --style S        producer (default) or stream\n"
            "  --sharing S      ps or static, for the markov line (the analytic models\n"
            "                   always share a node statically, as the papers do)\n"
            "  --json           one JSON object on standard output\n"
            "\n"
            "Exit status: 0 ok, 1 bad input, 2 usage error.\n");
}

typedef struct args {
    const char *skel;
    cli_input_opts io;
    double items, grain;
    int json;
} args;

typedef enum estimate_opt { EST_HELP, EST_ITEMS, EST_GRAIN, EST_JSON } estimate_opt;

static const cli_opt estimate_opts[] = {
    CLI_INPUT_OPTS,
    { "--help", EST_HELP, CLI_FLAG },   { "-h", EST_HELP, CLI_FLAG },
    { "--items", EST_ITEMS, CLI_VALUE }, { "--grain", EST_GRAIN, CLI_VALUE },
    { "--json", EST_JSON, CLI_FLAG },   { NULL, 0, CLI_FLAG }
};

/* One option (code c, value v); -1 to go on, else the exit code. */
static int take_option(void *cmd_args, int c, const char *v)
{
    args *a = cmd_args;
    unsigned long long u;
    switch ((estimate_opt)c) {
    case EST_HELP: usage(stdout); return 0;
    case EST_ITEMS:
        if (cli_ulong_in("estimate", "--items", v, 1, 1000000000000ULL, &u) < 0)
            return 2;
        a->items = (double)u;
        break;
    case EST_GRAIN:
        if (cli_ulong_in("estimate", "--grain", v, 1, 1000000, &u) < 0)
            return 2;
        a->grain = (double)u;
        break;
    case EST_JSON: a->json = 1; break;
    }
    return -1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, args *a)
{
    cli_parser p;
    cli_parser_init(&p, "estimate", argc, argv, estimate_opts, CLI_EXACT);
    return cli_parse_input(&p, &a->skel, &a->io, take_option, a, usage);
}

typedef struct result {
    adv_eval markov;
    cost_estimate est[COST_NMODELS];
    cost_parts pipe5, farm5;         /* Darlington et al. 1993 §5 */
    int have5;
    int nhat, limited;               /* Zavanella 1999 eq. 6-9 for the bottleneck */
    double khat, te, tf;
    double *mu;                      /* per task: its rate under the papers' sharing */
    int *servers;                    /* Alt et al. 2002's choice */
    double servers_thr;              /* the Markov model's throughput of that choice */
} result;

/* Darlington et al. 1993 §5 for the whole skeleton: N_w items, T_w the mean compute time
 * of a task on its node, d the mean item size, P the nodes used plus a
 * master, N_p the tasks as virtual stages, T_o the mean time of the tasks'
 * moves out (their data term included, so T_b = 0). */
static int darlington_totals(const args *a, const cli_input *in, result *r, diag *err)
{
    const skel_platform *p = in->platform;
    int nt = in->skel->ntasks, used = 0;
    double tw = 0, d = 0, to = 0;
    int senders = 0;
    for (int i = 0; i < nt; i++) {
        tw += 1 / r->mu[i] / nt;
        d += in->skel->data[i] / nt;
        to += r->markov.send_time[i];
        senders += r->markov.send_time[i] > 0;
    }
    if (senders)
        to /= senders;
    for (int j = 0; j < p->nnodes; j++) {
        int on = 0;
        for (int i = 0; i < nt && !on; i++)
            on = in->node_of_task[i] == j;
        used += on;
    }
    cost_machine m = { p->param[SKEL_PARAM_SETUP_FIXED], p->param[SKEL_PARAM_SETUP_PER_NODE], to,
                       0, p->param[SKEL_PARAM_FLATTEN_FIXED], p->param[SKEL_PARAM_FLATTEN_BYTE],
                       p->param[SKEL_PARAM_GC_RATE], p->param[SKEL_PARAM_GC_TIME] };
    cost_job j = { a->items, tw, (int)a->grain, d, d, used + 1, nt, 1 };
    if (cost_pipe_time(&m, &j, &r->pipe5, err) < 0 || cost_farm_time(&m, &j, &r->farm5, err) < 0)
        return -1;
    r->have5 = 1;
    return 0;
}

/* Zavanella 1999 eq. 6-9 for the bottleneck of the Markov model: the farm that
 * would bring it down to T_e (InterArrival=, else the slowest other task). */
static int p3l_farm(const cli_input *in, result *r, diag *err)
{
    const skel_platform *p = in->platform;
    int nt = in->skel->ntasks, b = r->markov.bottleneck;
    double te = p->param[SKEL_PARAM_INTERARRIVAL];
    for (int i = 0; te <= 0 && i < nt; i++)
        if (i != b)
            r->te = fmax(r->te, 1 / r->mu[i]);
    if (te > 0)
        r->te = te;
    r->tf = 1 / r->mu[b];
    if (!(r->te > 0))
        r->te = r->tf;       /* a single task: aim at its own time */
    double d0 = 0;
    for (int e = 0; e < in->skel->nedges; e++)
        if (in->skel->edges[e].to == b && in->skel->edges[e].from >= 0)
            d0 = fmax(d0, in->skel->data[in->skel->edges[e].from]);
    cost_bsp bsp = { p->param[SKEL_PARAM_BSP_G], p->param[SKEL_PARAM_BSP_NHALF], p->param[SKEL_PARAM_BSP_L] };
    return cost_p3l_optimal(&bsp, d0, r->tf, r->te, p->param[SKEL_PARAM_PRECISION], &r->nhat,
                            &r->khat, &r->limited, err);
}

static int run(const args *a, cli_input *in, result *r, diag *err)
{
    int nt = in->skel->ntasks;
    double *lambda = NULL;
    if (adv_evaluate(in->tree, a->io.style, in->platform, in->node_of_task, &r->markov, err) < 0)
        return -1;
    for (int k = 0; k < COST_NMODELS; k++)
        if (cost_estimate_placement((cost_model)k, in->tree, in->skel, in->platform,
                                    in->node_of_task, a->grain, &r->est[k], err) < 0)
            return -1;
    if (!(r->mu = malloc((size_t)nt * sizeof *r->mu)) ||
        !(lambda = malloc((size_t)(in->skel->nedges ? in->skel->nedges : 1) * sizeof *lambda)))
        return diag_set(err, "out of memory");
    int rc = cost_static_rates(in->skel, in->platform, in->node_of_task, r->mu, lambda, err);
    free(lambda);
    if (rc < 0)
        return -1;
    if (in->platform->nnodes > 0 && darlington_totals(a, in, r, err) < 0)
        return -1;
    if (p3l_farm(in, r, err) < 0)
        return -1;
    if (!(r->servers = malloc((size_t)nt * sizeof *r->servers)))
        return diag_set(err, "out of memory");
    adv_eval ev;
    if (cost_remote_choose(in->skel, in->platform, r->servers, err) < 0 ||
        adv_evaluate(in->tree, a->io.style, in->platform, r->servers, &ev, err) < 0)
        return -1;
    r->servers_thr = ev.throughput;
    adv_eval_free(&ev);
    return 0;
}

static void print_table(const args *a, const cli_input *in, const result *r)
{
    const skel_platform *p = in->platform;
    int nt = in->skel->ntasks;
    printf("skeleton     %s (%d tasks, %lu states)\n", a->skel, nt, r->markov.states);
    printf("platform     %s (%d nodes)\nplacement   ", p->file, p->nnodes);
    for (int i = 0; i < nt; i++)
        printf(" t%d=%s", i, p->nodes[in->node_of_task[i]].name);
    printf("\n\n%-11s %-14s %-10s %s\n", "model", "throughput", "vs markov", "bottleneck");
    printf("%-11s %-14.8g %-10s t%d\n", "markov", r->markov.throughput, "", r->markov.bottleneck);
    for (int k = 0; k < COST_NMODELS; k++) {
        char vs[32];
        snprintf(vs, sizeof vs, "%+.1f%%", 100 * (r->est[k].throughput / r->markov.throughput - 1));
        printf("%-11s %-14.8g %-10s t%d\n", cost_model_name((cost_model)k), r->est[k].throughput,
               vs, r->est[k].bottleneck);
    }
    printf("\nservice time per item (s)\ntask  %-12s", "markov 1/X_i");
    for (int k = 0; k < COST_NMODELS; k++)
        printf(" %-12s", cost_model_name((cost_model)k));
    putchar('\n');
    for (int i = 0; i < nt; i++) {
        printf("t%-4d %-12.6g", i, r->markov.task_thr[i] > 0 ? 1 / r->markov.task_thr[i] : INFINITY);
        for (int k = 0; k < COST_NMODELS; k++)
            printf(" %-12.6g", r->est[k].task_time[i]);
        putchar('\n');
    }
    if (r->have5)
        printf("\nDarlington et al. 1993 §5, %.0f items, grain %g:\n"
               "  PIPE  %.6g s (setup %.4g, fill %.4g, work %.4g, comms %.4g, gc %.4g; R %.0f)\n"
               "  FARM  %.6g s (setup %.4g, work %.4g, comms %.4g, gc %.4g; R %.0f)\n"
               "  Markov model: %.6g s at its throughput\n",
               a->items, a->grain, r->pipe5.total, r->pipe5.setup, r->pipe5.fill, r->pipe5.work,
               r->pipe5.comms, r->pipe5.gc, r->pipe5.rounds, r->farm5.total, r->farm5.setup,
               r->farm5.work, r->farm5.comms, r->farm5.gc, r->farm5.rounds,
               a->items / r->markov.throughput);
    printf("\nZavanella 1999 eq. 6-9, a farm for t%d (t_f %.6g s) to reach T_e %.6g s:\n"
           "  n^ = %d workers, k^ = %.4g items per task%s\n",
           r->markov.bottleneck, r->tf, r->te, r->nhat, r->khat,
           r->limited ? " (T_e is below the emitter's floor 2 g d0: eq. 8-9)" : "");
    printf("\nAlt et al. 2002, a server for each task:");
    for (int i = 0; i < nt; i++)
        printf(" t%d=%s", i, p->nodes[r->servers[i]].name);
    printf("\n  Markov model's throughput of that placement: %.8g (%+.1f%% of this one)\n",
           r->servers_thr, 100 * (r->servers_thr / r->markov.throughput - 1));
}

/* Open key: {"throughput": thr, "bottleneck": "tN", ...: the caller adds
 * its members and closes it. */
static void json_model(cli_json *j, const char *key, double thr, int bottleneck)
{
    char name[32];
    snprintf(name, sizeof name, "t%d", bottleneck);
    cli_json_object(j, key);
    cli_json_number(j, "throughput", thr);
    cli_json_string(j, "bottleneck", name);
}

static void print_json(const args *a, const cli_input *in, const result *r)
{
    const skel_platform *p = in->platform;
    int nt = in->skel->ntasks;
    char task[32];
    snprintf(task, sizeof task, "t%d", r->markov.bottleneck);
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "skeleton", a->skel);
    json_model(&j, "markov", r->markov.throughput, r->markov.bottleneck);
    cli_json_end(&j);
    for (int k = 0; k < COST_NMODELS; k++) {
        json_model(&j, cost_model_name((cost_model)k), r->est[k].throughput, r->est[k].bottleneck);
        cli_json_array(&j, "task_time");
        for (int i = 0; i < nt; i++)
            cli_json_number(&j, NULL, r->est[k].task_time[i]);
        cli_json_end(&j);
        cli_json_end(&j);
    }
    if (r->have5) {
        cli_json_object(&j, "implementation");
        cli_json_number(&j, "pipe", r->pipe5.total);
        cli_json_number(&j, "farm", r->farm5.total);
        cli_json_end(&j);
    }
    cli_json_object(&j, "farm_degree");
    cli_json_string(&j, "task", task);
    cli_json_number(&j, "te", r->te);
    cli_json_int(&j, "n", r->nhat);
    cli_json_number(&j, "k", r->khat);
    cli_json_bool(&j, "limited", r->limited);
    cli_json_end(&j);
    cli_json_object(&j, "server_choice");
    cli_json_array(&j, "servers");
    for (int i = 0; i < nt; i++)
        cli_json_string(&j, NULL, p->nodes[r->servers[i]].name);
    cli_json_end(&j);
    cli_json_number(&j, "markov_throughput", r->servers_thr);
    cli_json_end(&j);
    cli_json_end(&j);
    fputc('\n', stdout);
}

int cmd_estimate(int argc, char **argv)
{
    args a = { 0 };
    a.items = 1000;
    a.grain = 1;
    a.io.style = SKEL_STYLE_PRODUCER;
    a.io.skeleton = 1;
    a.io.unplaced = 1;      /* the search's model: adv_evaluate rates it */
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    diag err;
    diag_clear(&err);
    rc = 1;
    cli_input in = { 0 };
    result r;
    memset(&r, 0, sizeof r);
    if (cli_input_load(a.skel, &a.io, &in, &err) < 0 || run(&a, &in, &r, &err) < 0)
        goto out;
    if (a.json)
        print_json(&a, &in, &r);
    else
        print_table(&a, &in, &r);
    if (cli_flush_stdout(&err) < 0)
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "skelsched estimate: %s\n", err.set ? err.msg : "failed");
    adv_eval_free(&r.markov);
    for (int k = 0; k < COST_NMODELS; k++)
        cost_estimate_free(&r.est[k]);
    free(r.servers);
    free(r.mu);
    cli_input_free(&in);
    return rc;
}
