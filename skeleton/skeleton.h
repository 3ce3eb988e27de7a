/* skeleton: algorithmic skeletons (Yaikhom et al. 2007's pipe/deal/farm/task language,
 * with par/choice/loop for orchestrations: docs/skeleton-language.md),
 * the task graph derived from them, PEPA model generation, the platform
 * description (node speeds and network latencies, also read by the Slurm
 * plugin as skeleton.conf) and the placement of tasks on nodes.
 *
 * Pipeline of use:
 *   skel_parse_file      -> skel_tree     (the skeleton hierarchy tree)
 *   skel_dag_build       -> skel_dag      (source/destination flows, edges)
 *   skel_model_new       -> skel_model    (a pepa_model with named rates)
 *   skel_platform_parse_file + skel_place_default/skel_place_parse
 *   skel_model_place     -> rate values of one placement, written into the
 *                           model in place (re-rating: the structure of the
 *                           model never depends on the placement).
 *
 * Library code never prints or exits: every failure is -1 or NULL with one
 * message in the caller's diag ("file:line:col: message" when a position is
 * known). No global mutable state: everything is reentrant. */
#ifndef SKELSCHED_SKELETON_H
#define SKELSCHED_SKELETON_H

#include <stddef.h>
#include <stdio.h>

#include "../base/clock.h"
#include "../base/diag.h"
#include "../pepa/ast.h"

/* Bounds, so that hostile input fails with a message, never exhausts the
 * stack or memory. */
#define SKEL_MAX_DEPTH 64          /* nesting of pipe/deal/farm */
#define SKEL_MAX_CHILDREN 4096     /* components of one skeleton */
#define SKEL_MAX_TASKS 4096        /* tasks in one tree */
#define SKEL_MAX_PERIOD 10000      /* round-robin cycle of one flow or task */
#define SKEL_MAX_PREFIXES 2000000  /* activities in all generated tasks */
#define SKEL_MAX_FILE ((size_t)16 << 20)  /* bytes of a description */
#define SKEL_MAX_NAME 256          /* task and node names */
#define SKEL_MAX_NODES 65536       /* nodes of a platform / hostlist size */
#define SKEL_MAX_GROUPS 12         /* branches one item forks to or joins from */
#define SKEL_MAX_ALTS 4096         /* alternatives of one step (choices multiply) */
#define SKEL_MAX_LOOP_CAP 64       /* items inside one loop over several stages */
#define SKEL_MIN_SCV 0.01          /* squared coefficients of variation: Erlang-100 */
#define SKEL_MAX_SCV 100.0
#define SKEL_APPROX_PHASES 16      /* skel_approx_opts.phase_w per task */
#define SKEL_MAX_BUFFER 16         /* items one link holds (Buffer=) */

/* ---- the skeleton hierarchy tree ------------------------------------- */

/* PAR: every item visits every branch (fork, then join). CHOICE: each item
 * takes one branch, branch c with probability prob of that child. LOOP: the
 * one component runs a geometric number of times (>= 1) with mean `mean`. */
typedef enum skel_kind {
    SKEL_TASK, SKEL_PIPE, SKEL_DEAL, SKEL_FARM, SKEL_PAR, SKEL_CHOICE, SKEL_LOOP
} skel_kind;

typedef struct skel_node {
    skel_kind kind;
    int line, col;               /* where it was written; 0 if built */
    const char *name;            /* TASK: the label given ("task") */
    double rate;                 /* TASK: items per second on Speed=1 */
    double data;                 /* TASK: bytes of each item it sends (0: none) */
    double scv;                  /* TASK: squared coefficient of variation of its
                                    work per item (scv=); 0: the platform's WorkSCV=
                                    (skel_phases) */
    int index;                   /* TASK: depth-first number, task "t<index>" */
    int lo, hi;                  /* tasks of this subtree: [lo, hi) */
    int declared;                /* count written in the description (0 if built) */
    int sugar;                   /* written as deal(n,..)/farm(n,..), not xdeal/xfarm */
    double prob;                 /* child of a CHOICE: its weight, normalised to a
                                    probability by skel_tree_finish */
    double mean;                 /* LOOP: mean number of iterations, >= 1 */
    int cap;                     /* LOOP over several stages: items inside at
                                    once (0: 1) */
    int nchildren;
    struct skel_node **children;
    struct skel_node *parent;
} skel_node;

typedef struct skel_tree skel_tree;   /* owns all its nodes and names */

/* Parse a skeleton description (len bytes, need not be NUL-terminated).
 * file names the source in messages. Returns a finished tree owned by the
 * caller (free with skel_tree_free), or NULL with "file:line:col: ...". */
skel_tree *skel_parse_string(const char *text, size_t len, const char *file, diag *err);

/* Read and parse a file ("-" is standard input). */
skel_tree *skel_parse_file(const char *path, diag *err);

/* Building a tree by hand (bpel/ import): skel_tree_new, then nodes, then
 * skel_tree_finish. Nodes belong to the tree; names are copied. Each
 * returns NULL / -1 with a message on failure. */
skel_tree *skel_tree_new(const char *file);
skel_node *skel_node_new(skel_tree *t, skel_kind kind, int line, int col, diag *err);
skel_node *skel_task_new(skel_tree *t, const char *name, double rate, int line, int col, diag *err);
int skel_node_add(skel_tree *t, skel_node *parent, skel_node *child, diag *err);

/* Make root the tree's root, check it (every skeleton has a child, rates
 * positive and finite, bounds above) and number the tasks depth-first. */
int skel_tree_finish(skel_tree *t, skel_node *root, diag *err);

void skel_tree_free(skel_tree *t);                 /* t may be NULL */
const char *skel_tree_file(const skel_tree *t);    /* "<input>" if none */
skel_node *skel_tree_root(const skel_tree *t);
int skel_tree_ntasks(const skel_tree *t);
skel_node *skel_tree_task(const skel_tree *t, int index);   /* NULL if out of range */

/* Non-zero when no item moves inside the subtree at n: a task, or a deal,
 * farm or loop of such (a loop over it repeats the computation in place). */
