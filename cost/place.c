/* cost/place.c: the analytic models applied to a skeleton placed on a
 * platform, so that their predictions can be ranked beside the Markov
 * model's (docs/advice.md).
 *
 * Each task gets a service time per item from its model; the tree then
 * combines them the way the papers' skeletons do: a pipe runs at its
 * slowest stage (Darlington et al. 1993 §4.3, Zavanella 1999 eq. 1), a farm at the sum of its
 * workers' rates (demand driven), a deal at n times its slowest worker
 * (round robin). The rates of the placement (speed shared equally on a
 * node, moves of latency + data/bandwidth) are the ones the Markov model
 * uses under Sharing=static (skel_place_rates), so the comparison is of
 * the models, not of their inputs. Alt et al. 2002's time ignores the sharing of a server: its
 * estimate for a server knows nothing of the other tasks placed there. */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const names[COST_NMODELS] = { "darlington", "p3l", "remote" };

const char *cost_model_name(cost_model k)
{
    return k >= 0 && k < COST_NMODELS ? names[k] : "?";
}

int cost_model_parse(const char *s, cost_model *k)
{
    for (int i = 0; i < COST_NMODELS; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *k = (cost_model)i;
            return 0;
        }
    return -1;
}

void cost_estimate_free(cost_estimate *e)
{
    free(e->task_time);
    memset(e, 0, sizeof *e);
}

/* The node of an end of an edge: a task's node, or the Input/Output node
 * (SKEL_LOCAL: the task's own node, a local move). */
static int end_node(const skel_platform *p, const int *place, int end, int task)
{
    if (end >= 0)
        return place[end];
    int io = end == SKEL_IN ? p->input : p->output;
    return io == SKEL_LOCAL ? place[task] : io;
}

typedef struct ctx {
    cost_model model;
    const skel_tree *tree;
    const skel_model *m;
    const skel_platform *p;
    const int *place;
    double k;                  /* grain */
    double *mu, *lambda;
    double *in_time, *out_time;    /* per task: slowest in / out move, seconds */
    double *in_data;           /* per task: bytes of the items it receives */
    double *g, *l;             /* per task: BSP g and l (Zavanella 1999) */
    double *time;              /* per task: its service time per item */
    diag *err;
} ctx;

/* The per-task inputs shared by the models. */
static int task_inputs(ctx *c)
{
    const skel_model *m = c->m;
    const skel_platform *p = c->p;
    int nt = m->ntasks;
    for (int e = 0; e < m->nedges; e++) {
        const skel_edge *ed = &m->edges[e];
        double secs = 1 / c->lambda[e];
        int task = ed->to >= 0 ? ed->to : ed->from;
        double lat, bw;
        if (skel_platform_link(p, end_node(p, c->place, ed->from, task),
                               end_node(p, c->place, ed->to, task), &lat, &bw, c->err) < 0)
            return -1;
        if (ed->to >= 0) {
            c->in_time[ed->to] = fmax(c->in_time[ed->to], secs);
            if (ed->from >= 0)
                c->in_data[ed->to] = fmax(c->in_data[ed->to], m->data[ed->from]);
        }
        if (ed->from >= 0) {
            int i = ed->from;
            c->out_time[i] = fmax(c->out_time[i], secs);
            /* Zavanella 1999's BSP parameters, from the links when the platform
             * does not give them */
            double g = p->param[SKEL_PARAM_BSP_G] > 0 ? p->param[SKEL_PARAM_BSP_G]
                       : bw > 0                       ? 1 / bw
                                                      : 0;
            double l = p->param[SKEL_PARAM_BSP_L] > 0 ? p->param[SKEL_PARAM_BSP_L] : lat;
            c->g[i] = fmax(c->g[i], g);
            c->l[i] = fmax(c->l[i], l);
        }
    }
    for (int i = 0; i < nt; i++) {
        if (c->g[i] == 0 && p->param[SKEL_PARAM_BSP_G] > 0)
            c->g[i] = p->param[SKEL_PARAM_BSP_G];
        if (c->l[i] == 0)
            c->l[i] = p->param[SKEL_PARAM_BSP_L];
    }
    return 0;
}

