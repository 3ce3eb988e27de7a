/* bench_decision: the plugin's decision time (slurmsk_place, what
 * job_submit runs under slurmctld's locks) for pipelines of 3 to 8 stages
 * on 16 nodes of four speeds, with the default Budget=50 ms. Prints one
 * table: p50, p99 and max of the decision time, and how many decisions
 * were proven optimal within the budget.
 * Usage: bench_decision [RUNS_PER_SIZE] (default 20). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/skelslurm.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20;
    if (runs < 1 || runs > 100000) {
        fprintf(stderr, "usage: bench_decision [RUNS_PER_SIZE]\n");
        return 2;
    }
    const char *conf_text = "LocalLatency=0.0001\nDefaultLatency=0.001\n"
                            "NodeName=n[01-04] Speed=1\nNodeName=n[05-08] Speed=2\n"
                            "NodeName=n[09-12] Speed=4\nNodeName=n[13-16] Speed=8\n";
    diag err;
    diag_clear(&err);
    slurmsk_conf *conf = slurmsk_conf_parse(conf_text, strlen(conf_text), "bench.conf", &err);
    if (!conf) {
        fprintf(stderr, "bench_decision: %s\n", err.msg);
        return 1;
    }
    unsigned char allowed[16];
    memset(allowed, 1, sizeof allowed);
    double *t = malloc((size_t)runs * sizeof *t);
    if (!t)
        return 1;
    printf("decision time of job_submit/skeleton: pipelines on 16 nodes (4 speeds), Budget=%.0f ms, %d runs each\n",
           conf->budget * 1000, runs);
    printf("%-7s %-8s %-10s %-10s %-10s %s\n", "stages", "states", "p50 ms", "p99 ms", "max ms", "optimal");
    for (int k = 3; k <= 8; k++) {
        char script[2048];
        size_t len = (size_t)snprintf(script, sizeof script, "#SKEL pipe(%d);\n", k);
        for (int i = 0; i < k; i++)
            len += (size_t)snprintf(script + len, sizeof script - len, "#SKEL task(\"s%d\", %g);\n", i,
                                    1.0 + (double)((i * 7) % 5));
        int optimal = 0;
        unsigned long states = 0;
        for (int r = 0; r < runs; r++) {
            slurmsk_job job;
            slurmsk_plan plan;
            diag_clear(&err);
            if (slurmsk_directives_parse(script, len, NULL, 32, &job, &err) < 0 ||
                slurmsk_place(conf, &job, allowed, &plan, &err) < 0) {
                fprintf(stderr, "bench_decision: %d stages: %s\n", k, err.msg);
                slurmsk_job_clear(&job);
                free(t);
                slurmsk_conf_free(conf);
                return 1;
            }
            t[r] = plan.seconds * 1000;
            optimal += plan.optimal;
            states = plan.states;
            slurmsk_plan_clear(&plan);
            slurmsk_job_clear(&job);
        }
        qsort(t, (size_t)runs, sizeof *t, cmp);
        int p99 = (int)(0.99 * (runs - 1) + 0.5);
        printf("%-7d %-8lu %-10.2f %-10.2f %-10.2f %d/%d\n", k, states, t[(runs - 1) / 2], t[p99],
               t[runs - 1], optimal, runs);
    }
    free(t);
    slurmsk_conf_free(conf);
    return 0;
}
