/* plugin/skcompat.h: everything that differs between the Slurm releases
 * the plugins build against (22.05 to 25.11), in one place, decided at
 * compile time from Slurm's own version macros; and the plugin's narrow
 * view of slurmctld's records, implemented in skcompat.c against that
 * release's own headers.
 *
 * Public API (slurm.h) differences handled here:
 *  - job_modify takes `char **err_msg` since 23.02 (job_submit.c's ops);
 *  - Slurm's allocator and log functions are exported by every release
 *    (libslurmfull) but declared only in its private headers: declared
 *    here, with the signatures all three releases share (xmalloc.h).
 * Records (skcompat.c): a partition's nodes and a job's saved environment
 * exist only as slurmctld's private structures (part_record_t,
 * job_record_t), whose layout changes between releases: skcompat.c reads
 * them through slurmctld's headers from the release's configured source
 * tree (configure --with-slurm-source), never at a measured offset. Built
 * without that tree, the accessors say "unknown" (NULL) and the plugin
 * places without the partition restriction and does not check updates,
 * which it logs once. */
#ifndef SKCOMPAT_H
#define SKCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/slurm.h>

#define SKC_SLURM_AT_LEAST(major, minor, micro) \
    (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, micro))

/* job_modify's parameter list on this release, and the err_msg it gives
 * (NULL where the release has none): the plugin writes
 *     int job_modify(SKC_JOB_MODIFY_PARAMS(jd, job, uid, err))
 * and passes SKC_JOB_MODIFY_ERR(err) on. */
#if SKC_SLURM_AT_LEAST(23, 2, 0)
#define SKC_JOB_MODIFY_PARAMS(jd, job, uid, err) \
    job_desc_msg_t *jd, void *job, uint32_t uid, char **err
#define SKC_JOB_MODIFY_ERR(err) (err)
#else
#define SKC_JOB_MODIFY_PARAMS(jd, job, uid, err) job_desc_msg_t *jd, void *job, uint32_t uid
#define SKC_JOB_MODIFY_ERR(err) ((char **)NULL)
#endif

/* Exported by libslurmfull in 22.05-25.11 (src/common/xmalloc.h, log.h). */
extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_, const char *file,
                           int line, const char *func);
extern void *slurm_xrecalloc(void **item, size_t count, size_t size, bool clear, bool try_,
                             const char *file, int line, const char *func);
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **item);
extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern slurm_conf_t slurm_conf;

/* ---- slurmctld's records (skcompat.c) -----------------------------------
 * Called from job_submit/job_modify, with slurmctld's read locks held.
 * Partition and job handles are opaque. Strings come from Slurm's
 * allocator (release with slurm_xfree). */

/* Whether this build reads slurmctld's records (--with-slurm-source). */
bool skc_have_records(void);
/* The partition NAME, NULL when unknown or not readable. */
void *skc_part_find(const char *name);
/* The default partition, NULL when none or not readable. */
void *skc_part_default(void);
/* The hostlist of a partition's nodes, NULL when not readable. */
char *skc_part_nodes(void *part);
/* The hostlist of the nodes slurmctld may allocate now (up, not drained),
 * NULL when not readable. */
char *skc_avail_nodes(void);
/* The hostlist of the idle nodes, NULL when not readable. */
char *skc_idle_nodes(void);
/* The time limit a job without -t gets in a partition (DefaultTime, else
 * MaxTime), in minutes; 0 when none or not readable. */
long skc_part_default_time(void *part);
/* Whether a job has a batch script, hence a saved environment. */
bool skc_job_is_batch(void *job);
/* A batch job's saved environment (n entries), NULL when none or not
 * readable; release with skc_job_env_free. */
char **skc_job_env(void *job, uint32_t *n);
void skc_job_env_free(char **env, uint32_t n);

#endif
