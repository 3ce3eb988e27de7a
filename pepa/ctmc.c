/* pepa_ctmc: allocation, construction from triples, residual. See ctmc.h. */
#include "ctmc.h"

#include <math.h>
#include <stdlib.h>

pepa_ctmc *pepa_ctmc_new(uint32_t n, uint64_t nnz)
{
    if ((uint64_t)SIZE_MAX / sizeof(double) < nnz)
        return NULL;
    pepa_ctmc *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->n = n;
    q->nnz = nnz;
    /* +1 so that an empty chain still gets real, freeable arrays */
    q->rowp = calloc((size_t)n + 1, sizeof *q->rowp);
    q->col = malloc(((size_t)nnz + 1) * sizeof *q->col);
    q->val = malloc(((size_t)nnz + 1) * sizeof *q->val);
    q->out = malloc(((size_t)n + 1) * sizeof *q->out);
    if (!q->rowp || !q->col || !q->val || !q->out) {
        pepa_ctmc_free(q);
        return NULL;
    }
    return q;
}

void pepa_ctmc_free(pepa_ctmc *q)
{
    if (!q)
        return;
    free(q->out);
    free(q->val);
    free(q->col);
    free(q->rowp);
    free(q);
}

/* Two stable counting sorts (by source, then by destination) leave every
 * row of Q^T sorted by column, so duplicates end up adjacent and are summed
 * in one pass; O(n + m), no comparison sort. */
pepa_ctmc *pepa_ctmc_from_triples(uint32_t n, size_t m, const uint32_t *src,
                                  const uint32_t *dst, const double *rate)
{
    size_t keep = 0;
    for (size_t k = 0; k < m; k++) {
        if (src[k] >= n || dst[k] >= n || !(rate[k] >= 0.0) || !isfinite(rate[k]))
            return NULL;
        if (src[k] != dst[k] && rate[k] > 0.0)
            keep++;
    }
    size_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    size_t *by_src = malloc((keep + 1) * sizeof *by_src);
    size_t *by_dst = malloc((keep + 1) * sizeof *by_dst);
    pepa_ctmc *q = NULL;
    if (!cnt || !by_src || !by_dst)
        goto done;

    /* pass 1: kept triples ordered by source */
    for (size_t k = 0; k < m; k++)
        if (src[k] != dst[k] && rate[k] > 0.0)
            cnt[src[k] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        cnt[i + 1] += cnt[i];
    for (size_t k = 0; k < m; k++)
        if (src[k] != dst[k] && rate[k] > 0.0)
            by_src[cnt[src[k]]++] = k;

    /* pass 2: stable by destination */
    for (uint32_t i = 0; i <= n; i++)
        cnt[i] = 0;
    for (size_t t = 0; t < keep; t++)
        cnt[dst[by_src[t]] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        cnt[i + 1] += cnt[i];
    for (size_t t = 0; t < keep; t++)
        by_dst[cnt[dst[by_src[t]]]++] = by_src[t];

    /* count distinct (dst, src) pairs */
    uint64_t nnz = 0;
    for (size_t t = 0; t < keep; t++) {
        size_t k = by_dst[t];
        if (t == 0 || dst[k] != dst[by_dst[t - 1]] || src[k] != src[by_dst[t - 1]])
            nnz++;
    }
    q = pepa_ctmc_new(n, nnz);
    if (!q)
        goto done;
    for (uint32_t i = 0; i < n; i++)
        q->out[i] = 0.0;
    uint64_t p = 0;
    for (size_t t = 0; t < keep; t++) {
        size_t k = by_dst[t];
        if (t > 0 && dst[k] == dst[by_dst[t - 1]] && src[k] == src[by_dst[t - 1]]) {
            q->val[p - 1] += rate[k];
        } else {
            q->col[p] = src[k];
            q->val[p] = rate[k];
            q->rowp[dst[k] + 1] = ++p;
        }
        q->out[src[k]] += rate[k];
    }
    /* rows without entries inherit the previous row end */
    for (uint32_t j = 0; j < n; j++)
        if (q->rowp[j + 1] < q->rowp[j])
            q->rowp[j + 1] = q->rowp[j];
done:
    free(by_dst);
    free(by_src);
    free(cnt);
    return q;
}

double pepa_ctmc_residual(const pepa_ctmc *q, const double *pi)
{
    double r = 0.0;
    for (uint32_t j = 0; j < q->n; j++) {
        double s = -pi[j] * q->out[j];
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            s += pi[q->col[k]] * q->val[k];
        s = fabs(s);
        if (isnan(s))       /* a NaN residual is never "small" */
            return s;
        if (s > r)
            r = s;
    }
    return r;
}

double pepa_ctmc_max_exit(const pepa_ctmc *q)
{
    double r = 0.0;
    for (uint32_t j = 0; j < q->n; j++)
        r = q->out[j] > r ? q->out[j] : r;
    return r;
}

size_t pepa_ctmc_bytes(const pepa_ctmc *q)
{
    if (!q)
        return 0;
    return sizeof *q + ((size_t)q->n + 1) * (sizeof *q->rowp + sizeof *q->out)
           + (size_t)q->nnz * (sizeof *q->col + sizeof *q->val);
}

/* Two passes: count the kept entries, then copy them renumbered. A closed
 * set has no edge leaving it, so the exit rates carry over unchanged. */
pepa_ctmc *pepa_ctmc_sub(const pepa_ctmc *q, const unsigned char *keep, uint32_t *map)
{
    uint32_t m = 0;
    for (uint32_t j = 0; j < q->n; j++)
        map[j] = keep[j] ? m++ : UINT32_MAX;
    uint64_t nnz = 0;
    for (uint32_t j = 0; j < q->n; j++)
        if (keep[j])
            for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
                nnz += keep[q->col[k]] != 0;
    pepa_ctmc *s = pepa_ctmc_new(m, nnz);
    if (!s)
        return NULL;
    uint64_t p = 0;
    for (uint32_t j = 0; j < q->n; j++) {
        if (!keep[j])
            continue;
        uint32_t t = map[j];
        s->rowp[t] = p;
        s->out[t] = q->out[j];
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            if (keep[q->col[k]]) {
                s->col[p] = map[q->col[k]];
                s->val[p++] = q->val[k];
            }
    }
    s->rowp[m] = p;
    return s;
}
