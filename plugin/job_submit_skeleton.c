/* job_submit/skeleton: Slurm 22.05 entry points only. The work (reading
 * #SKEL lines and skeleton.conf, choosing nodes, the environment) is in
 * slurm/skelslurm.c; this file moves data between Slurm's job descriptor
 * and that library.
 *
 * Controller safety: slurmctld calls job_submit holding its config, job,
 * node and partition locks. Everything below is bounded by slurm/ (sizes,
 * MaxStates=, Budget=), opens only skeleton.conf (job_modify has slurmctld
 * read a job's saved environment), never makes an RPC, and gives Slurm only
 * memory from Slurm's own allocator. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/skelslurm.h"

/* Exported by slurmctld / libslurmfull but not declared in the public
 * headers (see ../shared/notes/slurm-local-cluster.md). The bitmap type is
 * private: the plugin only passes the pointer back to Slurm. Weak, so that
 * a Slurm without them still loads the plugin (every described node is
 * then a candidate) instead of failing to start. */
extern void *avail_node_bitmap __attribute__((weak));
extern void *idle_node_bitmap __attribute__((weak));
extern char *bitmap2node_name(void *bitmap) __attribute__((weak));
extern void *default_part_loc __attribute__((weak));
extern void *find_part_record(char *name) __attribute__((weak));
extern char **get_job_env(void *job_ptr, uint32_t *env_size) __attribute__((weak));
extern slurm_conf_t slurm_conf;
extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_, const char *file,
                           int line, const char *func);
extern void *slurm_xrecalloc(void **item, size_t count, size_t size, bool clear, bool try_,
                             const char *file, int line, const char *func);
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **item);
extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void bpel_init(void);

/* The entry points slurmctld looks up by name. */
int init(void);
int fini(void);
int job_submit(job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg);
int job_modify(job_desc_msg_t *jd, void *job_ptr, uint32_t submit_uid);

const char plugin_name[] = "Skeleton placement job submit plugin";
const char plugin_type[] = "job_submit/skeleton";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The configuration and the file it came from: one decision at a time,
 * since slurm/ borrows the conf's platform during a search. */
static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static slurmsk_conf *conf;          /* last good skeleton.conf, or NULL */
static char conf_path[PATH_MAX];
static struct timespec conf_mtime;  /* of the last file we tried to load */
static off_t conf_size;
static int conf_tried;
static char conf_why[PATH_MAX + DIAG_MAX];     /* why there is no usable conf */

#define SK_FREE(p) slurm_xfree((void **)&(p))

/* ---- the job's partition ------------------------------------------------
 * part_record_t is private to slurmctld, and no exported function gives a
 * partition's nodes in a public type. Its node bitmap is read at the
 * offset measured on Debian's 22.05 build (objdump of build_part_bitmap:
 * node_bitmap at byte 0xd0), for 22.05 only: the plugin is built for one
 * exact Slurm release anyway (plugin_version). Before use, the record's
 * magic cookie and the bitmap's own header (magic, and as many bits as
 * avail_node_bitmap) are checked; when anything does not match, or on
 * another release, candidates are not restricted to the partition (logged
 * once) and Slurm still refuses a plan outside it. */
#define SK_PART_MAGIC 0xaefe8495u
#define SK_BITSTR_MAGIC 0x42434445
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) && SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)
#define SK_PART_BITMAP_OFFSET 0xd0
/* default_time and max_time (uint32_t minutes): offsetof in 22.05.8's
 * part_record_t (slurmctld.h), which also gives node_bitmap at 0xd0 as
 * measured */
#define SK_PART_DEFAULT_TIME_OFFSET 0x68
#define SK_PART_MAX_TIME_OFFSET 0xbc
#define SK_SLURM_2205 1            /* get_job_env's ownership, below, as measured */
#endif
#define SK_MAX_PARTS 8             /* partitions of one -p list tried */

static int part_warned;            /* under conf_lock */

static void part_unsupported(const char *why)
{
    if (!part_warned)
        slurm_error("job_submit/skeleton: %s: candidates are not restricted to the job's partition", why);
    part_warned = 1;
}

/* The hostlist of a partition record's nodes (Slurm's allocator), or NULL
 * when it cannot be read safely (no restriction then). */
