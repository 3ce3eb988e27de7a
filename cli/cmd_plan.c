/* skelsched plan: what job_submit/skeleton will decide for a batch script,
 * from its #SKEL lines (or --skeleton FILE) and the site's skeleton.conf,
 * through the plugin's own decision (slurmsk_decide): the same Budget=,
 * MaxStates=, MaxTasks=, BadInput= and messages. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"
#include "opt.h"
#include "../slurm/skelslurm.h"

#define PLAN_MAX_PARTS 8           /* as the plugin: partitions of one -p list */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched plan JOB.sh --conf skeleton.conf [--skeleton FILE]\n"
            "                      [--nodes LIST] [--idle LIST] [--partition-nodes LIST]...\n"
            "                      [-w LIST] [-x LIST] [-N N] [-n N] [-c N] [-t MINUTES]\n"
            "                      [--default-time MINUTES] [--array]\n"
            "\n"
            "Predict what job_submit/skeleton decides for a batch script: the same code,\n"
            "limits (Budget=, MaxStates=, MaxTasks=) and messages as the plugin. Prints the\n"
            "lines sbatch would show, then the job's SKEL_* variables when it is placed.\n"
            "\n"
            "  --conf FILE            the site's skeleton.conf (man skeleton.conf)\n"
            "  --skeleton FILE        as sbatch --skeleton=FILE\n"
            "  --nodes LIST           nodes up and available (default: every node of the conf)\n"
            "  --idle LIST            idle nodes: preferred to busy equal ones (default: no\n"
            "                         preference)\n"
            "  --partition-nodes LIST the nodes of a partition of the job (repeatable, as -p a,b)\n"
            "  -w, -x, -N, -n, -c, -t as for sbatch (-t in minutes); the script's #SBATCH\n"
            "                         -t, -N, -n, -c and --array are read first\n"
            "  --default-time MIN     the partition's DefaultTime, for --items without -t\n"
            "  --array                a job array\n"
            "Exit status: 0 accepted, 1 refused (or bad input), 2 usage error.\n");
}

typedef struct plan_args {
    const char *script, *conf, *skeleton;
    const char *parts[PLAN_MAX_PARTS];
    slurmsk_request rq;
} plan_args;

/* A whole-number option; -1 after a message. */
static int number(const char *opt, const char *v, unsigned long *out)
{
    unsigned long long u;
    if (cli_ulong_in("plan", opt, v, 1, 100000000, &u) < 0)
        return -1;
    *out = (unsigned long)u;
    return 0;
}

typedef enum plan_opt {
    PLAN_HELP, PLAN_CONF, PLAN_SKELETON, PLAN_NODES, PLAN_IDLE, PLAN_PARTITION_NODES, PLAN_W,
    PLAN_X, PLAN_MIN_NODES, PLAN_TASKS, PLAN_CPUS, PLAN_TIME, PLAN_DEFAULT_TIME, PLAN_ARRAY
} plan_opt;

static const cli_opt plan_opts[] = {
    { "--help", PLAN_HELP, CLI_FLAG },          { "-h", PLAN_HELP, CLI_FLAG },
    { "--conf", PLAN_CONF, CLI_VALUE },         { "--skeleton", PLAN_SKELETON, CLI_VALUE },
    { "--nodes", PLAN_NODES, CLI_VALUE },       { "--idle", PLAN_IDLE, CLI_VALUE },
    { "--partition-nodes", PLAN_PARTITION_NODES, CLI_VALUE },
    { "-w", PLAN_W, CLI_VALUE },                { "-x", PLAN_X, CLI_VALUE },
    { "-N", PLAN_MIN_NODES, CLI_VALUE },        { "-n", PLAN_TASKS, CLI_VALUE },
    { "-c", PLAN_CPUS, CLI_VALUE },             { "-t", PLAN_TIME, CLI_VALUE },
    { "--default-time", PLAN_DEFAULT_TIME, CLI_VALUE }, { "--array", PLAN_ARRAY, CLI_FLAG },
    { NULL, 0, CLI_FLAG }
};

/* A minutes option into a long; -1 after a message. */
static int minutes(const char *opt, const char *v, long *out)
{
    unsigned long u;
    if (number(opt, v, &u) < 0)
        return -1;
    *out = (long)u;
    return 0;
}

