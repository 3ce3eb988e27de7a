/* cli_model: see model.h. */
#define _GNU_SOURCE
#include "cli/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util.h"
#include "cli/json.h"
#include "pepa/check.h"
#include "skeleton/skeleton.h"

static void warn_print(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s\n", msg);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int cli_model_load(const char *path, const cli_input_opts *o, cli_model *cm, diag *err)
{
    memset(cm, 0, sizeof *cm);
    cm->last_action = -1;
    if (cli_input_load(path, o, &cm->in, err) < 0)
        return -1;
    cm->m = cm->in.model;
    if (pepa_check(cm->m, warn_print, NULL, err) < 0 || !(cm->s = pepa_system_new(cm->m, err)) ||
        pepa_check_system(cm->s, warn_print, NULL, err) < 0)
        return -1;
    if (cm->in.skel)               /* items complete with the last task's compute action */
        cm->last_action = cm->in.skel->comp_action[cm->in.skel->ntasks - 1];
    return 0;
}

void cli_model_free(cli_model *cm)
{
    pepa_system_free(cm->s);
    cli_input_free(&cm->in);
    memset(cm, 0, sizeof *cm);
}

/* --until T: positive, finite; -1 after a message on stderr. */
static int until_arg(const char *cmd, const char *v, double *until)
{
    double d;
    if (cli_double(cmd, "--until", v, &d) < 0)
        return -1;
    if (!(d > 0) || !isfinite(d)) {
        fprintf(stderr, "skelsched %s: --until must be a positive, finite time, not '%s'\n", cmd, v);
        return -1;
    }
    *until = d;
    return 0;
}

/* --points N: 2 .. 10^7; -1 after a message on stderr. */
static int points_arg(const char *cmd, const char *v, int *points)
{
    unsigned long long u;
    if (cli_ulong(cmd, "--points", v, &u) < 0)
        return -1;
    if (u < 2 || u > 10000000) {
        fprintf(stderr, "skelsched %s: --points must be 2 .. 10000000, not %s\n", cmd, v);
        return -1;
    }
    *points = (int)u;
    return 0;
}

/* Parse "t1,t2,..." into a malloc'd array of n times; -1 with a message
 * on stderr. */
static int parse_times(const char *cmd, const char *s, double **out, int *n)
{
    int cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    double *t = malloc((size_t)cap * sizeof *t);
    if (!t)
        return -1;
    int k = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || !isfinite(v) || v < 0 || (*end && *end != ',') ||
            (k && v < t[k - 1])) {
            fprintf(stderr, "skelsched %s: bad --times list '%s' (increasing times >= 0, "
                    "comma-separated)\n", cmd, s);
            free(t);
            return -1;
        }
        t[k++] = v;
        p = *end ? end + 1 : end;
    }
    if (k == 0) {
        fprintf(stderr, "skelsched %s: empty --times list\n", cmd);
        free(t);
        return -1;
    }
    *out = t;
    *n = k;
    return 0;
}

int cli_series_option(const char *cmd, cli_series_args *sa, int c, const char *v)
{
    switch (c) {
    case 'u': return until_arg(cmd, v, &sa->until);
    case 'n': return points_arg(cmd, v, &sa->points);
    case 'T':
        free(sa->times);
        sa->times = NULL;
        return parse_times(cmd, v, &sa->times, &sa->ntimes);
    case 'c': sa->csv = 1; return 0;
    case 'j': sa->json = 1; return 0;
    case 'p': sa->plot = v; return 0;
    case 'P': sa->platform = v; return 0;
    case 'l': sa->place = v; return 0;
    default: return 1;
    }
}

int cli_series_check(const char *cmd, int operands, const cli_series_args *sa,
                     void (*usage)(FILE *))
{
    if (operands != 1) {
        fprintf(stderr, "skelsched %s: expected one model or skeleton file\n", cmd);
        usage(stderr);
        return 2;
    }
    if (sa->csv && sa->json) {
        fprintf(stderr, "skelsched %s: --csv and --json exclude each other\n", cmd);
        return 2;
    }
    return -1;
}

