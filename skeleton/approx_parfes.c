/* skeleton/approx_parfes.c: a par block too large for one window, its
 * branches reduced to flow-equivalent servers (FES(n,L), issue 15).
 *
 * Each branch of k >= 2 tasks (a pipe, or since 2026-11-27 any tasks
 * entered by one from the fork and left by one to the join: a par, choice,
 * farm or deal nested in it) is closed on itself with n = 1..cap items (an
 * item its last task hands on enters its first task at once when that is
 * free) and solved alone; R(n, q), the rate of the last task's receive q
 * (one for a pipe's last task, one per branch and partial receipt for an
 * inner join), is the flow of q over the probability that the last task is
 * in q's source state. The reduced chain holds every
 * other task with its own local machine (the fork, the join, the tasks
 * before and after, each branch's last task: their computations, Erlang
 * and H2 phases, and their moves with each other exact) and per branch
 * the items n in it: the fork hands the branch an item while n < cap, the
 * last task receives at R(n, q) while n > 0, its hand-on to the join
 * takes one out. The state a window holds per branch is (n, the last
 * task's local state), not the branch's product: parbig.skel's 672,714
 * exact states are 4,393 so (docs/approximation.md "Par blocks too large
 * for one window"; the Python prototype measured FES(n) alone -20..-35%).
 * Since 2026-11-28 (branch festail) the reduced chain also holds each
 * branch's entry task and a bit, whether the task handing on to the last
 * is ready, (n, F, L, bit), where that stays within hold_max states: the
 * fork then waits for a free entry, the entry sends into the branch at
 * S(n, l, bit), the sender gets ready at D(n, f, l) and the last task
 * receives from a ready one at the move's rate, each conditional rate the
 * closed chain's given the ends' states (held_rates).
 * Private header approx_int.h. */
#include "approx_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

#define FES_COMP (AX_WMAX + 8)   /* components of one chain */
#define FES_HOLD_MAX AX_COUNT_MAX   /* the reduced chain's states with entries held */

typedef enum fes_kind {
    FES_MU,
    FES_LAMBDA,
    FES_R,                    /* a branch's last task receives from the branch */
    FES_S,                    /* a held entry task sends into the branch's middle */
    FES_D,                    /* the exit's sender gets ready to hand on (the bit) */
    FES_CUT                   /* split: a move with a task another part holds, at the
                                 rate the part holding both ends measured (cut_rate) */
} fes_kind;

/* explore's answers (and -1, out of memory) */
/* explore's answers (and -1, out of memory), and why a block is not
 * reduced (then the cut windows answer it: skel_approx_result.fes_past) */
enum { FES_EXPLORED = 0, FES_PAST_LIMIT = 1, FES_OUT_OF_TIME = 2, FES_TOO_WIDE = 3,
       FES_NOT_SHAPE = 4, FES_LINKS = 5 };

typedef struct fes_tr {       /* a transition of a reduced or closed chain */
    int from, to;
    fes_kind kind;
    int idx;                  /* FES_MU: the task, FES_LAMBDA: the edge, FES_R: the branch,
                                 FES_CUT: the held task's local transition (a->ltr) */
    int n;                    /* FES_R: the items in the branch; FES_MU: 1 when an item
                                 completes (its last phase) */
    int meas;                 /* counted: an entry task's item done (reduced), the
                                 move into the last task (closed) */
    int pos;                  /* FES_MU: the computing task's position; FES_R: the last
                                 task's local transition (its index among its own) */
    unsigned busy;            /* FES_MU: the positions computing in the source state */
    double w;
    int fl;                   /* reduced, the branch's entry held: FES_R and FES_D the
                                 entry's local state, FES_S the last task's */
    int fs;                   /* closed: 1 + the entry's local transition when the
                                 entry sends into the branch, else 0; reduced FES_S:
                                 the branch's bit */
    int lq[2];                /* reduced: 1 + the local transitions (a->ltr) of the
                                 move's held ends, 0 none (0 the default of every
                                 literal that leaves them out: never ltr[0]) */
} fes_tr;

typedef struct fes_chain {
    int n, ntr, cap;
    int np, ptask[FES_COMP];  /* positions holding a task: their tasks */
    int ncomp, rad[FES_COMP]; /* the states' codes: components, radices */
    int64_t *code;            /* per state */
    unsigned *sbusy;          /* per state: the positions computing */
    double fac[FES_COMP][FES_COMP + 1];   /* ps, per position and count c of the
                                 other positions computing on its node: E[1 / (1 + c
                                 + N)], N its node's other tasks outside this chain
                                 computing (independent, at their busy probabilities) */
    fes_tr *tr;               /* sorted by target */
    int *first;               /* per state: its incoming tr[first[s] .. first[s + 1]) */
    int *lst;                 /* closed: per state, the last task's local state */
    int *fst, *outk, *rdy;    /* closed: per state, the entry's local state, the items
                                 outside, whether the exit's sender is ready (bit) */
    int minout;               /* closed: the fewest items outside in a state */
    double *out, *rate, *pi;  /* per state, per transition, per state */
} fes_chain;

typedef struct fes_branch {
    int k;                    /* tasks */
    int cap;                  /* items it holds at most (k for a pipe; fewer with a
                                 par inside, whose branches hold one item between them) */
    int task[AX_WMAX];        /* the entry first, the last (to the join) last */
    int fork;                 /* its fork */
    int ein, eout;            /* fork -> entry, last -> join */
    int nq;                   /* the last task's local transitions */
    fes_chain *closed;        /* k >= 2: per n = 1..cap, closed[n - 1] */
    int hold;                 /* the entry (first task) held in the reduced chain,
                                 (n, F, L): the fork hands on only when it is free */
    int nf, nl, nu;           /* the entry's local states, the last task's, the
                                 entry's local transitions */
    int bit;                  /* held, and the reduced chain keeps whether the task
                                 handing on to the last (the exit's sender) is ready:
                                 (n, F, L, bit) */
    int ppos, eP;             /* the exit's sender's position, its edge to the last
                                 task (-1 none) */
    double *D;                /* bit: per n, f, l, the rate the sender gets ready,
                                 D[(n * nf + f) * nl + l] */
    double *R;                /* per n = 0..cap, entry state f (0 unless held) and
                                 local transition q of the last task receiving from
                                 the branch: R[(n * nf' + f) * nq + q], nf' = nf held
                                 else 1, its rate given n and the ends' states */
    double *scratch;          /* held_rates' sums: 2 sums_size */
    double *S;                /* held: per n, last task state l and the entry's local
                                 transition u sending into the branch, S[(n * nl + l)
                                 * nu + u], its rate given n and the ends' states */
    double *busy;             /* per n = 1..cap and task q: its seconds computing per
                                 item, closed at n (P(q computes) over the flow of the
                                 closed chain's moves into the last task; the reduced
                                 chain's R moves are counted alike), busy[(n - 1) * k + q] */
} fes_branch;

/* One reduced chain: every task outside the branches and every branch's
 * count while that is within the cap (part 0 alone); past it, one chain
 * per block (its fork, join, branches' last tasks and counts, and the
 * tasks outside nearest to it while within the cap) and one of the tasks
 * outside that none could hold, with their partners (docs/approximation.md
 * "Tasks outside the block past the cap"). A move with a task the part
 * does not hold runs at the rate the part holding both ends measured
 * (FES_CUT); every such move has one (cover_cuts). */
typedef struct fes_part {
    int id;                   /* its index in ax_fes.part */
    int cuts;                 /* a split part: a task it does not hold is another
                                 part's (FES_CUT), not the world */
    int *pos;                 /* per task: its position in the chain, -1 none */
    int *cpos, *bpos;         /* per branch: its count's component (cap + 1 values, 1
                                 for k = 1 or another part's branch) and its bit's (2
                                 values, 1 without): every branch has both, in every
                                 part (a slot of -1 was a write before loc) */
    int nc, nheld;            /* components: the held tasks, then counts, then bits */
    int comp[FES_COMP];       /* held task or branch */
    int rad[FES_COMP];
    fes_chain red;
} fes_part;

struct ax_fes {
    int nb;
    fes_branch *br;
    int *bof;                 /* per task: its branch, -1 none */
    int npart;                /* the reduced chains: 1, or the blocks' and the outside one */
    fes_part *part;           /* nb + 1 of them allocated */
    int *owner;               /* per task: the part counting its completions and busy */
    int *bpart;               /* per branch: the part holding its count */
    int *mpart;               /* per local transition (a->ltr): the part holding both
                                 its ends, which measures its rate for the others; -1
                                 none (a move with the world) */
    double *cut;              /* per local transition: the rate mpart measured */
    char *cutset;             /* ... measured (its source state had mass): else lambda */
    double *flow, *occ;       /* part_measure's scratch: per local transition, per
                                 task's local state (a->loff) */
};

/* Task i is a plain stage: one source step of one member, one destination
 * step of one member, no alternative. */
static int plain(const skel_dag *d, int i)
{
    const skel_flow *S = &d->src[i], *D = &d->dst[i];
    return S->nsteps == 1 && D->nsteps == 1 && S->start[1] == 1 && D->start[1] == 1;
}

/* Task t's members of flow F all in [lo, hi), none t itself (a loop) or
 * none (consumed); a member c (the join) counted in *to_c instead. */
static int members_inside(const skel_flow *F, int t, int lo, int hi, int c, int *to_c)
{
    for (int j = 0; j < (F->nsteps ? F->start[F->nsteps] : 0); j++) {
        int m = F->tasks[j];
        if (c >= 0 && m == c)
            (*to_c)++;
        else if (m < lo || m >= hi || m == t)
            return 0;
    }
    return 1;
}

/* Whether a loop's gate holds a task of [lo, hi). */
static int gated(const skel_dag *d, int lo, int hi)
{
    for (int g = 0; g < d->ngates; g++)
        if (d->gates[g].lo < hi && d->gates[g].hi > lo)
            return 1;
    return 0;
}

/* Branch b of fork p: the tasks [x, hi) (depth-first numbers put a
 * branch's tasks, a par, choice or farm nested in it included, between
 * its first task and the next branch's), entered by x alone from p, left
 * by one task alone (the last), to the join c, every other move inside. */
