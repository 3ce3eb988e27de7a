/* pepa_export: write a derived chain for other tools.
 *
 *   PRISM explicit format: FILE.tra (transitions "src dst rate", header
 *   "states transitions") and FILE.sta (state list with the local states
 *   of every component). Matrix Market: the generator Q as a real general
 *   coordinate matrix, 1-based, diagonal included. */
#ifndef SKELSCHED_PEPA_EXPORT_H
#define SKELSCHED_PEPA_EXPORT_H

#include "space.h"

/* Write prefix.tra and prefix.sta. Returns 0 or -1 with a message. */
int pepa_export_prism(const pepa_space *sp, const char *prefix, diag *err);

/* Write Q in Matrix Market format to path. Returns 0 or -1. */
int pepa_export_mm(const pepa_space *sp, const char *path, diag *err);

#endif
