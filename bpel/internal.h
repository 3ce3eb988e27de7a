/* bpel/ internals shared between its files (not installed). */
#ifndef SKELSCHED_BPEL_INTERNAL_H
#define SKELSCHED_BPEL_INTERNAL_H

#include <libxml/tree.h>

#include "../base/arena.h"
#include "../base/strmap.h"
#include "bpel.h"

#define BPEL_MAX_LISTED 20     /* missing parameters listed one by one */
#define BPEL_MAX_WARNINGS 20   /* other warning lines of one import */

/* Parse buf as XML by the safe recipe (xml.c). Returns the document (free
 * with xmlFreeDoc) or NULL with a message. *nswarn is set to 1 when
 * libxml2 reported a namespace diagnostic on a well-formed file. */
xmlDocPtr bpel_xml_parse(const char *buf, size_t len, const char *file, int *nswarn, diag *err);

/* What an activity becomes (map*.c build them, translate.c turns them into
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

/* Non-zero when n is the BPEL element `local` (any BPEL namespace). */
int bpel_is_elem(const xmlNode *n, const char *local);

/* ---- warnings (warn.c) ---- */

typedef struct bpel_warn {
    char *text;              /* warning lines, each ending in a newline */
    size_t len, cap;
    int nlines, dropped;     /* lines kept; lines past BPEL_MAX_WARNINGS */
    int nmissing;            /* parameters that took their default */
    char *miss;              /* the first BPEL_MAX_LISTED of them, a line each */
    size_t misslen, misscap;
} bpel_warn;

/* One warning line (formatted in full by the caller, file and line
 * included). Returns 0, or -1 with a message when out of memory. */
int bpel_warn_add(bpel_warn *b, diag *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A parameter that took its default. */
int bpel_warn_missing(bpel_warn *b, diag *err, const char *path, const char *name,
                      const char *key, double def);
/* Links whose ends are not children of one <flow> (their names not in
 * ordered), found anywhere below root. */
int bpel_warn_links(bpel_warn *b, diag *err, arena *mem, const xmlNode *root,
                    const strmap *ordered, const char *file);
/* Side-file entries nothing read (mark: bpel_params_mark's flags). */
int bpel_warn_params(bpel_warn *b, diag *err, const bpel_params *p, const unsigned char *mark);
/* All of it as one text in *text (lines, no final newline; NULL when there
 * is none). Empties b. Returns 0, or -1 with a message. */
int bpel_warn_finish(bpel_warn *b, const char *file, char **text, diag *err);
void bpel_warn_free(bpel_warn *b);

/* ---- side-file bookkeeping (params.c) ---- */

#define BPEL_PARAM_NAMED 1   /* the entry's first word names an activity or link */
#define BPEL_PARAM_READ 2    /* and its key was read for it */

int bpel_params_count(const bpel_params *p);   /* 0 for NULL */
/* Set flags in mark[i] (one per entry) for the entries naming path or name
 * (either may be NULL), and for those with key (NULL: none) as read. */
void bpel_params_mark(const bpel_params *p, const char *path, const char *name, const char *key,
                      unsigned char *mark);
/* Entry i: its file, words; returns its line. */
int bpel_params_entry(const bpel_params *p, int i, const char **file, const char **who,
                      const char **key);

/* A task label the skeleton language can print and read back. */
void bpel_label(const bpel_act *a, char *out, size_t size);

#endif
