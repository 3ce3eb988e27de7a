/* cost/darlington.c: Darlington et al. 1993's PIPE and FARM performance models, the ideal
 * forms (§4.2, §4.3) and the forms instantiated for an implementation with
 * a master and P - 1 slaves (§5.1, §5.2). Equation text in cost.h. */
#include "cost.h"

#include <math.h>

double cost_farm_ideal(double ts, double te, double tc, double n, int p)
{
    double rounds = ceil(n / (p > 0 ? p : 1));
    return ts + rounds * (te + 2 * tc);
}

double cost_pipe_ideal(double ts, double te, double tc, int p, double n, int v)
{
    return ts + (te * (v > 0 ? v : 1) + tc) * (p + n - 1);
}

static int check_job(const cost_job *j, diag *err)
{
    if (j->p < 2)
        return diag_set(err, "P = %d: the implementation needs a master and at least one slave",
                        j->p);
    if (j->grain < 1)
        return diag_set(err, "grain g = %d: must be at least 1", j->grain);
    if (!(j->nw >= 1))
        return diag_set(err, "N_w = %g: at least one work packet", j->nw);
    return 0;
}

int cost_farm_time(const cost_machine *m, const cost_job *j, cost_parts *out, diag *err)
{
    if (check_job(j, err) < 0)
        return -1;
    double g = j->grain;
    cost_parts c = { 0 };
    c.setup = m->i0 + m->i1 * j->p;
    c.rounds = ceil(j->nw / (g * (j->p - 1)));
    c.comms = c.rounds * (2 * m->to + g * (j->d + j->r) * m->tb +
                          g * (2 * m->tfo + m->tf * (j->r + j->d)));
    c.work = c.rounds * g * j->tw;
    /* the slaves collect in parallel: the collections of one slave count */
    c.gc = ceil(j->ws * g * m->gc_rate * c.rounds) * m->gc_time;
    c.total = c.setup + c.comms + c.work + c.gc;
    *out = c;
    return 0;
}

int cost_pipe_time(const cost_machine *m, const cost_job *j, cost_parts *out, diag *err)
{
    if (check_job(j, err) < 0)
        return -1;
    double g = j->grain;
    int np = j->np > 0 ? j->np : j->p - 1;
    cost_parts c = { 0 };
    c.setup = m->i0 + m->i1 * j->p;
    c.rounds = ceil(j->nw / g);
    double prc = g * j->tw * ceil((double)np / (j->p - 1));
    double comms = m->to + j->d * m->tb + 2 * (m->tfo + j->d * m->tf);
    c.fill = j->p * (m->to + j->d * m->tb) + (j->p - 1) * (2 * (m->tfo + j->d * m->tf) + prc);
    c.work = (c.rounds - 1) * prc;
    c.comms = (c.rounds - 1) * comms;
    double total_work = j->nw * j->ws;     /* W, in units of work as G is */
    double ideal = ceil(total_work * m->gc_rate / (j->p - 1)) * m->gc_time;
    double worst = ceil(total_work * m->gc_rate) * m->gc_time;
    c.gc = (ideal + worst) / 2;
    c.total = c.setup + c.fill + c.work + c.comms + c.gc;
    *out = c;
    return 0;
}
