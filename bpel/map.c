/* The BPEL walker: a process document becomes an activity tree
 * (internal.h's bpel_act) with every performance parameter resolved, from
 * the side file, from urn:skelsched:perf attributes, or from a default that
 * is reported in one warning. Elements are matched by namespace URI and
 * local name, never by prefix. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "internal.h"
#include "../base/mem.h"

#define PERF_NS "urn:skelsched:perf"

static const char *const bpel_namespaces[] = {
    "http://docs.oasis-open.org/wsbpel/2.0/process/executable",
    "http://docs.oasis-open.org/wsbpel/2.0/process/abstract",
    "http://schemas.xmlsoap.org/ws/2003/03/business-process/",
    "http://schemas.xmlsoap.org/ws/2004/03/business-process/",
};

/* What an activity of BPEL 1.1 and 2.0 becomes. */
typedef enum act_kind {
    ACT_STRUCTURED,    /* holds activities: a pipe, farm, choice, ... */
    ACT_TASK,          /* a task with a rate */
    ACT_NO_COST        /* a task taking no time unless given a rate */
} act_kind;

typedef struct act_info {
    const char *name;
    act_kind what;
} act_info;

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

typedef struct walker {
    arena *mem;
    const char *file;
    const bpel_params *params;
    diag *err;
    int nacts;
    bpel_warn warn;          /* warnings so far (warn.c) */
    unsigned char *pmark;    /* per side-file entry: BPEL_PARAM_NAMED | _READ */
    strmap ordered;          /* names of the links a flow orders */
} walker;

static int is_bpel_ns(const xmlNs *ns)
{
    if (!ns || !ns->href)
        return 0;
    for (size_t i = 0; i < sizeof bpel_namespaces / sizeof bpel_namespaces[0]; i++)
        if (strcmp((const char *)ns->href, bpel_namespaces[i]) == 0)
            return 1;
    return 0;
}

static int is_bpel(const xmlNode *n, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && is_bpel_ns(n->ns) &&
           (!local || strcmp((const char *)n->name, local) == 0);
}

int bpel_is_elem(const xmlNode *n, const char *local)
{
    return is_bpel(n, local);
}

/* The 2004/03 draft (Apache ODE) wraps the activity of an <if> and of an
 * <elseif> in <then>; WS-BPEL 2.0 does not. */
#define DRAFT_NS "http://schemas.xmlsoap.org/ws/2004/03/business-process/"

static const xmlNode *draft_then(const xmlNode *n)
{
    if (!n->ns || !n->ns->href || strcmp((const char *)n->ns->href, DRAFT_NS) != 0)
        return NULL;
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is_bpel(c, "then"))
            return c;
    return NULL;
}

