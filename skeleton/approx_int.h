/* skeleton/approx_int.h: the throughput approximation's state, shared by
 * the files of the approximation only (skeleton/approx*.c; the public
 * interface is skeleton.h, the method docs/approximation.md):
 *   approx_machine.c  each task's local state machine, and questions asked of it
 *   approx_chain.c    one window's sub-chain: transitions, reachable states
 *   approx_window.c   the partition into windows (tasks, links, partner bits)
 *   approx_member.c   interchangeable members evaluated as one representative
 *   approx_solve.c    solving one window (rates, dense, sparse, warm)
 *   approx_fixed.c    the fixed point: measures, sweeps, extrapolation, bound
 *   approx_share.c    processor sharing: a node's tasks given that one computes
 *   approx_group.c    counted deals: members cut, coupled by items in flight
 *   approx_layer.c    the windows of deals of deals: grown by whole round robins
 *   approx_est.c      the last resort of deals of deals: the cycle bound, scaled
 *   approx_estcv.c    its batch means, stopping rule and control variate
 *   approx.c          the public entry (skeleton.h): workspace, evaluation
 *   approx_link.c     links with a buffer or phases (approx_link.h)
 *   approx_flowm.c    par/choice/loop steps: a task's fork, join, choice, loop
 *   approx_flow.c     loops over several stages: their serial reduction evaluated
 *   approx_pass.c     ... a one-server loop's stay: its body's choices, pars, loops
 *   approx_parfes.c   a par block too large for a window: branches as FES(n,L)
 */
#ifndef SKELSCHED_SKELETON_APPROX_INT_H
#define SKELSCHED_SKELETON_APPROX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "approx_link.h"
#include "internal.h"
#include "skeleton.h"
#include "../base/diag.h"

#define AX_EST_WARM SKEL_APPROX_EST_WARM    /* the estimate's recursion: items before */
#define AX_EST_ITEMS SKEL_APPROX_EST_ITEMS  /* it counts, items it counts (approx_est.c), */
#define AX_EST_BATCHES 10    /* in batches, whose means give its 95% half-width */
#define AX_EST_NLOOKS 8      /* looks at the counted items ax_est_looks[] (5,000 to
                                AX_EST_ITEMS, each about 1.5 times the last) while */
#define AX_EST_REL 0.01      /* the half-width is above this part of the rate */
#define AX_EST_SUB 250       /* items a run of the sampler counts at once (the
                                batches regroup them) */
#define AX_EST_CRIT 2.8      /* the half-width's standard errors at every look:
                                wider than Student's t for the repeated looks
                                (Pocock's idea), calibrated by bench_approx cov so
                                that the interval where the rule stops holds the
                                rate >= 95% of the time (ax_est_batches) */
#define AX_EST_CRIT_CV 2.9   /* ... and with the control variate (8 degrees of
                                freedom; approx_estcv.c) */
#define AX_EST_PILOT 64      /* the control's pilot: chunks of */
#define AX_EST_CHUNK 125     /* items, the warm-up's last (approx_estcv.c) */
#define AX_EST_PICKS 3       /* candidates the control weighs at most, */
#define AX_EST_CV_KEEP 0.65  /* kept when the pilot's fit leaves below this part
                                of its sum of squares (docs/approximation.md) */
#define AX_EST_PIVOT 1e-10   /* the pilot's fit singular: a pivot below this
                                part of its column's largest entry */
#define AX_EST_ROUNDS 4      /* processor sharing: its rounds, */
#define AX_EST_OV 5000       /* and the items whose computes' overlaps set them */
#define AX_DENSE_MAX 128      /* sub-chains solved by elimination up to this size
                                 (a window of three tasks and two partner bits: 108) */
