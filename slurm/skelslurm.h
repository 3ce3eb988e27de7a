/* slurm/: what the job_submit plugin needs to understand, without the
 * plugin ABI and without Slurm's headers (so that it is unit-testable):
 *   - `#SKEL` directives in a batch script (the skeleton, pins, options);
 *   - skeleton.conf: the platform format plus the plugin's own keys;
 *   - the candidate nodes of a job (available, minus excluded, within -w);
 *   - the placement decision under a time budget, and what it becomes in
 *     Slurm's terms: a req_nodes hostlist and environment variables.
 *
 * Everything is bounded (script size, lines, tasks, nodes) because the
 * caller is slurmctld holding its locks. Library rules as elsewhere: no
 * printing, no exit, errors in a diag. Nothing here opens a file except
 * slurmsk_conf_load, which the plugin calls with the administrator's path. */
#ifndef SKELSCHED_SKELSLURM_H
#define SKELSCHED_SKELSLURM_H

#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../skeleton/skeleton.h"

#define SLURMSK_MAX_SCRIPT ((size_t)4 << 20)   /* Slurm's own default max_script_size */
#define SLURMSK_MAX_LINES 100000               /* lines of a batch script examined */
#define SLURMSK_MAX_DIRECTIVE 4096             /* characters of one #SKEL line */
#define SLURMSK_MAX_CONF ((size_t)1 << 20)     /* bytes of skeleton.conf */
#define SLURMSK_MAX_TASKS_LIMIT 256            /* hard ceiling of MaxTasks= */
#define SLURMSK_MAX_ITEMS 1e15                 /* --items */

/* ---- skeleton.conf -------------------------------------------------- */

typedef struct slurmsk_conf {
    skel_platform *plat;        /* owned */
    double budget;              /* seconds per decision (Budget= is in ms; default 50 ms) */
    unsigned long max_states;   /* MaxStates= (default 100000) */
    int max_tasks;              /* MaxTasks= (default 32) */
    int unknown_reject;         /* UnknownNodes=reject: a -w node missing from the conf rejects */
    int bad_accept;             /* BadInput=accept: pass bad jobs through unchanged, with a warning */
} slurmsk_conf;

/* The plugin's own keys (Budget=, MaxStates=, MaxTasks=, UnknownNodes=,
 * BadInput=) as a skel_conf_fn for skel_platform_parse_*: ctx is a
 * slurmsk_conf whose fields it sets (start from slurmsk_conf_defaults).
 * For every reader of skeleton.conf, so that the keys live in one table
 * (skelsched map --platform skeleton.conf uses it too). */
int slurmsk_conf_key(void *ctx, const skel_conf_item *item, diag *err);
void slurmsk_conf_defaults(slurmsk_conf *c);   /* the defaults, plat NULL */

/* Parse skeleton.conf text (len bytes). Returns a conf owned by the caller,
 * or NULL with "file:line:col: message". A conf with no nodes is an error. */
slurmsk_conf *slurmsk_conf_parse(const char *text, size_t len, const char *file, diag *err);

/* Read and parse a file (at most SLURMSK_MAX_CONF bytes). */
slurmsk_conf *slurmsk_conf_load(const char *path, diag *err);

void slurmsk_conf_free(slurmsk_conf *c);   /* c may be NULL */

/* ---- #SKEL directives ------------------------------------------------ */

typedef struct slurmsk_job {
    char *file;                 /* the script's name in messages (owned) */
    int present;                /* the script has at least one #SKEL line */
    skel_tree *tree;            /* the skeleton (owned), NULL if no skeleton lines */
    char *pins;                 /* "t0=n1,t2=n3" from --pin, NULL if none (owned) */
    int pin_line;               /* script line of the first --pin */
    double items;               /* --items N, 0 if not given */
    skel_style style;           /* --style (default producer) */
    int bpel;                   /* the skeleton came as BPEL */
    char *warning;              /* BPEL defaults used, or NULL (owned) */
} slurmsk_job;

/* Read the #SKEL lines of a batch script (len bytes; NULL/0 means no
 * script: nothing present). Like #SBATCH, directives are read up to the
 * first line that is neither blank nor a comment. file names the script in
 * messages ("batch script"); errors name its line. Returns 0 (job filled,
 * job->present 0 if there were none; clear it with slurmsk_job_clear in
 * every case), or -1 with a message (job left clear). */
int slurmsk_directives_parse(const char *script, size_t len, const char *file, int max_tasks,
                             slurmsk_job *job, diag *err);
void slurmsk_job_clear(slurmsk_job *job);

/* As slurmsk_directives_parse, with the skeleton given apart (extra,
 * extra_len; NULL: none): the content of `sbatch --skeleton=FILE`, read by
 * the SPANK plugin on the submitting side. #SKEL options still apply; #SKEL
 * skeleton lines as well are an error. A skeleton (either way) whose text
 * starts with '<' is BPEL (bpel_import_memory, no parameters file): the
 * text travels inline, nothing is opened. job->warning then lists the
 * defaults the import used. */