static const act_info *activity(const xmlNode *n)
{
    if (!is_bpel(n, NULL))
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

static int line_of(const xmlNode *n)
{
    long l = xmlGetLineNo(n);
    return l > 0 && l < 1000000000 ? (int)l : 0;
}

static int fail_at(walker *w, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(walker *w, const xmlNode *n, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_at(w->err, w->file, n ? line_of(n) : 0, 0, "%s", msg);
}

/* "/process/sequence[1]/invoke[2]": the index counts earlier siblings of
 * the same BPEL element name, so it survives edits elsewhere in the file. */
static const char *make_path(walker *w, const char *parent, const xmlNode *n)
{
    int k = 1;
    for (const xmlNode *s = n->prev; s; s = s->prev)
        if (is_bpel(s, (const char *)n->name))
            k++;
    size_t len = strlen(parent) + strlen((const char *)n->name) + 16;
    char *p = arena_alloc(w->mem, len);
    if (!p)
        return NULL;
    snprintf(p, len, "%s/%s[%d]", parent, (const char *)n->name, k);
    return p;
}

static int note_missing(walker *w, const bpel_act *a, const char *key, double def)
{
    return bpel_warn_missing(&w->warn, w->err, a->path, a->name, key, def);
}

/* A yes/no attribute already checked: 1 for yes. */
static int is_yes(const xmlNode *n, const char *attr)
{
    xmlChar *s = xmlGetNoNsProp(n, (const xmlChar *)attr);
    int y = s && strcmp((const char *)s, "yes") == 0;
    xmlFree(s);
    return y;
}

/* A yes/no attribute: 1 for yes. Anything but yes or no (parallel="true")
 * is invalid BPEL, read as no, and said so. */
static int yes(walker *w, const xmlNode *n, const char *attr)
{
    xmlChar *s = xmlGetNoNsProp(n, (const xmlChar *)attr);
    int y = s && strcmp((const char *)s, "yes") == 0;
    int r = 0;
    if (s && !y && strcmp((const char *)s, "no") != 0)
        r = bpel_warn_add(&w->warn, w->err, "%s:%d: warning: <%s %s=\"%.40s\">: the value must "
                          "be yes or no; read as no", w->file, line_of(n), (const char *)n->name,
                          attr, (const char *)s);
    xmlFree(s);
    return r < 0 ? -1 : y;
}

/* A parameter: side file (path, then name) first, then the perf:KEY
 * attribute. Returns 1 with *v, 0 when absent, -1 on a bad value. */
static int param(walker *w, const xmlNode *n, const bpel_act *a, const char *key, double *v)
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
        fail_at(w, n, "<%s> perf:%s=\"%.64s\" is not a non-negative number",
                (const char *)n->name, key, (const char *)s);
        xmlFree(s);
        return -1;
    }
    xmlFree(s);
    *v = d;
    return 1;
}

static bpel_act *new_act(walker *w, const xmlNode *n, const char *parent_path, bpel_kind kind)
{
    bpel_act *a = arena_alloc(w->mem, sizeof *a);
    if (!a) {
        diag_set(w->err, "out of memory");
        return NULL;
    }
    a->kind = kind;
    a->elem = arena_strdup(w->mem, (const char *)n->name);
    a->line = line_of(n);
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

static int add_child(walker *w, bpel_act *p, bpel_act *c)
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
        if (!activity(c)) {
            if (!is_other(c))
                return fail_at(w, c, "unknown BPEL element <%s> in <%s>%s", (const char *)c->name,
                               (const char *)n->name, strcmp((const char *)c->name, "then") == 0
                               ? " (<then> is the 2004/03 draft's; WS-BPEL 2.0 has the activity "
                                 "directly in <if> and <elseif>)" : "");
            continue;
        }
        bpel_act *k = walk(w, c, a->path, depth + 1);
        if (!k || add_child(w, a, k) < 0)
            return -1;
    }
    return 0;
}

/* The body of a container (scope, while, a branch): its one activity, a
 * sequence of them if several, or nothing. */
