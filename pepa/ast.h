/* pepa_model: a PEPA model as written - rate definitions, process
 * definitions and one system equation - built by the parser or, through the
 * constructors below, directly by a model generator (skeleton/, bpel/).
 *
 * Ownership: a pepa_model owns every node, name and array reachable from
 * it (they live in the model's arena); pepa_model_free releases all of it.
 * Constructors take and return pointers into the same model; a node must
 * not be shared between two models.
 *
 * Names are interned per namespace: rates, processes and actions each have
 * their own table and are referred to by a small integer id. Action id 0 is
 * the silent action `tau`. */
#ifndef SKELSCHED_PEPA_AST_H
#define SKELSCHED_PEPA_AST_H

#include <stddef.h>
#include <stdio.h>

#include "../base/diag.h"

typedef struct pepa_pos {
    int line, col;            /* 1-based; 0 for generated nodes */
} pepa_pos;

/* ---- rate expressions ---------------------------------------------- */

typedef enum pepa_expr_kind {
    PEPA_E_NUM,       /* num */
    PEPA_E_RATE,      /* a named rate: id */
    PEPA_E_INFTY,     /* the passive rate, `infty` or `T` (weight 1) */
    PEPA_E_ADD, PEPA_E_SUB, PEPA_E_MUL, PEPA_E_DIV,   /* a op b */
    PEPA_E_NEG        /* -a */
} pepa_expr_kind;

typedef struct pepa_expr {
    pepa_expr_kind kind;
    pepa_pos pos;
    double num;
    int id;
    struct pepa_expr *a, *b;
} pepa_expr;

/* A rate's value: active rate r (> 0, weight 0) or passive weight w
 * (w > 0: the rate "w * infty"). */
typedef struct pepa_rate {
    double r;
    double w;
} pepa_rate;

/* ---- process terms ------------------------------------------------- */

typedef enum pepa_proc_kind {
    PEPA_P_CONST,     /* a process name: id */
    PEPA_P_PREFIX,    /* (action, rate).a */
    PEPA_P_CHOICE,    /* a + b */
    PEPA_P_COOP,      /* a <actions> b; nactions 0 is a || b; all is <*> */
    PEPA_P_HIDE,      /* a / {actions} */
    PEPA_P_ARRAY      /* a[count], or a[count][actions]: count copies of a */
} pepa_proc_kind;

typedef struct pepa_proc {
    pepa_proc_kind kind;
    pepa_pos pos;
    int id;                    /* CONST: process id; PREFIX: action id */
    pepa_expr *rate;           /* PREFIX */
    struct pepa_proc *a, *b;   /* operands (PREFIX: a is the continuation) */
    int *actions;              /* COOP, HIDE, ARRAY: action ids */
    int nactions;
    int all;                   /* COOP: <*>, cooperate on every shared action */
    long count;                /* ARRAY */
} pepa_proc;

/* ---- definitions and the model ------------------------------------- */

typedef struct pepa_rate_def {
    const char *name;
    pepa_expr *expr;           /* NULL while declared but not yet defined */
    pepa_pos pos;
} pepa_rate_def;

typedef struct pepa_proc_def {
    const char *name;
    pepa_proc *body;           /* NULL while referenced but not yet defined */
    pepa_pos pos;
} pepa_proc_def;

typedef struct pepa_model pepa_model;

/* A new empty model. file names the source in messages (copied; may be
 * NULL). Returns NULL when out of memory. */
pepa_model *pepa_model_new(const char *file);

/* Free m and everything it owns. m may be NULL. */
void pepa_model_free(pepa_model *m);

/* The file name given to pepa_model_new ("<input>" if none). */
const char *pepa_model_file(const pepa_model *m);

/* Intern a name; returns its id (>= 0), or -1 when out of memory. Interning
 * an existing name returns the existing id. "tau" is action 0. */
int pepa_model_rate_id(pepa_model *m, const char *name);
int pepa_model_proc_id(pepa_model *m, const char *name);
int pepa_model_action_id(pepa_model *m, const char *name);

/* Look a name up without interning; -1 if absent. */
int pepa_model_find_rate(const pepa_model *m, const char *name);
int pepa_model_find_proc(const pepa_model *m, const char *name);
int pepa_model_find_action(const pepa_model *m, const char *name);

/* Counts and definitions by id (pointers stay valid until the next
 * interning call or pepa_model_free). */
int pepa_model_nrates(const pepa_model *m);
int pepa_model_nprocs(const pepa_model *m);
int pepa_model_nactions(const pepa_model *m);
pepa_rate_def *pepa_model_rate(pepa_model *m, int id);
pepa_proc_def *pepa_model_proc(pepa_model *m, int id);
const char *pepa_model_action(const pepa_model *m, int id);

/* Define rate `name = e` / process `name = p`. Returns the id, or -1 with a
 * message when the name is already defined or memory runs out. */
int pepa_model_define_rate(pepa_model *m, const char *name, pepa_expr *e, pepa_pos pos, diag *err);
int pepa_model_define_proc(pepa_model *m, const char *name, pepa_proc *p, pepa_pos pos, diag *err);

/* Set or get the system equation. */
void pepa_model_set_system(pepa_model *m, pepa_proc *p);
pepa_proc *pepa_model_system(const pepa_model *m);

/* Node constructors (memory from the model's arena; NULL when out of
 * memory). Action lists are copied. */
pepa_expr *pepa_num(pepa_model *m, double v);
pepa_expr *pepa_rate_ref(pepa_model *m, int rate_id);
pepa_expr *pepa_infty(pepa_model *m);
pepa_expr *pepa_binop(pepa_model *m, pepa_expr_kind op, pepa_expr *a, pepa_expr *b);
pepa_expr *pepa_neg(pepa_model *m, pepa_expr *a);

pepa_proc *pepa_const(pepa_model *m, int proc_id);
pepa_proc *pepa_prefix(pepa_model *m, int action_id, pepa_expr *rate, pepa_proc *then);
pepa_proc *pepa_choice(pepa_model *m, pepa_proc *a, pepa_proc *b);
pepa_proc *pepa_coop(pepa_model *m, pepa_proc *a, pepa_proc *b, const int *actions, int n);
pepa_proc *pepa_coop_all(pepa_model *m, pepa_proc *a, pepa_proc *b);
pepa_proc *pepa_hide(pepa_model *m, pepa_proc *a, const int *actions, int n);
pepa_proc *pepa_array(pepa_model *m, pepa_proc *a, long count, const int *actions, int n);

/* Allocate n bytes from the model's arena (zeroed; freed with the model). */
void *pepa_model_alloc(pepa_model *m, size_t n);

/* Evaluate a rate expression, resolving named rates. Returns 0, or -1 with
 * a message at the expression's position (undefined or circular rate,
 * division by zero, a non-finite result, passive arithmetic that has no
 * meaning such as T + 1 or T * T). Whether the value is a usable rate
 * (r > 0 or w > 0) is for the caller to check. */
int pepa_eval_rate(pepa_model *m, const pepa_expr *e, pepa_rate *out, diag *err);

/* Print the model as PEPA text that the PEPA Eclipse Plug-in accepts:
 * rate definitions, process definitions, then the system equation. */
void pepa_model_print(pepa_model *m, FILE *f);

/* Print one process term / expression (no trailing newline). */
void pepa_proc_print(const pepa_model *m, const pepa_proc *p, FILE *f);
void pepa_expr_print(const pepa_model *m, const pepa_expr *e, FILE *f);

#endif
