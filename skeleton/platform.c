/* skeleton/platform.c: the platform description (docs/platform.md), which
 * the Slurm plugin also reads as skeleton.conf. Slurm-style lines of
 * Key=Value pairs, '#' comments, keys case-insensitive:
 *
 *   LocalLatency=0.0001        DefaultLatency=0.01
 *   Input=local|NODE           Output=local|NODE
 *   NodeName=HOSTLIST [Speed=X]
 *   Link=HOSTLIST Latency=S [Bandwidth=B]   (every pair of the listed nodes)
 *   SetupFixed=S BspG=S ...    parameters of the analytic cost models (skel_param)
 *   Sharing=ps|static          how the tasks on one node share it (skel_sharing)
 *   WorkSCV=c2                 variability of a task's work (skel_erlang_phases)
 *   LinkSCV=c2 DefaultBuffer=n variability of a move's time, items a link holds
 *   Link=... [SCV=c2] [Buffer=n] the same for the listed pairs
 *
 * Pairs the platform does not know go to the caller's callback, so that
 * the plugin keeps its own keys in the same file without this module
 * knowing about Slurm. */
#include "skeleton.h"
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/arena.h"
#include "../base/strmap.h"
#include "../base/mem.h"

#define MAX_LINE 65536
/* Node pairs set by all Link= lines together: each line is bounded, but a
 * few kilobytes of lines over large hostlists would otherwise take
 * gigabytes. Twice a million pairs is a complete graph of 2000 nodes. */
#define MAX_LINK_PAIRS (1L << 21)

typedef struct priv {
    arena mem;
    strmap index;                  /* node name -> index */
    int node_cap, link_cap;
    const char *input_name, *output_name;
    int input_line, input_col, output_line, output_col;
    int local_line, default_line, sharing_line, work_scv_line, link_scv_line, buffer_line;
    int param_line[SKEL_PARAM_COUNT];
} priv;

typedef struct pair {
    const char *key, *value;       /* NUL-terminated copies inside the line buffer */
    int col, vcol;
} pair;

typedef struct pctx {
    skel_platform *p;
    priv *pv;
    skel_conf_fn fn;
    void *ctx;
    const char *file;
    int line;
    diag *err;
} pctx;

