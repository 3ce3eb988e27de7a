/* skeleton/search_int.h: the placement search's state, shared by the files
 * of the search only (skeleton/search*.c; docs/mapping.md):
 *   search.c        the driver: set-up, node classes, result, clean-up;
 *   search_bound.c  sound upper bounds on a partial placement's throughput
 *                   and the set-up of what they read;
 *   search_window.c the sub-pipeline windows (full speed) and their cache;
 *   search_capacity.c the capacity bound (the nodes' speeds shared);
 *   search_winps.c  the sub-pipeline windows that see processor sharing;
 *   search_plan.c   the rate plan and the exact evaluation of a placement;
 *   search_exact.c  exhaustive branch and bound, and listed candidates.
 *   search_scale.c  the large-scale search (no chain needed): its set-up,
 *                   the choice of its evaluator, its first moves;
 *   search_classes.c  its node classes;
 *   search_construct.c  its constructive placement and candidate nodes;
 *   search_moves.c  its estimates, local moves, starts and kicks;
 *   search_more.c   its more moves when the chain did not fit;
 *   search_polish.c its local moves on the chain itself.
 */
#ifndef SKELSCHED_SKELETON_SEARCH_INT_H
#define SKELSCHED_SKELETON_SEARCH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "skeleton.h"
#include "../pepa/space.h"
#include "../pepa/system.h"
#include "../base/clock.h"

#define TIE SKEL_TIE                  /* relative difference reported as a tie */
#define MAX_TOP 100000                /* placements one result may rank */
#define MAX_MATRIX_NODES 2048         /* nodes for the latency matrices */
#define DEFAULT_MAX_STATES 2000000ul
#define FAST_CLASSES 64               /* nodes past which classes come from the links */
/* Chains this small are solved exactly by dense elimination: cheaper than
 * setting up an iterative solver. */
#define DENSE_MAX 64
/* pepa_system_new's time for a skeleton of n tasks is at most about
 * COMPILE_SECS n^2 (measured on farms: 1.2 ms at 64 tasks, 18 ms at 256,
 * 68 ms at 1000, on a loaded 2-core machine). */
#define COMPILE_SECS 2.5e-7
/* Seconds of one Gauss-Seidel sweep (or GMRES step) a transition, with a
 * margin: a solve stops between sweeps, so under a deadline it is given
 * the time left less one sweep (310,000 transitions overran it by 2-14 ms
 * on the loaded machine without this). */
#define SWEEP_SECS 3e-8

/* One step of a task's flow: the edges over which it may exchange the item. */
typedef struct step {
    int n;
    int *edges;
} step;

typedef struct tflow {
    int nsrc, ndst;
    step *src, *dst;
} tflow;

/* Sub-pipeline windows (search_window.c, search_window_thr) of up to WIN_MAX
 * tasks: 3^WIN_MAX states. Up to WIN_DENSE states they are solved by
 * elimination, larger ones by Gauss-Seidel (WIN_SWEEPS sweeps at most,
 * until a sweep changes no probability by WIN_TOL of itself) and inflated
 * by WIN_MARGIN. Windows of 7 (was 4): a pipeline's two bottlenecks 5
 * stages apart are seen in one window; on pipe(8) (bench_scale's) the
 * bounds of placements sharing no node came from 10-20% to 1-2% above
 * their exact throughput. */
#define WIN_MAX 7
#define WIN_STATES 2187               /* 3^WIN_MAX */
#define WIN_DENSE 81
#define WIN_DENSE_LEN 4               /* 3^4 = WIN_DENSE: the longest window solved densely */
#define WIN_SWEEPS 20000
#define WIN_TOL 1e-10
#define WIN_MARGIN 1e-5
#define WIN_ALWAYS 3                  /* windows used with their last task unplaced */
#define WIN_RATES (2 * WIN_MAX + 1)
#define WIN_KEY (WIN_RATES + WIN_MAX)  /* a sharing window's key: its nodes too */
#define WIN_CACHE 4096
/* Seconds a deadline must leave for the windows solved by Gauss-Seidel
 * and the sharing windows (search_costly_ok). */
#define COSTLY_LEFT 1.0

typedef struct window {
    int start, len;
    int in_edge, out_edge;            /* -1: no receive / no send at the ends */
    int link[WIN_MAX];                /* edge from task start+k to start+k+1 */
} window;

typedef struct wcache {
    int win;                          /* -1: empty; nwin + w: window w with sharing */
    double key[WIN_KEY];
    double thr;
    double lo;                        /* a sharing window's floor (search_winps.c) */
    int more;                         /* it stopped short: more could be had */
} wcache;

/* A window's chain: phases of each task (receive, compute, send) and the
 * state's mixed radix. */
