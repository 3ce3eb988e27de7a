/* pepa_system: a PEPA model compiled for state-space exploration.
 *
 * The system equation becomes a tree whose leaves are sequential components
 * (automata over their local states) or aggregated arrays P[n] (counts of
 * copies per local state), and whose inner nodes are cooperations and
 * hidings. A global state is a bit-packed vector of the leaves' fields
 * (local state index, or one count per local state for an array), stored in
 * `nwords` 64-bit words.
 *
 * Rates are evaluated at compile time and can be re-evaluated after rate
 * definitions change (pepa_system_rerate); the structure never changes.
 *
 * Ownership: the system borrows the model (which must outlive it) and owns
 * everything else. */
#ifndef SKELSCHED_PEPA_SYSTEM_H
#define SKELSCHED_PEPA_SYSTEM_H

#include <stdint.h>
#include <stdio.h>

#include "ast.h"

#define PEPA_MAX_WORDS 32           /* state vectors up to 2048 bits */

/* One activity of a sequential component's local state. */
typedef struct pepa_move {
    int action;                     /* action id (0 = tau) */
    int passive;                    /* rate is a passive weight */
    double rate;                    /* active rate, or passive weight */
    int target;                     /* local state reached */
    const pepa_expr *expr;          /* where the rate comes from */
    pepa_pos pos;                   /* the prefix, for messages */
} pepa_move;

/* The automaton of a sequential component. */
typedef struct pepa_seq {
    int nstates;
    char **state_name;              /* printed term of each local state */
    int *first;                     /* nstates + 1 offsets into moves */
    pepa_move *moves;
} pepa_seq;

typedef enum pepa_node_kind {
    PEPA_N_LEAF,                    /* one sequential component */
    PEPA_N_ARRAY,                   /* count copies, aggregated */
    PEPA_N_COOP,
    PEPA_N_HIDE
} pepa_node_kind;

/* A bit field of the state vector. */
typedef struct pepa_field {
    int word, shift, width;
} pepa_field;

typedef struct pepa_node {
    pepa_node_kind kind;
    pepa_pos pos;
    int left, right;                /* child node indices (COOP: both, HIDE: left) */
    unsigned char *set;             /* COOP: cooperation set; HIDE: hidden set;
                                       indexed by action id */
    int seq;                        /* LEAF, ARRAY: automaton index */
    int init;                       /* LEAF: initial local state; ARRAY: the
                                       local state all copies start in */
    long count;                     /* ARRAY: number of copies */
    pepa_field field;               /* LEAF: the local state */
    pepa_field *fields;             /* ARRAY: one count per local state */
    char *name;                     /* LEAF, ARRAY: name used in reports */
} pepa_node;

typedef struct pepa_system {
    pepa_model *model;              /* borrowed */
    int nactions;
    int nseqs, nnodes, root;
    pepa_seq *seqs;
    pepa_node *nodes;
    int nleaves;
    int *leaves;                    /* node indices of LEAF/ARRAY nodes, left to right */
    int nwords;                     /* words per state vector */
    unsigned rates_version;         /* changes whenever pepa_system_rerate runs */
    uint64_t init[PEPA_MAX_WORDS];  /* the initial state */
} pepa_system;

/* Compile m (parsed or built). Checks that every name used is defined,
 * that sequential components do not contain cooperation, that rates are
 * positive and finite, and that no sequential component offers one action
 * both actively and passively. Returns a new system, or NULL with a
 * message. */
pepa_system *pepa_system_new(pepa_model *m, diag *err);

/* Free s. s may be NULL. */
void pepa_system_free(pepa_system *s);

/* Re-evaluate every activity rate from the model's rate definitions (after
 * a caller changed them). Returns 0, or -1 with a message when a rate is
 * no longer positive and finite or changed between active and passive. */
int pepa_system_rerate(pepa_system *s, diag *err);

/* An upper bound on the number of reachable states: the product over the
 * leaves of their local states (for an array of n copies over k local
 * states, the C(n + k - 1, k - 1) ways to count them). Cheap; often far
 * above the reachable count, never below it (HUGE_VAL past a double). */
double pepa_system_state_bound(const pepa_system *s);

/* Mark in set (nactions entries, zeroed by the caller) every action that
 * node n can perform; actions hidden below n count as tau (id 0). */
void pepa_system_alphabet(const pepa_system *s, int n, unsigned char *set);

/* Read a field of a state vector. */
static inline unsigned pepa_field_get(const uint64_t *st, pepa_field f)
{
    return f.width ? (unsigned)((st[f.word] >> f.shift) & ((1ULL << f.width) - 1)) : 0;
}

/* Print a state as "(P1, Q2, Browser[10]{Browser:3, ...})". */
void pepa_state_print(const pepa_system *s, const uint64_t *st, FILE *f);

#endif