int skel_node_one_stage(const skel_node *n);

/* Print the tree back in the description language (canonical layout:
 * one statement per line, indented by depth). */
void skel_tree_print(const skel_tree *t, FILE *f);

/* ---- the task graph (Yaikhom et al. 2007 §4.1, Algorithm 1) ----------------------- */

/* Boundary styles. PRODUCER (Yaikhom et al. 2007): the first tasks produce, the last
 * consume. STREAM (Benoit et al. 2004): the first tasks receive every item by an
 * input move, the last send it away by an output move. */
typedef enum skel_style { SKEL_STYLE_PRODUCER, SKEL_STYLE_STREAM } skel_style;

/* Pseudo task indices for the outside world in the STREAM style. */
#define SKEL_IN (-1)
#define SKEL_OUT (-2)

/* How a task receives or sends: Yaikhom et al. 2007's source/destination pattern. */
typedef enum skel_pattern {
    SKEL_PAT_NONE = 0,   /* "*": a producer's source, a consumer's destination */
    SKEL_PAT_PIPE = 1,   /* always the same partner */
    SKEL_PAT_DEAL = 2,   /* a round-robin cycle of partners */
    SKEL_PAT_FARM = 3    /* any one partner (demand-driven choice) */
} skel_pattern;

/* Member of a step that is no partner: the item is consumed or dropped
 * (SKEL_NONE); a task's own index in its destination means "compute the
 * item again" (a loop over that task alone). */
#define SKEL_NONE (-3)

/* A flow is a cycle of steps; at step k the task exchanges one item with
 * one member of set k (a singleton for a pipe or a deal; several members,
 * a choice, for a farm). A deal over farms has several steps of several
 * members.
 * Steps made by par/choice/loop are richer (alt != NULL): the members of a
 * step are split into alternatives and each alternative into groups. A
 * sender picks one alternative with the probability weight (when it
 * computes), then exchanges one item with one member of every group of it,
 * in any order (a fork); a receiver takes the alternative of the first
 * item it receives, then one item from every other group of it (a join).
 * Members are sorted by (alt, grp). */
typedef struct skel_flow {
    skel_pattern pattern;
    int nsteps;
    int *start;          /* nsteps + 1 offsets into tasks */
    int *tasks;          /* step k: tasks[start[k] .. start[k+1]) */
    int *alt, *grp;      /* per member; NULL: one alternative, one group */
    double *weight;      /* per member: its alternative's probability */
} skel_flow;

/* A loop over several stages: at most cap items are inside its body (the
 * tasks [lo, hi)) at once, which keeps the feedback from deadlocking. */
typedef struct skel_gate {
    int lo, hi;
    int cap;
    int line, col;       /* the loop statement */
    double mean;         /* the loop's mean iterations (passes per entry) */
} skel_gate;

