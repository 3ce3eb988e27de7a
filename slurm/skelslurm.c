/* slurm/skelslurm.c: #SKEL directives, skeleton.conf, candidate nodes and
 * the placement decision for the job_submit plugin (see skelslurm.h). */
#define _POSIX_C_SOURCE 200809L
#include "skelslurm.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/clock.h"
#include "../base/mem.h"
#include "../bpel/bpel.h"

/* ---- small helpers ------------------------------------------------------ */

/* A whole-string number: no trailing text, finite. */
static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* ---- skeleton.conf ------------------------------------------------------- */

/* CPUs=N on a NodeName line: kept by line until the nodes exist. */
static int cpus_key(slurmsk_conf *c, const skel_conf_item *it, diag *err)
{
    double v;
    if (!it->head_key || strcasecmp(it->head_key, "NodeName") != 0)
        return diag_at(err, it->file, it->line, it->col, "CPUs= belongs on a NodeName= line");
    if (parse_number(it->value, &v) < 0 || v < 1 || v > 1e6 || v != floor(v))
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

int slurmsk_conf_key(void *ctx, const skel_conf_item *it, diag *err)
{
    slurmsk_conf *c = ctx;
    double v;
    if (strcasecmp(it->key, "CPUs") == 0)
        return cpus_key(c, it, err) < 0 ? -1 : 0;
    if (it->head_key && strcasecmp(it->head_key, "NodeName") == 0)
        return 1;
    if (strcasecmp(it->key, "Budget") == 0) {
        if (parse_number(it->value, &v) < 0 || !(v > 0) || v > 60000)
            return diag_at(err, it->file, it->line, it->col,
                           "Budget= must be a number of milliseconds in (0, 60000], not '%s'",
                           it->value);
        c->budget = v / 1000.0;
    } else if (strcasecmp(it->key, "MaxStates") == 0) {
        if (parse_number(it->value, &v) < 0 || v < 1 || v > 1e8 || v != floor(v))
            return diag_at(err, it->file, it->line, it->col,
                           "MaxStates= must be an integer in 1 .. 100000000, not '%s'", it->value);
        c->max_states = (unsigned long)v;
    } else if (strcasecmp(it->key, "MaxTasks") == 0) {
        if (parse_number(it->value, &v) < 0 || v < 1 || v > SLURMSK_MAX_TASKS_LIMIT || v != floor(v))
            return diag_at(err, it->file, it->line, it->col,
                           "MaxTasks= must be an integer in 1 .. %d, not '%s'",
                           SLURMSK_MAX_TASKS_LIMIT, it->value);
        c->max_tasks = (int)v;
    } else if (strcasecmp(it->key, "UnknownNodes") == 0) {
        if (strcasecmp(it->value, "ignore") == 0)
            c->unknown_reject = 0;
        else if (strcasecmp(it->value, "reject") == 0)
            c->unknown_reject = 1;
        else
            return diag_at(err, it->file, it->line, it->col,
                           "UnknownNodes= must be ignore or reject, not '%s'", it->value);
    } else if (strcasecmp(it->key, "BadInput") == 0) {
        if (strcasecmp(it->value, "reject") == 0)
            c->bad_accept = 0;
        else if (strcasecmp(it->value, "accept") == 0)
            c->bad_accept = 1;
        else
            return diag_at(err, it->file, it->line, it->col,
                           "BadInput= must be reject or accept, not '%s'", it->value);
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
        free(c);
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

/* ---- #SKEL directives ----------------------------------------------------- */

void slurmsk_job_clear(slurmsk_job *job)
{
    skel_tree_free(job->tree);
    free(job->warning);
    free(job->pins);
    free(job->file);
    memset(job, 0, sizeof *job);
}

/* "--name VALUE" / "--name=VALUE": the value (trimmed, in place), or NULL
 * when the option is not this one. */
static char *opt_value(char *body, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(body, name, n) != 0)
        return NULL;
    char *v = body + n;
    if (*v == '=')
        v++;
    else if (*v == ' ' || *v == '\t')
        while (*v == ' ' || *v == '\t')
            v++;
    else if (*v != '\0')
        return NULL;
    return v;
}

static int add_pins(slurmsk_job *job, const char *v, int line)
{
    size_t old = job->pins ? strlen(job->pins) : 0, len = strlen(v);
    if (mem_grow((void **)&job->pins, old + len + 2, 1) < 0)
        return -1;
    char *p = job->pins;
    if (old)
        p[old++] = ',';
    memcpy(p + old, v, len + 1);
    if (!job->pin_line)
        job->pin_line = line;
    return 0;
}

/* One option line (body starts with "--", trailing blanks removed). */
static int directive_option(slurmsk_job *job, char *body, const char *file, int line, diag *err)
{
    char *v;
    if ((v = opt_value(body, "--pin"))) {
        if (!*v)
            return diag_at(err, file, line, 0, "#SKEL --pin needs tN=NODE[,tM=NODE...]");
        if (add_pins(job, v, line) < 0)
            return diag_set(err, "out of memory");
    } else if ((v = opt_value(body, "--items"))) {
        double d;
        if (parse_number(v, &d) < 0 || !(d >= 1) || d > SLURMSK_MAX_ITEMS || d != floor(d))
            return diag_at(err, file, line, 0,
                           "#SKEL --items must be a whole number of items in 1 .. 1e15, not '%s'", v);
        job->items = d;
    } else if ((v = opt_value(body, "--style"))) {
        if (strcmp(v, "stream") == 0)
            job->style = SKEL_STYLE_STREAM;
        else if (strcmp(v, "producer") == 0)
            job->style = SKEL_STYLE_PRODUCER;
        else
            return diag_at(err, file, line, 0, "#SKEL --style must be stream or producer, not '%s'", v);
    } else if ((v = opt_value(body, "--buffer"))) {
        double d;
        if (parse_number(v, &d) < 0 || !(d >= 0) || d > SKEL_MAX_BUFFER || d != floor(d))
            return diag_at(err, file, line, 0,
                           "#SKEL --buffer must be a whole number of items in 0 .. %d, not '%s'",
                           SKEL_MAX_BUFFER, v);
        job->buffer = (int)d;
        job->has_buffer = 1;
    } else {
        size_t n = strcspn(body, " \t=");
        return diag_at(err, file, line, 0,
                       "unknown #SKEL option '%.*s' (known: --pin, --items, --style, --buffer)",
                       (int)(n > 64 ? 64 : n), body);
    }
    return 0;
}

int slurmsk_directives_parse(const char *script, size_t len, const char *file, int max_tasks,
                             slurmsk_job *job, diag *err)
{
    return slurmsk_job_parse(script, len, file, NULL, 0, max_tasks, job, err);
}

/* The skeleton of a job from its text: BPEL when the text starts with '<'
 * (white space and a UTF-8 byte order mark skipped), else the skeleton
 * language. BPEL is parsed from its first character (an XML declaration
 * must come first), so the lines skipped before it are added back to the
 * line of a message: errors name the script's (or the file's) line. */
static skel_tree *parse_tree(slurmsk_job *job, const char *text, size_t len, const char *file,
                             diag *err)
{
    size_t k = 0;
    long line_shift = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        k = 3;
    for (; k < len && isspace((unsigned char)text[k]); k++)
        line_shift += text[k] == '\n';
    if (k == len || text[k] != '<')
        return skel_parse_string(text, len, file, err);
    job->bpel = 1;
    bpel_import imp;
    diag local;
    diag_clear(&local);
    if (bpel_import_memory(text + k, len - k, file, NULL, &imp, &local) < 0) {
        /* "file:LINE:..." -> the script's line */
        size_t fl = strlen(file);
        char *end;
        long line;
        if (line_shift > 0 && strncmp(local.msg, file, fl) == 0 && local.msg[fl] == ':' &&
            (line = strtol(local.msg + fl + 1, &end, 10)) > 0 && *end == ':')
            diag_set(err, "%s:%ld%s", file, line + line_shift, end);
        else
            diag_set(err, "%s", local.msg);
        return NULL;
    }
    skel_tree *t = imp.tree;
    job->warning = imp.warning;
    imp.tree = NULL;
    imp.warning = NULL;
    bpel_import_clear(&imp);
    return t;
}

int slurmsk_job_parse(const char *script, size_t len, const char *file, const char *extra,
                      size_t extra_len, int max_tasks, slurmsk_job *job, diag *err)
{
    memset(job, 0, sizeof *job);
    job->style = SKEL_STYLE_PRODUCER;
    if (!file)
        file = "batch script";
    if (extra && extra_len > SLURMSK_MAX_SKELETON) {
        job->fault = SLURMSK_FAULT_TOO_BIG;
        return diag_set(err, "--skeleton: the file is larger than %zu bytes", SLURMSK_MAX_SKELETON);
    }
    if ((!script || len == 0) && !extra)
        return 0;
    if (!script)
        len = 0;
    if (len > SLURMSK_MAX_SCRIPT) {
        job->fault = SLURMSK_FAULT_TOO_BIG;
        return diag_set(err, "%s: larger than %zu bytes", file, SLURMSK_MAX_SCRIPT);
    }
    if (!(job->file = mem_strndup(file, strlen(file)))) {
        job->fault = SLURMSK_FAULT_MEMORY;
        return diag_set(err, "out of memory");
    }

    /* The skeleton text keeps the script's line and column numbers: lines
     * that are not skeleton directives become empty and "#SKEL" becomes
     * blanks, so the parser's "line:col" points into the script. */
    char *skel = NULL, *linebuf = NULL;
    size_t slen = 0;
    int rc = 0, first_skel = 0, first_line = 0;
    slurmsk_fault fault = SLURMSK_FAULT_SYNTAX;
    size_t pos = 0;
    for (int line = 1; pos < len && rc == 0; line++) {
        if (line > SLURMSK_MAX_LINES)
            break;                 /* directives come first; the rest is the script */
        const char *s = script + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (n >= 5 && memcmp(s, "#SKEL", 5) == 0 && (n == 5 || s[5] == ' ' || s[5] == '\t' || s[5] == '\r')) {
            if (n > SLURMSK_MAX_DIRECTIVE) {
                rc = diag_at(err, file, line, 0, "#SKEL line longer than %d characters",
                             SLURMSK_MAX_DIRECTIVE);
                break;
            }
            if (memchr(s, '\0', n)) {
                rc = diag_at(err, file, line, 0, "NUL byte in a #SKEL line");
                break;
            }
            job->present = 1;
            if (!first_line)
                first_line = line;
            free(linebuf);
            if (!(linebuf = mem_strndup(s, n))) {
                rc = diag_set(err, "out of memory");
                break;
            }
            char *body = linebuf + 5, *end = linebuf + n;
            while (*body == ' ' || *body == '\t')
                body++;
            while (end > body && isspace((unsigned char)end[-1]))
                *--end = '\0';
            if (body[0] == '-' && body[1] == '-') {
                rc = directive_option(job, body, file, line, err);
                if (skel)
                    skel[slen++] = '\n';     /* keeps the skeleton's lines the script's */
                continue;
            }
            if (!skel) {
                /* every line contributes at most itself plus a newline */
                if (!(skel = malloc(len + (size_t)SLURMSK_MAX_LINES + 2))) {
                    rc = diag_set(err, "out of memory");
                    break;
                }
                /* the lines before this one, as empty lines */
                for (int k = 1; k < line; k++)
                    skel[slen++] = '\n';
                first_skel = line;
                job->skel_line = line;
            }
            memcpy(skel + slen, "     ", 5);
            memcpy(skel + slen + 5, s + 5, n - 5);
            slen += n;
            skel[slen++] = '\n';
            continue;
        }
        if (skel)
            skel[slen++] = '\n';
        /* Like #SBATCH: blank lines and comments (and the #! line) may come
         * between directives; the first command ends them. */
        size_t k = 0;
        while (k < n && isspace((unsigned char)s[k]))
            k++;
        if (k < n && s[k] != '#')
            break;
    }
    free(linebuf);
    if (rc == 0 && extra) {
        /* the skeleton came with sbatch --skeleton=FILE (SPANK) */
        if (skel) {
            rc = diag_at(err, file, first_skel, 0,
                         "a skeleton in #SKEL lines and another from --skeleton: give one");
        } else {
            job->present = 1;
            if (!(job->tree = parse_tree(job, extra, extra_len, "--skeleton", err)))
                rc = -1;
            else if (skel_tree_ntasks(job->tree) > max_tasks) {
                fault = SLURMSK_FAULT_SIZE;
                rc = diag_set(err, "--skeleton: the skeleton has %d tasks; this site allows at most %d "
                                   "(MaxTasks=)", skel_tree_ntasks(job->tree), max_tasks);
            }
        }
    }
    if (rc == 0 && job->present && !skel && !job->tree)
        rc = diag_at(err, file, first_line, 0,
                     "#SKEL options but no skeleton (add lines such as '#SKEL pipe(3);', or give "
                     "sbatch --skeleton=FILE)");
    if (rc == 0 && skel) {
        job->tree = parse_tree(job, skel, slen, file, err);
        if (!job->tree) {
            rc = -1;
        } else if (skel_tree_ntasks(job->tree) > max_tasks) {
            fault = SLURMSK_FAULT_SIZE;
            rc = diag_at(err, file, first_skel, 0,
                         "the skeleton has %d tasks; this site allows at most %d (MaxTasks=)",
                         skel_tree_ntasks(job->tree), max_tasks);
        }
    }
    free(skel);
    if (rc) {
        if (strcmp(err->msg, "out of memory") == 0)
            fault = SLURMSK_FAULT_MEMORY;
        slurmsk_job_clear(job);
        job->fault = fault;
        return -1;
    }
    return 0;
}

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
