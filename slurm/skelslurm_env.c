/* slurm/skelslurm_env.c: a plan in Slurm's terms, for the job_submit
 * plugin (see skelslurm.h): the line of slurmctld's log, the job's
 * environment (SKEL_* variables replacing any already set), the skeleton
 * text the SPANK plugin sent, the time-limit warning, and whether an
 * update of a pending job (job_modify) keeps it on its plan. */
#define _POSIX_C_SOURCE 200809L
#include "skelslurm_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int slurmsk_time_check(double items, double throughput, long limit_minutes, char *buf, size_t size)
{
    if (!(items > 0) || limit_minutes <= 0 || !(throughput > 0))
        return 0;
    double need = items / throughput, limit = 60.0 * (double)limit_minutes;
    if (need <= limit)
        return 0;
    snprintf(buf, size,
             "skeleton: warning: %.0f items at the predicted %.4g items/s take about %.0f s, "
             "beyond the job's time limit of %ld min",
             items, throughput, need, limit_minutes);
    return 1;
}

int slurmsk_env_find(char *const *env, unsigned n, const char *kv)
{
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    for (unsigned i = 0; i < n; i++)
        if (env[i] && strncmp(env[i], kv, klen) == 0 && env[i][klen] == '=')
            return (int)i;
    return -1;
}

const char *slurmsk_spank_value(char *const *env, unsigned n)
{
    /* Slurm stores spank_job_control_setenv variables with a SPANK_ prefix;
     * accept the bare name too. */
    static const char *const names[] = { "SPANK_" SLURMSK_SPANK_VAR "=", SLURMSK_SPANK_VAR "=" };
    for (unsigned i = 0; env && i < n; i++)
        for (int k = 0; k < 2; k++) {
            size_t l = strlen(names[k]);
            if (env[i] && strncmp(env[i], names[k], l) == 0)
                return env[i] + l;
        }
    return NULL;
}

/* The end of the log line: throughput, time, method, gap. */
static void describe_tail(const slurmsk_plan *plan, char *buf, size_t size)
{
    int w = snprintf(buf, size, " throughput=%.6g decision=%.1fms states=%lu method=%s",
                     plan->throughput, plan->seconds * 1000, plan->states,
                     skel_search_method_name(plan->method));
    size_t used = w > 0 && (size_t)w < size ? (size_t)w : size - 1;
    if (plan->method == SKEL_SEARCH_EXACT && !plan->optimal && isfinite(plan->gap) && plan->gap > 0)
        snprintf(buf + used, size - used, " gap=%.3g%% (budget reached: best found so far)",
                 100 * plan->gap);
    else if (plan->method == SKEL_SEARCH_EXACT && !plan->optimal)
        snprintf(buf + used, size - used, " (budget reached: best found so far)");
}

void slurmsk_plan_describe(const slurmsk_plan *plan, const skel_platform *p, char *buf, size_t size)
{
    /* the tail first, so that a plan of hundreds of tasks, cut to fit,
     * never cuts the method and the time off the line */
    char tail[192];
    describe_tail(plan, tail, sizeof tail);
    size_t room = size > strlen(tail) + 4 ? size - strlen(tail) - 4 : 0, used = 0;
    if (room == 0) {
        snprintf(buf, size, "%s", tail);
        return;
    }
    int w = snprintf(buf, room, "tasks=%d nodes=%s plan=", plan->ntasks,
                     plan->req_nodes ? plan->req_nodes : "");
    used = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < plan->ntasks && used < room; i++) {
        w = snprintf(buf + used, room - used, "%st%d=%s", i ? "," : "", i,
                     p->nodes[plan->node_of_task[i]].name);
        used += w > 0 ? (size_t)w : 0;
    }
    if (used >= room) {
        used = room - 1;                 /* cut: say so */
        snprintf(buf + used, size - used, "...");
        used += 3;
    }
    if (used < size)
        snprintf(buf + used, size - used, "%s", tail);
}

