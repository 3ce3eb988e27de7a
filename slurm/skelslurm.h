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
#define SLURMSK_MAX_TASKS_LIMIT 1024           /* hard ceiling of MaxTasks= */
#define SLURMSK_MAX_STATES_LIMIT 100000000UL   /* hard ceiling of MaxStates= (and map --max-states) */
#define SLURMSK_MAX_ITEMS 1e15                 /* --items */

/* The longest a decision may run, whatever Budget= says: slurmctld holds
 * its job, node and partition locks while job_submit runs, so every other
 * submission (and most other RPCs) waits for it. Half a second: a plain
 * sbatch behind one decision stays well under a second, and a 9-task BPEL
 * job still derives its chain on this 2-core machine under a load of ~25
 * (200 ms did not). */
#define SLURMSK_LOCKED_BUDGET 0.5          /* seconds */

/* What kind of problem stopped a decision: the plugin turns it into the
 * closest Slurm error code, so that sbatch says more than "Unspecified
 * error". */
typedef enum slurmsk_fault {
    SLURMSK_FAULT_NONE = 0,
    SLURMSK_FAULT_SYNTAX,      /* #SKEL lines, the skeleton's text, an option */
    SLURMSK_FAULT_TOO_BIG,     /* the script or the --skeleton file beyond its size limit */
    SLURMSK_FAULT_SIZE,        /* MaxTasks=, MaxStates=, the decision time */
    SLURMSK_FAULT_NODE_NAME,   /* a node skeleton.conf does not describe */
    SLURMSK_FAULT_NODE_AVAIL,  /* a pin on a node this job may not use */
    SLURMSK_FAULT_NO_NODES,    /* no node may take the job */
    SLURMSK_FAULT_CONF,        /* no usable skeleton.conf */
    SLURMSK_FAULT_MEMORY
} slurmsk_fault;

/* ---- skeleton.conf -------------------------------------------------- */

typedef struct slurmsk_conf {
    skel_platform *plat;        /* owned */
    double budget;              /* seconds per decision (Budget= is in ms; default 50 ms) */
    unsigned long max_states;   /* MaxStates= (default 100000) */
    int max_tasks;              /* MaxTasks= (default 32) */
    int unknown_reject;         /* UnknownNodes=reject: a -w node missing from the conf rejects */
    int bad_accept;             /* BadInput=accept: pass bad jobs through unchanged, with a warning */
    int *cpus;                  /* CPUs= of each platform node, 0: not given (owned) */
    int *cpu_lines;             /* while parsing: (line, CPUs=) pairs of NodeName lines */
    int ncpu_lines;
} slurmsk_conf;

/* Release what slurmsk_conf_key collected in a conf the caller owns
 * (slurmsk_conf_free does it for a parsed one). */
void slurmsk_conf_keys_clear(slurmsk_conf *c);

/* The time a decision may take: Budget=, at most SLURMSK_LOCKED_BUDGET. */
double slurmsk_budget(const slurmsk_conf *conf);

/* The "loaded" line of slurmctld's log: every key in force. */
void slurmsk_conf_describe(const slurmsk_conf *c, char *buf, size_t size);

/* The plugin's own keys (Budget=, MaxStates=, MaxTasks=, UnknownNodes=,
 * BadInput=, and CPUs= on NodeName lines) as a skel_conf_fn for skel_platform_parse_*: ctx is a
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
    int buffer;                 /* --buffer N: items each move of the job may hold */
    int has_buffer;             /* --buffer was given */
    int bpel;                   /* the skeleton came as BPEL */
    char *warning;              /* BPEL defaults used, or NULL (owned) */
    int skel_line;              /* script line of the first skeleton line; 0: --skeleton */
    slurmsk_fault fault;        /* after a failed parse: what kind */
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
    char note[512];             /* approximate: why, in the submitter's terms */
    double seconds;             /* decision time */
    unsigned long states;
    char *req_nodes;            /* "n1,n3": the distinct nodes used */
    int nnodes;                 /* how many */
    char **env;                 /* "KEY=VALUE" strings */
    int nenv;
    int max_per_node;           /* most tasks placed on one node */
    int buffer;                 /* the job's --buffer (SKEL_BUFFER), -1: none */
    slurmsk_fault fault;        /* after a failed placement: what kind */
} slurmsk_plan;

