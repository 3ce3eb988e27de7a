/* bpel/map.c: the BPEL walker: a process document becomes an activity tree
 * (internal.h's bpel_act) with every performance parameter resolved, from
 * the side file, from urn:skelsched:perf attributes, or from a default that
 * is reported in one warning. Elements are matched by namespace URI and
 * local name, never by prefix. Here: the element tables, the walker's
 * helpers, the walk over sequences, flows, scopes, loops and event
 * handlers, and the public entry (bpel_import_*, --emit tree); tasks,
 * choices and a flow's links have files of their own (map_int.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_int.h"
#include "../base/mem.h"

#define PERF_NS "urn:skelsched:perf"

static const char *const bpel_namespaces[] = {
    "http://docs.oasis-open.org/wsbpel/2.0/process/executable",
    "http://docs.oasis-open.org/wsbpel/2.0/process/abstract",
    "http://schemas.xmlsoap.org/ws/2003/03/business-process/",
    "http://schemas.xmlsoap.org/ws/2004/03/business-process/",
};

static const act_info activities[] = {
    { "sequence", ACT_STRUCTURED }, { "flow", ACT_STRUCTURED }, { "while", ACT_STRUCTURED },
    { "repeatUntil", ACT_STRUCTURED }, { "forEach", ACT_STRUCTURED }, { "if", ACT_STRUCTURED },
    { "switch", ACT_STRUCTURED }, { "pick", ACT_STRUCTURED }, { "scope", ACT_STRUCTURED },
    { "invoke", ACT_TASK }, { "receive", ACT_TASK }, { "reply", ACT_TASK }, { "wait", ACT_TASK },
    { "assign", ACT_NO_COST }, { "empty", ACT_NO_COST }, { "validate", ACT_NO_COST },
    { "throw", ACT_NO_COST }, { "rethrow", ACT_NO_COST }, { "exit", ACT_NO_COST },
    { "terminate", ACT_NO_COST }, { "compensate", ACT_NO_COST },
    { "compensateScope", ACT_NO_COST }, { "extensionActivity", ACT_NO_COST },
};

/* BPEL elements that are not activities: skipped where activities are
 * looked for. Anything else in a BPEL namespace is an error there. */
static const char *const other_elements[] = {
    "targets", "target", "sources", "source", "links", "link", "variables", "variable",
    "partnerLinks", "partnerLink", "partners", "partner", "correlationSets", "correlationSet",
    "correlations", "correlation", "faultHandlers", "eventHandlers", "compensationHandler",
    "terminationHandler", "condition", "documentation", "messageExchanges", "messageExchange",
    "extensions", "extension", "import", "startCounterValue", "finalCounterValue",
    "completionCondition", "branches", "elseif", "else", "case", "otherwise", "onMessage",
    "onAlarm", "onEvent", "toParts", "toPart", "fromParts", "fromPart", "copy", "from", "to",
    "catch", "catchAll", "for", "until", "repeatEvery", "literal", "query",
    "transitionCondition", "joinCondition", "expression",
};

static int is_bpel_ns(const xmlNs *ns)
{
    if (!ns || !ns->href)
        return 0;
    for (size_t i = 0; i < sizeof bpel_namespaces / sizeof bpel_namespaces[0]; i++)
        if (strcmp((const char *)ns->href, bpel_namespaces[i]) == 0)
            return 1;
    return 0;
}

int bpel_is_elem(const xmlNode *n, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && is_bpel_ns(n->ns) &&
           (!local || strcmp((const char *)n->name, local) == 0);
}

const act_info *map_activity(const xmlNode *n)
{
    if (!bpel_is_elem(n, NULL))
        return NULL;
    for (size_t i = 0; i < sizeof activities / sizeof activities[0]; i++)
        if (strcmp((const char *)n->name, activities[i].name) == 0)
            return &activities[i];
    return NULL;
}

static int is_other(const xmlNode *n)
{
    for (size_t i = 0; i < sizeof other_elements / sizeof other_elements[0]; i++)
        if (strcmp((const char *)n->name, other_elements[i]) == 0)
            return 1;
    return 0;
}