#define SLURMSK_MAX_SKELETON ((size_t)64 << 10)
#define SLURMSK_SPANK_VAR "SKEL_SKELETON"   /* the SPANK job control variable */
int slurmsk_job_parse(const char *script, size_t len, const char *file, const char *extra,
                      size_t extra_len, int max_tasks, slurmsk_job *job, diag *err);

/* ---- candidate nodes -------------------------------------------------- */

/* allowed[j] (one per platform node) = node j is in avail (NULL: every
 * platform node), in partition (the hostlist of the job's partition; NULL:
 * no restriction), not in exclude (NULL: none), and within required (NULL
 * or "": no -w list). Nodes of avail missing from the platform are ignored;
 * with unknown_reject a required node missing from the platform is an
 * error. Returns the number of allowed nodes (>= 1), or -1 with a message. */
int slurmsk_candidates(const skel_platform *p, const char *avail, const char *partition,
                       const char *exclude,
                       const char *required, int unknown_reject, unsigned char *allowed,
                       diag *err);

/* ---- the decision ----------------------------------------------------- */

typedef struct slurmsk_plan {
    int ntasks;
    int *node_of_task;          /* platform node indices */
    double throughput;          /* predicted, items per second */
    int optimal;                /* 0: the budget ran out (best found so far) */
    skel_search_method method;  /* exact (the chain) or approximate (it did not fit) */
    double gap;                 /* exact, not optimal: proven gap to the best left out */
    double seconds;             /* decision time */
    unsigned long states;
    char *req_nodes;            /* "n1,n3": the distinct nodes used */
    int nnodes;                 /* how many */
    char **env;                 /* "KEY=VALUE" strings */
    int nenv;
} slurmsk_plan;

/* Search the best placement of job's skeleton on conf's platform among the
 * allowed nodes (from slurmsk_candidates), honouring the job's pins, within
 * conf->budget; no task goes on a node that is not allowed, even when the
 * job's throughput does not depend on that task's node. Returns 0 with
 * plan filled (free with slurmsk_plan_clear), or -1 with a message. */
int slurmsk_place(slurmsk_conf *conf, const slurmsk_job *job, const unsigned char *allowed,
                  slurmsk_plan *plan, diag *err);
void slurmsk_plan_clear(slurmsk_plan *plan);

/* When --items was given and the job has a time limit (minutes; 0 or
 * negative: none): a warning in buf if items / throughput exceeds it.
 * Returns 1 when it wrote a warning, else 0. */
int slurmsk_time_check(double items, double throughput, long limit_minutes, char *buf,
                       size_t size);

/* Index of the entry of env (n "KEY=VALUE" strings) with the same key as
 * kv, or -1: so that the plugin replaces a variable instead of adding a
 * second one. */
int slurmsk_env_find(char *const *env, unsigned n, const char *kv);

/* Memory for slurmsk_env_apply: the plugin passes Slurm's allocator (an
 * environment Slurm frees must come from it), tests pass malloc's. grow
 * returns ptr resized to count elements of size bytes, the new ones zeroed
 * (NULL: out of memory, ptr unchanged); dup copies a string (NULL: out of
 * memory). */
typedef struct slurmsk_alloc {
    void *(*grow)(void *ptr, size_t count, size_t size);
    char *(*dup)(const char *s);
    void (*release)(void *ptr);
} slurmsk_alloc;

/* Put the n "KEY=VALUE" strings of vars into the environment *env of *size
 * entries: a variable already there is replaced (every copy of it), the
 * others appended. Afterwards *env has *size entries followed by a NULL
 * (Slurm frees it as a NULL-terminated array whatever env_size says).
 * *env may be NULL (then *size is taken as 0). Returns 0, or -1 when out of
 * memory (then *env and *size still describe a valid, NULL-terminated
 * array, with some of the variables possibly set). */
int slurmsk_env_apply(char ***env, uint32_t *size, char *const *vars, int n, const slurmsk_alloc *a);

/* job_modify: whether an update of a pending job keeps it on the nodes it
 * was placed on. plan_nodes: the job's SKEL_NODES ("n1,n3"). The update's
 * new values, NULL or 0 when it does not change them: req (ReqNodeList; ""
 * clears it), exc (ExcNodeList), part_nodes (hostlist of the new
 * partition), nodes_min/nodes_max (NumNodes). Returns 0 when the plan still
 * holds, -1 with a message naming the conflict. */
int slurmsk_modify_check(const char *plan_nodes, const char *req, const char *exc,
                         const char *part_nodes, unsigned long nodes_min, unsigned long nodes_max,
                         diag *err);

/* The skeleton text sent by the SPANK plugin, in a job's spank_job_env
 * (n entries), or NULL. */
const char *slurmsk_spank_value(char *const *env, unsigned n);

/* One line for slurmctld's log describing the decision. */
void slurmsk_plan_describe(const slurmsk_plan *plan, const skel_platform *p, char *buf,
                           size_t size);

#endif