/* Search the best placement of job's skeleton on conf's platform among the
 * allowed nodes (from slurmsk_candidates), honouring the job's pins, within
 * conf->budget; no task goes on a node that is not allowed, even when the
 * job's throughput does not depend on that task's node. Returns 0 with
 * plan filled (free with slurmsk_plan_clear), or -1 with a message. */
int slurmsk_place(slurmsk_conf *conf, const slurmsk_job *job, const unsigned char *allowed,
                  slurmsk_plan *plan, diag *err);

/* slurmsk_place within budget seconds rather than conf's whole decision
 * time (a share of it, when the job names several partitions). */
int slurmsk_place_within(const slurmsk_conf *conf, const slurmsk_job *job,
                         const unsigned char *allowed, double budget, slurmsk_plan *plan,
                         diag *err);
void slurmsk_plan_clear(slurmsk_plan *plan);

/* slurmsk_place ending by deadline: the decision's one deadline, made when
 * it started (slurmsk_decide), so that reading the job, building its model,
 * deriving and solving chains and the work after the search all fit in it.
 * Past it the plan is the best placement known (at worst the constructive
 * one); plan->method says which method valued it. */
int slurmsk_place_by(const slurmsk_conf *conf, const slurmsk_job *job,
                     const unsigned char *allowed, clock_deadline deadline, slurmsk_plan *plan,
                     diag *err);

/* Move the plan off busy nodes: every node of the plan that is not idle
 * (idle: nnodes flags) and holds no pinned task is swapped for an
 * allowed, idle, unused node interchangeable with it (same speed, same
 * links: skel_search_classes), which leaves the predicted throughput
 * exactly as it was. Returns the number of nodes moved, or -1 (memory;
 * plan unchanged). */
int slurmsk_prefer_idle(slurmsk_plan *plan, const slurmsk_job *job, const skel_platform *p,
                        const unsigned char *allowed, const unsigned char *idle);

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

/* ---- the whole decision (slurm/decide.c) ------------------------------ */

/* A job as job_submit sees it, in plain terms (the plugin fills it from
 * Slurm's job descriptor; `skelsched plan` from its command line), so that
 * both decide the same way. */
typedef struct slurmsk_request {
    const char *script;         /* the batch script; NULL: none (srun, salloc) */
    const char *skeleton;       /* the content of sbatch --skeleton=FILE, or NULL */
    const char *avail;          /* hostlist of the nodes up and available; NULL: all */
    const char *idle;           /* hostlist of the idle nodes; NULL: no preference */
    const char *const *parts;   /* the node hostlists of the job's partitions (an entry
                                   NULL: not readable, no restriction) */
    int nparts;                 /* 0: no restriction by partition */
    const char *req_nodes;      /* -w, NULL: none */
    const char *exc_nodes;      /* -x, NULL: none */
    unsigned long min_nodes;    /* -N, 0: not given */
    unsigned long num_tasks;    /* -n, 0: not given */
    unsigned long cpus_per_task; /* -c, 0: not given */
    long time_limit;            /* -t in minutes, 0: not given */
    long default_time;          /* the partition's DefaultTime (else MaxTime) in minutes,
                                   0: none or not known */
    int array;                  /* a job array (--array) */
} slurmsk_request;

typedef struct slurmsk_decision {
    int present;                /* the job has #SKEL lines or --skeleton */
    slurmsk_fault fault;        /* NONE: placed (if present) */
    int accepted;               /* the job goes on: not present, placed, or BadInput=accept */
    slurmsk_plan plan;          /* when placed */
    unsigned long num_tasks;    /* the job's tasks: the skeleton's */
    unsigned long min_cpus;     /* CPUs per node the job gets (pn_min_cpus) */
    char *user;                 /* for the submitter, one "skeleton: ..." line each, or NULL */
    char *log;                  /* for slurmctld's log (no "job_submit/skeleton:" prefix) */
} slurmsk_decision;

/* Decide for the job of rq with conf (NULL: no usable skeleton.conf; the
 * log names conf_why). Returns 0 (d filled; clear it with
 * slurmsk_decision_clear) or -1 when out of memory for the messages. */
int slurmsk_decide(slurmsk_conf *conf, const char *conf_why, const slurmsk_request *rq,
                   slurmsk_decision *d);
void slurmsk_decision_clear(slurmsk_decision *d);

#endif