#define AX_GROW 81            /* default grow_states: windows of four pipeline tasks
                                 (bench_approx: pipelines' p95 8.72% -> 4.66% against
                                 three, farms' 6.12% -> 3.97%) */
#define AX_SIB 729            /* default sibling_states: a farm member's window of
                                 four tasks grows by two of its siblings (bench_approx:
                                 farms' p95 3.54% -> 2.25%, max 11.2% -> 4.54%) */
#define AX_SIB_CHOICES 8     /* ... of choices of at most this many members: the two
                                 a window holds are little of a larger one
                                 (farm(1000): the same answer to 1e-6, 17x the time) */
#define AX_NODE_Q 16          /* a node's on/off model (approx_share.c) up to this
                                 many tasks; a larger node keeps the marginals */
#define AX_NODE_ROUNDS 8      /* Gauss-Seidel rounds fitting it, per sweep */
#define AX_PAIR_CORE 3        /* co-located pairs are measured among a window's first
                                 three tasks (its move's and the first neighbour) */
#define AX_WMAX 16            /* tasks in one window */
#define AX_GPH SKEL_APPROX_PHASES             /* an owner's computing phases a ghost's share is laid
                                 out over (approx_flow.c ghost_layout; more: one) */
#define AX_GOWN 2             /* ghosts' owners in a window conditioned on per state
                                 (approx_solve.c; more: by their pairs) */
#define AX_COUNT_MAX 65536    /* a counted deal's member's window (approx_group.c)
                                 may hold this many states: model3.des's members
                                 (task, deal(2), task, then pipe(2)) take 17,624 */
#define AX_WHOLE 250000       /* with deals whose windows' fixed point fails: one
                                 window of the whole model up to this many reachable
                                 states (model4.des: 216,720; skel_approx_eval) */
#define AX_DEAL_WHOLE 16384   /* any deal: the whole model is one window first up to
                                 this many reachable states (bench_approx's model1.des
                                 on a random platform: +5.0% with windows, exact so) */
#define AX_LAYER 65536        /* a deal of deals' window (approx_layer.c) may hold this
                                 many reachable states (bench_approx dd, 30 random
                                 cases: p95 28.6% within 16,384, 3.5% within 65,536) */
#define AX_LAYER_LOW 16384    /* ... and when that fixed point fails, this many
                                 (model4.des: collapsed within 65,536, 0.16% within
                                 16,384) */
#define AX_COUNT_TASKS 5      /* default count_tasks: a deal of single tasks this wide
                                 whose whole window passes deal_states is counted
                                 (bench_approx wide, 60 deals of 5-10: cut, max 56.8%,
                                 task, deal(10), task -85%; counted, max 4.55%); part
                                 (a)'s deals (2-4) keep their windows */
#define AX_PB_MAX 48          /* outside sharers of a node counted exactly */
#define AX_HIST 3             /* snapshots kept for the extrapolation */
#define AX_NCLASS 8           /* rate classes kept per structural class of members */
#define AX_WLINK 16           /* link components in one window (approx_link.h) */
#define AX_WPOS (AX_WMAX + AX_WLINK + 1)   /* tasks, links, a counted deal's count */
#define AX_PAR_STATES 16384  /* a par's block (fork, branches, join) held whole by the
                                 windows up to this many reachable states, when the
                                 caller does not size them (approx_window.c
                                 block_budget): spec11-purchase.bpel's, 10,434, by
                                 the windows alone -45.3% within deal_states */
#define AX_PAR_FORKS_STATES 65536   /* ... and a block of several forks (a par after
                                 a farm: each member's last task forks to the
                                 branches) up to this many: m5 of issue 15, an
                                 xfarm(2) of pipe(2) before a par of pipes of 3
                                 and 4 tasks, 47,162; cut, -8.25% */
#define AX_PAR_STATE_SECS 2e-5  /* under a deadline, a par's block is counted this
                                 many seconds a reachable state (explored, then
                                 solved: spec11-purchase.bpel's, 10,434, built and
                                 evaluated in 90 ms of CPU, 240 ms at load 11) */
#define AX_PAR_FORKS_STATE_SECS 8e-5   /* ... and a block of several forks this
                                 many: m5's, 47,162 states, 3.65-3.71 s of CPU for
                                 solve --method approx (2026-11-27 22:01 UTC, load 14,
                                 two runs), 7.7e-5 s a state; at 2e-5 it was counted
                                 0.94 s and taken under deadlines it overran */
#define AX_PAR_SHARE 0.5      /* ... and may take this share of the time left */
#define AX_DEAL_LINKS 8192    /* a deal's whole window holding buffered or phased
                                 links: its reachable states may reach this many
                                 (not deal_states) before the links are simplified
                                 (bench_approx part (d): l-deal-9, -4.0% -> 0.0%) */
#define AX_LINK_MULT 16       /* growing by neighbours, a window's links may multiply
                                 its tasks' budget up to this many times (two one-item
                                 H2 buffers: 4 x 4; bench_approx part (d)'s l-pipe-16,
                                 six tasks of 729 states with both: +8.7% -> +0.1%) */
#define AX_LINK_GROW 1200     /* a window with links grows within this many states
                                 (measured on bench_approx part (d): pipelines'
                                 mean error 2.48% -> 2.03%, max 21.5% -> 18.3%) */

typedef enum ax_src {
    AX_MU, AX_LAMBDA,                 /* a computation, a move at its link's rate */
    AX_RHO_SEND, AX_RHO_RECV,         /* a move with an outside partner, as a delay */
    AX_ALPHA_SEND, AX_ALPHA_RECV,     /* an outside partner becomes ready for it */
    AX_GAMMA_SEND, AX_GAMMA_RECV,     /* ... or stops being ready (it chose another) */
    AX_XFER,                          /* a phase of a link's transfer, at lambda */
    AX_HANDOFF, AX_TAKE,              /* a buffer takes an item from its sender, gives
                                         one to its receiver (at handoff) */
    AX_CNT_SEND, AX_CNT_RECV,         /* a deal's producer gives an item to a member
                                         outside the window, its consumer takes one
                                         from it: at the delay measured for the
                                         member's count of items (approx_group.c) */
    AX_LAT                            /* a fork's sends (a join's receives), every
                                         partner outside the window, as one delay
                                         (approx_lattice.c) */
} ax_src;

typedef struct ax_ltr {       /* a local transition of one task */
    int from, to;
    int edge;                 /* -1: compute (one phase of it) */
    int send;                 /* on edge: 1 sends, 0 receives */
    int done;                 /* compute: the item's last phase */
    double w;                 /* its rate over mu (compute) or lambda (move):
                                 Erlang and H2 phase rates, branch probabilities */
} ax_ltr;

typedef int64_t ax_code;      /* a window state's product code (its tasks' local
                                 states, then its bits), or its index */

typedef struct ax_ctr {       /* a transition of a sub-chain */
    ax_code from, to;
    ax_src src;
    int idx;                  /* task (AX_MU) or edge */
    int cnt;                  /* delays: edges idx .. idx + cnt - 1 (a farm's
                                 members, one transition); else 0 */
    int pos;                  /* AX_MU: the computing task's position in the window;
                                 AX_CNT_*: the member's items before the move */
    int done;                 /* AX_MU: an item completes */
    unsigned busy;            /* AX_MU: window positions computing in the source state */
    double w;                 /* rate factor (ax_ltr.w, a product for a rendezvous) */
} ax_ctr;

typedef struct ax_bit {       /* an outside partner kept as ready / not ready */
    int edge;
    int partner_sends;        /* the partner is the edge's sender */
} ax_bit;

typedef struct ax_win {
    int t0, nt;               /* its tasks: wtask[t0 .. t0 + nt) */
    int edge;                 /* the move it measures; -1: a lone task */
    int n;                    /* states reachable from the start */
    ax_code nl;               /* local combinations (the bits' radix) */
    int b0, nb;               /* its partners kept as a state bit: bit[b0 .. b0 + nb) */
    int c0, nc;               /* its transitions: ctr[c0 .. c0 + nc), by target */
    int k0, nk;               /* its links' components: wlink[k0 .. k0 + nk), after
                                 its tasks in the product */
    size_t p0;                /* its distribution: pi[p0 .. p0 + n) */
    int a0, a1;               /* the move's tasks (a1 -1: a lone task) */
    int pa, pb;               /* their positions (pb -1: a lone task) */
    size_t l0;                /* its transitions' flags: leave[l0 .. l0 + nc), 1: the
                                 move's sender stops being ready for it, 2: its
                                 receiver does */
    int g, km;                /* a counted deal's window: its group and member
                                 (approx_group.c), the count last in the product;
                                 g -1: none */
    int built;                /* 0: not yet (a farm member's, built when needed) */
} ax_win;

typedef struct ax_group {     /* a deal whose members are sub-skeletons, counted */
    int p, c;                 /* its producer and consumer */
    int k;                    /* members */
    int m0;                   /* members' capacities: mcap[m0 .. m0 + k) */
    int ncap;                 /* their sum: the count's largest value */
} ax_group;

typedef struct ax_nt {       /* a task and its node (grouping by node) */
    int node, task;
} ax_nt;

struct ax_flow;

typedef struct ax_lat {       /* a fork's sends or a join's receives (approx_lattice.c) */
    int task, send;
    int base;                 /* its local state before the first move */
    int mid0, nmid;           /* the states with some moves made: mid0 .. + nmid */
    int pen;                  /* the state with every group's move but group 0's made */
    int e0, ne;               /* its moves: lat_edge[e0 .. e0 + ne), their groups lat_grp */
    int ng;                   /* groups */
    double rate;              /* its end's rate as one delay */
    double flow, prob;        /* this sweep's measure: flow out, probability in */
    int held;                 /* some window solved this sweep holds it with its partners */
    int cut;                  /* some window's chain walks it as one delay (ax_lat_mark):
                                 only such a lattice's rate is used, so measured */
} ax_lat;

typedef struct ax_est_ev {    /* a compute's start (sign 1) or end (-1) */
    double t;
    int task, sign;
} ax_est_ev;

struct ax_fes;

struct skel_approx {
    const skel_dag *d;
    struct ax_fes *fes;       /* a par block too large for one window, its branches
                                 reduced (approx_parfes.c), which answers; NULL else */
    struct ax_flow *flow;     /* par/choice/loop: the serial reduction's workspace
                                 (approx_flow.c), which answers; NULL else */
    int ntasks, nedges;
    skel_approx_opts o;
    int *lstart;              /* per task: its local transitions [lstart[i], lstart[i+1]) */
    int *nloc;                /* per task: local states */
    int *loff;                /* per task: its local states' flags busy[loff[i] ..] */
    unsigned char *busy;      /* per local state: the task computes (any phase) */
    int *rx;                  /* per local state: the round whose item the task receives
                                 next (mod its rounds); a counted deal's consumer's turn */
    int *nch;                 /* per local state: its choices (nchoices) */
    int nbusy;
    int deal;                 /* some task has several rounds (a deal), or forks or
                                 chooses (approx_flowm.c) */
    int rounds;               /* some task has several rounds (a deal proper) */
    double *scv;              /* per task: its work's scv (1: exponential) */
    ax_ltr *ltr;
    int nltr;
    ax_links links;           /* the moves with a buffer or phases (approx_link.h) */
    int *wlink;               /* links of the windows */
    int nwlink;
    double handoff;           /* a buffer's hand-off and take rate */
    int *wtask;               /* tasks of the windows */
    int nwtask;
    ax_bit *bit;              /* partners of the windows */
    ax_code *code;            /* per window state: its product code */
    int nbit;
    ax_win *win;
    int nwin;
    ax_ctr *ctr;
    int nctr, ctrcap;
    int maxc;                 /* transitions of the largest window built */
    double *pi;               /* every window's distribution (warm starts) */
    size_t npi;
    int *entry;               /* per task: items enter the skeleton here */
    /* per evaluation */
    double *rho_send, *rho_recv;   /* per edge */
    double *fen_send, *fen_recv;   /* their Fenwick trees, nedges + 1 */
    unsigned char *as_bit;    /* per edge: some window keeps a partner of it as a bit */
    double *alpha_send, *alpha_recv, *gamma_send, *gamma_recv;   /* per edge */
    double *rate;             /* per transition of the window being solved */
    struct ax_shr *shr;       /* the window's processor sharing (approx_solve.c,
                                 ~37 KB: off the stack) */
    double *prev;             /* per transition of every window: its last rate */
    double *dense;            /* AX_DENSE_MAX^2 */
    double *marg;             /* per local state of one task */
    int maxloc;
    double *xsum;             /* per task: sum of the windows' estimates */
    double *bsum;             /* per task: sum of their probabilities of computing */
    int *xcnt;
    double *util, *thr;       /* per task, the results */
    const double *mu, *lambda;
    const int *node;          /* Sharing=ps: per task its node; NULL: static */
    int *bynode;              /* tasks sorted by node (ps) */
    ax_nt *pairs;             /* scratch for sorting them */
    int *grp0, *grpn;         /* per task: its node's tasks bynode[grp0 .. + grpn) */
    double *pbusy;            /* per task: probability it computes (ps partners) */
    const int *ghost_node;    /* ps: sharers that are no task of this graph (a
                                 one-server loop's body tasks, approx_flow.c), each
                                 a phase of a task of it (its owner, on no node of
                                 its own): per ghost its node, */
    const int *ghost_of;      /* its owner (ghosts of one owner consecutive), */
    const double *ghost_p;    /* and its probability of computing given that its
                                 owner computes; */
    const double *ghost_ov;   /* per ghost AX_GPH: its share of each of its owner's
                                 computing phases (the pass laid out, phase j its
                                 j-th Erlang phase), */
    const int *ghost_nph;     /* and their number (1: no layout, ghost_p alone); */
    const int *ghost_par;     /* per ghost 1: its loop's body holds a par, whose
                                 branches compute at once: its share the mean
                                 while the owner computes, no owner factor
                                 (approx_solve.c); NULL: none */
    int nghost;               /* how many (0: none) */
    signed char *lph;         /* ps with ghosts: per local state (as busy) its
                                 computing phase (rank among the task's busy
                                 states; 0 under H2), -1 not computing */
    double *pph, *pphs;       /* per pair (x, y), x an owner, per phase j of x
                                 (AX_GPH): P(x in j, y computes) then P(x in j),
                                 the last sweep's (pph) and this one's sums (pphs) */
    int64_t *pkey;            /* ps: ordered pairs (x, y) of tasks on one node that
                                 some solved window holds, x * ntasks + y, sorted */
    double *pcond;            /* per pair: P(y computes | x computes) */
    double *pjs, *pxs;        /* per pair: the sweep's sums of P(both), P(x computes) */
    double *nodeq;            /* ps: per task x, AX_NODE_Q by the position of y in
                                 x's node group: P(y computes | x computes) in the
                                 node's on/off model (approx_share.c node_model),
                                 for the pairs no window measures; NULL: none */
    double *noder;            /* ... per task its fitted r (the next sweep's start) */
    int npair, paircap;
    int *srep;                /* per task: first member of its structural class
                                 (interchangeable but for the rates) */
    int *use_s, *use_r;       /* per edge: the sender's / receiver's local state
                                 that moves on it (-2: several) */
    int *rep, *erep;          /* per evaluation: each task's / edge's representative */
    int *ehead, *enext;       /* per rep edge: the chain of edges copying it */
    int *rr, *nrr;            /* per structural class: its rate classes' reps */
    double *hist;             /* AX_HIST snapshots of the delays (extrapolation) */
    int nhist;
    unsigned char *leave;     /* the windows' flags (ax_win.l0) */
    size_t nleave;
    ax_group *grp;            /* counted deals (approx_group.c) */
    int ngrp;
    int *mcap;                /* per member: items it holds at most */
    int *dblk;                /* per task: the producer of the deal whose members or
                                 consumer it is (a window takes them all or none:
                                 approx_window.c grow_reach); -1: none */
    int *gmem, *gmk;          /* per task: the counted deal and member holding it (-1) */
    int *egrp, *ekm, *edir;   /* per edge: the same, and +1 into a member from the
                                 producer, -1 out of one to the consumer, 0 else */
    int *cnt0;                /* per edge with edir: its count delays cnt[cnt0 ..] */
    double *cnt;              /* per such edge and count: the wait's end rate */
    int ncnt;
    int whole;                /* one window of every task (skel_approx_eval's
                                 fallback for deals of deals) */
    unsigned long whole_max;  /* ... of at most this many reachable states (0: not
                                 whole), kept when the links rebuild it */
    unsigned long whole_builds;   /* whole-window explorations so far, kept through
                                 rebuild's swap (skel_approx_result.whole_explored) */
    unsigned long given_max, given_deal;   /* the caller's max_states and deal_states,
                                 which a whole model's window overrides */
    unsigned long given_whole;   /* the caller's whole_states (1: no model whole) */
    int cut;                  /* a deal no window can hold whole (approx_group.c) */
    int short_cut;            /* a deal of deals whose windows cannot hold a move's
                                 round robins (approx_layer.c): skel_approx_new
                                 answers by the estimate instead */
    double *est_scv;          /* per edge: its move time's squared coefficient of
                                 variation (link phases, skel_approx_place; 1:
                                 exponential), which the estimate draws (approx_est.c) */
    long *est_roff;           /* per edge: its buffer's slots in est_ring from
                                 est_roff[e] (est_roff[e + 1] - est_roff[e] items: its
                                 buffer, 0 a rendezvous; ax_est_links) */
    double *est_ring;         /* per slot: when the item last in it was taken */
    long *est_ecnt;           /* per edge: items moved over it in the recursion */
    int refused;              /* the last fixed point fell below the one-item-at-a-
                                 time bound (sanity): the estimate may answer */
    int est;                  /* this workspace answers by the estimate alone
                                 (approx_est.c): no windows */
    double *est_free, *est_slow;   /* per task: the estimate's recursion (approx_est.c) */
    long *est_cnt;
    double *est_z;            /* per task, then per edge, then the hand-offs: the
                                 sum of its draws less their means (the estimate's
                                 control variate, mean 0; approx_estcv.c) */
    double *est_w, *est_prev; /* per such group: its weight in the control, the
                                 sum when last seen */
    double *est_pilot, *est_pdt;  /* the pilot's chunks: their candidates (2T + 1
                                 each), their times */
    double *est_iv;           /* the overlap pass's computes (start, end), per task
                                 from est_ivoff[i] (est_ivn[i] of them); NULL: none */
    long *est_ivoff, *est_ivn;
    struct ax_est_ev *est_ev; /* their ends, sorted by time per node */
    int fresh;                /* no delays yet */
    int late;                 /* the deadline passed during an evaluation */
    int fes_past;             /* a par block past one window that the cut windows
                                 answer: skel_approx_par_past, 0 none */
    double solve_work;        /* this evaluation's solves, in rated transitions' time */
    ax_lat *lat;              /* forks' and joins' lattices of moves (approx_lattice.c) */
    int nlat;
    int *lat_edge, *lat_grp;  /* their moves and groups */
    int nlat_edge;
    int *lat_of;              /* per local state (as busy): its lattice (base or a
                                 middle state), -1 none */
    unsigned char *lat_in;    /* scratch per window state: in the lattice measured */
    int nlat_in;              /* its size */
};

typedef struct ax_cbuf {      /* the sub-chains' transitions, while windows are built */
    ax_ctr *v;
    int n, cap;
    int start;                /* the window being built starts here */
    int win_t0;               /* its tasks: wtask[win_t0 ..] */
} ax_cbuf;

int ax_oom(diag *err);

/* approx_machine.c */
int ax_build_machines(skel_approx *a, diag *err);   /* every task's local machine */
void ax_mark_entries(skel_approx *a);               /* entry: items enter the skeleton */
void ax_edge_uses(skel_approx *a);                  /* use_s, use_r */
/* The task at the other end of local move t. */
int ax_partner(const skel_approx *a, const ax_ltr *t);
/* Is task x in local state l ready for edge e on its side (send)? */
int ax_is_ready(const skel_approx *a, int x, int l, int e, int send);
/* Moves (distinct edges) and computations task x may make from state l. */
int ax_nchoices(const skel_approx *a, int x, int l);

/* approx_solve.c: the size of a window's processor sharing (a->shr). */
size_t ax_shr_size(void);

/* approx_chain.c */
/* States found so far: product code -> index, open addressing (the
 * windows' explorer and approx_parfes.c's chains). It starts small and
 * doubles at half full, so a window of a few states costs a few hundred
 * bytes, not the state cap (a farm of 1000 workers builds a window per
 * worker). Codes are >= 0. */
typedef struct ax_hash {
    ax_code *key;             /* -1: empty */
    int *val;
    size_t mask;              /* slots - 1, slots a power of two */
    size_t used;              /* filled slots, kept <= (mask + 1) / 2 */
} ax_hash;
int ax_hash_init(ax_hash *h, size_t slots);         /* slots a power of two; -1 OOM */
void ax_hash_free(ax_hash *h);
int ax_hash_find(const ax_hash *h, ax_code c);      /* c's index, -1 absent */
int ax_hash_put(ax_hash *h, ax_code c, int v);      /* c absent: enter it; -1 OOM */
/* Position of task x in window w, or -1; of w's partner bit for edge e, or -1. */
int ax_win_pos(const skel_approx *a, const ax_win *w, int x);
int ax_win_bit(const skel_approx *a, const ax_win *w, int e);
/* Window w's states reachable from the start, at most limit, its
 * transitions into b: their number, 0 above limit, -1 on an error. */
int ax_explore(skel_approx *a, ax_win *w, ax_cbuf *b, int limit, diag *err);
/* The same within max_states, an error above; then sorted by target. */
int ax_window_chain(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err);
int ax_sort_by_target(ax_cbuf *b, const ax_win *w, diag *err);
int ax_push_ctr(ax_cbuf *b, ax_ctr c, diag *err);   /* one transition into b */

/* approx_window.c */
int ax_past_deadline(const skel_approx *a, int k);
/* The reachable states a window holding a deal whole may have: deal_states,
 * or with nk > 0 links in it AX_DEAL_LINKS; within max_states. */
unsigned long ax_deal_budget(const skel_approx *a, int nk);
int ax_build_windows(skel_approx *a, diag *err);    /* one per move, at skel_approx_new */
/* Add the tasks of set[0 .. n) not yet in window w (its tasks last in
 * wtask): kept when they fit one window and its states reachable from the
 * start stay within budget (deal: ax_deal_budget when it holds links): 1;
 * else undone: 0; -1 on an error. */
int ax_try_add_set(skel_approx *a, ax_win *w, ax_cbuf *b, const int *set, int n, int budget,
                   int deal, diag *err);
int ax_build_needed(skel_approx *a, diag *err);     /* those an evaluation's rates need */

/* The reachable states a par's block may have in one window: within
 * max_states, AX_PAR_STATES and what the deadline affords. */
unsigned long ax_par_cap(const skel_approx *a);
/* The most reachable states par block blk is held whole within, the
 * caller's max_states aside: AX_PAR_FORKS_STATES where it holds several
 * forks, else AX_PAR_STATES. */
unsigned long ax_par_top(const skel_approx *a, int blk);
/* The reachable states window w may have: max_states, or where w holds
 * a par's block of several forks and the caller sized nothing, up to
 * AX_PAR_FORKS_STATES (w NULL: no such block). */
unsigned long ax_par_window_cap(const skel_approx *a, const ax_win *w);

/* approx_parfes.c: a par block whose tasks' local states multiply past
 * over, its branches pipelines (a par, choice, farm or deal nested in one
 * held whole), no link with a component: its reduced chain built into
 * a->fes (1), not this shape (0), -1 on an error */
int ax_fes_build(skel_approx *a, unsigned long over, diag *err);
void ax_fes_free(struct ax_fes *f);
int ax_fes_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                skel_approx_result *r, diag *err);

