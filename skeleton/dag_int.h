/* skeleton/dag_int.h: the task-graph builder's state, shared by the files
 * of the builder only (the public interface is skeleton.h, the method the
 * comment at the top of dag.c):
 *   dag.c        flows and one-step forms, connecting the components of a
 *                pipe, the walk over the tree, the edges, skel_dag_build
 *   dag_loop.c   loops: a loop's body at the walk, and the feedback patched
 *                in once every flow is known (dag_close_loops)
 */
#ifndef SKELSCHED_SKELETON_DAG_INT_H
#define SKELSCHED_SKELETON_DAG_INT_H

#include "internal.h"
#include "skeleton.h"
#include "../base/diag.h"

/* A loop over several stages, patched in once every flow is known. */
typedef struct pending {
    const skel_node *node;
    int lo, hi;
    double again;              /* probability of another iteration */
    skel_flow entry, exit_;    /* the body's entry and exit (copies) */
} pending;

typedef struct builder {
    const skel_tree *tree;
    skel_dag *dag;
    char *src_set, *dst_set;   /* per task: flow assigned already */
    double *leave;             /* per task: 1 - P(compute the item again) */
    pending *loops;
    int nloops, cap_loops;
    diag *err;
} builder;

/* A one-step flow being built, with alternatives and groups (par, choice,
 * loop): one member per task of each alternative. */
typedef struct member {
    int task, alt, grp;
    double w;
} member;

typedef struct form {
    member *v;
    int n, cap;
    int nalt;
} form;

/* dag.c: flows */
void dag_flow_free(skel_flow *f);
int dag_flow_len(const skel_flow *f);
int dag_flow_copy(skel_flow *to, const skel_flow *from, diag *err);

/* dag.c: forms */
void dag_form_free(form *f);
int dag_form_push(form *f, int task, int alt, int grp, double w, diag *err);
int dag_form_of_step(form *out, const skel_flow *f, int k, diag *err);
int dag_form_of(form *out, const skel_flow *f, diag *err);
double dag_alt_weight(const form *f, int alt);
int dag_form_append(form *out, const form *f, double scale, diag *err);
int dag_flow_of_form(skel_flow *out, const form *f, diag *err);

/* dag.c: a refusal at node n (fmt takes dag_word(n) or another word) */
int dag_refuse(builder *b, const skel_node *n, const char *fmt, const char *what);
const char *dag_word(const skel_node *n);   /* "par", "choice" or "loop" */

/* dag_loop.c */
int dag_walk_loop(builder *b, const skel_node *node, skel_flow *in, skel_flow *out,
                  int has_succ, skel_flow *entry, skel_flow *exit_);
int dag_close_loops(builder *b);

#endif