static bpel_act *walk_body(walker *w, const xmlNode *n, const char *path, int line, int depth)
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
        if (is_bpel(c, local)) {
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

/* if / switch / pick: each branch gets perf:prob (or the side file's). All
 * given: normalised (so pick can use arrival rates as weights). Some
 * missing: they share what the given ones leave. */
static int resolve_probs(walker *w, const xmlNode *n, bpel_act *a, const double *given,
                         const int *has, const bpel_act *const *reported)
{
    double sum = 0;
    int nmiss = 0;
    for (int i = 0; i < a->nchildren; i++) {
        if (has[i])
            sum += given[i];
        else
            nmiss++;
    }
    if (nmiss == 0) {
        if (!(sum > 0))
            return fail_at(w, n, "<%s>: the branch probabilities sum to 0", (const char *)n->name);
        for (int i = 0; i < a->nchildren; i++)
            a->children[i]->prob = given[i] / sum;
        return 0;
    }
    if (sum > 1 + 1e-9)
        return fail_at(w, n, "<%s>: the branch probabilities sum to %g > 1 with %d branch%s "
                       "unspecified", (const char *)n->name, sum, nmiss, nmiss == 1 ? "" : "es");
    double share = (sum >= 1 ? 0 : 1 - sum) / nmiss;
    for (int i = 0; i < a->nchildren; i++)
        if (!has[i]) {
            a->children[i]->prob = share;
            /* One unspecified branch is determined (1 - the rest): only a
             * split between several is a default. */
            if (nmiss > 1 && reported[i] && note_missing(w, reported[i], "prob", share) < 0)
                return -1;
        } else {
            a->children[i]->prob = given[i];
        }
    return 0;
}

static int task_rate(walker *w, const xmlNode *n, bpel_act *a, const char *key, double def,
                     int timed, int optional);

/* The task of a pick branch's message (onMessage: a receive) or alarm
 * (onAlarm: a wait), first in its branch holder. */
static int pick_trigger(walker *w, const xmlNode *c, const bpel_act *pick, bpel_act *holder)
{
    if (!is_bpel(c, "onMessage") && !is_bpel(c, "onAlarm"))
        return 0;
    bpel_act *t = new_act(w, c, pick->path, BPEL_TASK);
    if (!t || task_rate(w, c, t, "rate", BPEL_DEFAULT_RATE, is_bpel(c, "onAlarm"), 0) < 0)
        return -1;
    return add_child(w, holder, t);
}

/* Branches of if (then, elseif*, else), switch (case*, otherwise) and pick
 * (onMessage*, onAlarm*). */
static bpel_act *walk_choice(walker *w, const xmlNode *n, const char *parent_path, int depth)
{
    bpel_act *a = new_act(w, n, parent_path, BPEL_CHOICE);
    if (!a)
        return NULL;
    const char *name = (const char *)n->name;
    int is_if = strcmp(name, "if") == 0, is_switch = strcmp(name, "switch") == 0;
    /* A pick's message or alarm is a step of the instance, as the same
     * message in a receive or the same duration in a wait; an instantiating
     * pick's message is its first task (walk()). */
    int trigger = strcmp(name, "pick") == 0 && !is_yes(n, "createInstance");
    int nb = is_if ? 1 : 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is_bpel(c, "elseif") || is_bpel(c, "else") || is_bpel(c, "case") ||
            is_bpel(c, "otherwise") || is_bpel(c, "onMessage") || is_bpel(c, "onAlarm") ||
            is_bpel(c, "onEvent"))
            nb++;
    nb++;   /* room for an implicit else/otherwise */
    double *given = arena_alloc(w->mem, (size_t)nb * sizeof *given);
    int *has = arena_alloc(w->mem, (size_t)nb * sizeof *has);
    const bpel_act **rep = arena_alloc(w->mem, (size_t)nb * sizeof *rep);
    if (!given || !has || !rep) {
        diag_set(w->err, "out of memory");
        return NULL;
    }
    int r;
    if (is_if) {
        /* The then-branch is the if's own activity; its probability is
         * perf:prob on <if>. */
        const xmlNode *tn = draft_then(n);
        bpel_act *then = walk_body(w, tn ? tn : n, a->path, a->line, depth);
        if (!then || add_child(w, a, then) < 0)
            return NULL;
        if ((r = param(w, n, a, "prob", &given[0])) < 0)
            return NULL;
        has[0] = r;
        rep[0] = a;
    }
    int has_default = 0;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!(is_bpel(c, "elseif") || is_bpel(c, "else") || is_bpel(c, "case") ||
              is_bpel(c, "otherwise") || is_bpel(c, "onMessage") || is_bpel(c, "onAlarm") ||
              is_bpel(c, "onEvent")))
            continue;
        if (depth + 1 > BPEL_MAX_DEPTH) {
            fail_at(w, c, "activities nested deeper than %d levels", BPEL_MAX_DEPTH);
            return NULL;
        }
        if (is_bpel(c, "else") || is_bpel(c, "otherwise"))
            has_default = 1;
        bpel_act *holder = new_act(w, c, a->path, BPEL_SEQ);
        if (!holder || (trigger && pick_trigger(w, c, a, holder) < 0))
            return NULL;
        const xmlNode *tn = draft_then(c);
        bpel_act *body = walk_body(w, tn ? tn : c, holder->path, holder->line, depth + 1);
        if (!body)
            return NULL;
        /* The branch keeps the branch element's path and name, so that
         * side files and messages name <elseif>/<case>/<onMessage>. */
        holder->kind = BPEL_SEQ;
        if (body->kind != BPEL_NOP && add_child(w, holder, body) < 0)
            return NULL;
        if (!holder->nchildren)
            holder->kind = BPEL_NOP;
        int i = a->nchildren;
        if ((r = param(w, c, holder, "prob", &given[i])) < 0)
            return NULL;
        has[i] = r;
        rep[i] = holder;
        if (add_child(w, a, holder) < 0)
            return NULL;
    }
    if ((is_if || is_switch) && !has_default) {
        /* A missing else/otherwise is an empty branch taking what is left. */
        bpel_act *e = arena_alloc(w->mem, sizeof *e);
        if (!e) {
            diag_set(w->err, "out of memory");
            return NULL;
        }
        e->kind = BPEL_NOP;
        e->elem = is_if ? "(no else)" : "(no otherwise)";
        e->path = a->path;
        e->line = a->line;
        e->count = 1;
        int i = a->nchildren;
        if (add_child(w, a, e) < 0)
            return NULL;
        has[i] = 0;
        rep[i] = NULL;
    }
    if (a->nchildren == 0) {
        fail_at(w, n, "<%s> has no branches", name);
        return NULL;
    }
    if (resolve_probs(w, n, a, given, has, rep) < 0)
        return NULL;
    return a;
}

