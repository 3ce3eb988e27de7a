/* bpel/map_int.h: the BPEL walker's state, shared by the files of the
 * walker only (the activity tree it builds: internal.h; the public
 * interface: bpel.h):
 *   map.c         the element tables, the walker's helpers (messages,
 *                 paths, parameters, new activities), the walk over the
 *                 activities, bpel_import_memory and the rest of the
 *                 public entry (files, clearing, --emit tree)
 *   map_task.c    a task's rate: parameters, a <wait>'s literal duration
 *   map_choice.c  if, switch and pick: their branches and probabilities
 *   map_links.c   a <flow>'s links: the order of its children, the
 *                 probability that each runs, who waits for whom
 */
#ifndef SKELSCHED_BPEL_MAP_INT_H
#define SKELSCHED_BPEL_MAP_INT_H

#include <libxml/tree.h>

#include "internal.h"

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

/* map.c: the walker's helpers */
const act_info *map_activity(const xmlNode *n);   /* NULL: not a BPEL activity */
int map_line_of(const xmlNode *n);
int map_fail_at(walker *w, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int map_note_missing(walker *w, const bpel_act *a, const char *key, double def);
int map_is_yes(const xmlNode *n, const char *attr);
int map_yes(walker *w, const xmlNode *n, const char *attr);
int map_param(walker *w, const xmlNode *n, const bpel_act *a, const char *key, double *v);
bpel_act *map_new_act(walker *w, const xmlNode *n, const char *parent_path, bpel_kind kind);
int map_add_child(walker *w, bpel_act *p, bpel_act *c);
bpel_act *map_walk_body(walker *w, const xmlNode *n, const char *path, int line, int depth);

/* map_task.c */
int map_task_rate(walker *w, const xmlNode *n, bpel_act *a, const char *key, double def,
                  int timed, int optional);
bpel_act *map_walk_task(walker *w, const xmlNode *n, const char *parent_path, act_kind what);

/* map_choice.c */
bpel_act *map_walk_choice(walker *w, const xmlNode *n, const char *parent_path, int depth);

/* map_links.c */
int map_flow_links(walker *w, const xmlNode *flow, bpel_act *a);

#endif