static char *part_nodes(void *rec)
{
#ifdef SK_PART_BITMAP_OFFSET
    if (!bitmap2node_name || !&avail_node_bitmap || !avail_node_bitmap) {
        part_unsupported("slurmctld exports no bitmap2node_name/avail_node_bitmap");
        return NULL;
    }
    if (*(const uint32_t *)rec != SK_PART_MAGIC) {
        part_unsupported("unexpected partition record (magic cookie)");
        return NULL;
    }
    const int64_t *bits = *(int64_t *const *)((const char *)rec + SK_PART_BITMAP_OFFSET);
    const int64_t *avail = avail_node_bitmap;
    if (!bits || bits[0] != SK_BITSTR_MAGIC || bits[1] != avail[1]) {
        part_unsupported("unexpected partition node bitmap");
        return NULL;
    }
    return bitmap2node_name((void *)bits);
#else
    (void)rec;
    part_unsupported("built for a Slurm release other than 22.05");
    return NULL;
#endif
}

/* The time limit a job without -t gets in a partition (DefaultTime, else
 * MaxTime), in minutes; 0 when none or not readable. */
static long part_default_time(void *rec)
{
#ifdef SK_PART_DEFAULT_TIME_OFFSET
    if (!rec || *(const uint32_t *)rec != SK_PART_MAGIC)
        return 0;
    uint32_t def = *(const uint32_t *)((const char *)rec + SK_PART_DEFAULT_TIME_OFFSET),
             max = *(const uint32_t *)((const char *)rec + SK_PART_MAX_TIME_OFFSET);
    if (def != NO_VAL && def != INFINITE)
        return (long)def;
    return max != NO_VAL && max != INFINITE ? (long)max : 0;
#else
    (void)rec;
    return 0;
#endif
}

/* The partitions a job may run in: its -p list (at most SK_MAX_PARTS), or
 * the default partition. Returns the number of records found (unknown
 * names are skipped: Slurm rejects them itself), or -1 when partitions
 * cannot be looked up at all (no restriction then). */
static int job_parts(const char *list, void **recs)
{
    int n = 0;
    if (!list || !*list) {
        if (!&default_part_loc || !default_part_loc)
            return -1;
        recs[n++] = default_part_loc;
        return n;
    }
    char *buf;
    if (!find_part_record) {
        part_unsupported("slurmctld exports no find_part_record");
        return -1;
    }
    if (!(buf = strdup(list)))
        return -1;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && n < SK_MAX_PARTS; t = strtok_r(NULL, ",", &save)) {
        void *r = find_part_record(t);
        if (r)
            recs[n++] = r;
    }
    free(buf);
    return n;
}

/* skeleton.conf lives beside slurm.conf. */
static void find_conf_path(void)
{
    const char *sc = slurm_conf.slurm_conf;
    if (!sc || !*sc)
        sc = getenv("SLURM_CONF");
    if (!sc || !*sc)
        sc = "/etc/slurm/slurm.conf";
    const char *slash = strrchr(sc, '/');
    int dir = slash ? (int)(slash - sc) : 1;
    snprintf(conf_path, sizeof conf_path, "%.*s/skeleton.conf", dir, slash ? sc : ".");
}

/* Called with conf_lock held: (re)load when the file changed. A broken
 * file keeps the last good configuration; the reason is logged once per
 * change of the file. */
static void reload_locked(void)
{
    struct stat st;
    if (stat(conf_path, &st) < 0) {
        if (!conf_tried || conf_size != -1) {
            snprintf(conf_why, sizeof conf_why, "%s: %s", conf_path, strerror(errno));
            slurm_error("job_submit/skeleton: %s%s", conf_why,
                        conf ? "; keeping the last good configuration" : "");
            conf_size = -1;
            conf_tried = 1;
        }
        return;
    }
    if (conf_tried && st.st_mtim.tv_sec == conf_mtime.tv_sec &&
        st.st_mtim.tv_nsec == conf_mtime.tv_nsec && st.st_size == conf_size)
        return;
    conf_tried = 1;
    conf_mtime = st.st_mtim;
    conf_size = st.st_size;
    diag err;
    diag_clear(&err);
    slurmsk_conf *c = slurmsk_conf_load(conf_path, &err);
    if (!c) {
        snprintf(conf_why, sizeof conf_why, "%s", err.msg);
        slurm_error("job_submit/skeleton: %s%s", err.msg,
                    conf ? "; keeping the last good configuration" : "");
        return;
    }
    slurmsk_conf_free(conf);
    conf = c;
    conf_why[0] = '\0';
    char desc[512];
    slurmsk_conf_describe(c, desc, sizeof desc);
    slurm_info("job_submit/skeleton: loaded %s (%s)", conf_path, desc);
}