/* One end of a link on a direct child of a flow. */
typedef struct link_end {
    int act;               /* index of the flow's child */
    const xmlChar *name;   /* linkName (owned by the document) */
    double prob;           /* sources: P(transitionCondition true) */
} link_end;

/* Collect the <source>/<target> elements of activity n (2.0 wraps them in
 * <sources>/<targets>, 1.1 does not). */
static int collect_ends(walker *w, const xmlNode *n, int idx, link_end **v, int *cnt, int *cap, const char *what)
{
    const char *wrap = strcmp(what, "source") == 0 ? "sources" : "targets";
    for (const xmlNode *c = n->children; c; c = c->next) {
        const xmlNode *first = c, *inner = NULL;
        if (is_bpel(c, wrap))
            first = c->children, inner = c;
        for (const xmlNode *e = first; e; e = inner ? e->next : NULL) {
            if (is_bpel(e, what)) {
                xmlChar *ln = xmlGetNoNsProp(e, (const xmlChar *)"linkName");
                if (!ln)
                    return fail_at(w, e, "<%s> without linkName", what);
                if (*cnt == *cap) {
                    int nc = *cap ? *cap * 2 : 8;
                    if (mem_grow((void **)v, (size_t)nc, sizeof **v) < 0) {
                        xmlFree(ln);
                        return diag_set(w->err, "out of memory");
                    }
                    *cap = nc;
                }
                link_end *le = &(*v)[(*cnt)++];
                le->act = idx;
                le->prob = 1.0;
                char *nm = arena_strdup(w->mem, (const char *)ln);
                xmlFree(ln);
                if (!nm)
                    return diag_set(w->err, "out of memory");
                le->name = (const xmlChar *)nm;
                if (strcmp(what, "source") == 0) {
                    /* Side file keyed by link name, else perf:prob. */
                    bpel_act tmp = { .path = nm, .line = line_of(e) };
                    int r = param(w, e, &tmp, "prob", &le->prob);
                    if (r < 0)
                        return -1;
                    if (r == 0) {
                        int cond = 0;
                        for (const xmlNode *k = e->children; k; k = k->next)
                            cond |= is_bpel(k, "transitionCondition");
                        xmlChar *tc = xmlGetNoNsProp(e, (const xmlChar *)"transitionCondition");
                        cond |= tc != NULL;
                        xmlFree(tc);
                        char path[300];
                        snprintf(path, sizeof path, "link %.200s", nm);
                        tmp.path = path;
                        if (cond && note_missing(w, &tmp, "prob", 1.0) < 0)
                            return -1;
                    } else if (le->prob > 1) {
                        return fail_at(w, e, "link '%s': perf:prob must be at most 1", nm);
                    }
                }
            }
            if (!inner)
                break;
        }
    }
    return 0;
}

