/* bench_approx's parts (bench/bench_approx*.c), internal to the bench:
 * the random cases they draw, the samples they score and the options a
 * part scores its cases with (passed down: no file-level state). */
#ifndef BENCH_APPROX_H
#define BENCH_APPROX_H

#include <stdint.h>

#include "skeleton/skeleton.h"

#define MAX_STATES 300000UL   /* the exact chain's states, at most (else "big") */
#define NCAT 5                /* part (a)'s kinds and (b)'s corpus: rows of the first table */
#define DD_CAT NCAT           /* part (e)'s random deals of deals */
#define WIDE_CAT (NCAT + 1)   /* part (g)'s random deals of 5-10 tasks */
#define BA_NSAMPLE 2048       /* the errors a sample keeps, per list */
#define BA_SKEL_CAP 4096      /* a random skeleton's text, bytes */
#define BA_PATH_CAP 4096      /* a path, bytes */

extern const char *const ba_catname[NCAT + 2];   /* a category's row name */

/* A skeleton's text as drawn (n: its length). */
typedef struct ba_sbuf {
    char b[BA_SKEL_CAP];
    int n;
} ba_sbuf;

/* One row's scored cases. */
typedef struct ba_sample {
    double err[BA_NSAMPLE];
    int n;
    double before[BA_NSAMPLE];   /* the method before (ba_before_err), same cases */
    int nb;
    double win[BA_NSAMPLE];      /* the windows alone (ba_windows_err), same cases */
    int nw;
    int nwhole;                  /* of n, answered as one window: the exact chain */
    int nwwhole;                 /* of nw, still one window of every task (a small pipe
                                    or farm whose windows grew to every task) */
    double exact_s, approx_s, before_s;
    unsigned long states_max;
    int uncovered, too_big, refused;
    int nest;                    /* of n, answered by the estimate of last resort
                                    (skel_approx_result.estimate) */
    long cov_n, cov_hit;         /* ba_est_seeds: evaluations on fresh seeds, and of
                                    them those whose 95% half-width held the exact */
    double cov_items, cov_bias, cov_cpu;   /* their items, relative errors, CPU s summed */
} ba_sample;

/* How a part scores its cases (zero: part (a)'s, the defaults). */
typedef struct ba_opts {
    int flows_windows;           /* part (f): ba_before_err without any whole-model window */
    int wide_before;             /* part (g): ba_before_err with deals of tasks never counted */
    unsigned long cut_whole;     /* ba_compare's opts.cut_whole_states (part (e): 1, the
                                    decomposition of deals of deals alone) */
    unsigned long whole;         /* ba_compare's opts.whole_states (0: its default; the
                                    farm-flows row: 1, with cut_whole 1, so no case is
                                    answered as the whole model) */
    int no_before;               /* ba_compare skips ba_before_err (part (e)) */
    int estimate;                /* ba_compare's opts.estimate (part (e): the estimate
                                    of last resort alone, on every case) */
    int dry;                     /* APPROX_CORPUS: a corpus file not scored, only whether
                                    covered (no evaluation, no score) */
    int est_seeds;               /* part (e), APPROX_EST_SEEDS=N: the estimate also on
                                    N fresh seeds per case (ba_est_seeds) */
} ba_opts;

typedef void (*ba_gen)(int cat, uint64_t *s, ba_sbuf *t);

/* bench_approx_gen.c: the random draws (one LCG state *s per part) */
double ba_uniform(uint64_t *s);
int ba_pick(uint64_t *s, int lo, int hi);
double ba_loguni(uint64_t *s, double lo, double hi);
char *ba_random_platform(int n, uint64_t *s, int kinds);
void ba_put_task(ba_sbuf *t, uint64_t *s);
void ba_put_sub(ba_sbuf *t, uint64_t *s, int len);
void ba_random_skeleton(int cat, uint64_t *s, ba_sbuf *t);

/* bench_approx_score.c: errors into samples, rows out */
void ba_record(ba_sample *sm, const char *label, const skel_tree *t, unsigned long states,
               double x, const skel_approx_result *ar, double exact_s, double approx_s);
void ba_before_err(ba_sample *sm, const ba_opts *o, const skel_dag *d, skel_approx_opts ao,
                   const skel_model *m, const skel_platform *p, const int *pl,
                   const double *mu, const double *lambda, double x);
void ba_windows_err(ba_sample *sm, const skel_dag *d, skel_approx_opts ao, const skel_model *m,
                    const skel_platform *p, const int *pl, const double *mu,
                    const double *lambda, double x);
void ba_methods_err(ba_sample *sm, const ba_opts *o, const skel_dag *d, skel_approx_opts ao,
                    const skel_model *m, const skel_platform *p, const int *pl,
                    const double *mu, const double *lambda, double x,
                    const skel_approx_result *ar);
void ba_refuse(ba_sample *sm, const char *label, const skel_tree *t, const char *why);
void ba_pool(ba_sample *all, const ba_sample *sm);
void ba_header(void);
void ba_row(const char *name, ba_sample *sm, const ba_opts *o);

/* bench_approx_case.c: one case scored */
/* bench_approx_realcov.c: the estimate alone on seeds 1..nseeds (opts.est_seed),
 * each evaluation's 95% half-width against the exact x, into sm's cov_*. */
void ba_est_seeds(ba_sample *sm, const skel_dag *d, skel_approx_opts ao, const double *mu,
                  const double *lambda, const int *ps_node, double x, int nseeds);
void ba_est_seeds_row(const char *name, const ba_sample *sm);
int ba_compare(const skel_tree *t, skel_style style, const skel_platform *p, const int *pl,
               ba_sample *sm, const ba_opts *o, const char *label, diag *err);
/* APPROX_DUMP=DIR: case k of kind cat (links: part (d)'s) into
 * DIR/KIND-K.skel, .conf and .place, to run again with `skelsched solve`. */
void ba_dump_case(const char *cat, int k, int links, const char *skel, const char *plat,
                  const int *pl, int nt, skel_style st);
int ba_random_case_of(ba_gen gen, const char *name, int cat, uint64_t *s, ba_sample *sm,
                      const ba_opts *o, int links, diag *err);
int ba_random_case(int cat, uint64_t *s, ba_sample *sm, const ba_opts *o, int links,
                   diag *err);
int ba_corpus_tree(const skel_tree *t, skel_style style, uint64_t *s, ba_sample *sm,
                   const ba_opts *o, const char *label, diag *err);
int ba_corpus_dir(const char *dir, const char *ext, skel_style style, uint64_t *s,
                  ba_sample *sm, const ba_opts *o, diag *err);
void ba_large_header(void);
void ba_large_row(const char *name, const char *path, skel_style style, long events);

/* the parts past (a)-(c), each in a file of its own */
int ba_compare_links(const skel_tree *t, skel_style style, const skel_platform *p,
                     const int *pl, ba_sample *sm, const ba_opts *o, const char *label,
                     diag *err);
int ba_link_suite(int ncases);        /* (d) bench_approx_links.c */
int ba_flow_suite(int ncases);        /* (f) bench_approx_flows.c */
int ba_parfes_suite(int ncases);      /* (h) bench_approx_parfes.c */
int ba_deals_of_deals(int ncases);    /* (e) bench_approx_deals.c */
int ba_wide_deals(int ncases);        /* (g) bench_approx_deals.c */
int ba_estimate_cost(long events);    /* "est" bench_approx_est.c */
int ba_coverage(long runs, long base);           /* "cov" bench_approx_cov.c */

#endif
