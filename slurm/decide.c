/* slurm/decide.c: the whole decision for one job (see skelslurm.h):
 * its #SKEL lines, the candidate nodes of each of its partitions, the
 * placement, what the job's shape becomes, and every message the
 * submitter and the log get. The plugin and `skelsched plan` both call
 * slurmsk_decide, so the command predicts the plugin exactly. */
#define _POSIX_C_SOURCE 200809L
#include "skelslurm.h"
#include "../base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing message, lines separated by '\n'; on memory failure it stays
 * NULL and fail is set. */
typedef struct text {
    char *s;
    size_t len;
    int fail;
} text;

static void add_line(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(text *t, const char *fmt, ...)
{
    char line[2 * DIAG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t n = strlen(line), extra = t->len ? 1 : 0;
    if (mem_grow((void **)&t->s, t->len + extra + n + 1, 1) < 0) {
        t->fail = 1;
        return;
    }
    char *g = t->s;
    if (extra)
        g[t->len++] = '\n';
    memcpy(g + t->len, line, n + 1);
    t->len += n;
}

void slurmsk_decision_clear(slurmsk_decision *d)
{
    slurmsk_plan_clear(&d->plan);
    free(d->user);
    free(d->log);
    memset(d, 0, sizeof *d);
}

/* Candidates and placement in one partition (part: its nodes, NULL: no
 * restriction); 0 with plan, or -1 with err and plan->fault. */
static int place_in(slurmsk_conf *conf, const slurmsk_job *job, const slurmsk_request *rq,
                    const char *part, clock_deadline dl, unsigned char *allowed, unsigned char *idle,
                    slurmsk_plan *plan, diag *err)
{
    memset(plan, 0, sizeof *plan);
    int n = slurmsk_candidates(conf->plat, rq->avail, part, rq->exc_nodes, rq->req_nodes,
                               conf->unknown_reject, allowed, err);
    if (n < 0) {
        plan->fault = strstr(err->msg, "not described") ? SLURMSK_FAULT_NODE_NAME
                      : strstr(err->msg, "no node is available") ? SLURMSK_FAULT_NO_NODES
                                                                 : SLURMSK_FAULT_SYNTAX;
        return -1;
    }
    if (slurmsk_place_by(conf, job, allowed, dl, plan, err) < 0)
        return -1;
    if (rq->idle) {
        memset(idle, 0, (size_t)conf->plat->nnodes);
        diag local;
        diag_clear(&local);
        /* the idle nodes among the allowed ones; an unreadable list: no preference */
        if (slurmsk_candidates(conf->plat, rq->idle, NULL, NULL, NULL, 0, idle, &local) > 0 &&
            slurmsk_prefer_idle(plan, job, conf->plat, allowed, idle) < 0) {
            slurmsk_plan_clear(plan);
            plan->fault = SLURMSK_FAULT_MEMORY;
            return diag_set(err, "out of memory");
        }
    }
    return 0;
}

/* The best plan over the job's partitions, each searched with an equal
 * share of what is left of the decision's deadline. 0, or -1 with the
 * first partition's reason (and its fault in d). */
static int place_job(slurmsk_conf *conf, const slurmsk_job *job, const slurmsk_request *rq,
                     clock_deadline dl, slurmsk_decision *d, diag *err)
{
    int nn = conf->plat->nnodes, rounds = rq->nparts > 0 ? rq->nparts : 1, found = 0;
    unsigned char *allowed = calloc((size_t)nn, 1), *idle = calloc((size_t)nn, 1);
    if (!allowed || !idle) {
        free(allowed);
        free(idle);
        d->fault = SLURMSK_FAULT_MEMORY;
        return diag_set(err, "out of memory");
    }
    for (int i = 0; i < rounds; i++) {
        double left = clock_deadline_left(dl);
        clock_deadline share = clock_deadline_within(dl, left > 0 ? left / (rounds - i) : 1e-9);
        slurmsk_plan p;
        diag e;
        diag_clear(&e);
        const char *part = rq->nparts > 0 ? rq->parts[i] : NULL;
        if (place_in(conf, job, rq, part, share, allowed, idle, &p, &e) < 0) {
            if (!err->set) {
                *err = e;
                d->fault = p.fault;
            }
        } else if (!found || p.throughput > d->plan.throughput) {
            if (found)
                slurmsk_plan_clear(&d->plan);
            d->plan = p;
            found = 1;
        } else {
            slurmsk_plan_clear(&p);
        }
    }
    free(allowed);
    free(idle);
    if (!found)
        return -1;
    d->fault = SLURMSK_FAULT_NONE;
    diag_clear(err);
    return 0;
}

/* The job's shape from the plan: on every node of the plan as many CPUs
 * as tasks placed there (times -c), at most the node's CPUs= when
 * skeleton.conf gives it; one Slurm task per skeleton task, as far as
 * those CPUs hold them (the stages beyond share CPUs, with srun
 * --overlap). The user's -N and -n give way to the plan, with a warning. */
static void shape(const slurmsk_conf *conf, const slurmsk_request *rq, slurmsk_decision *d,
                  text *user)
{
    const slurmsk_plan *p = &d->plan;
    unsigned long cpt = rq->cpus_per_task ? rq->cpus_per_task : 1, need = 0, total = 0;
    /* tasks per node, counted once: a pass per node would cost nodes x
     * tasks (10^7 for farm(1000) on 10,000 nodes, 10 ms of the budget) */
    unsigned long *count = calloc((size_t)conf->plat->nnodes, sizeof *count);
    if (!count) {
        user->fail = 1;
        return;
    }
    for (int i = 0; i < p->ntasks; i++)
        count[p->node_of_task[i]]++;
    for (int j = 0; j < conf->plat->nnodes; j++) {
        unsigned long here = count[j] * cpt;
        if (conf->cpus && conf->cpus[j] > 0 && here > (unsigned long)conf->cpus[j])
            here = (unsigned long)conf->cpus[j];
        total += here;
        if (here > need)
            need = here;
    }
    free(count);
    d->min_cpus = need;
    d->num_tasks = total / cpt < (unsigned long)p->ntasks ? total / cpt : (unsigned long)p->ntasks;
    if (d->num_tasks < (unsigned long)p->nnodes)
        d->num_tasks = (unsigned long)p->nnodes;
    if (rq->min_nodes && rq->min_nodes != (unsigned long)p->nnodes)
        add_line(user, "skeleton: warning: -N %lu replaced by the plan's %d node%s", rq->min_nodes,
                 p->nnodes, p->nnodes == 1 ? "" : "s");
    if (rq->num_tasks && rq->num_tasks != d->num_tasks)
        add_line(user, "skeleton: warning: -n %lu replaced by the plan's %lu task%s (start each "
                 "stage with srun --overlap -n1 -w \"$SKEL_NODES_T<i>\")", rq->num_tasks,
                 d->num_tasks, d->num_tasks == 1 ? "" : "s");
}

/* What the submitter sees of a placed job: the plan, then warnings. */
static void placed_messages(const slurmsk_request *rq, const slurmsk_job *job,
                            slurmsk_decision *d, text *user)
{
    const slurmsk_plan *p = &d->plan;
    char plan[DIAG_MAX];
    size_t k = 0;
    for (int i = 0; i < p->nenv && k == 0; i++)
        if (strncmp(p->env[i], "SKEL_PLAN=", 10) == 0)
            k = (size_t)snprintf(plan, sizeof plan, "%s", p->env[i] + 10);
    int approx = p->method == SKEL_SEARCH_APPROX;
    add_line(user, "skeleton: plan %s (nodes %s, %lu CPU%s per node), predicted %.6g items/s%s",
             k ? plan : "?", p->req_nodes, d->min_cpus, d->min_cpus == 1 ? "" : "s", p->throughput,
             approx        ? " (estimated)"
             : p->optimal ? ""
                          : " (the best found within the decision time)");
    if (approx)
        add_line(user, "skeleton: warning: %s", p->note);
    long limit = rq->time_limit > 0 ? rq->time_limit : rq->default_time;
    char warn[512];
    if (slurmsk_time_check(job->items, p->throughput, limit, warn, sizeof warn))
        add_line(user, "%s%s", warn,
                 rq->time_limit > 0 ? "" : " (the partition's default; give -t to set yours)");
    if (rq->array)
        add_line(user, "skeleton: warning: a job array: every task of the array gets this plan "
                 "(it is made once, at submission), so tasks that run at the same time share "
                 "these nodes");
    if (job->warning)
        add_line(user, "skeleton: BPEL %s", job->warning);   /* lines naming their file */
}

/* The job's script and skeleton are read; no usable conf or a bad job
 * ends here with the message. */
static int decide_parsed(slurmsk_conf *conf, const char *conf_why, const slurmsk_request *rq,
                         const slurmsk_job *job, double t0, clock_deadline dl,
                         slurmsk_decision *d, text *user, text *log)
{
    diag err;
    diag_clear(&err);
    if (!conf) {
        d->fault = SLURMSK_FAULT_CONF;
        add_line(log, "rejected: no usable skeleton.conf (%s)", conf_why ? conf_why : "?");
        add_line(user, "skeleton: this site's placement configuration is not usable; its "
                 "administrators find why in slurmctld's log");
        return 0;
    }
    if (place_job(conf, job, rq, dl, d, &err) < 0) {
        d->accepted = conf->bad_accept;
        add_line(log, "%s: %s", d->accepted ? "passed through" : "rejected", err.msg);
        add_line(user, "skeleton: %s%s", d->accepted ? "warning: " : "", err.msg);
        if (d->accepted)
            add_line(user, "skeleton: warning: the job is accepted without a placement "
                     "(BadInput=accept)");
        return 0;
    }
    d->accepted = 1;
    shape(conf, rq, d, user);
    text lines = { 0 };
    placed_messages(rq, job, d, &lines);
    if (lines.s)
        add_line(user, "%s", lines.s);
    user->fail |= lines.fail;
    free(lines.s);
    d->plan.seconds = clock_now() - t0;     /* the log gives the whole decision's time */
    char desc[2 * DIAG_MAX];
    slurmsk_plan_describe(&d->plan, conf->plat, desc, sizeof desc);
    add_line(log, "%s cpus_per_node=%lu", desc, d->min_cpus);
    return 0;
}

int slurmsk_decide(slurmsk_conf *conf, const char *conf_why, const slurmsk_request *rq,
                   slurmsk_decision *d)
{
    /* one deadline for the whole decision, reading the job included */
    clock_deadline dl = clock_deadline_in(conf ? slurmsk_budget(conf) : 0);
    double t0 = clock_now();
    memset(d, 0, sizeof *d);
    d->accepted = 1;
    slurmsk_job job;
    diag err;
    diag_clear(&err);
    text user = { 0 }, log = { 0 };
    int accept_bad = conf ? conf->bad_accept : 0;
    if (slurmsk_job_parse(rq->script, rq->script ? strlen(rq->script) : 0, "batch script", rq->skeleton,
                          rq->skeleton ? strlen(rq->skeleton) : 0, conf ? conf->max_tasks : 32, &job,
                          &err) < 0) {
        d->present = 1;
        d->fault = job.fault;
        d->accepted = accept_bad;
        add_line(&log, "%s: %s", accept_bad ? "passed through" : "rejected", err.msg);
        add_line(&user, "skeleton: %s%s", accept_bad ? "warning: " : "", err.msg);
        if (accept_bad)
            add_line(&user, "skeleton: warning: the job is accepted without a placement "
                     "(BadInput=accept)");
    } else if (job.present) {
        d->present = 1;
        d->accepted = 0;
        decide_parsed(conf, conf_why, rq, &job, t0, dl, d, &user, &log);
    }
    slurmsk_job_clear(&job);
    d->user = user.s;
    d->log = log.s;
    if (user.fail || log.fail) {
        slurmsk_decision_clear(d);
        return -1;
    }
    return 0;
}
