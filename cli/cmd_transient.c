/* skelsched transient: the CTMC's throughput and local-state measures as
 * functions of time (CVODE BDF or uniformisation), when throughput settles,
 * and the makespan of a finite stream. Also the model loading and gnuplot
 * charts that skelsched fluid shares (cli_model_*, cli_plot_series). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "cli/model.h"
#include "cli/util.h"
#include "pepa/check.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
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
    if (cm->in.tree) {
        /* items complete with the last task's compute action */
        char name[64];
        snprintf(name, sizeof name, "comp_%d", skel_tree_ntasks(cm->in.tree) - 1);
        cm->last_action = pepa_model_find_action(cm->m, name);
    }
    return 0;
}

void cli_model_free(cli_model *cm)
{
    pepa_system_free(cm->s);
    cli_input_free(&cm->in);
    memset(cm, 0, sizeof *cm);
}

/* Parse "t1,t2,..." into a malloc'd array. */
int cli_parse_times(const char *cmd, const char *s, double **out, int *n)
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

/* Write the series: CSV (one row per time), JSON, or a table. */
void cli_print_series(const tr_series *ser, const pepa_system *s, int csv, int json, FILE *f)
{
    if (csv) {
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
        return;
    }
    if (json) {
        fputs("\"times\": [", f);
        for (int k = 0; k < ser->ntimes; k++) {
            fputs(k ? ", " : "", f);
            json_number(f, ser->times[k]);
        }
        fputs("], \"throughput\": {", f);
        for (int a = 0, first = 1; a < ser->nactions; a++) {
            if (!shown(ser, a))
                continue;
            fputs(first ? "" : ", ", f);
            json_string(f, a ? pepa_model_action(s->model, a) : "tau");
            fputs(": [", f);
            for (int k = 0; k < ser->ntimes; k++) {
                fputs(k ? ", " : "", f);
                json_number(f, ser->thr[(size_t)k * (size_t)ser->nactions + (size_t)a]);
            }
            fputc(']', f);
            first = 0;
        }
        fputs("}, \"local\": {", f);
        for (int i = 0; i < s->nleaves; i++) {
            const pepa_node *nd = &s->nodes[s->leaves[i]];
            const pepa_seq *q = &s->seqs[nd->seq];
            fputs(i ? ", " : "", f);
            json_string(f, nd->name);
            fputs(": {", f);
            for (int st = 0; st < q->nstates; st++) {
                fputs(st ? ", " : "", f);
                json_string(f, q->state_name[st]);
                fputs(": [", f);
                for (int k = 0; k < ser->ntimes; k++) {
                    fputs(k ? ", " : "", f);
                    json_number(f, ser->local[i][(size_t)k * (size_t)q->nstates + (size_t)st]);
                }
                fputc(']', f);
            }
            fputc('}', f);
        }
        fputc('}', f);
        return;
    }
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

static void usage(FILE *f)
{
    fputs("usage: skelsched transient MODEL.pepa|SKELETON [--platform F --place SPEC] --until T\n"
          "                 [--points N | --times t1,t2,...] [--method cvode|uniformisation]\n"
          "                 [--rtol X --atol X] [--items N] [--settle-tol X] [--csv | --json]\n"
          "                 [--plot FILE.svg|FILE.png]\n"
          "\n"
          "Transient analysis of the CTMC from its initial state: throughput of every action\n"
          "and local-state measures at each output time (docs/transient.md).\n"
          "\n"
          "  --until T          last output time (outputs at N equally spaced points from 0)\n"
          "  --points N         number of output points (default 101)\n"
          "  --times LIST       explicit output times instead of --until/--points\n"
          "  --method M         cvode (BDF, sparse direct KLU Jacobian; default) or\n"
          "                     uniformisation (exact reference, slow on stiff models)\n"
          "  --rtol, --atol X   CVODE tolerances (default 1e-8, 1e-12)\n"
          "  --linsol S         CVODE's linear solver: auto (default: klu up to 4000 states),\n"
          "                     klu (sparse LU) or gmres (SPGMR, ILU(0) preconditioner)\n"
          "  --settle-tol X     report when each throughput stays within X (relative) of its\n"
          "                     steady-state value (default 0.01)\n"
          "  --items N          makespan: expected time to complete N items (a skeleton's last\n"
          "                     task; a PEPA model needs --count-action)\n"
          "  --count-action A   the action that completes one item\n"
          "  --max-states N     stop deriving beyond N states\n"
          "  --csv, --json      machine-readable output\n"
          "  --plot FILE        chart of throughput over time, .svg or .png (needs gnuplot)\n"
          "  --platform, --place, --sharing  as for skelsched gen\n", f);
}

typedef struct tr_args {
    const char *path, *platform, *place, *plot, *count_action, *sharing;
    double until, settle_tol, items;
    int points, csv, json;
    double *times;
    int ntimes;
    tr_opts o;
    pepa_derive_opts dopts;
} tr_args;

static int parse_args(int argc, char **argv, tr_args *a)
{
    static const struct option opts[] = {
        { "until", required_argument, NULL, 'u' },   { "points", required_argument, NULL, 'n' },
        { "times", required_argument, NULL, 'T' },   { "method", required_argument, NULL, 'm' },
        { "rtol", required_argument, NULL, 'r' },    { "atol", required_argument, NULL, 'a' },
        { "csv", no_argument, NULL, 'c' },           { "json", no_argument, NULL, 'j' },
        { "plot", required_argument, NULL, 'p' },    { "platform", required_argument, NULL, 'P' },
        { "place", required_argument, NULL, 'l' },   { "items", required_argument, NULL, 'I' },
        { "settle-tol", required_argument, NULL, 's' },
        { "count-action", required_argument, NULL, 'A' },
        { "max-states", required_argument, NULL, 'S' },
        { "linsol", required_argument, NULL, 'L' },
        { "sharing", required_argument, NULL, 'H' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 }
    };
    unsigned long long u;
    double d;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'u':
            if (cli_double("transient", "--until", optarg, &d) < 0 || !(d > 0) || !isfinite(d))
                return 2;
            a->until = d;
            break;
        case 'n':
            if (cli_ulong("transient", "--points", optarg, &u) < 0 || u < 2 || u > 10000000)
                return 2;
            a->points = (int)u;
            break;
        case 'T':
            free(a->times);
            a->times = NULL;
            if (cli_parse_times("transient", optarg, &a->times, &a->ntimes) < 0)
                return 2;
            break;
        case 'm':
            if (tr_method_parse(optarg, &a->o.method) < 0) {
                fprintf(stderr, "skelsched transient: unknown method '%s' (cvode, uniformisation)\n", optarg);
                return 2;
            }
            break;
        case 'r':
            if (cli_double("transient", "--rtol", optarg, &d) < 0 || !(d > 0 && d < 1))
                return 2;
            a->o.rtol = d;
            break;
        case 'a':
            if (cli_double("transient", "--atol", optarg, &d) < 0 || !(d > 0 && d < 1))
                return 2;
            a->o.atol = d;
            break;
        case 's':
            if (cli_double("transient", "--settle-tol", optarg, &d) < 0 || !(d > 0))
                return 2;
            a->settle_tol = d;
            break;
        case 'I':
            if (cli_double("transient", "--items", optarg, &d) < 0 || !(d > 0) || !isfinite(d))
                return 2;
            a->items = d;
            break;
        case 'S':
            if (cli_ulong("transient", "--max-states", optarg, &u) < 0 || u == 0)
                return 2;
            a->dopts.max_states = u;
            break;
        case 'L':
            if (strcmp(optarg, "auto") == 0)
                a->o.linsol = TR_LS_AUTO;
            else if (strcmp(optarg, "klu") == 0)
                a->o.linsol = TR_LS_KLU;
            else if (strcmp(optarg, "gmres") == 0)
                a->o.linsol = TR_LS_GMRES;
            else {
                fprintf(stderr, "skelsched transient: --linsol must be auto, klu or gmres\n");
                return 2;
            }
            break;
        case 'c': a->csv = 1; break;
        case 'j': a->json = 1; break;
        case 'p': a->plot = optarg; break;
        case 'P': a->platform = optarg; break;
        case 'H':
            if (cli_sharing_arg("transient", optarg) < 0)
                return 2;
            a->sharing = optarg;
            break;
        case 'l': a->place = optarg; break;
        case 'A': a->count_action = optarg; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "skelsched transient: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "skelsched transient: expected one model or skeleton file\n");
        usage(stderr);
        return 2;
    }
    if (a->csv && a->json) {
        fprintf(stderr, "skelsched transient: --csv and --json exclude each other\n");
        return 2;
    }
    if (!a->times && !(a->until > 0)) {
        fprintf(stderr, "skelsched transient: --until T (or --times) is required\n");
        return 2;
    }
    a->path = argv[optind];
    return -1;
}