int slurmsk_env_apply(char ***env, uint32_t *size, char *const *vars, int n, const slurmsk_alloc *a)
{
    uint32_t have = *env ? *size : 0, add = 0;
    for (int i = 0; i < n; i++)
        if (slurmsk_env_find(*env, have, vars[i]) < 0)
            add++;
    /* room for the additions and the NULL after them, always: an array
     * that came without its NULL gets one */
    char **g = a->grow(*env, (size_t)have + add + 1, sizeof *g);
    if (!g)
        return -1;         /* unchanged */
    *env = g;
    g[have] = NULL;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(vars[i], '=');
        size_t klen = eq ? (size_t)(eq - vars[i]) : strlen(vars[i]);
        int found = 0;
        for (uint32_t k = 0; k < have; k++)
            if (g[k] && strncmp(g[k], vars[i], klen) == 0 && g[k][klen] == '=') {
                char *d = a->dup(vars[i]);
                if (!d) {
                    rc = -1;
                    continue;
                }
                a->release(g[k]);
                g[k] = d;
                found = 1;
            }
        if (found)
            continue;
        char *d = a->dup(vars[i]);
        if (!d) {
            rc = -1;
            continue;
        }
        g[have++] = d;
        g[have] = NULL;
    }
    *size = have;
    return rc;
}

/* The names of a hostlist (expanded, in order), for set comparisons; -1 with
 * a message. */
static int names_of(const char *list, const char *what, char ***names, int *n, diag *err)
{
    diag local;
    diag_clear(&local);
    if (skel_hostlist_expand(list, names, n, SKEL_MAX_NODES, &local) < 0)
        return diag_set(err, "%s: %s", what, local.msg);
    return 0;
}

static int has_name(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

int slurmsk_modify_check(const char *plan_nodes, const char *req, const char *exc,
                         const char *part_nodes, unsigned long nodes_min, unsigned long nodes_max,
                         diag *err)
{
    char **plan = NULL, **other = NULL;
    int np = 0, no = 0, rc = -1;
    if (names_of(plan_nodes, "SKEL_NODES", &plan, &np, err) < 0)
        return -1;
    if (req && !*req) {
        diag_set(err, "clearing ReqNodeList would let the job run off its plan (%s)", plan_nodes);
        goto out;
    }
    if (req) {
        if (names_of(req, "ReqNodeList", &other, &no, err) < 0)
            goto out;
        int same = no == np;
        for (int i = 0; same && i < np; i++)
            same = has_name(other, no, plan[i]);
        if (!same) {
            diag_set(err, "ReqNodeList=%s differs from the job's plan (%s)", req, plan_nodes);
            goto out;
        }
        skel_hostlist_free(other, no);
        other = NULL;
    }
    if (exc && *exc) {
        if (names_of(exc, "ExcNodeList", &other, &no, err) < 0)
            goto out;
        for (int i = 0; i < np; i++)
            if (has_name(other, no, plan[i])) {
                diag_set(err, "ExcNodeList=%s excludes %s, a node of the job's plan (%s)", exc,
                         plan[i], plan_nodes);
                goto out;
            }
        skel_hostlist_free(other, no);
        other = NULL;
    }
    if (part_nodes) {
        if (*part_nodes && names_of(part_nodes, "the partition's nodes", &other, &no, err) < 0)
            goto out;
        for (int i = 0; i < np; i++)
            if (!has_name(other, no, plan[i])) {
                diag_set(err, "the new partition does not contain %s, a node of the job's plan (%s)",
                         plan[i], plan_nodes);
                goto out;
            }
        skel_hostlist_free(other, no);
        other = NULL;
    }
    if ((nodes_min && nodes_min != (unsigned long)np) || (nodes_max && nodes_max != (unsigned long)np)) {
        diag_set(err, "NumNodes other than %d does not fit the job's plan (%s)", np, plan_nodes);
        goto out;
    }
    rc = 0;
out:
    skel_hostlist_free(plan, np);
    skel_hostlist_free(other, no);
    return rc;
}