int cli_series_times(cli_series_args *sa, diag *err)
{
    if (sa->times)
        return 0;
    if (!(sa->times = tr_times_linear(sa->until, sa->points)))
        return diag_set(err, "out of memory");
    sa->ntimes = sa->points;
    return 0;
}

/* Actions worth showing: every visible action, tau only when it happens. */
static int shown(const tr_series *ser, int a)
{
    if (a > 0)
        return 1;
    for (int k = 0; k < ser->ntimes; k++)
        if (ser->thr[(size_t)k * (size_t)ser->nactions] != 0)
            return 1;
    return 0;
}

int cli_plot_series(const tr_series *ser, const pepa_system *s, const char *file, const char *title,
                    const char *ylabel, diag *err)
{
    int png = ends_with(file, ".png"), svg = ends_with(file, ".svg");
    if (!png && !svg)
        return diag_set(err, "--plot: the file name must end in .svg or .png, not '%s'", file);
    char dir[] = "/tmp/skelsched-plot-XXXXXX";
    if (!mkdtemp(dir))
        return diag_set(err, "--plot: cannot create a temporary directory: %s", strerror(errno));
    char dat[sizeof dir + 16], gp[sizeof dir + 16];
    snprintf(dat, sizeof dat, "%s/data", dir);
    snprintf(gp, sizeof gp, "%s/plot.gp", dir);
    int rc = -1, ncols = 0;
    FILE *f = fopen(dat, "w");
    if (!f) {
        diag_set(err, "--plot: cannot write %s: %s", dat, strerror(errno));
        goto out;
    }
    for (int k = 0; k < ser->ntimes; k++) {
        fprintf(f, "%.10g", ser->times[k]);
        for (int a = 0; a < ser->nactions; a++)
            if (shown(ser, a))
                fprintf(f, " %.10g", ser->thr[(size_t)k * (size_t)ser->nactions + (size_t)a]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        diag_set(err, "--plot: error writing %s", dat);
        goto out;
    }
    if (!(f = fopen(gp, "w"))) {
        diag_set(err, "--plot: cannot write %s: %s", gp, strerror(errno));
        goto out;
    }
    fprintf(f, "set terminal %s size 900,560 font 'sans,11'\n", png ? "pngcairo" : "svg");
    fprintf(f, "set output '%s'\n", file);
    fputs("set title \"", f);
    for (const char *p = title; *p; p++)
        if (*p != '"' && *p != '\\' && *p != '\'')
            fputc(*p, f);
    fputs("\" noenhanced\n", f);
    fprintf(f, "set xlabel 'time'\nset ylabel '%s'\nset key outside right top noenhanced\n"
               "set grid\nset style data lines\n", ylabel);
    /* A fast initial burst (e.g. a 1e-4 s input move) would flatten every
     * other curve on a linear axis: switch to a log axis when the peak is far
     * above the final values. */
    double peak = 0, final = 0;
    for (int k = 0; k < ser->ntimes; k++)
        for (int a = 0; a < ser->nactions; a++) {
            double v = ser->thr[(size_t)k * (size_t)ser->nactions + (size_t)a];
            peak = v > peak ? v : peak;
            if (k == ser->ntimes - 1)
                final = v > final ? v : final;
        }
    if (final > 0 && peak > 50 * final)
        fputs("set logscale y\n", f);
    fputs("plot ", f);
    for (int a = 0, col = 2; a < ser->nactions; a++) {
        if (!shown(ser, a))
            continue;
        const char *name = a ? pepa_model_action(s->model, a) : "tau";
        fprintf(f, "%s'%s' using 1:%d title '", ncols ? ", " : "", dat, col++);
        for (const char *p = name; *p; p++)
            if (*p != '\'')
                fputc(*p, f);
        fputs("' lw 2", f);
        ncols++;
    }
    fputc('\n', f);
    if (fclose(f) != 0 || ncols == 0) {
        diag_set(err, "--plot: nothing to plot");
        goto out;
    }
    if (cli_gnuplot(gp, file, err) < 0)
        goto out;
    rc = 0;
out:
    unlink(gp);
    unlink(dat);
    rmdir(dir);
    return rc;
}

/* The series as CSV, one row per time. */
static void print_series_csv(const tr_series *ser, const pepa_system *s, FILE *f)
{
    fputs("time", f);           /* names hold commas and quotes: RFC 4180 */
    for (int a = 0; a < ser->nactions; a++)
        if (shown(ser, a)) {
            fputc(',', f);
            csv_fieldf(f, "throughput:%s", a ? pepa_model_action(s->model, a) : "tau");
        }
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        const pepa_seq *q = &s->seqs[nd->seq];
        for (int st = 0; st < q->nstates; st++) {
            fputc(',', f);
            csv_fieldf(f, "local:%s:%s", nd->name, q->state_name[st]);
        }
    }
    fputc('\n', f);
    for (int k = 0; k < ser->ntimes; k++) {
        fprintf(f, "%.12g", ser->times[k]);
        for (int a = 0; a < ser->nactions; a++)
            if (shown(ser, a))
                fprintf(f, ",%.12g", ser->thr[(size_t)k * (size_t)ser->nactions + (size_t)a]);
        for (int i = 0; i < s->nleaves; i++) {
            int ns = s->seqs[s->nodes[s->leaves[i]].seq].nstates;
            for (int st = 0; st < ns; st++)
                fprintf(f, ",%.12g", ser->local[i][(size_t)k * (size_t)ns + (size_t)st]);
        }
        fputc('\n', f);
    }
}

