/* libFuzzer target for what job_submit/skeleton reads from users and the
 * site: #SKEL directives in a batch script and skeleton.conf. Any bytes
 * must give a result or a message - never a crash, a leak or a hang. The
 * first NUL byte, if any, splits the input into a skeleton.conf (before) and
 * a script (after); otherwise the whole input is a script, placed on a
 * fixed four-node platform with a short budget. Built by hand in a
 * configured and built build directory:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I$SRC -I. -include config.h \
 *     $SRC/tests/fuzz/fuzz_slurm.c $SRC/slurm/skelslurm.c bpel/.libs/libbpel.a \
 *     skeleton/.libs/libskeleton.a pepa/.libs/libpepa.a base/.libs/libbase.a \
 *     -lxml2 -lumfpack -lm -lpthread -o fuzz_slurm        (drop -lumfpack if not configured)
 *   ./fuzz_slurm -max_len=8192 -rss_limit_mb=512 $SRC/examples/jobs */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slurm/skelslurm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PLATFORM[] = "Budget=5\nMaxStates=2000\nMaxTasks=6\nLocalLatency=0.001\n"
                               "DefaultLatency=0.01\nNodeName=n[1-2] Speed=1\nNodeName=n3 Speed=2\n"
                               "NodeName=n4 Speed=4\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    diag err;
    diag_clear(&err);
    if (nul) {
        slurmsk_conf *c = slurmsk_conf_parse(text, (size_t)(nul - text), "skeleton.conf", &err);
        slurmsk_conf_free(c);
        return 0;
    }
    slurmsk_conf *c = slurmsk_conf_parse(PLATFORM, sizeof PLATFORM - 1, "fuzz.conf", &err);
    if (!c)
        return 0;
    slurmsk_job job;
    if (slurmsk_directives_parse(text, size, NULL, c->max_tasks, &job, &err) == 0 && job.tree) {
        unsigned char allowed[4];
        slurmsk_plan plan;
        if (slurmsk_candidates(c->plat, "n[1-4]", NULL, "n2", NULL, 0, allowed, &err) > 0 &&
            slurmsk_place(c, &job, allowed, &plan, &err) == 0)
            slurmsk_plan_clear(&plan);
    }
    slurmsk_job_clear(&job);
    slurmsk_conf_free(c);
    return 0;
}
