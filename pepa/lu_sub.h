/* lu_sub: which of the multifrontal LU's supernodes two threads factorise
 * at once (pepa/lu.c, single precision on two threads); not a public
 * header.
 *
 * Below a separator of a nested-dissection ordering the elimination tree
 * splits into subtrees that share nothing: a subtree's fronts read only
 * its own fronts' contribution blocks and write only its own factors (a
 * subtree is a contiguous range of the postorder, so of the factors'
 * array). The plan cuts the tree into a top part (every ancestor of a cut
 * subtree; factorised after both threads are done, its large fronts
 * chunked on both threads as before, lu_par.h) and whole subtrees, dealt
 * to the caller and the helper so that their flops are about even. Each
 * thread keeps its subtrees' contribution blocks on a stack of its own,
 * and the top part on a third; the blocks a subtree leaves for the top
 * part stay where they are until the factorisation ends. The stacks'
 * sizes are found by walking the plan as the factorisation will. */
#ifndef SKELSCHED_PEPA_LU_SUB_H
#define SKELSCHED_PEPA_LU_SUB_H

#include <stddef.h>
#include <stdint.h>

typedef enum lu_sub_owner {
    LU_SUB_TOP,         /* after the two threads' subtrees, on the caller (fronts chunked) */
    LU_SUB_CALLER,      /* the calling thread's subtrees */
    LU_SUB_HELPER,      /* the helper thread's subtrees */
    LU_SUB_OWNERS
} lu_sub_owner;

typedef struct lu_sub_plan {
    unsigned char *owner;       /* per supernode, an lu_sub_owner */
    size_t peak[LU_SUB_OWNERS]; /* entries each one's stack needs */
    double flops[LU_SUB_OWNERS];
} lu_sub_plan;

/* The plan for ns supernodes in postorder (parent[s] > s, or -1 for a
 * root), front s taking fl[s] flops and leaving a contribution block of
 * cb[s] entries (0 for a root). Returns 1 with a plan, 0 when no cut
 * pays (a chain, or one subtree holding nearly all the flops) or the
 * order is not a postorder (checked: the plan deals ranges; the plan
 * is then all LU_SUB_TOP and p->owner NULL), -1 out of memory. */
int lu_sub_plan_make(int64_t ns, const int64_t *parent, const double *fl, const size_t *cb,
                     lu_sub_plan *p);
void lu_sub_plan_free(lu_sub_plan *p);

/* The children of each of ns supernodes (parent as above), ascending:
 * those of s are kid[kp[s] .. kp[s + 1]); kp has room for ns + 2 entries,
 * zeroed, and kid for ns. */
void lu_sub_children(int64_t ns, const int64_t *parent, int64_t *kp, int64_t *kid);

/* Test hooks, defined in lu.c. With the tree cut on two threads: run the
 * two threads' subtrees as lu_par.h's lu_par_order says (an int here:
 * lu_par.h is not included), and how many large fronts of owner's where
 * a thread to help was started (lu_par_team) in the last factorisation. */
typedef struct pepa_lu pepa_lu;
void lu_sub_test_order(pepa_lu *lu, int order);
int64_t lu_sub_offered(const pepa_lu *lu, int owner);

#endif
