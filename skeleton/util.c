/* skeleton/util.c: small helpers shared inside skeleton/ (see internal.h). */
#include "internal.h"
#include "../base/mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int skel_tied(double a, double b)
{
    return fabs(a - b) <= SKEL_TIE * fmax(fabs(a), fabs(b));
}

int skel_argmax_tied(const double *u, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (u[i] > u[best])
            best = i;
    for (int i = 0; i < best; i++)
        if (skel_tied(u[i], u[best]))
            return i;
    return best;
}

long skel_lcm(long a, long b, long cap)
{
    if (a < 1 || b < 1)
        return -1;
    long x = a, y = b;
    while (y) {
        long r = x % y;
        x = y;
        y = r;
    }
    long q = a / x;            /* lcm = q * b, checked against cap first */
    if (q > cap / b)
        return -1;
    return q * b;
}

int skel_read_file(const char *path, size_t max, char **text, size_t *len, diag *err)
{
    int std = strcmp(path, "-") == 0;
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f)
        return diag_set(err, "%s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        if (!std)
            fclose(f);
        return diag_set(err, "out of memory");
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                free(buf);
                if (!std)
                    fclose(f);
                return diag_set(err, "%s: larger than %zu bytes", path, max);
            }
            if (mem_grow((void **)&buf, cap * 2, 1) < 0) {
                free(buf);
                if (!std)
                    fclose(f);
                return diag_set(err, "out of memory");
            }
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    if (!std)
        fclose(f);
    if (bad) {
        free(buf);
        return diag_set(err, "%s: read error", path);
    }
    if (n > max) {
        free(buf);
        return diag_set(err, "%s: larger than %zu bytes", path, max);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
