/* skeleton/approx_link.h: the link components of the approximation's
 * windows (approx_link.c), for approx.c alone.
 *
 * A move with a buffer or with phases (docs/platform.md, "Links") is in
 * the generated model a component of its own between sender and receiver
 * (gen.c's Link_<i>_<j>, skel_link_graph). The approximation keeps it so:
 * in a window holding both of its tasks (or its task and the stream's
 * outside world) the link's local states multiply the window's; its
 * transitions are the ones below. A plain move (rendezvous, exponential)
 * has no component. */
#ifndef SKELSCHED_SKELETON_APPROX_LINK_H
#define SKELSCHED_SKELETON_APPROX_LINK_H

#include "../base/diag.h"
#include "skeleton.h"

typedef enum ax_lact {
    AX_LINK_MOVE,             /* the move (rendezvous) or the sender's hand-off (buffer) */
    AX_LINK_TAKE,             /* the receiver's take (buffer) */
    AX_LINK_XFER              /* a phase of the transfer advances */
} ax_lact;

typedef struct ax_ltrans {    /* a transition of one link's component */
    int to;
    ax_lact act;
    int handoff;              /* rate w * handoff; else w * lambda of the edge */
    double w;
} ax_ltrans;

typedef struct ax_links {
    int nedges, ntasks;
    double *scv;              /* per edge: the kinds built (skel_model's link_scv, buffer, or
                                 simpler: ax_links_simplify) */
    int *buffer;
    double *want_scv;         /* per edge: the kinds asked for (ax_links_same) */
    int *want_buffer;
    int *n;                   /* per edge: its component's states; 0: a plain move */
    int *s0;                  /* per edge: its first state in first[] */
    int *first;               /* per state: its transitions tr[first[k] .. first[k + 1]) */
    ax_ltrans *tr;
    int *tstart, *tedge;      /* per task: its edges that have a component */
} ax_links;

/* The components of every edge of d of kind scv / buffer (per edge; NULL:
 * all plain), each of at most max_states states. Returns 0, or -1 with a
 * message (memory, a component too large). L is zeroed by the caller. */
int ax_links_build(ax_links *L, const skel_dag *d, const double *scv, const int *buffer,
                   long max_states, diag *err);
void ax_links_free(ax_links *L);

/* Edge e's component made simpler, the move's mean time kept: phases
 * (Erlang, H2) become one exponential transit, else a buffer holds one
 * item less (none: a plain rendezvous); every component is rebuilt. Returns 1, 0 when e is
 * already plain, -1 with a message. */
int ax_links_simplify(ax_links *L, const skel_dag *d, int e, long max_states, diag *err);

/* 1 when L was built for these kinds (asked for, before any simplification). */
int ax_links_same(const ax_links *L, const double *scv, const int *buffer);

/* The kind of every move of d under placement node on p, as gen.c's
 * plan_links sets it for a placed model (the stream's input and output
 * moves never buffered). */
void ax_links_kinds(const skel_dag *d, const skel_platform *p, const int *node, double *scv,
                    int *buffer);

/* Edge e's transitions out of its local state l: *n of them. */
const ax_ltrans *ax_link_from(const ax_links *L, int e, int l, int *n);

/* The edges with a component that a window of tasks wt[0 .. nt) holds
 * (both ends in it, or one in it and the other the outside world), into
 * out (at most max): their number, or -1 when more. */
int ax_links_in(const ax_links *L, const skel_dag *d, const int *wt, int nt, int *out, int max);

/* The product of the states of the components of edges[0 .. n). */
unsigned long ax_links_states(const ax_links *L, const int *edges, int n);

#endif
