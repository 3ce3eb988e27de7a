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

/* One option at argv[*i]: 1 taken, 0 not an option of ours, -1 usage error. */
static int one_option(int argc, char **argv, int *i, plan_args *a)
{
    int bad = 0;
    const char *v;
    unsigned long u;
    slurmsk_request *rq = &a->rq;
    if ((v = cli_option_value("plan", argc, argv, i, "--conf", &bad)))
        a->conf = v;
    else if ((v = cli_option_value("plan", argc, argv, i, "--skeleton", &bad)))
        a->skeleton = v;
    else if ((v = cli_option_value("plan", argc, argv, i, "--nodes", &bad)))
        rq->avail = v;
    else if ((v = cli_option_value("plan", argc, argv, i, "--idle", &bad)))
        rq->idle = v;
    else if ((v = cli_option_value("plan", argc, argv, i, "--partition-nodes", &bad))) {
        if (rq->nparts == PLAN_MAX_PARTS) {
            fprintf(stderr, "skelsched plan: at most %d --partition-nodes\n", PLAN_MAX_PARTS);
            return -1;
        }
        a->parts[rq->nparts++] = v;
    } else if ((v = cli_option_value("plan", argc, argv, i, "-w", &bad)))
        rq->req_nodes = v;
    else if ((v = cli_option_value("plan", argc, argv, i, "-x", &bad)))
        rq->exc_nodes = v;
    else if ((v = cli_option_value("plan", argc, argv, i, "-N", &bad)))
        return number("-N", v, &rq->min_nodes) < 0 ? -1 : 1;
    else if ((v = cli_option_value("plan", argc, argv, i, "-n", &bad)))
        return number("-n", v, &rq->num_tasks) < 0 ? -1 : 1;
    else if ((v = cli_option_value("plan", argc, argv, i, "-c", &bad)))
        return number("-c", v, &rq->cpus_per_task) < 0 ? -1 : 1;
    else if ((v = cli_option_value("plan", argc, argv, i, "-t", &bad))) {
        if (number("-t", v, &u) < 0)
            return -1;
        rq->time_limit = (long)u;
    } else if ((v = cli_option_value("plan", argc, argv, i, "--default-time", &bad))) {
        if (number("--default-time", v, &u) < 0)
            return -1;
        rq->default_time = (long)u;
    } else if (strcmp(argv[*i], "--array") == 0)
        rq->array = 1;
    else
        return bad ? -1 : 0;
    return 1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, plan_args *a)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        int r = one_option(argc, argv, &i, a);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "skelsched plan: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (a->script) {
            fprintf(stderr, "skelsched plan: one job script only\n");
            return 2;
        }
        a->script = argv[i];
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