enum { PH_R, PH_C, PH_S };
typedef struct wchain {
    int len, n;
    int nph[WIN_MAX], ph[WIN_MAX][3], radix[WIN_MAX];
} wchain;

/* An estimate of the job's throughput for complete placement pl and its
 * rates (mu: ntasks, lambda: nedges), into *x; 0 or -1 with a message.
 * The large-scale search ranks its local moves by it. */
typedef int (*search_eval_fn)(void *ctx, const int *pl, const double *mu, const double *lambda,
                              double *x, diag *err);

/* The local moves' cost cap, in the evaluator's work units, so that where
 * time does not stop them first the answer is the same on any machine
 * (under valgrind too): 1.2-3 s of the approximation here (measured
 * 1e7-2.4e7 units a second on pipes, farms and pipes of farms). */
#define SCALE_WORK 3e7

/* Best placements the local moves keep for the chain: 8 (was 4), so that
 * under a budget the chain re-ranks more of the estimate's best when the
 * branch and bound cannot finish (the estimate errs by a few % with deals). */
#define SCALE_KEEP 8

typedef struct search {
    skel_model *m;
    const skel_dag *d;
    const skel_platform *p;
    const skel_search_opts *o;
    diag *err;
    int nt, nn, ne, top;
    pepa_system *sys;
    pepa_space *sp;
    double *pi, *thr, *mu, *lambda;
    double *xi;                /* per task: its throughput X_i, for search_rank */
    int lumped;                /* the ranked placements were valued on lumped chains */
    unsigned long lumped_states; /* the largest lumped chain solved */
    const int *comp;           /* per task: action id of comp_i (the model's) */
    int warm;                  /* pi holds a solution */
    /* The rate plan: every transition of the chain as coefficient x one
     * rate parameter (mu_i, then lambda_e), so that re-rating is one pass
     * over an array instead of a re-enumeration of every state. */
    int use_plan;
    pepa_plan plan;            /* param: task i's mu is i, its work phases -1 - i,
                                  edge e's lambda nt + e */
    double *params, *pthr;     /* nt + ne + 1: rate and throughput of each parameter;
                                  the last is the constant 1 (a buffer's hand-off
                                  and take, whose rate no placement changes) */
    /* Sharing=ps: the chain is the placement-independent one (a component
     * per task); a computation's rate mu_i is divided, state by state, by
     * the number of tasks of its node computing (the busy lists). */
    int ps;
    int exp_work;              /* every task's work is exponential (windows apply) */
    int plain_links;           /* every move exponential and rendezvous (windows apply) */
    double handoff;            /* a buffered move's hand-off and take rate (gen.c's) */
    uint64_t *busy_first;      /* states + 1 offsets into busy_task */
    int *busy_task;            /* the tasks computing in each state */
    double *dense;             /* n * (2n + 1) for chains of at most DENSE_MAX states */
    /* platform, for bounds */
    double *lat, *bw;          /* nn * nn; lat INFINITY: no link */
    double maxspeed;
    double *mx_from, *mx_to;   /* ne * nn: fastest rate of edge e from / to a node */
    double *mx_any;            /* ne */
    tflow *flows;
    double *visit;             /* per task: X_i / X (X: the job's throughput), or 0 when unknown */
    int *cls;                  /* per node: its class representative */
    /* sub-pipeline windows (see search_window_thr) */
    int nwin;
    struct window *win;
    double *bmu, *blam;        /* rate upper bounds of the current partial placement */
    double *bcyc;              /* per task: its cycle bound on X_i */
    int nstages;               /* stages found by flow conservation */
    int **stage, *stage_n;     /* their tasks */
    double *stage_v;           /* sum of their X_i / X */
    int ngroups;               /* farm steps of tasks with a known visit ratio */
    const step **group;        /* the step (its members share the sender's items) */
    double *group_scale;       /* X <= (sum of members' X_i) * scale */
    /* The capacity bound (search_capacity): disjoint sets of tasks, each
     * consuming at least X * cap_coef[g] of speed per second. */
    int ncap;
    int *cap_first, *cap_task; /* ncap + 1 offsets into cap_task */
    double *cap_coef;
    double cap_all;            /* the sum of cap_coef */
    int *cap_order;            /* usable nodes, fastest first */
    unsigned *cap_mark;        /* per node: cap_stamp when counted */
    unsigned cap_stamp;
    double *wq;                /* WIN_DENSE (2 WIN_DENSE + 1): a small window's chain */
    double *wpi, *wout, *wrate; /* a window's steady state; each state's exit rate;
                                   WIN_STATES * WIN_MAX incoming moves' rates */
    int *wfirst, *wfrom, *wfill; /* the incoming moves: offsets, sources, scratch */
    struct wcache *cache;      /* WIN_CACHE entries, direct mapped */
    unsigned long long win_solved, win_hits;
    /* the sharing windows (search_winps.c) */
    double *wps_share;         /* WIN_STATES * WIN_MAX: a policy's shares */
    double *wps_h;             /* WIN_STATES: its relative values */
    double *wps_r, *wps_q;     /* per state its reward rate; per move its rate */
    int *wps_to, *wps_first;   /* per move its target; per state its first move */
    unsigned long long wps_solved, wps_pruned;
    /* the search state */
    int *place, *load;
    double *raw;               /* raw[k]: placements below a node of depth k */
    double *cbound;            /* nt * nn: children's bounds, per depth */
    int *cnode;                /* nt * nn */
    /* results */
    skel_search_entry *ranked;
    int nranked;
    double t0, last_progress;
    double mark[SKEL_PHASE_N]; /* when each phase ended (0: not run) */
    int timed_out;
    double missed;             /* max bound of what the budget left out */
    unsigned long long evaluated;
    double pruned, symmetric, unexplored, total;
    unsigned long ticks;
    clock_deadline deadline;   /* the budget's end, or the caller's if earlier */
    int solve_late;            /* a solve failed past the deadline */
    int seeding;               /* evaluating the large-scale search's answers */
    int exact;                 /* the chain was derived and ranks the answer */
    double cons_exact;         /* the constructive placement solved (0: not) */
    char why[256];             /* why the exact chain was not used */
    /* the large-scale search (search_scale.c) */
    search_eval_fn eval;       /* the approximation, search_eval_bound or (the local
                                  moves on the chain) the chain itself */
    const int *bound_pl;       /* the complete placement being estimated, whose
                                  nodes' sharing the bounds charge (NULL: place) */
    void *eval_ctx;
    const char *eval_name;
    skel_approx *ax;           /* the approximation's workspace when it is the evaluator */
    int nkeep;                 /* distinct placements kept, best estimate first */
    int *keep_pl;              /* SCALE_KEEP * nt */
    double *keep_x;            /* their estimates */
    int *order;                /* tasks, heaviest first */
    int *adj_start, *adj_edge, *adj_deg;  /* each task's edges */
    int *cand;                 /* scratch: candidate nodes */
    int nclass;                /* classes of usable nodes, fastest first */
    int *cls_start, *cls_member, *cls_next;  /* their members; first maybe free */
    int *cls_pos, *node_class; /* per node: position in its class, class (-1) */
    int *cons, *heur;          /* constructive placement; after local moves */
    double cons_x, heur_x;     /* their estimates */
    double cons_secs;          /* time the constructive placement took */
    unsigned long long scale_evals;
    unsigned long long scale_pruned; /* placements their bound left unestimated */
    double scale_work;         /* the evaluator's cost so far (skel_approx_result.work;
                                  ntasks + nedges a bound) */
    int scale_stopped;         /* local moves stopped by the time given */
    /* the estimates remembered (search_memo.c), keyed by rates and sharing */
    int memo_klen;             /* doubles a key holds */
    double *memo_cur;          /* the key last looked up */
    double *memo_keys, *memo_x;  /* memo_cap keys and their estimates */
    unsigned char *memo_used;
    size_t memo_cap, memo_n;
    unsigned long long memo_hits;
    /* the local moves on the chain (search_scale_exact) */
    int *canon_map;            /* 2 nn: scratch of search_canonical */
    int polish_failed;         /* a solve of theirs failed */
} search;

