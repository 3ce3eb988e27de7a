/* bench_rank: when is a cheap formula good enough? The papers' analytic
 * cost models (cost/: Darlington et al. 1993, P3L after Zavanella 1999, remote
 * execution after Alt et al. 2002) against the Markov model (PEPA, solved) on the same
 * placements.
 *
 *   (a) For each case (a skeleton on a platform) every placement, or a
 *       fixed pseudo-random sample of 1500 when there are more, is solved
 *       with the Markov model and estimated by each analytic model. Per
 *       case and model: Spearman's rank correlation of the two rankings,
 *       and the loss of the analytic choice: 1 - X(choice) / X(best), X
 *       the Markov throughput, the choice being the placement the model
 *       ranks first (the mean X over placements it ties for first). Then
 *       the same for Alt et al. 2002's greedy choice of a server per task. The
 *       summary counts the cases where the choice loses more than 0.1%.
 *   (b) Zavanella 1999's optimal farm degree n^ (eq. 6) for the bottleneck of
 *       Yaikhom et al. 2007's Fig. 5 pipeline, against the Markov model: the
 *       throughput of that farm beside the uniform pipeline's, and the
 *       smallest degrees the Markov model needs to reach 95% and 100% of it.
 *
 * Every case begins with a single task, so the Markov throughput of comp_0
 * that the placement search ranks by is the skeleton's throughput.
 * usage: bench_rank [a|b|all] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice/advice.h"
#include "base/clock.h"
#include "cost/cost.h"
#include "skeleton/skeleton.h"

#define SAMPLE 1500
#define LOSS_EPS 1e-3

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* A heterogeneous platform of n nodes drawn from seed: speeds 1..8, a
 * default latency, a few faster links with bandwidths. */
static char *random_platform(int n, uint64_t seed)
{
    static const double speeds[] = { 1, 2, 3, 5, 8 };
    size_t cap = 4096;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    int len = snprintf(buf, cap, "LocalLatency=0.0001 DefaultLatency=%g Input=h0 Output=local\n",
                       uniform(&seed) < 0.5 ? 0.01 : 0.05);
    for (int j = 0; j < n; j++)
        len += snprintf(buf + len, cap - (size_t)len, "NodeName=h%d Speed=%g\n", j,
                        speeds[(int)(uniform(&seed) * 5)]);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (uniform(&seed) < 0.4)
                len += snprintf(buf + len, cap - (size_t)len, "Link=h%d,h%d Latency=%g Bandwidth=%g\n",
                                a, b, uniform(&seed) < 0.5 ? 0.001 : 0.1,
                                uniform(&seed) < 0.5 ? 1e7 : 1e9);
    return buf;
}

static const char pipe4[] =
    "pipe(4); task(\"read\", 4, data=1e5); task(\"filter\", 2, data=1e5);"
    " task(\"fft\", 1, data=2e4); task(\"write\", 3);";
static const char pipefarm[] =
    "pipe(3); task(\"emit\", 3, data=1e5); farm(2, \"work\", 1, data=1e4); task(\"collect\", 4);";
static const char pipedeal[] =
    "pipe(3); task(\"emit\", 3, data=1e5); deal(2, \"work\", 1, data=1e4); task(\"collect\", 4);";
static const char fig5[] =
    "pipe(5); task(\"s1\", 100); task(\"s2\", 100); task(\"b\", 50); task(\"s4\", 100);"
    " task(\"s5\", 100);";
static const char amoget_pipe[] =
    "pipe(3); task(\"stage1\", 1); task(\"stage2\", 1); task(\"stage3\", 1);";

typedef struct acase {
    const char *name, *skel;
    skel_style style;
    int nodes;                /* random platform of this many nodes... */
    uint64_t seed;
    const char *plat_file;    /* ...or this file under SRCDIR/examples/platforms */
} acase;

