/* slurm/skelslurm_conf.c: skeleton.conf for the job_submit plugin (see
 * skelslurm.h): the plugin's own keys (Budget=, MaxStates=, MaxTasks=,
 * UnknownNodes=, BadInput=, CPUs= on NodeName lines) read beside the
 * platform's, parsing and loading the file, and the "loaded" log line. */
#define _POSIX_C_SOURCE 200809L
#include "skelslurm_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/mem.h"

/* A whole-string number: no trailing text, finite. */
int slurmsk_parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* CPUs=N on a NodeName line: kept by line until the nodes exist. */
static int cpus_key(slurmsk_conf *c, const skel_conf_item *it, diag *err)
{
    double v;
    if (!it->head_key || strcasecmp(it->head_key, "NodeName") != 0)
        return diag_at(err, it->file, it->line, it->col, "CPUs= belongs on a NodeName= line");
    if (slurmsk_parse_number(it->value, &v) < 0 || v < 1 || v > 1e6 || v != floor(v))
        return diag_at(err, it->file, it->line, it->col,
                       "CPUs= must be a whole number of CPUs in 1 .. 1000000, not '%s'", it->value);
    void *g = c->cpu_lines;
    if (mem_grow(&g, 2 * (size_t)c->ncpu_lines + 2, sizeof *c->cpu_lines) < 0)
        return diag_set(err, "out of memory");
    c->cpu_lines = g;
    c->cpu_lines[2 * c->ncpu_lines] = it->line;
    c->cpu_lines[2 * c->ncpu_lines + 1] = (int)v;
    c->ncpu_lines++;
    return 0;
}

/* A key taking one of two words: *flag = 0 for off, 1 for on. key is the
 * key's name for the message (it->key is as the file spells it). */
static int two_words(const skel_conf_item *it, const char *key, const char *off, const char *on,
                     int *flag, diag *err)
{
    if (strcasecmp(it->value, off) == 0)
        *flag = 0;
    else if (strcasecmp(it->value, on) == 0)
        *flag = 1;
    else
        return diag_at(err, it->file, it->line, it->col, "%s= must be %s or %s, not '%s'", key,
                       off, on, it->value);
    return 0;
}

int slurmsk_conf_key(void *ctx, const skel_conf_item *it, diag *err)
{
    slurmsk_conf *c = ctx;
    double v;
    if (strcasecmp(it->key, "CPUs") == 0)
        return cpus_key(c, it, err) < 0 ? -1 : 0;
    if (it->head_key && strcasecmp(it->head_key, "NodeName") == 0)
        return 1;
    if (strcasecmp(it->key, "Budget") == 0) {
        if (slurmsk_parse_number(it->value, &v) < 0 || !(v > 0) || v > 60000)
            return diag_at(err, it->file, it->line, it->col,
                           "Budget= must be a number of milliseconds in (0, 60000], not '%s'",
                           it->value);
        c->budget = v / 1000.0;
    } else if (strcasecmp(it->key, "MaxStates") == 0) {
        if (slurmsk_parse_number(it->value, &v) < 0 || v < 1 ||
            v > (double)SLURMSK_MAX_STATES_LIMIT || v != floor(v))
            return diag_at(err, it->file, it->line, it->col,
                           "MaxStates= must be an integer in 1 .. %lu, not '%s'",
                           SLURMSK_MAX_STATES_LIMIT, it->value);
        c->max_states = (unsigned long)v;
    } else if (strcasecmp(it->key, "MaxTasks") == 0) {
        if (slurmsk_parse_number(it->value, &v) < 0 || v < 1 || v > SLURMSK_MAX_TASKS_LIMIT ||
            v != floor(v))
            return diag_at(err, it->file, it->line, it->col,
                           "MaxTasks= must be an integer in 1 .. %d, not '%s'",
                           SLURMSK_MAX_TASKS_LIMIT, it->value);
        c->max_tasks = (int)v;
    } else if (strcasecmp(it->key, "UnknownNodes") == 0) {
        return two_words(it, "UnknownNodes", "ignore", "reject", &c->unknown_reject, err);
    } else if (strcasecmp(it->key, "BadInput") == 0) {
        return two_words(it, "BadInput", "reject", "accept", &c->bad_accept, err);
    } else {
        return 1;
    }
    return 0;
}