/* search_bound.c */
void search_rate_bounds(search *s);
double search_bound(search *s);
int search_costly_ok(const search *s);
double search_bound_rates(search *s);
int search_build_flow(search *s, const skel_flow *f, int task, int is_src, step **out, int *n);
void search_visit_ratios(search *s);
int search_stage_groups(search *s, int *ng_out);
int search_setup_platform(search *s);

/* search_window.c */
int search_setup_windows(search *s);
double search_window_thr(search *s, int wi);   /* window wi's throughput, cached */
void search_wchain_shape(const window *w, wchain *c);
int search_wchain_out(const search *s, const window *w, const wchain *c, const double *share, int x,
                      int *to, double *rate);
int search_window_steady(search *s, const window *w, const wchain *c, const double *share, double *pi);
int search_window_key(const search *s, int wi, double *key);
wcache *search_wcache(search *s, int id, const double *key, int nk, int *hit);
int search_dense_steady(const double *q, int n, double *a, double *pi);
int search_dense_solve(double *a, int n, double *u);

/* search_capacity.c */
int search_setup_capacity(search *s);
double search_capacity(search *s);

/* search_winps.c */
/* By default the proof uses the sharing windows only on chains of at
 * least this many states: on bench_scale's pipe(6) and pipe(7) (729 and
 * 2,187 states) they cut 13 % and 46 % of the chains but took 1.2 times
 * the time; on pipe(8) (6,561) 0.40 times, cutting 84 %. */
