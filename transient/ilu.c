/* ILU(0) of M = I - gamma Q^T, the preconditioner of CVODE's SPGMR solves
 * on chains too large for a sparse LU (bench_transient: the diagonal alone
 * leaves GMRES many iterations per Newton step on production.pepa).
 * The pattern is Q^T's plus the diagonal, built once; each setup refills
 * the values for the current gamma and factors in place. */
#include <stdlib.h>

#include "internal.h"

struct tr_ilu {
    uint32_t n;
    uint64_t *p;       /* n + 1 */
    uint32_t *ix;      /* sorted columns, diagonal included */
    uint64_t *dpos;    /* position of the diagonal in each row */
    double *v;         /* factors: L strictly below (unit diagonal), U on and above */
    int64_t *mark;     /* n: position of a column in the current row, or -1 */
};

tr_ilu *tr_ilu_new(const pepa_ctmc *q)
{
    tr_ilu *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    uint64_t nz = q->nnz + q->n;
    f->n = q->n;
    f->p = malloc(((size_t)q->n + 1) * sizeof *f->p);
    f->ix = malloc((size_t)nz * sizeof *f->ix);
    f->dpos = malloc((size_t)q->n * sizeof *f->dpos);
    f->v = malloc((size_t)nz * sizeof *f->v);
    f->mark = malloc((size_t)q->n * sizeof *f->mark);
    if (!f->p || !f->ix || !f->dpos || !f->v || !f->mark) {
        tr_ilu_free(f);
        return NULL;
    }
    uint64_t e = 0;
    for (uint32_t j = 0; j < q->n; j++) {
        f->p[j] = e;
        int done = 0;
        for (uint64_t k = q->rowp[j]; k <= q->rowp[j + 1]; k++) {
            if (!done && (k == q->rowp[j + 1] || q->col[k] > j)) {
                f->dpos[j] = e;
                f->ix[e++] = j;
                done = 1;
            }
            if (k < q->rowp[j + 1])
                f->ix[e++] = q->col[k];
        }
        f->mark[j] = -1;
    }
    f->p[q->n] = e;
    return f;
}

void tr_ilu_free(tr_ilu *f)
{
    if (!f)
        return;
    free(f->mark);
    free(f->v);
    free(f->dpos);
    free(f->ix);
    free(f->p);
    free(f);
}

int tr_ilu_factor(tr_ilu *f, const pepa_ctmc *q, double gamma)
{
    /* fill M's values in the merged pattern */
    for (uint32_t j = 0; j < q->n; j++) {
        uint64_t e = f->p[j];
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++, e++) {
            if (e == f->dpos[j])
                e++;
            f->v[e] = -gamma * q->val[k];
        }
        f->v[f->dpos[j]] = 1 + gamma * q->out[j];
    }
    /* IKJ ILU(0): only entries of the pattern are updated */
    for (uint32_t i = 0; i < f->n; i++) {
        for (uint64_t e = f->p[i]; e < f->p[i + 1]; e++)
            f->mark[f->ix[e]] = (int64_t)e;
        for (uint64_t e = f->p[i]; e < f->dpos[i]; e++) {
            uint32_t k = f->ix[e];
            double piv = f->v[f->dpos[k]];
            if (piv == 0)
                return -1;
            f->v[e] /= piv;
            for (uint64_t e2 = f->dpos[k] + 1; e2 < f->p[k + 1]; e2++) {
                int64_t t = f->mark[f->ix[e2]];
                if (t >= 0)
                    f->v[t] -= f->v[e] * f->v[e2];
            }
        }
        for (uint64_t e = f->p[i]; e < f->p[i + 1]; e++)
            f->mark[f->ix[e]] = -1;
        if (f->v[f->dpos[i]] == 0)
            return -1;
    }
    return 0;
}

void tr_ilu_solve(const tr_ilu *f, const double *r, double *z)
{
    for (uint32_t i = 0; i < f->n; i++) {
        double s = r[i];
        for (uint64_t e = f->p[i]; e < f->dpos[i]; e++)
            s -= f->v[e] * z[f->ix[e]];
        z[i] = s;
    }
    for (uint32_t i = f->n; i-- > 0;) {
        double s = z[i];
        for (uint64_t e = f->dpos[i] + 1; e < f->p[i + 1]; e++)
            s -= f->v[e] * z[f->ix[e]];
        z[i] = s / f->v[f->dpos[i]];
    }
}
