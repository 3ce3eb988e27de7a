/* job_submit/skeleton: Slurm's entry points only (22.05 to 25.11; what
 * differs between releases is in skcompat.h/.c). The work (reading
 * #SKEL lines and skeleton.conf, choosing nodes, the environment) is in
 * slurm/ (skelslurm.h); this file moves data between Slurm's job descriptor
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
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "bpel/bpel.h"
#include "plugin/skcompat.h"
#include "slurm/skelslurm.h"

/* The entry points slurmctld looks up by name. */
int init(void);
int fini(void);
int job_submit(job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg);
int job_modify(SKC_JOB_MODIFY_PARAMS(jd, job_ptr, submit_uid, err_msg));

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
 * A partition's nodes are in slurmctld's part_record_t only, read by
 * skcompat.c through the release's own headers. A build without them
 * (no --with-slurm-source) places over all available nodes (logged once),
 * and Slurm still refuses a plan outside the job's partition. */
#define SK_MAX_PARTS 8             /* partitions of one -p list tried */

static int part_warned;            /* under conf_lock */

static void part_unsupported(const char *why)
{
    if (!part_warned)
        slurm_error("job_submit/skeleton: %s: candidates are not restricted to the job's partition", why);
    part_warned = 1;
}

/* The hostlist of a partition record's nodes (Slurm's allocator), or NULL
 * when it cannot be read (no restriction then). */
static char *part_nodes(void *rec)
{
    char *nodes = skc_part_nodes(rec);
    if (!nodes)
        part_unsupported("unreadable partition record");
    return nodes;
}

/* The partitions a job may run in: its -p list (at most SK_MAX_PARTS), or
 * the default partition. Returns the number of records found (unknown
 * names are skipped: Slurm rejects them itself), or -1 when partitions
 * cannot be looked up at all (no restriction then). */
