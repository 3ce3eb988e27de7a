/* pepa_space: the reachable state space of a compiled PEPA system and its
 * CTMC, with the measures computed from a probability vector.
 *
 * Derivation and rating are separate steps. pepa_derive explores the
 * states and fixes the chain's structure; pepa_space_rate fills in the
 * rates from the system's current activity rates. A caller that changes
 * rate definitions (pepa_system_rerate) calls pepa_space_rate again and
 * re-solves, without deriving anything again.
 *
 * Ownership: the space borrows the system (which must outlive it) and owns
 * its states, hash index and CTMC.
 *
 * Where the functions are: pepa_derive in derive.c; pepa_space_index and
 * pepa_space_find in index.c; pepa_space_entry, pepa_space_walk,
 * pepa_space_rate, pepa_space_free and pepa_space_print_state in space.c;
 * pepa_space_classify and pepa_space_recurrent in classify.c;
 * pepa_space_throughput and pepa_space_local in measure.c; pepa_plan_build
 * and pepa_plan_free in plan.c. */
#ifndef SKELSCHED_PEPA_SPACE_H
#define SKELSCHED_PEPA_SPACE_H

#include <stdint.h>
#include <stdio.h>

#include "../base/clock.h"
#include "ctmc.h"
#include "system.h"

typedef struct pepa_derive_opts {
    uint64_t max_states;      /* stop with an error beyond this; 0 = 2^32 - 2 */
    double time_limit;        /* seconds; 0 = none */
    clock_deadline deadline;  /* also stop by this (the caller's whole decision's;
                                 checked every few dozen states, so a derivation
                                 past it is abandoned, never waited for) */
    int threads;              /* 1: single-threaded; 2 (or 0, the default):
                                 a helper enumerates transitions while the
                                 caller indexes the states they reach and
                                 enumerates too whenever it would wait */
} pepa_derive_opts;

/* States are stored in blocks that never move, so that one thread can read
 * states while another adds new ones. */
#define PEPA_BLOCK_SHIFT 16
#define PEPA_BLOCK_STATES ((uint32_t)1 << PEPA_BLOCK_SHIFT)
#define PEPA_MAX_BLOCKS ((size_t)1 << (32 - PEPA_BLOCK_SHIFT))

typedef struct pepa_space {
    const pepa_system *sys;   /* borrowed */
    uint32_t n;               /* reachable states; state 0 is the initial one */
    int nw;                   /* words per state */
    uint64_t **blocks;        /* PEPA_MAX_BLOCKS pointers, the used ones set */
    struct pepa_slot *index;  /* hash index of the states, built on demand */
    uint64_t index_cap;       /* power of two */
    pepa_ctmc *q;             /* the generator (structure and rates) */
    uint64_t self_loops;      /* transitions from a state to itself (not in q) */
    uint32_t deadlocks;       /* states with no transition at all */
    uint32_t first_deadlock;  /* one of them (valid when deadlocks > 0) */
    clock_deadline deadline;  /* the derivation's (pepa_derive_opts): re-rating
                                 walks (pepa_space_rate, pepa_space_walk) stop
                                 past it too, with an error */
} pepa_space;

/* State k's vector (nw words). */
static inline const uint64_t *pepa_space_state(const pepa_space *sp, uint32_t k)
{
    return sp->blocks[k >> PEPA_BLOCK_SHIFT] + (size_t)(k & (PEPA_BLOCK_STATES - 1)) * (size_t)sp->nw;
}

/* Explore the states reachable from s's initial state. Fails with a
 * message on a state-space limit, a time limit, an action left passive at
 * the top level, or memory exhaustion. The result is rated (as by
 * pepa_space_rate). Returns NULL on failure. */
pepa_space *pepa_derive(const pepa_system *s, const pepa_derive_opts *opts, diag *err);

/* Recompute every rate of the chain from the system's current rates. The
 * structure must not have changed (it cannot, through pepa_system_rerate).
 * Returns 0 or -1 with a message. */
int pepa_space_rate(pepa_space *sp, diag *err);

/* Where the chain's transition from state i into state j is: its
 * position in q->val and q->col, or PEPA_NO_ENTRY when there is none. */
#define PEPA_NO_ENTRY UINT64_MAX
uint64_t pepa_space_entry(const pepa_space *sp, uint32_t i, uint32_t j);

