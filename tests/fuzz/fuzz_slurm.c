/* Fuzz target for what job_submit/skeleton reads from users and the site,
 * along the plugin's own path: skeleton.conf, the batch script's #SKEL
 * directives, the skeleton sent by `sbatch --skeleton` (the SPANK payload)
 * and the job's -w hostlist, then the candidate nodes and the placement
 * decision. Any bytes must give a plan or a message - never a crash, a
 * leak or a hang.
 *
 * The input is split at NUL bytes: SCRIPT, or CONF \0 SCRIPT [\0 SKELETON
 * [\0 NODELIST]]. An empty CONF (or none) is a fixed four-node platform.
 * The conf's Budget= and MaxStates= are capped so that one input stays
 * fast; the bounds themselves are tested in tests/unit/test_bounds.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/skelslurm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PLATFORM[] = "Budget=5\nMaxStates=2000\nMaxTasks=6\nLocalLatency=0.001\n"
                               "DefaultLatency=0.01\nNodeName=n[1-2] Speed=1\nNodeName=n3 Speed=2\n"
                               "NodeName=n4 Speed=4\n";

/* The next NUL-terminated part of data from *at (a copy, NULL when none
 * is left); *at moves past it and its NUL. */
static char *next_part(const uint8_t *data, size_t size, size_t *at, size_t *len)
{
    if (*at > size)
        return NULL;
    const uint8_t *nul = memchr(data + *at, '\0', size - *at);
    size_t n = nul ? (size_t)(nul - (data + *at)) : size - *at;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, data + *at, n);
        s[n] = '\0';
    }
    *len = n;
    *at += n + 1;
    return s;
}

static void decide(slurmsk_conf *c, const char *script, size_t slen, const char *skel,
                   size_t klen, const char *nodes)
{
    diag err;
    diag_clear(&err);
    slurmsk_job job;
    if (slurmsk_job_parse(script, slen, NULL, skel, klen, c->max_tasks, &job, &err) == 0 && job.tree) {
        unsigned char *allowed = calloc((size_t)c->plat->nnodes, 1);
        slurmsk_plan plan;
        if (allowed && slurmsk_candidates(c->plat, NULL, NULL, NULL, nodes, c->unknown_reject, allowed, &err) > 0 &&
            slurmsk_place(c, &job, allowed, &plan, &err) == 0) {
            char line[512];
            slurmsk_plan_describe(&plan, c->plat, line, sizeof line);
            slurmsk_plan_clear(&plan);
        }
        free(allowed);
    }
    slurmsk_job_clear(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0, clen = 0, slen = 0, klen = 0, nlen = 0;
    char *conf = NULL, *script, *skel, *nodes;
    if (memchr(data, '\0', size))
        conf = next_part(data, size, &at, &clen);
    script = next_part(data, size, &at, &slen);
    skel = next_part(data, size, &at, &klen);
    nodes = next_part(data, size, &at, &nlen);
    diag err;
    diag_clear(&err);
    slurmsk_conf *c = conf && clen ? slurmsk_conf_parse(conf, clen, "skeleton.conf", &err)
                                   : slurmsk_conf_parse(PLATFORM, sizeof PLATFORM - 1, "fuzz.conf", &err);
    if (c && script) {
        if (c->budget > 0.02)
            c->budget = 0.02;
        if (c->max_states > 2000)
            c->max_states = 2000;
        decide(c, script, slen, skel, klen, nodes);
    }
    slurmsk_conf_free(c);
    free(nodes);
    free(skel);
    free(script);
    free(conf);
    return 0;
}