/* Alt et al. 2002: eq. 1 for task i on node j, its senders placed by place[] (a
 * sender at or after limit is not placed yet and costs nothing). */
static int remote_time(const skel_model *m, const skel_platform *p,
                       const int *place, int limit, int i, int j, double *out, diag *err)
{
    double ts = 0, tw = 0, n = 0;
    for (int e = 0; e < m->nedges; e++) {
        const skel_edge *ed = &m->edges[e];
        if (ed->to != i || (ed->from >= 0 && ed->from >= limit))
            continue;
        int from = ed->from >= 0 ? place[ed->from] : p->input == SKEL_LOCAL ? j : p->input;
        double lat, bw;
        if (skel_platform_link(p, from, j, &lat, &bw, err) < 0)
            return -1;
        ts = fmax(ts, lat);
        tw = fmax(tw, bw > 0 ? 1 / bw : 0);
        if (ed->from >= 0)
            n = fmax(n, m->data[ed->from]);
    }
    double tskel = 1 / (m->work[i] * p->nodes[j].speed);
    *out = cost_remote_time(ts, tw, n, p->param[SKEL_PARAM_CODE_SIZE], m->data[i], tskel);
    return 0;
}

static int task_times(ctx *c, const skel_tree *t)
{
    const skel_platform *p = c->p;
    double tfo = p->param[SKEL_PARAM_FLATTEN_FIXED], tf = p->param[SKEL_PARAM_FLATTEN_BYTE];
    for (int i = 0; i < c->m->ntasks; i++) {
        const skel_node *n = skel_tree_task(t, i);
        int replica = n->parent && (n->parent->kind == SKEL_FARM || n->parent->kind == SKEL_DEAL);
        double te = 1 / c->mu[i];
        switch (c->model) {
        case COST_DARLINGTON: {
            /* §4.3: t_e + t_c per pipe cycle; §4.2: t_e + 2 t_c for a farm
             * worker (the item in, the result out); t_c with §5's
             * flattening 2 (T_fo + d T_f) */
            double out = c->out_time[i] > 0 ? c->out_time[i] + 2 * (tfo + c->m->data[i] * tf) : 0;
            double in = c->in_time[i] > 0 ? c->in_time[i] + 2 * (tfo + c->in_data[i] * tf) : 0;
            c->time[i] = te + out + (replica ? in : 0);
            break;
        }
        case COST_P3L: {
            cost_bsp b = { c->g[i], p->param[SKEL_PARAM_BSP_NHALF], c->l[i] };
            c->time[i] = cost_p3l_stage(&b, te, c->in_data[i], c->m->data[i], c->k) / c->k;
            break;
        }
        case COST_REMOTE:
            if (remote_time(c->m, p, c->place, c->m->ntasks, i, c->place[i], &c->time[i],
                            c->err) < 0)
                return -1;
            break;
        default:
            return diag_set(c->err, "unknown cost model %d", (int)c->model);
        }
    }
    return 0;
}

/* Combine the tasks' times along the tree: returns the subtree's service
 * time per item (its inverse is its throughput), *bn its slowest task. */
static int combine(ctx *c, const skel_node *n, double *svc, int *bn)
{
    if (n->kind == SKEL_TASK) {
        *svc = c->time[n->index];
        *bn = n->index;
        return 0;
    }
    if (n->kind != SKEL_PIPE && n->kind != SKEL_FARM && n->kind != SKEL_DEAL)
        return diag_at(c->err, skel_tree_file(c->tree), n->line, n->col,
                       "the analytic models describe pipe, deal, farm and task only");
    double worst = 0, rate_sum = 0, g = 0, l = 0;
    int wbn = n->lo;
    for (int i = 0; i < n->nchildren; i++) {
        double s;
        int b;
        if (combine(c, n->children[i], &s, &b) < 0)
            return -1;
        if (s > worst || i == 0) {
            worst = s;
            wbn = b;
        }
        rate_sum += 1 / s;
    }
    for (int i = n->lo; i < n->hi; i++) {
        g = fmax(g, c->g[i]);
        l = fmax(l, c->l[i]);
    }
    *bn = wbn;
    int w = n->nchildren;
    if (n->kind == SKEL_PIPE) {
        *svc = worst;
    } else if (c->model == COST_P3L) {
        /* eq. 3-4 with the workers' own times: tf/n becomes 1 / (sum of
         * their rates) for a farm, (slowest)/n for a deal */
        cost_bsp b = { g, c->p->param[SKEL_PARAM_BSP_NHALF], l };
        double d0 = c->in_data[n->lo];
        double work = n->kind == SKEL_FARM ? 1 / rate_sum : worst / w;
        double em = cost_p3l_emitter(&b, d0, w, c->k);
        double wk = cost_p3l_worker(&b, d0, 0, w, c->k) + work;
        *svc = fmax(em, wk);
    } else {
        *svc = n->kind == SKEL_FARM ? 1 / rate_sum : worst / w;
    }
    return 0;
}