static int collect_branch(const skel_approx *a, int p, int x, int hi, int c, fes_branch *b)
{
    const skel_dag *d = a->d;
    int last = -1;
    b->k = 0;
    if (hi - x > AX_WMAX || hi <= x || gated(d, x, hi) || d->src[x].nsteps != 1 ||
        d->src[x].start[1] != 1 || d->src[x].tasks[0] != p)
        return -1;
    for (int t = x; t < hi; t++) {
        int to_c = 0;
        if ((t != x && !members_inside(&d->src[t], t, x, hi, -1, &to_c)) ||
            !members_inside(&d->dst[t], t, x, hi, c, &to_c))
            return -1;
        if (to_c && (last >= 0 || d->dst[t].nsteps != 1 || d->dst[t].start[1] != 1))
            return -1;        /* one task alone hands on to the join */
        last = to_c ? t : last;
        if (t != last || t == hi - 1)
            b->task[b->k++] = t;
    }
    if (last < 0 || (last == x && hi - x > 1) || (hi - x == 1 && !plain(d, x)))
        return -1;
    if (last != hi - 1)       /* the last task last, the entry first */
        b->task[b->k++] = last;
    b->fork = p;
    b->ein = skel_dag_edge(d, p, x);
    b->eout = skel_dag_edge(d, last, c);
    b->nq = a->lstart[last + 1] - a->lstart[last];
    b->cap = b->k;
    return b->ein < 0 || b->eout < 0 ? -1 : 0;
}

/* The position of task y in branch b, -1 none. */
static int branch_pos(const fes_branch *b, int y)
{
    for (int q = 0; q < b->k; q++)
        if (b->task[q] == y)
            return q;
    return -1;
}

static void fes_free_chain(fes_chain *c)
{
    free(c->code);
    free(c->sbusy);
    free(c->tr);
    free(c->first);
    free(c->lst);
    free(c->fst);
    free(c->outk);
    free(c->rdy);
    free(c->out);
    free(c->rate);
    free(c->pi);
}

void ax_fes_free(struct ax_fes *f)
{
    if (!f)
        return;
    for (int b = 0; b < f->nb; b++) {
        for (int n = 0; f->br[b].closed && n < f->br[b].k; n++)
            fes_free_chain(&f->br[b].closed[n]);
        free(f->br[b].closed);
        free(f->br[b].R);
        free(f->br[b].S);
        free(f->br[b].scratch);
        free(f->br[b].D);
        free(f->br[b].busy);
    }
    free(f->br);
    free(f->bof);
    for (int p = 0; f->part && p <= f->nb; p++) {
        free(f->part[p].pos);
        free(f->part[p].cpos);
        free(f->part[p].bpos);
        fes_free_chain(&f->part[p].red);
    }
    free(f->part);
    free(f->owner);
    free(f->bpart);
    free(f->mpart);
    free(f->cut);
    free(f->cutset);
    free(f->flow);
    free(f->occ);
    free(f);
}

/* The join of fork p: the last task of its block (ax_par_blocks). */
static int join_of_fork(const skel_approx *a, int p)
{
    int c = -1;
    for (int t = p + 1; t < a->ntasks; t++)
        c = a->dblk[t] == p ? t : c;
    return c;
}

/* The branches of fork p: from each member of its first send step up to
 * the next one's (sorted) or the join. */
static int fork_branches(const skel_approx *a, struct ax_fes *f, int p)
{
    const skel_flow *D = &a->d->dst[p];
    int c = join_of_fork(a, p);
    for (int j = 0; j < D->start[1]; j++) {
        int x = D->tasks[j], hi = c;
        for (int i = 0; i < D->start[1]; i++)
            hi = D->tasks[i] > x && D->tasks[i] < hi ? D->tasks[i] : hi;
        if (mem_grow((void **)&f->br, (size_t)f->nb + 1, sizeof *f->br) < 0)
            return -1;
        fes_branch *b = &f->br[f->nb];
        memset(b, 0, sizeof *b);
        if (c < 0 || x < 0 || collect_branch(a, p, x, hi, c, b) < 0)
            return FES_NOT_SHAPE;
        for (int q = 0; q < b->k; q++)
            f->bof[b->task[q]] = f->nb;
        f->nb++;
    }
    return 0;
}

/* The branches of every outermost fork (a par nested in a branch is the
 * branch's, solved in its closed chains); 1 when some branch is not of
 * this shape, or a choice is not inside a branch. */
static int find_branches(const skel_approx *a, struct ax_fes *f)
{
    for (int p = 0; p < a->ntasks; p++) {
        if (!ax_par_fork(a, p) || f->bof[p] >= 0)
            continue;
        int rc = fork_branches(a, f, p);
        if (rc != 0)
            return rc;
    }
    for (int i = 0; i < a->ntasks; i++)
        if (f->bof[i] < 0 && ((a->d->src[i].nsteps && skel_flow_nalts(&a->d->src[i], 0) > 1) ||
                              (a->d->dst[i].nsteps && skel_flow_nalts(&a->d->dst[i], 0) > 1)))
            return FES_NOT_SHAPE;   /* a choice outside the branches */
    return f->nb > 0 ? 0 : FES_NOT_SHAPE;
}

/* Branch components of kind 0 (counts, cap + 1 values, 1 for k = 1) or
 * 1 (bits, 2 values, 1 without the bit), each into part pt's cpos or
 * bpos: FES_TOO_WIDE past FES_COMP. Every branch takes both slots, even
 * with one value (another part's branch: 1): red_alone and red_exits read
 * loc[cpos] and write loc[bpos] of any branch (a slot of -1 was a write
 * before loc). */
static int layout_branch(const struct ax_fes *f, fes_part *pt, int bit)
{
    for (int b = 0; b < f->nb; b++) {
        const fes_branch *B = &f->br[b];
        int mine = f->bpart[b] == pt->id;
        if (pt->nc == FES_COMP)
            return FES_TOO_WIDE;
        (bit ? pt->bpos : pt->cpos)[b] = pt->nc;
        pt->comp[pt->nc] = b;
        pt->rad[pt->nc++] = !mine ? 1 : bit ? (B->bit ? 2 : 1) : (B->k > 1 ? B->cap + 1 : 1);
    }
    return 0;
}

/* Whether task i is a branch's inner task: neither its last nor its held
 * entry (its branch's closed chains hold it). */
static int fes_inner(const struct ax_fes *f, int i)
{
    int b = f->bof[i];
    return b >= 0 && f->br[b].task[f->br[b].k - 1] != i &&
           !(f->br[b].hold && f->br[b].task[0] == i);
}

/* The components of part pt's chain: the tasks in[] marks, then the
 * branches' counts, then their bits; FES_TOO_WIDE past FES_COMP. */
static int layout(const skel_approx *a, const struct ax_fes *f, fes_part *pt, const char *in)
{
    pt->nc = 0;
    for (int i = 0; i < a->ntasks; i++) {
        pt->pos[i] = -1;
        if (!in[i])
            continue;
        if (pt->nc == FES_COMP)
            return FES_TOO_WIDE;
        pt->pos[i] = pt->nc;
        pt->comp[pt->nc] = i;
        pt->rad[pt->nc++] = a->nloc[i];
    }
    pt->nheld = pt->nc;
    int rc = layout_branch(f, pt, 0);
    return rc ? rc : layout_branch(f, pt, 1);
}

/* ---- the explorer: states as mixed-radix codes, an open-addressed table */

typedef struct fes_gen {
    const skel_approx *a;
    const struct ax_fes *f;
    const fes_branch *cb;     /* closed: the branch; NULL: the reduced chain */
    const fes_part *pt;       /* the reduced chain's part (cb NULL) */
    int nc, rad[FES_COMP];
    int64_t *code;            /* per state */
    int n, cap;
    ax_hash h;                /* code -> state */
    fes_chain *c;
    int limit;
    unsigned sbusy;           /* the positions computing in the state expanded */
} fes_gen;

static int64_t encode(const fes_gen *g, const int *loc)
{
    int64_t s = 0;
    for (int p = g->nc - 1; p >= 0; p--)
        s = s * g->rad[p] + loc[p];
    return s;
}

static void decode(const fes_gen *g, int64_t s, int *loc)
{
    for (int p = 0; p < g->nc; p++) {
        loc[p] = (int)(s % g->rad[p]);
        s /= g->rad[p];
    }
}

#define FES_STATE_PAST (-2)   /* state_of: past the limit */
#define FES_STATE_LATE (-3)   /* explore: past the deadline */

/* The index of state loc, added when new; -1 out of memory, FES_STATE_PAST. */
static int state_of(fes_gen *g, const int *loc)
{
    int64_t s = encode(g, loc);
    int found = ax_hash_find(&g->h, s);
    if (found >= 0)
        return found;
    if (g->n == g->limit)
        return FES_STATE_PAST;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        if (mem_grow((void **)&g->code, (size_t)g->cap, sizeof *g->code) < 0)
            return -1;
    }
    if (ax_hash_put(&g->h, s, g->n) < 0)
        return -1;
    g->code[g->n] = s;
    return g->n++;
}

/* A transition from state s into loc: its target found or added. */
static int emit(fes_gen *g, int s, const int *loc, fes_tr t)
{
    int to = state_of(g, loc);
    if (to < 0)
        return to;
    fes_chain *c = g->c;
    if (to == s)
        return 0;             /* a self-loop: no flow */
    if (c->ntr == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        if (mem_grow((void **)&c->tr, (size_t)c->cap, sizeof *c->tr) < 0)
            return -1;
    }
    t.from = s;
    t.to = to;
    t.busy = g->sbusy;
    c->tr[c->ntr++] = t;
    return 0;
}

/* ---- the closed chain of a branch: its tasks, then the items outside */

/* Closed: an item waiting outside enters the first task at once when it
 * waits for one (its receive's weights: an H2 work's branch). */
static int emit_closed(fes_gen *g, int s, int *loc, fes_tr t)
{
    const skel_approx *a = g->a;
    int k = g->cb->k, x = g->cb->task[0], rc = 0, hit = 0, l = loc[0];
    if (loc[k] > 0)
        for (int q = a->lstart[x]; q < a->lstart[x + 1] && rc == 0; q++) {
            const ax_ltr *u = &a->ltr[q];
            if (u->from != l || u->edge != g->cb->ein || u->send)
                continue;
            hit = 1;
            loc[0] = u->to;
            loc[k]--;
            fes_tr v = t;
            v.w *= u->w;
            rc = emit(g, s, loc, v);
            loc[0] = l;
            loc[k]++;
        }
    return hit ? rc : emit(g, s, loc, t);
}

