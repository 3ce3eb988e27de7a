/* skeleton/gen_int.h: the PEPA generator's state, shared by the files of
 * the generator only (skeleton/gen*.c; the public interface is skeleton.h,
 * the model docs/pepa.md):
 *   gen.c          the public entry: the plan of a placed model (sharing,
 *                  links, lumping), the actions and rates, the build order
 *   gen_task.c     a task's local graph (Algorithm 2's templates)
 *   gen_states.c   a local graph written as PEPA definitions
 *   gen_product.c  product components: Node<j> (Sharing=ps), lumped copies
 *   gen_gate.c     the loops' gates: Loop<k>, and their graphs in a product
 *   gen_system.c   Processor<i>, Network, the links, the system equation
 */
#ifndef SKELSCHED_SKELETON_GEN_INT_H
#define SKELSCHED_SKELETON_GEN_INT_H

#include <stddef.h>

#include "internal.h"
#include "skeleton.h"
#include "../base/diag.h"

typedef struct gen {
    const skel_tree *tree;
    const skel_dag *dag;
    skel_model *m;
    pepa_model *pm;
    int *comp;        /* per task: action id of comp_<i> */
    int *move;        /* per edge: action id of its move */
    int *in_edge;     /* per task: edge index of its input move, or -1 */
    int gate_acts;    /* actions of the last gate made */
    const skel_platform *plat;   /* set for a placed model (skel_model_new_placed) */
    const int *place;
    int *node_share;  /* per task: its node when it is one of several on it
                         under Sharing=ps (one product component), else -1 */
    skel_lgraph *lgs;  /* per task: its local graph, kept for the products */
    skel_lgraph *plgs; /* per task: its processor's, likewise */
    int *work;        /* per task: action id of work_<i> (its Erlang phases), or -1 */
    int *take;        /* per edge: the receiver's action (take_<i>_<j> when buffered,
                         else the move) */
    int *xfer;        /* per edge: action id of xfer_<i>_<j> (phases, transit), or -1 */
    int lumping;      /* lump interchangeable copies (skel_model_new_lumped) */
    skel_lump lump;   /* their groups (ngroups 0: none) */
    diag *err;
} gen;

typedef skel_ltr ltr;
typedef skel_lgraph lgraph;

/* gen.c: questions asked of the plan, and names */
int gen_grouped(const gen *g, int i);      /* task i is in a lumped group */
int gen_later_copy(const gen *g, int i);   /* ... in one of its copies after the first */
int gen_lumped_edge(const gen *g, int k);  /* edge k is a later copy's */
int gen_copy_edge(const gen *g, int k);    /* edge k is carried by a lumped copy */
void gen_add_act(int *acts, int *n, int a);
int gen_edge_plain(const gen *g, int e);   /* a rendezvous of exponential time */
int gen_in_network(const gen *g, int e);   /* Network offers edge e's move */
int gen_add_sync(const gen *g, int e, int *acts, int n);
int gen_oom(gen *g);
void gen_edge_name(char *buf, size_t n, const char *prefix, skel_edge e);
extern const pepa_pos gen_nopos;           /* generated: no source position */

/* gen_task.c */
int gen_task(gen *g, int i);               /* Task<i>, or its graph kept in lgs[i] */

/* gen_states.c */
int gen_define_states(gen *g, const lgraph *lg, const char *prefix, int i);
int gen_define_product(gen *g, const lgraph *prod, const char *prefix, int i);

/* gen_product.c */
int gen_define_nodes(gen *g);              /* Node<j> of every shared node */
int gen_define_groups(gen *g);             /* Task<i> or Copy<i> of every lumped group */

/* gen_gate.c */
int gen_gate_graphs(const gen *g, lgraph *gls, int ng);
pepa_proc *gen_gate(gen *g, int k, int *acts);   /* Loop<k>; its set in acts */

/* gen_system.c */
int gen_define_resources(gen *g, pepa_proc **procs, pepa_proc **net);
int gen_system(gen *g, pepa_proc *procs, pepa_proc *net, int shared);

#endif
