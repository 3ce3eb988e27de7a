/* skeleton/hostlist.c: expansion of Slurm hostlists ("n[1-16]",
 * "n[01-10]", "io[1,3-5]", "r[1-2]n[1-4]", "a,b,c") into node names.
 * A range keeps the width of its lower bound, so n[01-10] gives n01..n10
 * and n[1-10] gives n1..n10, as Slurm does. */
#include "skeleton.h"
#include "../base/mem.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
    char **names;
    int n, cap, max;
    diag *err;
    const char *list;
} out;

static int push(out *o, const char *s, size_t len)
{
    if (len == 0)
        return diag_set(o->err, "hostlist '%s': empty node name", o->list);
    if (len > SKEL_MAX_NAME)
        return diag_set(o->err, "hostlist '%s': node name longer than %d characters", o->list,
                        SKEL_MAX_NAME);
    if (o->n >= o->max)
        return diag_set(o->err, "hostlist '%s': more than %d nodes", o->list, o->max);
    if (o->n == o->cap) {
        int nc = o->cap ? 2 * o->cap : 8;
        if (mem_grow((void **)&o->names, (size_t)nc, sizeof *o->names) < 0)
            return diag_set(o->err, "out of memory");
        o->cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return diag_set(o->err, "out of memory");
    memcpy(c, s, len);
    c[len] = '\0';
    o->names[o->n++] = c;
    return 0;
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* Parse an unsigned decimal of at most 9 digits at s[0..len). */
static int number(const char *s, size_t len, long *v)
{
    if (len == 0 || len > 9)
        return -1;
    long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

/* Expand prefix + pattern[0..len) where the pattern may hold [..] groups;
 * prefix is the text already fixed (in buf[0..plen)). */
static int expand(out *o, char *buf, size_t plen, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && s[i] != '[') {
        if (!name_char(s[i]))
            return diag_set(o->err, "hostlist '%s': unexpected character '%c'", o->list, s[i]);
        if (plen >= SKEL_MAX_NAME)
            return diag_set(o->err, "hostlist '%s': node name longer than %d characters",
                            o->list, SKEL_MAX_NAME);
        buf[plen++] = s[i++];
    }
    if (i == len)
        return push(o, buf, plen);
    size_t close = i + 1;
    while (close < len && s[close] != ']')
        close++;
    if (close == len)
        return diag_set(o->err, "hostlist '%s': '[' without ']'", o->list);
    const char *r = s + i + 1;
    size_t rlen = close - i - 1;
    if (rlen == 0)
        return diag_set(o->err, "hostlist '%s': empty range []", o->list);
    size_t a = 0;
    while (a <= rlen) {
        size_t b = a;
        while (b < rlen && r[b] != ',')
            b++;
        const char *dash = memchr(r + a, '-', b - a);
        size_t lo_len = dash ? (size_t)(dash - (r + a)) : b - a;
        long lo, hi;
        if (number(r + a, lo_len, &lo) < 0 ||
            (dash ? number(dash + 1, (size_t)(r + b - dash - 1), &hi) : (hi = lo, 0)) < 0)
            return diag_set(o->err, "hostlist '%s': bad range '%.*s' (expected N or N-M)",
                            o->list, (int)(b - a), r + a);
        if (hi < lo)
            return diag_set(o->err, "hostlist '%s': range '%.*s' goes backwards", o->list,
                            (int)(b - a), r + a);
        if (hi - lo >= o->max)
            return diag_set(o->err, "hostlist '%s': more than %d nodes", o->list, o->max);
        for (long v = lo; v <= hi; v++) {
            char num[16];
            int w = snprintf(num, sizeof num, "%0*ld", (int)lo_len, v);
            if (plen + (size_t)w > SKEL_MAX_NAME)
                return diag_set(o->err, "hostlist '%s': node name longer than %d characters",
                                o->list, SKEL_MAX_NAME);
            memcpy(buf + plen, num, (size_t)w);
            if (expand(o, buf, plen + (size_t)w, s + close + 1, len - close - 1) < 0)
                return -1;
        }
        a = b + 1;
    }
    return 0;
}

int skel_hostlist_expand(const char *list, char ***names, int *count, int max, diag *err)
{
    out o = { .max = max > 0 && max < SKEL_MAX_NODES ? max : SKEL_MAX_NODES,
              .err = err, .list = list };
    char buf[SKEL_MAX_NAME + 1];
    size_t len = strlen(list), a = 0;
    if (len == 0) {
        diag_set(err, "empty hostlist");
        return -1;
    }
    /* Split at the commas outside brackets. */
    while (a <= len) {
        size_t b = a;
        int depth = 0;
        while (b < len && (depth || list[b] != ',')) {
            if (list[b] == '[')
                depth++;
            else if (list[b] == ']')
                depth--;
            b++;
        }
        if (expand(&o, buf, 0, list + a, b - a) < 0) {
            skel_hostlist_free(o.names, o.n);
            return -1;
        }
        a = b + 1;
    }
    *names = o.names;
    *count = o.n;
    return 0;
}

void skel_hostlist_free(char **names, int count)
{
    if (!names)
        return;
    for (int i = count - 1; i >= 0; i--)
        free(names[i]);
    free(names);
}
