/* cost/remote.c: Alt et al. 2002's cost of executing a skeleton on a remote
 * server, T = 2 t_s + (n + o + r) t_w + t_skel (eq. 1), its reduce
 * implementation (eq. 2), and the per-task server choice it serves. */
#include "cost.h"

#include <math.h>

double cost_remote_time(double ts, double tw, double n, double o, double r, double tskel)
{
    return 2 * ts + (n + o + r) * tw + tskel;
}

double cost_remote_reduce(double n, int p, double top)
{
    if (p < 1)
        p = 1;
    return (ceil(n / p) - 1) * top + (p - 1) * top;
}