static const acase cases[] = {
    { "pipe3 / cluster", amoget_pipe, SKEL_STYLE_STREAM, 0, 0, "cluster.conf" },
    { "pipe4 / cluster", pipe4, SKEL_STYLE_STREAM, 0, 0, "cluster.conf" },
    { "pipe+farm / cluster", pipefarm, SKEL_STYLE_STREAM, 0, 0, "cluster.conf" },
    { "pipe+deal / cluster", pipedeal, SKEL_STYLE_STREAM, 0, 0, "cluster.conf" },
    { "fig5 / fig5 nodes", fig5, SKEL_STYLE_PRODUCER, 0, 0, "identical8.conf" },
    { "pipe3 / random 5 #1", amoget_pipe, SKEL_STYLE_STREAM, 5, 11, NULL },
    { "pipe4 / random 5 #2", pipe4, SKEL_STYLE_STREAM, 5, 12, NULL },
    { "pipe4 / random 6 #3", pipe4, SKEL_STYLE_STREAM, 6, 13, NULL },
    { "pipe+farm / random 5 #4", pipefarm, SKEL_STYLE_STREAM, 5, 14, NULL },
    { "pipe+deal / random 5 #5", pipedeal, SKEL_STYLE_STREAM, 5, 15, NULL },
    { "pipe+farm / random 6 #6", pipefarm, SKEL_STYLE_STREAM, 6, 16, NULL },
    { "fig5 / random 4 #7", fig5, SKEL_STYLE_PRODUCER, 4, 17, NULL },
};

/* Average ranks (1 = largest), ties sharing their mean rank. */
static void ranks(const double *v, int n, double *r, int *idx)
{
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = 1; i < n; i++) {    /* insertion sort by value, descending */
        int x = idx[i], q = i;
        while (q > 0 && v[idx[q - 1]] < v[x]) {
            idx[q] = idx[q - 1];
            q--;
        }
        idx[q] = x;
    }
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && fabs(v[idx[j + 1]] - v[idx[i]]) <= 1e-12 * fabs(v[idx[i]]))
            j++;
        for (int k = i; k <= j; k++)
            r[idx[k]] = (i + j) / 2.0 + 1;
        i = j + 1;
    }
}