int cost_estimate_placement(cost_model k, const skel_tree *t, const skel_model *m,
                            const skel_platform *p, const int *node_of_task,
                            double grain, cost_estimate *out, diag *err)
{
    memset(out, 0, sizeof *out);
    int nt = m->ntasks, ne = m->nedges;
    ctx c = { .model = k, .tree = t, .m = m, .p = p, .place = node_of_task,
              .k = grain >= 1 ? grain : 1, .err = err };
    size_t per = (size_t)(nt > 0 ? nt : 1);
    double *buf = calloc(7 * per + (size_t)ne + 1, sizeof *buf);
    if (!buf)
        return diag_set(err, "out of memory");
    c.mu = buf;
    c.in_time = buf + per;
    c.out_time = buf + 2 * per;
    c.in_data = buf + 3 * per;
    c.g = buf + 4 * per;
    c.l = buf + 5 * per;
    c.time = buf + 6 * per;
    c.lambda = buf + 7 * per;
    int rc = -1;
    double svc;
    int bn;
    if (cost_static_rates(m, p, node_of_task, c.mu, c.lambda, err) < 0 || task_inputs(&c) < 0 ||
        task_times(&c, t) < 0 || combine(&c, skel_tree_root(t), &svc, &bn) < 0)
        goto done;
    if (k == COST_P3L && p->param[SKEL_PARAM_INTERARRIVAL] > 0)
        svc = fmax(svc, p->param[SKEL_PARAM_INTERARRIVAL]);   /* eq. 1: k T_e / k */
    if (!(out->task_time = malloc(per * sizeof *out->task_time))) {
        diag_set(err, "out of memory");
        goto done;
    }
    memcpy(out->task_time, c.time, (size_t)nt * sizeof *c.time);
    out->ntasks = nt;
    out->throughput = 1 / svc;
    out->bottleneck = bn;
    rc = 0;
done:
    free(buf);
    return rc;
}

/* The papers' models give a server a fixed rate. A read-only copy of the
 * platform's fields, for that one call. */
int cost_static_rates(const skel_model *m, const skel_platform *p, const int *node_of_task,
                      double *mu, double *lambda, diag *err)
{
    skel_platform as_static = *p;
    as_static.sharing = SKEL_SHARE_STATIC;
    return skel_place_rates(m, &as_static, node_of_task, mu, lambda, err);
}

int cost_remote_choose(const skel_model *m, const skel_platform *p,
                       int *node_of_task, diag *err)
{
    for (int i = 0; i < m->ntasks; i++) {
        double best = INFINITY;
        int where = -1;
        diag first;
        diag_clear(&first);
        for (int j = 0; j < p->nnodes; j++) {
            double tm;
            diag sub;
            diag_clear(&sub);
            if (remote_time(m, p, node_of_task, i, i, j, &tm, &sub) < 0) {
                if (!first.set)
                    first = sub;
                continue;        /* no link to that server: not a choice */
            }
            if (tm < best) {
                best = tm;
                where = j;
            }
        }
        if (where < 0)
            return diag_set(err, "t%d: no server is reachable (%s)", i,
                            first.set ? first.msg : "no nodes");
        node_of_task[i] = where;
    }
    return 0;
}