int map_line_of(const xmlNode *n)
{
    long l = xmlGetLineNo(n);
    return l > 0 && l < 1000000000 ? (int)l : 0;
}

int map_fail_at(walker *w, const xmlNode *n, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_at(w->err, w->file, n ? map_line_of(n) : 0, 0, "%s", msg);
}

/* "/process/sequence[1]/invoke[2]": the index counts earlier siblings of
 * the same BPEL element name, so it survives edits elsewhere in the file. */
static const char *make_path(walker *w, const char *parent, const xmlNode *n)
{
    int k = 1;
    for (const xmlNode *s = n->prev; s; s = s->prev)
        if (bpel_is_elem(s, (const char *)n->name))
            k++;
    size_t len = strlen(parent) + strlen((const char *)n->name) + 16;
    char *p = arena_alloc(w->mem, len);
    if (!p)
        return NULL;
    snprintf(p, len, "%s/%s[%d]", parent, (const char *)n->name, k);
    return p;
}

int map_note_missing(walker *w, const bpel_act *a, const char *key, double def)
{
    return bpel_warn_missing(&w->warn, w->err, a->path, a->name, key, def);
}

/* A yes/no attribute already checked: 1 for yes. */
int map_is_yes(const xmlNode *n, const char *attr)
{
    xmlChar *s = xmlGetNoNsProp(n, (const xmlChar *)attr);
    int y = s && strcmp((const char *)s, "yes") == 0;
    xmlFree(s);
    return y;
}

/* A yes/no attribute: 1 for yes. Anything but yes or no (parallel="true")
 * is invalid BPEL, read as no, and said so. */
int map_yes(walker *w, const xmlNode *n, const char *attr)
{
    xmlChar *s = xmlGetNoNsProp(n, (const xmlChar *)attr);
    int y = s && strcmp((const char *)s, "yes") == 0;
    int r = 0;
    if (s && !y && strcmp((const char *)s, "no") != 0)
        r = bpel_warn_add(&w->warn, w->err, "%s:%d: warning: <%s %s=\"%.40s\">: the value must "
                          "be yes or no; read as no", w->file, map_line_of(n),
                          (const char *)n->name, attr, (const char *)s);
    xmlFree(s);
    return r < 0 ? -1 : y;
}

/* A parameter: side file (path, then name) first, then the perf:KEY
 * attribute. Returns 1 with *v, 0 when absent, -1 on a bad value. */
int map_param(walker *w, const xmlNode *n, const bpel_act *a, const char *key, double *v)
{
    bpel_params_mark(w->params, a->path, a->name, key, w->pmark);
    if (bpel_params_get(w->params, a->path, a->name, key, v))
        return 1;
    xmlChar *s = xmlGetNsProp(n, (const xmlChar *)key, (const xmlChar *)PERF_NS);
    if (!s)
        return 0;
    char *e;
    errno = 0;
    double d = strtod((const char *)s, &e);
    while (*e == ' ' || *e == '\t')
        e++;
    int bad = e == (char *)s || *e != '\0' || !isfinite(d) || d < 0;
    if (bad) {
        map_fail_at(w, n, "<%s> perf:%s=\"%.64s\" is not a non-negative number",
                    (const char *)n->name, key, (const char *)s);
        xmlFree(s);
        return -1;
    }
    xmlFree(s);
    *v = d;
    return 1;
}

bpel_act *map_new_act(walker *w, const xmlNode *n, const char *parent_path, bpel_kind kind)
{
    bpel_act *a = arena_alloc(w->mem, sizeof *a);
    if (!a) {
        diag_set(w->err, "out of memory");
        return NULL;
    }
    a->kind = kind;
    a->elem = arena_strdup(w->mem, (const char *)n->name);
    a->line = map_line_of(n);
    a->path = make_path(w, parent_path, n);
    a->prob = 1.0;
    a->count = 1.0;
    xmlChar *name = xmlGetNoNsProp(n, (const xmlChar *)"name");
    if (name) {
        a->name = arena_strdup(w->mem, (const char *)name);
        xmlFree(name);
        if (!a->name)
            goto oom;
    }
    if (!a->elem || !a->path)
        goto oom;
    bpel_params_mark(w->params, a->path, a->name, NULL, w->pmark);
    return a;
oom:
    diag_set(w->err, "out of memory");
    return NULL;
}

