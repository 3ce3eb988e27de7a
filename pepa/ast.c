/* pepa_model: construction, name tables, rate evaluation and printing of the
 * PEPA abstract syntax. See ast.h. */
#include "ast.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"
#include "../base/mem.h"
#include "../base/strmap.h"

/* One namespace: names by id, and id by name. */
typedef struct names {
    strmap map;
    const char **name;
    int n, cap;
} names;

struct pepa_model {
    arena mem;
    const char *file;
    names rates, procs, actions;
    pepa_rate_def *rate_defs;      /* parallel to rates.name */
    pepa_proc_def *proc_defs;      /* parallel to procs.name */
    int *rate_order, *proc_order;  /* ids in order of definition, for printing */
    int nrate_order, nproc_order;
    pepa_proc *system;
};

/* ---- names ----------------------------------------------------------- */

/* Intern s in ns; *created is set when s is new. */
static int names_intern(pepa_model *m, names *ns, const char *s, int *created)
{
    int id = strmap_get(&ns->map, s);
    *created = 0;
    if (id >= 0)
        return id;
    if (ns->n == ns->cap) {
        int cap = ns->cap ? ns->cap * 2 : 16;
        if (mem_grow((void **)&ns->name, (size_t)cap, sizeof *ns->name) < 0)
            return -1;
        ns->cap = cap;
    }
    char *copy = arena_strdup(&m->mem, s);
    if (!copy || strmap_put(&ns->map, copy, ns->n) < 0)
        return -1;
    ns->name[ns->n] = copy;
    *created = 1;
    return ns->n++;
}

static void names_free(names *ns)
{
    strmap_free(&ns->map);
    free(ns->name);
}

pepa_model *pepa_model_new(const char *file)
{
    pepa_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    arena_init(&m->mem);
    strmap_init(&m->rates.map);
    strmap_init(&m->procs.map);
    strmap_init(&m->actions.map);
    m->file = arena_strdup(&m->mem, file ? file : "<input>");
    if (!m->file || pepa_model_action_id(m, "tau") != 0) {
        pepa_model_free(m);
        return NULL;
    }
    return m;
}

void pepa_model_free(pepa_model *m)
{
    if (!m)
        return;
    free(m->rate_defs);
    free(m->proc_defs);
    free(m->rate_order);
    free(m->proc_order);
    names_free(&m->rates);
    names_free(&m->procs);
    names_free(&m->actions);
    arena_free(&m->mem);
    free(m);
}

const char *pepa_model_file(const pepa_model *m) { return m->file; }

/* Definitions arrays are grown before the name is interned, so that a
 * failed allocation leaves the model consistent. */
static int grow_defs(void **defs, size_t elem, int need)
{
    return mem_grow(defs, (size_t)need, elem);
}

int pepa_model_rate_id(pepa_model *m, const char *name)
{
    int id = strmap_get(&m->rates.map, name);
    if (id >= 0)
        return id;
    int created;
    if (m->rates.n == m->rates.cap &&
        grow_defs((void **)&m->rate_defs, sizeof *m->rate_defs, m->rates.cap ? 2 * m->rates.cap : 16) < 0)
        return -1;
    id = names_intern(m, &m->rates, name, &created);
    if (created)
        m->rate_defs[id] = (pepa_rate_def){ m->rates.name[id], NULL, { 0, 0 } };
    return id;
}

int pepa_model_proc_id(pepa_model *m, const char *name)
{
    int id = strmap_get(&m->procs.map, name);
    if (id >= 0)
        return id;
    int created;
    if (m->procs.n == m->procs.cap &&
        grow_defs((void **)&m->proc_defs, sizeof *m->proc_defs, m->procs.cap ? 2 * m->procs.cap : 16) < 0)
        return -1;
    id = names_intern(m, &m->procs, name, &created);
    if (created)
        m->proc_defs[id] = (pepa_proc_def){ m->procs.name[id], NULL, { 0, 0 } };
    return id;
}