/* One transition of state i at the system's current rates, with its
 * entry in the chain (PEPA_NO_ENTRY: a self-loop, which has none).
 * Returns 0 to go on; anything else stops the walk, which returns it. */
typedef int (*pepa_walk_fn)(void *ctx, uint32_t i, int action, double rate, uint64_t entry);

/* Every transition of every state, states in order and each state's in
 * the order pepa_enum gives, to fn: what a rate plan is built from (an
 * action -> parameter map over the chain's entries). Indexes the states
 * first (pepa_space_index). Returns 0, fn's non-zero value, or -1 with a
 * message. */
int pepa_space_walk(pepa_space *sp, pepa_walk_fn fn, void *ctx, diag *err);

/* Free sp. sp may be NULL. */
void pepa_space_free(pepa_space *sp);

/* A rate plan: every transition of a chain as a coefficient times one
 * parameter, from an action -> parameter map. Where every rate of an
 * action is its parameter's value times a constant (a placement search's
 * speeds and latencies), the chain is re-rated for new parameter values
 * from the plan alone, without walking the states again:
 * q->val[entry[t]] += coef[t] * value of param[t], q->out[src[t]] too. */
#define PEPA_PLAN_NONE INT32_MIN     /* act_param: an action no parameter rates */

typedef struct pepa_plan {
    size_t n;                /* transitions */
    uint32_t *src;           /* the state each leaves */
    uint64_t *entry;         /* its chain entry; PEPA_NO_ENTRY for a self-loop */
    int *param;              /* its action's parameter, as act_param gives it */
    double *coef;            /* its rate over its action's parameter value */
} pepa_plan;

typedef enum pepa_plan_status {
    PEPA_PLAN_BUILT = 0,
    PEPA_PLAN_REFUSED = 1    /* an action without a parameter, or more than max
                                transitions: no plan (n = 0), and no error */
} pepa_plan_status;

/* Build plan (zeroed, or a plan to rebuild) by walking sp at its current
 * rates (pepa_space_walk): a transition of action a gets act_param[a] and
 * coefficient rate / act_value[a]. Returns a pepa_plan_status, or -1 with
 * a message (memory, sp's deadline). */
int pepa_plan_build(pepa_space *sp, const int *act_param, const double *act_value, size_t max,
                    pepa_plan *plan, diag *err);

/* Free the plan's arrays (and zero it). */
void pepa_plan_free(pepa_plan *plan);

/* Build the hash index of the states (derivation drops it to save memory
 * for the chain). Returns 0 or -1 with a message. */
int pepa_space_index(pepa_space *sp, diag *err);

/* The state number of state vector st, or -1 if unreachable. Needs the
 * index (pepa_space_index). */
int64_t pepa_space_find(const pepa_space *sp, const uint64_t *st);

/* Structure of the chain, for "can this be solved" questions. */
typedef struct pepa_chain_class {
    uint32_t bottom;           /* closed communicating classes */
    uint32_t transient;        /* states outside every closed class */
    uint32_t first_bottom[2];  /* a state of the first two closed classes */
} pepa_chain_class;

/* Classify the chain into closed classes and transient states. It has a
 * unique steady state when bottom == 1 (transient states get probability
 * 0). Deadlocks (sp->deadlocks) are single-state closed classes. Returns 0
 * or -1 (memory). */
int pepa_space_classify(const pepa_space *sp, pepa_chain_class *cls, diag *err);

/* The same, and closed[j] (n entries) says whether state j lies in a
 * closed class: with one closed class, the states to solve for
 * (pepa_solve_opts.recurrent). */
int pepa_space_recurrent(const pepa_space *sp, pepa_chain_class *cls, unsigned char *closed,
                         diag *err);

/* Throughput of every action: thr[a] = sum over states of pi * rate of the
 * action's transitions, self-loops included (thr has sys->nactions
 * entries). Returns 0 or -1. */
int pepa_space_throughput(const pepa_space *sp, const double *pi, double *thr, diag *err);

/* Local-state measures of leaf i (index into sys->leaves): for a
 * sequential component the probability of each local state; for an array
 * the mean number of copies in each local state. out has the automaton's
 * nstates entries. */
void pepa_space_local(const pepa_space *sp, const double *pi, int leaf, double *out);

/* Print state k as pepa_state_print does. */
void pepa_space_print_state(const pepa_space *sp, uint32_t k, FILE *f);

#endif
