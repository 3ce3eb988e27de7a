/* diag: see diag.h. */
#include "diag.h"

#include <stdio.h>
#include <string.h>

void diag_clear(diag *d)
{
    if (d) {
        d->set = 0;
        d->msg[0] = '\0';
    }
}

int diag_vset(diag *d, const char *fmt, va_list ap)
{
    if (d && !d->set) {
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        d->set = 1;
    }
    return -1;
}

int diag_set(diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vset(d, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_vat(diag *d, const char *file, int line, int col, const char *fmt, va_list ap)
{
    if (!d || d->set)
        return -1;
    int n;
    if (col > 0)
        n = snprintf(d->msg, sizeof d->msg, "%s:%d:%d: ", file ? file : "<input>", line, col);
    else
        n = snprintf(d->msg, sizeof d->msg, "%s:%d: ", file ? file : "<input>", line);
    if (n < 0 || (size_t)n >= sizeof d->msg)
        n = 0;
    vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
    d->set = 1;
    return -1;
}

int diag_at(diag *d, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(d, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

int diag_prefix(diag *d, const char *prefix)
{
    if (!d || !d->set)
        return -1;
    char msg[DIAG_MAX];
    snprintf(msg, sizeof msg, "%s%s", prefix, d->msg);
    memcpy(d->msg, msg, sizeof msg);
    return -1;
}
