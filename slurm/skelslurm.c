/* slurm/skelslurm.c: the placement decision for the job_submit plugin (see
 * skelslurm.h; the other parts of the library: skelslurm_int.h): the
 * candidate nodes of a job, the search within the decision's deadline, the
 * plan it becomes (req_nodes and the SKEL_* environment) and the move of
 * the plan onto idle nodes. */
#define _POSIX_C_SOURCE 200809L
#include "skelslurm_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/mem.h"

/* ---- candidate nodes ------------------------------------------------------ */

/* Mark (value) the platform nodes named in a hostlist. unknown: set to the
 * first name missing from the platform (owned by the caller), if asked. */
static int mark(const skel_platform *p, const char *list, const char *what, unsigned char *flags,
                unsigned char value, char **unknown, diag *err)
{
    char **names = NULL;
    int n = 0;
    diag local;
    diag_clear(&local);
    if (skel_hostlist_expand(list, &names, &n, SKEL_MAX_NODES, &local) < 0)
        return diag_set(err, "%s: %s", what, local.msg);
    for (int i = 0; i < n; i++) {
        int j = skel_platform_find(p, names[i]);
        if (j >= 0)
            flags[j] = value;
        else if (unknown && !*unknown)
            *unknown = mem_strndup(names[i], strlen(names[i]));
    }
    skel_hostlist_free(names, n);
    return 0;
}

int slurmsk_candidates(const skel_platform *p, const char *avail, const char *partition,
                       const char *exclude,
                       const char *required, int unknown_reject, unsigned char *allowed,
                       diag *err)
{
    int nn = p->nnodes;
    unsigned char *req = NULL;
    memset(allowed, avail ? 0 : 1, (size_t)nn);
    /* An empty list (no node up yet, e.g. right after slurmctld starts)
     * leaves nothing allowed: the message below says so. */
    if (avail && *avail && mark(p, avail, "available nodes", allowed, 1, NULL, err) < 0)
        return -1;
    if (partition) {
        /* allowed &= in the partition */
        unsigned char *in = calloc((size_t)nn, 1);
        if (!in)
            return diag_set(err, "out of memory");
        if (*partition && mark(p, partition, "the partition's nodes", in, 1, NULL, err) < 0) {
            free(in);
            return -1;
        }
        for (int j = 0; j < nn; j++)
            allowed[j] &= in[j];
        free(in);
    }
    if (exclude && *exclude && mark(p, exclude, "excluded nodes (-x)", allowed, 0, NULL, err) < 0)
        return -1;
    if (required && *required) {
        char *unknown = NULL;
        if (!(req = calloc((size_t)nn, 1)))
            return diag_set(err, "out of memory");
        if (mark(p, required, "requested nodes (-w)", req, 1, &unknown, err) < 0) {
            free(req);
            free(unknown);
            return -1;
        }
        if (unknown && unknown_reject) {
            diag_set(err, "node %s of the -w list is not described in %s", unknown, p->file);
            free(req);
            free(unknown);
            return -1;
        }
        free(unknown);
        for (int j = 0; j < nn; j++)
            allowed[j] &= req[j];
        free(req);
    }
    int count = 0;
    for (int j = 0; j < nn; j++)
        count += allowed[j] != 0;
    if (count == 0)
        return diag_set(err, "no node is available for the skeleton (available, in the job's "
                             "partition, not excluded, within -w and described in %s)", p->file);
    return count;
}

/* ---- the decision ----------------------------------------------------------- */

void slurmsk_plan_clear(slurmsk_plan *plan)
{
    free(plan->node_of_task);
    free(plan->req_nodes);
    for (int i = 0; i < plan->nenv; i++)
        free(plan->env[i]);
    free(plan->env);
    memset(plan, 0, sizeof *plan);
}

/* Append to a growing string; -1 on memory. */
static int cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*s ? *s + *len : NULL, *s ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if (*s && *len + (size_t)n < *cap) {
            *len += (size_t)n;
            return 0;
        }
        size_t nc = (*cap ? *cap : 64);
        while (nc <= *len + (size_t)n)
            nc *= 2;
        if (mem_grow((void **)s, nc, 1) < 0)
            return -1;
        *cap = nc;
    }
}

static int add_env(slurmsk_plan *plan, const char *key, const char *value)
{
    size_t n = strlen(key) + strlen(value) + 2;
    char *kv = malloc(n);
    if (!kv || mem_grow((void **)&plan->env, (size_t)plan->nenv + 1, sizeof *plan->env) < 0) {
        free(kv);
        return -1;
    }
    snprintf(kv, n, "%s=%s", key, value);
    plan->env[plan->nenv++] = kv;
    return 0;
}