/* Links among the direct children of a flow: order the children
 * topologically (the pipeline follows the links) and give each the
 * probability that it runs: 1 without incoming links, else (default OR
 * join) min(1, sum of P(source runs) * p over incoming links). That is
 * exact when the incoming links are mutually exclusive (transition
 * conditions used as an if, as in the loan example) or certain, and an
 * upper bound (more load: pessimistic) otherwise. */
static int flow_links(walker *w, const xmlNode *flow, bpel_act *a)
{
    int n = a->nchildren;
    if (n < 2)
        return 0;
    int rc = -1, ns = 0, nt = 0, caps = 0, capt = 0;
    link_end *src = NULL, *tgt = NULL;
    int *indeg = calloc((size_t)n, sizeof *indeg), *order = malloc((size_t)n * sizeof *order),
        *done = calloc((size_t)n, sizeof *done);
    bpel_act **sorted = malloc((size_t)n * sizeof *sorted);
    if (!indeg || !order || !done || !sorted) {
        diag_set(w->err, "out of memory");
        goto out;
    }
    int idx = 0;
    for (const xmlNode *c = flow->children; c && idx < n; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || !activity(c))
            continue;
        if (collect_ends(w, c, idx, &src, &ns, &caps, "source") < 0 ||
            collect_ends(w, c, idx, &tgt, &nt, &capt, "target") < 0)
            goto out;
        idx++;
    }
    if (ns == 0 && nt == 0) {
        rc = 0;
        goto out;
    }
    a->linked = 1;
    /* Each target's source, by link name; links leaving the flow's direct
     * children are ignored. */
    int *from = malloc((size_t)(nt ? nt : 1) * sizeof *from);
    if (!from) {
        diag_set(w->err, "out of memory");
        goto out;
    }
    for (int t = 0; t < nt; t++) {
        from[t] = -1;
        for (int k = 0; k < ns; k++)
            if (strcmp((const char *)src[k].name, (const char *)tgt[t].name) == 0) {
                from[t] = k;
                break;
            }
        if (from[t] >= 0 && src[from[t]].act != tgt[t].act) {
            indeg[tgt[t].act]++;
            if (strmap_put(&w->ordered, (const char *)tgt[t].name, 1) < 0) {
                free(from);
                diag_set(w->err, "out of memory");
                goto out;
            }
        }
    }
    for (int step = 0; step < n; step++) {
        int pick = -1;
        for (int i = 0; i < n && pick < 0; i++)
            if (!done[i] && indeg[i] == 0)
                pick = i;
        if (pick < 0) {
            free(from);
            fail_at(w, flow, "the links of this <flow> form a cycle");
            goto out;
        }
        done[pick] = 1;
        order[step] = pick;
        for (int t = 0; t < nt; t++)
            if (from[t] >= 0 && src[from[t]].act == pick && tgt[t].act != pick)
                indeg[tgt[t].act]--;
    }
    /* Run probabilities in topological order. */
    for (int step = 0; step < n; step++) {
        int j = order[step];
        double sum = 0.0;
        int incoming = 0;
        for (int t = 0; t < nt; t++)
            if (tgt[t].act == j && from[t] >= 0 && src[from[t]].act != j) {
                const link_end *s = &src[from[t]];
                sum += a->children[s->act]->prob * s->prob;
                incoming = 1;
            }
        a->children[j]->prob = !incoming ? 1.0 : sum < 1 ? sum : 1.0;
    }
    /* Who waits for whom (transitive), in the sorted order, for the
     * series-parallel decomposition (translate.c). */
    int *rank = malloc((size_t)n * sizeof *rank);
    a->reach = arena_alloc(w->mem, (size_t)n * (size_t)n);
    if (!rank || !a->reach) {
        free(rank);
        free(from);
        diag_set(w->err, "out of memory");
        goto out;
    }
    for (int step = 0; step < n; step++)
        rank[order[step]] = step;
    for (int t = 0; t < nt; t++)
        if (from[t] >= 0 && src[from[t]].act != tgt[t].act) {
            a->reach[rank[src[from[t]].act] * n + rank[tgt[t].act]] = 1;
            a->conditional |= src[from[t]].prob < 1;
        }
    for (int k = 0; k < n; k++)   /* links go forward in this order */
        for (int i = 0; i < k; i++)
            if (a->reach[i * n + k])
                for (int j = k + 1; j < n; j++)
                    a->reach[i * n + j] |= a->reach[k * n + j];
    free(rank);
    free(from);
    for (int step = 0; step < n; step++)
        sorted[step] = a->children[order[step]];
    memcpy(a->children, sorted, (size_t)n * sizeof *sorted);
    rc = 0;