int map_add_child(walker *w, bpel_act *p, bpel_act *c)
{
    bpel_act **v = arena_alloc(w->mem, (size_t)(p->nchildren + 1) * sizeof *v);
    if (!v)
        return diag_set(w->err, "out of memory");
    if (p->nchildren)
        memcpy(v, p->children, (size_t)p->nchildren * sizeof *v);
    v[p->nchildren++] = c;
    p->children = v;
    return 0;
}

static bpel_act *walk(walker *w, const xmlNode *n, const char *parent_path, int depth);

/* The activities directly inside n, in order, as children of a. An unknown
 * element in a BPEL namespace is invalid BPEL: reported, not skipped. */
static int walk_children(walker *w, const xmlNode *n, bpel_act *a, int depth)
{
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || !is_bpel_ns(c->ns))
            continue;
        if (!map_activity(c)) {
            if (!is_other(c))
                return map_fail_at(w, c, "unknown BPEL element <%s> in <%s>%s",
                                   (const char *)c->name, (const char *)n->name,
                                   strcmp((const char *)c->name, "then") == 0
                                   ? " (<then> is the 2004/03 draft's; WS-BPEL 2.0 has the "
                                     "activity directly in <if> and <elseif>)" : "");
            continue;
        }
        bpel_act *k = walk(w, c, a->path, depth + 1);
        if (!k || map_add_child(w, a, k) < 0)
            return -1;
    }
    return 0;
}

/* The body of a container (scope, while, a branch): its one activity, a
 * sequence of them if several, or nothing. */
bpel_act *map_walk_body(walker *w, const xmlNode *n, const char *path, int line, int depth)
{
    bpel_act tmp = { .kind = BPEL_SEQ, .path = path, .line = line };
    if (walk_children(w, n, &tmp, depth) < 0)
        return NULL;
    if (tmp.nchildren == 1)
        return tmp.children[0];
    bpel_act *a = arena_alloc(w->mem, sizeof *a);
    if (!a) {
        diag_set(w->err, "out of memory");
        return NULL;
    }
    *a = tmp;
    a->kind = tmp.nchildren ? BPEL_SEQ : BPEL_NOP;
    a->elem = tmp.nchildren ? "(body)" : "(empty)";
    a->prob = 1.0;
    a->count = 1.0;
    return a;
}

/* The text of n's BPEL child `local` as an integer, when it is one. */
static int literal_int(const xmlNode *n, const char *local, long *v)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        if (bpel_is_elem(c, local)) {
            xmlChar *s = xmlNodeGetContent(c);
            if (!s)
                return 0;
            char *e;
            errno = 0;
            long x = strtol((const char *)s, &e, 10);
            while (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r')
                e++;
            int ok = e != (char *)s && *e == '\0' && errno == 0;
            xmlFree(s);
            if (ok)
                *v = x;
            return ok;
        }
    return 0;
}

/* Event handlers of a scope or the process (onEvent, 1.1 onMessage,
 * onAlarm): each handler runs perf:iterations times per instance on
 * average (default 0: not modelled), as loops appended to a. */
