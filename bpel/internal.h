/* bpel/ internals shared between its files (not installed). */
#ifndef SKELSCHED_BPEL_INTERNAL_H
#define SKELSCHED_BPEL_INTERNAL_H

#include <libxml/tree.h>

#include "../base/arena.h"
#include "bpel.h"

/* Parse buf as XML by the safe recipe (xml.c). Returns the document (free
 * with xmlFreeDoc) or NULL with a message. *nswarn is set to 1 when
 * libxml2 reported a namespace diagnostic on a well-formed file. */
xmlDocPtr bpel_xml_parse(const char *buf, size_t len, const char *file, int *nswarn, diag *err);

/* What an activity becomes (map.c builds them, translate.c turns them into
 * a skeleton). */
typedef enum bpel_kind {
    BPEL_TASK,      /* a stage with a rate */
    BPEL_SEQ,       /* sequence: children in order */
    BPEL_PAR,       /* flow: every child, concurrently */
    BPEL_CHOICE,    /* if/switch/pick: one child, with probability prob */
    BPEL_LOOP,      /* while/repeatUntil/forEach parallel="no": count times */
    BPEL_DEAL,      /* forEach parallel="yes": count workers */
    BPEL_NOP        /* assign, empty, throw ...: no cost */
} bpel_kind;

struct bpel_act {
    bpel_kind kind;
    const char *elem;       /* local name of the element ("invoke") */
    const char *name;       /* its name attribute, or NULL */
    const char *path;       /* generated stable path */
    int line;
    double rate;            /* TASK */
    double prob;            /* as a CHOICE branch: its probability */
    double count;           /* LOOP: expected iterations; DEAL: workers */
    int linked;             /* PAR: a flow with links, children in their order */
    int conditional;        /* PAR: some link holds with probability < 1 */
    unsigned char *reach;   /* PAR with links: reach[i * nchildren + j] = 1 when
                               child j waits, through links, for child i */
    int nchildren;
    bpel_act **children;
};

/* Turn the activity tree into a finished skeleton tree (translate.c):
 * sequence -> pipe, flow -> par, if/switch/pick -> choice, loops -> loop,
 * parallel forEach -> par of N copies. */
skel_tree *bpel_translate(const bpel_act *root, const char *file, diag *err);

/* Tasks made so far: nested parallel forEach copy their bodies N times
 * each, so the tree could grow as N^depth; we stop at SKEL_MAX_TASKS
 * before allocating more. */
typedef struct bpel_budget {
    int tasks;
} bpel_budget;

/* The serial reduction (reduce.c): activity a as one node whose tasks do
 * their work `visits` times per item (a pipe when several stages; loops,
 * choices and flows folded into visit ratios), or *node = NULL when a has
 * no work. Returns 0 or -1 with a message. */
int bpel_serial(skel_tree *t, const bpel_act *a, double visits, int depth, skel_node **node,
                bpel_budget *b, diag *err);

/* Shorten a pipeline's stages v[0..*n) to BPEL_MAX_STAGES by merging the
 * adjacent pair of tasks with the least work into one task doing both
 * (service times add), while there is such a pair. */
int bpel_merge_stages(skel_tree *t, skel_node **v, int *n, diag *err);

/* A task label the skeleton language can print and read back. */
void bpel_label(const bpel_act *a, char *out, size_t size);

#endif