int init(void)
{
    bpel_init();                   /* libxml2's one-time setup, before any thread parses */
    pthread_mutex_lock(&conf_lock);
    find_conf_path();
    reload_locked();
    pthread_mutex_unlock(&conf_lock);
    /* Never fail: a missing or broken skeleton.conf must not stop slurmctld. */
    return SLURM_SUCCESS;
}

int fini(void)
{
    pthread_mutex_lock(&conf_lock);
    slurmsk_conf_free(conf);
    conf = NULL;
    conf_tried = 0;
    pthread_mutex_unlock(&conf_lock);
    return SLURM_SUCCESS;
}

static void set_msg(char **err_msg, const char *msg)
{
    if (!err_msg)
        return;
    if (*err_msg)
        SK_FREE(*err_msg);
    *err_msg = slurm_xstrdup(msg);
}

/* Slurm's allocator for slurmsk_env_apply: Slurm frees the environment. */
static void *sk_grow(void *ptr, size_t count, size_t size)
{
    slurm_xrecalloc(&ptr, count, size, true, false, __FILE__, __LINE__, __func__);
    return ptr;
}

static char *sk_dup(const char *s)
{
    return slurm_xstrdup(s);
}

static void sk_release(void *ptr)
{
    slurm_xfree(&ptr);
}

static const slurmsk_alloc slurm_alloc = { sk_grow, sk_dup, sk_release };

/* Slurm's error code for a refusal: the closest it has, so that sbatch's
 * last line says what kind of problem it is. */
static int fault_code(slurmsk_fault f)
{
    switch (f) {
    case SLURMSK_FAULT_NONE:
        return SLURM_SUCCESS;
    case SLURMSK_FAULT_SYNTAX:
        return EINVAL;                       /* "Invalid argument" */
    case SLURMSK_FAULT_TOO_BIG:
        return E2BIG;
    case SLURMSK_FAULT_SIZE:
        return ESLURM_BAD_TASK_COUNT;
    case SLURMSK_FAULT_NODE_NAME:
        return ESLURM_INVALID_NODE_NAME;
    case SLURMSK_FAULT_NODE_AVAIL:
        return ESLURM_NODE_NOT_AVAIL;
    case SLURMSK_FAULT_NO_NODES:
        return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    case SLURMSK_FAULT_CONF:
        return ESLURM_INTERNAL;              /* "... contact system administrator" */
    case SLURMSK_FAULT_MEMORY:
        return ENOMEM;
    }
    return SLURM_ERROR;
}

/* The nodes of a bitmap slurmctld exports (Slurm's allocator), or NULL. */
static char *bitmap_nodes(void **bitmap)
{
    return bitmap && bitmap2node_name && *bitmap ? bitmap2node_name(*bitmap) : NULL;
}

/* The job in the library's terms. Strings that come from Slurm's
 * allocator are freed by request_free. */
static void request_fill(job_desc_msg_t *jd, slurmsk_request *rq, char **parts, int nparts)
{
    memset(rq, 0, sizeof *rq);
    rq->script = jd->script;
    rq->skeleton = slurmsk_spank_value(jd->spank_job_env, jd->spank_job_env_size);
    rq->avail = bitmap_nodes(&avail_node_bitmap ? &avail_node_bitmap : NULL);
    rq->idle = bitmap_nodes(&idle_node_bitmap ? &idle_node_bitmap : NULL);
    rq->parts = (const char *const *)parts;
    rq->nparts = nparts;
    rq->req_nodes = jd->req_nodes;
    rq->exc_nodes = jd->exc_nodes;
    rq->min_nodes = jd->min_nodes != NO_VAL && jd->min_nodes ? jd->min_nodes : 0;
    rq->num_tasks = jd->num_tasks != NO_VAL && jd->num_tasks ? jd->num_tasks : 0;
    rq->cpus_per_task = jd->cpus_per_task != NO_VAL16 && jd->cpus_per_task ? jd->cpus_per_task : 0;
    rq->time_limit = jd->time_limit != NO_VAL && jd->time_limit != INFINITE ? (long)jd->time_limit : 0;
    rq->array = jd->array_inx && *jd->array_inx;
}

