/* Fluid (ODE) approximation of a PEPA system: one population per local
 * state of each leaf, min-based synchronisation with apparent rates
 * (Hillston 2005; Tribastone, Gilmore, Hillston 2012). See transient.h for
 * the treatment of passive rates and what is refused.
 *
 * Rates are computed in two passes over the cooperation tree: bottom-up,
 * the apparent rate of every action at every node (a leaf: the sum over
 * its local states of population times rate; a cooperation: the minimum
 * of the two sides for a shared action, the sum otherwise; a hiding: 0 for
 * a hidden action, which becomes tau); top-down, the actual rate at every
 * node (the root's apparent rate; a shared action's actual rate passes to
 * both sides unchanged; a non-shared one is split in proportion to the
 * sides' apparent rates; a hidden one is free below its hiding). A leaf's
 * actual rate of an action is split among its local states and moves in
 * proportion to their apparent rates, which gives the flows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "internal.h"

struct tr_fluid {
    const pepa_system *s;
    int nvars, na, nn;
    int *off;            /* per leaf: first variable */
    int *leaf_of;        /* per node: leaf index or -1 */
    int *post;           /* nodes in post-order (children first) */
    double *app, *act;   /* nn * na: apparent and actual rates */
    double delta;        /* the delta of the last evaluation */
};

static int postorder(const pepa_system *s, int n, int *post, int *k)
{
    const pepa_node *nd = &s->nodes[n];
    if (nd->kind == PEPA_N_COOP) {
        postorder(s, nd->left, post, k);
        postorder(s, nd->right, post, k);
    } else if (nd->kind == PEPA_N_HIDE) {
        postorder(s, nd->left, post, k);
    }
    post[(*k)++] = n;
    return 0;
}

/* Static check of passive actions: per node and action, 0 = not offered,
 * 1 = active, 2 = passive. */
static int check_passive(const tr_fluid *f, diag *err)
{
    const pepa_system *s = f->s;
    int na = f->na, rc = -1;
    unsigned char *st = calloc((size_t)f->nn * (size_t)na, 1);
    if (!st)
        return diag_set(err, "out of memory");
    for (int p = 0; p < f->nn; p++) {
        int n = f->post[p];
        const pepa_node *nd = &s->nodes[n];
        unsigned char *me = st + (size_t)n * na;
        if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
            const pepa_seq *q = &s->seqs[nd->seq];
            for (int m = 0; m < q->first[q->nstates]; m++) {
                int a = q->moves[m].action;
                me[a] = q->moves[m].passive ? 2 : (me[a] == 2 ? 2 : 1);
            }
        } else if (nd->kind == PEPA_N_HIDE) {
            const unsigned char *c = st + (size_t)nd->left * na;
            for (int a = 0; a < na; a++)
                me[a] = nd->set[a] ? 0 : c[a];
        } else {
            const unsigned char *l = st + (size_t)nd->left * na, *r = st + (size_t)nd->right * na;
            for (int a = 0; a < na; a++) {
                if (a && nd->set[a]) {
                    me[a] = !l[a] || !r[a] ? 0 : (l[a] == 2 && r[a] == 2 ? 2 : 1);
                } else if ((l[a] == 1 && r[a] == 2) || (l[a] == 2 && r[a] == 1)) {
                    diag_at(err, NULL, nd->pos.line, nd->pos.col,
                            "fluid analysis: action '%s' is active on one side and passive on the "
                            "other of a composition that does not synchronise on it; the shared "
                            "rate of such a model is not defined",
                            pepa_model_action(s->model, a));
                    goto done;
                } else {
                    me[a] = l[a] > r[a] ? l[a] : r[a];
                }
            }
        }
    }
    const unsigned char *root = st + (size_t)s->root * na;
    for (int a = 1; a < na; a++)
        if (root[a] == 2) {
            diag_set(err, "fluid analysis: action '%s' is passive at the top level (no active "
                     "partner gives it a rate)", pepa_model_action(s->model, a));
            goto done;
        }
    rc = 0;
done:
    free(st);
    return rc;
}

