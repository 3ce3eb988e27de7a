/* lu_sub: see lu_sub.h.
 *
 * The cut is found greedily: start with the roots as the subtrees, and
 * again and again move the subtree of most flops into the top part (its
 * root joins it, its children become subtrees), dealing the subtrees to
 * the two threads largest first, each to the one with fewer flops so far
 * (LPT). Each cut is priced as the flops of the busier thread plus the
 * top part's at LU_SUB_TOP_SHARE (its large fronts run chunked on both
 * threads); the cheapest of the roots' cut and the LU_SUB_TRIES after
 * it is kept. */
#include "lu_sub.h"

#include <stdlib.h>
#include <string.h>

/* The top part's flops count at this share of their time on one thread
 * (its fronts of 4e7 flops or more are chunked on both: 1.2-1.5 times as
 * fast, bench_solve lu2). */
#define LU_SUB_TOP_SHARE 0.75
/* Cuts tried, and the most subtrees a cut may deal. */
#define LU_SUB_TRIES 64
#define LU_SUB_MAX_FRONTIER 256
/* A cut is kept only if it prices at most this share of one thread's
 * flops: less would not pay for the stacks' memory. */
#define LU_SUB_WORTH 0.85

typedef struct sub_tree {
    int64_t ns;
    const int64_t *parent;
    const double *fl;
    double *sf;                 /* flops of the subtree under each supernode */
    int64_t *kp, *kid;          /* children, by pointers (ns + 1) */
    int64_t *first;             /* the subtree of s is first[s] .. s */
    int64_t *fr, nf;            /* the subtrees of the cut */
    int *group;                 /* per subtree of the cut: 0 caller, 1 helper */
    double top;                 /* the top part's flops */
} sub_tree;

static void sub_tree_free(sub_tree *t)
{
    free(t->group);
    free(t->fr);
    free(t->first);
    free(t->kid);
    free(t->kp);
    free(t->sf);
}

/* Subtree flops, children and first descendants, in one pass each. */
static int sub_tree_build(sub_tree *t)
{
    int64_t ns = t->ns;
    t->sf = malloc((size_t)ns * sizeof *t->sf);
    t->kp = calloc((size_t)ns + 2, sizeof *t->kp);
    t->kid = malloc((size_t)ns * sizeof *t->kid);
    t->first = malloc((size_t)ns * sizeof *t->first);
    t->fr = malloc((size_t)ns * sizeof *t->fr);
    t->group = malloc((size_t)ns * sizeof *t->group);
    if (!t->sf || !t->kp || !t->kid || !t->first || !t->fr || !t->group)
        return -1;
    for (int64_t s = 0; s < ns; s++) {
        t->sf[s] = t->fl[s];
        t->first[s] = s;
    }
    for (int64_t s = 0; s < ns; s++) {
        int64_t p = t->parent[s];
        if (p < 0)
            continue;
        t->sf[p] += t->sf[s];
        t->first[p] = t->first[s] < t->first[p] ? t->first[s] : t->first[p];
    }
    lu_sub_children(ns, t->parent, t->kp, t->kid);
    return 0;
}

/* Is the order a postorder, each subtree the range first[s] .. s? The
 * plan deals ranges, so a node inside one subtree's range but outside
 * the subtree would go to the wrong thread and be read before it is
 * written; uncut, the factorisation reports the order instead. Parents
 * above their children and subtree sizes (in fr, free until the cut). */
static int sub_postordered(sub_tree *t)
{
    int64_t *size = t->fr;
    for (int64_t s = 0; s < t->ns; s++)
        size[s] = 1;
    for (int64_t s = 0; s < t->ns; s++) {
        int64_t p = t->parent[s];
        if (p >= t->ns || (p >= 0 && p <= s))
            return 0;
        if (p >= 0)
            size[p] += size[s];
    }
    for (int64_t s = 0; s < t->ns; s++)
        if (t->first[s] != s - size[s] + 1)
            return 0;
    return 1;
}

/* The cut at the roots. */
static void sub_cut_roots(sub_tree *t)
{
    t->nf = 0;
    t->top = 0.0;
    for (int64_t s = 0; s < t->ns; s++)
        if (t->parent[s] < 0)
            t->fr[t->nf++] = s;
}

/* The subtree of most flops into the top part; 0 when none is left. */
static int sub_cut_deeper(sub_tree *t)
{
    if (t->nf == 0 || t->nf >= LU_SUB_MAX_FRONTIER)
        return 0;
    int64_t b = 0;
    for (int64_t k = 1; k < t->nf; k++)
        if (t->sf[t->fr[k]] > t->sf[t->fr[b]])
            b = k;
    int64_t x = t->fr[b];
    t->fr[b] = t->fr[--t->nf];
    t->top += t->fl[x];
    for (int64_t k = t->kp[x]; k < t->kp[x + 1]; k++)
        t->fr[t->nf++] = t->kid[k];
    return 1;
}

/* The cut's subtrees sorted by flops, largest first (ties: the lower
 * supernode first), and dealt (LPT); returns the busier thread's flops,
 * or -1 when one thread gets none. */