/* Task at position i of the closed branch, in loc, moves or computes by
 * local transition u: a computation, the last task's hand-on (an item
 * out), or a rendezvous with the task of the branch receiving (each of
 * its matching receives; counted, meas = 1 + its index, when that is the
 * last task). */
static int closed_step(fes_gen *g, int s, int *loc, int i, const ax_ltr *u)
{
    const skel_approx *a = g->a;
    const fes_branch *b = g->cb;
    int k = b->k, was = loc[i], rc = 0;
    if (u->edge < 0 || u->edge == b->eout) {
        loc[i] = u->to;
        loc[k] += u->edge >= 0;
        rc = emit_closed(g, s, loc,
                         (fes_tr){ 0, 0, u->edge < 0 ? FES_MU : FES_LAMBDA,
                                   u->edge < 0 ? b->task[i] : u->edge, u->done, 0, i, 0,
                                   u->w, 0, 0, { 0, 0 } });
        loc[k] -= u->edge >= 0;
    } else if (u->send) {
        int py = branch_pos(b, ax_partner(a, u)), y = py >= 0 ? b->task[py] : -1;
        int ly = py >= 0 ? loc[py] : 0;
        for (int q = py >= 0 ? a->lstart[y] : 0; py >= 0 && q < a->lstart[y + 1] && rc == 0;
             q++) {
            const ax_ltr *v = &a->ltr[q];
            if (v->from != ly || v->edge != u->edge || v->send)
                continue;
            loc[i] = u->to;
            loc[py] = v->to;
            int meas = py == k - 1 ? 1 + q - a->lstart[y] : 0;
            int fs = i == 0 ? 1 + (int)(u - &a->ltr[a->lstart[b->task[0]]]) : 0;
            rc = emit_closed(g, s, loc, (fes_tr){ 0, 0, FES_LAMBDA, u->edge, 0, meas, 0, 0,
                                                  u->w * v->w, 0, fs, { 0, 0 } });
            loc[py] = ly;
        }
    }
    loc[i] = was;
    return rc;
}

