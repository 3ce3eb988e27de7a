/* bpel/map_links.c: the links of a <flow> (the walker: map.c, its
 * state: map_int.h): the <source>/<target> ends on the flow's children,
 * their order (topological), the probability that each child runs, and who
 * waits for whom, for translate.c's series-parallel decomposition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "map_int.h"
#include "../base/mem.h"

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
        if (bpel_is_elem(c, wrap))
            first = c->children, inner = c;
        for (const xmlNode *e = first; e; e = inner ? e->next : NULL) {
            if (bpel_is_elem(e, what)) {
                xmlChar *ln = xmlGetNoNsProp(e, (const xmlChar *)"linkName");
                if (!ln)
                    return map_fail_at(w, e, "<%s> without linkName", what);
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
                    bpel_act tmp = { .path = nm, .line = map_line_of(e) };
                    int r = map_param(w, e, &tmp, "prob", &le->prob);
                    if (r < 0)
                        return -1;
                    if (r == 0) {
                        int cond = 0;
                        for (const xmlNode *k = e->children; k; k = k->next)
                            cond |= bpel_is_elem(k, "transitionCondition");
                        xmlChar *tc = xmlGetNoNsProp(e, (const xmlChar *)"transitionCondition");
                        cond |= tc != NULL;
                        xmlFree(tc);
                        char path[300];
                        snprintf(path, sizeof path, "link %.200s", nm);
                        tmp.path = path;
                        if (cond && map_note_missing(w, &tmp, "prob", 1.0) < 0)
                            return -1;
                    } else if (le->prob > 1) {
                        return map_fail_at(w, e, "link '%s': perf:prob must be at most 1", nm);
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
int map_flow_links(walker *w, const xmlNode *flow, bpel_act *a)
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
        if (c->type != XML_ELEMENT_NODE || !map_activity(c))
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
            map_fail_at(w, flow, "the links of this <flow> form a cycle");
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

