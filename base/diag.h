/* diag: an error message carried back to the caller.
 *
 * Library code never prints and never exits: a function that can fail takes a
 * `diag *` and fills it with one message, already formatted for a user
 * ("file:line:col: message" when a position is known). The caller owns the
 * diag (usually on its stack) and decides what to do with the message. */
#ifndef SKELSCHED_DIAG_H
#define SKELSCHED_DIAG_H

#include <stdarg.h>

#define DIAG_MAX 1024

typedef struct diag {
    int set;               /* non-zero once a message has been stored */
    char msg[DIAG_MAX];    /* the message, NUL-terminated, no trailing newline */
} diag;

/* Reset d to "no error". d may be NULL (then every diag_* call is a no-op). */
void diag_clear(diag *d);

/* Store a message. Only the first error is kept: later calls do nothing,
 * because the first failure is the one that explains the rest. Returns -1
 * so that callers can write `return diag_set(d, ...);`. */
int diag_set(diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* As diag_set, prefixed "file:line:col: ". file may be NULL ("<input>"),
 * col 0 omits the column. */
int diag_at(diag *d, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Put prefix before the message stored in d (a caller naming where the
 * text came from, such as its own option's name). Returns -1. */
int diag_prefix(diag *d, const char *prefix);

/* va_list forms of the two above, for modules that wrap them. */
int diag_vset(diag *d, const char *fmt, va_list ap);
int diag_vat(diag *d, const char *file, int line, int col, const char *fmt, va_list ap);

#endif
