/* pepa_check: static checks of a PEPA model, before and after compiling.
 *
 * Errors stop the analysis (returned through diag); warnings are passed,
 * one formatted "file:line:col: warning: ..." line at a time, to a
 * callback the caller supplies (it may be NULL to drop them). */
#ifndef SKELSCHED_PEPA_CHECK_H
#define SKELSCHED_PEPA_CHECK_H

#include "ast.h"
#include "system.h"

typedef void (*pepa_warn_fn)(void *ctx, const char *msg);

/* On the syntax: names used but never defined (error); rate and process
 * definitions never used by the system equation (warning). Returns 0 or -1. */
int pepa_check(pepa_model *m, pepa_warn_fn warn, void *ctx, diag *err);

/* On the compiled system: an action that every component performing it
 * offers passively, so no rate is ever given to it (error); a cooperation
 * set naming an action that one side never performs, so the other side is
 * blocked on it forever (warning); one component offering an action actively
 * in one state and passively in another (warning). Returns 0 or -1. */
int pepa_check_system(const pepa_system *s, pepa_warn_fn warn, void *ctx, diag *err);

#endif