/* approx_layer.c */
/* A deal of deals' window w (its move's tasks last in wtask) grown by
 * blocks that keep each task's round robin whole: the tasks a1 receives
 * from, those a0 sends to, then each held task's sources and destinations,
 * within budget reachable states. */
int ax_grow_layers(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err);
unsigned long ax_layer_budget(const skel_approx *a);   /* opts.layer_states */

/* approx_member.c */
void ax_struct_classes(skel_approx *a);             /* srep, once */
void ax_rate_classes(skel_approx *a);               /* rep, erep, per evaluation */
/* Window w measures a represented member's move: not solved. */
int ax_represented(const skel_approx *a, const ax_win *w);

/* approx_group.c */
/* Set cut when some deal no window can hold whole (a deal dealing on to
 * another deal): from the task graph alone, before the machines. */
int ax_cut_find(skel_approx *a, diag *err);
/* Find the deals whose members are sub-skeletons too large for one window
 * together (an xdeal of sub-pipelines), cut into one window per member
 * coupled by the count of items in flight. */
int ax_groups_find(skel_approx *a, diag *err);
int ax_ncomp(const ax_win *w);                      /* tasks, links, count */
int ax_comp_n(const skel_approx *a, const ax_win *w, int p);   /* its local states */
/* The items member j of window w's counted deal holds in the state of
 * local states loc (positions as in w). */