static int walk_handlers(walker *w, const xmlNode *n, bpel_act *a, int depth)
{
    for (const xmlNode *eh = n->children; eh; eh = eh->next) {
        if (!bpel_is_elem(eh, "eventHandlers"))
            continue;
        const char *ehpath = make_path(w, a->path, eh);
        if (!ehpath)
            return diag_set(w->err, "out of memory");
        for (const xmlNode *c = eh->children; c; c = c->next) {
            if (!(bpel_is_elem(c, "onEvent") || bpel_is_elem(c, "onMessage") ||
                  bpel_is_elem(c, "onAlarm")))
                continue;
            if (depth + 1 > BPEL_MAX_DEPTH)
                return map_fail_at(w, c, "activities nested deeper than %d levels", BPEL_MAX_DEPTH);
            bpel_act *h = map_new_act(w, c, ehpath, BPEL_LOOP);
            if (!h)
                return -1;
            int r = map_param(w, c, h, "iterations", &h->count);
            if (r < 0)
                return -1;
            if (r == 0) {
                h->count = 0;
                if (map_note_missing(w, h, "iterations", 0) < 0)
                    return -1;
            }
            bpel_act *body = map_walk_body(w, c, h->path, h->line, depth + 1);
            if (!body || map_add_child(w, h, body) < 0 || map_add_child(w, a, h) < 0)
                return -1;
        }
    }
    return 0;
}

static bpel_act *walk(walker *w, const xmlNode *n, const char *parent_path, int depth)
{
    if (depth > BPEL_MAX_DEPTH) {
        map_fail_at(w, n, "activities nested deeper than %d levels", BPEL_MAX_DEPTH);
        return NULL;
    }
    if (++w->nacts > BPEL_MAX_ACTIVITIES) {
        map_fail_at(w, n, "more than %d activities", BPEL_MAX_ACTIVITIES);
        return NULL;
    }
    const act_info *info = map_activity(n);
    const char *name = (const char *)n->name;
    if (info->what != ACT_STRUCTURED)
        return map_walk_task(w, n, parent_path, info->what);
    bpel_act *a;
    int r;
    if (strcmp(name, "sequence") == 0 || strcmp(name, "flow") == 0) {
        if (!(a = map_new_act(w, n, parent_path, name[0] == 's' ? BPEL_SEQ : BPEL_PAR)))
            return NULL;
        if (walk_children(w, n, a, depth) < 0)
            return NULL;
        if (a->kind == BPEL_PAR && map_flow_links(w, n, a) < 0)
            return NULL;
        return a;
    }
    if (strcmp(name, "scope") == 0) {
        if (!(a = map_new_act(w, n, parent_path, BPEL_SEQ)))
            return NULL;
        bpel_act *b = map_walk_body(w, n, a->path, a->line, depth);
        if (!b || (b->kind != BPEL_NOP && map_add_child(w, a, b) < 0))
            return NULL;
        if (walk_handlers(w, n, a, depth) < 0)
            return NULL;
        return a;
    }
    if (strcmp(name, "while") == 0 || strcmp(name, "repeatUntil") == 0) {
        if (!(a = map_new_act(w, n, parent_path, BPEL_LOOP)))
            return NULL;
        if ((r = map_param(w, n, a, "iterations", &a->count)) < 0)
            return NULL;
        if (r == 0) {
            a->count = BPEL_DEFAULT_ITERATIONS;
            if (map_note_missing(w, a, "iterations", a->count) < 0)
                return NULL;
        }
        bpel_act *b = map_walk_body(w, n, a->path, a->line, depth);
        if (!b || map_add_child(w, a, b) < 0)
            return NULL;
        return a;
    }
    if (strcmp(name, "forEach") == 0) {
        int par = map_yes(w, n, "parallel");
        if (par < 0 || !(a = map_new_act(w, n, parent_path, par ? BPEL_DEAL : BPEL_LOOP)))
            return NULL;
        if ((r = map_param(w, n, a, "count", &a->count)) < 0)
            return NULL;
        long lo, hi;
        if (r == 0 && literal_int(n, "startCounterValue", &lo) &&
            literal_int(n, "finalCounterValue", &hi) && hi >= lo && hi - lo < 1000000) {
            /* Literal counters fix N exactly: no parameter needed. */
            a->count = (double)(hi - lo + 1);
            r = 1;
        }
        if (r == 0) {
            a->count = BPEL_DEFAULT_COUNT;
            if (map_note_missing(w, a, "count", a->count) < 0)
                return NULL;
        }
        if (par && (a->count < 1 || a->count > BPEL_MAX_WORKERS || a->count != floor(a->count))) {
            map_fail_at(w, n, "parallel <forEach> needs a whole number of branches in 1..%d "
                        "(got %g)", BPEL_MAX_WORKERS, a->count);
            return NULL;
        }
        bpel_act *b = map_walk_body(w, n, a->path, a->line, depth);
        if (!b || map_add_child(w, a, b) < 0)
            return NULL;
        return a;
    }
    int inst = strcmp(name, "pick") == 0 ? map_yes(w, n, "createInstance") : 0;
    if (inst < 0)
        return NULL;
    if (inst) {
        /* An instantiating pick is the workload source followed by the
         * choice of its messages. */
        if (!(a = map_new_act(w, n, parent_path, BPEL_SEQ)))
            return NULL;
        bpel_act *src = map_walk_task(w, n, parent_path, ACT_TASK);
        bpel_act *ch = src ? map_walk_choice(w, n, parent_path, depth) : NULL;
        if (!ch || map_add_child(w, a, src) < 0 || map_add_child(w, a, ch) < 0)
            return NULL;
        return a;
    }
    return map_walk_choice(w, n, parent_path, depth);   /* if, switch, pick */
}

