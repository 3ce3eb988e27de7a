/* bpel/map_choice.c: the walker's if, switch and pick (the walker: map.c,
 * its state: map_int.h): their branches (a pick's message or alarm first
 * in its branch, an implicit else or otherwise), and the probability of
 * each, from the parameters or shared out of what the given ones leave. */
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "map_int.h"

/* The 2004/03 draft (Apache ODE) wraps the activity of an <if> and of an
 * <elseif> in <then>; WS-BPEL 2.0 does not. */
#define DRAFT_NS "http://schemas.xmlsoap.org/ws/2004/03/business-process/"

static const xmlNode *draft_then(const xmlNode *n)
{
    if (!n->ns || !n->ns->href || strcmp((const char *)n->ns->href, DRAFT_NS) != 0)
        return NULL;
    for (const xmlNode *c = n->children; c; c = c->next)
        if (bpel_is_elem(c, "then"))
            return c;
    return NULL;
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
            return map_fail_at(w, n, "<%s>: the branch probabilities sum to 0",
                               (const char *)n->name);
        for (int i = 0; i < a->nchildren; i++)
            a->children[i]->prob = given[i] / sum;
        return 0;
    }
    if (sum > 1 + 1e-9)
        return map_fail_at(w, n, "<%s>: the branch probabilities sum to %g > 1 with %d branch%s "
                           "unspecified", (const char *)n->name, sum, nmiss,
                           nmiss == 1 ? "" : "es");
    double share = (sum >= 1 ? 0 : 1 - sum) / nmiss;
    for (int i = 0; i < a->nchildren; i++)
        if (!has[i]) {
            a->children[i]->prob = share;
            /* One unspecified branch is determined (1 - the rest): only a
             * split between several is a default. */
            if (nmiss > 1 && reported[i] && map_note_missing(w, reported[i], "prob", share) < 0)
                return -1;
        } else {
            a->children[i]->prob = given[i];
        }
    return 0;
}

/* The task of a pick branch's message (onMessage: a receive) or alarm
 * (onAlarm: a wait), first in its branch holder. */
static int pick_trigger(walker *w, const xmlNode *c, const bpel_act *pick, bpel_act *holder)
{
    if (!bpel_is_elem(c, "onMessage") && !bpel_is_elem(c, "onAlarm"))
        return 0;
    bpel_act *t = map_new_act(w, c, pick->path, BPEL_TASK);
    if (!t || map_task_rate(w, c, t, "rate", BPEL_DEFAULT_RATE, bpel_is_elem(c, "onAlarm"), 0) < 0)
        return -1;
    return map_add_child(w, holder, t);
}

/* Whether c is a branch of an if (elseif, else), a switch (case,
 * otherwise) or a pick (onMessage, onAlarm, onEvent): map_walk_choice counts
 * them, then walks them, by this one test. */
static int is_branch(const xmlNode *c)
{
    return bpel_is_elem(c, "elseif") || bpel_is_elem(c, "else") || bpel_is_elem(c, "case") ||
           bpel_is_elem(c, "otherwise") || bpel_is_elem(c, "onMessage") ||
           bpel_is_elem(c, "onAlarm") || bpel_is_elem(c, "onEvent");
}

/* Branches of if (then, elseif*, else), switch (case*, otherwise) and pick
 * (onMessage*, onAlarm*). */
bpel_act *map_walk_choice(walker *w, const xmlNode *n, const char *parent_path, int depth)
{
    bpel_act *a = map_new_act(w, n, parent_path, BPEL_CHOICE);
    if (!a)
        return NULL;
    const char *name = (const char *)n->name;
    int is_if = strcmp(name, "if") == 0, is_switch = strcmp(name, "switch") == 0;
    /* A pick's message or alarm is a step of the instance, as the same
     * message in a receive or the same duration in a wait; an instantiating
     * pick's message is its first task (walk()). */
    int trigger = strcmp(name, "pick") == 0 && !map_is_yes(n, "createInstance");
    int nb = is_if ? 1 : 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is_branch(c))
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
        bpel_act *then = map_walk_body(w, tn ? tn : n, a->path, a->line, depth);
        if (!then || map_add_child(w, a, then) < 0)
            return NULL;
        if ((r = map_param(w, n, a, "prob", &given[0])) < 0)
            return NULL;
        has[0] = r;
        rep[0] = a;
    }
    int has_default = 0;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!is_branch(c))
            continue;
        if (depth + 1 > BPEL_MAX_DEPTH) {
            map_fail_at(w, c, "activities nested deeper than %d levels", BPEL_MAX_DEPTH);
            return NULL;
        }
        if (bpel_is_elem(c, "else") || bpel_is_elem(c, "otherwise"))
            has_default = 1;
        bpel_act *holder = map_new_act(w, c, a->path, BPEL_SEQ);
        if (!holder || (trigger && pick_trigger(w, c, a, holder) < 0))
            return NULL;
        const xmlNode *tn = draft_then(c);
        bpel_act *body = map_walk_body(w, tn ? tn : c, holder->path, holder->line, depth + 1);
        if (!body)
            return NULL;
        /* The branch keeps the branch element's path and name, so that
         * side files and messages name <elseif>/<case>/<onMessage>. */
        holder->kind = BPEL_SEQ;
        if (body->kind != BPEL_NOP && map_add_child(w, holder, body) < 0)
            return NULL;
        if (!holder->nchildren)
            holder->kind = BPEL_NOP;
        int i = a->nchildren;
        if ((r = map_param(w, c, holder, "prob", &given[i])) < 0)
            return NULL;
        has[i] = r;
        rep[i] = holder;
        if (map_add_child(w, a, holder) < 0)
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
        if (map_add_child(w, a, e) < 0)
            return NULL;
        has[i] = 0;
        rep[i] = NULL;
    }
    if (a->nchildren == 0) {
        map_fail_at(w, n, "<%s> has no branches", name);
        return NULL;
    }
    if (resolve_probs(w, n, a, given, has, rep) < 0)
        return NULL;
    return a;
}