int ax_member_items(const skel_approx *a, const ax_win *w, const int *loc, int j);
/* Decode the local states of state code c of window w into loc. */
void ax_decode(const skel_approx *a, const ax_win *w, ax_code c, int *loc);
/* Window w of edge e into or out of its member: the count delays of e,
 * measured; returns their largest change. */
double ax_count_update(skel_approx *a, const ax_win *w, const double *pi);
void ax_count_start(skel_approx *a);                /* cold start: at lambda */

/* approx_solve.c (and processor sharing's Poisson-binomial of a node's
 * sharers: approx_flow.c's one-server bodies) */
void ax_pb_add(double *pb, int *m, double *mean, double q);
double ax_pb_inv(const double *pb, int m, double mean, int c);
void ax_fen_add(double *f, int n, int i, double d); /* the delays' Fenwick trees */
void ax_solve_window(skel_approx *a, const ax_win *w);

/* approx_fixed.c */
double ax_sweep(skel_approx *a, int backward);      /* returns the largest change */
int ax_extrapolate(skel_approx *a);                 /* 1 when it jumped */
double ax_one_at_a_time(const skel_approx *a);      /* mean time of one item alone */
/* approx_est.c: the estimate of last resort (a deal of deals the windows
 * refuse or leave unconverged): its event graph's recursion, sampled */