out:
    free(sorted);
    free(done);
    free(order);
    free(indeg);
    free(tgt);
    free(src);
    return rc;
}

/* Seconds of a literal XML Schema duration ("'P0Y0M0DT0H0M2.5S'", quotes
 * of the XPath string literal allowed); years are 365 days and months 30.
 * Returns 0 when s is not one (an expression, a variable). */
static double literal_duration(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\'' || *s == '"')
        s++;
    if (*s++ != 'P')
        return 0;
    double total = 0;
    int in_time = 0, any = 0;
    while (*s && *s != '\'' && *s != '"' && *s != ' ' && *s != '\n') {
        if (*s == 'T' && !in_time) {
            in_time = 1;
            s++;
            continue;
        }
        char *e;
        double v = strtod(s, &e);
        if (e == s || !isfinite(v) || v < 0)
            return 0;
        double unit;
        switch (*e) {
        case 'Y': unit = in_time ? -1 : 365 * 86400.0; break;
        case 'M': unit = in_time ? 60 : 30 * 86400.0; break;
        case 'D': unit = in_time ? -1 : 86400; break;
        case 'H': unit = in_time ? 3600 : -1; break;
        case 'S': unit = in_time ? 1 : -1; break;
        default: unit = -1;
        }
        if (unit < 0)
            return 0;
        total += v * unit;
        any = 1;
        s = e + 1;
    }
    return any && isfinite(total) ? total : 0;
}

/* The duration of a <wait> (1.1 attribute, 2.0 child element <for>). */
static double wait_seconds(const xmlNode *n)
{
    double secs = 0;
    xmlChar *a = xmlGetNoNsProp(n, (const xmlChar *)"for");
    if (a) {
        secs = literal_duration((const char *)a);
        xmlFree(a);
        return secs;
    }
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is_bpel(c, "for")) {
            xmlChar *t = xmlNodeGetContent(c);
            if (t) {
                secs = literal_duration((const char *)t);
                xmlFree(t);
            }
            break;
        }
    return secs;
}

/* The rate of task a (element n): key from the parameters; for a timed
 * element (wait, a pick's onAlarm) a literal duration d gives 1/d, an
 * exponential delay of mean d (the deterministic wait approximated by its
 * mean); else the default, reported. A no-cost activity (optional) given
 * no rate stays a nop. */
