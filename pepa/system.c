/* pepa_system: compile a PEPA model into automata and a cooperation tree.
 * See system.h. */
#define _POSIX_C_SOURCE 200809L
#include "system.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"
#include "../base/mem.h"
#include "../base/strmap.h"

#define MAX_EXPLICIT_COPIES 64      /* P[n][L] and arrays of composites */

/* Compilation state, freed when compilation ends. */
typedef struct compiler {
    pepa_model *m;
    pepa_system *s;
    diag *err;
    arena mem;                      /* keys of local states */
    strmap seq_by_init;             /* key of initial term -> automaton */
    int cap_seqs, cap_nodes;
    int *expanding;                 /* process ids being expanded (cycle check) */
    unsigned char *unfolding;       /* process ids being unfolded into moves */
} compiler;

static int oom(compiler *c)
{
    return diag_set(c->err, "out of memory");
}

static int at(compiler *c, pepa_pos pos, const char *fmt, const char *name)
    __attribute__((format(printf, 3, 0)));
static int at(compiler *c, pepa_pos pos, const char *fmt, const char *name)
{
    return diag_at(c->err, pepa_model_file(c->m), pos.line, pos.col, fmt, name);
}

/* ---- names of local states ------------------------------------------- */

/* The key of a term: a constant's name, or the printed term. Malloc'd. */
static char *term_key(const pepa_model *m, const pepa_proc *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    pepa_proc_print(m, p, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Follow constants to the term that defines behaviour; NULL (with a
 * message) for an undefined name or a definition cycle without prefix. */
static const pepa_proc *resolve(compiler *c, const pepa_proc *p)
{
    int steps = 0;
    while (p->kind == PEPA_P_CONST) {
        pepa_proc_def *d = pepa_model_proc(c->m, p->id);
        if (!d->body) {
            at(c, p->pos, "process '%s' is not defined", d->name);
            return NULL;
        }
        if (++steps > pepa_model_nprocs(c->m)) {
            at(c, d->pos, "definition of '%s' is circular (no activity guards the recursion)", d->name);
            return NULL;
        }
        p = d->body;
    }
    return p;
}

static int is_sequential(const pepa_proc *p)
{
    return p->kind == PEPA_P_PREFIX || p->kind == PEPA_P_CHOICE;
}

/* ---- automata -------------------------------------------------------- */

typedef struct seq_builder {
    pepa_seq *q;
    strmap index;                   /* key -> local state */
    const pepa_proc **term;         /* term of each local state */
    int cap_states, cap_moves, nmoves;
} seq_builder;

static int local_state(compiler *c, seq_builder *b, const pepa_proc *p)
{
    char *key = term_key(c->m, p);
    if (!key)
        return oom(c);
    int k = strmap_get(&b->index, key);
    if (k >= 0) {
        free(key);
        return k;
    }
    pepa_seq *q = b->q;
    if (q->nstates == b->cap_states) {
        int cap = b->cap_states ? 2 * b->cap_states : 8;
        if (mem_grow((void **)&q->state_name, (size_t)cap, sizeof *q->state_name) < 0 ||
            mem_grow((void **)&b->term, (size_t)cap, sizeof *b->term) < 0) {
            free(key);
            return oom(c);
        }
        b->cap_states = cap;
    }
    k = q->nstates;
    q->state_name[k] = key;
    b->term[k] = p;
    q->nstates++;
    if (strmap_put(&b->index, key, k) < 0)
        return oom(c);
    return k;
}

/* Append the moves of term p: constants unfolded, choices flattened in
 * textual order. A constant met again while it is being unfolded is
 * unguarded recursion (P = P + ...). Choice spines are walked with an
 * explicit stack: generated models have choices of thousands of
 * alternatives, and this code may run on a small thread stack. */
static int add_moves(compiler *c, seq_builder *b, const pepa_proc *p)
{
    if (p->kind == PEPA_P_CONST) {
        const pepa_proc_def *d = pepa_model_proc(c->m, p->id);
        if (!d->body)
            return at(c, p->pos, "process '%s' is not defined", d->name);
        if (c->unfolding[p->id])
            return at(c, d->pos, "'%s' reaches itself through choices without an activity first "
                      "(unguarded recursion)", d->name);
        c->unfolding[p->id] = 1;
        int rc = add_moves(c, b, d->body);
        c->unfolding[p->id] = 0;
        return rc;
    }
    if (p->kind == PEPA_P_CHOICE) {
        size_t n = 0, cap = 16;
        const pepa_proc **right = malloc(cap * sizeof *right), *q = p;
        if (!right)
            return oom(c);
        for (; q->kind == PEPA_P_CHOICE; q = q->a) {
            if (n == cap) {
                if (mem_grow((void **)&right, 2 * cap, sizeof *right) < 0) {
                    free(right);
                    return oom(c);
                }
                cap *= 2;
            }
            right[n++] = q->b;
        }
        int rc = add_moves(c, b, q);                 /* the leftmost alternative */
        while (rc == 0 && n > 0)
            rc = add_moves(c, b, right[--n]);
        free(right);
        return rc;
    }
    if (p->kind != PEPA_P_PREFIX)
        return at(c, p->pos, "%s", "a sequential component cannot evolve into a cooperation, hiding or array "
                  "(PEPA allows these only in the system equation and in definitions used there)");
    int target = local_state(c, b, p->a);
    if (target < 0)
        return -1;
    if (b->nmoves == b->cap_moves) {
        int cap = b->cap_moves ? 2 * b->cap_moves : 16;
        if (mem_grow((void **)&b->q->moves, (size_t)cap, sizeof *b->q->moves) < 0)
            return oom(c);
        b->cap_moves = cap;
    }
    b->q->moves[b->nmoves++] = (pepa_move){ .action = p->id, .target = target,
                                             .expr = p->rate, .pos = p->pos };
    return 0;
}

/* Build (or reuse) the automaton whose first local state is term p.
 * Returns the automaton index. */
static int automaton(compiler *c, const pepa_proc *p)
{
    char *key = term_key(c->m, p);
    if (!key)
        return oom(c);
    int id = strmap_get(&c->seq_by_init, key);
    if (id >= 0) {
        free(key);
        return id;
    }
    char *akey = arena_strdup(&c->mem, key);
    free(key);
    if (!akey)
        return oom(c);
    pepa_system *s = c->s;
    if (s->nseqs == c->cap_seqs) {
        int cap = c->cap_seqs ? 2 * c->cap_seqs : 8;
        if (mem_grow((void **)&s->seqs, (size_t)cap, sizeof *s->seqs) < 0)
            return oom(c);
        c->cap_seqs = cap;
    }
    id = s->nseqs++;
    pepa_seq *q = &s->seqs[id];
    memset(q, 0, sizeof *q);
    seq_builder b = { .q = q };
    strmap_init(&b.index);
    int rc = local_state(c, &b, p);
    int *first = NULL;
    for (int k = 0; rc >= 0 && k < q->nstates; k++) {
        if (mem_grow((void **)&first, (size_t)k + 2, sizeof *first) < 0) {
            rc = oom(c);
            break;
        }
        first[k] = b.nmoves;
        rc = add_moves(c, &b, b.term[k]);
        first[k + 1] = b.nmoves;
    }
    q->first = first;
    strmap_free(&b.index);
    free(b.term);
    if (rc < 0)
        return -1;
    if (strmap_put(&c->seq_by_init, akey, id) < 0)
        return oom(c);
    return id;
}

/* Evaluate the rates of every move of every automaton. */
static int eval_rates(pepa_system *s, diag *err)
{
    pepa_model *m = s->model;
    for (int i = 0; i < s->nseqs; i++) {
        pepa_seq *q = &s->seqs[i];
        for (int j = 0; j < q->first[q->nstates]; j++) {
            pepa_move *mv = &q->moves[j];
            pepa_rate r;
            if (pepa_eval_rate(m, mv->expr, &r, err) < 0)
                return -1;
            int passive = r.w != 0;
            double v = passive ? r.w : r.r;
            if (!(v > 0))
                return diag_at(err, pepa_model_file(m), mv->pos.line, mv->pos.col,
                               "the rate of activity '%s' is %g; rates must be positive",
                               pepa_model_action(m, mv->action), passive ? r.w : r.r);
            mv->passive = passive;
            mv->rate = v;
        }
        /* Within one local state an action must be all active or all
         * passive: its apparent rate is otherwise undefined. */
        for (int k = 0; k < q->nstates; k++)
            for (int a = q->first[k]; a < q->first[k + 1]; a++)
                for (int b = a + 1; b < q->first[k + 1]; b++)
                    if (q->moves[a].action == q->moves[b].action &&
                        q->moves[a].passive != q->moves[b].passive)
                        return diag_at(err, pepa_model_file(m), q->moves[b].pos.line, q->moves[b].pos.col,
                                       "action '%s' is offered both actively and passively by %s",
                                       pepa_model_action(m, q->moves[a].action), q->state_name[k]);
    }
    return 0;
}

int pepa_system_rerate(pepa_system *s, diag *err)
{
    /* Activities may not switch between active and passive: the chain's
     * structure (which synchronisations exist) depends on it. */
    unsigned char *was = NULL;
    size_t total = 0;
    for (int i = 0; i < s->nseqs; i++)
        total += (size_t)s->seqs[i].first[s->seqs[i].nstates];
    was = malloc(total + 1);
    if (!was)
        return diag_set(err, "out of memory");
    size_t n = 0;
    for (int i = 0; i < s->nseqs; i++)
        for (int j = 0; j < s->seqs[i].first[s->seqs[i].nstates]; j++)
            was[n++] = (unsigned char)s->seqs[i].moves[j].passive;
    int rc = eval_rates(s, err);
    s->rates_version++;
    n = 0;
    for (int i = 0; rc == 0 && i < s->nseqs; i++)
        for (int j = 0; rc == 0 && j < s->seqs[i].first[s->seqs[i].nstates]; j++, n++)
            if (was[n] != s->seqs[i].moves[j].passive)
                rc = diag_at(err, pepa_model_file(s->model), s->seqs[i].moves[j].pos.line,
                             s->seqs[i].moves[j].pos.col,
                             "re-rating changed activity '%s' between active and passive",
                             pepa_model_action(s->model, s->seqs[i].moves[j].action));
    free(was);
    return rc;
}

/* ---- the cooperation tree -------------------------------------------- */

static int new_node(compiler *c, pepa_node_kind k, pepa_pos pos)
{
    pepa_system *s = c->s;
    if (s->nnodes == c->cap_nodes) {
        int cap = c->cap_nodes ? 2 * c->cap_nodes : 16;
        if (mem_grow((void **)&s->nodes, (size_t)cap, sizeof *s->nodes) < 0)
            return oom(c);
        c->cap_nodes = cap;
    }
    pepa_node *n = &s->nodes[s->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = k;
    n->pos = pos;
    n->left = n->right = -1;
    return s->nnodes++;
}

static int action_set(compiler *c, int node, const int *actions, int n)
{
    unsigned char *set = calloc((size_t)pepa_model_nactions(c->m), 1);
    if (!set)
        return oom(c);
    for (int i = 0; i < n; i++)
        set[actions[i]] = 1;
    c->s->nodes[node].set = set;
    return 0;
}

static int expand(compiler *c, const pepa_proc *p, int depth);

static int leaf(compiler *c, const pepa_proc *p, pepa_node_kind kind, long count)
{
    int seq = automaton(c, p);
    if (seq < 0)
        return -1;
    int n = new_node(c, kind, p->pos);
    if (n < 0)
        return -1;
    pepa_node *nd = &c->s->nodes[n];
    nd->seq = seq;
    nd->count = count;
    /* the automaton may be shared: find this leaf's initial local state */
    char *key = term_key(c->m, p);
    if (!key)
        return oom(c);
    const pepa_seq *q = &c->s->seqs[seq];
    nd->init = -1;
    for (int k = 0; k < q->nstates && nd->init < 0; k++)
        if (strcmp(q->state_name[k], key) == 0)
            nd->init = k;
    free(key);
    return n;
}

/* n copies of p cooperating over actions, as explicit nodes (no lumping). */
static int explicit_copies(compiler *c, const pepa_proc *arr, int depth)
{
    if (arr->count > MAX_EXPLICIT_COPIES)
        return at(c, arr->pos, "%s", "arrays of composite processes or with a cooperation set are expanded "
                  "copy by copy, at most 64 copies");
    int acc = expand(c, arr->a, depth + 1);
    for (long i = 1; acc >= 0 && i < arr->count; i++) {
        int r = expand(c, arr->a, depth + 1);
        if (r < 0)
            return -1;
        int n = new_node(c, PEPA_N_COOP, arr->pos);
        if (n < 0 || action_set(c, n, arr->actions, arr->nactions) < 0)
            return -1;
        c->s->nodes[n].left = acc;
        c->s->nodes[n].right = r;
        acc = n;
    }
    return acc;
}

static int expand(compiler *c, const pepa_proc *p, int depth)
{
    if (depth > 10000)
        return at(c, p->pos, "%s", "the system equation is nested too deeply");
    if (p->kind == PEPA_P_CONST) {
        const pepa_proc *body = resolve(c, p);
        if (!body)
            return -1;
        if (is_sequential(body))
            return leaf(c, p, PEPA_N_LEAF, 1);
        if (c->expanding[p->id])
            return at(c, p->pos, "process '%s' contains itself in a cooperation (infinite system)",
                      pepa_model_proc(c->m, p->id)->name);
        c->expanding[p->id] = 1;
        int n = expand(c, body, depth + 1);
        c->expanding[p->id] = 0;
        return n;
    }
    if (is_sequential(p))
        return leaf(c, p, PEPA_N_LEAF, 1);
    if (p->kind == PEPA_P_ARRAY) {
        const pepa_proc *body = resolve(c, p->a);
        if (!body)
            return -1;
        if (p->nactions == 0 && is_sequential(body))
            return leaf(c, p->a, PEPA_N_ARRAY, p->count);
        return explicit_copies(c, p, depth);
    }
    int l = expand(c, p->a, depth + 1);
    if (l < 0)
        return -1;
    int r = -1;
    if (p->kind == PEPA_P_COOP && (r = expand(c, p->b, depth + 1)) < 0)
        return -1;
    int n = new_node(c, p->kind == PEPA_P_COOP ? PEPA_N_COOP : PEPA_N_HIDE, p->pos);
    if (n < 0 || action_set(c, n, p->actions, p->nactions) < 0)
        return -1;
    c->s->nodes[n].left = l;
    c->s->nodes[n].right = r;
    c->s->nodes[n].count = p->all;        /* resolved into a set below */
    return n;
}

void pepa_system_alphabet(const pepa_system *s, int n, unsigned char *set)
{
    const pepa_node *nd = &s->nodes[n];
    if (nd->kind == PEPA_N_LEAF || nd->kind == PEPA_N_ARRAY) {
        const pepa_seq *q = &s->seqs[nd->seq];
        for (int j = 0; j < q->first[q->nstates]; j++)
            set[q->moves[j].action] = 1;
        return;
    }
    pepa_system_alphabet(s, nd->left, set);
    if (nd->kind == PEPA_N_COOP) {
        pepa_system_alphabet(s, nd->right, set);
    } else {
        for (int a = 1; a < s->nactions; a++)
            if (nd->set[a] && set[a]) {
                set[a] = 0;
                set[0] = 1;
            }
    }
}

/* Resolve <*> into the actions shared by both sides. tau never synchronises. */
static int resolve_coop_all(compiler *c)
{
    pepa_system *s = c->s;
    size_t na = (size_t)s->nactions;
    for (int n = 0; n < s->nnodes; n++) {
        pepa_node *nd = &s->nodes[n];
        if (nd->kind != PEPA_N_COOP && nd->kind != PEPA_N_HIDE)
            continue;
        if (nd->kind == PEPA_N_COOP && nd->count) {
            unsigned char *l = calloc(na, 1), *r = calloc(na, 1);
            if (!l || !r) {
                free(l);
                free(r);
                return oom(c);
            }
            pepa_system_alphabet(s, nd->left, l);
            pepa_system_alphabet(s, nd->right, r);
            for (size_t a = 1; a < na; a++)
                nd->set[a] = l[a] && r[a];
            free(l);
            free(r);
            nd->count = 0;
        }
        nd->set[0] = 0;
    }
    return 0;
}

static int bits_for(unsigned long v)
{
    int b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Place a field of `width` bits at the cursor (word, shift). */
static int place(compiler *c, pepa_field *f, int width, int *word, int *shift)
{
    if (width == 0) {
        /* one local state: nothing to store, but the field must not sit at
         * shift 64 (a full word before it), where shifting is undefined */
        f->word = f->shift = f->width = 0;
        return 0;
    }
    if (*shift + width > 64) {
        (*word)++;
        *shift = 0;
    }
    if (*word >= PEPA_MAX_WORDS)
        return diag_set(c->err, "the state vector needs more than %d bits (too many components)",
                        PEPA_MAX_WORDS * 64);
    f->word = *word;
    f->shift = *shift;
    f->width = width;
    *shift += width;
    return 0;
}

static void set_field(uint64_t *st, pepa_field f, uint64_t v)
{
    st[f.word] |= v << f.shift;
}

/* Collect leaves left to right and lay out the state vector. */
static int layout(compiler *c, int n, int *word, int *shift)
{
    pepa_system *s = c->s;
    pepa_node *nd = &s->nodes[n];
    if (nd->kind == PEPA_N_COOP || nd->kind == PEPA_N_HIDE) {
        if (layout(c, nd->left, word, shift) < 0)
            return -1;
        return nd->kind == PEPA_N_COOP ? layout(c, nd->right, word, shift) : 0;
    }
    s->leaves[s->nleaves++] = n;
    const pepa_seq *q = &s->seqs[nd->seq];
    if (nd->kind == PEPA_N_LEAF) {
        if (place(c, &nd->field, bits_for((unsigned long)q->nstates - 1), word, shift) < 0)
            return -1;
        set_field(s->init, nd->field, (uint64_t)nd->init);
        return 0;
    }
    nd->fields = calloc((size_t)q->nstates, sizeof *nd->fields);
    if (!nd->fields)
        return oom(c);
    for (int k = 0; k < q->nstates; k++)
        if (place(c, &nd->fields[k], bits_for((unsigned long)nd->count), word, shift) < 0)
            return -1;
    set_field(s->init, nd->fields[nd->init], (uint64_t)nd->count);
    return 0;
}

/* Names for reports: the initial term, numbered when repeated. */
static int name_leaves(compiler *c)
{
    pepa_system *s = c->s;
    for (int i = 0; i < s->nleaves; i++) {
        pepa_node *nd = &s->nodes[s->leaves[i]];
        const char *base = s->seqs[nd->seq].state_name[nd->init];
        int same = 0, before = 0;
        for (int j = 0; j < s->nleaves; j++) {
            const pepa_node *o = &s->nodes[s->leaves[j]];
            if (o->seq == nd->seq && o->init == nd->init && o->kind == nd->kind) {
                same++;
                before += j < i;
            }
        }
        size_t len = strlen(base) + 48;
        nd->name = malloc(len);
        if (!nd->name)
            return oom(c);
        if (nd->kind == PEPA_N_ARRAY)
            snprintf(nd->name, len, "%s[%ld]", base, nd->count);
        else
            snprintf(nd->name, len, "%s", base);
        if (same > 1)
            snprintf(nd->name + strlen(nd->name), len - strlen(nd->name), "#%d", before + 1);
    }
    return 0;
}

pepa_system *pepa_system_new(pepa_model *m, diag *err)
{
    if (!pepa_model_system(m)) {
        diag_set(err, "%s: the model has no system equation", pepa_model_file(m));
        return NULL;
    }
    pepa_system *s = calloc(1, sizeof *s);
    compiler c = { .m = m, .s = s, .err = err };
    arena_init(&c.mem);
    strmap_init(&c.seq_by_init);
    if (!s) {
        diag_set(err, "out of memory");
        return NULL;
    }
    s->model = m;
    s->nactions = pepa_model_nactions(m);
    c.expanding = calloc((size_t)pepa_model_nprocs(m) + 1, sizeof *c.expanding);
    c.unfolding = calloc((size_t)pepa_model_nprocs(m) + 1, 1);
    int ok = (c.expanding && c.unfolding) || (oom(&c), 0);
    if (ok)
        ok = (s->root = expand(&c, pepa_model_system(m), 0)) >= 0;
    if (ok)
        ok = resolve_coop_all(&c) == 0 && eval_rates(s, err) == 0;
    if (ok) {
        s->leaves = malloc((size_t)s->nnodes * sizeof *s->leaves);
        int word = 0, shift = 0;
        ok = (s->leaves || (oom(&c), 0)) && layout(&c, s->root, &word, &shift) == 0 &&
             name_leaves(&c) == 0;
        s->nwords = word + 1;
    }
    free(c.expanding);
    free(c.unfolding);
    strmap_free(&c.seq_by_init);
    arena_free(&c.mem);
    if (!ok) {
        pepa_system_free(s);
        return NULL;
    }
    return s;
}

void pepa_system_free(pepa_system *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nnodes; i++) {
        free(s->nodes[i].set);
        free(s->nodes[i].fields);
        free(s->nodes[i].name);
    }
    for (int i = 0; i < s->nseqs; i++) {
        for (int k = 0; k < s->seqs[i].nstates; k++)
            free(s->seqs[i].state_name[k]);
        free(s->seqs[i].state_name);
        free(s->seqs[i].first);
        free(s->seqs[i].moves);
    }
    free(s->seqs);
    free(s->nodes);
    free(s->leaves);
    free(s);
}

void pepa_state_print(const pepa_system *s, const uint64_t *st, FILE *f)
{
    fputc('(', f);
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        const pepa_seq *q = &s->seqs[nd->seq];
        if (i)
            fputs(", ", f);
        if (nd->kind == PEPA_N_LEAF) {
            fputs(q->state_name[pepa_field_get(st, nd->field)], f);
            continue;
        }
        fprintf(f, "%s{", nd->name);
        int first = 1;
        for (int k = 0; k < q->nstates; k++) {
            unsigned v = pepa_field_get(st, nd->fields[k]);
            if (v) {
                fprintf(f, "%s%s:%u", first ? "" : ", ", q->state_name[k], v);
                first = 0;
            }
        }
        fputc('}', f);
    }
    fputc(')', f);
}

/* log C(n + k - 1, k - 1): the ways n copies fill k local states. */
static double log_multisets(long n, int k)
{
    return lgamma((double)n + k) - lgamma((double)n + 1) - lgamma((double)k);
}

double pepa_system_state_bound(const pepa_system *s)
{
    double lg = 0;
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *n = &s->nodes[s->leaves[i]];
        int k = s->seqs[n->seq].nstates;
        lg += n->kind == PEPA_N_ARRAY ? log_multisets(n->count, k) : log((double)k);
    }
    return exp(lg);
}