int ax_est_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                skel_approx_result *r, diag *err);
skel_approx *ax_est_new(const skel_dag *d, const skel_approx_opts *opts, diag *err);
int ax_est_alloc(skel_approx *a, diag *err);
int ax_est_links(skel_approx *a, const double *scv, const int *buffer, diag *err);
void ax_est_keep_links(skel_approx *a, skel_approx *b);
/* The estimate's sampling (approx_est.c): a uniform in [0, 1), an
 * exponential time, a time of gen.c's phase-type distribution for its
 * squared coefficient of variation; the rate of m sub-batches and its
 * standard error by AX_EST_BATCHES batches' means. Its fixed seed: an evaluation is a function of its rates. */
#define AX_EST_SEED 0x9E3779B97F4A7C15ULL
uint64_t ax_est_seed(const skel_approx *a);   /* AX_EST_SEED, or opts.est_seed's stream */
double ax_uniform(uint64_t *s);
double ax_draw(uint64_t *s, double mean);
double ax_draw_ph(uint64_t *s, double mean, double scv);
double ax_est_look(const double *dt, int m, long nb, double *se);
extern const long ax_est_looks[AX_EST_NLOOKS];   /* approx_estcv.c */
/* A run of the estimate's sampler: the time the n-th item from now
 * leaves (last: the latest so far), -1 when it cannot (a deadlock, not an
 * event graph). ax_est_batches: its rate (items per second) by batch
 * means, from t0 (-1 when the run failed), *half its 95% half-width,
 * *items the items counted: ax_est_looks[0], then each look in turn
 * until the half-width is within AX_EST_REL of the rate or AX_EST_ITEMS
 * are counted. */