static int job_parts(const char *list, void **recs)
{
    int n = 0;
    if (!skc_have_records()) {
        part_unsupported("built without Slurm's source tree (configure --with-slurm-source)");
        return -1;
    }
    if (!list || !*list) {
        if (!(recs[n] = skc_part_default()))
            return -1;
        return n + 1;
    }
    char *buf;
    if (!(buf = strdup(list)))
        return -1;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && n < SK_MAX_PARTS; t = strtok_r(NULL, ",", &save)) {
        void *r = skc_part_find(t);
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

/* ---- the last good skeleton.conf, kept in StateSaveLocation ----------
 * Since 23.11 `scontrol reconfigure` re-executes slurmctld (scontrol(1)),
 * so the plugin starts afresh: a last good configuration kept in memory
 * only would not survive it, nor a restart. A copy of each file that
 * loaded goes to StateSaveLocation/skeleton.conf.good (written aside, then
 * renamed), and a fresh plugin whose skeleton.conf is broken or missing
 * loads that copy. */
static int saved_path(char *buf, size_t n)
{
    const char *dir = slurm_conf.state_save_location;
    int k = dir && *dir ? snprintf(buf, n, "%s/skeleton.conf.good", dir) : -1;
    return k > 0 && (size_t)k < n - 4 ? 0 : -1;     /* room for ".tmp" */
}

/* Copy skeleton.conf, just loaded, to the saved copy. */
static void save_good(void)
{
    char path[PATH_MAX], tmp[PATH_MAX + 4];
    if (saved_path(path, sizeof path) < 0)
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *in = fopen(conf_path, "r"), *out = in ? fopen(tmp, "w") : NULL;
    char buf[8192];
    size_t n;
    int bad = !out;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        bad |= fwrite(buf, 1, n, out) != n;
    bad |= in && ferror(in);
    if (in)
        fclose(in);
    if (out)
        bad |= fclose(out) != 0;
    if (bad || rename(tmp, path) < 0) {
        slurm_error("job_submit/skeleton: cannot keep a copy of %s in %s", conf_path, path);
        unlink(tmp);
    }
}

/* Called with conf_lock held, without a configuration: the saved copy. */
static void load_saved(void)
{
    char path[PATH_MAX];
    diag err;
    diag_clear(&err);
    if (saved_path(path, sizeof path) < 0 || access(path, R_OK) < 0)
        return;
    if ((conf = slurmsk_conf_load(path, &err)))
        slurm_info("job_submit/skeleton: loaded the last good configuration, saved in %s", path);
}

/* Called with conf_lock held: (re)load when the file changed. A broken
 * file keeps the last good configuration; the reason is logged once per
 * change of the file. */
static void reload_locked(void)
{
    struct stat st;
    if (stat(conf_path, &st) < 0) {
        if (!conf_tried || conf_size != -1) {
            if (!conf)
                load_saved();
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
        if (!conf)
            load_saved();
        snprintf(conf_why, sizeof conf_why, "%s", err.msg);
        slurm_error("job_submit/skeleton: %s%s", err.msg,
                    conf ? "; keeping the last good configuration" : "");
        return;
    }
    slurmsk_conf_free(conf);
    conf = c;
    conf_why[0] = '\0';
    save_good();
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
    if (!skc_have_records())
        slurm_error("job_submit/skeleton: built without Slurm's source tree (configure "
                    "--with-slurm-source): candidates are not restricted to the job's partition "
                    "and updates of placed jobs are not checked");
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

/* The job in the library's terms. Strings that come from Slurm's
 * allocator are freed by request_free. */
static void request_fill(job_desc_msg_t *jd, slurmsk_request *rq, char **parts, int nparts)
{
    memset(rq, 0, sizeof *rq);
    rq->script = jd->script;
    rq->skeleton = slurmsk_spank_value(jd->spank_job_env, jd->spank_job_env_size);
    rq->avail = skc_avail_nodes();
    rq->idle = skc_idle_nodes();
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
        rq.default_time = skc_part_default_time(recs[0]);
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

/* Whether the plan PLAN (SKEL_NODES) lies within one of the partitions of
 * LIST; err says why not. Unknown partitions fit: Slurm refuses them. */
static int plan_fits_parts(const char *list, const char *plan, diag *err)
{
    void *recs[SK_MAX_PARTS];
    pthread_mutex_lock(&conf_lock);     /* part_warned */
    int np = job_parts(list, recs), fits = np <= 0;
    for (int i = 0; i < np && !fits; i++) {
        char *pn = part_nodes(recs[i]);
        fits = !pn || slurmsk_modify_check(plan, NULL, NULL, pn, 0, 0, err) == 0;
        if (pn)
            SK_FREE(pn);
    }
    pthread_mutex_unlock(&conf_lock);
    return fits;
}

/* An update of a job placed by this plugin must keep it on its plan: the
 * plan lives in the job's environment (SKEL_*), which an update cannot
 * change, and the skeleton (script or SPANK variable) cannot change
 * either; so the job is not re-placed, and an update that would move it
 * off its nodes (ReqNodeList, ExcNodeList, Partition, NumNodes) is refused
 * with the reason in slurmctld's log (and, since 23.02, to the user). Other
 * updates, and every update of other jobs, pass. The plan is read from
 * the job's saved environment (batch jobs only have one) only when the
 * update touches nodes. */
static int modify(job_desc_msg_t *jd, void *job_ptr, uint32_t submit_uid, char **err_msg)
{
    if (!jd || !job_ptr)
        return SLURM_SUCCESS;
    int nodes_min = jd->min_nodes != NO_VAL && jd->min_nodes != 0,
        nodes_max = jd->max_nodes != NO_VAL && jd->max_nodes != 0;
    if (!jd->req_nodes && !jd->exc_nodes && !jd->partition && !nodes_min && !nodes_max)
        return SLURM_SUCCESS;
    uint32_t n = 0;
    char **env = skc_job_env(job_ptr, &n);
    const char *plan = env_value(env, n, "SKEL_NODES="), *planvar = env_value(env, n, "SKEL_PLAN=");
    int rc = SLURM_SUCCESS;
    diag err;
    diag_clear(&err);
    if (plan && planvar &&
        ((jd->partition && *jd->partition && !plan_fits_parts(jd->partition, plan, &err)) ||
         slurmsk_modify_check(plan, jd->req_nodes, jd->exc_nodes, NULL, nodes_min ? jd->min_nodes : 0,
                              nodes_max ? jd->max_nodes : 0, &err) < 0)) {
        char msg[2 * DIAG_MAX];
        snprintf(msg, sizeof msg, "update refused: %s; the job keeps its placement (SKEL_PLAN=%s); "
                 "cancel and resubmit it to place it again", err.msg, planvar);
        slurm_info("job_submit/skeleton: uid=%u job=%s: %s", submit_uid,
                   jd->job_id_str ? jd->job_id_str : "?", msg);
        set_msg(err_msg, msg);
        rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    }
    skc_job_env_free(env, n);
    return rc;
}

int job_modify(SKC_JOB_MODIFY_PARAMS(jd, job_ptr, submit_uid, err_msg))
{
    return modify(jd, job_ptr, submit_uid, SKC_JOB_MODIFY_ERR(err_msg));
}