static int fail(pctx *c, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(pctx *c, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(c->err, c->file, c->line, col, fmt, ap);
    va_end(ap);
    return -1;
}

void skel_platform_free(skel_platform *p)
{
    if (!p)
        return;
    priv *pv = p->priv;
    free(p->links);
    free(p->nodes);
    if (pv) {
        strmap_free(&pv->index);
        arena_free(&pv->mem);
        free(pv);
    }
    free(p);
}

static skel_platform *platform_new(const char *file)
{
    skel_platform *p = calloc(1, sizeof *p);
    priv *pv = calloc(1, sizeof *pv);
    if (!p || !pv) {
        free(pv);
        free(p);
        return NULL;
    }
    arena_init(&pv->mem);
    strmap_init(&pv->index);
    p->priv = pv;
    p->file = arena_strdup(&pv->mem, file ? file : "<input>");
    if (!p->file) {
        skel_platform_free(p);
        return NULL;
    }
    p->local_latency = -1;
    p->default_latency = -1;
    p->input = p->output = SKEL_LOCAL;
    p->job_buffer = -1;
    return p;
}

int skel_platform_find(const skel_platform *p, const char *name)
{
    const priv *pv = p->priv;
    return strmap_get(&pv->index, name);
}

static int add_node(skel_platform *p, const char *name, double speed, int line, diag *err)
{
    priv *pv = p->priv;
    if (p->nnodes >= SKEL_MAX_NODES)
        return diag_set(err, "more than %d nodes", SKEL_MAX_NODES);
    if (p->nnodes == pv->node_cap) {
        int nc = pv->node_cap ? 2 * pv->node_cap : 16;
        if (mem_grow((void **)&p->nodes, (size_t)nc, sizeof *p->nodes) < 0)
            return diag_set(err, "out of memory");
        pv->node_cap = nc;
    }
    char *copy = arena_strdup(&pv->mem, name);
    if (!copy || strmap_put(&pv->index, copy, p->nnodes) < 0)
        return diag_set(err, "out of memory");
    p->nodes[p->nnodes].name = copy;
    p->nodes[p->nnodes].speed = speed;
    p->nodes[p->nnodes].line = line;
    p->nnodes++;
    return 0;
}

static int add_link(skel_platform *p, int a, int b, const skel_link *proto, diag *err)
{
    priv *pv = p->priv;
    if (p->nlinks == pv->link_cap) {
        int nc = pv->link_cap ? 2 * pv->link_cap : 16;
        if (mem_grow((void **)&p->links, (size_t)nc, sizeof *p->links) < 0)
            return diag_set(err, "out of memory");
        pv->link_cap = nc;
    }
    skel_link *l = &p->links[p->nlinks++];
    *l = *proto;
    l->a = a < b ? a : b;
    l->b = a < b ? b : a;
    return 0;
}

/* A positive finite number (what every numeric key takes). */
static int positive(pctx *c, const pair *kv, double *v)
{
    char *end;
    if (!*kv->value)
        return fail(c, kv->vcol, "%s= needs a value", kv->key);
    *v = strtod(kv->value, &end);
    if (*end || end == kv->value)
        return fail(c, kv->vcol, "%s=%s: not a number", kv->key, kv->value);
    if (!isfinite(*v))
        return fail(c, kv->vcol, "%s=%s: not a finite number", kv->key, kv->value);
    if (*v < 0)
        return fail(c, kv->vcol, "%s=%s: negative numbers are not allowed", kv->key, kv->value);
    if (*v == 0)
        return fail(c, kv->vcol, "%s=%s: must be positive", kv->key, kv->value);
    return 0;
}

static int hand_over(pctx *c, const pair *kv, const pair *head)
{
    if (c->fn) {
        skel_conf_item item = { .file = c->file, .line = c->line, .col = kv->col,
                                .key = kv->key, .value = kv->value,
                                .head_key = head->key, .head_value = head->value };
        int r = c->fn(c->ctx, &item, c->err);
        if (r < 0) {
            /* The callback should have said why; make sure something is said. */
            return fail(c, kv->col, "%s=%s: rejected", kv->key, kv->value);
        }
        if (r == 0)
            return 0;
    }
    return fail(c, kv->col, "unknown key '%s'%s%s", kv->key, head != kv ? " on a line of " : "",
                head != kv ? head->key : "");
}

static int line_nodes(pctx *c, const pair *kv, int n)
{
    double speed = 1;
    int have_speed = 0;
    for (int i = 1; i < n; i++) {
        if (strcasecmp(kv[i].key, "Speed") == 0) {
            if (have_speed)
                return fail(c, kv[i].col, "Speed= given twice");
            have_speed = 1;
            if (positive(c, &kv[i], &speed) < 0)
                return -1;
        } else if (hand_over(c, &kv[i], &kv[0]) < 0) {
            return -1;
        }
    }
    char **names;
    int count;
    diag sub;
    diag_clear(&sub);
    if (skel_hostlist_expand(kv[0].value, &names, &count, SKEL_MAX_NODES, &sub) < 0)
        return fail(c, kv[0].vcol, "%s", sub.msg);
    int rc = 0;
    for (int i = 0; i < count && rc == 0; i++) {
        int old = skel_platform_find(c->p, names[i]);
        if (old >= 0)
            rc = fail(c, kv[0].vcol, "node %s declared twice (first at line %d)", names[i],
                      c->p->nodes[old].line);
        else if (add_node(c->p, names[i], speed, c->line, &sub) < 0)
            rc = fail(c, kv[0].vcol, "%s", sub.msg);
    }
    skel_hostlist_free(names, count);
    return rc;
}

/* Links name nodes that may be declared later; they are kept by name in
 * the order seen and resolved by resolve_links. */
typedef struct link_line {
    char **names;
    int count;
    skel_link proto;       /* latency, bandwidth, scv, buffer, line */
    int col;
} link_line;

typedef struct links {
    link_line *v;
    int n, cap;
    long pairs;            /* node pairs of all lines so far */
} links;

static void links_free(links *ls)
{
    for (int i = ls->n - 1; i >= 0; i--)
        skel_hostlist_free(ls->v[i].names, ls->v[i].count);
    free(ls->v);
}

/* SCV=: a squared coefficient of variation within the bounds of scv=. */
static int scv_value(pctx *c, const pair *kv, double *v)
{
    if (positive(c, kv, v) < 0)
        return -1;
    if (!(*v >= SKEL_MIN_SCV && *v <= SKEL_MAX_SCV))
        return fail(c, kv->vcol, "%s= must be between %g and %g", kv->key, SKEL_MIN_SCV,
                    SKEL_MAX_SCV);
    return 0;
}

/* Buffer=: a whole number of items, 0 (rendezvous) to SKEL_MAX_BUFFER. */
static int buffer_value(pctx *c, const pair *kv, int *v)
{
    char *end;
    long n = strtol(kv->value, &end, 10);
    if (end == kv->value || *end || n < 0 || n > SKEL_MAX_BUFFER)
        return fail(c, kv->vcol, "%s=%.40s: must be a whole number of items from 0 to %d",
                    kv->key, kv->value, SKEL_MAX_BUFFER);
    *v = (int)n;
    return 0;
}

/* The keys of a Link= line after its head, into l (latency < 0 when
 * missing). */
static int link_keys(pctx *c, const pair *kv, int n, skel_link *l)
{
    static const char *const keys[] = { "Latency", "Bandwidth", "SCV", "Buffer" };
    int seen[4] = { 0 };
    for (int i = 1; i < n; i++) {
        int k = 0;
        while (k < 4 && strcasecmp(kv[i].key, keys[k]) != 0)
            k++;
        if (k == 4) {
            if (hand_over(c, &kv[i], &kv[0]) < 0)
                return -1;
            continue;
        }
        if (seen[k]++)
            return fail(c, kv[i].col, "%s= given twice", keys[k]);
        int rc = k == 0 ? positive(c, &kv[i], &l->latency)
                 : k == 1 ? positive(c, &kv[i], &l->bandwidth)
                 : k == 2 ? scv_value(c, &kv[i], &l->scv) : buffer_value(c, &kv[i], &l->buffer);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int line_link(pctx *c, const pair *kv, int n, links *ls)
{
    link_line l = { .proto = { .latency = -1, .buffer = -1, .line = c->line },
                    .col = kv[0].vcol };
    if (link_keys(c, kv, n, &l.proto) < 0)
        return -1;
    if (l.proto.latency < 0)
        return fail(c, kv[0].col, "Link=%s has no Latency=", kv[0].value);
    diag sub;
    diag_clear(&sub);
    if (skel_hostlist_expand(kv[0].value, &l.names, &l.count, SKEL_MAX_NODES, &sub) < 0)
        return fail(c, kv[0].vcol, "%s", sub.msg);
    if (l.count < 2) {
        skel_hostlist_free(l.names, l.count);
        return fail(c, kv[0].vcol, "Link=%s names fewer than two nodes", kv[0].value);
    }
    long pairs = (long)l.count * (l.count - 1) / 2;
    if (pairs > SKEL_MAX_NODES) {
        skel_hostlist_free(l.names, l.count);
        return fail(c, kv[0].vcol, "Link=%s makes more than %d pairs", kv[0].value,
                    SKEL_MAX_NODES);
    }
    if (ls->pairs + pairs > MAX_LINK_PAIRS) {
        skel_hostlist_free(l.names, l.count);
        return fail(c, kv[0].vcol, "the Link= lines make more than %ld node pairs in all",
                    MAX_LINK_PAIRS);
    }
    ls->pairs += pairs;
    if (ls->n == ls->cap) {
        int nc = ls->cap ? 2 * ls->cap : 8;
        if (mem_grow((void **)&ls->v, (size_t)nc, sizeof *ls->v) < 0) {
            skel_hostlist_free(l.names, l.count);
            return diag_set(c->err, "out of memory");
        }
        ls->cap = nc;
    }
    ls->v[ls->n++] = l;
    return 0;
}

/* The cost models' keys (skel_param): global, positive, at most once. */
static const char *const param_keys[SKEL_PARAM_COUNT] = {
    "SetupFixed", "SetupPerNode", "FlattenFixed", "FlattenPerByte", "GcRate", "GcTime",
    "BspG", "BspNHalf", "BspL", "InterArrival", "Precision", "CodeSize"
};

int skel_sharing_parse(const char *s, skel_sharing *out)
{
    if (strcasecmp(s, "ps") == 0)
        *out = SKEL_SHARE_PS;
    else if (strcasecmp(s, "static") == 0)
        *out = SKEL_SHARE_STATIC;
    else
        return -1;
    return 0;
}

const char *skel_sharing_name(skel_sharing s)
{
    return s == SKEL_SHARE_STATIC ? "static" : "ps";
}

const char *skel_param_key(skel_param k)
{
    return k >= 0 && k < SKEL_PARAM_COUNT ? param_keys[k] : NULL;
}

static int global_key(pctx *c, const pair *kv, const pair *head)
{
    priv *pv = c->pv;
    skel_platform *p = c->p;
    for (int k = 0; k < SKEL_PARAM_COUNT; k++)
        if (strcasecmp(kv->key, param_keys[k]) == 0) {
            if (pv->param_line[k])
                return fail(c, kv->col, "%s= given twice (first at line %d)", kv->key,
                            pv->param_line[k]);
            pv->param_line[k] = c->line;
            return positive(c, kv, &p->param[k]);
        }
    if (strcasecmp(kv->key, "LocalLatency") == 0 || strcasecmp(kv->key, "DefaultLatency") == 0) {
        int local = strcasecmp(kv->key, "LocalLatency") == 0;
        int *seen = local ? &pv->local_line : &pv->default_line;
        if (*seen)
            return fail(c, kv->col, "%s= given twice (first at line %d)", kv->key, *seen);
        *seen = c->line;
        return positive(c, kv, local ? &p->local_latency : &p->default_latency);
    }
    if (strcasecmp(kv->key, "WorkSCV") == 0) {
        if (pv->work_scv_line)
            return fail(c, kv->col, "WorkSCV= given twice (first at line %d)", pv->work_scv_line);
        pv->work_scv_line = c->line;
        if (positive(c, kv, &p->work_scv) < 0)
            return -1;
        if (!(p->work_scv >= SKEL_MIN_SCV && p->work_scv <= SKEL_MAX_SCV))
            return fail(c, kv->vcol, "WorkSCV= must be between %g and %g", SKEL_MIN_SCV,
                        SKEL_MAX_SCV);
        return 0;
    }
    if (strcasecmp(kv->key, "LinkSCV") == 0) {
        if (pv->link_scv_line)
            return fail(c, kv->col, "LinkSCV= given twice (first at line %d)", pv->link_scv_line);
        pv->link_scv_line = c->line;
        return scv_value(c, kv, &p->link_scv);
    }
    if (strcasecmp(kv->key, "DefaultBuffer") == 0) {
        if (pv->buffer_line)
            return fail(c, kv->col, "DefaultBuffer= given twice (first at line %d)",
                        pv->buffer_line);
        pv->buffer_line = c->line;
        return buffer_value(c, kv, &p->default_buffer);
    }
    if (strcasecmp(kv->key, "Sharing") == 0) {
        if (pv->sharing_line)
            return fail(c, kv->col, "Sharing= given twice (first at line %d)", pv->sharing_line);
        pv->sharing_line = c->line;
        if (skel_sharing_parse(kv->value, &p->sharing) < 0)
            return fail(c, kv->vcol, "Sharing= must be ps or static, not '%.40s'", kv->value);
        return 0;
    }
    if (strcasecmp(kv->key, "Input") == 0 || strcasecmp(kv->key, "Output") == 0) {
        int in = strcasecmp(kv->key, "Input") == 0;
        const char **name = in ? &pv->input_name : &pv->output_name;
        if (*name)
            return fail(c, kv->col, "%s= given twice (first at line %d)", kv->key,
                        in ? pv->input_line : pv->output_line);
        if (!*kv->value)
            return fail(c, kv->vcol, "%s= needs 'local' or a node name", kv->key);
        *name = arena_strdup(&pv->mem, kv->value);
        if (!*name)
            return diag_set(c->err, "out of memory");
        (in ? &pv->input_line : &pv->output_line)[0] = c->line;
        (in ? &pv->input_col : &pv->output_col)[0] = kv->vcol;
        return 0;
    }
    if (strcasecmp(kv->key, "Speed") == 0 || strcasecmp(kv->key, "Latency") == 0 ||
        strcasecmp(kv->key, "Bandwidth") == 0 || strcasecmp(kv->key, "SCV") == 0 ||
        strcasecmp(kv->key, "Buffer") == 0)
        return fail(c, kv->col, "%s= belongs on a %s line", kv->key,
                    strcasecmp(kv->key, "Speed") == 0 ? "NodeName=" : "Link=");
    return hand_over(c, kv, head);
}

/* Split one line (modified in place) into pairs and act on them. */
static int do_line(pctx *c, char *s, links *ls)
{
    pair kv[64];
    int n = 0;
    char *hash = strchr(s, '#');
    if (hash)
        *hash = '\0';
    char *q = s;
    for (;;) {
        while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
        if (!*q)
            break;
        if (n == (int)(sizeof kv / sizeof kv[0]))
            return fail(c, (int)(q - s) + 1, "more than %d Key=Value pairs on one line",
                        (int)(sizeof kv / sizeof kv[0]));
        char *tok = q;
        while (*q && *q != ' ' && *q != '\t' && *q != '\r')
            q++;
        char *eq = memchr(tok, '=', (size_t)(q - tok));
        if (!eq || eq == tok)
            return fail(c, (int)(tok - s) + 1, "expected Key=Value, found '%.*s'",
                        (int)(q - tok > 40 ? 40 : q - tok), tok);
        for (char *k = tok; k < eq; k++)
            if (!isalnum((unsigned char)*k) && *k != '_')
                return fail(c, (int)(tok - s) + 1, "bad key '%.*s'", (int)(eq - tok), tok);
        kv[n].key = tok;
        kv[n].value = eq + 1;
        kv[n].col = (int)(tok - s) + 1;
        kv[n].vcol = (int)(eq - s) + 2;
        *eq = '\0';
        n++;
        if (*q)
            *q++ = '\0';
    }
    if (n == 0)
        return 0;
    if (strcasecmp(kv[0].key, "NodeName") == 0)
        return line_nodes(c, kv, n);
    if (strcasecmp(kv[0].key, "Link") == 0)
        return line_link(c, kv, n, ls);
    for (int i = 0; i < n; i++)
        if (global_key(c, &kv[i], &kv[0]) < 0)
            return -1;
    return 0;
}

static int cmp_link(const void *x, const void *y)
{
    const skel_link *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static int resolve(pctx *c, links *ls)
{
    skel_platform *p = c->p;
    priv *pv = c->pv;
    for (int k = 0; k < ls->n; k++) {
        link_line *l = &ls->v[k];
        c->line = l->proto.line;
        int *idx = malloc((size_t)l->count * sizeof *idx);
        if (!idx)
            return diag_set(c->err, "out of memory");
        for (int i = 0; i < l->count; i++) {
            idx[i] = skel_platform_find(p, l->names[i]);
            if (idx[i] < 0) {
                free(idx);
                return fail(c, l->col, "Link: unknown node %s (no NodeName= line declares it)",
                            l->names[i]);
            }
        }
        for (int i = 0; i < l->count; i++)
            for (int j = i + 1; j < l->count; j++) {
                if (idx[i] == idx[j]) {
                    free(idx);
                    return fail(c, l->col, "Link: node %s listed twice", l->names[i]);
                }
                diag sub;
                diag_clear(&sub);
                if (add_link(p, idx[i], idx[j], &l->proto, &sub) < 0) {
                    free(idx);
                    return diag_set(c->err, "%s", sub.msg);
                }
            }
        free(idx);
    }
    if (p->nlinks > 1)
        qsort(p->links, (size_t)p->nlinks, sizeof *p->links, cmp_link);
    for (int k = 1; k < p->nlinks; k++)
        if (p->links[k].a == p->links[k - 1].a && p->links[k].b == p->links[k - 1].b) {
            int first = p->links[k - 1].line, second = p->links[k].line;
            if (first > second) {
                int t = first;
                first = second;
                second = t;
            }
            c->line = second;
            return fail(c, 0, "link %s,%s given twice (first at line %d)",
                        p->nodes[p->links[k].a].name, p->nodes[p->links[k].b].name, first);
        }
    for (int side = 0; side < 2; side++) {
        const char *name = side ? pv->output_name : pv->input_name;
        if (!name || strcasecmp(name, "local") == 0)
            continue;
        int id = skel_platform_find(p, name);
        if (id < 0) {
            c->line = side ? pv->output_line : pv->input_line;
            return fail(c, side ? pv->output_col : pv->input_col,
                        "%s=%s: unknown node (use 'local' or a declared node)",
                        side ? "Output" : "Input", name);
        }
        *(side ? &p->output : &p->input) = id;
    }
    return 0;
}

skel_platform *skel_platform_parse_string(const char *text, size_t len, const char *file,
                                          skel_conf_fn fn, void *ctx, diag *err)
{
    skel_platform *p = platform_new(file);
    if (!p) {
        diag_set(err, "out of memory");
        return NULL;
    }
    pctx c = { .p = p, .pv = p->priv, .fn = fn, .ctx = ctx, .file = p->file, .err = err };
    links ls = { 0 };
    char *buf = malloc(MAX_LINE + 1);
    int rc = buf ? 0 : diag_set(err, "out of memory");
    size_t i = 0;
    while (rc == 0 && i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        c.line++;
        if (j - i > MAX_LINE) {
            rc = fail(&c, 0, "line longer than %d characters", MAX_LINE);
            break;
        }
        memcpy(buf, text + i, j - i);
        buf[j - i] = '\0';
        if (memchr(text + i, '\0', j - i))
            rc = fail(&c, 0, "NUL byte in the line");
        else
            rc = do_line(&c, buf, &ls);
        i = j + 1;
    }
    if (rc == 0)
        rc = resolve(&c, &ls);
    links_free(&ls);
    free(buf);
    if (rc < 0) {
        skel_platform_free(p);
        return NULL;
    }
    return p;
}

skel_platform *skel_platform_parse_file(const char *path, skel_conf_fn fn, void *ctx, diag *err)
{
    char *text;
    size_t len;
    if (skel_read_file(path, SKEL_MAX_FILE, &text, &len, err) < 0)
        return NULL;
    skel_platform *p = skel_platform_parse_string(text, len, path, fn, ctx, err);
    free(text);
    return p;
}

skel_platform *skel_platform_default(int count, diag *err)
{
    skel_platform *p = platform_new("<default platform>");
    if (!p) {
        diag_set(err, "out of memory");
        return NULL;
    }
    p->local_latency = 1;
    p->default_latency = 1;
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%d", i);
        if (add_node(p, name, 1.0, 0, err) < 0) {
            skel_platform_free(p);
            return NULL;
        }
    }
    return p;
}

int skel_platform_link(const skel_platform *p, int a, int b, double *latency,
                       double *bandwidth, diag *err)
{
    *bandwidth = 0;
    if (a == b) {
        if (p->local_latency < 0)
            return diag_set(err, "%s: no LocalLatency= for a move within node %s", p->file,
                            p->nodes[a].name);
        *latency = p->local_latency;
        return 0;
    }
    skel_link key = { .a = a < b ? a : b, .b = a < b ? b : a };
    const skel_link *l = p->nlinks ? bsearch(&key, p->links, (size_t)p->nlinks,
                                             sizeof *p->links, cmp_link) : NULL;
    if (l) {
        *latency = l->latency;
        *bandwidth = l->bandwidth;
        return 0;
    }
    if (p->default_latency < 0)
        return diag_set(err, "%s: no Link=%s,%s and no DefaultLatency=", p->file,
                        p->nodes[a].name, p->nodes[b].name);
    *latency = p->default_latency;
    return 0;
}

void skel_platform_move_kind(const skel_platform *p, int a, int b, double *scv, int *buffer)
{
    *scv = p->link_scv > 0 ? p->link_scv : 1;
    *buffer = p->default_buffer;
    if (a != b && a >= 0 && b >= 0) {
        skel_link key = { .a = a < b ? a : b, .b = a < b ? b : a };
        const skel_link *l = p->nlinks ? bsearch(&key, p->links, (size_t)p->nlinks,
                                                 sizeof *p->links, cmp_link) : NULL;
        if (l && l->scv > 0)
            *scv = l->scv;
        if (l && l->buffer >= 0)
            *buffer = l->buffer;
    }
    if (p->job_buffer >= 0)
        *buffer = p->job_buffer;
}

int skel_platform_uniform_kind(const skel_platform *p, double *scv, int *buffer)
{
    skel_platform_move_kind(p, -1, -1, scv, buffer);
    for (int k = 0; k < p->nlinks; k++) {
        const skel_link *l = &p->links[k];
        if ((l->scv > 0 && l->scv != *scv) ||
            (p->job_buffer < 0 && l->buffer >= 0 && l->buffer != *buffer))
            return 0;
    }
    return 1;
}
