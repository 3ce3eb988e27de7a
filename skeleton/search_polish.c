/* skeleton/search_polish.c: the large-scale search's local moves on the
 * chain itself (step 5 of search_scale.c): when the chain fits and there
 * is a deadline, the moves of search_moves.c again with the chain as the
 * evaluator, every placement they solve ranked by search_evaluate. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The chain as the evaluator: placement pl (its canonical image, as the
 * branch and bound would name it) solved and ranked by search_evaluate. */
static int eval_exact(void *ctx, const int *pl, const double *mu, const double *lambda,
                      double *x, diag *err)
{
    search *s = ctx;
    (void)mu;
    (void)lambda;
    (void)err;
    search_canonical(s, pl, s->place, s->canon_map);
    s->seeding = 1;             /* not counted as the branch and bound's */
    int rc = search_evaluate(s);
    s->seeding = 0;
    for (int i = 0; i < s->nt; i++)
        s->place[i] = -1;
    s->scale_work += (double)s->sp->q->nnz;
    if (rc < 0) {
        s->polish_failed = 1;
        return -1;
    }
    *x = skel_model_throughput(s->m, s->thr);
    return 0;
}

int search_scale_on_chain(const search *s)
{
    return s->eval == eval_exact;
}

/* Local moves on the chain from complete placement pl (solved first). */
static void descend_exact(search *s, int *pl, double until)
{
    double x;
    search_set_loads(s, pl);
    if (search_estimate(s, pl, &x) == 0 && !search_moves_spent(s, until))
        search_local_moves(s, pl, &x, until);
}

/* The moves from the best solved so far, then from the other starts
 * (search_start_at), then kicks of the best; pl: nt scratch. */
static void descend_all(search *s, int *pl, double until)
{
    memcpy(pl, s->ranked[0].placement, (size_t)s->nt * sizeof *pl);
    descend_exact(s, pl, until);
    for (int kind = 0; kind < 2 && !search_moves_spent(s, until); kind++) {
        search_start_at(s, kind, pl);
        descend_exact(s, pl, until);
    }
    uint64_t r = KICK_SEED;
    for (int round = 0;
         round < SCALE_KICKS && s->cls_start[s->nclass] > 1 && !search_moves_spent(s, until);
         round++) {
        memcpy(pl, s->ranked[0].placement, (size_t)s->nt * sizeof *pl);
        search_kick(s, pl, round, &r);
        descend_exact(s, pl, until);
    }
}

/* The local moves again, each placement solved on the chain: from the best
 * solved so far, then from the other starts (start_at), then an iterated
 * local search from the best (kicks as in search_scale_more); until stops
 * them. What the estimate ranked wrong (it errs by a few %) and what its
 * moves did not reach in their share of a budget (a tenth: with 1 ms an
 * estimate, 5 of them in 50 ms), the chain's own moves find: for a chain
 * of hundreds of states a solve costs less than an estimate. Every
 * placement solved is ranked (search_evaluate), so the best of all starts
 * is the answer. Returns -1 when a solve failed (s->err; the deadline
 * passed, or a fault). */
int search_scale_exact(search *s, double until)
{
    if (s->nranked == 0)
        return 0;
    int *pl = malloc((size_t)s->nt * sizeof *pl);
    if (!pl)
        return diag_set(s->err, "out of memory");
    search_eval_fn was = s->eval;
    void *was_ctx = s->eval_ctx;
    s->eval = eval_exact;
    s->eval_ctx = s;
    search_memo_clear(s);       /* the estimates are not the chain's */
    s->scale_work = 0;
    s->scale_stopped = 0;
    descend_all(s, pl, until);
    search_unload(s);
    s->eval = was;
    s->eval_ctx = was_ctx;
    search_memo_clear(s);
    free(pl);
    return s->polish_failed ? -1 : 0;
}