static double sub_deal(sub_tree *t)
{
    for (int64_t k = 1; k < t->nf; k++) {       /* insertion sort: a few hundred at most */
        int64_t x = t->fr[k], j = k;
        for (; j > 0 && (t->sf[t->fr[j - 1]] < t->sf[x]
                         || (t->sf[t->fr[j - 1]] == t->sf[x] && t->fr[j - 1] > x)); j--)
            t->fr[j] = t->fr[j - 1];
        t->fr[j] = x;
    }
    double g[2] = {0.0, 0.0};
    for (int64_t k = 0; k < t->nf; k++) {
        int h = g[1] < g[0];
        t->group[k] = h;
        g[h] += t->sf[t->fr[k]];
    }
    if (g[0] <= 0.0 || g[1] <= 0.0)
        return -1.0;
    return g[0] > g[1] ? g[0] : g[1];
}

/* How many steps deeper than the roots the cheapest cut is (-1: none
 * pays), the cut left at that depth. */
static int sub_best(sub_tree *t, double total)
{
    int best = -1;
    double bestc = LU_SUB_WORTH * total;
    sub_cut_roots(t);
    for (int k = 0; k <= LU_SUB_TRIES; k++) {
        double busy = sub_deal(t);
        double c = busy + LU_SUB_TOP_SHARE * t->top;
        if (busy > 0.0 && c < bestc) {
            bestc = c;
            best = k;
        }
        if (!sub_cut_deeper(t))
            break;
    }
    sub_cut_roots(t);                   /* again to the best, in the same steps */
    for (int k = 0; k < best; k++) {
        sub_deal(t);
        sub_cut_deeper(t);
    }
    if (best >= 0)
        sub_deal(t);
    return best;
}

/* The entries owner o's stack needs: its supernodes in order, each
 * front's block pushed above the blocks on the stack, then its children
 * that are on this stack popped (lu_front.h's supernode). */
static size_t sub_peak(int64_t ns, const int64_t *parent, const size_t *cb,
                       const unsigned char *owner, int o, int64_t *who, size_t *sz)
{
    size_t depth = 0, peak = 0;
    int64_t top = 0;
    for (int64_t s = 0; s < ns; s++) {
        if (owner[s] != o)
            continue;
        if (depth + cb[s] > peak)
            peak = depth + cb[s];
        while (top > 0 && parent[who[top - 1]] == s)
            depth -= sz[--top];
        if (cb[s] == 0)
            continue;
        who[top] = s;
        sz[top++] = cb[s];
        depth += cb[s];
    }
    return peak;
}

/* The owners from the cut dealt, and each owner's stack and flops. */
static int sub_fill(const sub_tree *t, const size_t *cb, lu_sub_plan *p)
{
    int64_t ns = t->ns, *who = malloc((size_t)ns * sizeof *who);
    size_t *sz = malloc((size_t)ns * sizeof *sz);
    p->owner = calloc((size_t)ns, 1);   /* LU_SUB_TOP is 0 */
    if (!who || !sz || !p->owner) {
        free(sz);
        free(who);
        return -1;
    }
    for (int64_t k = 0; k < t->nf; k++) {
        int64_t x = t->fr[k];
        for (int64_t s = t->first[x]; s <= x; s++)
            p->owner[s] = (unsigned char)(t->group[k] ? LU_SUB_HELPER : LU_SUB_CALLER);
    }
    for (int o = 0; o < LU_SUB_OWNERS; o++) {
        p->peak[o] = sub_peak(ns, t->parent, cb, p->owner, o, who, sz);
        p->flops[o] = 0.0;
    }
    for (int64_t s = 0; s < ns; s++)
        p->flops[p->owner[s]] += t->fl[s];
    free(sz);
    free(who);
    return 0;
}

int lu_sub_plan_make(int64_t ns, const int64_t *parent, const double *fl, const size_t *cb,
                     lu_sub_plan *p)
{
    sub_tree t = {.ns = ns, .parent = parent, .fl = fl};
    memset(p, 0, sizeof *p);
    int rc = ns > 0 && sub_tree_build(&t) == 0 ? 0 : -1;
    if (ns <= 0)
        rc = 0;
    double total = 0.0;
    for (int64_t s = 0; s < ns && rc == 0; s++)
        total += fl[s];
    if (rc == 0 && ns > 0 && sub_postordered(&t) && sub_best(&t, total) >= 0)
        rc = sub_fill(&t, cb, p) == 0 ? 1 : -1;
    sub_tree_free(&t);
    return rc;
}

/* Counted one place ahead, summed, then filled in ascending order. */
void lu_sub_children(int64_t ns, const int64_t *parent, int64_t *kp, int64_t *kid)
{
    for (int64_t s = 0; s < ns; s++)
        if (parent[s] >= 0)
            kp[parent[s] + 2]++;
    for (int64_t s = 0; s < ns; s++)
        kp[s + 2] += kp[s + 1];
    for (int64_t s = 0; s < ns; s++)
        if (parent[s] >= 0)
            kid[kp[parent[s] + 1]++] = s;
}

void lu_sub_plan_free(lu_sub_plan *p)
{
    free(p->owner);
    memset(p, 0, sizeof *p);
}
