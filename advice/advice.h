/* advice: replication advice for a placed skeleton (docs/advice.md).
 *
 * Yaikhom et al. 2007 §4.4 finds that a pipeline runs at its bottleneck stage and that
 * replicating that stage, as a deal (round robin) or a farm (on demand),
 * lifts the throughput; Zavanella 1999 §3-4 adds merging fast stages and the
 * degree of a farm. This module finds the bottleneck of a placed skeleton
 * (with the Markov model: generate, derive, solve), builds the skeletons
 * that replicate it over free nodes or merge two fast stages, solves each,
 * and reports their throughputs and the smallest replication that reaches a
 * target.
 *
 *   eval.c     the throughput and utilisations of one placed tree
 *   rewrite.c  new trees: a task replicated, two tasks merged, rates set
 *   advise.c   the options for one placement
 *   sweep.c    the options over a range of stage rates (Yaikhom et al. 2007 Fig. 5-6)
 *
 * Everything is built on the public skeleton/ API (trees, skel_dag_build,
 * skel_model_new, skel_search): no solver of its own. No global state;
 * failures return -1 or NULL with a message. */
#ifndef SKELSCHED_ADVICE_H
#define SKELSCHED_ADVICE_H

#include "../base/diag.h"
#include "../skeleton/skeleton.h"

/* ---- eval.c --------------------------------------------------------------- */

typedef struct adv_eval {
    int ntasks;
    double throughput;       /* the job's, items per second (skel_model_throughput):
                                a farm first counts all its workers, not t0 alone */
    int bottleneck;          /* the task of highest utilisation */
    double *task_util;       /* ntasks: fraction of time each task computes */
    double *task_thr;        /* ntasks: items per second each task computes */
    double *mu;              /* ntasks: each task's compute rate on its node */
    double *send_time;       /* ntasks: its slowest outgoing move, seconds (0: none) */
    unsigned long states;    /* of the Markov chain */
} adv_eval;

/* Solve tree t placed on p (place[i]: node of task i) in the given style.
 * Fills *out (free with adv_eval_free). Returns 0, or -1 with a message. */
int adv_evaluate(const skel_tree *t, skel_style style, const skel_platform *p, const int *place,
                 adv_eval *out, diag *err);
void adv_eval_free(adv_eval *e);

/* ---- rewrite.c ------------------------------------------------------------ */

/* A new tree in which task `task` of t is replaced by n copies under a
 * `kind` (SKEL_DEAL or SKEL_FARM) node; when the task already sits in a
 * deal or farm of that kind, the copies join it instead. The copies are
 * tasks task .. task+n-1 of the new tree; a task i > task of t becomes
 * i + n - 1. Returns NULL with a message. */
skel_tree *adv_replicate(const skel_tree *t, int task, skel_kind kind, int n, diag *err);

/* A new tree in which tasks task and task+1 of t, consecutive stages of
 * one pipe, become one sequential task (Zavanella 1999 §3, "merging fast
 * stages") of rate 1 / (1/r_task + 1/r_task+1) sending task+1's data. A
 * task i > task+1 becomes i - 1. NULL with a message when they are not
 * two consecutive stages of a pipe. */
skel_tree *adv_merge(const skel_tree *t, int task, diag *err);

/* A copy of t with task i's rate set to rate[i] where rate[i] > 0. */
skel_tree *adv_with_rates(const skel_tree *t, const double *rate, diag *err);

/* Nodes used by no task of place (ntasks entries), fastest first (ties in
 * declaration order), into free_nodes (p->nnodes entries). Returns how
 * many. */
int adv_free_nodes(const skel_platform *p, int ntasks, const int *place, int *free_nodes);

/* ---- advise.c ------------------------------------------------------------- */

/* DEAL, FARM: the task replicated; MERGE: two stages as one sequential
 * task (Zavanella 1999 §3); GROUP: the two stages kept, on one node. */
typedef enum adv_kind { ADV_DEAL, ADV_FARM, ADV_MERGE, ADV_GROUP } adv_kind;

const char *adv_kind_name(adv_kind k);   /* "deal", "farm", "merge", "group" */

typedef struct adv_opts {
    skel_style style;
    int max_replicas;        /* largest degree tried (0: 4); also bounded by the
                                free nodes: replica 0 stays, the others need one
                                free node each */
    double target;           /* throughput wanted (0: none) */
    int task;                /* task to replicate; -1: the bottleneck */
    int no_merge;            /* non-zero: no merge or group options */
} adv_opts;

typedef struct adv_option {
    adv_kind kind;
    int degree;              /* replicas (DEAL, FARM); 2 for MERGE, GROUP */
    int task;                /* the task replicated, or the first of the two merged */
    int nnodes;
    int *nodes;              /* DEAL/FARM: the node of each replica; MERGE/GROUP: the
                                node kept, then the node it frees */
    double throughput;
    int bottleneck;          /* in the new tree's task numbering */
    double merge_sum;        /* MERGE/GROUP: S(j) + S(j+1) of Zavanella 1999 §3, and ... */
    double merge_max;      /* ... max_i S(i), the condition being s < max */
} adv_option;

typedef struct adv_report {
    adv_eval current;        /* the placement as given */
    int task;                /* the task replicated */
    int nfree;               /* nodes used by no task */
    int noptions;
    adv_option *options;     /* deal 2..k, farm 2..k, then merge and group of each
                                pair Zavanella 1999 allows */
    int reach;               /* the smallest replication (fewest replicas; the
                                faster at equal degree) reaching the target,
                                index into options; -1 if none or no target */
} adv_report;

/* Evaluate the options for tree t placed on p. Returns 0 (free *out with
 * adv_report_free), or -1 with a message. */
int adv_advise(const skel_tree *t, const skel_platform *p, const int *place, const adv_opts *o,
               adv_report *out, diag *err);
void adv_report_free(adv_report *r);

/* ---- sweep.c --------------------------------------------------------------- */

typedef struct adv_sweep_opts {
    skel_style style;
    const int *swept;        /* tasks whose rate takes each value */
    int nswept;
    double from, to, step;   /* values from, from + step, ... up to to */
    int task;                /* the task replicated (not swept); -1: the
                                bottleneck at the first value */
    int max_replicas;        /* deal and farm of 2 .. this (0: 3) */
} adv_sweep_opts;

typedef struct adv_sweep {
    int task;                /* the task replicated */
    int npoints, ncols;
    char **col;              /* "uniform", "current", "deal2", ..., "farm2", ... */
    double *x;               /* npoints values */
    double *y;               /* npoints * ncols throughputs, row major */
} adv_sweep;

/* For each value: "uniform" (the replicated task at that rate too),
 * "current" (as written) and each deal and farm of the replicated task.
 * Returns 0 (free with adv_sweep_free) or -1 with a message. */
int adv_sweep_run(const skel_tree *t, const skel_platform *p, const int *place,
                  const adv_sweep_opts *o, adv_sweep *out, diag *err);
void adv_sweep_free(adv_sweep *s);

#endif