/* Steady-state throughput, if the chain has a unique steady state. */
static int steady(const pepa_space *sp, double *thr, diag *err)
{
    pepa_chain_class cls;
    if (sp->deadlocks)
        return 0;
    double *pi = malloc((size_t)sp->n * sizeof *pi);
    unsigned char *closed = malloc(sp->n);
    int rc = -1;
    if (!pi || !closed)
        diag_set(err, "out of memory");
    else if (pepa_space_recurrent(sp, &cls, closed, err) == 0)
        rc = cls.bottom == 1 ? 1 : 0;
    if (rc == 1) {
        pepa_solve_opts so;
        pepa_solve_opts_init(&so);
        so.recurrent = closed;
        pepa_solve_result res;
        if (pepa_solve(sp->q, &so, pi, &res, err) < 0 || pepa_space_throughput(sp, pi, thr, err) < 0)
            rc = -1;
    }
    free(closed);
    free(pi);
    return rc;
}

int cmd_transient(int argc, char **argv)
{
    tr_args a;
    memset(&a, 0, sizeof a);
    tr_opts_init(&a.o);
    a.points = 101;
    a.settle_tol = 0.01;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        free(a.times);
        return rc;
    }
    diag err;
    diag_clear(&err);
    cli_model cm;
    pepa_space *sp = NULL;
    tr_series *ser = NULL;
    double *ss = NULL, t_make = -1;
    int have_ss = 0, count_action = -1;
    rc = 1;
    if (!a.times) {
        if (!(a.times = tr_times_linear(a.until, a.points))) {
            diag_set(&err, "out of memory");
            goto done0;
        }
        a.ntimes = a.points;
    }
    cli_input_opts io = { a.platform, a.place, SKEL_STYLE_PRODUCER, 0, a.sharing, 0, NULL, NULL, 0 };
    if (cli_model_load(a.path, &io, &cm, &err) < 0)
        goto done;
    if (!(sp = pepa_derive(cm.s, &a.dopts, &err)))
        goto done;
    if (!(ser = tr_series_new(cm.s, a.times, a.ntimes)) ||
        !(ss = calloc((size_t)cm.s->nactions, sizeof *ss))) {
        diag_set(&err, "out of memory");
        goto done;
    }
    ser->sp = sp;
    if ((have_ss = steady(sp, ss, &err)) < 0)
        goto done;
    tr_result res;
    if (tr_solve(sp->q, NULL, a.times, a.ntimes, &a.o, tr_series_record, ser, &res, &err) < 0)
        goto done;
    if (res.warning[0])
        fprintf(stderr, "%s: %s\n", a.path, res.warning);
    if (res.mass_error > 1e-9)
        fprintf(stderr, "%s: warning: probability mass drifted by %.3g (more than 1e-9)\n", a.path,
                res.mass_error);
    count_action = a.count_action ? pepa_model_action_id(cm.m, a.count_action) : cm.last_action;
    if (a.count_action && count_action <= 0) {
        diag_set(&err, "--count-action: no action '%s' in the model", a.count_action);
        goto done;
    }
    if (a.items > 0) {
        if (count_action <= 0) {
            diag_set(&err, "--items needs --count-action ACTION for a PEPA model");
            goto done;
        }
        if (!have_ss) {
            diag_set(&err, "--items: the chain has no unique steady state to size the horizon");
            goto done;
        }
        if (tr_makespan(sp, count_action, a.items, ss[count_action], 1e12, 400, &a.o, &t_make, &err) < 0)
            goto done;
    }
    if (a.plot) {
        char title[512];
        snprintf(title, sizeof title, "Transient throughput of %s (%s)", a.path, tr_method_name(a.o.method));
        if (cli_plot_series(ser, cm.s, a.plot, title, "throughput (events per unit time)", &err) < 0)
            goto done;
    }
    if (a.csv) {
        cli_print_series(ser, cm.s, 1, 0, stdout);
    } else if (a.json) {
        printf("{\"model\": ");
        json_string(stdout, a.path);
        printf(", \"states\": %u, \"method\": \"%s\", \"steps\": %ld, \"mass_error\": ", sp->n,
               tr_method_name(a.o.method), res.steps);
        json_number(stdout, res.mass_error);
        printf(", \"clipped\": %ld, ", res.clipped);
        cli_print_series(ser, cm.s, 0, 1, stdout);
        if (have_ss) {
            printf(", \"steady_state\": {");
            for (int x = 1, first = 1; x < cm.s->nactions; x++, first = 0) {
                printf("%s", first ? "" : ", ");
                json_string(stdout, pepa_model_action(cm.m, x));
                printf(": ");
                json_number(stdout, ss[x]);
            }
            printf("}, \"settle_time\": {");
            for (int x = 1, first = 1; x < cm.s->nactions; x++, first = 0) {
                printf("%s", first ? "" : ", ");
                json_string(stdout, pepa_model_action(cm.m, x));
                printf(": ");
                double st = tr_settle_time(ser, x, ss[x], a.settle_tol);
                if (st < 0)
                    printf("null");
                else
                    json_number(stdout, st);
            }
            printf("}, \"settle_tol\": ");
            json_number(stdout, a.settle_tol);
        }
        if (a.items > 0) {
            printf(", \"makespan\": {\"items\": ");
            json_number(stdout, a.items);
            printf(", \"action\": ");
            json_string(stdout, pepa_model_action(cm.m, count_action));
            printf(", \"time\": ");
            if (t_make < 0)
                printf("null");
            else
                json_number(stdout, t_make);
            printf("}");
        }
        printf("}\n");
    } else {
        printf("model        %s\nstates       %u\nmethod       %s, %ld step%s, mass error %.3g\n\n",
               a.path, sp->n, tr_method_name(a.o.method), res.steps, res.steps == 1 ? "" : "s",
               res.mass_error);
        cli_print_series(ser, cm.s, 0, 0, stdout);
        if (have_ss) {
            printf("\n%-32s %16s %16s\n", "action", "steady state", "settles at");
            for (int x = 1; x < cm.s->nactions; x++) {
                double st = tr_settle_time(ser, x, ss[x], a.settle_tol);
                printf("%-32s %16.10g ", pepa_model_action(cm.m, x), ss[x]);
                if (st < 0)
                    printf("%16s\n", "not by --until");
                else
                    printf("%16.6g\n", st);
            }
        }
        if (a.items > 0) {
            if (t_make < 0)
                printf("\nmakespan     not reached\n");
            else
                printf("\nmakespan     %.10g items (%s) by t = %.6g\n", a.items,
                       pepa_model_action(cm.m, count_action), t_make);
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_set(&err, "error writing to standard output");
        goto done;
    }
    rc = 0;
done:
    free(ss);
    tr_series_free(ser);
    pepa_space_free(sp);
    cli_model_free(&cm);
done0:
    if (rc)
        fprintf(stderr, "skelsched transient: %s\n", err.set ? err.msg : "failed");
    free(a.times);
    return rc;
}