#define SKEL_PASS_ENDS 32    /* tasks a one-server body's element is entered at or
                                left from (a choice first in it: its branches') */

/* One node of a one-server loop's subtree (dag_serial.c), in preorder: its
 * children follow it, each after the previous one's subtree. */
typedef struct skel_pass {
    skel_kind kind;      /* TASK, PIPE, CHOICE, PAR, LOOP or FARM (of tasks) */
    int lo, hi;          /* its tasks */
    double prob;         /* a CHOICE's child: its probability; a FARM's worker:
                            1/K (the race's odds are approx_pass.c's); else 1 */
    double mean;         /* LOOP: its mean passes */
    int size;            /* nodes of its subtree, itself included */
} skel_pass;

typedef struct skel_edge {
    int from, to;        /* task indices, or SKEL_IN / SKEL_OUT */
} skel_edge;

typedef struct skel_dag {
    skel_style style;
    int ntasks;
    skel_flow *src;      /* per task: from whom it receives (S_i) */
    skel_flow *dst;      /* per task: to whom it sends (D_i) */
    int nedges;          /* distinct communicating pairs = move actions */
    skel_edge *edges;    /* ordered by receiving task for input moves, then by
                            sender and first use */
    int *out_lo, *out_hi; /* per task: its outgoing edges are [out_lo, out_hi) */
    int extended;        /* some flow has par/choice/loop steps */
    double *visits;      /* per task: computations per item entering the
                            skeleton (choice probabilities, loop means, 1/n
                            in a deal), 0 when not fixed (a farm's workers) */
    int ngates;
    skel_gate *gates;
    struct skel_dag *serial; /* with a loop over several stages: the tree with
                                every such loop its body, run once, or (cap 1,
                                a pipe of tasks) one task (dag_serial.c), the
                                graph the approximation solves; NULL otherwise */
    double *serial_visits;   /* per task: its visits per item by those loops
                                (their means multiply) */
    int *serial_of;          /* per task: its task in serial; the tasks of a
                                loop answered by one task (serial_loop) map to it */
    double *serial_loop;     /* per task of serial: the mean of the loop over
                                several stages it stands for (cap 1, its body a
                                pipe of tasks, choices, pars, farms of tasks and
                                such loops:
                                one task, a loop over one stage,
                                each computation one pass through the body,
                                approx_flow.c); 0: a task of the tree */
    skel_pass *pass;         /* the subtrees of the one-server loops, outermost,
                                each in preorder (approx_pass.c walks them) */
    int *pass_at;            /* per task: where in pass the one-server loop whose
                                body it starts is (the outermost), -1 else */
} skel_dag;

/* Derive the flows and edges of a finished tree. Returns a dag owned by
 * the caller, or NULL with a message (a round-robin period too long, a
 * par/choice/loop where it has no meaning, such as first in the skeleton). */
skel_dag *skel_dag_build(const skel_tree *t, skel_style style, diag *err);
void skel_dag_free(skel_dag *d);

/* Yaikhom et al. 2007's case number of task i: 4 * source pattern + destination
 * pattern (rows *, Pipe, Deal, Farm; 0..15). */
int skel_dag_case(const skel_dag *d, int i);

/* Index of the edge from -> to, or -1. */
int skel_dag_edge(const skel_dag *d, int from, int to);

/* 1 when some task has rounds: more than one source or destination step
 * (a deal's producer, member or consumer). */
int skel_dag_has_rounds(const skel_dag *d);

/* ---- PEPA generation (Yaikhom et al. 2007 §4.2-4.3, Algorithms 2-3, Fig. 4) ------- */

/* Names used in the generated model (i, j task indices):
 *   processes  Task<i>, Task<i>_<k> (its later local states), Processor<i>,
 *              Network, Loop<g>, Loop<g>_<c> (the gate of loop g: c items in)
 *   actions    comp_<i>, move_<i>_<j>, move_in_<i>, move_<i>_out
 *   rates      mu_<i> (compute), lambda_<i>_<j>, lambda_in_<i>,
 *              lambda_<i>_out (moves)
 * Tasks are passive in every activity; Processor<i> = (comp_i, mu_i).Processor<i>
 * and Network = (move_.., lambda_..).Network + ... give the rates. */
typedef struct skel_model {
    pepa_model *pepa;        /* owned */
    int ntasks;
    int nedges;
    skel_edge *edges;        /* copy of the dag's edges; lambda index = edge index */
    double *work;            /* per task: the tree's rate (on Speed=1) */
    double *data;            /* per task: bytes per item sent */
    pepa_expr **mu;          /* per task: the NUM node of mu_<i> */
    pepa_expr **lambda;      /* per edge: the NUM node of its lambda */
    long nprefixes;          /* activities in the task definitions */
    int shared;              /* tasks inside Node<j> products (Sharing=ps, placed
                                model): 0 for a placement-independent model */
    int lumped;              /* tasks of later copies that a lumped array's first
                                copy stands for (skel_model_new_lumped); 0 else */
    double *scv;             /* per task: squared coefficient of variation of its
                                work (task scv=, platform WorkSCV=, else 1) */
    double *link_scv;        /* per edge: squared coefficient of variation of the
                                move's time (in the placement-independent model: the
                                platform's where skel_platform_uniform_kind, else 1) */
    int *buffer;             /* per edge: items the link holds; 0: rendezvous (the
                                seeds'; in the placement-independent model as link_scv) */
    int *comp_action;        /* per task: action id of comp_<i> in pepa */
    int *move_action;        /* per edge: action id of its move in pepa */
    int *work_action;        /* per task: action id of work_<i> (the phases of
                                Erlang work before comp_<i>), or -1 */
    int *take_action;        /* per edge: the receiver's action, take_<i>_<j> when
                                the move is buffered, else the move's */
    int *xfer_action;        /* per edge: action id of xfer_<i>_<j> (a buffered
                                item's transit, or a move's phases), or -1 */
    double *entry;           /* per task: items entering the skeleton per
                                computation of the task when it is one of the
                                first stage's counted tasks, else 0; the job's
                                throughput is sum_i entry[i] X(comp_i)
                                (skel_model_throughput) */
} skel_model;

/* Generate the model of tree t with flows d. Every rate starts at the
 * Speed=1 / latency=1 value (task rate, move rate 1.0); skel_model_place
 * or skel_model_set_rates change them. Returns NULL with a message. */
skel_model *skel_model_new(const skel_tree *t, const skel_dag *d, diag *err);
void skel_model_free(skel_model *m);


/* Set the rate values (mu: ntasks entries, lambda: nedges entries, all
 * positive and finite) in place: only the NUM nodes change, so a derived
 * state space stays valid (pepa_system_rerate). */
int skel_model_set_rates(skel_model *m, const double *mu, const double *lambda, diag *err);

/* The job's throughput, items per second through the skeleton, from the
 * throughput of every action (pepa action ids, as pepa_space_throughput
 * gives them): sum_i entry[i] X(comp_i). In steady state items enter as
 * fast as they leave, so this is also the sum over the last stage. */
double skel_model_throughput(const skel_model *m, const double *action_thr);

/* ---- the platform (docs/platform.md) ----------------------------------- */

typedef struct skel_pnode {
    const char *name;
    double speed;            /* > 0; 1 means "the task's rate as written" */
    int line;                /* where it was declared (0: built) */
} skel_pnode;

typedef struct skel_link {
    int a, b;                /* node indices, a < b */
    double latency;          /* seconds, > 0 */
    double bandwidth;        /* bytes/second, 0 if not given */
    double scv;              /* SCV=: of a move's time; 0: the platform's LinkSCV= */
    int buffer;              /* Buffer=: items; -1: the platform's DefaultBuffer= */
    int line;
} skel_link;

#define SKEL_LOCAL (-1)      /* Input=local / Output=local */

/* Parameters of the analytic cost models (cost/, docs/platform.md), global
 * keys of the platform file; 0 when the file does not give them. */
typedef enum skel_param {
    SKEL_PARAM_SETUP_FIXED,      /* SetupFixed=: I_0 of T_setup = I_0 + I_1 P (Darlington et al. 1993 §5) */
    SKEL_PARAM_SETUP_PER_NODE,   /* SetupPerNode=: I_1 */
    SKEL_PARAM_FLATTEN_FIXED,    /* FlattenFixed=: T_fo, seconds per (un)flatten */
    SKEL_PARAM_FLATTEN_BYTE,     /* FlattenPerByte=: T_f, seconds per byte */
    SKEL_PARAM_GC_RATE,          /* GcRate=: G, collections per work packet */
    SKEL_PARAM_GC_TIME,          /* GcTime=: T_g, seconds per collection */
    SKEL_PARAM_BSP_G,            /* BspG=: g_inf, seconds per byte (Zavanella 1999 §2) */
    SKEL_PARAM_BSP_NHALF,        /* BspNHalf=: N_1/2, bytes */
    SKEL_PARAM_BSP_L,            /* BspL=: l, seconds per barrier */
    SKEL_PARAM_INTERARRIVAL,     /* InterArrival=: T_e, seconds between input items */
    SKEL_PARAM_PRECISION,        /* Precision=: prec of Zavanella 1999 eq. 8-9 */
    SKEL_PARAM_CODE_SIZE,        /* CodeSize=: o, bytes of code shipped (Alt et al. 2002 eq. 1) */
    SKEL_PARAM_COUNT
} skel_param;

/* The key of a parameter ("SetupFixed", ...), or NULL. */
const char *skel_param_key(skel_param k);

/* How the tasks placed on one node share its speed (docs/platform.md).
 * PS: only the tasks that are computing share it, equally (processor
 * sharing: a task computing alone gets the whole node). STATIC: each of
 * the n tasks placed on the node always gets Speed/n, computing or not
 * (Benoit et al. 2004's equitable sharing). */
typedef enum skel_sharing { SKEL_SHARE_PS = 0, SKEL_SHARE_STATIC = 1 } skel_sharing;

/* "ps" or "static" (case-insensitive) into *out. Returns 0 or -1. */
int skel_sharing_parse(const char *s, skel_sharing *out);
const char *skel_sharing_name(skel_sharing s);

typedef struct skel_platform {
    const char *file;
    int nnodes;
    skel_pnode *nodes;       /* in declaration order */
    int nlinks;
    skel_link *links;        /* sorted by (a, b) */
    double local_latency;    /* < 0 if not given */
    double default_latency;  /* < 0 if not given */
    int input, output;       /* SKEL_LOCAL or a node index */
    void *priv;              /* name index and storage */
    double param[SKEL_PARAM_COUNT];  /* cost model parameters; 0: not given */
    skel_sharing sharing;    /* Sharing=; SKEL_SHARE_PS when not given */
    double work_scv;         /* WorkSCV=: a task's work when it gives no scv=; 0: 1 */
    double link_scv;         /* LinkSCV=: a move's time without a Link SCV=; 0: 1 */
    int default_buffer;      /* DefaultBuffer=: items a link holds; 0: rendezvous */
    int job_buffer;          /* the job's own buffering (#SKEL --buffer, --buffer):
                                every move's capacity; -1: the platform's */
} skel_platform;


/* One Key=Value pair the platform does not know, handed to the caller so
 * that it can carry its own keys in the same file (the Slurm plugin's
 * Budget=, ...). head_key/head_value are the line's first pair (e.g.
 * "NodeName", "n[1-4]"): equal to key/value when the unknown key starts
 * the line. */
typedef struct skel_conf_item {
    const char *file;
    int line, col;
    const char *key, *value;
    const char *head_key, *head_value;
} skel_conf_item;

/* Returns 0 when it took the pair, 1 when it does not know it either (the
 * platform then reports "unknown key"), -1 with a message in err. */
typedef int (*skel_conf_fn)(void *ctx, const skel_conf_item *item, diag *err);

/* Parse a platform description. fn may be NULL (unknown keys are errors).
 * Returns a platform owned by the caller, or NULL with "file:line:col: ...". */
skel_platform *skel_platform_parse_string(const char *text, size_t len, const char *file,
                                          skel_conf_fn fn, void *ctx, diag *err);
skel_platform *skel_platform_parse_file(const char *path, skel_conf_fn fn, void *ctx, diag *err);

/* The platform used when none is given: nodes n0 .. n<count-1> of Speed 1,
 * every latency (local, default, input, output) 1 second, i.e. the
 * rate-1 network of Yaikhom et al. 2007's Fig. 4. */
skel_platform *skel_platform_default(int count, diag *err);

void skel_platform_free(skel_platform *p);   /* p may be NULL */

/* Index of a node by name, or -1. */
int skel_platform_find(const skel_platform *p, const char *name);

/* Latency and bandwidth (0: none) of a move between nodes a and b;
 * a == b is a local move (LocalLatency, no bandwidth term). Returns -1
 * with a message when the platform does not say (no Link and no
 * DefaultLatency, no LocalLatency). */
int skel_platform_link(const skel_platform *p, int a, int b, double *latency,
                       double *bandwidth, diag *err);

/* The squared coefficient of variation of a move's time from node a to
 * node b (a == b: within a node; a or b < 0: the stream's input or output)
 * and its capacity in items (0: rendezvous): the job's buffering, else the
 * Link's SCV=/Buffer=, else LinkSCV=/DefaultBuffer=, else 1 and 0. */
void skel_platform_move_kind(const skel_platform *p, int a, int b, double *scv, int *buffer);

/* 1 when every move between two tasks has the same kind whatever the nodes
 * (no Link= line gives an SCV= or a Buffer= of its own that differs, or
 * the job's buffering overrides them), that kind into *scv and *buffer;
 * else 0. */
int skel_platform_uniform_kind(const skel_platform *p, double *scv, int *buffer);

/* Expand a Slurm hostlist ("n[1-16]", "n[01-10],io[1,3-4]", "a,b") into
 * *names (an array of *count strings; free each, then the array, or call
 * skel_hostlist_free). At most max names (and SKEL_MAX_NODES). */
int skel_hostlist_expand(const char *list, char ***names, int *count, int max, diag *err);
void skel_hostlist_free(char **names, int count);

/* ---- placement ----------------------------------------------------------- */

/* Fill node_of_task (ntasks entries) with the default placement: task i on
 * node i mod nnodes, in declaration order. */
void skel_place_default(int ntasks, const skel_platform *p, int *node_of_task);

/* Apply a placement string "t0=p1,t1=p2,..." (whitespace allowed around
 * ',' and '='): each named task moves to the named node; the others keep
 * their entry. Returns 0, or -1 with a message (unknown task or node,
 * a task named twice, bad syntax). */
int skel_place_parse(const char *spec, int ntasks, const skel_platform *p,
                     int *node_of_task, diag *err);

/* The rates of one placement (Benoit et al. 2004 §4.1): a task on node j computes at
 * mu = rate * Speed_j / n_j, n_j = tasks on j, under Sharing=static, and at
 * mu = rate * Speed_j under Sharing=ps (its rate when it computes alone:
 * the model divides it by the number of tasks computing); a move between nodes a != b
 * takes latency(a,b) + data/bandwidth(a,b) seconds, within one node
 * LocalLatency; input/output moves run from/to the Input/Output node (or
 * locally). mu has ntasks and lambda nedges entries. */
int skel_place_rates(const skel_model *m, const skel_platform *p, const int *node_of_task,
                     double *mu, double *lambda, diag *err);

/* Phases of a task's work (or a move's time) of squared coefficient of
 * variation scv (docs/platform.md, "Variability"): below 1, Erlang-k with
 * k = round(1/scv) (1..100) phases of rate k/mean; at 1 (and above, where
 * this returns 1) one phase. Above 1 the work is a balanced-means
 * hyperexponential H2: with probability p at rate ra/mean, else at rate
 * rb/mean (skel_h2 gives p, ra, rb; p/ra = (1-p)/rb = 1/2). */
int skel_erlang_phases(double scv);
void skel_h2(double scv, double *p, double *ra, double *rb);

/* The model of one placement on p under p's semantics, rates set (as by
 * skel_model_place). node_of_task NULL: the placement-independent model
 * under p's other semantics (WorkSCV=; LinkSCV=, DefaultBuffer= and the
 * job's buffering where skel_platform_uniform_kind), rates not set, as the
 * search wants it. Under Sharing=ps the tasks of each node that holds
 * several are one component, Node<j> (and Node<j>_<k>), whose local state
 * is the tuple of theirs: it gives each computing task mu_<i> (its rate
 * alone on the node) divided by the number of them computing, so its
 * structure depends on the placement. Under Sharing=static, or with one
 * task per node, it is skel_model_new's model with skel_model_place's
 * rates. NULL with a message (a node whose tasks have too many joint local
 * states for one component). */
skel_model *skel_model_new_placed(const skel_tree *t, const skel_dag *d, const skel_platform *p,
                                  const int *node_of_task, diag *err);

/* skel_model_new_placed's model of one placement (node_of_task not NULL),
 * with the copies of a farm (farm tasks, or xfarm sub-skeletons) that are
 * interchangeable under it lumped exactly: each group of them is one
 * aggregated array, Task<i>[n] (copies of one task) or Copy<i>[n] (of a
 * sub-skeleton), i being the first task of the first copy, whose
 * component carries its own rates (its computations at mu_<i>, its moves
 * at lambda_...). Its actions comp_<i>, move_.. count all the copies;
 * a later copy's comp_action is its first copy's and its entry 0, so
 * skel_model_throughput holds. The structure depends on the placement:
 * skel_model_set_rates may change rates only as a permutation of nodes
 * of one class would. Which copies lump, and why exactly: docs/pepa.md. */
skel_model *skel_model_new_lumped(const skel_tree *t, const skel_dag *d, const skel_platform *p,
                                  const int *node_of_task, diag *err);

/* skel_place_rates, then skel_model_set_rates. */
int skel_model_place(skel_model *m, const skel_platform *p, const int *node_of_task,
                     diag *err);

/* ---- placement search (docs/mapping.md) -------------------------------- */

/* Search placements of a skeleton's tasks on a platform's nodes for the
 * highest steady-state throughput of the job (skel_model_throughput: items
 * entering, equivalently leaving, the skeleton per second). The chain is derived once;
 * every placement only re-rates and re-solves it (warm start). Subtrees of
 * partial placements are cut by sound upper bounds (per-task cycle
 * bounds), placements that differ by a permutation of interchangeable
 * nodes are evaluated once, and every placement reported was solved:
 * nothing is ranked by a bound. Reentrant; memory is bounded by the chain,
 * the platform's nodes squared and top. */

typedef struct skel_search_opts {
    const int *pins;         /* ntasks entries: node index, or -1 (free); NULL: none */
    const unsigned char *allowed; /* nnodes flags: tasks go only on nodes whose flag is
                                non-zero (the others keep their links and Input/
                                Output roles); NULL: every node */
    const int *candidates;   /* ncandidates * ntasks node indices; NULL: all placements */
    int ncandidates;
    int top;                 /* placements to rank (best first); 0: 10 */
    double budget;           /* seconds in all (deriving included); 0: none */
    const skel_tree *tree;   /* the skeleton m was built from, or NULL: when
                                given, placements the whole chain could not value
                                are valued exactly on their lumped chain
                                (skel_model_new_lumped: a farm's members on nodes
                                of one class are one array), method LUMPED */
    int force_lumped;        /* with tree and candidates: value every candidate on
                                its lumped chain, even where the whole chain fits
                                (to check one against the other) */
    clock_deadline deadline; /* the caller's whole decision's end (zero: none):
                                the search stops by the earlier of it and the
                                budget, every phase checking it */
    unsigned long max_states; /* refuse larger chains; 0: 2,000,000 */
    int threads;             /* derivation threads (pepa_derive_opts); 0: default */
    int no_prune;            /* non-zero: no bounds (brute force, for tests) */
    int no_symmetry;         /* non-zero: every placement, symmetric or not */
    int no_windows;          /* non-zero: per-task cycle bounds only, no
                                sub-pipeline windows */
    int shared_windows;      /* the sub-pipeline windows that see processor
                                sharing (search_winps.c): 0 in proofs whose
                                chain has at least 4,096 states (below, they
                                cost more than the chains they save), 1 in
                                every proof, -1 never (full speed only; for
                                comparisons) */
    int window_max;          /* tasks a sub-pipeline window may hold: 2-7;
                                0: the tasks less 2, within 4-7 (4 was the
                                limit before; for comparisons) */
    int no_plan;             /* non-zero: re-rate by re-enumerating the chain
                                (pepa_space_rate) instead of the rate plan */
    /* Called now and then (at most every 0.1 s) with the fraction of the
     * search done, from the searching thread; may be NULL. */
    void (*progress)(void *ctx, double done, double seconds);
    void *progress_ctx;
} skel_search_opts;

/* How the best placement was found and valued. */
typedef enum skel_search_method {
    SKEL_SEARCH_EXACT,       /* the Markov chain: every ranked throughput solved */
    SKEL_SEARCH_APPROX,      /* the chain did not fit (MaxStates, budget, platform
                                size): the large-scale search's placement, valued
                                by its estimate */
    SKEL_SEARCH_LUMPED       /* the whole chain did not fit; the placements ranked
                                (the large-scale search's, or the candidates) were
                                each valued exactly on their lumped chain */
} skel_search_method;

/* "exact", "approximate" or "lumped". */
const char *skel_search_method_name(skel_search_method m);

typedef struct skel_search_entry {
    int *placement;          /* ntasks node indices: task i runs on placement[i] */
    double throughput;       /* the job's, items per second */
    int rank;                /* 1-based; equal for ties (1e-9 relative) */
    int bottleneck;          /* task of highest utilisation; SKEL_BOTTLENECK_UNKNOWN
                                when some task's utilisation is unknown */
    double *task_util;       /* ntasks: fraction of time each task computes (at
                                most 1, an estimate's too: search_utils); NAN
                                when unknown (an estimate's task of unknown visit
                                ratio: approx_utils in search.c) */
    double *node_util;       /* nnodes: work done / capacity of each node; NAN when
                                a task on it has an unknown utilisation */
} skel_search_entry;

/* skel_search_entry.bottleneck when it cannot be named. */
#define SKEL_BOTTLENECK_UNKNOWN (-1)

/* The phases of a search, in their order, for timing them
 * (skel_search_result.phase_secs; bench_scale's SCALE_PHASES=1). */
typedef enum skel_search_phase {
    SKEL_PHASE_SETUP,        /* flows, the bounds' set-up, node classes */
    SKEL_PHASE_CONSTRUCT,    /* the constructive placement */
    SKEL_PHASE_EVALUATOR,    /* the approximation's set-up and first estimate */
    SKEL_PHASE_MOVES,        /* the local moves and restarts on the estimate */
    SKEL_PHASE_CHAIN,        /* latency matrices, compiling, deriving, the rate plan */
    SKEL_PHASE_CHAIN_SEARCH, /* seeds, moves on the chain, branch and bound */
    SKEL_PHASE_LUMPED,       /* the answer without the chain: more moves, lumped chain */
    SKEL_PHASE_RESULT,       /* the reported bound, the result, releasing the chain */
    SKEL_PHASE_N
} skel_search_phase;

/* The phase's name ("setup", "construct", ...). */
const char *skel_search_phase_name(skel_search_phase k);

typedef struct skel_search_result {
    int ntasks, nnodes;
    int nranked;
    skel_search_entry *ranked;   /* best first; ranked[0] is the best */
    int ties;                /* placements in ranked tied with the best (>= 1) */
    int optimal;             /* the best is proven best (of all, or of the candidates) */
    double bound;            /* upper bound on any placement not solved nor cut
                                (0 when optimal) */
    double gap;              /* (bound - best) / best when positive, else 0 */
    unsigned long long evaluated;  /* placements solved */
    double pruned;           /* placements cut by a bound */
    double symmetric;        /* placements skipped as images of a solved one
                                (or cache hits among candidates) */
    double total;            /* placements in the search space */
    unsigned long states;    /* states of the chain */
    unsigned long long transitions;
    double seconds;          /* wall time, deriving included */
    skel_search_method method;
    double constructive;     /* the constructive placement's throughput (exact
                                when method is EXACT, else its estimate) */
    double constructive_secs; /* the time it took */
    char why[256];           /* APPROX: why the exact chain was not used */
    const char *estimator;   /* APPROX: what valued the placements (static text) */
    double phase_secs[SKEL_PHASE_N];  /* wall time of each phase (0: not run) */
} skel_search_result;

/* The search's upper bound on the throughput of placement pl (ntasks node
 * indices; -1: not placed) of model m (built from dag d by skel_model_new)
 * on p, into *bound: what the branch and bound cuts by (cycle, stage,
 * capacity, node and sub-pipeline window bounds, with sharing under
 * Sharing=ps; docs/mapping.md), never below the exact throughput of any
 * completion of pl. 0, or -1 with a message. */
int skel_search_bound(skel_model *m, const skel_dag *d, const skel_platform *p, const int *pl,
                      double *bound, diag *err);
/* The same with the bounds' options of o (no_windows, shared_windows,
 * window_max, pins; NULL: defaults). */
int skel_search_bound_opts(skel_model *m, const skel_dag *d, const skel_platform *p, const int *pl,
                           const skel_search_opts *o, double *bound, diag *err);

/* Search the placements of model m (built from dag d; its rates are
 * overwritten) on p. A constructive placement and local moves
 * (search_scale.c) come first and always give an answer; the exact chain
 * then confirms and improves it when it fits (max_states, the budget, at
 * most 2048 nodes), starting from that answer, so the best is never worse
 * than the constructive placement. When the chain does not fit (and no
 * candidates are listed) the result has method APPROX and says why.
 * Returns a result owned by the caller, or NULL with a message (a chain
 * with no unique steady state, a pin or candidate off the platform, no
 * feasible placement). Under a budget the result holds the best placement
 * solved so far, optimal = 0 and the bound. */
skel_search_result *skel_search(skel_model *m, const skel_dag *d, const skel_platform *p,
                                const skel_search_opts *opts, diag *err);
void skel_search_result_free(skel_search_result *r);   /* r may be NULL */
/* The exact value of one placement: skel_search over that one candidate,
 * nothing pruned, its chain up to max_states (0: the default). ranked[0]
 * holds it; NULL with a message as skel_search. */
skel_search_result *skel_search_one(skel_model *m, const skel_dag *d, const skel_platform *p,
                                    const int *place, unsigned long max_states, diag *err);

/* Node classes for the symmetry: class[j] is the smallest node index
 * interchangeable with j (same speed, same latency and bandwidth to every
 * other node, neither Input nor Output nor in the nodes list keep, which
 * may be NULL; keep has nnodes flags). Returns 0 or -1 (memory). */
int skel_search_classes(const skel_platform *p, const unsigned char *keep, int *cls,
                        diag *err);

/* ---- throughput approximation (docs/approximation.md) ------------------ */

/* An analytical estimate of a placed skeleton's steady-state throughput
 * that costs microseconds to milliseconds at any size: the task graph is
 * decomposed into one small exact sub-chain per communicating pair of
 * tasks (both tasks' local states, every other partner replaced by an
 * exponential delay), coupled by a fixed point on those delays (tandem
 * lines with blocking: Dallery, David and Xie's decomposition; semi-
 * numerical SPA decomposition: Bohnenkamp and Haverkort). Exact for one
 * task and for two communicating tasks; errors on the random suite are in
 * `make bench` (bench/bench_approx.c).
 *
 * A workspace is built once per task graph and evaluated per placement:
 * evaluation allocates nothing and touches no global state, so one
 * workspace per thread evaluates placements concurrently. */

typedef struct skel_approx skel_approx;

typedef struct skel_approx_opts {
    int max_iter;            /* fixed-point sweeps; 0: 200 */
    double tol;              /* relative change of every delay that stops them; 0: 1e-6 */
    unsigned long max_states; /* states of one sub-chain; 0: 16384 */
    unsigned long window_states; /* a pair's sub-chain keeps its outside partners as
                                ready/not-ready bits within this many states; 0: 128 */
    unsigned long deal_states; /* with a deal in the skeleton, a pair's sub-chain
                                grows by its partners while its states reachable
                                from the start stay within this many; 0: 2500 */
    unsigned long grow_states; /* without a deal, likewise but counting the product
                                of the local states (overlapping windows of
                                several tasks); 0: 81 (four pipeline tasks), or
                                1 (pairs) when deal_states is given */
    unsigned long sibling_states; /* without a deal, a window grown by its neighbours
                                then grows by the other members of its tasks'
                                choices (a farm's other workers, so that the
                                producer's choice among the ready ones is exact
                                there; choices of up to 8 members) while the
                                product of the local states stays within this
                                many; 0: 729 with the default grow_states, else
                                grow_states (no such growth); with room left,
                                the window then grows by further neighbours
                                within sibling_states too (a pipeline: six tasks) */
    unsigned long whole_states; /* without a deal, a model whose tasks' local states
                                (and links') multiply to at most this many is one
                                window, solved exactly, whatever grow_states; 0: 729.
                                With a deal, the model is one window when it has
                                at most 16,384 reachable states, there is no
                                deadline and deal_states is not given; 1: neither */
    const double *scv;       /* per task: squared coefficient of variation of its
                                work (skel_model.scv: Erlang-k below 1, H2 above);
                                NULL: exponential */
    const int *phase_n;      /* per task: its work as this many exponential phases
                                in a row, at rates phase_w[i * SKEL_APPROX_PHASES + j]
                                times its rate (sum of 1 / w: 1), in place of scv's;
                                0 or NULL: scv's (a one-server loop's pass laid out,
                                approx_flow.c) */
    const double *phase_w;
    const double *link_scv;  /* per edge: squared coefficient of variation of its
                                move's time (skel_model.link_scv); NULL: 1 */
    const int *buffer;       /* per edge: items its link holds (skel_model.buffer);
                                NULL: rendezvous. A move with phases or a buffer is
                                a component of the windows holding its ends, as in
                                gen.c (docs/approximation.md) */
    double handoff;          /* a buffer's hand-off and take rate (gen.c's handoff,
                                1/LocalLatency); 0: 1 */
    double deadline;         /* clock_now() past which skel_approx_new and every
                                skel_approx_eval give up with a message (the
                                search's time limit); 0: none */
    int cold;                /* non-zero: every evaluation starts from the initial
                                delays, not from the previous fixed point (with
                                deals a warm start can end in another one) */
    unsigned long cut_whole_states; /* a deal of deals (a deal no window holds whole),
                                or a deal whose windows' fixed point fails: the whole
                                model is first tried as one window (the exact chain)
                                when it has at most this many reachable states and
                                there is no deadline; 0: 250,000; 1: never (the
                                decomposition alone, docs/approximation.md) */
    unsigned long layer_states; /* a deal of deals' windows (grown by whole round robins)
                                hold up to this many reachable states; 0: 65,536,
                                then 16,384 when that fixed point fails */
    int independent_sharers; /* Sharing=ps: a node's tasks outside a window compute
                                independently of the window's (the method before the
                                co-located pairs, kept for comparisons) */
    int count_tasks;         /* a deal of single tasks, from this many members, whose
                                producer, members and consumer pass deal_states
                                together is counted (approx_group.c) rather than
                                cut by the windows; 0: 5; INT_MAX: never (the
                                method before, kept for comparisons) */
    int estimate;            /* 1: answer by the estimate of last resort alone (a deal
                                of deals' event graph by its max-plus recursion,
                                sampled; approx_est.c; for comparisons); by itself
                                it answers only deals of deals whose windows refuse
                                or do not converge */
    unsigned long fes_states; /* a par block's reduced chain: states at most before it
                                is split into one chain per block and one of the tasks
                                outside (docs/approximation.md); 0: 65,536 */
    int no_fes;              /* 1: a par block past one window is cut by the windows,
                                its branches not reduced to flow-equivalent servers
                                (the method before, kept for comparisons) */
    unsigned long est_seed;  /* the estimate's random stream: 0 the fixed default (an
                                evaluation a function of its rates); another value
                                another stream, to measure its coverage on fresh
                                seeds (bench_approx realcov) */
} skel_approx_opts;

enum { SKEL_APPROX_EST_GRAPH = 1, SKEL_APPROX_EST_PAIRS = 2, SKEL_APPROX_EST_EVENTS = 3 };
/* The estimate's recursion: items before it counts, and items it counts
 * (approx_est.c; the CLI's method line names their sum). */
#define SKEL_APPROX_EST_WARM 10000
#define SKEL_APPROX_EST_ITEMS 100000

/* skel_approx_result.fes_past: why a par block too large for one window
 * was cut by the windows rather than reduced (docs/approximation.md) */
typedef enum skel_approx_par_past {
    SKEL_APPROX_PAR_PAST = 1,   /* its reduced chain (or a branch's closed chain)
                                   past 65,536 states, (n, L) too */
    SKEL_APPROX_PAR_SHAPE,      /* a branch of another shape (ending in a farm, a
                                   choice outside the branches) */
    SKEL_APPROX_PAR_LINKS,      /* link buffers or phases on some move */
    SKEL_APPROX_PAR_WIDE        /* its reduced chain past 24 components */
} skel_approx_par_past;

typedef struct skel_approx_result {
    double throughput;       /* the job's: items leaving the skeleton per second */
    int iterations;          /* sweeps done */
    double change;           /* relative change of the delays in the last sweep */
    int converged;           /* change <= tol */
    int bottleneck;          /* task of highest compute utilisation */
    double work;             /* sub-chain transitions rated, summed over the sweeps,
                                plus the sub-chains' solves in the same unit (a
                                rating's time): the cost, the same on any machine */
    int at_bound;            /* the fixed point fell (by less than 10%) below the
                                one-item-at-a-time lower bound, which is given */
    int whole;               /* 1: answered by one window of every task, which is
                                the model's exact chain (a small model, no
                                deadline: skel_approx_opts' whole_states,
                                cut_whole_states), not by the decomposition */
    unsigned long whole_explored;  /* explorations of the whole model as one window
                                the workspace has made since skel_approx_new (tried
                                first, again for new link kinds, as a fallback),
                                built or found past their bound: each derives up to
                                whole_states or cut_whole_states states, a cost that
                                work does not count (a par, choice or loop flow's:
                                those of its reduction's workspace) */
    int fes_branches;        /* fes: the reduced chain's branches */
    int fes_parts;           /* fes: the reduced chains, 1 or (past 65,536 states in
                                one) one per par block and one of the tasks outside
                                that none could hold, coupled by the rates each
                                measures for the others' moves */
    int fes_out;             /* fes: the states of the chains after the first (fes) */
    int fes_unmeasured;      /* fes, split: cut moves no chain measured (their source
                                state never had mass where both ends are held), run
                                at the move's own rate: the answer not converged */
    int fes_held;            /* fes: of them, those whose entry (and, one task
                                handing on to the last, its readiness) the chain
                                holds, (n, F, L, bit), or of one task (held whole);
                                the others (n, L) */
    int unsettled;           /* 1: under Sharing=ps a one-server loop's body never
                                settled (its stretches still moving after
                                AX_FLOW_PASSES evaluations): not converged, whatever
                                the last inner fixed point said */
    int fes_past;            /* a par block too large for one window answered by the
                                cut windows, which can be far off even converged
                                (-76% where measured): why, skel_approx_par_past;
                                0 none (or the exact chain, or the estimate) */
    int fes;                 /* non-zero: a par block too large for one window answered
                                by its reduced chain (each branch a flow-equivalent
                                server, FES(n,L): docs/approximation.md), of this many
                                states */
    int estimate;            /* non-zero: answered by the estimate of last resort (a
                                deal of deals whose windows cannot hold its round
                                robins, or whose fixed point failed), not a fixed
                                point (docs/approximation.md): SKEL_APPROX_EST_GRAPH
                                the event graph's max-plus recursion, sampled;
                                SKEL_APPROX_EST_EVENTS (not an event graph: a farm's
                                choice; or a node shared by two tasks or more under
                                processor sharing) the model's semantics sampled
                                event by event;
                                SKEL_APPROX_EST_PAIRS (par, choice, loop) a rough
                                estimate, unconverged (up to 29% off where measured:
                                neither a bound nor accurate), from the per-task cycles
                                with each move's two ends as a tandem without buffer */
    double half_width;       /* GRAPH, EVENTS: the throughput's 95% half-width
                                (its sampling, by batch means); 0: none given */
    long items;              /* GRAPH, EVENTS: the items sampled, warm-up included
                                (looks from 5,000 counted items, each about 1.5
                                times the last, until the half-width is within 1%
                                of the throughput, up to SKEL_APPROX_EST_WARM +
                                SKEL_APPROX_EST_ITEMS); 0: none */
} skel_approx_result;

/* The workspace for the task graph d (d must outlive it). opts may be
 * NULL. Par, choice and loop flows are covered (approx_flowm.c; loops over
 * several stages by d->serial, approx_flow.c). Returns NULL with a message
 * for a sub-chain above max_states. */
skel_approx *skel_approx_new(const skel_dag *d, const skel_approx_opts *opts, diag *err);
void skel_approx_free(skel_approx *a);       /* a may be NULL */

/* The throughput for the rates mu (ntasks: compute rates, as
 * skel_place_rates gives them) and lambda (nedges, the dag's edge order:
 * move rates). ps_node: under Sharing=ps, each task's node (mu is then its
 * rate alone on the node, and the tasks of a node that compute share it);
 * NULL under Sharing=static (mu already divided). Returns 0, or -1 with a
 * message (a rate not positive and finite, or a fixed point below the
 * one-item-at-a-time bound: deals of deals wider than a sub-chain).
 * Warm-starts from the previous evaluation. */
int skel_approx_eval(skel_approx *a, const double *mu, const double *lambda,
                     const int *ps_node, skel_approx_result *r, diag *err);

/* Replace opts.deadline for the evaluations to come (0: none). */
void skel_approx_set_deadline(skel_approx *a, double deadline);

/* After skel_approx_eval: per task, the estimated fraction of time it
 * computes and its computations per second (ntasks entries each). */
const double *skel_approx_task_util(const skel_approx *a);
const double *skel_approx_task_throughput(const skel_approx *a);

/* skel_place_rates for placement node_of_task on p, then skel_approx_eval
 * (allocates the two rate arrays). */
int skel_approx_place(skel_approx *a, const skel_model *m, const skel_platform *p,
                      const int *node_of_task, skel_approx_result *r, diag *err);

#endif