int pepa_model_action_id(pepa_model *m, const char *name)
{
    int created;
    return names_intern(m, &m->actions, name, &created);
}

int pepa_model_find_rate(const pepa_model *m, const char *name) { return strmap_get(&m->rates.map, name); }
int pepa_model_find_proc(const pepa_model *m, const char *name) { return strmap_get(&m->procs.map, name); }
int pepa_model_find_action(const pepa_model *m, const char *name) { return strmap_get(&m->actions.map, name); }
int pepa_model_nrates(const pepa_model *m) { return m->rates.n; }
int pepa_model_nprocs(const pepa_model *m) { return m->procs.n; }
int pepa_model_nactions(const pepa_model *m) { return m->actions.n; }
pepa_rate_def *pepa_model_rate(pepa_model *m, int id) { return &m->rate_defs[id]; }
pepa_proc_def *pepa_model_proc(pepa_model *m, int id) { return &m->proc_defs[id]; }
const char *pepa_model_action(const pepa_model *m, int id) { return m->actions.name[id]; }

/* Grow by powers of two: an id array of length n has capacity >= n. */
static int append_order(int **order, int *n, int id)
{
    if ((*n & (*n - 1)) == 0) {
        if (mem_grow((void **)order, (size_t)(*n ? 2 * *n : 1), sizeof **order) < 0)
            return -1;
    }
    (*order)[(*n)++] = id;
    return 0;
}

int pepa_model_define_rate(pepa_model *m, const char *name, pepa_expr *e, pepa_pos pos, diag *err)
{
    int id = pepa_model_rate_id(m, name);
    if (id < 0)
        return diag_set(err, "out of memory");
    pepa_rate_def *d = &m->rate_defs[id];
    if (d->expr)
        return diag_at(err, m->file, pos.line, pos.col,
                       "rate '%s' is already defined at line %d", name, d->pos.line);
    if (append_order(&m->rate_order, &m->nrate_order, id) < 0)
        return diag_set(err, "out of memory");
    d->expr = e;
    d->pos = pos;
    return id;
}

int pepa_model_define_proc(pepa_model *m, const char *name, pepa_proc *p, pepa_pos pos, diag *err)
{
    int id = pepa_model_proc_id(m, name);
    if (id < 0)
        return diag_set(err, "out of memory");
    pepa_proc_def *d = &m->proc_defs[id];
    if (d->body)
        return diag_at(err, m->file, pos.line, pos.col,
                       "process '%s' is already defined at line %d", name, d->pos.line);
    if (append_order(&m->proc_order, &m->nproc_order, id) < 0)
        return diag_set(err, "out of memory");
    d->body = p;
    d->pos = pos;
    return id;
}

void pepa_model_set_system(pepa_model *m, pepa_proc *p) { m->system = p; }
pepa_proc *pepa_model_system(const pepa_model *m) { return m->system; }
void *pepa_model_alloc(pepa_model *m, size_t n) { return arena_alloc(&m->mem, n); }

/* ---- constructors ---------------------------------------------------- */

static pepa_expr *expr_new(pepa_model *m, pepa_expr_kind k)
{
    pepa_expr *e = arena_alloc(&m->mem, sizeof *e);
    if (e)
        e->kind = k;
    return e;
}

pepa_expr *pepa_num(pepa_model *m, double v)
{
    pepa_expr *e = expr_new(m, PEPA_E_NUM);
    if (e)
        e->num = v;
    return e;
}

pepa_expr *pepa_rate_ref(pepa_model *m, int rate_id)
{
    pepa_expr *e = expr_new(m, PEPA_E_RATE);
    if (e)
        e->id = rate_id;
    return e;
}

pepa_expr *pepa_infty(pepa_model *m) { return expr_new(m, PEPA_E_INFTY); }

