/* pepa_export: PRISM .tra/.sta and Matrix Market output. See export.h. */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static FILE *open_out(const char *path, diag *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        diag_set(err, "%s: %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path, diag *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return diag_set(err, "%s: write error", path);
    return 0;
}

/* Edges by source, as PRISM wants them: transpose Q^T back. */
static int by_source(const pepa_ctmc *q, uint64_t **rowp, uint32_t **dst, double **val)
{
    *rowp = calloc((size_t)q->n + 1, sizeof **rowp);
    *dst = malloc((q->nnz + 1) * sizeof **dst);
    *val = malloc((q->nnz + 1) * sizeof **val);
    if (!*rowp || !*dst || !*val) {
        free(*rowp); free(*dst); free(*val);
        return -1;
    }
    for (uint64_t k = 0; k < q->nnz; k++)
        (*rowp)[q->col[k] + 1]++;
    for (uint32_t i = 0; i < q->n; i++)
        (*rowp)[i + 1] += (*rowp)[i];
    uint64_t *next = malloc(((size_t)q->n + 1) * sizeof *next);
    if (!next) {
        free(*rowp); free(*dst); free(*val);
        return -1;
    }
    memcpy(next, *rowp, (size_t)q->n * sizeof *next);
    for (uint32_t j = 0; j < q->n; j++)
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++) {
            uint64_t s = next[q->col[k]]++;
            (*dst)[s] = j;
            (*val)[s] = q->val[k];
        }
    free(next);
    return 0;
}

int pepa_export_prism(const pepa_space *sp, const char *prefix, diag *err)
{
    size_t len = strlen(prefix) + 5;
    char *path = malloc(len);
    uint64_t *rowp;
    uint32_t *dst;
    double *val;
    if (!path || by_source(sp->q, &rowp, &dst, &val) < 0) {
        free(path);
        return diag_set(err, "out of memory");
    }
    snprintf(path, len, "%s.tra", prefix);
    FILE *f = open_out(path, err);
    int rc = f ? 0 : -1;
    if (f) {
        fprintf(f, "%u %llu\n", sp->n, (unsigned long long)sp->q->nnz);
        for (uint32_t i = 0; i < sp->n; i++)
            for (uint64_t k = rowp[i]; k < rowp[i + 1]; k++)
                fprintf(f, "%u %u %.17g\n", i, dst[k], val[k]);
        rc = close_out(f, path, err);
    }
    free(rowp); free(dst); free(val);
    if (rc == 0) {
        snprintf(path, len, "%s.sta", prefix);
        f = open_out(path, err);
        rc = f ? 0 : -1;
        if (f) {
            const pepa_system *s = sp->sys;
            fputc('(', f);
            for (int i = 0; i < s->nleaves; i++)
                fprintf(f, "%s%s", i ? "," : "", s->nodes[s->leaves[i]].name);
            fputs(")\n", f);
            for (uint32_t i = 0; i < sp->n; i++) {
                fprintf(f, "%u:", i);
                pepa_space_print_state(sp, i, f);
                fputc('\n', f);
            }
            rc = close_out(f, path, err);
        }
    }
    free(path);
    return rc;
}

int pepa_export_mm(const pepa_space *sp, const char *path, diag *err)
{
    const pepa_ctmc *q = sp->q;
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n"
               "%% generator Q of a CTMC derived by skelsched: Q(i,j) rate from i to j\n"
               "%u %u %llu\n", q->n, q->n, (unsigned long long)(q->nnz + q->n));
    for (uint32_t j = 0; j < q->n; j++) {
        fprintf(f, "%u %u %.17g\n", j + 1, j + 1, -q->out[j]);
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            fprintf(f, "%u %u %.17g\n", q->col[k] + 1, j + 1, q->val[k]);
    }
    return close_out(f, path, err);
}
