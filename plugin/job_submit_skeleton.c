/* job_submit/skeleton: Slurm 22.05 entry points only. The work (reading
 * #SKEL lines and skeleton.conf, choosing nodes, the environment) is in
 * slurm/skelslurm.c; this file moves data between Slurm's job descriptor
 * and that library.
 *
 * Controller safety: slurmctld calls job_submit holding its config, job,
 * node and partition locks. Everything below is bounded by slurm/ (sizes,
 * MaxStates=, Budget=), opens only skeleton.conf, never makes an RPC, and
 * gives Slurm only memory from Slurm's own allocator. */
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
extern char *bitmap2node_name(void *bitmap) __attribute__((weak));
extern slurm_conf_t slurm_conf;
extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_, const char *file,
                           int line, const char *func);
extern void *slurm_xrecalloc(void **item, size_t count, size_t size, bool clear, bool try_,
                             const char *file, int line, const char *func);
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **item);
extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
    slurm_info("job_submit/skeleton: loaded %s (%d nodes, Budget=%gms, MaxStates=%lu)", conf_path,
               c->plat->nnodes, c->budget * 1000, c->max_states);
}

int init(void)
{
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

/* Add or replace the plan's variables in the job's environment. */
static void apply_env(job_desc_msg_t *jd, const slurmsk_plan *plan)
{
    uint32_t n = jd->environment ? jd->env_size : 0, add = 0;
    for (int i = 0; i < plan->nenv; i++)
        if (slurmsk_env_find(jd->environment, n, plan->env[i]) < 0)
            add++;
    /* Slurm frees the environment as a NULL-terminated array
     * (env_array_free), whatever env_size says: keep one NULL after it. */
    if (add)
        slurm_xrecalloc((void **)&jd->environment, n + add + 1, sizeof(char *), true, false,
                        __FILE__, __LINE__, __func__);
    for (int i = 0; i < plan->nenv; i++) {
        int k = slurmsk_env_find(jd->environment, n, plan->env[i]);
        if (k >= 0) {
            SK_FREE(jd->environment[k]);
            jd->environment[k] = slurm_xstrdup(plan->env[i]);
        } else {
            jd->environment[n++] = slurm_xstrdup(plan->env[i]);
        }
    }
    jd->env_size = n;
}

int job_submit(job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg)
{
    /* Fast path: most jobs have no directive at all (srun/salloc: no script). */
    if (!jd)
        return SLURM_SUCCESS;
    const char *extra = slurmsk_spank_value(jd->spank_job_env, jd->spank_job_env_size);
    if (!extra && (!jd->script || !strstr(jd->script, "#SKEL")))
        return SLURM_SUCCESS;

    char msg[sizeof conf_why + 2 * DIAG_MAX];
    diag err;
    diag_clear(&err);
    slurmsk_job job;
    slurmsk_plan plan;
    memset(&plan, 0, sizeof plan);
    int rc = SLURM_SUCCESS, ok;
    unsigned char *allowed;
    char *avail;

    pthread_mutex_lock(&conf_lock);
    reload_locked();
    int accept_bad = conf ? conf->bad_accept : 0;
    if (slurmsk_job_parse(jd->script, jd->script ? strlen(jd->script) : 0, "batch script", extra,
                          extra ? strlen(extra) : 0, conf ? conf->max_tasks : 32, &job, &err) < 0)
        goto bad;
    if (!job.present)
        goto out;                  /* "#SKEL" only inside some other word or line */
    if (!conf) {
        diag_set(&err, "the site's skeleton.conf is not usable (%s)", conf_why);
        goto bad;
    }
    allowed = calloc((size_t)conf->plat->nnodes, 1);
    if (!allowed) {
        diag_set(&err, "out of memory");
        goto bad;
    }
    avail = &avail_node_bitmap && bitmap2node_name && avail_node_bitmap
                ? bitmap2node_name(avail_node_bitmap)
                : NULL;
    ok = slurmsk_candidates(conf->plat, avail, jd->exc_nodes, jd->req_nodes, conf->unknown_reject,
                            allowed, &err) > 0 &&
         slurmsk_place(conf, &job, allowed, &plan, &err) == 0;
    if (avail)
        SK_FREE(avail);
    free(allowed);
    if (!ok)
        goto bad;

    if (jd->req_nodes)
        SK_FREE(jd->req_nodes);
    jd->req_nodes = slurm_xstrdup(plan.req_nodes);
    /* Slurm raises min_nodes to the list; max_nodes too, or a user's -N1
     * would make the job invalid. */
    jd->min_nodes = (uint32_t)plan.nnodes;
    jd->max_nodes = (uint32_t)plan.nnodes;
    apply_env(jd, &plan);
    if (jd->time_limit != NO_VAL && jd->time_limit != INFINITE &&
        slurmsk_time_check(job.items, plan.throughput, (long)jd->time_limit, msg, sizeof msg))
        set_msg(err_msg, msg);
    slurmsk_plan_describe(&plan, conf->plat, msg, sizeof msg);
    slurm_info("job_submit/skeleton: uid=%u job=%s %s", submit_uid, jd->name ? jd->name : "(none)",
               msg);
    goto out;

bad:
    snprintf(msg, sizeof msg, "skeleton: %s%s", err.msg,
             accept_bad ? " (the job is accepted without a placement)" : "");
    set_msg(err_msg, msg);
    slurm_info("job_submit/skeleton: uid=%u job=%s %s: %s", submit_uid,
               jd->name ? jd->name : "(none)", accept_bad ? "passed through" : "rejected", err.msg);
    if (!accept_bad)
        rc = SLURM_ERROR;
out:
    pthread_mutex_unlock(&conf_lock);
    slurmsk_plan_clear(&plan);
    slurmsk_job_clear(&job);
    return rc;
}

/* 22.05 requires the symbol. A modified job keeps its placement: a new
 * script cannot be given to a submitted job, and re-placing a pending job
 * behind the user's back would be a surprise. */
int job_modify(job_desc_msg_t *jd, void *job_ptr, uint32_t submit_uid)
{
    (void)jd;
    (void)job_ptr;
    (void)submit_uid;
    return SLURM_SUCCESS;
}