tr_fluid *tr_fluid_new(const pepa_system *s, diag *err)
{
    tr_fluid *f = calloc(1, sizeof *f);
    if (!f) {
        diag_set(err, "out of memory");
        return NULL;
    }
    f->s = s;
    f->na = s->nactions;
    f->nn = s->nnodes;
    f->off = malloc(((size_t)s->nleaves + 1) * sizeof *f->off);
    f->leaf_of = malloc((size_t)s->nnodes * sizeof *f->leaf_of);
    f->post = malloc((size_t)s->nnodes * sizeof *f->post);
    f->app = calloc((size_t)s->nnodes * (size_t)s->nactions, sizeof *f->app);
    f->act = calloc((size_t)s->nnodes * (size_t)s->nactions, sizeof *f->act);
    if (!f->off || !f->leaf_of || !f->post || !f->app || !f->act) {
        diag_set(err, "out of memory");
        tr_fluid_free(f);
        return NULL;
    }
    for (int n = 0; n < s->nnodes; n++)
        f->leaf_of[n] = -1;
    int v = 0;
    for (int i = 0; i < s->nleaves; i++) {
        f->off[i] = v;
        f->leaf_of[s->leaves[i]] = i;
        v += s->seqs[s->nodes[s->leaves[i]].seq].nstates;
    }
    f->off[s->nleaves] = f->nvars = v;
    int k = 0;
    postorder(s, s->root, f->post, &k);
    f->nn = k;   /* nodes reachable from the root */
    if (check_passive(f, err) < 0) {
        tr_fluid_free(f);
        return NULL;
    }
    return f;
}

void tr_fluid_free(tr_fluid *f)
{
    if (!f)
        return;
    free(f->act);
    free(f->app);
    free(f->post);
    free(f->leaf_of);
    free(f->off);
    free(f);
}

int tr_fluid_nvars(const tr_fluid *f)
{
    return f->nvars;
}

int tr_fluid_offset(const tr_fluid *f, int leaf)
{
    return f->off[leaf];
}

void tr_fluid_initial(const tr_fluid *f, double *x)
{
    const pepa_system *s = f->s;
    memset(x, 0, (size_t)f->nvars * sizeof *x);
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        x[f->off[i] + nd->init] = nd->kind == PEPA_N_ARRAY ? (double)nd->count : 1.0;
    }
}

static double move_rate(const pepa_move *mv, double delta)
{
    return mv->passive ? mv->rate / delta : mv->rate;
}

/* Both passes; fills f->app and f->act. */
static void rates(tr_fluid *f, const double *x, double delta)
{
    const pepa_system *s = f->s;
    int na = f->na;
    for (int p = 0; p < f->nn; p++) {
        int n = f->post[p];
        const pepa_node *nd = &s->nodes[n];
        double *me = f->app + (size_t)n * na;
        memset(me, 0, (size_t)na * sizeof *me);
        if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
            const pepa_seq *q = &s->seqs[nd->seq];
            const double *xl = x + f->off[f->leaf_of[n]];
            for (int st = 0; st < q->nstates; st++) {
                double pop = xl[st] > 0 ? xl[st] : 0;  /* never act on negative mass */
                if (pop == 0)
                    continue;
                for (int m = q->first[st]; m < q->first[st + 1]; m++)
                    me[q->moves[m].action] += pop * move_rate(&q->moves[m], delta);
            }
        } else if (nd->kind == PEPA_N_HIDE) {
            const double *c = f->app + (size_t)nd->left * na;
            for (int a = 0; a < na; a++)
                me[a] = nd->set[a] ? 0 : c[a];
        } else {
            const double *l = f->app + (size_t)nd->left * na, *r = f->app + (size_t)nd->right * na;
            for (int a = 0; a < na; a++)
                me[a] = a && nd->set[a] ? fmin(l[a], r[a]) : l[a] + r[a];
        }
    }
    memcpy(f->act + (size_t)s->root * na, f->app + (size_t)s->root * na, (size_t)na * sizeof *f->act);
    for (int p = f->nn - 1; p >= 0; p--) {
        int n = f->post[p];
        const pepa_node *nd = &s->nodes[n];
        const double *me_app = f->app + (size_t)n * na, *me_act = f->act + (size_t)n * na;
        if (nd->kind == PEPA_N_HIDE) {
            double *c = f->act + (size_t)nd->left * na;
            const double *capp = f->app + (size_t)nd->left * na;
            for (int a = 0; a < na; a++)
                c[a] = nd->set[a] ? capp[a] : me_act[a];
        } else if (nd->kind == PEPA_N_COOP) {
            int ch[2] = { nd->left, nd->right };
            for (int side = 0; side < 2; side++) {
                double *c = f->act + (size_t)ch[side] * na;
                const double *capp = f->app + (size_t)ch[side] * na;
                for (int a = 0; a < na; a++)
                    c[a] = a && nd->set[a] ? me_act[a]
                                           : (me_app[a] > 0 ? me_act[a] * (capp[a] / me_app[a]) : 0);
            }
        }
    }
    f->delta = delta;
}