static int task_rate(walker *w, const xmlNode *n, bpel_act *a, const char *key, double def,
                     int timed, int optional)
{
    int r = param(w, n, a, key, &a->rate);
    if (r < 0)
        return -1;
    double secs = r == 0 && timed ? wait_seconds(n) : 0;
    if (secs > 0) {
        a->rate = 1 / secs;
        r = 1;
    }
    if (r == 0 && optional) {
        a->kind = BPEL_NOP;   /* engine work we do not model */
        return 0;
    }
    if (r == 0) {
        a->rate = def;
        if (note_missing(w, a, key, def) < 0)
            return -1;
    }
    if (!(a->rate > 0))
        return fail_at(w, n, "<%s> %s must be positive", (const char *)n->name, key);
    return 0;
}

static bpel_act *walk_task(walker *w, const xmlNode *n, const char *parent_path, act_kind what)
{
    bpel_act *a = new_act(w, n, parent_path, BPEL_TASK);
    if (!a)
        return NULL;
    const char *name = (const char *)n->name;
    /* walk() has checked a pick's createInstance already */
    int inst = strcmp(name, "receive") == 0 ? yes(w, n, "createInstance")
             : strcmp(name, "pick") == 0 ? is_yes(n, "createInstance") : 0;
    if (inst < 0 || task_rate(w, n, a, inst ? "arrival" : "rate",
                              inst ? BPEL_DEFAULT_ARRIVAL : BPEL_DEFAULT_RATE,
                              strcmp(name, "wait") == 0, what == ACT_NO_COST) < 0)
        return NULL;
    return a;
}

/* Event handlers of a scope or the process (onEvent, 1.1 onMessage,
 * onAlarm): each handler runs perf:iterations times per instance on
 * average (default 0: not modelled), as loops appended to a. */
static int walk_handlers(walker *w, const xmlNode *n, bpel_act *a, int depth)
{
    for (const xmlNode *eh = n->children; eh; eh = eh->next) {
        if (!is_bpel(eh, "eventHandlers"))
            continue;
        const char *ehpath = make_path(w, a->path, eh);
        if (!ehpath)
            return diag_set(w->err, "out of memory");
        for (const xmlNode *c = eh->children; c; c = c->next) {
            if (!(is_bpel(c, "onEvent") || is_bpel(c, "onMessage") || is_bpel(c, "onAlarm")))
                continue;
            if (depth + 1 > BPEL_MAX_DEPTH)
                return fail_at(w, c, "activities nested deeper than %d levels", BPEL_MAX_DEPTH);
            bpel_act *h = new_act(w, c, ehpath, BPEL_LOOP);
            if (!h)
                return -1;
            int r = param(w, c, h, "iterations", &h->count);
            if (r < 0)
                return -1;
            if (r == 0) {
                h->count = 0;
                if (note_missing(w, h, "iterations", 0) < 0)
                    return -1;
            }
            bpel_act *body = walk_body(w, c, h->path, h->line, depth + 1);
            if (!body || add_child(w, h, body) < 0 || add_child(w, a, h) < 0)
                return -1;
        }
    }
    return 0;
}

