/* bpel/map_task.c: a task of the walker (map.c, its state: map_int.h):
 * invoke, receive, reply, wait and the no-cost activities, and the rate of
 * each, from the parameters, a <wait>'s or onAlarm's literal duration, or
 * the default (reported); an instantiating receive's rate is the arrival
 * rate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "map_int.h"

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
        if (bpel_is_elem(c, "for")) {
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
int map_task_rate(walker *w, const xmlNode *n, bpel_act *a, const char *key, double def,
                  int timed, int optional)
{
    int r = map_param(w, n, a, key, &a->rate);
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
        if (map_note_missing(w, a, key, def) < 0)
            return -1;
    }
    if (!(a->rate > 0))
        return map_fail_at(w, n, "<%s> %s must be positive", (const char *)n->name, key);
    return 0;
}

bpel_act *map_walk_task(walker *w, const xmlNode *n, const char *parent_path, act_kind what)
{
    bpel_act *a = map_new_act(w, n, parent_path, BPEL_TASK);
    if (!a)
        return NULL;
    const char *name = (const char *)n->name;
    /* walk() has checked a pick's createInstance already */
    int inst = strcmp(name, "receive") == 0 ? map_yes(w, n, "createInstance")
             : strcmp(name, "pick") == 0 ? map_is_yes(n, "createInstance") : 0;
    if (inst < 0 || map_task_rate(w, n, a, inst ? "arrival" : "rate",
                                  inst ? BPEL_DEFAULT_ARRIVAL : BPEL_DEFAULT_RATE,
                                  strcmp(name, "wait") == 0, what == ACT_NO_COST) < 0)
        return NULL;
    return a;
}