pepa_expr *pepa_binop(pepa_model *m, pepa_expr_kind op, pepa_expr *a, pepa_expr *b)
{
    if (!a || !b)
        return NULL;
    pepa_expr *e = expr_new(m, op);
    if (e) {
        e->a = a;
        e->b = b;
    }
    return e;
}

pepa_expr *pepa_neg(pepa_model *m, pepa_expr *a)
{
    if (!a)
        return NULL;
    pepa_expr *e = expr_new(m, PEPA_E_NEG);
    if (e)
        e->a = a;
    return e;
}

static pepa_proc *proc_new(pepa_model *m, pepa_proc_kind k, pepa_proc *a, pepa_proc *b)
{
    pepa_proc *p = arena_alloc(&m->mem, sizeof *p);
    if (p) {
        p->kind = k;
        p->a = a;
        p->b = b;
    }
    return p;
}

static int set_actions(pepa_model *m, pepa_proc *p, const int *actions, int n)
{
    if (n <= 0)
        return 0;
    p->actions = arena_alloc(&m->mem, (size_t)n * sizeof *p->actions);
    if (!p->actions)
        return -1;
    memcpy(p->actions, actions, (size_t)n * sizeof *actions);
    p->nactions = n;
    return 0;
}

pepa_proc *pepa_const(pepa_model *m, int proc_id)
{
    pepa_proc *p = proc_new(m, PEPA_P_CONST, NULL, NULL);
    if (p)
        p->id = proc_id;
    return p;
}

pepa_proc *pepa_prefix(pepa_model *m, int action_id, pepa_expr *rate, pepa_proc *then)
{
    if (!rate || !then)
        return NULL;
    pepa_proc *p = proc_new(m, PEPA_P_PREFIX, then, NULL);
    if (p) {
        p->id = action_id;
        p->rate = rate;
    }
    return p;
}

pepa_proc *pepa_choice(pepa_model *m, pepa_proc *a, pepa_proc *b)
{
    return a && b ? proc_new(m, PEPA_P_CHOICE, a, b) : NULL;
}

pepa_proc *pepa_coop(pepa_model *m, pepa_proc *a, pepa_proc *b, const int *actions, int n)
{
    pepa_proc *p = a && b ? proc_new(m, PEPA_P_COOP, a, b) : NULL;
    return p && set_actions(m, p, actions, n) == 0 ? p : NULL;
}

pepa_proc *pepa_coop_all(pepa_model *m, pepa_proc *a, pepa_proc *b)
{
    pepa_proc *p = a && b ? proc_new(m, PEPA_P_COOP, a, b) : NULL;
    if (p)
        p->all = 1;
    return p;
}

pepa_proc *pepa_hide(pepa_model *m, pepa_proc *a, const int *actions, int n)
{
    pepa_proc *p = a ? proc_new(m, PEPA_P_HIDE, a, NULL) : NULL;
    return p && set_actions(m, p, actions, n) == 0 ? p : NULL;
}

pepa_proc *pepa_array(pepa_model *m, pepa_proc *a, long count, const int *actions, int n)
{
    pepa_proc *p = a ? proc_new(m, PEPA_P_ARRAY, a, NULL) : NULL;
    if (p)
        p->count = count;
    return p && set_actions(m, p, actions, n) == 0 ? p : NULL;
}

/* ---- rate evaluation ------------------------------------------------- */