typedef double (*ax_est_run)(void *ctx, long n, double last);
/* approx_estcv.c: the control variate (z: the groups' sums, est_z; w:
 * their weights, NULL: no control), its pilot, the batch means. */
typedef struct ax_est_cv {
    const double *z, *w;
    int nz;
} ax_est_cv;
int ax_est_pilot(ax_est_run run, void *ctx, skel_approx *a, ax_est_cv *cv, double *t);
double ax_est_look_cv(const double *dt, const double *c, int m, long nb, double *se);
double ax_est_batches(ax_est_run run, void *ctx, const ax_est_cv *cv, double *prev, double t0,
                      double *half, long *items);
/* approx_des.c: the estimate where the skeleton is not an event graph (a
 * farm's choice) or a node is shared: its semantics sampled event by
 * event. Applies when every step holds tasks or the world only (no
 * par/choice/loop); the throughput, -1 on a deadlock, -2 out of memory
 * (err); *half and *items as ax_est_batches'. */
int ax_des_applies(const skel_dag *d);
double ax_des_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                   double *half, long *items, diag *err);
int ax_collapsing(const skel_approx *a, double t);

/* approx_share.c */
int ax_build_pairs(skel_approx *a, diag *err);      /* per evaluation, after the windows */
void ax_window_pairs(skel_approx *a, const ax_win *w);   /* into the sweep's sums */
double ax_pairs_update(skel_approx *a);             /* returns their largest change */
double ax_cond_busy(const skel_approx *a, int x, int y);   /* P(y computes | x does) */
double ax_ghost_share(const skel_approx *a, int o, int node);   /* owner o's ghosts there */
/* P(a ghost of owner o on node computes | x computes, o computes), from
 * the phases of o in which x computes; ax_ghost_share without them. */
