/* slurm/skelslurm_int.h: what the files of the plugin's library share and
 * nobody else needs (the public interface is skelslurm.h):
 *   skelslurm.c       candidate nodes, the placement, the plan it becomes
 *                     (req_nodes, environment), the idle-node preference
 *   skelslurm_conf.c  skeleton.conf: the plugin's keys, parsing, loading
 *   skelslurm_job.c   a job's skeleton: #SKEL directives, --skeleton text
 *   skelslurm_env.c   a plan in Slurm's terms: the log line, the job's
 *                     environment, the SPANK variable, the time-limit
 *                     warning, the update check of job_modify
 *   decide.c          the whole decision for one job (slurmsk_decide)
 */
#ifndef SKELSCHED_SLURM_SKELSLURM_INT_H
#define SKELSCHED_SLURM_SKELSLURM_INT_H

#include "skelslurm.h"

/* skelslurm_conf.c: a whole-string number (no trailing text, finite), for
 * skeleton.conf's keys and #SKEL options alike; 0, or -1 when s is not one. */
int slurmsk_parse_number(const char *s, double *out);

#endif