static double spearman(const double *a, const double *b, int n, double *ra, double *rb, int *idx)
{
    ranks(a, n, ra, idx);
    ranks(b, n, rb, idx);
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

typedef struct totals {
    double rho_sum, loss_sum, loss_max;
    int lost, n;
} totals;

static int run_case(const acase *c, totals *tot, diag *err)
{
    skel_tree *t = NULL;
    skel_dag *d = NULL;
    skel_model *m = NULL;
    skel_platform *p = NULL;
    skel_search_result *r = NULL;
    char *text = NULL;
    int *cand = NULL, rc = -1;
    double *x = NULL, *est = NULL, *ra = NULL, *rb = NULL;
    int *idx = NULL, *greedy = NULL;
    if (c->plat_file) {
        const char *src = getenv("SRCDIR");
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/platforms/%s", src ? src : ".", c->plat_file);
        p = skel_platform_parse_file(path, NULL, NULL, err);
    } else if ((text = random_platform(c->nodes, c->seed))) {
        p = skel_platform_parse_string(text, strlen(text), "random.conf", NULL, NULL, err);
    }
    if (!p || !(t = skel_parse_string(c->skel, strlen(c->skel), "bench.skel", err)) ||
        !(d = skel_dag_build(t, c->style, err)) || !(m = skel_model_new(t, d, err)))
        goto done;
    int nt = m->ntasks, nn = p->nnodes;
    double space = pow(nn, nt);
    int nc = space <= SAMPLE ? (int)space : SAMPLE;
    cand = malloc((size_t)nc * (size_t)nt * sizeof *cand);
    x = malloc((size_t)nc * sizeof *x);
    est = malloc((size_t)nc * sizeof *est);
    ra = malloc((size_t)nc * sizeof *ra);
    rb = malloc((size_t)nc * sizeof *rb);
    idx = malloc((size_t)nc * sizeof *idx);
    greedy = malloc((size_t)nt * sizeof *greedy);
    if (!cand || !x || !est || !ra || !rb || !idx || !greedy) {
        diag_set(err, "out of memory");
        goto done;
    }
    /* every placement in order, or distinct pseudo-random ones */
    uint64_t seed = 777 + c->seed;
    for (int k = 0; k < nc; k++) {
        int *pl = cand + (size_t)k * (size_t)nt;
        for (int again = 1; again;) {
            long code = space <= SAMPLE ? k : (long)(uniform(&seed) * space);
            for (int i = 0; i < nt; i++, code /= nn)
                pl[i] = (int)(code % nn);
            again = 0;
            for (int q = 0; q < k && !again; q++)
                again = memcmp(cand + (size_t)q * (size_t)nt, pl, (size_t)nt * sizeof *pl) == 0;
        }
    }
    double t0 = clock_now();
    skel_search_opts so = { 0 };
    so.candidates = cand;
    so.ncandidates = nc;
    so.top = nc;
    so.no_prune = 1;
    so.no_symmetry = 1;
    if (!(r = skel_search(m, d, p, &so, err)))
        goto done;
    double secs = clock_now() - t0;
    if (r->nranked != nc) {
        diag_set(err, "%s: %d of %d placements solved", c->name, r->nranked, nc);
        goto done;
    }
    for (int k = 0; k < nc; k++) {
        const int *pl = cand + (size_t)k * (size_t)nt;
        x[k] = -1;
        for (int q = 0; q < nc && x[k] < 0; q++)
            if (memcmp(r->ranked[q].placement, pl, (size_t)nt * sizeof *pl) == 0)
                x[k] = r->ranked[q].throughput;
    }
    double best = r->ranked[0].throughput;
    printf("%-26s %5d %8.3f", c->name, nc, secs);
    for (int k = 0; k < COST_NMODELS; k++) {
        double top = -1, sum = 0;
        int ties = 0;
        for (int q = 0; q < nc; q++) {
            cost_estimate e;
            if (cost_estimate_placement((cost_model)k, t, m, p, cand + (size_t)q * (size_t)nt, 1,
                                        &e, err) < 0)
                goto done;
            est[q] = e.throughput;
            cost_estimate_free(&e);
        }
        for (int q = 0; q < nc; q++) {
            if (est[q] > top * (1 + 1e-12)) {
                top = est[q];
                sum = 0;
                ties = 0;
            }
            if (fabs(est[q] - top) <= 1e-12 * top) {
                sum += x[q];
                ties++;
            }
        }
        double rho = spearman(est, x, nc, ra, rb, idx);
        double loss = 1 - sum / ties / best;
        printf("  %6.3f %6.2f%%", rho, 100 * loss);
        tot[k].rho_sum += rho;
        tot[k].loss_sum += loss;
        tot[k].loss_max = fmax(tot[k].loss_max, loss);
        tot[k].lost += loss > LOSS_EPS;
        tot[k].n++;
    }
    /* Alt et al. 2002's greedy server per task, solved */
    adv_eval ev;
    if (cost_remote_choose(m, p, greedy, err) < 0 ||
        adv_evaluate(t, c->style, p, greedy, &ev, err) < 0)
        goto done;
    double gloss = 1 - ev.throughput / best;
    adv_eval_free(&ev);
    printf("  %6.2f%%%s\n", 100 * gloss, space > SAMPLE ? " *" : "");
    tot[COST_NMODELS].loss_sum += gloss;
    tot[COST_NMODELS].loss_max = fmax(tot[COST_NMODELS].loss_max, gloss);
    tot[COST_NMODELS].lost += gloss > LOSS_EPS;
    tot[COST_NMODELS].n++;
    rc = 0;
done:
    free(greedy);
    free(idx);
    free(rb);
    free(ra);
    free(est);
    free(x);
    free(cand);
    free(text);
    skel_search_result_free(r);
    skel_model_free(m);
    skel_dag_free(d);
    skel_tree_free(t);
    skel_platform_free(p);
    return rc;
}

static int part_a(void)
{
    printf("(a) analytic rankings against the Markov model's (rho: Spearman; loss: 1 - X(choice)/X(best))\n\n");
    printf("%-26s %5s %8s", "case", "plcmt", "markov s");
    for (int k = 0; k < COST_NMODELS; k++)
        printf("  %-14s", cost_model_name((cost_model)k));
    printf("  %s\n%-41s", "remote-greedy", "");
    for (int k = 0; k < COST_NMODELS; k++)
        printf("  %6s %7s", "rho", "loss");
    printf("  %7s\n", "loss");
    totals tot[COST_NMODELS + 1];
    memset(tot, 0, sizeof tot);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        diag err;
        diag_clear(&err);
        if (run_case(&cases[i], tot, &err) < 0) {
            fprintf(stderr, "bench_rank: %s: %s\n", cases[i].name, err.msg);
            return -1;
        }
    }
    printf("\n%-16s %10s %10s %10s %14s\n", "model", "mean rho", "mean loss", "max loss",
           "cases losing");
    for (int k = 0; k <= COST_NMODELS; k++)
        printf("%-16s %10s %9.2f%% %9.2f%% %8d of %d\n",
               k < COST_NMODELS ? cost_model_name((cost_model)k) : "remote-greedy",
               k < COST_NMODELS ? "" : "-", 100 * tot[k].loss_sum / tot[k].n,
               100 * tot[k].loss_max, tot[k].lost, tot[k].n);
    for (int k = 0; k < COST_NMODELS; k++)
        printf("mean rho %-12s %.3f\n", cost_model_name((cost_model)k), tot[k].rho_sum / tot[k].n);
    printf("(* sampled placements; loss above %.1f%% counts as losing)\n\n", 100 * LOSS_EPS);
    return 0;
}