double ax_ghost_given(const skel_approx *a, int o, int node, int x);
/* P(y computes | o computes in the phases weighted by ov, nph of them):
 * a ghost's sharer given that the ghost computes; ax_cond_busy without. */
double ax_cond_phase(const skel_approx *a, int o, int y, const double *ov, int nph);
/* Ghost k's share of its owner's computing phase j (its layout's, where
 * it is laid out over the owner's phases), else of the whole pass. */
double ax_ghost_phase(const skel_approx *a, int k, int j);
/* Task x's computing phase in its local state l; -1: not computing (or
 * no phases kept: no ghosts). */
int ax_local_phase(const skel_approx *a, int x, int l);

/* approx_flowm.c: the machine of a task with par/choice/loop steps, of l
 * rounds; ax_ltr_into (approx_machine.c) adds a transition into comp0
 * forking to H2's branches */
/* The platform's link kinds (per original move: scv, buffer; see
 * ax_links_kinds) and a->handoff into flow a's reduced workspace, which is
 * built again when they differ from those it was built with. */
int ax_flow_links(skel_approx *a, const double *scv, const int *buffer, diag *err);
int ax_flow_machine(skel_approx *a, int *cap, int i, long l, diag *err);
int ax_ltr_into(skel_approx *a, int *cap, int i, ax_ltr t, int comp0, diag *err);
void ax_par_blocks(skel_approx *a);   /* after ax_groups_find */
int ax_par_fork(const skel_approx *a, int p);
int ax_fork_mate(const skel_approx *a, int q, int p);   /* q forks to p's branches */
int ax_block_forks(const skel_approx *a, int p);   /* forks par block p holds */
int ax_has_fork(const skel_dag *d);