void slurmsk_conf_defaults(slurmsk_conf *c)
{
    memset(c, 0, sizeof *c);
    c->budget = 0.050;
    c->max_states = 100000;
    c->max_tasks = 32;
}

slurmsk_conf *slurmsk_conf_parse(const char *text, size_t len, const char *file, diag *err)
{
    if (len > SLURMSK_MAX_CONF) {
        diag_set(err, "%s: larger than %zu bytes", file ? file : "skeleton.conf", SLURMSK_MAX_CONF);
        return NULL;
    }
    slurmsk_conf *c = calloc(1, sizeof *c);
    if (!c) {
        diag_set(err, "out of memory");
        return NULL;
    }
    slurmsk_conf_defaults(c);
    c->plat = skel_platform_parse_string(text, len, file, slurmsk_conf_key, c, err);
    if (!c->plat) {
        slurmsk_conf_free(c);     /* with the CPUs= lines read before the error */
        return NULL;
    }
    if (c->plat->nnodes == 0) {
        diag_set(err, "%s: no nodes (add NodeName= lines with their Speed=)", c->plat->file);
        slurmsk_conf_free(c);
        return NULL;
    }
    if (!(c->cpus = calloc((size_t)c->plat->nnodes, sizeof *c->cpus))) {
        diag_set(err, "out of memory");
        slurmsk_conf_free(c);
        return NULL;
    }
    for (int j = 0; j < c->plat->nnodes; j++)
        for (int k = 0; k < c->ncpu_lines; k++)
            if (c->cpu_lines[2 * k] == c->plat->nodes[j].line)
                c->cpus[j] = c->cpu_lines[2 * k + 1];
    slurmsk_conf_keys_clear(c);
    return c;
}

void slurmsk_conf_keys_clear(slurmsk_conf *c)
{
    free(c->cpu_lines);
    c->cpu_lines = NULL;
    c->ncpu_lines = 0;
}

void slurmsk_conf_describe(const slurmsk_conf *c, char *buf, size_t size)
{
    char capped[96] = "";
    if (c->budget > SLURMSK_LOCKED_BUDGET)
        snprintf(capped, sizeof capped, " (capped to %gms: decisions hold slurmctld's locks)",
                 SLURMSK_LOCKED_BUDGET * 1000);
    snprintf(buf, size, "%d nodes, Budget=%gms%s, MaxStates=%lu, MaxTasks=%d, BadInput=%s, "
             "UnknownNodes=%s", c->plat->nnodes, c->budget * 1000, capped, c->max_states,
             c->max_tasks, c->bad_accept ? "accept" : "reject", c->unknown_reject ? "reject" : "ignore");
}

slurmsk_conf *slurmsk_conf_load(const char *path, diag *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        diag_set(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    /* One byte more than the limit tells "too large" from "exactly full". */
    char *buf = malloc(SLURMSK_MAX_CONF + 1);
    if (!buf) {
        fclose(f);
        diag_set(err, "out of memory");
        return NULL;
    }
    size_t n = fread(buf, 1, SLURMSK_MAX_CONF + 1, f);
    int bad = ferror(f);
    fclose(f);
    slurmsk_conf *c = NULL;
    if (bad)
        diag_set(err, "%s: read error", path);
    else
        c = slurmsk_conf_parse(buf, n, path, err);
    free(buf);
    /* Errors in the file name its path (for the administrator's log);
     * messages to users name it "skeleton.conf", not where it lives. */
    if (c)
        c->plat->file = "skeleton.conf";
    return c;
}

void slurmsk_conf_free(slurmsk_conf *c)
{
    if (!c)
        return;
    skel_platform_free(c->plat);
    slurmsk_conf_keys_clear(c);
    free(c->cpus);
    free(c);
}