#define WPS_CHAIN_MIN 4096
/* Their buffers are allocated on the first bound asked for; freed here
 * (also with none). */
void search_winps_free(search *s);
/* The least bound of the windows that see processor sharing on every
 * completion of the current placement (INFINITY: none applies), down to
 * below (once under it, enough; <= 0: the tightest they give). */
double search_bound_shared(search *s, double below);

/* search_plan.c */
int search_plan_build(search *s);
int search_busy_build(search *s);
int search_evaluate(search *s);
/* Rank placement pl of throughput x (xi: each task's throughput X_i; the
 * rates of pl in s->mu) among the best s->top. */
int search_rank(search *s, const int *pl, double x, const double *xi);

/* search.c: entry e's task and node utilisations and bottleneck from its
 * tasks' throughputs xi (NAN: unknown; its placement's rates in s->mu). */
void search_utils(search *s, skel_search_entry *e, const double *xi);

/* search.c: phase k ends now (skel_search_result.phase_secs); returns now. */
double search_mark(search *s, skel_search_phase k);

/* search.c: under a deadline, is there time to compile the model (half of
 * what is left, COMPILE_SECS n^2 predicted)? */
int search_compile_fits(const search *s);

/* search_lump.c */
int search_lumped_answer(search *s);
int search_lumped_candidates(search *s);

/* search_classes.c */
int search_fast_classes(const skel_platform *p, const unsigned char *keep, int *cls);

/* search_construct.c */
void search_construct(search *s, int *pl);
int search_candidates(search *s, const int *pl, int i, int *out);   /* into out: how many */
void search_node_freed(search *s, int x);   /* x lost a task: its class's cursor back */

/* search_scale.c */
int search_scale(search *s, double until);
void search_scale_free(search *s);

/* search_moves.c */
int search_eval_bound(void *ctx, const int *pl, const double *mu, const double *lambda, double *x,
                      diag *err);
/* Estimate of placement pl (complete) into *x: 0 when a link is missing
 * (infeasible) or when its bound says it cannot beat beat (0: always
 * estimated). Returns -1 when the evaluator refused (out of time, a fixed
 * point it does not trust), *x then 0. */
int search_estimate_above(search *s, const int *pl, double beat, double *x);
int search_estimate(search *s, const int *pl, double *x);   /* beat 0 */
/* The moves' time (until) or work (SCALE_WORK) is spent, or a solve of
 * the moves on the chain failed. */
int search_moves_spent(const search *s, double until);
/* Passes of single moves until none improves, then of exchanges; again
 * while an exchange improves. Stopped at until (anytime). */
void search_local_moves(search *s, int *pl, double *x, double until);
void search_set_loads(search *s, const int *pl);   /* loads and class cursors of pl */
void search_unload(search *s);                     /* no node loaded */
void search_keep_if_better(search *s, const int *pl, double x);   /* into heur, heur_x */
/* Local moves from the complete placement pl (the loads set from it),
 * kept as the answer when they end better. */
void search_descend_keep(search *s, int *pl, double until);
/* Another start for the local moves, into pl: kind 0, every free task on
 * the fastest usable node (the moves then spread them: co-location the
 * constructive rule never tries); kind 1, the usable nodes in index order
 * (Slurm's way). Local optima differ by start. */
void search_start_at(const search *s, int kind, int *pl);
/* Kicks of the iterated local searches; their generator starts from a
 * fixed seed: the same kicks on every run. */
#define SCALE_KICKS 64
#define KICK_SEED 0x2545f4914f6cdd1dULL
/* Kick round of an iterated local search: 1 + round % 3 tasks of pl moved
 * to random usable nodes (pins kept). */
void search_kick(const search *s, int *pl, int round, uint64_t *r);

/* search_more.c */
int search_scale_more(search *s, double until);

/* search_polish.c */
int search_scale_on_chain(const search *s);   /* the chain is the evaluator */
/* The local moves with the chain as the evaluator, from the best solved
 * (search_evaluate ranks every placement they solve); -1 when a solve failed. */
int search_scale_exact(search *s, double until);

/* search_memo.c */
int search_memo_init(search *s);
int search_memo_get(search *s, const int *pl, double *x);
void search_memo_put(search *s, double x);
void search_memo_clear(search *s);
void search_memo_free(search *s);

/* search_exact.c */
int search_dfs(search *s, int k);
/* map: 2 nn scratch */
void search_canonical(const search *s, const int *pl, int *out, int *map);
int search_run_candidates(search *s);

#endif
