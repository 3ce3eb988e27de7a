/* Helpers shared by the subcommands. See util.h. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/diag.h"
#include "skeleton/skeleton.h"

extern char **environ;

int cli_gnuplot(const char *script, const char *output, diag *err)
{
    pid_t pid;
    char *argv[] = { "gnuplot", (char *)script, NULL };
    int e = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (e == ENOENT)
        return diag_set(err, "--plot needs gnuplot, which is not installed (Debian: apt-get "
                        "install gnuplot-nox; see contrib/setup.sh)");
    if (e)
        return diag_set(err, "--plot: cannot run gnuplot: %s", strerror(e));
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return diag_set(err, "--plot: gnuplot failed to write %s", output);
    return 0;
}

int cli_double(const char *cmd, const char *opt, const char *value, double *out)
{
    char *end;
    errno = 0;
    double v = value ? strtod(value, &end) : 0;
    if (!value || *value == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v)) {
        fprintf(stderr, "skelsched %s: bad value for %s: '%s'\n", cmd, opt, value ? value : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_ulong(const char *cmd, const char *opt, const char *value, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = value && *value != '-' ? strtoull(value, &end, 10) : 0;
    if (!value || *value == '\0' || *value == '-' || *end != '\0' || errno == ERANGE) {
        fprintf(stderr, "skelsched %s: bad value for %s: '%s'\n", cmd, opt, value ? value : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_ulong_in(const char *cmd, const char *opt, const char *value, unsigned long long lo,
                 unsigned long long hi, unsigned long long *out)
{
    unsigned long long v;
    if (cli_ulong(cmd, opt, value, &v) < 0)
        return -1;
    if (v < lo || v > hi) {
        fprintf(stderr, "skelsched %s: %s must be %llu .. %llu\n", cmd, opt, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void csv_fieldf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    csv_field(f, buf);
    free(buf);
}

/* Significant digits of v that an absolute error err leaves right. */
static int good_digits(double v, double err)
{
    if (!(err > 0.0) || v == 0.0 || !isfinite(v) || !isfinite(err))
        return isfinite(err) ? 10 : 1;
    int d = (int)floor(log10(fabs(v))) - (int)ceil(log10(2.0 * err)) + 1;
    return d < 1 ? 1 : d > 10 ? 10 : d;
}

void cli_print_digits(FILE *f, double v, double err)
{
    fprintf(f, "%.*g", good_digits(v, err), v);
}

void cli_print_digits_w(FILE *f, int width, double v, double err)
{
    fprintf(f, "%-*.*g", width, good_digits(v, err), v);
}

int cli_sharing_arg(const char *cmd, const char *value)
{
    skel_sharing sh;
    if (skel_sharing_parse(value, &sh) == 0)
        return 0;
    fprintf(stderr, "skelsched %s: --sharing must be ps or static, not '%s'\n", cmd, value);
    return -1;
}

int cli_flush_stdout(diag *err)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return diag_set(err, "error writing to standard output");
    return 0;
}
