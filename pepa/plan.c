/* The rate plan of a chain (pepa/space.h): every transition as a
 * coefficient times one parameter. */
#include "space.h"

#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

typedef struct plan_walk {
    pepa_plan *plan;
    const int *act_param;
    const double *act_value;
    size_t max, cap;
    diag *err;
} plan_walk;

static int plan_grow(plan_walk *w)
{
    pepa_plan *p = w->plan;
    size_t nc = w->cap ? 2 * w->cap : 4096;
    if (mem_grow((void **)&p->src, nc, sizeof *p->src) < 0 ||
        mem_grow((void **)&p->entry, nc, sizeof *p->entry) < 0 ||
        mem_grow((void **)&p->param, nc, sizeof *p->param) < 0 ||
        mem_grow((void **)&p->coef, nc, sizeof *p->coef) < 0)
        return -1;
    w->cap = nc;
    return 0;
}

/* One transition into the plan (pepa_walk_fn). */
static int plan_add(void *ctx, uint32_t i, int action, double rate, uint64_t entry)
{
    plan_walk *w = ctx;
    pepa_plan *p = w->plan;
    int prm = w->act_param[action];
    if (prm == PEPA_PLAN_NONE || p->n >= w->max)
        return PEPA_PLAN_REFUSED;
    if (p->n == w->cap && plan_grow(w) < 0)
        return diag_set(w->err, "out of memory");
    p->src[p->n] = i;
    p->entry[p->n] = entry;
    p->param[p->n] = prm;
    p->coef[p->n] = rate / w->act_value[action];
    p->n++;
    return 0;
}

int pepa_plan_build(pepa_space *sp, const int *act_param, const double *act_value, size_t max,
                    pepa_plan *plan, diag *err)
{
    plan_walk w = { plan, act_param, act_value, max, 0, err };
    pepa_plan_free(plan);
    int rc = pepa_space_walk(sp, plan_add, &w, err);
    if (rc != PEPA_PLAN_BUILT)
        plan->n = 0;
    return rc;
}

void pepa_plan_free(pepa_plan *plan)
{
    free(plan->coef);
    free(plan->param);
    free(plan->entry);
    free(plan->src);
    memset(plan, 0, sizeof *plan);
}
