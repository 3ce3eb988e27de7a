/* skeleton/internal.h: helpers shared by the files of skeleton/ only. */
#ifndef SKELSCHED_SKELETON_INTERNAL_H
#define SKELSCHED_SKELETON_INTERNAL_H

#include <stddef.h>

#include "../base/diag.h"
#include "skeleton.h"

/* Least common multiple of a, b >= 1, or -1 when it exceeds cap (so that
 * callers never overflow and always have a bound to report). */
long skel_lcm(long a, long b, long cap);

/* Ties (docs/mapping.md, "Ties"): two throughputs within SKEL_TIE of each
 * other (relative) are equal; solvers answer to about 1e-12, so equal
 * values by symmetry differ in their last digits, and which one came out
 * larger must not decide anything. */
#define SKEL_TIE 1e-9
int skel_tied(double a, double b);
/* The bottleneck among n utilisations: the lowest index within SKEL_TIE of
 * the highest. */
int skel_argmax_tied(const double *u, int n);

/* Step k of flow f (skel_flow): its alternatives (1 without par/choice
 * steps); the only member of alternative alt, or -4 when it has more; the
 * alternative's probability (1.0 without weights). */
int skel_flow_nalts(const skel_flow *f, int k);
int skel_flow_sole(const skel_flow *f, int k, int alt);
double skel_flow_alt_weight(const skel_flow *f, int k, int alt);

/* When tree t has a par, choice or loop: d->serial, its serial reduction
 * (dag_serial.c), and d->serial_visits. Returns 0 or -1 with a message. */
int skel_dag_serial_attach(skel_dag *d, const skel_tree *t, diag *err);

/* The tasks the element at pass[at] (a preorder of skel_pass, as
 * d->pass) is entered at (last 0) or left from (last 1), each with its
 * probability: a task itself; a pipe its first (last) element's; a choice
 * its branches', weighted; a loop its body's (gen.c: the sender draws a
 * choice's branch, a choice first in a body or branch included). n -1:
 * more than SKEL_PASS_ENDS, or a par at the end. The one rule for
 * dag_serial.c's one-server bodies and approx_pass.c's moves (dag_serial.c). */
typedef struct skel_pass_ends {
    int n;
    int task[SKEL_PASS_ENDS];
    double p[SKEL_PASS_ENDS];
} skel_pass_ends;
void skel_pass_ends_of(const skel_pass *pass, int at, int last, skel_pass_ends *e);

/* Read a whole file ("-" is standard input) of at most max bytes into a
 * malloc'd, NUL-terminated buffer the caller frees. */
int skel_read_file(const char *path, size_t max, char **text, size_t *len, diag *err);

/* ---- local states of generated components (gen.c, share.c) ---------- */

/* One activity of a component's local state. Passive (task < 0, rate 0):
 * rate w * infty. Active (task >= 0): rate mu_<task> * w / div. A link's
 * activity (rate != 0): w * lambda of edge rate - 1 when rate > 0, w *
 * handoff when rate == SKEL_RATE_HANDOFF. */
#define SKEL_RATE_HANDOFF (-1)
typedef struct skel_ltr {
    int from, act, to;
    double w;
    int task;
    int div;
    int rate;
} skel_ltr;

typedef struct skel_lgraph {
    int nstates;              /* state 0 is the initial one */
    skel_ltr *tr;
    int ntr, cap;
} skel_lgraph;

/* Append t (growing through base/mem). Returns 0 or -1 (memory). */
int skel_lg_push(skel_lgraph *lg, skel_ltr t);

/* Group lg's transitions by source state, in the order they were made:
 * state s's are by[first[s] .. first[s + 1]) (first: nstates + 1 entries,
 * by: ntr). */
void skel_lg_group(const skel_lgraph *lg, int *first, skel_ltr *by);

/* Under processor sharing, the tasks placed on one node and their
 * processors become one component: the product of their local graphs,
 * actions of two members synchronised inside it, and each computation
 * (an active rate of a processor) divided by the number of tasks computing
 * in that state (a task computes in a local state that offers its comp
 * action, passively). */
typedef struct skel_share_in {
    int n;                        /* members: tasks and processors */
    const skel_lgraph *const *lg; /* their local graphs */
    const int *comp;              /* per member: a task's comp action id; -1 for a
                                     processor */
    int nactions;                 /* action ids are below this */
    long max_states;              /* refuse a larger product */
    int ngates;                   /* the loops' gates (Loop<k>): a gate */
    const skel_lgraph *const *gate; /* joins as a member when each of its
                                     actions is one member's, so that the
                                     product holds no more items in a loop
                                     than its cap lets in */
} skel_share_in;

/* Build the product into *out (zeroed by the caller; free out->tr).
 * Returns 0, 1 when it would exceed in->max_states, or -1 (memory). */
int skel_share_product(const skel_share_in *in, skel_lgraph *out);

/* The local graph of a loop's gate of cap items (gen.c's Loop<k>): state c
 * holds c items, enter[] moves add one, leave[] moves remove one, passive
 * (weight 1). *out zeroed by the caller. Returns 0 or -1 (memory). */
int skel_gate_graph(int cap, const int *enter, int nin, const int *leave, int nout,
                    skel_lgraph *out);

/* The component of one move with phases or a buffer (docs/platform.md):
 * cap 0, a rendezvous whose time has squared coefficient of variation scv
 * (Erlang phases advance by xfer while both tasks offer the move, the last
 * is the move; H2: two states, the branch of the next move drawn as this
 * one completes); cap > 0, a buffer of cap items: move (the sender's
 * hand-off) while it holds fewer than cap, each item in transit through
 * the phases of its own time (xfer; infinite server: items overlap), then
 * waiting for take (the receiver's). Rates on edge `edge`. */
typedef struct skel_link_in {
    int cap;
    double scv;
    int edge;
    int move, take, xfer;         /* action ids (take, xfer: -1 when unused) */
    long max_states;
} skel_link_in;

/* Build the graph into *out (zeroed by the caller; free out->tr). Returns
 * 0, 1 when it would exceed in->max_states, or -1 (memory). */
int skel_link_graph(const skel_link_in *in, skel_lgraph *out);

/* ---- exact lumping of interchangeable copies (lump.c) ---------------- */

typedef struct skel_lump_in {
    const skel_tree *tree;
    const skel_dag *dag;
    const double *mu, *lambda;    /* the placement's rates (skel_place_rates) */
    const double *scv, *entry;    /* per task (skel_model) */
    const int *node_share;        /* per task: its Node<j> product, or -1; or NULL */
    const unsigned char *plain;   /* per edge: an exponential rendezvous (no Link_
                                     component), which a copy may carry */
} skel_lump_in;

typedef struct skel_lump {
    int ngroups;
    int *group;      /* per task: the group of the copy holding it, or -1 */
    int *rep;        /* per task: its counterpart in its group's first copy
                        (itself outside groups and in first copies) */
    int *edge_rep;   /* per edge: the first copy's edge it stands for (itself
                        when it touches no later copy) */
    int *lo, *size, *count;   /* per group: first task of its first copy, tasks
                                 per copy, copies */
} skel_lump;

/* The groups of interchangeable farm members of a placed skeleton (see
 * lump.c for the conditions). Returns 0, or -1 (memory; out zeroed). */
int skel_lump_find(const skel_lump_in *in, skel_lump *out);
void skel_lump_free(skel_lump *l);

#endif