static int build_plan(slurmsk_plan *plan, const skel_platform *p)
{
    int n = plan->ntasks;
    char *s = NULL;
    size_t len = 0, cap = 0;
    int first = 1;
    /* tasks per node in one pass: 10,000 nodes times 1,000 tasks is not
     * something to scan inside the decision time */
    int *here = calloc((size_t)p->nnodes, sizeof *here);
    if (!here)
        return -1;
    for (int i = 0; i < n; i++)
        here[plan->node_of_task[i]]++;
    for (int j = 0; j < p->nnodes; j++) {
        if (!here[j])
            continue;
        if (cat(&s, &len, &cap, "%s%s", first ? "" : ",", p->nodes[j].name) < 0) {
            free(here);
            goto oom;
        }
        first = 0;
        plan->nnodes++;
        if (here[j] > plan->max_per_node)
            plan->max_per_node = here[j];
    }
    free(here);
    plan->req_nodes = s;
    s = NULL;
    len = cap = 0;
    for (int i = 0; i < n; i++)
        if (cat(&s, &len, &cap, "%st%d=%s", i ? " " : "", i, p->nodes[plan->node_of_task[i]].name) < 0)
            goto oom;
    if (add_env(plan, "SKEL_PLAN", s) < 0)
        goto oom;
    free(s);
    s = NULL;
    for (int i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "SKEL_NODES_T%d", i);
        if (add_env(plan, key, p->nodes[plan->node_of_task[i]].name) < 0)
            goto oom;
    }
    char num[64];
    snprintf(num, sizeof num, "%.6g", plan->throughput);
    if (add_env(plan, "SKEL_THROUGHPUT", num) < 0)
        goto oom;
    snprintf(num, sizeof num, "%d", n);
    if (add_env(plan, "SKEL_NTASKS", num) < 0 || add_env(plan, "SKEL_NODES", plan->req_nodes) < 0)
        goto oom;
    snprintf(num, sizeof num, "%d", plan->buffer);
    if (plan->buffer >= 0 && add_env(plan, "SKEL_BUFFER", num) < 0)
        goto oom;
    return 0;
oom:
    free(s);
    return -1;
}

/* Where a message about the skeleton as a whole points: its first #SKEL
 * line, or the --skeleton file. */