int bpel_import_memory(const char *buf, size_t len, const char *file, const bpel_params *params,
                       bpel_import *out, diag *err)
{
    memset(out, 0, sizeof *out);
    if (!file)
        file = "<input>";
    int nswarn = 0;
    xmlDocPtr doc = bpel_xml_parse(buf, len, file, &nswarn, err);
    if (!doc)
        return -1;
    arena *mem = malloc(sizeof *mem);
    if (!mem) {
        xmlFreeDoc(doc);
        return diag_set(err, "out of memory");
    }
    arena_init(mem);
    walker w = { .mem = mem, .file = file, .params = params, .err = err };
    strmap_init(&w.ordered);
    w.pmark = calloc((size_t)bpel_params_count(params) + 1, 1);
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!w.pmark) {
        diag_set(err, "out of memory");
        goto fail;
    }
    bpel_act *top = NULL;
    if (!bpel_is_elem(root, "process")) {
        map_fail_at(&w, root, "the root element is <%s>%s%s%s, not a BPEL <process> (namespaces: "
                    "WS-BPEL 2.0 executable/abstract, BPEL4WS 1.1, 2004/03 draft)",
                    (const char *)root->name, root->ns && root->ns->href ? " in namespace '" : "",
                    root->ns && root->ns->href ? (const char *)root->ns->href : "",
                    root->ns && root->ns->href ? "'" : " with no namespace");
        goto fail;
    }
    top = map_walk_body(&w, root, "/process", map_line_of(root), 1);
    if (!top)
        goto fail;
    if (top->kind == BPEL_NOP) {
        map_fail_at(&w, root, "<process> has no activity");
        goto fail;
    }
    for (const xmlNode *c = root->children; c; c = c->next)
        if (bpel_is_elem(c, "eventHandlers")) {
            /* The process's own handlers run beside its activity. */
            bpel_act *p = arena_alloc(mem, sizeof *p);
            if (!p) {
                diag_set(err, "out of memory");
                goto fail;
            }
            p->kind = BPEL_SEQ;
            p->elem = "process";
            p->path = "/process";
            p->line = map_line_of(root);
            p->prob = p->count = 1;
            if (map_add_child(&w, p, top) < 0 || walk_handlers(&w, root, p, 1) < 0)
                goto fail;
            top = p;
            break;
        }
    for (size_t i = 0; i < sizeof bpel_namespaces / sizeof bpel_namespaces[0]; i++)
        if (strcmp((const char *)root->ns->href, bpel_namespaces[i]) == 0)
            out->ns = bpel_namespaces[i];
    out->tree = bpel_translate(top, file, err);
    if (!out->tree)
        goto fail;
    if (bpel_warn_links(&w.warn, err, mem, root, &w.ordered, file) < 0 ||
        bpel_warn_params(&w.warn, err, params, w.pmark) < 0)
        goto fail;
    if (nswarn && bpel_warn_add(&w.warn, err, "%s: warning: libxml2 reported a namespace URI "
                                "problem (ignored)", file) < 0)
        goto fail;
    out->nmissing = w.warn.nmissing;
    if (bpel_warn_finish(&w.warn, file, &out->warning, err) < 0)
        goto fail;
    out->root = top;
    out->priv = mem;
    strmap_free(&w.ordered);
    free(w.pmark);
    xmlFreeDoc(doc);
    return 0;