static bpel_act *walk(walker *w, const xmlNode *n, const char *parent_path, int depth)
{
    if (depth > BPEL_MAX_DEPTH) {
        fail_at(w, n, "activities nested deeper than %d levels", BPEL_MAX_DEPTH);
        return NULL;
    }
    if (++w->nacts > BPEL_MAX_ACTIVITIES) {
        fail_at(w, n, "more than %d activities", BPEL_MAX_ACTIVITIES);
        return NULL;
    }
    const act_info *info = activity(n);
    const char *name = (const char *)n->name;
    if (info->what != ACT_STRUCTURED)
        return walk_task(w, n, parent_path, info->what);
    bpel_act *a;
    int r;
    if (strcmp(name, "sequence") == 0 || strcmp(name, "flow") == 0) {
        if (!(a = new_act(w, n, parent_path, name[0] == 's' ? BPEL_SEQ : BPEL_PAR)))
            return NULL;
        if (walk_children(w, n, a, depth) < 0)
            return NULL;
        if (a->kind == BPEL_PAR && flow_links(w, n, a) < 0)
            return NULL;
        return a;
    }
    if (strcmp(name, "scope") == 0) {
        if (!(a = new_act(w, n, parent_path, BPEL_SEQ)))
            return NULL;
        bpel_act *b = walk_body(w, n, a->path, a->line, depth);
        if (!b || (b->kind != BPEL_NOP && add_child(w, a, b) < 0))
            return NULL;
        if (walk_handlers(w, n, a, depth) < 0)
            return NULL;
        return a;
    }
    if (strcmp(name, "while") == 0 || strcmp(name, "repeatUntil") == 0) {
        if (!(a = new_act(w, n, parent_path, BPEL_LOOP)))
            return NULL;
        if ((r = param(w, n, a, "iterations", &a->count)) < 0)
            return NULL;
        if (r == 0) {
            a->count = BPEL_DEFAULT_ITERATIONS;
            if (note_missing(w, a, "iterations", a->count) < 0)
                return NULL;
        }
        bpel_act *b = walk_body(w, n, a->path, a->line, depth);
        if (!b || add_child(w, a, b) < 0)
            return NULL;
        return a;
    }
    if (strcmp(name, "forEach") == 0) {
        int par = yes(w, n, "parallel");
        if (par < 0 || !(a = new_act(w, n, parent_path, par ? BPEL_DEAL : BPEL_LOOP)))
            return NULL;
        if ((r = param(w, n, a, "count", &a->count)) < 0)
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
            if (note_missing(w, a, "count", a->count) < 0)
                return NULL;
        }
        if (par && (a->count < 1 || a->count > BPEL_MAX_WORKERS || a->count != floor(a->count))) {
            fail_at(w, n, "parallel <forEach> needs a whole number of branches in 1..%d (got %g)",
                    BPEL_MAX_WORKERS, a->count);
            return NULL;
        }
        bpel_act *b = walk_body(w, n, a->path, a->line, depth);
        if (!b || add_child(w, a, b) < 0)
            return NULL;
        return a;
    }
    int inst = strcmp(name, "pick") == 0 ? yes(w, n, "createInstance") : 0;
    if (inst < 0)
        return NULL;
    if (inst) {
        /* An instantiating pick is the workload source followed by the
         * choice of its messages. */
        if (!(a = new_act(w, n, parent_path, BPEL_SEQ)))
            return NULL;
        bpel_act *src = walk_task(w, n, parent_path, 1);
        bpel_act *ch = src ? walk_choice(w, n, parent_path, depth) : NULL;
        if (!ch || add_child(w, a, src) < 0 || add_child(w, a, ch) < 0)
            return NULL;
        return a;
    }
    return walk_choice(w, n, parent_path, depth);   /* if, switch, pick */
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
    if (!is_bpel(root, "process")) {
        fail_at(&w, root, "the root element is <%s>%s%s%s, not a BPEL <process> (namespaces: "
                "WS-BPEL 2.0 executable/abstract, BPEL4WS 1.1, 2004/03 draft)",
                (const char *)root->name, root->ns && root->ns->href ? " in namespace '" : "",
                root->ns && root->ns->href ? (const char *)root->ns->href : "",
                root->ns && root->ns->href ? "'" : " with no namespace");
        goto fail;
    }
    top = walk_body(&w, root, "/process", line_of(root), 1);
    if (!top)
        goto fail;
    if (top->kind == BPEL_NOP) {
        fail_at(&w, root, "<process> has no activity");
        goto fail;
    }
    for (const xmlNode *c = root->children; c; c = c->next)
        if (is_bpel(c, "eventHandlers")) {
            /* The process's own handlers run beside its activity. */
            bpel_act *p = arena_alloc(mem, sizeof *p);
            if (!p) {
                diag_set(err, "out of memory");
                goto fail;
            }
            p->kind = BPEL_SEQ;
            p->elem = "process";
            p->path = "/process";
            p->line = line_of(root);
            p->prob = p->count = 1;
            if (add_child(&w, p, top) < 0 || walk_handlers(&w, root, p, 1) < 0)
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