static int whole_at(diag *err, const slurmsk_job *job, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int whole_at(diag *err, const slurmsk_job *job, const char *fmt, ...)
{
    char msg[DIAG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (job->skel_line > 0)
        return diag_at(err, job->file ? job->file : "batch script", job->skel_line, 0, "%s", msg);
    return diag_set(err, "--skeleton: %s", msg);
}

/* The search's refusal in the user's terms. A chain beyond MaxStates or
 * the decision time is not a refusal: the search then places by the
 * approximation (approx_note says so). */
static void search_failed(const slurmsk_job *job, const diag *why, slurmsk_plan *plan, diag *err)
{
    if (strstr(why->msg, "out of memory")) {
        plan->fault = SLURMSK_FAULT_MEMORY;
        diag_set(err, "%s", why->msg);
    } else {
        plan->fault = SLURMSK_FAULT_SYNTAX;
        whole_at(err, job, "%s", why->msg);
    }
}

/* Why the exact chain was not used, for the submitter: this site's limit
 * and what gives an exact plan (the search's own words speak of the CLI's
 * --max-states, which means nothing to an sbatch user). */
static void approx_note(const slurmsk_conf *conf, double budget, const char *why,
                        slurmsk_plan *plan)
{
    const char *tail = "its throughput is an estimate; fewer stages or narrower farms and deals "
                       "give an exact plan";
    if (strstr(why, "states (the limit"))
        snprintf(plan->note, sizeof plan->note, "the skeleton's performance model has more than "
                 "%lu states, this site's limit (MaxStates=%lu): placed by the approximate search; "
                 "%s, or ask the administrators to raise MaxStates", conf->max_states,
                 conf->max_states, tail);
    else if (strstr(why, "time limit") || strstr(why, "time ran out"))
        snprintf(plan->note, sizeof plan->note, "the skeleton's performance model could not be "
                 "built within this site's decision time (%g ms): placed by the approximate "
                 "search; %s", budget * 1000, tail);
    else
        snprintf(plan->note, sizeof plan->note, "placed by the approximate search (%s); %s", why, tail);
}

/* The job's pins as node indices (pins[], -1: free); -1 with a message
 * and plan->fault set. */
static int job_pins(const slurmsk_job *job, const skel_platform *p, const unsigned char *allowed,
                    int n, int *pins, slurmsk_plan *plan, diag *err)
{
    const char *file = job->file ? job->file : "batch script";
    for (int i = 0; i < n; i++)
        pins[i] = -1;
    if (!job->pins)
        return 0;
    diag local;
    diag_clear(&local);
    if (skel_place_parse(job->pins, n, p, pins, &local) < 0) {
        const char *m = local.msg;
        plan->fault = strstr(m, "no node ") ? SLURMSK_FAULT_NODE_NAME : SLURMSK_FAULT_SYNTAX;
        return diag_at(err, file, job->pin_line, 0, "#SKEL --pin: %s", m);
    }
    for (int i = 0; i < n; i++)
        if (pins[i] >= 0 && !allowed[pins[i]]) {
            plan->fault = SLURMSK_FAULT_NODE_AVAIL;
            return diag_at(err, file, job->pin_line, 0,
                           "#SKEL --pin t%d=%s: that node is not available to this job (down, "
                           "drained, outside its partition, excluded, or outside its -w list)",
                           i, p->nodes[pins[i]].name);
        }
    return 0;
}

double slurmsk_budget(const slurmsk_conf *conf)
{
    return conf->budget < SLURMSK_LOCKED_BUDGET ? conf->budget : SLURMSK_LOCKED_BUDGET;
}

int slurmsk_place(slurmsk_conf *conf, const slurmsk_job *job, const unsigned char *allowed,
                  slurmsk_plan *plan, diag *err)
{
    return slurmsk_place_within(conf, job, allowed, slurmsk_budget(conf), plan, err);
}

int slurmsk_place_within(const slurmsk_conf *conf, const slurmsk_job *job,
                         const unsigned char *allowed, double budget, slurmsk_plan *plan,
                         diag *err)
{
    return slurmsk_place_by(conf, job, allowed, clock_deadline_in(budget), plan, err);
}

/* What the search leaves for the work after it (the plan's strings, the
 * idle-node preference, the job's shape, the messages, freeing the model):
 * a few milliseconds even for MaxTasks=256 on 10,000 nodes. */
static double after_search(const slurmsk_conf *conf)
{
    double r = 0.001 + 2e-7 * conf->plat->nnodes;
    return r < 0.1 * slurmsk_budget(conf) ? r : 0.1 * slurmsk_budget(conf);
}

int slurmsk_place_by(const slurmsk_conf *conf, const slurmsk_job *job,
                     const unsigned char *allowed, clock_deadline deadline, slurmsk_plan *plan,
                     diag *err)
{
    memset(plan, 0, sizeof *plan);
    plan->fault = SLURMSK_FAULT_SYNTAX;
    plan->buffer = job->has_buffer ? job->buffer : -1;
    if (!job->tree)
        return diag_set(err, "no skeleton");
    double t0 = clock_now();
    /* The job's buffering is part of the semantics the search ranks by
     * (docs/platform.md, "Links"): a shallow copy, the site's platform
     * shared by every decision stays as it is. */
    skel_platform jp = *conf->plat;
    if (job->has_buffer)
        jp.job_buffer = job->buffer;
    skel_platform *p = &jp;
    int n = skel_tree_ntasks(job->tree), rc = -1;
    slurmsk_fault fault = SLURMSK_FAULT_MEMORY;
    skel_dag *dag = NULL;
    skel_model *model = NULL;
    skel_search_result *res = NULL;
    diag why;
    diag_clear(&why);
    int *pins = malloc((size_t)n * sizeof *pins);
    if (!pins) {
        diag_set(err, "out of memory");
        goto out;
    }
    if (job_pins(job, p, allowed, n, pins, plan, err) < 0) {
        fault = plan->fault;
        goto out;
    }
    if (!(dag = skel_dag_build(job->tree, job->style, &why)) ||
        !(model = skel_model_new_placed(job->tree, dag, p, NULL, &why))) {
        fault = strstr(why.msg, "out of memory") ? SLURMSK_FAULT_MEMORY : SLURMSK_FAULT_SYNTAX;
        whole_at(err, job, "%s", why.msg);
        goto out;
    }

    skel_search_opts so = { 0 };
    so.pins = pins;
    /* nodes the job may not use keep their links and Input/Output roles */
    so.allowed = allowed;
    so.top = 1;
    so.deadline = clock_deadline_less(deadline, after_search(conf));
    so.tree = job->tree;           /* the lumped chain values farms the whole one cannot */
    so.max_states = conf->max_states;
    so.threads = 1;                /* inside slurmctld: no threads of our own */
    res = skel_search(model, dag, p, &so, &why);
    if (!res) {
        search_failed(job, &why, plan, err);
        fault = plan->fault;
        goto out;
    }
    if (res->nranked < 1) {
        fault = SLURMSK_FAULT_SIZE;
        whole_at(err, job, "no placement could be solved within this site's decision time (%g ms): "
                 "use fewer stages or narrower farms and deals", slurmsk_budget(conf) * 1000);
        goto out;
    }
    const skel_search_entry *best = &res->ranked[0];
    plan->ntasks = n;
    if (!(plan->node_of_task = malloc((size_t)n * sizeof *plan->node_of_task))) {
        diag_set(err, "out of memory");
        goto out;
    }
    memcpy(plan->node_of_task, best->placement, (size_t)n * sizeof *plan->node_of_task);
    plan->throughput = best->throughput;
    plan->optimal = res->optimal;
    plan->method = res->method;
    plan->gap = res->gap;
    if (res->method == SKEL_SEARCH_APPROX)
        approx_note(conf, slurmsk_budget(conf), res->why, plan);
    plan->states = res->states;
    if (build_plan(plan, p) < 0) {
        diag_set(err, "out of memory");
        goto out;
    }
    plan->seconds = clock_now() - t0;
    rc = 0;
out:
    if (rc) {
        slurmsk_plan_clear(plan);
        plan->fault = fault;
    }
    skel_search_result_free(res);
    skel_model_free(model);
    skel_dag_free(dag);
    free(pins);
    return rc;
}

/* Node j's tasks go to node v. */
static void move_node(slurmsk_plan *plan, int j, int v)
{
    for (int i = 0; i < plan->ntasks; i++)
        if (plan->node_of_task[i] == j)
            plan->node_of_task[i] = v;
}

/* The plan's strings again, after its nodes changed. */
static int rebuild_plan(slurmsk_plan *plan, const skel_platform *p)
{
    free(plan->req_nodes);
    plan->req_nodes = NULL;
    for (int i = 0; i < plan->nenv; i++)
        free(plan->env[i]);
    plan->nenv = 0;
    plan->nnodes = 0;
    return build_plan(plan, p);
}

/* The next node after *at that is unused, allowed, idle and of class c,
 * or -1; *at only moves forward (a node taken stays taken), so that
 * all the searches of one class cost one pass over the nodes. */
static int next_idle(const int *cls, const int *used, const unsigned char *allowed,
                     const unsigned char *idle, int nn, int c, int *at)
{
    for (; *at < nn; ++*at)
        if (!used[*at] && allowed[*at] && idle[*at] && cls[*at] == c)
            return (*at)++;
    return -1;
}

int slurmsk_prefer_idle(slurmsk_plan *plan, const slurmsk_job *job, const skel_platform *p,
                        const unsigned char *allowed, const unsigned char *idle)
{
    int nn = p->nnodes, moved = 0, nt = plan->ntasks;
    /* used: 1 a node of the plan, 2 one holding a pinned task; at: per
     * class representative, where the search for an idle node resumes */
    int *cls = malloc((size_t)nn * sizeof *cls), *pins = malloc((size_t)nt * sizeof *pins),
        *used = calloc((size_t)nn, sizeof *used), *at = calloc((size_t)nn, sizeof *at);
    diag err;
    diag_clear(&err);
    if (!cls || !pins || !used || !at || skel_search_classes(p, NULL, cls, &err) < 0) {
        moved = -1;
        goto out;
    }
    for (int i = 0; i < nt; i++)
        pins[i] = -1;
    if (job->pins && skel_place_parse(job->pins, nt, p, pins, &err) < 0)
        goto out;          /* cannot happen: the plan was made with these pins */
    for (int i = 0; i < nt; i++)
        used[plan->node_of_task[i]] = used[plan->node_of_task[i]] > 1 || pins[i] >= 0 ? 2 : 1;
    for (int j = 0; j < nn; j++) {
        if (used[j] != 1 || idle[j])
            continue;
        int v = next_idle(cls, used, allowed, idle, nn, cls[j], &at[cls[j]]);
        if (v >= 0) {
            move_node(plan, j, v);
            used[v] = 1;
            used[j] = 0;
            moved++;
        }
    }
    if (moved > 0 && rebuild_plan(plan, p) < 0)
        moved = -1;
out:
    free(at);
    free(cls);
    free(pins);
    free(used);
    return moved;
}