void tr_fluid_deriv(tr_fluid *f, const double *x, double delta, double *dx)
{
    const pepa_system *s = f->s;
    int na = f->na;
    rates(f, x, delta);
    memset(dx, 0, (size_t)f->nvars * sizeof *dx);
    for (int i = 0; i < s->nleaves; i++) {
        int n = s->leaves[i];
        const pepa_seq *q = &s->seqs[s->nodes[n].seq];
        const double *app = f->app + (size_t)n * na, *act = f->act + (size_t)n * na;
        const double *xl = x + f->off[i];
        double *dl = dx + f->off[i];
        for (int st = 0; st < q->nstates; st++) {
            double pop = xl[st] > 0 ? xl[st] : 0;
            if (pop == 0)
                continue;
            for (int m = q->first[st]; m < q->first[st + 1]; m++) {
                const pepa_move *mv = &q->moves[m];
                double a = app[mv->action];
                if (!(a > 0))
                    continue;
                double fl = act[mv->action] * (pop * move_rate(mv, delta) / a);
                dl[st] -= fl;
                dl[mv->target] += fl;
            }
        }
    }
}

void tr_fluid_throughput(tr_fluid *f, const double *x, double delta, double *thr)
{
    const pepa_system *s = f->s;
    int na = f->na;
    rates(f, x, delta);
    const double *root = f->act + (size_t)s->root * na;
    for (int a = 0; a < na; a++)
        thr[a] = root[a];
    for (int p = 0; p < f->nn; p++) {
        const pepa_node *nd = &s->nodes[f->post[p]];
        if (nd->kind != PEPA_N_HIDE)
            continue;
        const double *c = f->act + (size_t)nd->left * na;
        for (int a = 1; a < na; a++)
            if (nd->set[a])
                thr[0] += c[a];
    }
}

typedef struct fl_data {
    tr_fluid *f;
    double delta;
} fl_data;

static int fl_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    (void)t;
    fl_data *d = ud;
    tr_fluid_deriv(d->f, N_VGetArrayPointer(y), d->delta, N_VGetArrayPointer(ydot));
    return 0;
}

static int failed(int flag, const char *what, diag *err) { return tr_cv_failed(flag, what, " (fluid)", err); }

/* Integrate from (t0, x0) through the times (all >= t0). */
static int fl_integrate(tr_fluid *f, const double *x0, double t0, const double *times, int ntimes,
                        const tr_opts *o, tr_output_fn out, void *ctx, tr_result *res, diag *err)
{
    tr_cv cv;
    fl_data data = { f, o->delta > 0 ? o->delta : 1e-7 };
    int rc = -1;
    long n = f->nvars;
    if (n == 0)
        return diag_set(err, "fluid analysis: the model has no variables");
    if (tr_cv_open(&cv, n, " (fluid)", err) < 0)
        goto done;
    double *yy = N_VGetArrayPointer(cv.y), scale = 1;
    for (long i = 0; i < n; i++) {
        yy[i] = x0[i];
        scale = fabs(x0[i]) > scale ? fabs(x0[i]) : scale;
    }
    /* populations can be large: the absolute tolerance scales with them */
    if (tr_cv_init(&cv, fl_rhs, t0, o->rtol, o->atol * scale, o->max_steps, &data, err) < 0)
        goto done;
    if (n <= 400) {
        /* small systems: dense Jacobian by difference quotients */
        cv.A = SUNDenseMatrix(n, n, cv.sctx);
        cv.LS = cv.A ? SUNLinSol_Dense(cv.y, cv.A, cv.sctx) : NULL;
        if (!cv.A || !cv.LS) {
            diag_set(err, "out of memory");
            goto done;
        }
        if (failed(CVodeSetLinearSolver(cv.mem, cv.LS, cv.A), "CVodeSetLinearSolver", err))
            goto done;
    } else {
        if (!(cv.LS = SUNLinSol_SPGMR(cv.y, SUN_PREC_NONE, 30, cv.sctx))) {
            diag_set(err, "out of memory");
            goto done;
        }
        if (failed(CVodeSetLinearSolver(cv.mem, cv.LS, NULL), "CVodeSetLinearSolver", err))
            goto done;
    }
    if (tr_cv_integrate(&cv, t0, times, ntimes, 0, res, out, ctx, err) < 0)
        goto done;
    rc = 0;
done:
    tr_cv_close(&cv);
    return rc;
}

