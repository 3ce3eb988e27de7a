/* cost: the analytic cost models of the papers, as formulas and as
 * throughput estimates of a placed skeleton, to set beside the Markov
 * (PEPA) model that skelsched solves (docs/advice.md).
 *
 *   darlington.c  Darlington et al. 1993 (Darlington, Ghanem, To): PIPE and FARM, the
 *                 ideal models of §4.2-4.3 and the implementation models
 *                 of §5 (setup, fill, rounds R, grain g, processors P, GC)
 *   p3l.c         Zavanella 1999 (P3L on BSP): pipe service time (eq. 1-2), the
 *                 grain rule and "merging fast stages" (§3), the farm's
 *                 service times (eq. 3-4) and optimal degree and grain
 *                 n^, k^ (eq. 5-9)
 *   remote.c      Alt et al. 2002 (Alt, Bischof, Gorlatch): remote execution
 *                 T = 2ts + (n+o+r)tw + tskel (eq. 1), reduce (eq. 2)
 *   place.c       each model applied to a skeleton placed on a platform,
 *                 and Alt et al. 2002's choice of a server per task
 *
 * Pure functions: no I/O, no global state. Times in seconds, sizes in
 * bytes. Functions that can fail return -1 (or NULL) with a message. */
#ifndef SKELSCHED_COST_H
#define SKELSCHED_COST_H

#include "../base/diag.h"
#include "../skeleton/skeleton.h"

/* ---- Darlington et al. 1993: Darlington et al. ---------------------------------------- */

/* §4.2, ideal FARM: t_s + R (t_e + 2 t_c), R = ceil(N / P). */
double cost_farm_ideal(double ts, double te, double tc, double n, int p);

/* §4.3, ideal PIPE with v virtual stages per real stage:
 * t_s + (t_e v + t_c)(p + n - 1). */
double cost_pipe_ideal(double ts, double te, double tc, int p, double n, int v);

/* §5: the machine parameters of an implementation. */
typedef struct cost_machine {
    double i0, i1;           /* T_setup = I_0 + I_1 P */
    double to, tb;           /* message startup, seconds per byte */
    double tfo, tf;          /* (un)flatten: T_fo + T_f D */
    double gc_rate, gc_time; /* G (collections per unit of work), T_g */
} cost_machine;

/* §5: the problem: N_w packets of T_w seconds each, grouped g at a time,
 * d bytes in and r bytes out per packet, P processors (one master,
 * P - 1 slaves), N_p virtual pipe stages, W_s work per farm packet. */
typedef struct cost_job {
    double nw, tw;
    int grain;
    double d, r;
    int p, np;
    double ws;
} cost_job;

/* The parts of a predicted time; total is their sum. */
typedef struct cost_parts {
    double setup, fill, work, comms, gc, total;
    double rounds;
} cost_parts;

/* §5.1: T_farm = T_setup + R (T_comms + T_slave) + T_gc with
 * R = ceil(N_w / (g (P-1))), T_slave = g T_w,
 * T_comms = 2 T_o + g (d + r) T_b + g (2 T_fo + T_f (r + d)),
 * T_gc = ceil(W_s g G R) T_g. Returns -1 (message) when P < 2 or g < 1. */
int cost_farm_time(const cost_machine *m, const cost_job *j, cost_parts *out, diag *err);

/* §5.2: T_pipe = T_setup + T_fill + (R - 1)(T_prc + T_comms) + T_gc with
 * R = ceil(N_w / g), T_prc = g T_w ceil(N_p / (P-1)),
 * T_fill = P (T_o + d T_b) + (P-1)(2 (T_fo + d T_f) + T_prc),
 * T_comms = T_o + d T_b + 2 (T_fo + d T_f). The paper leaves T_gc of a
 * pipe open ("average both values"): here the mean of the ideal case (every
 * slave collects at once: ceil(W G / (P-1)) T_g) and the worst (one after
 * another: ceil(W G) T_g), W = N_w W_s. -1 when P < 2 or g < 1. */
int cost_pipe_time(const cost_machine *m, const cost_job *j, cost_parts *out, diag *err);

/* ---- Zavanella 1999: P3L on a BSP computer ------------------------------------ */

typedef struct cost_bsp {
    double g;                /* g_inf: seconds per byte of a large message */
    double nhalf;            /* N_1/2: bytes for half the asymptotic bandwidth */
    double l;                /* barrier synchronisation, seconds */
} cost_bsp;

/* eq. 2: service time of stage i on tasks of k items:
 * t_i k + l + g k (d_i + d_{i+1}) + 2 g N_1/2. */