static int closed_succ(fes_gen *g, int s, int *loc)
{
    const skel_approx *a = g->a;
    for (int i = 0; i < g->cb->k; i++) {
        int x = g->cb->task[i];
        for (int q = a->lstart[x]; q < a->lstart[x + 1]; q++) {
            if (a->ltr[q].from != loc[i] || (a->ltr[q].edge >= 0 && !a->ltr[q].send))
                continue;
            int rc = closed_step(g, s, loc, i, &a->ltr[q]);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* ---- the reduced chain */

/* Held task x (position p) moves by u with task y, held by another part
 * (a split part): at the rate the part holding both ends measured. */
static int red_cut(fes_gen *g, int s, int *loc, int p, const ax_ltr *u)
{
    int was = loc[p], lq = (int)(u - g->a->ltr);
    loc[p] = u->to;
    int rc = emit(g, s, loc, (fes_tr){ .kind = FES_CUT, .idx = lq, .w = 1.0,
                                       .lq = { 1 + lq, 0 } });
    loc[p] = was;
    return rc;
}

/* Held task x (position p) moves on edge e with a partner outside it:
 * the world, a branch's first task (the count goes up while below cap), or
 * (receiving) a branch's inner task (the last task takes an item at R(n));
 * in a split part, a task another part holds (red_cut). */
static int red_alone(fes_gen *g, int s, int *loc, int p, const ax_ltr *u)
{
    const struct ax_fes *f = g->f;
    const fes_part *pt = g->pt;
    skel_edge e = g->a->d->edges[u->edge];
    int y = u->send ? e.to : e.from, b = y >= 0 ? f->bof[y] : -1;
    if (pt->cuts && y >= 0 && (b < 0 || f->bpart[b] != pt->id))
        return red_cut(g, s, loc, p, u);
    int cp = b >= 0 ? pt->cpos[b] : -1, rc = 0, was = loc[p];
    int q = (int)(u - &g->a->ltr[g->a->lstart[pt->comp[p]]]), lq = 1 + (int)(u - g->a->ltr);
    const fes_branch *B = b >= 0 ? &f->br[b] : NULL;
    fes_tr t = { 0, 0, FES_LAMBDA, u->edge, 0, 0, 0, 0, u->w, 0, 0, { lq, 0 } };
    int bc = b >= 0 ? pt->bpos[b] : -1, bit = bc >= 0 ? loc[bc] : 0;
    if (B && B->hold && B->task[0] == pt->comp[p]) {   /* the held entry, into the branch */
        t = (fes_tr){ 0, 0, FES_S, b, loc[cp], 0, q, 0, 1.0, loc[pt->pos[B->task[B->k - 1]]],
                      bit, { lq, 0 } };
        b = -1;               /* the count stays: the item is still in the branch */
    } else if (b >= 0 && u->send && loc[cp] == B->cap)
        return 0;             /* the branch holds all it can: the fork waits */
    else if (b >= 0 && !u->send) {   /* the last task's receive u, at R(n, f, u) */
        if (loc[cp] == 0 || (B->bit && !bit))
            return 0;         /* with the bit: only from a ready sender, clearing it */
        t = (fes_tr){ 0, 0, FES_R, b, loc[cp], 0, q, 0, B->bit ? u->w : 1.0,
                      B->hold ? loc[pt->pos[B->task[0]]] : 0, 0, { lq, 0 } };
        loc[bc] = 0;
    }
    loc[p] = u->to;
    if (b >= 0 && u->send)
        loc[cp]++;
    rc = emit(g, s, loc, t);
    if (b >= 0 && u->send)
        loc[cp]--;
    if (bc >= 0)
        loc[bc] = bit;
    loc[p] = was;
    return rc;
}

/* ... with held partner y: a rendezvous; a branch's last task handing on
 * takes an item out of its count. */
static int red_pair(fes_gen *g, int s, int *loc, int p, const ax_ltr *u, int y)
{
    const skel_approx *a = g->a;
    const struct ax_fes *f = g->f;
    const fes_part *pt = g->pt;
    int x = pt->comp[p], py = pt->pos[y], ly = loc[py], was = loc[p], rc = 0;
    int b = f->bof[x], by = f->bof[y];
    int cp = b >= 0 && f->br[b].k > 1 && f->br[b].task[f->br[b].k - 1] == x &&
                     f->bpart[b] == pt->id
                 ? pt->cpos[b]
                 : -1;
    int cy = by >= 0 && by != b && f->br[by].hold ? pt->cpos[by] : -1;   /* into an entry */
    if (cy >= 0 && loc[cy] == f->br[by].cap)
        return 0;
    for (int q = a->lstart[y]; q < a->lstart[y + 1] && rc == 0; q++) {
        const ax_ltr *v = &a->ltr[q];
        if (v->from != ly || v->edge != u->edge || v->send)
            continue;
        loc[p] = u->to;
        loc[py] = v->to;
        loc[cp >= 0 ? cp : p] -= cp >= 0;
        loc[cy >= 0 ? cy : p] += cy >= 0;
        rc = emit(g, s, loc,
                  (fes_tr){ 0, 0, FES_LAMBDA, u->edge, 0, 0, 0, 0, u->w * v->w, 0, 0,
                            { 1 + (int)(u - a->ltr), 1 + q } });
        loc[cy >= 0 ? cy : p] -= cy >= 0;
        loc[cp >= 0 ? cp : p] += cp >= 0;
        loc[py] = ly;
        loc[p] = was;
    }
    return rc;
}

/* Each branch with the bit: its exit's sender gets ready (the bit set)
 * at D(n, f, l) while the branch holds an item (held: one part alone). */
static int red_exits(fes_gen *g, int s, int *loc)
{
    const struct ax_fes *f = g->f;
    const fes_part *pt = g->pt;
    for (int b = 0; b < f->nb; b++) {
        const fes_branch *B = &f->br[b];
        int bc = pt->bpos[b], cp = pt->cpos[b];
        if (!B->bit || f->bpart[b] != pt->id || loc[bc] || loc[cp] == 0)
            continue;
        loc[bc] = 1;
        int rc = emit(g, s, loc,
                      (fes_tr){ 0, 0, FES_D, b, loc[cp], 0, loc[pt->pos[B->task[B->k - 1]]], 0,
                                1.0, loc[pt->pos[B->task[0]]], 0, { 0, 0 } });
        loc[bc] = 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int red_succ(fes_gen *g, int s, int *loc)
{
    const skel_approx *a = g->a;
    const fes_part *pt = g->pt;
    const int *owner = g->f->owner;
    for (int p = 0; p < pt->nheld; p++) {
        int x = pt->comp[p], rc = 0;
        int meas = a->entry[x] && (!owner || owner[x] == pt->id);   /* counted once */
        for (int q = a->lstart[x]; q < a->lstart[x + 1] && rc == 0; q++) {
            const ax_ltr *u = &a->ltr[q];
            if (u->from != loc[p])
                continue;
            if (u->edge < 0) {
                loc[p] = u->to;
                rc = emit(g, s, loc,
                          (fes_tr){ 0, 0, FES_MU, x, u->done, u->done && meas, p, 0, u->w, 0,
                                    0, { 0, 0 } });
                loc[p] = u->from;
                continue;
            }
            int y = ax_partner(a, u);
            if (y < 0 || pt->pos[y] < 0)
                rc = red_alone(g, s, loc, p, u);
            else if (u->send)
                rc = red_pair(g, s, loc, p, u, y);
        }
        if (rc < 0)
            return rc;
    }
    return red_exits(g, s, loc);
}

static int cmp_target(const void *x, const void *y)
{
    const fes_tr *p = x, *q = y;
    return (p->to > q->to) - (p->to < q->to);
}

/* The chain's transitions by target, its per-state arrays. */
static int finish_chain(fes_chain *c, const fes_gen *g)
{
    c->n = g->n;
    qsort(c->tr, (size_t)c->ntr, sizeof *c->tr, cmp_target);
    c->first = calloc((size_t)c->n + 1, sizeof *c->first);
    c->lst = calloc((size_t)c->n + 1, sizeof *c->lst);
    c->fst = calloc((size_t)c->n + 1, sizeof *c->fst);
    c->outk = calloc((size_t)c->n + 1, sizeof *c->outk);
    c->rdy = calloc((size_t)c->n + 1, sizeof *c->rdy);
    c->sbusy = calloc((size_t)c->n + 1, sizeof *c->sbusy);
    c->out = malloc(((size_t)c->n + 1) * sizeof *c->out);
    c->pi = malloc(((size_t)c->n + 1) * sizeof *c->pi);
    c->rate = malloc(((size_t)c->ntr + 1) * sizeof *c->rate);
    if (!c->first || !c->lst || !c->fst || !c->outk || !c->rdy || !c->sbusy || !c->out || !c->pi ||
        !c->rate)
        return -1;
    for (int t = 0; t < c->ntr; t++)
        c->first[c->tr[t].to + 1]++;
    for (int s = 0; s < c->n; s++) {
        c->first[s + 1] += c->first[s];
        c->pi[s] = 1.0 / c->n;
    }
    return 0;
}

/* The positions of chain c computing in local states loc. */
static unsigned busy_mask(const skel_approx *a, const fes_chain *c, const int *loc)
{
    unsigned m = 0;
    for (int p = 0; p < c->np; p++)
        m |= (unsigned)a->busy[a->loff[c->ptask[p]] + loc[p]] << p;
    return m;
}

/* Whether every code of radices rad fits an int64: a chain whose local
 * states multiply past INT64_MAX cannot be coded (test_dd_estimate's
 * deals of deals probed as a block: 21 x 6.9e17, a signed overflow), and
 * is past any limit explored here. */
static int codes_fit(const int *rad, int nc)
{
    int64_t span = 1;
    for (int p = 0; p < nc; p++) {
        if (rad[p] > 1 && span > INT64_MAX / rad[p])
            return 0;
        span *= rad[p] > 1 ? rad[p] : 1;
    }
    return 1;
}

/* Whether task x in local state l can send on edge e. */
static int sends_on(const skel_approx *a, int x, int l, int e)
{
    for (int q = a->lstart[x]; q < a->lstart[x + 1]; q++)
        if (a->ltr[q].from == l && a->ltr[q].edge == e && a->ltr[q].send)
            return 1;
    return 0;
}

/* Explore chain c from loc: the closed chain of branch cb, or part pt's
 * reduced one (cb NULL). FES_EXPLORED, FES_PAST_LIMIT (limit states),
 * FES_OUT_OF_TIME (the deadline: h38.skel's closed chains and reduced
 * chain of 12,250 states took most of a 50 ms search), -1 out of memory. */
static int explore(const skel_approx *a, const struct ax_fes *f, const fes_part *pt,
                   const fes_branch *cb, fes_chain *c, int *loc, int limit)
{
    fes_gen g = { .a = a, .f = f, .cb = cb, .pt = pt, .c = c, .limit = limit };
    g.nc = cb ? cb->k + 1 : pt->nc;
    for (int p = 0; p < g.nc; p++)
        g.rad[p] = cb ? (p < cb->k ? a->nloc[cb->task[p]] : cb->k + 1) : pt->rad[p];
    if (!codes_fit(g.rad, g.nc))
        return FES_PAST_LIMIT;
    int rc = 0;
    if (ax_hash_init(&g.h, 1024) < 0)
        rc = -1;
    else if (cb)
        rc = emit_closed(&g, -1, loc, (fes_tr){ 0 });   /* the start, normalised */
    else {                     /* a limit of 0 (no time left) is past, not out of memory */
        int s0 = state_of(&g, loc);
        rc = s0 == FES_STATE_PAST ? s0 : s0 < 0 ? -1 : 0;
    }
    c->ntr = 0;                /* the start's own emission: no transition */
    c->np = cb ? cb->k : pt->nheld;
    c->ncomp = g.nc;
    for (int p = 0; p < g.nc; p++) {
        c->rad[p] = g.rad[p];
        c->ptask[p] = p >= c->np ? -1 : cb ? cb->task[p] : pt->comp[p];
    }
    for (int s = 0; s < g.n && rc == 0; s++) {
        if (ax_past_deadline(a, s)) {
            rc = FES_STATE_LATE;
            break;
        }
        decode(&g, g.code[s], loc);
        g.sbusy = busy_mask(a, c, loc);
        rc = cb ? closed_succ(&g, s, loc) : red_succ(&g, s, loc);
    }
    if (rc == 0 && ax_past_deadline(a, 0))
        rc = FES_STATE_LATE;  /* before the sort: h38's reduced chain, 10^5 transitions */
    if (rc == 0)
        rc = finish_chain(c, &g) < 0 ? -1 : 0;
    for (int s = 0; rc == 0 && s < c->n; s++) {
        decode(&g, g.code[s], loc);
        c->sbusy[s] = busy_mask(a, c, loc);
        if (cb) {
            c->lst[s] = loc[cb->k - 1];
            c->fst[s] = loc[0];
            c->outk[s] = loc[cb->k];
            c->rdy[s] = cb->ppos > 0 && sends_on(a, cb->task[cb->ppos], loc[cb->ppos], cb->eP);
            c->minout = s == 0 || loc[cb->k] < c->minout ? loc[cb->k] : c->minout;
        }
    }
    c->code = g.code;
    ax_hash_free(&g.h);
    return rc == FES_STATE_PAST ? FES_PAST_LIMIT : rc == FES_STATE_LATE ? FES_OUT_OF_TIME : rc;
}

/* ---- building, solving, evaluating */

static size_t sums_size(const fes_branch *b);

/* Branch B's task handing on to its last task (the exit's sender): the
 * one sender on every receive of the last task, a plain task other than
 * the entry; its edge to the last task, its position in *ppos; -1 none. */
static int exit_edge(const skel_approx *a, const fes_branch *B, int *ppos)
{
    int last = B->task[B->k - 1], e = -1;
    *ppos = -1;
    for (int q = a->lstart[last]; q < a->lstart[last + 1]; q++) {
        const ax_ltr *u = &a->ltr[q];
        if (u->edge < 0 || u->send)
            continue;
        if (e >= 0 && u->edge != e)
            return -1;
        e = u->edge;
    }
    int p = e >= 0 ? branch_pos(B, a->d->edges[e].from) : -1;
    if (p <= 0 || !plain(a->d, B->task[p]))
        return -1;
    *ppos = p;
    return e;
}

/* Branch b's closed chains at n = 1.. items, up to the most it holds
 * (cap: a chain at n whose every state keeps an item outside holds n - 1;
 * a par inside the branch holds one item in its branches together). */
static int build_closed(const skel_approx *a, struct ax_fes *f, fes_branch *b, diag *err)
{
    int x = b->task[0], l = b->task[b->k - 1];
    b->nf = a->nloc[x];
    b->nl = a->nloc[l];
    b->nu = a->lstart[x + 1] - a->lstart[x];
    b->eP = exit_edge(a, b, &b->ppos);
    b->R = calloc(((size_t)b->k + 1) * (size_t)b->nf * (size_t)b->nq, sizeof *b->R);
    if (b->k < 2)
        return b->R ? 0 : ax_oom(err);
    b->S = calloc(((size_t)b->k + 1) * 2 * (size_t)b->nl * (size_t)b->nu, sizeof *b->S);
    b->D = calloc(((size_t)b->k + 1) * (size_t)b->nf * (size_t)b->nl, sizeof *b->D);
    b->scratch = calloc(2 * sums_size(b), sizeof *b->scratch);
    b->closed = calloc((size_t)b->k, sizeof *b->closed);
    b->busy = calloc((size_t)b->k * (size_t)b->k, sizeof *b->busy);
    if (!b->R || !b->S || !b->D || !b->scratch || !b->closed || !b->busy)
        return ax_oom(err);
    for (int n = 1; n <= b->k; n++) {
        int loc[FES_COMP] = { 0 };
        loc[b->k] = n;
        fes_chain *c = &b->closed[n - 1];
        int rc = explore(a, f, NULL, b, c, loc, AX_COUNT_MAX);
        if (rc != FES_EXPLORED)   /* too large a branch: FES_PAST_LIMIT, the windows */
            return rc < 0 ? ax_oom(err) : rc;
        if (c->minout > 0) {      /* it holds n - 1 at most */
            fes_free_chain(c);
            memset(c, 0, sizeof *c);
            b->cap = n - 1;
            break;
        }
    }
    return 0;
}

/* The local states' product of the tasks of every par block (the exact
 * block's size, bounded above). */
static double block_product(const skel_approx *a)
{
    double n = 1;
    for (int i = 0; i < a->ntasks; i++)
        if (a->dblk[i] >= 0 || ax_par_fork(a, i))
            n *= a->nloc[i];
    return n;
}

/* Part pt's arrays for nt tasks and nb branches, as part id. */
static int part_alloc(fes_part *pt, int id, int nt, int nb)
{
    pt->id = id;
    pt->pos = malloc(((size_t)nt + 1) * sizeof *pt->pos);
    pt->cpos = calloc((size_t)nb + 1, sizeof *pt->cpos);
    pt->bpos = calloc((size_t)nb + 1, sizeof *pt->bpos);
    return pt->pos && pt->cpos && pt->bpos ? 0 : -1;
}

/* The par blocks' tasks alone, their moves with every other task as with
 * the world: reachable states within cap (0), past it (1), -1 out of
 * memory. What a window holding the blocks whole would need, about. */
static int block_past(const skel_approx *a, struct ax_fes *f, unsigned long cap)
{
    fes_part pt = { 0 };
    int rc = part_alloc(&pt, -1, a->ntasks, 0);
    for (int i = 0; rc == 0 && i < a->ntasks; i++) {
        int in = a->dblk[i] >= 0 || ax_par_fork(a, i);   /* a member, or the fork */
        pt.pos[i] = in && pt.nc < FES_COMP ? pt.nc : -1;
        if (pt.pos[i] >= 0) {
            pt.comp[pt.nc] = i;
            pt.rad[pt.nc++] = a->nloc[i];
        }
    }
    pt.nheld = pt.nc;
    fes_chain c = { 0 };
    int loc[FES_COMP] = { 0 };
    if (rc == 0)
        rc = explore(a, f, &pt, NULL, &c, loc, cap < AX_COUNT_MAX ? (int)cap : AX_COUNT_MAX);
    fes_free_chain(&c);
    free(pt.pos);
    free(pt.cpos);
    free(pt.bpos);
    return rc;
}

/* Drops every branch's held entry and bit: (n, L) again. Not one branch
 * at a time: parbig with one branch of three held (26,358 states) was
 * -4.22% against exact, with none -3.41%. */
static void unhold(struct ax_fes *f)
{
    fes_free_chain(&f->part[0].red);
    memset(&f->part[0].red, 0, sizeof f->part[0].red);
    for (int b = 0; b < f->nb; b++)
        f->br[b].hold = f->br[b].bit = 0;
}

/* A reduced chain's states at most: AX_COUNT_MAX, or o.fes_states below
 * it (tests: a small block split). */
static int fes_cap(const skel_approx *a)
{
    unsigned long n = a->o.fes_states;
    return n && n < AX_COUNT_MAX ? (int)n : AX_COUNT_MAX;
}

/* The reduced chain's states with entries held at most: FES_HOLD_MAX, and
 * under a deadline what the time left affords at the windows' cost per
 * state of a par's block (spec11-purchase under the plugin's 50 ms: 11,229
 * states held, 2,179 not, which alone answers in time); never past
 * fes_cap. */
static int hold_max(const skel_approx *a)
{
    int cap = fes_cap(a) < FES_HOLD_MAX ? fes_cap(a) : FES_HOLD_MAX;
    if (a->o.deadline <= 0)
        return cap;
    double n = AX_PAR_SHARE * (a->o.deadline - clock_now()) / AX_PAR_STATE_SECS;
    return n <= 0 ? 0 : n >= cap ? cap : (int)n;
}

/* in[i]: every task but the branches' inner ones (held entries held). */
static void mark_whole(const skel_approx *a, const struct ax_fes *f, char *in)
{
    for (int i = 0; i < a->ntasks; i++)
        in[i] = !fes_inner(f, i);
}

/* The reduced chain, each branch whose entry is a plain task holding it
 * and, where one plain task hands on to the last, whether that one is
 * ready, (n, F, L, bit): the fork hands on only when the entry is free
 * (part (h)'s K 2: +16.4% when it handed on whenever n < cap), and an
 * item done before the last task is free passes at the move's rate (K 40:
 * -8.2% with the entry alone held, -3.4% with the bit). While that stays
 * within hold_max states; past it, or past the components, (n, L) for all
 * within fes_cap (past it: split, fes_split). The counts' radices are the
 * branches' caps. in holds ntasks chars. */
static int reduce(const skel_approx *a, struct ax_fes *f, char *in)
{
    int held = 0, rc = 0, loc[FES_COMP] = { 0 };
    fes_part *pt = &f->part[0];
    for (int b = 0; b < f->nb; b++) {
        fes_branch *B = &f->br[b];
        B->hold = B->k > 1 && B->cap > 0 && plain(a->d, B->task[0]);
        B->bit = B->hold && B->eP >= 0;
        held |= B->hold;
    }
    if (held) {               /* too large or too wide held: (n, L) */
        mark_whole(a, f, in);
        rc = layout(a, f, pt, in);
        rc = rc == 0 ? explore(a, f, pt, NULL, &pt->red, loc, hold_max(a)) : rc;
        if (rc != FES_PAST_LIMIT && rc != FES_TOO_WIDE)
            return rc;
        unhold(f);
        memset(loc, 0, sizeof loc);
    }
    mark_whole(a, f, in);
    rc = layout(a, f, pt, in);
    return rc == 0 ? explore(a, f, pt, NULL, &pt->red, loc, fes_cap(a)) : rc;
}

/* ---- split: one chain per block, one of the tasks outside (2026-11-28) */

/* Part pt's chain of the tasks in[] marks, explored within hold_max
 * states (fes_cap, and under a deadline what the time left affords: past
 * it the split fails and the cut windows answer, said; review 29 finding
 * 3): it replaces pt's chain (FES_EXPLORED), or pt's chain is kept (the
 * caller restores in[] and lays it out again). */
static int part_explore(const skel_approx *a, struct ax_fes *f, fes_part *pt, const char *in)
{
    fes_chain c = { 0 };
    int loc[FES_COMP] = { 0 };
    pt->cuts = 1;
    int rc = layout(a, f, pt, in);   /* under a deadline, what the time left affords */
    rc = rc == 0 ? explore(a, f, pt, NULL, &c, loc, hold_max(a)) : rc;
    if (rc != FES_EXPLORED) {
        fes_free_chain(&c);
        return rc;
    }
    fes_free_chain(&pt->red);
    pt->red = c;
    return 0;
}

/* Whether task i is a core task of block k (its fork, its join, its
 * branches' last tasks): what part k must hold. */
static int block_core(const skel_approx *a, const struct ax_fes *f, int k, int i)
{
    for (int b = 0; b < f->nb; b++)
        if (f->bpart[b] == k && (f->br[b].fork == i || join_of_fork(a, f->br[b].fork) == i ||
                                 f->br[b].task[f->br[b].k - 1] == i))
            return 1;
    return 0;
}

/* order[]: the tasks outside the branches that are no block's core,
 * nearest to a core first (breadth first over the moves; order holds 2
 * ntasks ints). Returns how many. */
static int outside_order(const skel_approx *a, const struct ax_fes *f, int nblk, int *order)
{
    int n = 0, *dist = order + a->ntasks;
    for (int i = 0; i < a->ntasks; i++) {
        dist[i] = -1;
        for (int k = 0; k < nblk && dist[i] < 0; k++)
            dist[i] = block_core(a, f, k, i) || fes_inner(f, i) ? 0 : -1;
        if (dist[i] == 0)
            order[n++] = i;
    }
    for (int head = 0; head < n; head++)
        for (int e = 0; e < a->nedges; e++) {
            skel_edge E = a->d->edges[e];
            int x = order[head], y = E.from == x ? E.to : E.to == x ? E.from : -1;
            if (y >= 0 && dist[y] < 0) {
                dist[y] = dist[x] + 1;
                order[n++] = y;
            }
        }
    int m = 0;
    for (int k = 0; k < n; k++)
        if (dist[order[k]] > 0)
            order[m++] = order[k];
    return m;
}

/* Whether task t moves with a task in[] marks. */
static int next_to(const skel_approx *a, const char *in, int t)
{
    for (int e = 0; e < a->nedges; e++) {
        int x = a->d->edges[e].from, y = a->d->edges[e].to;
        if ((x == t && y >= 0 && in[y]) || (y == t && x >= 0 && in[x]))
            return 1;
    }
    return 0;
}

/* Task t into part k (in ik) as owned (own) or a partner, if its chain
 * stays within the cap: 0, or FES_PAST_LIMIT / FES_TOO_WIDE with the part
 * as it was. */
static int part_add(const skel_approx *a, struct ax_fes *f, int k, char *ik, int t, int own)
{
    ik[t] = own ? 1 : 2;
    f->owner[t] = own ? k : f->owner[t];
    int rc = part_explore(a, f, &f->part[k], ik);
    if (rc == FES_PAST_LIMIT || rc == FES_TOO_WIDE) {
        ik[t] = 0;
        f->owner[t] = own ? -1 : f->owner[t];
        int rl = layout(a, f, &f->part[k], ik);
        return rl ? rl : rc;
    }
    return rc;
}

/* Each block's part: its core (owned by the first part holding it), then
 * the tasks outside nearest first, each into the first part it moves
 * with that stays within the cap (a part past it takes no more). */
static int block_parts(const skel_approx *a, struct ax_fes *f, int nblk, char *in,
                       const int *order, int m)
{
    int nt = a->ntasks, rc = 0;
    char full[FES_COMP + 1] = { 0 };
    for (int i = 0; i < nt; i++)
        f->owner[i] = fes_inner(f, i) ? f->bpart[f->bof[i]] : -1;
    for (int k = 0; k < nblk; k++)
        for (int i = 0; i < nt; i++) {
            in[k * nt + i] = block_core(a, f, k, i) && !fes_inner(f, i);
            f->owner[i] = f->owner[i] < 0 && in[k * nt + i] ? k : f->owner[i];
        }
    for (int k = 0; k < nblk && rc == 0; k++)
        rc = part_explore(a, f, &f->part[k], in + k * nt);
    for (int j = 0; j < m && rc == 0; j++)
        for (int k = 0; k < nblk && k < FES_COMP && f->owner[order[j]] < 0; k++) {
            if (full[k] || !next_to(a, in + k * nt, order[j]))
                continue;
            rc = part_add(a, f, k, in + k * nt, order[j], 1);
            full[k] = rc != 0;
            rc = rc == FES_PAST_LIMIT || rc == FES_TOO_WIDE ? 0 : rc;
        }
    return rc;
}

/* The outside part (index nblk): the tasks no block's part holds (owned),
 * with their partners the other parts hold. */
static int outside_part(const skel_approx *a, struct ax_fes *f, int nblk, char *in)
{
    int nt = a->ntasks, any = 0;
    char *io = in + nblk * nt;
    for (int i = 0; i < nt; i++) {
        io[i] = f->owner[i] < 0;
        f->owner[i] = io[i] ? nblk : f->owner[i];
        any |= io[i];
    }
    for (int e = 0; e < a->nedges; e++) {
        int x = a->d->edges[e].from, y = a->d->edges[e].to;
        if (x >= 0 && y >= 0 && io[x] != io[y] && (io[x] == 1 || io[y] == 1))
            io[io[x] == 1 ? y : x] = 2;   /* a partner: not owned */
    }
    f->npart = nblk + any;
    return any ? part_explore(a, f, &f->part[nblk], io) : 0;
}

/* Whether part k holds task i: in its chain, or inside a branch whose
 * count it holds. */
static int part_has(const struct ax_fes *f, int k, int i)
{
    return f->part[k].pos[i] >= 0 || (fes_inner(f, i) && f->bpart[f->bof[i]] == k);
}

/* The part holding both ends of edge e, the lowest; -1 none. */
static int edge_part(const skel_approx *a, const struct ax_fes *f, int e)
{
    int x = a->d->edges[e].from, y = a->d->edges[e].to;
    for (int k = 0; x >= 0 && y >= 0 && k < f->npart; k++)
        if (part_has(f, k, x) && part_has(f, k, y))
            return k;
    return -1;
}

/* Every move between two tasks that some part holds one end of but no
 * part both (two blocks' parts with a task between them: review 26
 * finding 1, where the second block's capacity was never seen and the
 * answer exceeded the job's bound, converged): the missing end into the
 * part owning the other as a partner, or the other way, within the cap;
 * FES_PAST_LIMIT when neither fits (the cut windows answer, said). */
static int cover_cuts(const skel_approx *a, struct ax_fes *f, char *in)
{
    int nt = a->ntasks, rc = 0;
    for (int e = 0; e < a->nedges && rc == 0; e++) {
        int x = a->d->edges[e].from, y = a->d->edges[e].to;
        if (x < 0 || y < 0 || edge_part(a, f, e) >= 0)
            continue;
        int kx = f->owner[x], ky = f->owner[y];
        rc = fes_inner(f, y) ? FES_PAST_LIMIT : part_add(a, f, kx, in + kx * nt, y, 0);
        if ((rc == FES_PAST_LIMIT || rc == FES_TOO_WIDE) && !fes_inner(f, x))
            rc = part_add(a, f, ky, in + ky * nt, x, 0);
        rc = rc == FES_TOO_WIDE ? FES_PAST_LIMIT : rc;
    }
    return rc;
}

/* mpart: per local transition with a partner, the part measuring it. */
static void set_mpart(const skel_approx *a, struct ax_fes *f)
{
    for (int i = 0; i < a->ntasks; i++)
        for (int q = a->lstart[i]; q < a->lstart[i + 1]; q++)
            f->mpart[q] = a->ltr[q].edge < 0 || ax_partner(a, &a->ltr[q]) < 0
                              ? -1
                              : edge_part(a, f, a->ltr[q].edge);
}

/* The blocks (outermost forks): bpart per branch, their number. */
static int count_blocks(struct ax_fes *f)
{
    int nblk = 0;
    for (int b = 0; b < f->nb; b++) {
        f->bpart[b] = nblk;
        for (int c = 0; c < b; c++)
            f->bpart[b] = f->br[c].fork == f->br[b].fork ? f->bpart[c] : f->bpart[b];
        nblk += f->bpart[b] == nblk;
    }
    return nblk;
}

/* The reduced chains past fes_cap in one: one per block and one of the
 * tasks outside that none could hold (block_parts, outside_part), every
 * cut move held whole by one (cover_cuts). FES_PAST_LIMIT: a block's
 * core, the outside part or a cut move's cover past the cap;
 * FES_TOO_WIDE: a block's core past FES_COMP components. */
static int fes_split(const skel_approx *a, struct ax_fes *f)
{
    int nt = a->ntasks, rc = -1;
    char *in = calloc(((size_t)f->nb + 1) * (size_t)nt + 1, 1);
    int *order = malloc(2 * ((size_t)nt + 1) * sizeof *order);
    unhold(f);
    if (in && order) {
        int nblk = count_blocks(f), m = outside_order(a, f, nblk, order);
        rc = block_parts(a, f, nblk, in, order, m);
        rc = rc == 0 ? outside_part(a, f, nblk, in) : rc;
        rc = rc == 0 ? cover_cuts(a, f, in) : rc;
    }
    if (rc == 0)
        set_mpart(a, f);
    free(in);
    free(order);
    return rc;
}

/* The parts' arrays (at most one a branch and the outside one), owners,
 * the branches' parts, the cut moves' measuring parts and rates. */
static int fes_alloc_parts(const skel_approx *a, struct ax_fes *f)
{
    size_t nl = (size_t)a->lstart[a->ntasks] + 1, nt = (size_t)a->ntasks + 1;
    int last = a->ntasks - 1;
    if (!(f->part = calloc((size_t)f->nb + 1, sizeof *f->part)))
        return -1;
    for (int p = 0; p <= f->nb; p++)
        if (part_alloc(&f->part[p], p, a->ntasks, f->nb) < 0)
            return -1;
    f->npart = 1;
    f->owner = calloc(nt, sizeof *f->owner);
    f->bpart = calloc((size_t)f->nb + 1, sizeof *f->bpart);
    f->mpart = calloc(nl, sizeof *f->mpart);
    f->cut = calloc(nl, sizeof *f->cut);
    f->cutset = calloc(nl, 1);
    f->flow = calloc(nl, sizeof *f->flow);
    f->occ = calloc((size_t)(a->loff[last] + a->nloc[last]) + 1, sizeof *f->occ);
    return f->owner && f->bpart && f->mpart && f->cut && f->cutset && f->flow && f->occ ? 0
                                                                                       : -1;
}

static int has_links(const skel_approx *a)
{
    for (int e = 0; e < a->nedges; e++)
        if (a->links.n[e] > 0)
            return 1;
    return 0;
}

/* Why the cut windows answer a block past one window, for the user
 * (skel_approx_result.fes_past): the reduced chain's reason rc > 0. */
static int past_said(int rc)
{
    switch (rc) {
    case FES_PAST_LIMIT: return SKEL_APPROX_PAR_PAST;
    case FES_TOO_WIDE: return SKEL_APPROX_PAR_WIDE;
    case FES_LINKS: return SKEL_APPROX_PAR_LINKS;
    case FES_NOT_SHAPE: return SKEL_APPROX_PAR_SHAPE;
    default: return 0;
    }
}

/* The reduced chain (reduce) or, past the cap or the components, the
 * split ones (fes_split). */
static int fes_chains(const skel_approx *a, struct ax_fes *f, diag *err)
{
    char *in = calloc((size_t)a->ntasks + 1, 1);
    int rc = !in || fes_alloc_parts(a, f) < 0 ? -1 : reduce(a, f, in);
    free(in);
    if (rc == FES_PAST_LIMIT || rc == FES_TOO_WIDE)
        rc = fes_split(a, f);
    if (rc == FES_PAST_LIMIT)
        diag_set(err, "approximation: a par block reduced is above %d states even split",
                 fes_cap(a));
    return rc;
}

int ax_fes_build(skel_approx *a, unsigned long over, diag *err)
{
    if (!(block_product(a) > (double)over))
        return 0;                 /* the block fits a window */
    struct ax_fes *f = calloc(1, sizeof *f);
    if (!f || !(f->bof = malloc((size_t)a->ntasks * sizeof *f->bof)))
        return ax_fes_free(f), ax_oom(err);
    for (int i = 0; i < a->ntasks; i++)
        f->bof[i] = -1;
    int rc = block_past(a, f, over);
    if (rc == FES_EXPLORED)
        return ax_fes_free(f), 0;   /* the blocks alone fit a window: not cut */
    rc = rc < 0 || rc == FES_OUT_OF_TIME ? rc
         : has_links(a)                  ? FES_LINKS   /* a link's component: not covered */
                                         : find_branches(a, f);
    rc = rc < 0 ? ax_oom(err) : rc;
    for (int b = 0; rc == 0 && b < f->nb; b++)
        rc = build_closed(a, f, &f->br[b], err);
    rc = rc == 0 ? fes_chains(a, f, err) : rc;
    if (rc < 0 && !err->msg[0])  /* explore's -1: out of memory, unsaid */
        rc = ax_oom(err);
    if (rc == FES_OUT_OF_TIME)    /* as the windows' build (the search ranks by the bound) */
        rc = diag_set(err, "approximation: out of time building the par's reduced chain");
    if (rc != 0) {            /* the cut windows answer, said */
        a->fes_past = rc > 0 ? past_said(rc) : 0;
        ax_fes_free(f);
        return rc < 0 ? -1 : 0;
    }
    a->fes = f;
    return 1;
}

/* The rate of reduced transition u, branch B's R or S at its count and
 * the other end's local state. */
static double branch_rate(const fes_branch *B, const fes_tr *u)
{
    if (u->kind == FES_S)
        return B->S[((u->n * B->nl + u->fl) * 2 + u->fs) * B->nu + u->pos];
    if (u->kind == FES_D)
        return B->D[(u->n * B->nf + u->fl) * B->nl + u->pos];
    return B->R[(u->n * (B->hold ? B->nf : 1) + u->fl) * B->nq + u->pos];
}

/* The rate of cut move q (a local transition, FES_CUT): as the part
 * holding both its ends measured it (a measured 0 a real 0), the move's
 * own until it has (ax_fes_eval then says not converged). */
static double cut_rate(const skel_approx *a, const struct ax_fes *f, int q)
{
    return f->cutset[q] ? f->cut[q] : a->lambda[a->ltr[q].edge] * a->ltr[q].w;
}

/* Chain c's rates: its transitions' from the task and move rates, the
 * branches' R and the cut moves' measured rates. Under processor sharing (node) a computation's rate is
 * divided among its node's tasks computing: those of this chain exactly
 * (the source state's), the others by their busy probabilities (fac). */
static void set_rates(const skel_approx *a, const struct ax_fes *f, fes_chain *c,
                      const int *node)
{
    for (int s = 0; s < c->n; s++)
        c->out[s] = 0;
    for (int t = 0; t < c->ntr; t++) {
        const fes_tr *u = &c->tr[t];
        double r = u->kind == FES_MU       ? a->mu[u->idx]
                   : u->kind == FES_LAMBDA ? a->lambda[u->idx]
                   : u->kind == FES_CUT    ? cut_rate(a, f, u->idx)
                                           : branch_rate(&f->br[u->idx], u);
        if (u->kind == FES_MU && node) {
            int cnt = 0;
            for (int q = 0; q < c->np; q++)
                cnt += q != u->pos && (u->busy >> q & 1) && node[c->ptask[q]] == node[u->idx];
            r *= c->fac[u->pos][cnt];
        }
        c->rate[t] = r * u->w;
        c->out[u->from] += c->rate[t];
    }
}

/* Chain c's fac: per position, its node's other tasks the chain does not
 * hold as a Poisson-binomial of their busy probabilities pb (so E[1 /
 * (1 + c + N)], not 1 / (1 + c + E[N]), which Jensen puts low). */
static void set_fac(const skel_approx *a, fes_chain *c, const int *node, const double *pb)
{
    double d[AX_PB_MAX + 2];
    for (int p = 0; node && p < c->np; p++) {
        int x = c->ptask[p], m = 0;
        double mean = 0;
        d[0] = 1;
        for (int y = 0; y < a->ntasks; y++) {
            int in = 0;
            for (int q = 0; q < c->np; q++)
                in |= c->ptask[q] == y;
            if (!in && node[y] == node[x])
                ax_pb_add(d, &m, &mean, pb[y]);
        }
        for (int k = 0; k <= c->np; k++)
            c->fac[p][k] = ax_pb_inv(d, m, mean, 1 + k);
    }
}

/* Gauss-Seidel on the balance equations from the last distribution (a
 * warm start), until no probability moves by more than tol of its value
 * or the deadline passes (a->late set: a sweep of h38's reduced chain is
 * about 0.1 ms, its 20,000 sweeps seconds). Returns the sweeps, negative
 * when not converged. */
static int solve_chain(skel_approx *a, fes_chain *c, double tol, int max_sweeps)
{
    for (int it = 1; it <= max_sweeps; it++) {
        double change = 0, sum = 0;
        for (int s = 0; s < c->n; s++) {
            double in = 0;
            for (int t = c->first[s]; t < c->first[s + 1]; t++)
                in += c->pi[c->tr[t].from] * c->rate[t];
            double v = c->out[s] > 0 ? in / c->out[s] : c->pi[s];
            double d = fabs(v - c->pi[s]) / (v > 1e-300 ? v : 1e-300);
            change = d > change ? d : change;
            c->pi[s] = v;
            sum += v;
        }
        for (int s = 0; s < c->n; s++)
            c->pi[s] /= sum;
        if (change <= tol)
            return it;
        if (ax_past_deadline(a, c->n > AX_DENSE_MAX ? 0 : it)) {
            a->late = 1;
            return -it;
        }
    }
    return -max_sweeps;
}

/* Flow of the chain's counted transitions. */
static double measured(const fes_chain *c)
{
    double flow = 0;
    for (int t = 0; t < c->ntr; t++)
        if (c->tr[t].meas)
            flow += c->pi[c->tr[t].from] * c->rate[t];
    return flow;
}

/* Branch b's R at n items from its closed chain c: per local transition
 * q of its last task receiving from the branch, the flow of q over the
 * probability that the last task is in q's source state (a pipe's last
 * task has one: the flow into it over P(it waits); a join's, one per
 * branch and state of the join, its partial receipts kept). */
static void branch_rates(const skel_approx *a, fes_branch *b, const fes_chain *c, int n)
{
    double *R = &b->R[n * b->nq];
    const ax_ltr *lt = &a->ltr[a->lstart[b->task[b->k - 1]]];
    for (int q = 0; q < b->nq; q++)
        R[q] = 0;
    for (int t = 0; t < c->ntr; t++)
        if (c->tr[t].meas)
            R[c->tr[t].meas - 1] += c->pi[c->tr[t].from] * c->rate[t];
    for (int q = 0; q < b->nq; q++) {
        double p = 0;
        for (int s = 0; R[q] > 0 && s < c->n; s++)
            p += c->lst[s] == lt[q].from ? c->pi[s] : 0;
        R[q] = p > 0 ? R[q] / p : 0;
    }
}

/* held_rates' sums over a closed chain's states, by the entry's state f,
 * the last task's l and whether the exit's sender is ready to hand on r
 * (0 without the bit) */
typedef struct fes_sums {
    double *P;                /* [(f nl + l) 2 + r]: probability */
    double *RR;               /* [f nq + q]: flow of the last task's receive q */
    double *SS;               /* [(l 2 + r) nu + u]: flow of the entry's send u */
    double *DD;               /* [f nl + l]: flow of the exit's sender becoming ready */
} fes_sums;

static fes_sums sums_at(const fes_branch *b, double *x)
{
    fes_sums m;
    m.P = x;
    m.RR = m.P + 2 * b->nf * b->nl;
    m.SS = m.RR + b->nf * b->nq;
    m.DD = m.SS + 2 * b->nl * b->nu;
    return m;
}

/* The doubles one fes_sums takes. */
static size_t sums_size(const fes_branch *b)
{
    return (size_t)(3 * b->nf * b->nl + b->nf * b->nq + 2 * b->nl * b->nu);
}

/* Branch b's closed chain c's sums over its states with no item outside
 * (any: all its states). */
static void held_accum(const fes_branch *b, const fes_chain *c, int any, fes_sums m)
{
    int bit = b->bit;         /* without the bit, the sender's readiness summed */
    for (int s = 0; s < c->n; s++)
        m.P[(c->fst[s] * b->nl + c->lst[s]) * 2 + bit * c->rdy[s]] +=
            any || !c->outk[s] ? c->pi[s] : 0;
    for (int t = 0; t < c->ntr; t++) {
        const fes_tr *u = &c->tr[t];
        int s = u->from;
        double flow = c->pi[s] * c->rate[t];
        if (!any && c->outk[s])
            continue;
        if (u->meas)
            m.RR[c->fst[s] * b->nq + u->meas - 1] += flow;
        if (u->fs)
            m.SS[(c->lst[s] * 2 + bit * c->rdy[s]) * b->nu + u->fs - 1] += flow;
        if (bit && !c->rdy[s] && c->rdy[u->to])
            m.DD[c->fst[s] * b->nl + c->lst[s]] += flow;
    }
}

/* Flow x over probability p, 0 where p is. */
static double per(double x, double p)
{
    return p > 0 ? x / p : 0;
}

/* Branch b's R, S and D at n items, its entry held: given the entry's
 * state f, the last task's l (and with the bit, whether the exit's sender
 * is ready), the flow of each receive of the last task, each send of the
 * entry and the sender's becoming ready over their probability in the
 * closed chain at n, counting only its states with all n items inside
 * (the reduced chain's count is the items in the branch's tasks, so (n,
 * f, l) fixes the middle's); a state (f, l) no such state holds is taken
 * over all the chain's. With the bit the last task receives at the move's
 * own rate: the sender is ready. */
static void held_rates(const skel_approx *a, fes_branch *b, const fes_chain *c, int n)
{
    size_t z = sums_size(b);
    fes_sums in = sums_at(b, b->scratch), all = sums_at(b, b->scratch + z);
    const ax_ltr *lt = &a->ltr[a->lstart[b->task[b->k - 1]]];
    const ax_ltr *ft = &a->ltr[a->lstart[b->task[0]]];
    memset(b->scratch, 0, 2 * z * sizeof *b->scratch);
    held_accum(b, c, 0, in);
    held_accum(b, c, 1, all);
    for (int f = 0; f < b->nf; f++)
        for (int q = 0; q < b->nq; q++) {
            int j = (f * b->nl + lt[q].from) * 2;
            fes_sums m = in.P[j] + in.P[j + 1] > 0 ? in : all;
            b->R[(n * b->nf + f) * b->nq + q] =
                b->bit ? a->lambda[b->eP] : per(m.RR[f * b->nq + q], m.P[j] + m.P[j + 1]);
        }
    for (int j = 0; j < 2 * b->nl * b->nu; j++) {   /* j = (l 2 + r) nu + u */
        int u = j % b->nu, lr = j / b->nu, k = ft[u].from * b->nl * 2 + lr;
        fes_sums m = in.P[k] > 0 ? in : all;
        b->S[n * 2 * b->nl * b->nu + j] = per(m.SS[j], m.P[k]);
    }
    for (int j = 0; j < b->nf * b->nl; j++) {      /* j = f nl + l */
        fes_sums m = in.P[2 * j] > 0 ? in : all;
        b->D[n * b->nf * b->nl + j] = per(m.DD[j], m.P[2 * j]);
    }
}

#define FES_TOL 1e-10
#define FES_SWEEPS 20000
#define FES_PS_ROUNDS 50      /* processor sharing's outer rounds at most, */
#define FES_PS_TOL 1e-7       /* until no busy probability moves by more (1e-9: h38
                                 on six nodes stuck at 9.6e-9 for 50 rounds, the floor
                                 of the chains' relative FES_TOL 1e-10) */

/* The busy probabilities of the tasks: those the reduced chain holds
 * from it; a branch's inner ones, the reduced chain's flow into the
 * branch's last task at n items times the closed chain's busy time per
 * item at n. Not the closed chain's busy at n weighted by the reduced
 * chain's P(n): in the closed chain the item the last task hands on
 * re-enters at once, in the reduced one the last task waits for the
 * join, so fewer items pass at n (parbig under processor sharing, one
 * task a node: b1 0.105, d1 0.116 busy for throughput / rate 0.0839). */
/* Adds to nb the busy probabilities from part k's chain r: of the tasks
 * it owns, and of its branches' inner ones (busy_update). */
static void part_busy(const struct ax_fes *f, const fes_chain *r, int k, double *nb)
{
    for (int s = 0; s < r->n; s++)
        for (int p = 0; p < r->np; p++)
            nb[r->ptask[p]] += (r->sbusy[s] >> p & 1) && f->owner[r->ptask[p]] == k ? r->pi[s]
                                                                                   : 0;
    for (int t = 0; t < r->ntr; t++) {
        const fes_tr *u = &r->tr[t];
        const fes_branch *B = u->kind == FES_R ? &f->br[u->idx] : NULL;
        for (int q = B ? B->hold : 0; B && B->k > 1 && q < B->k - 1; q++)
            nb[B->task[q]] += r->pi[u->from] * r->rate[t] * B->busy[(u->n - 1) * B->k + q];
    }
}

static double busy_update(const skel_approx *a, struct ax_fes *f, double *pb)
{
    double *nb = calloc((size_t)a->ntasks + 1, sizeof *nb), change = 0;
    if (!nb)
        return INFINITY;
    for (int k = 0; k < f->npart; k++)
        part_busy(f, &f->part[k].red, k, nb);
    for (int i = 0; i < a->ntasks; i++) {
        change = fmax(change, fabs(nb[i] - pb[i]));
        pb[i] = nb[i];
    }
    free(nb);
    return change;
}

/* Branch b's closed chain at n items solved at the busy probabilities
 * pb: its R(n) and its tasks' seconds computing per item. */
static void closed_solve(skel_approx *a, fes_branch *B, int n, const int *node,
                         const double *pb, int *conv, long *sweeps)
{
    fes_chain *c = &B->closed[n - 1];
    set_fac(a, c, node, pb);
    set_rates(a, a->fes, c, node);
    int it = solve_chain(a, c, FES_TOL, FES_SWEEPS);
    *conv &= it > 0;
    *sweeps += it > 0 ? it : -it;
    if (a->late)
        return;
    if (B->hold)
        held_rates(a, B, c, n);
    else
        branch_rates(a, B, c, n);
    double x = measured(c);   /* moves into the last task a second, closed */
    for (int q = 0; q < B->k; q++) {
        double p = 0;
        for (int s = 0; s < c->n; s++)
            p += (c->sbusy[s] >> q & 1) ? c->pi[s] : 0;
        B->busy[(n - 1) * B->k + q] = x > 0 ? p / x : 0;
    }
}

/* Part pt's chain solved at the busy probabilities pb and the cut rates;
 * *conv cleared when it did not converge, *sweeps summed, *work its
 * sweeps times its transitions added. */
static void part_solve(skel_approx *a, fes_part *pt, const int *node, const double *pb,
                       int *conv, long *sweeps, double *work)
{
    set_fac(a, &pt->red, node, pb);
    set_rates(a, a->fes, &pt->red, node);
    int it = solve_chain(a, &pt->red, FES_TOL, FES_SWEEPS);
    *conv &= it > 0;
    *sweeps += it > 0 ? it : -it;
    *work += (double)(it > 0 ? it : -it) * pt->red.ntr;
}

/* occ[loff[x] + l]: the probability that held task x is in local state l
 * in chain c (occ zeroed first). */
static void occupancy(const skel_approx *a, const fes_chain *c, double *occ)
{
    int last = a->ntasks - 1;
    memset(occ, 0, (size_t)(a->loff[last] + a->nloc[last]) * sizeof *occ);
    for (int s = 0; s < c->n; s++) {
        int64_t code = c->code[s];
        for (int p = 0; p < c->np; p++) {
            occ[a->loff[c->ptask[p]] + (int)(code % c->rad[p])] += c->pi[s];
            code /= c->rad[p];
        }
    }
}

/* The cut moves part k measures (mpart[q] == k) from its chain, as a
 * branch's R: per local transition q of a task it holds, q's flow over
 * the probability that the task is in q's source state; a flow of 0 is a
 * rate of 0 (review 26 finding 4: 0 was "not measured", the move kept
 * lambda), only a source state without mass leaves the rate as it was.
 * The largest relative change (INFINITY: a rate measured the first time). */
static double part_measure(const skel_approx *a, struct ax_fes *f, int k)
{
    const fes_chain *c = &f->part[k].red;
    double change = 0;
    memset(f->flow, 0, (size_t)a->lstart[a->ntasks] * sizeof *f->flow);
    for (int t = 0; t < c->ntr; t++)
        for (int j = 0; j < 2; j++)
            if (c->tr[t].lq[j] > 0)
                f->flow[c->tr[t].lq[j] - 1] += c->pi[c->tr[t].from] * c->rate[t];
    occupancy(a, c, f->occ);
    for (int p = 0; p < c->np; p++)
        for (int q = a->lstart[c->ptask[p]]; q < a->lstart[c->ptask[p] + 1]; q++) {
            double P = f->occ[a->loff[c->ptask[p]] + a->ltr[q].from];
            if (f->mpart[q] != k || !(P > 0))
                continue;
            double v = f->flow[q] / P, m = fmax(v, f->cut[q]);
            change = fmax(change, !f->cutset[q] ? INFINITY
                                  : m > 0       ? fabs(v - f->cut[q]) / m
                                                : 0);
            f->cut[q] = v;
            f->cutset[q] = 1;
        }
    return change;
}

/* One solve of every chain at the busy probabilities pb (ps: node; NULL:
 * static), split parts each at the cut rates the others measured: the
 * throughput; *conv cleared when a chain did not converge, *sweeps and
 * *work summed, *moved the cut rates' largest relative change. */
static double fes_once(skel_approx *a, const int *node, const double *pb, int *conv,
                       long *sweeps, double *work, double *moved)
{
    struct ax_fes *f = a->fes;
    for (int b = 0; b < f->nb; b++)
        for (int n = 1; n < f->br[b].cap + 1 && f->br[b].k > 1 && !a->late; n++)
            closed_solve(a, &f->br[b], n, node, pb, conv, sweeps);
    if (a->late)
        return 0;
    double x = 0;
    *moved = 0;
    for (int k = 0; k < f->npart && !a->late; k++) {
        part_solve(a, &f->part[k], node, pb, conv, sweeps, work);
        x += measured(&f->part[k].red);
        *moved = f->npart > 1 ? fmax(*moved, part_measure(a, f, k)) : 0;
    }
    return x;
}

/* Adds to done[task] chain c's flow of each task's completions (the
 * last phase of its computation: FES_MU transitions with n set); owner
 * (not NULL): only of the tasks owner[task] == id gives to it. */
static void chain_done(const fes_chain *c, double *done, const int *owner, int id)
{
    for (int t = 0; t < c->ntr; t++)
        if (c->tr[t].kind == FES_MU && c->tr[t].n && (!owner || owner[c->tr[t].idx] == id))
            done[c->tr[t].idx] += c->pi[c->tr[t].from] * c->rate[t];
}

/* Adds to thr[] branch b's inner tasks' completions a second: at each
 * count n of the branch the reduced chain's flow of its moves into the
 * last task, times each inner task's completions per such move in the
 * closed chain at n (done_q(n) / x(n)), as busy_update weights the busy.
 * Not the closed chain at cap alone: at few items a farm's workers are
 * both free and split near evenly, at cap the faster takes more. dn holds
 * ntasks doubles. */
static void branch_flows(skel_approx *a, const fes_branch *B, int b, double *dn)
{
    const fes_chain *r = &a->fes->part[a->fes->bpart[b]].red;
    for (int n = 1; n <= B->cap; n++) {
        double in = 0, x = measured(&B->closed[n - 1]);
        for (int t = 0; t < r->ntr; t++)
            if (r->tr[t].kind == FES_R && r->tr[t].idx == b && r->tr[t].n == n)
                in += r->pi[r->tr[t].from] * r->rate[t];
        for (int i = 0; i < a->ntasks; i++)
            dn[i] = 0;
        chain_done(&B->closed[n - 1], dn, NULL, 0);
        for (int q = B->hold; q < B->k - 1 && x > 0; q++)   /* a held entry: the reduced */
            a->thr[B->task[q]] += in * dn[B->task[q]] / x;
    }
}

/* Per task the items it completes a second: the reduced chain's flow of
 * its completions for a task it holds; a branch's inner task, by
 * branch_flows (a choice's branches see their part, a farm's workers
 * theirs: n2's choice(1,2) 1/3 and 2/3, where the moves into the last
 * task gave every inner task its rate). Not x for all: a deal's workers
 * after the par each see 1/K of the items (parbigdeal, deal(2): 0.1136
 * each, not 0.2272). Out of memory, inner tasks get the last task's. */
static void task_flows(skel_approx *a)
{
    const struct ax_fes *f = a->fes;
    double *dn = calloc((size_t)a->ntasks + 1, sizeof *dn);
    for (int i = 0; i < a->ntasks; i++)
        a->thr[i] = 0;
    for (int k = 0; k < f->npart; k++)
        chain_done(&f->part[k].red, a->thr, f->owner, k);
    for (int b = 0; b < f->nb; b++) {
        const fes_branch *B = &f->br[b];
        if (B->k < 2 || B->cap < 1)
            continue;
        for (int q = B->hold; !dn && q < B->k - 1; q++)
            a->thr[B->task[q]] = a->thr[B->task[B->k - 1]];
        if (dn)
            branch_flows(a, B, b, dn);
    }
    free(dn);
}

/* The cut moves some part runs at the move's own rate because no part
 * measured them (mass never in their source state there): the answer is
 * then not converged (review 26 finding 1: such a move between two blocks
 * ran at lambda and the fixed point said converged). */
static int cuts_unmeasured(const struct ax_fes *f)
{
    int n = 0;
    for (int k = 0; f->npart > 1 && k < f->npart; k++)
        for (int t = 0; t < f->part[k].red.ntr; t++)
            n += f->part[k].red.tr[t].kind == FES_CUT && !f->cutset[f->part[k].red.tr[t].idx];
    return n;
}

/* The result's fields of the reduced chains. */
static void fes_said(const struct ax_fes *f, long sweeps, double work, skel_approx_result *r)
{
    r->fes = f->part[0].red.n;
    r->fes_parts = f->npart;
    for (int k = 1; k < f->npart; k++)
        r->fes_out += f->part[k].red.n;
    r->fes_branches = f->nb;
    for (int b = 0; b < f->nb; b++)
        r->fes_held += f->br[b].hold || f->br[b].k < 2;   /* one task: whole */
    r->fes_unmeasured = cuts_unmeasured(f);
    r->work = f->npart > 1 ? work : (double)sweeps * f->part[0].red.ntr;
}

int ax_fes_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                skel_approx_result *r, diag *err)
{
    double *pb = calloc((size_t)a->ntasks + 1, sizeof *pb), x = 0;
    if (!pb)
        return ax_oom(err);
    a->mu = mu;
    a->lambda = lambda;
    memset(r, 0, sizeof *r);
    memset(a->fes->cutset, 0, (size_t)a->lstart[a->ntasks] + 1);   /* fresh rates */
    int conv = 1, round = 0;
    long sweeps = 0;
    double change = INFINITY, moved = 0, work = 0;
    a->late = 0;
    /* processor sharing, split chains: rounds until the busy probabilities
     * and the cut moves' rates settle */
    int rounds = ps_node || a->fes->npart > 1 ? FES_PS_ROUNDS : 1;
    for (; round < rounds && change > FES_PS_TOL; round++) {
        if (round > 0 && ax_past_deadline(a, 0))
            a->late = 1;
        if (a->late || (x = fes_once(a, ps_node, pb, &conv, &sweeps, &work, &moved), a->late))
            break;
        change = fmax(ps_node ? busy_update(a, a->fes, pb) : 0, moved);
    }
    if (a->late) {
        free(pb);
        return diag_set(err, "approximation: out of time after %d rounds of the par's "
                             "reduced chain", round);
    }
    task_flows(a);
    for (int i = 0; i < a->ntasks; i++)
        a->util[i] = ps_node ? pb[i] : a->thr[i] / mu[i];
    r->throughput = x;
    r->bottleneck = skel_argmax_tied(a->util, a->ntasks);
    r->iterations = round;
    r->change = change;
    fes_said(a->fes, sweeps, work, r);
    r->converged = conv && change <= FES_PS_TOL && r->fes_unmeasured == 0;
    free(pb);
    if (!(x > 0) || !isfinite(x))
        return diag_set(err, "approximation: the par's reduced chain gave %g items/s", x);
    return 0;
}