static int eval(pepa_model *m, const pepa_expr *e, pepa_rate *out, int depth, diag *err)
{
    pepa_rate x, y;
    const char *f = m->file;
    if (depth > m->rates.n + 256)
        return diag_at(err, f, e->pos.line, e->pos.col, "rate definitions are circular");
    switch (e->kind) {
    case PEPA_E_NUM:
        *out = (pepa_rate){ e->num, 0 };
        break;
    case PEPA_E_INFTY:
        *out = (pepa_rate){ 0, 1 };
        break;
    case PEPA_E_RATE: {
        const pepa_rate_def *d = &m->rate_defs[e->id];
        if (!d->expr)
            return diag_at(err, f, e->pos.line, e->pos.col, "rate '%s' is not defined", d->name);
        if (eval(m, d->expr, out, depth + 1, err) < 0)
            return -1;
        break;
    }
    case PEPA_E_NEG:
        if (eval(m, e->a, &x, depth + 1, err) < 0)
            return -1;
        if (x.w != 0)
            return diag_at(err, f, e->pos.line, e->pos.col, "a passive rate cannot be negated");
        *out = (pepa_rate){ -x.r, 0 };
        break;
    default:
        if (eval(m, e->a, &x, depth + 1, err) < 0 || eval(m, e->b, &y, depth + 1, err) < 0)
            return -1;
        if (e->kind == PEPA_E_ADD || e->kind == PEPA_E_SUB) {
            double s = e->kind == PEPA_E_ADD ? 1 : -1;
            if ((x.w != 0) != (y.w != 0))
                return diag_at(err, f, e->pos.line, e->pos.col,
                               "cannot add or subtract an active and a passive rate");
            *out = (pepa_rate){ x.r + s * y.r, x.w + s * y.w };
        } else if (e->kind == PEPA_E_MUL) {
            if (x.w != 0 && y.w != 0)
                return diag_at(err, f, e->pos.line, e->pos.col, "cannot multiply two passive rates");
            if (x.w != 0)
                *out = (pepa_rate){ 0, x.w * y.r };
            else if (y.w != 0)
                *out = (pepa_rate){ 0, y.w * x.r };
            else
                *out = (pepa_rate){ x.r * y.r, 0 };
        } else {
            if (y.w != 0)
                return diag_at(err, f, e->pos.line, e->pos.col, "cannot divide by a passive rate");
            if (y.r == 0)
                return diag_at(err, f, e->pos.line, e->pos.col, "division by zero");
            *out = (pepa_rate){ x.r / y.r, x.w / y.r };
        }
    }
    if (!isfinite(out->r) || !isfinite(out->w))
        return diag_at(err, f, e->pos.line, e->pos.col, "rate expression is not a finite number");
    return 0;
}

int pepa_eval_rate(pepa_model *m, const pepa_expr *e, pepa_rate *out, diag *err)
{
    return eval(m, e, out, 0, err);
}

/* ---- printing -------------------------------------------------------- */

/* Names that are not plain identifiers (primes allowed at the end: P1'')
 * are printed in double quotes. */
static void print_name(const char *s, FILE *f)
{
    int plain = isalpha((unsigned char)s[0]) != 0;
    const char *c = s;
    for (; *c && plain && *c != '\''; c++)
        plain = isalnum((unsigned char)*c) || *c == '_';
    while (*c == '\'')
        c++;
    if (plain && !*c)
        fputs(s, f);
    else
        fprintf(f, "\"%s\"", s);
}

/* Shortest decimal that reads back as the same double. */
static void print_num(double v, FILE *f)
{
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* PEPA reads "1e-05" fine, but a bare integer is clearer as "1.0". */
    if (!strpbrk(buf, ".eEn"))
        strcat(buf, ".0");
    fputs(buf, f);
}

static int expr_prec(pepa_expr_kind k)
{
    switch (k) {
    case PEPA_E_ADD: case PEPA_E_SUB: return 1;
    case PEPA_E_MUL: case PEPA_E_DIV: return 2;
    case PEPA_E_NEG: return 3;
    default: return 4;
    }
}