int tr_fluid_solve(tr_fluid *f, const double *times, int ntimes, const tr_opts *o, tr_output_fn out,
                   void *ctx, tr_result *res, diag *err)
{
    tr_opts def;
    if (!o) {
        tr_opts_init(&def);
        o = &def;
    }
    memset(res, 0, sizeof *res);
    if (tr_check_times(times, ntimes, err) < 0)
        return -1;
    double *x0 = malloc((size_t)f->nvars * sizeof *x0);
    if (!x0)
        return diag_set(err, "out of memory");
    tr_fluid_initial(f, x0);
    int rc = fl_integrate(f, x0, 0, times, ntimes, o, out, ctx, res, err);
    free(x0);
    return rc;
}

static int copy_out(void *ctx, int k, double t, const double *x, diag *err)
{
    (void)k, (void)t, (void)err;
    double *dst = ((double **)ctx)[0];
    long n = (long)(((double **)ctx)[1] - dst);
    memcpy(dst, x, (size_t)n * sizeof *x);
    return 0;
}

int tr_fluid_fixed_point(tr_fluid *f, const tr_opts *o, double tol, double max_time, double *x,
                         double *t, diag *err)
{
    tr_opts def;
    if (!o) {
        tr_opts_init(&def);
        o = &def;
    }
    int n = f->nvars, conv = 0;
    double *dx = malloc((size_t)n * sizeof *dx);
    if (!dx)
        return diag_set(err, "out of memory");
    if (*t <= 0) {
        tr_fluid_initial(f, x);
        *t = 0;
    }
    double h = 1;
    double delta = o->delta > 0 ? o->delta : 1e-7;
    tr_result res;
    memset(&res, 0, sizeof res);
    for (;;) {
        tr_fluid_deriv(f, x, delta, dx);
        double dn = 0, xn = 0;
        for (int i = 0; i < n; i++) {
            dn = fmax(dn, fabs(dx[i]));
            xn = fmax(xn, fabs(x[i]));
        }
        if (dn <= tol * (1 + xn)) {
            conv = 1;
            break;
        }
        if (*t >= max_time)
            break;
        double tn = *t + h;
        double *ends[2] = { x, x + n };
        if (fl_integrate(f, x, *t, &tn, 1, o, copy_out, ends, &res, err) < 0) {
            free(dx);
            return -1;
        }
        *t = tn;
        h *= 2;
    }
    free(dx);
    return conv;
}

int tr_fluid_record(void *ctx, int k, double t, const double *x, diag *err)
{
    (void)t;
    tr_fluid_rec *r = ctx;
    tr_series *ser = r->ser;
    const pepa_system *s = r->f->s;
    if (k < 0 || k >= ser->ntimes)
        return diag_set(err, "tr_fluid_record: time index out of range");
    tr_fluid_throughput(r->f, x, r->delta, ser->thr + (size_t)k * (size_t)ser->nactions);
    for (int i = 0; i < s->nleaves; i++) {
        int ns = s->seqs[s->nodes[s->leaves[i]].seq].nstates;
        memcpy(ser->local[i] + (size_t)k * (size_t)ns, x + r->f->off[i], (size_t)ns * sizeof *x);
    }
    return 0;
}
