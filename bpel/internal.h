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

/* What an activity becomes (map.c builds them, reduce.c turns them into a
 * skeleton). */
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
    int nchildren;
    bpel_act **children;
};

/* Turn the activity tree into a finished skeleton tree (reduce.c). */
skel_tree *bpel_reduce(const bpel_act *root, const char *file, diag *err);

#endif
