/* bpel: import WS-BPEL 2.0 / BPEL4WS 1.1 orchestrations as skeleton trees
 * (docs/bpel.md).
 *
 *   bpel_params_parse_file  -> bpel_params  (optional side file)
 *   bpel_import_file        -> bpel_import  (activity tree + skeleton tree
 *                                             + one warning for defaults)
 *
 * XML is parsed from memory with no network, no DTD, no entity expansion
 * and no DOCTYPE at all; sizes and depths are bounded. Library code never
 * prints or exits; failures are -1 with "file:line: message" in diag. No
 * global mutable state: safe inside slurmctld. */
#ifndef SKELSCHED_BPEL_H
#define SKELSCHED_BPEL_H

#include <stddef.h>
#include <stdio.h>

#include "../base/diag.h"
#include "../skeleton/skeleton.h"

#define BPEL_MAX_FILE ((size_t)8 << 20)   /* bytes of a .bpel file */
#define BPEL_MAX_DEPTH 128                /* nesting of elements we walk */
#define BPEL_MAX_ACTIVITIES 10000         /* activities in one process */
#define BPEL_MAX_WORKERS 64               /* N of a parallel forEach */
#define BPEL_MAX_STAGES 10                /* longer pipelines are merged */
#define BPEL_MAX_PARAMS_FILE ((size_t)1 << 20)

/* Defaults for missing parameters (docs/bpel.md). */
#define BPEL_DEFAULT_RATE 1.0        /* invoke, receive, reply, wait */
#define BPEL_DEFAULT_ARRIVAL 1.0     /* instantiating receive / pick */
#define BPEL_DEFAULT_ITERATIONS 1.0  /* while, repeatUntil */
#define BPEL_DEFAULT_COUNT 2         /* forEach when the counters are not literal */

/* ---- safe XML loading ------------------------------------------------- */

/* Initialise libxml2 once, from one thread, before imports may run
 * concurrently (a plugin's init). Optional for a single-threaded program. */
void bpel_init(void);

/* Read at most max bytes (0: BPEL_MAX_FILE) of path into a malloc'd buffer.
 * Rejects non-regular files' excess, compressed files (gzip, xz, bzip2).
 * Returns 0 and *buf, *len, or -1 with a message. */
int bpel_read_file(const char *path, size_t max, char **buf, size_t *len, diag *err);

/* ---- parameters side file ---------------------------------------------- */

/* Lines "KEY key=value ...", KEY an activity's name attribute or its
 * generated path (/process/sequence[1]/invoke[2]); keys rate, prob,
 * iterations, count, arrival. '#' starts a comment. */
typedef struct bpel_params bpel_params;

bpel_params *bpel_params_parse_string(const char *text, size_t len, const char *file,
                                      diag *err);
bpel_params *bpel_params_parse_file(const char *path, diag *err);
void bpel_params_free(bpel_params *p);   /* p may be NULL */

/* Value of key for the activity with this path or name (path first).
 * Returns 1 and *value when set, 0 when not. name may be NULL. */
int bpel_params_get(const bpel_params *p, const char *path, const char *name, const char *key,
                    double *value);

/* ---- import ------------------------------------------------------------ */

typedef struct bpel_act bpel_act;   /* the activity tree (internal) */

typedef struct bpel_import {
    skel_tree *tree;      /* the skeleton (owned) */
    bpel_act *root;       /* the activity tree, for --emit tree (owned) */
    void *priv;           /* storage of the activity tree */
    char *warning;        /* NULL, or one message listing every default used */
    int nmissing;         /* parameters that took their default */
    const char *ns;       /* the BPEL namespace URI of the process */
} bpel_import;

/* Import len bytes of BPEL (file names it in messages). params may be
 * NULL. On success returns 0 with *out filled (free with bpel_import_clear);
 * on failure -1 with a message and *out empty. */
int bpel_import_memory(const char *buf, size_t len, const char *file, const bpel_params *params,
                       bpel_import *out, diag *err);
int bpel_import_file(const char *path, const bpel_params *params, bpel_import *out, diag *err);
void bpel_import_clear(bpel_import *r);

/* For commands that take a skeleton: the skeleton tree of a BPEL file
 * (owned by the caller, skel_tree_free) and, in *warning, NULL or the
 * missing-parameter message (free it). NULL with a message on failure. */
skel_tree *bpel_load_skeleton(const char *path, const bpel_params *params, char **warning,
                              diag *err);

/* Print the activity tree: one activity per line, indented, with its
 * path, mapping kind and parameters. */
void bpel_import_print_tree(const bpel_import *r, FILE *f);

/* Non-zero when the file looks like BPEL by name (".bpel" suffix), for
 * commands that accept skeletons or BPEL. */
int bpel_is_bpel_path(const char *path);

#endif
