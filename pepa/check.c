/* pepa_check: static checks. See check.h. */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>

static void warn_at(pepa_warn_fn warn, void *ctx, const char *file, pepa_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void warn_at(pepa_warn_fn warn, void *ctx, const char *file, pepa_pos pos, const char *fmt, ...)
{
    if (!warn)
        return;
    diag d;
    diag_clear(&d);
    char msg[DIAG_MAX - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_at(&d, file, pos.line, pos.col, "warning: %s", msg);
    warn(ctx, d.msg);
}

/* ---- on the syntax ------------------------------------------------------ */

typedef struct usage {
    pepa_model *m;
    unsigned char *proc_used, *rate_used;
    diag *err;
} usage;

static int use_expr(usage *u, const pepa_expr *e)
{
    if (!e)
        return 0;
    if (e->kind == PEPA_E_RATE) {
        pepa_rate_def *d = pepa_model_rate(u->m, e->id);
        if (!d->expr)
            return diag_at(u->err, pepa_model_file(u->m), e->pos.line, e->pos.col,
                           "rate '%s' is used but never defined", d->name);
        if (u->rate_used[e->id])
            return 0;
        u->rate_used[e->id] = 1;
        return use_expr(u, d->expr);
    }
    return use_expr(u, e->a) < 0 ? -1 : use_expr(u, e->b);
}

static int use_proc(usage *u, const pepa_proc *p, int depth)
{
    for (; p; p = p->kind == PEPA_P_PREFIX || p->kind == PEPA_P_HIDE || p->kind == PEPA_P_ARRAY ? p->a : NULL) {
        if (depth > 100000)
            return diag_at(u->err, pepa_model_file(u->m), p->pos.line, p->pos.col, "process nested too deeply");
        if (p->kind == PEPA_P_CONST) {
            pepa_proc_def *d = pepa_model_proc(u->m, p->id);
            if (!d->body)
                return diag_at(u->err, pepa_model_file(u->m), p->pos.line, p->pos.col,
                               "process '%s' is used but never defined", d->name);
            if (u->proc_used[p->id])
                return 0;
            u->proc_used[p->id] = 1;
            return use_proc(u, d->body, depth + 1);
        }
        if (p->kind == PEPA_P_PREFIX && use_expr(u, p->rate) < 0)
            return -1;
        if ((p->kind == PEPA_P_CHOICE || p->kind == PEPA_P_COOP) &&
            (use_proc(u, p->a, depth + 1) < 0 || use_proc(u, p->b, depth + 1) < 0))
            return -1;
        if (p->kind == PEPA_P_CHOICE || p->kind == PEPA_P_COOP)
            return 0;
    }
    return 0;
}

/* Process definitions in the order of the file. Ids follow first
 * mentions, and "Q0 = (b, 1).Q1;" mentions Q1 before it defines Q0: in id
 * order, an unreached cycle Q0 -> Q1 -> Q2 -> Q0 was reported as Q1's. */
typedef struct def_order {
    int line, col, id;
} def_order;

static int by_position(const void *a, const void *b)
{
    const def_order *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

static def_order *defs_in_file_order(pepa_model *m)
{
    int n = pepa_model_nprocs(m);
    def_order *o = malloc(((size_t)n + 1) * sizeof *o);
    if (!o)
        return NULL;
    for (int i = 0; i < n; i++) {
        pepa_proc_def *d = pepa_model_proc(m, i);
        o[i] = (def_order){ d->pos.line, d->pos.col, i };
    }
    qsort(o, (size_t)n, sizeof *o, by_position);
    return o;
}

int pepa_check(pepa_model *m, pepa_warn_fn warn, void *ctx, diag *err)
{
    usage u = { m, calloc((size_t)pepa_model_nprocs(m) + 1, 1), calloc((size_t)pepa_model_nrates(m) + 1, 1), err };
    int rc = 0;
    if (!u.proc_used || !u.rate_used)
        rc = diag_set(err, "out of memory");
    if (rc == 0 && pepa_model_system(m))
        rc = use_proc(&u, pepa_model_system(m), 0);
    /* definitions the system never reaches, the first of each unreached
     * group named: still check their names */
    def_order *order = rc == 0 ? defs_in_file_order(m) : NULL;
    if (rc == 0 && !order)
        rc = diag_set(err, "out of memory");
    for (int k = 0; rc == 0 && k < pepa_model_nprocs(m); k++) {
        int i = order[k].id;
        pepa_proc_def *d = pepa_model_proc(m, i);
        if (d->body && !u.proc_used[i]) {
            warn_at(warn, ctx, pepa_model_file(m), d->pos, "process '%s' is defined but never used", d->name);
            u.proc_used[i] = 1;
            rc = use_proc(&u, d->body, 0);
        }
    }
    free(order);
    for (int i = 0; rc == 0 && i < pepa_model_nrates(m); i++) {
        pepa_rate_def *d = pepa_model_rate(m, i);
        if (d->expr && !u.rate_used[i])
            warn_at(warn, ctx, pepa_model_file(m), d->pos, "rate '%s' is defined but never used", d->name);
    }
    free(u.proc_used);
    free(u.rate_used);
    return rc;
}

/* ---- on the compiled system ---------------------------------------------- */

/* Per node, per action: bit 1 when some occurrence is active, bit 2 when
 * some is passive, after synchronisation (active with passive is active). */
enum { ACTIVE = 1, PASSIVE = 2 };

static unsigned char *modes(const pepa_system *s, int n, int *ok)
{
    size_t na = (size_t)s->nactions;
    const pepa_node *nd = &s->nodes[n];
    unsigned char *mo = calloc(na, 1);
    if (!mo) {
        *ok = 0;
        return NULL;
    }
    if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
        const pepa_seq *q = &s->seqs[nd->seq];
        for (int j = 0; j < q->first[q->nstates]; j++)
            mo[q->moves[j].action] |= q->moves[j].passive ? PASSIVE : ACTIVE;
        return mo;
    }
    unsigned char *l = modes(s, nd->left, ok);
    unsigned char *r = nd->kind == PEPA_N_COOP ? modes(s, nd->right, ok) : NULL;
    if (!l || (nd->kind == PEPA_N_COOP && !r)) {
        free(l);
        free(r);
        free(mo);
        *ok = 0;
        return NULL;
    }
    for (size_t a = 0; a < na; a++) {
        if (nd->kind == PEPA_N_HIDE) {
            if (nd->set[a] && a)
                mo[0] |= l[a];
            else
                mo[a] |= l[a];
        } else if (nd->set[a]) {
            if (l[a] && r[a])
                mo[a] = (l[a] & ACTIVE) || (r[a] & ACTIVE) ? ACTIVE : PASSIVE;
        } else {
            mo[a] = l[a] | r[a];
        }
    }
    free(l);
    free(r);
    return mo;
}

int pepa_check_system(const pepa_system *s, pepa_warn_fn warn, void *ctx, diag *err)
{
    const char *file = pepa_model_file(s->model);
    size_t na = (size_t)s->nactions;
    int ok = 1;
    unsigned char *root = modes(s, s->root, &ok);
    unsigned char *l = calloc(na, 1), *r = calloc(na, 1);
    int rc = 0;
    if (!ok || !root || !l || !r)
        rc = diag_set(err, "out of memory");
    for (size_t a = 1; rc == 0 && a < na; a++)
        if (root[a] == PASSIVE)
            rc = diag_set(err, "%s: action '%s' is passive in every component that performs it, so its "
                          "rate is never defined (one partner of each cooperation on it must be active)",
                          file, pepa_model_action(s->model, (int)a));
    for (int n = 0; rc == 0 && n < s->nnodes; n++) {
        const pepa_node *nd = &s->nodes[n];
        if (nd->kind != PEPA_N_COOP)
            continue;
        for (size_t a = 0; a < na; a++)
            l[a] = r[a] = 0;
        pepa_system_alphabet(s, nd->left, l);
        pepa_system_alphabet(s, nd->right, r);
        for (size_t a = 1; a < na; a++)
            if (nd->set[a] && l[a] != r[a])
                warn_at(warn, ctx, file, nd->pos, "the cooperation set names '%s', which the %s side never "
                        "performs: the %s side is blocked on it forever", pepa_model_action(s->model, (int)a),
                        l[a] ? "right" : "left", l[a] ? "left" : "right");
    }
    for (int i = 0; rc == 0 && i < s->nseqs; i++) {
        const pepa_seq *q = &s->seqs[i];
        for (size_t a = 0; a < na; a++)
            l[a] = 0;
        for (int j = 0; j < q->first[q->nstates]; j++)
            l[q->moves[j].action] |= q->moves[j].passive ? PASSIVE : ACTIVE;
        for (int j = 0; j < q->first[q->nstates]; j++)
            if (l[q->moves[j].action] == (ACTIVE | PASSIVE)) {
                warn_at(warn, ctx, file, q->moves[j].pos, "component %s performs '%s' actively in one "
                        "state and passively in another", q->state_name[0],
                        pepa_model_action(s->model, q->moves[j].action));
                l[q->moves[j].action] = 0;
            }
    }
    free(root);
    free(l);
    free(r);
    return rc;
}
