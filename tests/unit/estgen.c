/* estgen: the estimate's synthetic sampler (estgen.h). */
#include "tests/unit/estgen.h"

#include <math.h>

#include "skeleton/approx_int.h"

double estgen_normal(uint64_t *s)
{
    double u = ax_uniform(s), v = ax_uniform(s);
    return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

double estgen_pass(void *ctx, long n, double last)
{
    estgen_run *r = ctx;
    double e = estgen_normal(&r->seed), c = r->rho > 0 ? estgen_normal(&r->seed) : 0;
    double sd = sqrt((double)n) * r->cv;
    r->z += sd * c;
    return last + (double)n + sd * (r->rho * c + sqrt(1 - r->rho * r->rho) * e);
}
