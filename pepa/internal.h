/* What the files of pepa/ share and nothing outside pepa/ includes: the
 * hash index of the states (index.h) and the enumerator of one state's
 * transitions (enum.h). Code outside pepa/ reads a chain through space.h
 * (pepa_space_find, pepa_space_entry, pepa_space_walk). */
#ifndef SKELSCHED_PEPA_INTERNAL_H
#define SKELSCHED_PEPA_INTERNAL_H

#include "enum.h"
#include "index.h"

#endif
