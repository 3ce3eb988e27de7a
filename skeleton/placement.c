/* skeleton/placement.c: placements of tasks on platform nodes and the rates
 * they give (Benoit et al. 2004 §4.1): equitable sharing of a node's speed among the
 * tasks placed on it, and moves timed by latency (+ data / bandwidth). */
#include "skeleton.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void skel_place_default(int ntasks, const skel_platform *p, int *node_of_task)
{
    for (int i = 0; i < ntasks; i++)
        node_of_task[i] = p->nnodes ? i % p->nnodes : -1;
}

int skel_place_parse(const char *spec, int ntasks, const skel_platform *p,
                     int *node_of_task, diag *err)
{
    char *seen = calloc((size_t)(ntasks ? ntasks : 1), 1);
    if (!seen)
        return diag_set(err, "out of memory");
    const char *s = spec;
    int rc = 0;
    while (rc == 0) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        const char *item = s;
        /* tN */
        if (*s != 't' || !isdigit((unsigned char)s[1])) {
            rc = diag_set(err, "expected tN=NODE at '%.20s'", item);
            break;
        }
        s++;
        long t = 0;
        while (isdigit((unsigned char)*s) && t <= ntasks)
            t = t * 10 + (*s++ - '0');
        while (isdigit((unsigned char)*s))
            s++;
        while (isspace((unsigned char)*s))
            s++;
        if (*s != '=') {
            rc = diag_set(err, "expected '=' after the task in '%.20s'", item);
            break;
        }
        s++;
        while (isspace((unsigned char)*s))
            s++;
        const char *name = s;
        while (*s && *s != ',' && !isspace((unsigned char)*s))
            s++;
        size_t len = (size_t)(s - name);
        if (t >= ntasks) {
            rc = diag_set(err, "no task t%ld (the skeleton has t0..t%d)", t, ntasks - 1);
            break;
        }
        if (len == 0 || len > SKEL_MAX_NAME) {
            rc = diag_set(err, "t%ld= needs a node name", t);
            break;
        }
        char buf[SKEL_MAX_NAME + 1];
        memcpy(buf, name, len);
        buf[len] = '\0';
        int node = skel_platform_find(p, buf);
        if (node < 0) {
            rc = diag_set(err, "t%ld=%s: no node %s in %s", t, buf, buf, p->file);
            break;
        }
        if (seen[t]) {
            rc = diag_set(err, "t%ld placed twice", t);
            break;
        }
        seen[t] = 1;
        node_of_task[t] = node;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == ',')
            s++;
        else if (*s) {
            rc = diag_set(err, "expected ',' at '%.20s'", s);
            break;
        }
    }
    free(seen);
    return rc;
}

/* Seconds of one move from node a (or the outside) to node b. */
static int move_time(const skel_platform *p, int a, int b, double data, double *secs, diag *err)
{
    double lat, bw;
    if (a == SKEL_LOCAL || b == SKEL_LOCAL) {
        if (p->local_latency < 0)
            return diag_set(err, "%s: no LocalLatency= (needed for the input/output moves)",
                            p->file);
        *secs = p->local_latency;
        return 0;
    }
    if (skel_platform_link(p, a, b, &lat, &bw, err) < 0)
        return -1;
    *secs = lat + (bw > 0 && data > 0 ? data / bw : 0);
    return 0;
}

int skel_place_rates(const skel_model *m, const skel_platform *p, const int *node_of_task,
                     double *mu, double *lambda, diag *err)
{
    int *load = calloc((size_t)(p->nnodes ? p->nnodes : 1), sizeof *load);
    if (!load)
        return diag_set(err, "out of memory");
    int rc = 0;
    for (int i = 0; i < m->ntasks && rc == 0; i++) {
        if (node_of_task[i] < 0 || node_of_task[i] >= p->nnodes)
            rc = diag_set(err, "task t%d is not placed on a node of %s", i, p->file);
        else
            load[node_of_task[i]]++;
    }
    /* A task on node j computes at rate * Speed_j / n_j (equitable sharing);
     * under processor sharing mu is its rate alone on the node, which the
     * model divides among the tasks computing at the time. */
    for (int i = 0; i < m->ntasks && rc == 0; i++) {
        int j = node_of_task[i];
        mu[i] = m->work[i] * p->nodes[j].speed / (p->sharing == SKEL_SHARE_STATIC ? load[j] : 1);
    }
    for (int k = 0; k < m->nedges && rc == 0; k++) {
        skel_edge e = m->edges[k];
        int a, b;
        double data = 0, secs = 0;
        if (e.from == SKEL_IN) {
            a = p->input;
            b = node_of_task[e.to];
        } else {
            a = node_of_task[e.from];
            data = m->data[e.from];
            b = e.to == SKEL_OUT ? p->output : node_of_task[e.to];
        }
        /* Input/Output on a node: a move between that node and the task's
         * (LocalLatency when they are the same node). */
        rc = move_time(p, a, b, data, &secs, err);
        if (rc == 0) {
            lambda[k] = 1.0 / secs;
            if (!isfinite(lambda[k]))
                rc = diag_set(err, "a move rate is not finite (latency %g s)", secs);
        }
    }
    free(load);
    return rc;
}

int skel_model_place(skel_model *m, const skel_platform *p, const int *node_of_task, diag *err)
{
    double *mu = malloc((size_t)(m->ntasks ? m->ntasks : 1) * sizeof *mu);
    double *lambda = malloc((size_t)(m->nedges ? m->nedges : 1) * sizeof *lambda);
    int rc = -1;
    if (!mu || !lambda)
        diag_set(err, "out of memory");
    else if (skel_place_rates(m, p, node_of_task, mu, lambda, err) == 0)
        rc = skel_model_set_rates(m, mu, lambda, err);
    free(lambda);
    free(mu);
    return rc;
}