/* An array of n numbers v[0], v[stride], ... */
static void json_column(cli_json *j, const char *key, const double *v, int n, size_t stride)
{
    cli_json_array(j, key);
    for (int k = 0; k < n; k++)
        cli_json_number(j, NULL, v[(size_t)k * stride]);
    cli_json_end(j);
}

void cli_json_series(cli_json *j, const tr_series *ser, const pepa_system *s)
{
    json_column(j, "times", ser->times, ser->ntimes, 1);
    cli_json_object(j, "throughput");
    for (int a = 0; a < ser->nactions; a++)
        if (shown(ser, a))
            json_column(j, a ? pepa_model_action(s->model, a) : "tau", ser->thr + a, ser->ntimes,
                        (size_t)ser->nactions);
    cli_json_end(j);
    cli_json_object(j, "local");
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        const pepa_seq *q = &s->seqs[nd->seq];
        cli_json_object(j, nd->name);
        for (int st = 0; st < q->nstates; st++)
            json_column(j, q->state_name[st], ser->local[i] + st, ser->ntimes, (size_t)q->nstates);
        cli_json_end(j);
    }
    cli_json_end(j);
}

/* The throughputs over time as a table. */
static void print_series_table(const tr_series *ser, const pepa_system *s, FILE *f)
{
    fprintf(f, "%-12s", "time");
    for (int a = 0; a < ser->nactions; a++)
        if (shown(ser, a))
            fprintf(f, " %16.16s", a ? pepa_model_action(s->model, a) : "tau");
    fputc('\n', f);
    for (int k = 0; k < ser->ntimes; k++) {
        fprintf(f, "%-12.6g", ser->times[k]);
        for (int a = 0; a < ser->nactions; a++)
            if (shown(ser, a))
                fprintf(f, " %16.10g", ser->thr[(size_t)k * (size_t)ser->nactions + (size_t)a]);
        fputc('\n', f);
    }
}

void cli_print_series(const tr_series *ser, const pepa_system *s, int csv, FILE *f)
{
    if (csv)
        print_series_csv(ser, s, f);
    else
        print_series_table(ser, s, f);
}
