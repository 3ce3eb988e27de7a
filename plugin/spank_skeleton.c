/* spank/skeleton: `sbatch --skeleton=FILE`. The file is read here, on the
 * submitting side and as the submitting user, and its content travels to
 * the controller in the job's SPANK environment (SKEL_SKELETON), where
 * job_submit/skeleton reads it: the controller never opens a file a user
 * names. Enable with a line in plugstack.conf:
 *     optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_skeleton.so */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "slurm/skelslurm.h"

SPANK_PLUGIN(skeleton, 1);

int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);

/* The option's value; sbatch is single-threaded and the plugin is loaded
 * once per process, so a static is safe here. */
static char *skel_path;

static int opt_skeleton(int val, const char *optarg, int remote)
{
    (void)val;
    if (remote)
        return 0;
    free(skel_path);
    skel_path = optarg ? strdup(optarg) : NULL;
    return skel_path ? 0 : -1;
}

static struct spank_option skel_option = {
    "skeleton", "FILE",
    "place the job by the skeleton in FILE (job_submit/skeleton; see #SKEL in docs/user.md)", 1, 0,
    opt_skeleton
};

/* Registered here rather than through a spank_options table: Debian's
 * 22.05 sbatch, measured, does not look the table up. */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_remote(sp))
        return 0;
    return spank_option_register(sp, &skel_option) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (!skel_path || spank_remote(sp))
        return 0;
    FILE *f = fopen(skel_path, "r");
    if (!f) {
        slurm_error("--skeleton: %s: %s", skel_path, strerror(errno));
        return -1;
    }
    char *buf = malloc(SLURMSK_MAX_SKELETON + 1);
    size_t n = buf ? fread(buf, 1, SLURMSK_MAX_SKELETON + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    int rc = 0;
    if (bad) {
        slurm_error("--skeleton: %s: cannot read it", skel_path);
        rc = -1;
    } else if (n > SLURMSK_MAX_SKELETON) {
        slurm_error("--skeleton: %s: larger than %zu bytes", skel_path, SLURMSK_MAX_SKELETON);
        rc = -1;
    } else if (memchr(buf, '\0', n)) {
        slurm_error("--skeleton: %s: not a text file", skel_path);
        rc = -1;
    } else {
        buf[n] = '\0';
        if (spank_job_control_setenv(sp, SLURMSK_SPANK_VAR, buf, 1) != ESPANK_SUCCESS) {
            slurm_error("--skeleton: cannot pass the skeleton to the controller");
            rc = -1;
        }
    }
    free(buf);
    return rc;
}
