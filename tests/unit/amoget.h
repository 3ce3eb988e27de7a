/* Benoit et al. 2004 (AMoGeT), §4.2: the three-stage pipeline, the parameters and
 * published throughputs of its table of results, and its 8 candidate
 * mappings (processors numbered from 1, the first stage on processor 1).
 * Shared by the suites that reproduce the table. */
#ifndef SKELSCHED_TEST_AMOGET_H
#define SKELSCHED_TEST_AMOGET_H

#include <stdio.h>

typedef struct row {
    double l12, l23, l13, t1, t2, t3;   /* latencies l_i-j and stage times t_j */
    int map[3];                         /* the mapping the paper names */
    double thr;                         /* its throughput */
} row;

/* "Set of results" 1-3. */
static const row rows[] = {
    { 0.0001, 0.0001, 0.0001, 0.1, 0.1, 0.1, { 1, 2, 3 }, 5.63467 },
    { 0.0001, 0.0001, 0.0001, 0.2, 0.2, 0.2, { 1, 2, 3 }, 2.81892 },
    { 0.0001, 0.0001, 0.0001, 0.1, 0.1, 1, { 1, 2, 1 }, 3.36671 },
    { 0.1, 0.1, 0.1, 0.1, 0.1, 1, { 1, 2, 2 }, 2.59914 },
    { 1, 1, 1, 0.1, 0.1, 1, { 1, 1, 1 }, 1.87963 },
    { 0.1, 1, 1, 0.1, 0.1, 0.1, { 1, 2, 2 }, 2.59914 },
    { 0.1, 1, 1, 1, 1, 0.01, { 1, 3, 3 }, 0.49988 },
};

static const int candidates[8][3] = {
    { 1, 1, 1 }, { 1, 1, 2 }, { 1, 2, 2 }, { 1, 2, 1 },
    { 1, 1, 3 }, { 1, 3, 3 }, { 1, 3, 1 }, { 1, 2, 3 },
};

static const char pipeline[] =
    "pipe(3);\n"
    "\ttask(\"stage\", 1.0);\n"
    "\ttask(\"stage\", 1.0);\n"
    "\ttask(\"stage\", 1.0);\n";

/* The platform of one row (t_j = 1/Speed_j, input and output local, the
 * paper's equitable sharing of a processor among the stages on it). */
static inline void amoget_platform(char *text, size_t n, const row *r)
{
    snprintf(text, n,
             "# Benoit et al. 2004, section 4.2\n"
             "Sharing=static\n"
             "LocalLatency=0.0001\nInput=local\nOutput=local\n"
             "NodeName=p1 Speed=%.17g\nNodeName=p2 Speed=%.17g\nNodeName=p3 Speed=%.17g\n"
             "Link=p1,p2 Latency=%.17g\nLink=p2,p3 Latency=%.17g\nLink=p1,p3 Latency=%.17g\n",
             1 / r->t1, 1 / r->t2, 1 / r->t3, r->l12, r->l23, r->l13);
}

#endif