static void request_free(slurmsk_request *rq, char **parts, int nparts)
{
    char *avail = (char *)rq->avail, *idle = (char *)rq->idle;
    if (avail)
        SK_FREE(avail);
    if (idle)
        SK_FREE(idle);
    for (int i = 0; i < nparts; i++)
        if (parts[i])
            SK_FREE(parts[i]);
}

/* A placed job runs on the plan's nodes with the CPUs its tasks need
 * there, and its environment holds the plan. */
static void apply_plan(job_desc_msg_t *jd, const slurmsk_decision *d)
{
    if (jd->req_nodes)
        SK_FREE(jd->req_nodes);
    jd->req_nodes = slurm_xstrdup(d->plan.req_nodes);
    /* Slurm raises min_nodes to the list; max_nodes too, or a user's -N1
     * would make the job invalid. */
    jd->min_nodes = (uint32_t)d->plan.nnodes;
    jd->max_nodes = (uint32_t)d->plan.nnodes;
    /* the tasks, and the CPUs sbatch derived from the user's -n (its -n 8
     * on the plan's 2 nodes of 2 CPUs would make the job impossible) */
    jd->num_tasks = (uint32_t)d->num_tasks;
    jd->min_cpus = (uint32_t)(d->num_tasks * (jd->cpus_per_task != NO_VAL16 && jd->cpus_per_task
                                                  ? jd->cpus_per_task : 1));
    jd->pn_min_cpus = (uint16_t)(d->min_cpus > UINT16_MAX - 1 ? UINT16_MAX - 1 : d->min_cpus);
    /* cannot fail here: Slurm's allocator stops slurmctld rather than
     * return NULL, as everywhere in Slurm */
    slurmsk_env_apply(&jd->environment, &jd->env_size, d->plan.env, d->plan.nenv, &slurm_alloc);
}

/* Called with conf_lock held. */
static int decide_locked(job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg)
{
    void *recs[SK_MAX_PARTS];
    char *parts[SK_MAX_PARTS];
    int nparts = job_parts(jd->partition, recs);
    if (nparts == 0) {
        slurm_info("job_submit/skeleton: uid=%u job=%s: no known partition in '%s'; left to Slurm",
                   submit_uid, jd->name ? jd->name : "(none)", jd->partition);
        return SLURM_SUCCESS;
    }
    for (int i = 0; i < nparts; i++)
        parts[i] = part_nodes(recs[i]);    /* NULL: not readable, not restricted */
    slurmsk_request rq;
    request_fill(jd, &rq, parts, nparts > 0 ? nparts : 0);
    if (nparts > 0)
        rq.default_time = part_default_time(recs[0]);
    slurmsk_decision d;
    int rc = SLURM_SUCCESS;
    if (slurmsk_decide(conf, conf_why, &rq, &d) < 0) {
        rc = ENOMEM;
    } else if (d.present) {
        if (d.accepted && d.fault == SLURMSK_FAULT_NONE)
            apply_plan(jd, &d);
        if (d.user)
            set_msg(err_msg, d.user);
        slurm_info("job_submit/skeleton: uid=%u job=%s %s", submit_uid, jd->name ? jd->name : "(none)",
                   d.log ? d.log : "");
        if (!d.accepted)
            rc = fault_code(d.fault);
    }
    slurmsk_decision_clear(&d);
    request_free(&rq, parts, nparts > 0 ? nparts : 0);
    return rc;
}

int job_submit(job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg)
{
    /* Fast path: most jobs have no directive at all (srun/salloc: no script). */
    if (!jd)
        return SLURM_SUCCESS;
    if (!slurmsk_spank_value(jd->spank_job_env, jd->spank_job_env_size) &&
        (!jd->script || !strstr(jd->script, "#SKEL")))
        return SLURM_SUCCESS;
    pthread_mutex_lock(&conf_lock);
    reload_locked();
    int rc = decide_locked(jd, submit_uid, err_msg);
    pthread_mutex_unlock(&conf_lock);
    return rc;
}

/* The value of KEY ("KEY=") in an environment array of n entries, or NULL. */
static const char *env_value(char *const *env, uint32_t n, const char *key)
{
    int k = slurmsk_env_find(env, n, key);
    return k < 0 ? NULL : strchr(env[k], '=') + 1;
}