/* approx_lattice.c: a fork's sends or a join's receives whose partners a
 * window does not hold, as one delay measured where they are held */
int ax_lat_add(skel_approx *a, int task, int send, int base, int mid0, int nmid, int pen,
               const int *edge, const int *grp, int n, int ng, diag *err);
int ax_lat_index(skel_approx *a, diag *err);        /* lat_of, after the machines */
/* Task x at window position p in local state l: a lattice cut by w whose
 * moves are one delay there (its base: the delay's transitions into b; a
 * middle state: none). 1: done so; 0: not such a state; -1 on an error. */
int ax_lat_trans(const skel_approx *a, const ax_win *w, int p, int l, ax_code s,
                 const ax_code *stride, ax_cbuf *b, diag *err);
int ax_lat_mark(skel_approx *a, diag *err);         /* cut, after the windows are built */
void ax_lat_sweep(skel_approx *a);                  /* a sweep's sums emptied, before it */
void ax_lat_measure(skel_approx *a, const ax_win *w);   /* after its solve */
double ax_lat_update(skel_approx *a);               /* after a sweep: largest change */
void ax_lat_start(skel_approx *a);                  /* cold start, after the delays */
void ax_lat_free(skel_approx *a);

/* approx.c: an approximation of d with only opts copied (both builders start here) */
skel_approx *ax_alloc(const skel_dag *d, const skel_approx_opts *opts, diag *err);

/* approx_pass.c: the time of an item in a one-server loop (approx_flow.c) */
typedef struct ax_pass_in {
    const skel_dag *d;
    const double *mu;         /* per original task: its compute rate (stretched) */
    const double *tscv;       /* ... its work's scv */
    const double *lambda;     /* per original edge: the move's rate */
    const double *lscv;       /* ... its link's scv */
    const int *buffer;        /* ... the items its link holds (0: a rendezvous) */
    double handoff;           /* a buffered link's hand-off and take */
    const int *node;          /* per original task: its node (Sharing=ps), or NULL */
    int blo, bhi;             /* the one-server body's tasks (a farm first in it: its
                                 entry's senders are outside them) */
} ax_pass_in;

/* The whole stay of an item in the one-server loop at d->pass[at]: its
 * mean (returned) and variance (*var). */
double ax_pass_stay(const ax_pass_in *in, int at, double *var);
/* The computations per stay of each task of the one-server loop at
 * d->pass[at] (v[i - in->blo]): a farm's workers at the race's odds. */
void ax_pass_visits(const ax_pass_in *in, int at, double *v);
/* The probability that an entry into one-server element `at` of d->pass
 * starts at task (last 0), or that it is left from task (last 1): a
 * choice first in a body or branch has several (approx_pass.c). */
double ax_pass_end_prob(const skel_dag *d, int at, int task, int last);

#define AX_LAY_PIECES 64      /* a layout's pieces, at most (more: not laid out) */

/* Task `task` computing over [s0, s1) of a pass with density dens (its
 * share of that time: a choice's branch its probability's, a nested
 * loop's task its time spread over the loop's stay). */
typedef struct ax_lay_piece {
    double s0, s1, dens;
    int task;
} ax_lay_piece;

/* A one-server pass laid out at mean times (ax_pass_layout): its segments
 * (at[j], len[j]: cut wherever a piece starts or ends) and its pieces. */
typedef struct ax_lay {
    double at[AX_GPH], len[AX_GPH];
    int n;
    ax_lay_piece pc[AX_LAY_PIECES];
    int np;
} ax_lay;

/* The pass of the one-server loop at d->pass[at] laid out at mean times:
 * `pre` (its entry's share), its body walked as ax_pass_stay walks it (a
 * pipe in series, a choice's branches over the choice's mean time each at
 * its probability, a par's branches at once), then its feedback move's
 * share of a pass. -1: fewer than two segments, more than AX_GPH, or more
 * than AX_LAY_PIECES pieces (not laid out). */
int ax_pass_layout(const ax_pass_in *in, int at, double pre, ax_lay *l);

/* The share of segment j of l that task b computes. */
double ax_lay_share(const ax_lay *l, int j, int b);

/* approx_flow.c: par/choice/loop flows (d->serial set) */
skel_approx *ax_flow_new(const skel_dag *d, const skel_approx_opts *opts, diag *err);
void ax_flow_free(struct ax_flow *f);
void ax_flow_deadline(struct ax_flow *f, double deadline);
/* 0 when v is a rate the flows may report (> 0, finite; bound: INFINITY
 * too), else -1 with what named in err. */
int ax_flow_check(double v, int bound, const char *what, diag *err);
int ax_flow_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                 skel_approx_result *r, diag *err);

#endif