double cost_p3l_stage(const cost_bsp *b, double t, double din, double dout, double k);

/* eq. 1: T_pipe(k) = max(k T_e, max_i T_i(k)) for z stages with times t[z]
 * and item sizes d[z+1] (d[i] enters stage i). te may be 0 (no source
 * limit). */
double cost_p3l_pipe(const cost_bsp *b, int z, const double *t, const double *d, double k,
                     double te);

/* §3, adjusting the grain: with T = max_i (t_i + g (d_i + d_{i+1})),
 * k = (l + 2 g N_1/2) / (T_e - T) when T < T_e, else 1. */
double cost_p3l_grain(const cost_bsp *b, int z, const double *t, const double *d, double te);

/* §3, merging fast stages: S(i) = t_i + g (d_i + d_{i+1}); stages j and
 * j+1 may be merged when S(j) + S(j+1) < max_i S(i). */
int cost_p3l_mergeable(const cost_bsp *b, int z, const double *t, const double *d, int j);

/* eq. 3 and 4: per-item service times of the farm's emitter-collector and
 * of its n workers, input items of d0 bytes, tasks of k items, f taking tf. */
double cost_p3l_emitter(const cost_bsp *b, double d0, int n, double k);
double cost_p3l_worker(const cost_bsp *b, double d0, double tf, int n, double k);

/* eq. 5-9: the smallest degree n^ and its grain k^ that bring both service
 * times below T_e (eq. 5) when 2 g d0 <= T_e (eq. 6-7), or within a factor
 * (1 + 1/prec) of the emitter's floor 2 g d0 when not (eq. 8-9).
 * *limited is set to 1 in the second case. Returns -1 when te <= 0. */
int cost_p3l_optimal(const cost_bsp *b, double d0, double tf, double te, double prec, int *n,
                     double *k, int *limited, diag *err);

/* ---- Alt et al. 2002: Alt, Bischof, Gorlatch ----------------------------------- */

/* eq. 1: T = 2 t_s + (n + o + r) t_w + t_skel. */
double cost_remote_time(double ts, double tw, double n, double o, double r, double tskel);

/* eq. 2: reduce of n elements on p threads, t_op per operation:
 * (ceil(n/p) - 1) t_op + (p - 1) t_op. */
double cost_remote_reduce(double n, int p, double top);

/* ---- the models on a placed skeleton (place.c) -------------------------- */

typedef enum cost_model {
    COST_DARLINGTON,         /* Darlington et al. 1993: pipe of t_e v + t_c, farm of t_e + 2 t_c */
    COST_P3L,                /* Zavanella 1999: eq. 2 stages, eq. 3-4 farms */
    COST_REMOTE,             /* Alt et al. 2002: eq. 1 per task, no sharing of servers */
    COST_NMODELS
} cost_model;

const char *cost_model_name(cost_model k);        /* "darlington", "p3l", "remote" */
int cost_model_parse(const char *s, cost_model *k);   /* 0, or -1 if unknown */

/* What a model predicts for one placement. */
typedef struct cost_estimate {
    double throughput;       /* items per second */
    int bottleneck;          /* the task whose service time sets it */
    double *task_time;       /* ntasks: each task's service time per item */
    int ntasks;
} cost_estimate;

/* Estimate the throughput of tree t (generated as m) placed on p
 * (node_of_task). grain is Zavanella 1999's k (0: 1). Fills *out (task_time
 * allocated here; free with cost_estimate_free). Returns 0, or -1 with a
 * message (a skeleton construct the analytic models do not describe, a
 * link the platform does not give). */
int cost_estimate_placement(cost_model k, const skel_tree *t, const skel_model *m,
                            const skel_platform *p, const int *node_of_task,
                            double grain, cost_estimate *out, diag *err);
void cost_estimate_free(cost_estimate *e);

/* The rates the analytic models take: skel_place_rates under the papers'
 * equitable sharing (Speed / tasks on the node), whatever p's Sharing=
 * says for the Markov model. mu has ntasks and lambda nedges entries. */
int cost_static_rates(const skel_model *m, const skel_platform *p, const int *node_of_task,
                      double *mu, double *lambda, diag *err);

/* Alt et al. 2002's choice of a server per task: tasks in order t0, t1, ...; each
 * goes to the node with the smallest eq. 1 time given where its
 * predecessors went (the client of the first tasks is the Input node, or
 * none in the producer style). Fills node_of_task. Returns 0 or -1. */
int cost_remote_choose(const skel_model *m, const skel_platform *p,
                       int *node_of_task, diag *err);

#endif