/* (b) Zavanella 1999's n^ for the Fig. 5 bottleneck against the Markov model. */
static int part_b(void)
{
    printf("(b) Zavanella 1999's farm degree n^ (eq. 6, g = l = 0) for the Fig. 5 bottleneck (rate 50)\n\n");
    printf("%-6s %-10s %4s %-12s %-10s %-9s %s\n", "rate", "uniform X", "n^", "X farm n^",
           "X/uniform", "n for 95%", "n for 100% (smallest farm reaching that share of uniform X)");
    diag err;
    diag_clear(&err);
    /* Yaikhom et al. 2007 Fig. 5's setting: identical nodes, every move at rate 10^4 */
    static const char plat[] = "NodeName=n[0-15] Speed=1\nDefaultLatency=0.0001 LocalLatency=0.0001\n";
    skel_platform *p = skel_platform_parse_string(plat, strlen(plat), "fig5.conf", NULL, NULL, &err);
    skel_tree *base = skel_parse_string(fig5, strlen(fig5), "fig5.skel", &err);
    int rc = -1;
    if (!p || !base)
        goto done;
    int place[32];
    for (int i = 0; i < 32; i++)
        place[i] = i % p->nnodes;
    for (double rate = 100; rate <= 400; rate += 100) {
        double rates[5] = { rate, rate, 0, rate, rate }, uni[5] = { rate, rate, rate, rate, rate };
        skel_tree *cur = adv_with_rates(base, rates, &err), *u = adv_with_rates(base, uni, &err);
        adv_eval ev;
        double xu = -1;
        if (u && adv_evaluate(u, SKEL_STYLE_PRODUCER, p, place, &ev, &err) == 0) {
            xu = ev.throughput;
            adv_eval_free(&ev);
        }
        cost_bsp b = { 0, 0, 0 };
        int nhat, lim;
        double khat;
        double xn = -1;
        int need = -1, full = -1;
        if (cur && xu > 0 && cost_p3l_optimal(&b, 0, 1.0 / 50, 1 / rate, 0, &nhat, &khat, &lim, &err) == 0)
            for (int n = 2; n <= 12 && (full < 0 || xn < 0); n++) {
                skel_tree *f = adv_replicate(cur, 2, SKEL_FARM, n, &err);
                if (!f || adv_evaluate(f, SKEL_STYLE_PRODUCER, p, place, &ev, &err) < 0) {
                    skel_tree_free(f);
                    xu = -1;
                    break;
                }
                if (n == nhat)
                    xn = ev.throughput;
                if (need < 0 && ev.throughput >= 0.95 * xu)
                    need = n;
                if (full < 0 && ev.throughput >= xu)
                    full = n;
                adv_eval_free(&ev);
                skel_tree_free(f);
            }
        skel_tree_free(cur);
        skel_tree_free(u);
        if (xu < 0)
            goto done;
        printf("%-6g %-10.5g %4d %-12.5g %-10.3f %-9d %d\n", rate, xu, nhat, xn, xn / xu, need, full);
    }
    putchar('\n');
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "bench_rank: (b): %s\n", err.msg);
    skel_tree_free(base);
    skel_platform_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    int all = strcmp(what, "all") == 0;
    if (!all && strcmp(what, "a") != 0 && strcmp(what, "b") != 0) {
        fprintf(stderr, "usage: bench_rank [a|b|all]\n");
        return 2;
    }
    if ((all || strcmp(what, "a") == 0) && part_a() < 0)
        return 1;
    if ((all || strcmp(what, "b") == 0) && part_b() < 0)
        return 1;
    return 0;
}
