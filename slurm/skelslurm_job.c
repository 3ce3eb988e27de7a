/* slurm/skelslurm_job.c: a job's skeleton for the job_submit plugin (see
 * skelslurm.h): the #SKEL lines of a batch script (skeleton lines keeping
 * the script's line numbers, and the options --pin, --items, --style,
 * --buffer), or the skeleton sent apart by sbatch --skeleton=FILE, in the
 * skeleton language or as BPEL. */
#define _POSIX_C_SOURCE 200809L
#include "skelslurm_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"
#include "../bpel/bpel.h"

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
        if (slurmsk_parse_number(v, &d) < 0 || !(d >= 1) || d > SLURMSK_MAX_ITEMS || d != floor(d))
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
        if (slurmsk_parse_number(v, &d) < 0 || !(d >= 0) || d > SKEL_MAX_BUFFER || d != floor(d))
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