#ifdef SK_SLURM_2205
/* Whether the job of an update has a saved environment: only batch jobs
 * do, and get_job_env logs an error for any other (salloc, srun). 22.05
 * keeps it in StateSaveLocation/hash.<id % 10>/job.<id>/environment
 * (measured: the format string in get_job_env), id being the array's for
 * an array task: the number that starts the update's job id string. */
static int saved_env_exists(const job_desc_msg_t *jd)
{
    unsigned long id = 0;
    if (jd->job_id_str && *jd->job_id_str)
        id = strtoul(jd->job_id_str, NULL, 10);
    else if (jd->job_id != NO_VAL)
        id = jd->job_id;
    if (!id || id > UINT32_MAX || !slurm_conf.state_save_location)
        return 0;
    char path[PATH_MAX];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/hash.%lu/job.%lu/environment", slurm_conf.state_save_location,
                     id % 10, id);
    return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
#endif

/* An update of a job placed by this plugin must keep it on its plan: the
 * plan lives in the job's environment (SKEL_*), which an update cannot
 * change, and the skeleton (script or SPANK variable) cannot change
 * either; so the job is not re-placed, and an update that would move it
 * off its nodes (ReqNodeList, ExcNodeList, Partition, NumNodes) is refused
 * with the reason in slurmctld's log. Other updates, and every update of
 * other jobs, pass. The plan is read with slurmctld's get_job_env (the
 * job's saved environment) only when the update touches nodes. */
int job_modify(job_desc_msg_t *jd, void *job_ptr, uint32_t submit_uid)
{
#ifndef SK_SLURM_2205
    /* get_job_env's ownership convention is known for 22.05 only */
    (void)jd;
    (void)job_ptr;
    (void)submit_uid;
    return SLURM_SUCCESS;
#else
    if (!jd || !job_ptr || !get_job_env)
        return SLURM_SUCCESS;
    int nodes_min = jd->min_nodes != NO_VAL && jd->min_nodes != 0,
        nodes_max = jd->max_nodes != NO_VAL && jd->max_nodes != 0;
    if (!jd->req_nodes && !jd->exc_nodes && !jd->partition && !nodes_min && !nodes_max)
        return SLURM_SUCCESS;
    if (!saved_env_exists(jd))
        return SLURM_SUCCESS;
    uint32_t n = 0;
    char **env = get_job_env(job_ptr, &n);
    const char *plan = env_value(env, n, "SKEL_NODES=");
    int rc = SLURM_SUCCESS;
    if (plan && env_value(env, n, "SKEL_PLAN=")) {
        diag err;
        diag_clear(&err);
        char *pn = NULL;
        int fits = 1;
        if (jd->partition && *jd->partition) {
            /* the plan must lie within one of the new partitions */
            void *recs[SK_MAX_PARTS];
            pthread_mutex_lock(&conf_lock);     /* part_warned */
            int np = job_parts(jd->partition, recs);
            fits = np <= 0;                     /* unknown: Slurm refuses it */
            for (int i = 0; i < np && !fits; i++) {
                pn = part_nodes(recs[i]);
                fits = !pn || slurmsk_modify_check(plan, NULL, NULL, pn, 0, 0, &err) == 0;
                if (pn)
                    SK_FREE(pn);
            }
            pthread_mutex_unlock(&conf_lock);
        }
        if (fits && slurmsk_modify_check(plan, jd->req_nodes, jd->exc_nodes, NULL,
                                         nodes_min ? jd->min_nodes : 0, nodes_max ? jd->max_nodes : 0,
                                         &err) < 0)
            fits = 0;
        if (!fits) {
            slurm_info("job_submit/skeleton: uid=%u job=%s: update refused: %s; the job keeps its "
                       "placement (SKEL_PLAN=%s); cancel and resubmit it to place it again",
                       submit_uid, jd->job_id_str ? jd->job_id_str : "?", err.msg,
                       env_value(env, n, "SKEL_PLAN="));
            rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        }
    }
    /* get_job_env's array (22.05, measured): the strings lie in one block
     * that starts at env[0], the array is another; both from Slurm's
     * allocator */
    if (env) {
        if (n)
            SK_FREE(env[0]);
        SK_FREE(env);
    }
    return rc;
#endif
}