/* One option (code c, value v); 0 taken, -1 after a usage error. */
static int take_option(plan_args *a, int c, const char *v)
{
    slurmsk_request *rq = &a->rq;
    switch ((plan_opt)c) {
    case PLAN_HELP: return 0;                        /* the caller's */
    case PLAN_CONF: a->conf = v; return 0;
    case PLAN_SKELETON: a->skeleton = v; return 0;
    case PLAN_NODES: rq->avail = v; return 0;
    case PLAN_IDLE: rq->idle = v; return 0;
    case PLAN_PARTITION_NODES:
        if (rq->nparts == PLAN_MAX_PARTS) {
            fprintf(stderr, "skelsched plan: at most %d --partition-nodes\n", PLAN_MAX_PARTS);
            return -1;
        }
        a->parts[rq->nparts++] = v;
        return 0;
    case PLAN_W: rq->req_nodes = v; return 0;
    case PLAN_X: rq->exc_nodes = v; return 0;
    case PLAN_MIN_NODES: return number("-N", v, &rq->min_nodes);
    case PLAN_TASKS: return number("-n", v, &rq->num_tasks);
    case PLAN_CPUS: return number("-c", v, &rq->cpus_per_task);
    case PLAN_TIME: return minutes("-t", v, &rq->time_limit);
    case PLAN_DEFAULT_TIME: return minutes("--default-time", v, &rq->default_time);
    case PLAN_ARRAY: rq->array = 1; return 0;
    }
    return 0;
}

/* An argument that is no option of ours: the script, or a usage error
 * (2) when it looks like an option or is a second script. */
static int take_operand(plan_args *a, int c, const char *arg)
{
    if (c == CLI_UNKNOWN) {
        fprintf(stderr, "skelsched plan: unknown option '%s'\n", arg);
        usage(stderr);
        return 2;
    }
    if (a->script) {
        fprintf(stderr, "skelsched plan: one job script only\n");
        return 2;
    }
    a->script = arg;
    return -1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, plan_args *a)
{
    cli_parser p;
    cli_parser_init(&p, "plan", argc, argv, plan_opts, CLI_EXACT);
    for (int c, rc; (c = cli_parser_next(&p)) != CLI_END;) {
        if (c == PLAN_HELP) {
            usage(stdout);
            return 0;
        }
        if (c == CLI_NO_VALUE)
            return cli_no_value(&p);
        if (c >= 0 && take_option(a, c, p.value) < 0)
            return 2;
        if (c < 0 && (rc = take_operand(a, c, p.arg)) >= 0)
            return rc;
    }
    if (!a->script || !a->conf) {
        fprintf(stderr, "skelsched plan: %s\n", a->script ? "--conf FILE is required"
                                                          : "expected a batch script");
        usage(stderr);
        return 2;
    }
    a->rq.parts = a->parts;
    return -1;
}