fail:
    skel_tree_free(out->tree);
    free(out->warning);
    memset(out, 0, sizeof *out);
    bpel_warn_free(&w.warn);
    strmap_free(&w.ordered);
    free(w.pmark);
    arena_free(mem);
    free(mem);
    xmlFreeDoc(doc);
    return -1;
}

int bpel_import_file(const char *path, const bpel_params *params, bpel_import *out, diag *err)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    if (bpel_read_file(path, 0, &buf, &len, err) < 0)
        return -1;
    int r = bpel_import_memory(buf, len, path, params, out, err);
    free(buf);
    return r;
}

skel_tree *bpel_load_skeleton(const char *path, const bpel_params *params, char **warning,
                              diag *err)
{
    bpel_import imp;
    *warning = NULL;
    if (bpel_import_file(path, params, &imp, err) < 0)
        return NULL;
    skel_tree *t = imp.tree;
    *warning = imp.warning;
    imp.tree = NULL;      /* handed over */
    imp.warning = NULL;
    bpel_import_clear(&imp);
    return t;
}

void bpel_import_clear(bpel_import *r)
{
    if (!r)
        return;
    free(r->warning);
    if (r->priv) {
        arena_free(r->priv);
        free(r->priv);
    }
    skel_tree_free(r->tree);
    memset(r, 0, sizeof *r);
}

int bpel_is_bpel_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n >= 5 && strcmp(path + n - 5, ".bpel") == 0;
}

static const char *kind_name(bpel_kind k)
{
    switch (k) {
    case BPEL_TASK: return "task";
    case BPEL_SEQ: return "seq";
    case BPEL_PAR: return "par";
    case BPEL_CHOICE: return "choice";
    case BPEL_LOOP: return "loop";
    case BPEL_DEAL: return "deal";
    case BPEL_NOP: return "nop";
    }
    return "?";
}

static void print_act(const bpel_act *a, int depth, double prob, const char *what, FILE *f)
{
    for (int i = 0; i < depth; i++)
        fputs("  ", f);
    fprintf(f, "%s %s", kind_name(a->kind), a->elem);
    if (a->name)
        fprintf(f, " \"%s\"", a->name);
    fprintf(f, " %s", a->path);
    if (a->line)
        fprintf(f, " line=%d", a->line);
    if (prob >= 0)
        fprintf(f, " %s=%.6g", what, prob);
    if (a->kind == BPEL_TASK)
        fprintf(f, " rate=%.6g", a->rate);
    if (a->kind == BPEL_LOOP)
        fprintf(f, " iterations=%.6g", a->count);
    if (a->kind == BPEL_DEAL)
        fprintf(f, " workers=%.6g", a->count);
    fputc('\n', f);
    if (depth > BPEL_MAX_DEPTH + 8)
        return;
    for (int i = 0; i < a->nchildren; i++)
        print_act(a->children[i], depth + 1,
                  a->kind == BPEL_CHOICE || (a->kind == BPEL_PAR && a->children[i]->prob != 1)
                      ? a->children[i]->prob : -1,
                  a->kind == BPEL_CHOICE ? "prob" : "runs", f);
}

void bpel_import_print_tree(const bpel_import *r, FILE *f)
{
    if (r && r->root)
        print_act(r->root, 0, -1, "prob", f);
}
