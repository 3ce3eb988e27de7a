/* spank/skeleton: `sbatch --skeleton=FILE`. The file is read here, on the
 * submitting side and as the submitting user, and its content travels to
 * the controller in the job's SPANK environment (SKEL_SKELETON), where
 * job_submit/skeleton reads it: the controller never opens a file a user
 * names. Enable with a line in plugstack.conf:
 *     optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_skeleton.so
 *
 * The file is read in the option's callback, not in a later hook: sbatch
 * exits when an option's callback fails, whether the plugin is `optional`
 * or `required`, whereas the failure of an optional plugin's
 * slurm_spank_init_post_opt is ignored and the job would be submitted
 * unplaced. */
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

/* The file's content, read by the option's callback, and the context the
 * plugin runs in; sbatch is single-threaded and the plugin is loaded once
 * per process, so statics are safe here. */
static char *skel_text;
static spank_context_t context;

/* Read path whole (at most SLURMSK_MAX_SKELETON bytes of text) into
 * skel_text; 0, or -1 after saying why. */
static int read_skeleton(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        slurm_error("--skeleton: %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(SLURMSK_MAX_SKELETON + 1);
    size_t n = buf ? fread(buf, 1, SLURMSK_MAX_SKELETON + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    const char *why = bad ? "cannot read it"
                      : n > SLURMSK_MAX_SKELETON ? "larger than 64 KiB"
                      : memchr(buf, '\0', n) ? "not a text file" : NULL;
    if (why) {
        slurm_error("--skeleton: %s: %s", path, why);
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    free(skel_text);
    skel_text = buf;
    return 0;
}

/* Runs in sbatch (the allocator context), and again where the option
 * comes back with the job: in slurmstepd (remote) and in the job's own
 * srun (local, through SLURM_SPANK_* in the environment, with a path
 * relative to the submission's directory). Only sbatch reads the file. */
static int opt_skeleton(int val, const char *optarg, int remote)
{
    (void)val;
    if (remote || context != S_CTX_ALLOCATOR)
        return 0;
    if (!optarg || !*optarg) {
        slurm_error("--skeleton needs a file name");
        return -1;
    }
    return read_skeleton(optarg);
}

static struct spank_option skel_option = {
    "skeleton", "FILE",
    "place the job by the skeleton in FILE (job_submit/skeleton; man job_submit_skeleton)", 1, 0,
    opt_skeleton
};

/* Registered here rather than through a spank_options table: Debian's
 * 22.05 sbatch, measured, does not look the table up. Registered in every
 * context, the remote one included: slurmstepd receives the option with
 * each step of the job and logs "option not found" for an option no
 * plugin registered there. */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    context = spank_context();
    return spank_option_register(sp, &skel_option) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (!skel_text || spank_remote(sp))
        return 0;
    int rc = 0;
    if (spank_job_control_setenv(sp, SLURMSK_SPANK_VAR, skel_text, 1) != ESPANK_SUCCESS) {
        slurm_error("--skeleton: cannot pass the skeleton to the controller");
        rc = -1;
    }
    free(skel_text);
    skel_text = NULL;
    return rc;
}