/* A whole file as a string (at most max bytes), or NULL after a message. */
static char *slurp(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "skelsched plan: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad || n > max || memchr(buf, '\0', n)) {
        fprintf(stderr, "skelsched plan: %s: %s\n", path,
                bad ? "cannot read it" : n > max ? "too large" : "not a text file");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* Slurm's time formats, in minutes (seconds round up): M, M:S, H:M:S,
 * D-H, D-H:M, D-H:M:S. -1 when it is none of them. */
static long slurm_minutes(const char *v)
{
    long f[4] = { 0, 0, 0, 0 }, days = 0;
    int n = 0;
    const char *dash = strchr(v, '-');
    char *end;
    if (dash) {
        days = strtol(v, &end, 10);
        if (end != dash || days < 0)
            return -1;
        v = dash + 1;
    }
    for (;;) {
        if (n == 3 || *v < '0' || *v > '9')
            return -1;
        f[n++] = strtol(v, &end, 10);
        if (*end == '\0')
            break;
        if (*end != ':')
            return -1;
        v = end + 1;
    }
    if (dash)              /* D-H[:M[:S]] */
        return days * 1440 + f[0] * 60 + (n > 1 ? f[1] : 0) + (n > 2 && f[2] > 0);
    if (n == 1)
        return f[0];
    if (n == 2)            /* M:S */
        return f[0] + (f[1] > 0);
    return f[0] * 60 + f[1] + (f[2] > 0);
}

/* One #SBATCH option (name, value) into rq; unknown options are Slurm's
 * business, not the plugin's. */
static void sbatch_option(const char *name, const char *v, slurmsk_request *rq)
{
    unsigned long u = strtoul(v, NULL, 10);
    if (strcmp(name, "-t") == 0 || strcmp(name, "--time") == 0) {
        long m = slurm_minutes(v);
        rq->time_limit = m > 0 ? m : 0;
    } else if (strcmp(name, "-N") == 0 || strcmp(name, "--nodes") == 0) {
        rq->min_nodes = u;
    } else if (strcmp(name, "-n") == 0 || strcmp(name, "--ntasks") == 0) {
        rq->num_tasks = u;
    } else if (strcmp(name, "-c") == 0 || strcmp(name, "--cpus-per-task") == 0) {
        rq->cpus_per_task = u;
    } else if (strcmp(name, "-a") == 0 || strcmp(name, "--array") == 0) {
        rq->array = 1;
    }
}

/* The #SBATCH lines of a script (up to its first command, as sbatch reads
 * them) that change the decision: -t, -N, -n, -c, --array. Options of the
 * command line, parsed afterwards, override them. */
static void read_sbatch_lines(const char *script, slurmsk_request *rq)
{
    for (const char *s = script; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), s);
        s += n + (nl ? 1 : 0);
        char *p = line + strspn(line, " \t\r");
        if (*p && *p != '#')
            break;
        if (strncmp(line, "#SBATCH", 7) != 0 || (line[7] != ' ' && line[7] != '\t'))
            continue;
        char *save = NULL, *tok = strtok_r(line + 7, " \t\r", &save);
        while (tok && tok[0] == '-') {
            char *eq = strchr(tok, '='), *val = NULL;
            if (eq) {
                *eq = '\0';
                val = eq + 1;
            } else if (tok[1] != '-' && tok[2]) {
                val = tok + 2;                 /* -t5 */
                tok[2] = '\0';
            } else if (strcmp(tok, "-a") && strcmp(tok, "--array")) {
                val = strtok_r(NULL, " \t\r", &save);
            }
            sbatch_option(tok, val ? val : "", rq);
            tok = strtok_r(NULL, " \t\r", &save);
        }
    }
}

static void print_decision(const slurmsk_decision *d)
{
    if (!d->present) {
        printf("no #SKEL lines and no --skeleton: the plugin leaves the job unchanged\n");
        return;
    }
    if (d->user)
        printf("%s\n", d->user);
    for (int i = 0; d->accepted && d->fault == SLURMSK_FAULT_NONE && i < d->plan.nenv; i++)
        printf("%s\n", d->plan.env[i]);
    if (!d->accepted)
        printf("refused\n");
}

int cmd_plan(int argc, char **argv)
{
    plan_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char *script = slurp(a.script, SLURMSK_MAX_SCRIPT);
    if (!script)
        return 1;
    /* #SBATCH lines first, then the command line again over them */
    memset(&a, 0, sizeof a);
    read_sbatch_lines(script, &a.rq);
    parse_args(argc, argv, &a);
    diag err;
    diag_clear(&err);
    slurmsk_conf *conf = slurmsk_conf_load(a.conf, &err);
    if (!conf) {
        fprintf(stderr, "skelsched plan: %s\n", err.msg);
        free(script);
        return 1;
    }
    char *skel = a.skeleton ? slurp(a.skeleton, SLURMSK_MAX_SKELETON) : NULL;
    slurmsk_decision d;
    rc = 1;
    if (skel || !a.skeleton) {
        a.rq.script = script;
        a.rq.skeleton = skel;
        if (slurmsk_decide(conf, NULL, &a.rq, &d) < 0) {
            fprintf(stderr, "skelsched plan: out of memory\n");
        } else {
            print_decision(&d);
            rc = d.accepted ? 0 : 1;
            slurmsk_decision_clear(&d);
        }
    }
    free(script);
    free(skel);
    slurmsk_conf_free(conf);
    return rc;
}
