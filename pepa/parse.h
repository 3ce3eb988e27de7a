/* pepa_parse: read PEPA text into a pepa_model.
 *
 * Accepts the PEPA Eclipse Plug-in's concrete syntax (rate definitions
 * `r = expr;` or `r := expr;`, process definitions, one system equation
 * with or without a trailing ';', prefix, choice, cooperation <a,b> <> ||
 * <*>, hiding P/<a> and P/{a}, arrays P[n] and P[n][a,b], infty, T, n*T,
 * tau, "quoted" names, // and / * * / comments) and the PEPA Workbench /
 * PRISM dialect (% comment lines, # before definitions).
 *
 * Syntax errors come back as "file:line:col: message". Input is bounded:
 * nesting deeper than PEPA_MAX_DEPTH and names longer than PEPA_MAX_NAME
 * are errors, never stack overflows. */
#ifndef SKELSCHED_PEPA_PARSE_H
#define SKELSCHED_PEPA_PARSE_H

#include <stddef.h>

#include "ast.h"

#define PEPA_MAX_DEPTH 500
#define PEPA_MAX_NAME 256
#define PEPA_MAX_FILE ((size_t)64 << 20)   /* bytes */

/* Parse len bytes of text (need not be NUL-terminated). file names the
 * source in messages. Returns a new model owned by the caller, or NULL with
 * a message in err. */
pepa_model *pepa_parse_string(const char *text, size_t len, const char *file, diag *err);

/* Read and parse a file ("-" is standard input). */
pepa_model *pepa_parse_file(const char *path, diag *err);

#endif
