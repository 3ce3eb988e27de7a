/* The parameters side file: "KEY key=value ..." lines, KEY an activity's
 * name or generated path. Kept as a flat list: files are small and each
 * lookup is made once per activity. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"
#include "internal.h"

typedef struct param {
    char *who;      /* name or path */
    char *key;      /* rate, prob, ... */
    double value;
    int line;
} param;

struct bpel_params {
    int n, cap;
    param *v;
    char *file;     /* for warnings about entries */
};

static const char *const known_keys[] = { "rate", "prob", "iterations", "count", "arrival" };

void bpel_params_free(bpel_params *p)
{
    if (!p)
        return;
    for (int i = p->n - 1; i >= 0; i--) {
        free(p->v[i].key);
        free(p->v[i].who);
    }
    free(p->v);
    free(p->file);
    free(p);
}

static int add(bpel_params *p, const char *who, size_t wn, const char *key, size_t kn, double v,
               int line, diag *err)
{
    if (p->n == p->cap) {
        int ncap = p->cap ? p->cap * 2 : 16;
        if (ncap > 1000000)
            return diag_set(err, "too many parameters");
        void *nv = p->v;
        if (mem_grow(&nv, (size_t)ncap, sizeof *p->v) < 0)
            return diag_set(err, "out of memory");
        p->v = nv;
        p->cap = ncap;
    }
    param *e = &p->v[p->n];
    if (!(e->who = mem_strndup(who, wn)))
        return diag_set(err, "out of memory");
    if (!(e->key = mem_strndup(key, kn))) {
        free(e->who);
        return diag_set(err, "out of memory");
    }
    e->value = v;
    e->line = line;
    p->n++;
    return 0;
}

bpel_params *bpel_params_parse_string(const char *text, size_t len, const char *file, diag *err)
{
    if (!file)
        file = "<params>";
    bpel_params *p = calloc(1, sizeof *p);
    if (!p || !(p->file = mem_strndup(file, strlen(file)))) {
        free(p);
        diag_set(err, "out of memory");
        return NULL;
    }
    size_t i = 0;
    int line = 0;
    while (i < len) {
        line++;
        size_t eol = i;
        while (eol < len && text[eol] != '\n')
            eol++;
        size_t end = eol;
        for (size_t k = i; k < eol; k++)
            if (text[k] == '#') {
                end = k;
                break;
            }
        size_t k = i;
        while (k < end && isspace((unsigned char)text[k]))
            k++;
        if (k < end) {
            size_t w0 = k;
            while (k < end && !isspace((unsigned char)text[k]))
                k++;
            size_t w1 = k;
            int pairs = 0;
            for (;;) {
                while (k < end && isspace((unsigned char)text[k]))
                    k++;
                if (k >= end)
                    break;
                size_t k0 = k;
                while (k < end && text[k] != '=' && !isspace((unsigned char)text[k]))
                    k++;
                size_t k1 = k;
                if (k >= end || text[k] != '=') {
                    diag_at(err, file, line, (int)(k0 - i + 1), "expected key=value");
                    goto fail;
                }
                k++;
                size_t v0 = k;
                while (k < end && !isspace((unsigned char)text[k]))
                    k++;
                int ok_key = 0;
                for (size_t q = 0; q < sizeof known_keys / sizeof known_keys[0]; q++)
                    if (strlen(known_keys[q]) == k1 - k0 &&
                        memcmp(known_keys[q], text + k0, k1 - k0) == 0)
                        ok_key = 1;
                if (!ok_key) {
                    diag_at(err, file, line, (int)(k0 - i + 1),
                            "unknown key '%.*s' (rate, prob, iterations, count, arrival)",
                            (int)(k1 - k0 > 64 ? 64 : k1 - k0), text + k0);
                    goto fail;
                }
                char num[64];
                size_t vn = k - v0;
                if (vn == 0 || vn >= sizeof num) {
                    diag_at(err, file, line, (int)(v0 - i + 1), "bad number");
                    goto fail;
                }
                memcpy(num, text + v0, vn);
                num[vn] = '\0';
                char *e;
                double v = strtod(num, &e);
                if (*e != '\0' || !isfinite(v) || v < 0) {
                    diag_at(err, file, line, (int)(v0 - i + 1),
                            "'%s' is not a non-negative number", num);
                    goto fail;
                }
                if (add(p, text + w0, w1 - w0, text + k0, k1 - k0, v, line, err) < 0)
                    goto fail;
                pairs++;
            }
            if (!pairs) {
                diag_at(err, file, line, (int)(w0 - i + 1), "no key=value after '%.*s'",
                        (int)(w1 - w0 > 64 ? 64 : w1 - w0), text + w0);
                goto fail;
            }
        }
        i = eol + 1;
    }
    return p;
fail:
    bpel_params_free(p);
    return NULL;
}

bpel_params *bpel_params_parse_file(const char *path, diag *err)
{
    char *buf;
    size_t len;
    if (bpel_read_file(path, BPEL_MAX_PARAMS_FILE, &buf, &len, err) < 0)
        return NULL;
    bpel_params *p = bpel_params_parse_string(buf, len, path, err);
    free(buf);
    return p;
}

int bpel_params_get(const bpel_params *p, const char *path, const char *name, const char *key,
                    double *value)
{
    if (!p)
        return 0;
    /* The path is unique, so it wins over a name; the last line wins. */
    for (int pass = 0; pass < 2; pass++) {
        const char *who = pass == 0 ? path : name;
        if (!who)
            continue;
        for (int i = p->n - 1; i >= 0; i--)
            if (strcmp(p->v[i].who, who) == 0 && strcmp(p->v[i].key, key) == 0) {
                *value = p->v[i].value;
                return 1;
            }
    }
    return 0;
}

int bpel_params_count(const bpel_params *p)
{
    return p ? p->n : 0;
}

void bpel_params_mark(const bpel_params *p, const char *path, const char *name, const char *key,
                      unsigned char *mark)
{
    for (int i = 0; p && i < p->n; i++) {
        const char *who = p->v[i].who;
        if (!((path && strcmp(who, path) == 0) || (name && strcmp(who, name) == 0)))
            continue;
        mark[i] |= BPEL_PARAM_NAMED;
        if (key && strcmp(p->v[i].key, key) == 0)
            mark[i] |= BPEL_PARAM_READ;
    }
}

int bpel_params_entry(const bpel_params *p, int i, const char **file, const char **who,
                      const char **key)
{
    *file = p->file;
    *who = p->v[i].who;
    *key = p->v[i].key;
    return p->v[i].line;
}
