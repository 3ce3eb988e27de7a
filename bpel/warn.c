/* Warnings of one import, one per line: the parameters that took their
 * default (listed up to BPEL_MAX_LISTED, one per line), side-file entries
 * that nothing read, links the model cannot order. Each line names the
 * file (and the line) it is about, so callers print the text as it is. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"
#include "../base/strmap.h"
#include "internal.h"

/* Append n bytes of s to *buf, kept NUL-terminated. */
static int append_raw(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t ncap = (*cap ? *cap * 2 : 256) + n;
        void *p = *buf;
        if (mem_grow(&p, ncap, 1) < 0)
            return -1;
        *buf = p;
        *cap = ncap;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

/* Append one formatted line (at most 1 KiB) and a newline to *buf. */
static int append(char **buf, size_t *len, size_t *cap, const char *fmt, va_list ap)
{
    char line[1024];
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    if (n < 0)
        return 0;
    size_t k = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 2;
    line[k++] = '\n';
    return append_raw(buf, len, cap, line, k);
}

int bpel_warn_add(bpel_warn *b, diag *err, const char *fmt, ...)
{
    if (b->nlines >= BPEL_MAX_WARNINGS) {
        b->dropped++;
        return 0;
    }
    va_list ap;
    va_start(ap, fmt);
    int r = append(&b->text, &b->len, &b->cap, fmt, ap);
    va_end(ap);
    b->nlines++;
    return r < 0 ? diag_set(err, "out of memory") : 0;
}

static int line_to(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int line_to(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = append(buf, len, cap, fmt, ap);
    va_end(ap);
    return r;
}

int bpel_warn_missing(bpel_warn *b, diag *err, const char *path, const char *name,
                      const char *key, double def)
{
    if (++b->nmissing > BPEL_MAX_LISTED)
        return 0;
    if (line_to(&b->miss, &b->misslen, &b->misscap, "  %.400s%s%.100s%s %s=%g", path, name ? " (" : "", name ? name : "",
                    name ? ")" : "", key, def) < 0)
        return diag_set(err, "out of memory");
    return 0;
}

int bpel_warn_finish(bpel_warn *b, const char *file, char **text, diag *err)
{
    char *out = NULL;
    size_t len = 0, cap = 0;
    int r = 0;
    if (b->nmissing) {
        r |= line_to(&out, &len, &cap, "%s: warning: %d performance parameter%s missing, "
                            "defaults used:", file, b->nmissing, b->nmissing == 1 ? "" : "s");
        if (b->miss)
            r |= append_raw(&out, &len, &cap, b->miss, b->misslen);
        if (b->nmissing > BPEL_MAX_LISTED)
            r |= line_to(&out, &len, &cap, "  ... and %d more (--emit tree shows every "
                                "activity's parameters)", b->nmissing - BPEL_MAX_LISTED);
    }
    if (b->text)
        r |= append_raw(&out, &len, &cap, b->text, b->len);
    if (b->dropped)
        r |= line_to(&out, &len, &cap, "%s: warning: %d more warning%s not shown", file,
                            b->dropped, b->dropped == 1 ? "" : "s");
    bpel_warn_free(b);
    if (r) {
        free(out);
        *text = NULL;
        return diag_set(err, "out of memory");
    }
    if (out)
        out[len - 1] = '\0';   /* no final newline: callers print lines */
    *text = out;
    return 0;
}

void bpel_warn_free(bpel_warn *b)
{
    free(b->text);
    free(b->miss);
    memset(b, 0, sizeof *b);
}

/* The next node of the document after n in document order, below root. */
static const xmlNode *next_node(const xmlNode *n, const xmlNode *root)
{
    if (n->children && n->type == XML_ELEMENT_NODE)
        return n->children;
    while (n != root && !n->next)
        n = n->parent;
    return n == root ? NULL : n->next;
}

/* The activity carrying a <source>/<target> (2.0 wraps them in
 * <sources>/<targets>). */
static const xmlNode *owner_of(const xmlNode *e)
{
    const xmlNode *p = e->parent;
    if (p && p->type == XML_ELEMENT_NODE &&
        (bpel_is_elem(p, "sources") || bpel_is_elem(p, "targets")))
        p = p->parent;
    return p && p->type == XML_ELEMENT_NODE ? p : e;
}

/* "<invoke name='x'> (line 12)", or its operation when it has no name */
static void describe(const xmlNode *act, char *out, size_t size)
{
    const char *attr = "name";
    xmlChar *v = xmlGetNoNsProp(act, (const xmlChar *)attr);
    if (!v)
        v = xmlGetNoNsProp(act, (const xmlChar *)(attr = "operation"));
    snprintf(out, size, "<%s%s%s%s%.100s%s> (line %ld)", (const char *)act->name, v ? " " : "",
             v ? attr : "", v ? "='" : "", v ? (const char *)v : "", v ? "'" : "",
             xmlGetLineNo(act));
    xmlFree(v);
}

/* One warning for a link the model leaves out: src and tgt are its first
 * <source> and <target> elements (either may be missing). */
static int warn_link(bpel_warn *b, diag *err, const char *file, const char *link,
                     const xmlNode *src, const xmlNode *tgt)
{
    char from[256] = "", to[256] = "";
    if (src)
        describe(owner_of(src), from, sizeof from);
    if (tgt)
        describe(owner_of(tgt), to, sizeof to);
    long line = xmlGetLineNo(src ? src : tgt);
    if (!src)
        return bpel_warn_add(b, err, "%s:%ld: warning: link '%.200s' to %s has no source: ignored",
                             file, line, link, to);
    if (!tgt)
        return bpel_warn_add(b, err, "%s:%ld: warning: link '%.200s' from %s has no target: "
                             "ignored", file, line, link, from);
    return bpel_warn_add(b, err, "%s:%ld: warning: link '%.200s' from %s to %s joins activities "
                         "that are not children of the same <flow>: ignored, the model does "
                         "not order them", file, line, link, from, to);
}

/* The links below root whose names are not in ordered: ends[2i] and
 * ends[2i+1] are the first <source> and <target> of the i-th (either may
 * be NULL), in document order. Returns their number, or -1. */
typedef struct link_ends {
    const xmlNode **ends;
    int n, cap;
    strmap seen;   /* name -> i */
} link_ends;

static int add_end(link_ends *l, arena *mem, const xmlNode *e, int is_src, const strmap *ordered)
{
    xmlChar *ln = xmlGetNoNsProp(e, (const xmlChar *)"linkName");
    char *name = ln ? arena_strdup(mem, (const char *)ln) : NULL;
    int i = ln && !name ? -2 : !name || strmap_get(ordered, name) >= 0 ? -3
          : strmap_get(&l->seen, name);
    xmlFree(ln);
    if (i == -3)
        return 0;   /* no name: reported by the flow; ordered: used */
    if (i == -1) {
        void *p = l->ends;
        if (l->n == l->cap && mem_grow(&p, 2 * (size_t)(l->cap = l->cap ? 2 * l->cap : 16),
                                       sizeof *l->ends) < 0)
            return -1;
        l->ends = p;
        if (strmap_put(&l->seen, name, l->n) < 0)
            return -1;
        l->ends[2 * l->n] = l->ends[2 * l->n + 1] = NULL;
        i = l->n++;
    }
    if (i < 0)
        return -1;
    if (!l->ends[2 * i + !is_src])
        l->ends[2 * i + !is_src] = e;
    return 0;
}

int bpel_warn_links(bpel_warn *b, diag *err, arena *mem, const xmlNode *root,
                    const strmap *ordered, const char *file)
{
    link_ends l = { 0 };
    strmap_init(&l.seen);
    int rc = 0;
    for (const xmlNode *e = root; e && rc == 0; e = next_node(e, root)) {
        int is_src = bpel_is_elem(e, "source");
        if (is_src || bpel_is_elem(e, "target"))
            rc = add_end(&l, mem, e, is_src, ordered);
    }
    if (rc < 0)
        diag_set(err, "out of memory");
    for (int i = 0; i < l.n && rc == 0; i++) {
        const xmlNode *s = l.ends[2 * i], *t = l.ends[2 * i + 1];
        xmlChar *ln = xmlGetNoNsProp(s ? s : t, (const xmlChar *)"linkName");
        rc = warn_link(b, err, file, ln ? (const char *)ln : "?", s, t);
        xmlFree(ln);
    }
    free(l.ends);
    strmap_free(&l.seen);
    return rc;
}

int bpel_warn_params(bpel_warn *b, diag *err, const bpel_params *p, const unsigned char *mark)
{
    int n = bpel_params_count(p);
    for (int i = 0; i < n; i++) {
        if (mark[i] & BPEL_PARAM_READ)
            continue;
        const char *file, *who, *key;
        int line = bpel_params_entry(p, i, &file, &who, &key);
        int r = mark[i] & BPEL_PARAM_NAMED
            ? bpel_warn_add(b, err, "%s:%d: warning: '%.200s' takes no %s: ignored", file, line,
                            who, key)
            : bpel_warn_add(b, err, "%s:%d: warning: no activity or link is named '%.200s' or "
                            "has that path: ignored", file, line, who);
        if (r < 0)
            return -1;
    }
    return 0;
}
