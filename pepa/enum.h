/* pepa_enum: the transitions out of one global state, by the structured
 * operational semantics of PEPA with Hillston's apparent rates.
 *
 * A transition is reported as the action, its rate and the XOR mask that
 * turns the source state vector into the target (components occupy
 * disjoint bits, so a synchronisation's mask is the XOR of its partners'
 * masks). The same state always yields the same transitions in the same
 * order: rating and measures rely on it.
 *
 * An enumerator holds scratch buffers; one per thread. */
#ifndef SKELSCHED_PEPA_ENUM_H
#define SKELSCHED_PEPA_ENUM_H

#include <stdint.h>

#include "system.h"

typedef struct pepa_tr {
    int action;
    int passive;
    double rate;              /* active rate, or passive weight */
} pepa_tr;

typedef struct pepa_enum pepa_enum;

/* A new enumerator for s (borrowed), or NULL when out of memory. */
pepa_enum *pepa_enum_new(const pepa_system *s);

/* 1 when no two transitions of any state of s can reach the same target
 * state, so that nobody need merge them: every local state's moves go to
 * distinct local states other than itself. Then a transition's target
 * names, for each component, the move it made, and one set of moves is
 * one transition. 0 when merging may be needed. */
int pepa_enum_targets_distinct(const pepa_system *s);

/* Free e. e may be NULL. */
void pepa_enum_free(pepa_enum *e);

/* The transitions out of state st. On success returns their number and
 * points *tr at them and *mask at their masks (count * nwords words); both
 * stay valid until the next call. Returns -1 with a message when an action
 * is passive at the top level (its rate is undefined) or a component
 * offers an action both actively and passively. */
long pepa_enum_state(pepa_enum *e, const uint64_t *st, const pepa_tr **tr,
                     const uint64_t **mask, diag *err);

#endif