static void print_expr(const pepa_model *m, const pepa_expr *e, int ctx, FILE *f)
{
    int prec = expr_prec(e->kind);
    if (prec < ctx)
        fputc('(', f);
    switch (e->kind) {
    case PEPA_E_NUM: print_num(e->num, f); break;
    case PEPA_E_RATE: print_name(m->rates.name[e->id], f); break;
    case PEPA_E_INFTY: fputs("infty", f); break;
    case PEPA_E_NEG: fputc('-', f); print_expr(m, e->a, 3, f); break;
    default: {
        static const char ops[] = { [PEPA_E_ADD] = '+', [PEPA_E_SUB] = '-',
                                    [PEPA_E_MUL] = '*', [PEPA_E_DIV] = '/' };
        print_expr(m, e->a, prec, f);
        fprintf(f, " %c ", ops[e->kind]);
        print_expr(m, e->b, prec + 1, f);   /* left-associative */
    }
    }
    if (prec < ctx)
        fputc(')', f);
}

void pepa_expr_print(const pepa_model *m, const pepa_expr *e, FILE *f)
{
    print_expr(m, e, 0, f);
}

static void print_actions(const pepa_model *m, const int *a, int n, FILE *f)
{
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        print_name(m->actions.name[a[i]], f);
    }
}

/* Precedence, loosest first: choice, cooperation, prefix, hiding/array/atom. */
static int proc_prec(pepa_proc_kind k)
{
    switch (k) {
    case PEPA_P_CHOICE: return 1;
    case PEPA_P_COOP: return 2;
    case PEPA_P_PREFIX: return 3;
    default: return 4;
    }
}

static void print_proc(const pepa_model *m, const pepa_proc *p, int ctx, FILE *f)
{
    int prec = proc_prec(p->kind);
    if (prec < ctx)
        fputc('(', f);
    switch (p->kind) {
    case PEPA_P_CONST:
        print_name(m->procs.name[p->id], f);
        break;
    case PEPA_P_PREFIX:
        fputc('(', f);
        print_name(m->actions.name[p->id], f);
        fputs(", ", f);
        print_expr(m, p->rate, 0, f);
        fputs(").", f);
        print_proc(m, p->a, 3, f);
        break;
    case PEPA_P_CHOICE:
        print_proc(m, p->a, 1, f);
        fputs(" + ", f);
        print_proc(m, p->b, 1, f);
        break;
    case PEPA_P_COOP:
        print_proc(m, p->a, 2, f);   /* left-associative */
        if (p->all)
            fputs(" <*> ", f);
        else if (p->nactions == 0)
            fputs(" <> ", f);
        else {
            fputs(" <", f);
            print_actions(m, p->actions, p->nactions, f);
            fputs("> ", f);
        }
        print_proc(m, p->b, 3, f);
        break;
    case PEPA_P_HIDE:
        print_proc(m, p->a, 4, f);
        fputs("/<", f);
        print_actions(m, p->actions, p->nactions, f);
        fputc('>', f);
        break;
    case PEPA_P_ARRAY:
        print_proc(m, p->a, 4, f);
        fprintf(f, "[%ld]", p->count);
        if (p->nactions) {
            fputc('[', f);
            print_actions(m, p->actions, p->nactions, f);
            fputc(']', f);
        }
        break;
    }
    if (prec < ctx)
        fputc(')', f);
}

void pepa_proc_print(const pepa_model *m, const pepa_proc *p, FILE *f)
{
    print_proc(m, p, 0, f);
}

void pepa_model_print(pepa_model *m, FILE *f)
{
    for (int k = 0; k < m->nrate_order; k++) {
        int i = m->rate_order[k];
        print_name(m->rates.name[i], f);
        fputs(" = ", f);
        print_expr(m, m->rate_defs[i].expr, 0, f);
        fputs(";\n", f);
    }
    if (m->nrate_order)
        fputc('\n', f);
    for (int k = 0; k < m->nproc_order; k++) {
        int i = m->proc_order[k];
        print_name(m->procs.name[i], f);
        fputs(" = ", f);
        print_proc(m, m->proc_defs[i].body, 0, f);
        fputs(";\n", f);
    }
    if (m->system) {
        fputc('\n', f);
        print_proc(m, m->system, 0, f);
        fputc('\n', f);
    }
}
