/* skeleton/tree.c: the skeleton hierarchy tree (Yaikhom et al. 2007 §3, Fig. 2) -
 * construction, checking, depth-first task numbering and printing. */
#include "skeleton.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"

struct skel_tree {
    arena mem;                 /* nodes, child arrays, names */
    const char *file;
    skel_node *root;
    int ntasks;
    skel_node **tasks;         /* by index, after finish */
};

skel_tree *skel_tree_new(const char *file)
{
    skel_tree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    arena_init(&t->mem);
    t->file = arena_strdup(&t->mem, file ? file : "<input>");
    if (!t->file) {
        free(t);
        return NULL;
    }
    return t;
}

void skel_tree_free(skel_tree *t)
{
    if (!t)
        return;
    arena_free(&t->mem);
    free(t);
}

const char *skel_tree_file(const skel_tree *t) { return t->file; }
skel_node *skel_tree_root(const skel_tree *t) { return t->root; }
int skel_tree_ntasks(const skel_tree *t) { return t->ntasks; }

skel_node *skel_tree_task(const skel_tree *t, int index)
{
    return index >= 0 && index < t->ntasks ? t->tasks[index] : NULL;
}

skel_node *skel_node_new(skel_tree *t, skel_kind kind, int line, int col, diag *err)
{
    skel_node *n = arena_alloc(&t->mem, sizeof *n);
    if (!n) {
        diag_set(err, "out of memory");
        return NULL;
    }
    n->kind = kind;
    n->line = line;
    n->col = col;
    n->index = -1;
    return n;
}

skel_node *skel_task_new(skel_tree *t, const char *name, double rate, int line, int col,
                         diag *err)
{
    if (strlen(name) > SKEL_MAX_NAME) {
        diag_at(err, t->file, line, col, "task name longer than %d characters", SKEL_MAX_NAME);
        return NULL;
    }
    skel_node *n = skel_node_new(t, SKEL_TASK, line, col, err);
    if (!n)
        return NULL;
    n->name = arena_strdup(&t->mem, name);
    if (!n->name) {
        diag_set(err, "out of memory");
        return NULL;
    }
    n->rate = rate;
    return n;
}

int skel_node_add(skel_tree *t, skel_node *parent, skel_node *child, diag *err)
{
    if (parent->kind == SKEL_TASK)
        return diag_at(err, t->file, parent->line, parent->col, "a task has no components");
    if (child->parent || child == parent)
        return diag_set(err, "skeleton node added twice");
    if (parent->nchildren >= SKEL_MAX_CHILDREN)
        return diag_at(err, t->file, child->line, child->col,
                       "more than %d components in one skeleton", SKEL_MAX_CHILDREN);
    /* Child arrays grow by doubling inside the arena; the old array is
     * left there, at most doubling the memory a tree uses. */
    int n = parent->nchildren;
    if ((n & (n - 1)) == 0) {
        int cap = n ? 2 * n : 1;
        skel_node **c = arena_alloc(&t->mem, (size_t)cap * sizeof *c);
        if (!c)
            return diag_set(err, "out of memory");
        if (n)
            memcpy(c, parent->children, (size_t)n * sizeof *c);
        parent->children = c;
    }
    parent->children[n] = child;
    parent->nchildren = n + 1;
    child->parent = parent;
    return 0;
}

static const char *kind_word(const skel_node *n)
{
    switch (n->kind) {
    case SKEL_TASK: return "task";
    case SKEL_PIPE: return "pipe";
    case SKEL_DEAL: return n->sugar ? "deal" : "xdeal";
    case SKEL_FARM: return n->sugar ? "farm" : "xfarm";
    case SKEL_PAR: return "par";
    case SKEL_CHOICE: return "choice";
    case SKEL_LOOP: return "loop";
    }
    return "?";
}

static int check_loop(skel_tree *t, skel_node *n, diag *err)
{
    if (n->nchildren != 1)
        return diag_at(err, t->file, n->line, n->col,
                       "a loop has exactly one component (its body), not %d", n->nchildren);
    if (!(n->mean >= 1) || !isfinite(n->mean))
        return diag_at(err, t->file, n->line, n->col,
                       "the mean number of iterations of a loop must be at least 1 and finite "
                       "(got %g)", n->mean);
    if (n->cap < 0 || n->cap > SKEL_MAX_LOOP_CAP)
        return diag_at(err, t->file, n->line, n->col,
                       "cap= of a loop must be between 1 and %d (got %d)", SKEL_MAX_LOOP_CAP,
                       n->cap);
    return 0;
}

/* Branch weights: positive and finite, scaled to sum to 1. */
static int check_choice(skel_tree *t, skel_node *n, diag *err)
{
    double sum = 0;
    for (int i = 0; i < n->nchildren; i++) {
        const skel_node *c = n->children[i];
        if (!(c->prob > 0) || !isfinite(c->prob))
            return diag_at(err, t->file, n->line, n->col,
                           "the weight of branch %d of this choice must be positive and "
                           "finite (got %g)", i + 1, c->prob);
        sum += c->prob;
    }
    if (!isfinite(sum))
        return diag_at(err, t->file, n->line, n->col, "the weights of this choice overflow");
    for (int i = 0; i < n->nchildren; i++)
        n->children[i]->prob /= sum;
    return 0;
}

/* First pass: check and count, bounded by depth so that a hand-built tree
 * of any shape cannot overflow the stack. */
static int check(skel_tree *t, skel_node *n, int depth, diag *err)
{
    if (depth > SKEL_MAX_DEPTH)
        return diag_at(err, t->file, n->line, n->col,
                       "skeletons nested deeper than %d levels", SKEL_MAX_DEPTH);
    if (n->kind == SKEL_TASK) {
        if (!(n->rate > 0) || !isfinite(n->rate))
            return diag_at(err, t->file, n->line, n->col,
                           "the rate of a task must be positive and finite (got %g)", n->rate);
        if (!(n->data >= 0) || !isfinite(n->data))
            return diag_at(err, t->file, n->line, n->col,
                           "data size must be non-negative and finite (got %g)", n->data);
        if (n->scv != 0 && (!(n->scv >= SKEL_MIN_SCV) || !(n->scv <= SKEL_MAX_SCV)))
            return diag_at(err, t->file, n->line, n->col,
                           "scv= must be between %g and %g (got %g)", SKEL_MIN_SCV,
                           SKEL_MAX_SCV, n->scv);
        if (t->ntasks >= SKEL_MAX_TASKS)
            return diag_at(err, t->file, n->line, n->col, "more than %d tasks", SKEL_MAX_TASKS);
        n->index = t->ntasks++;
        n->lo = n->index;
        n->hi = n->index + 1;
        return 0;
    }
    if (n->nchildren == 0)
        return diag_at(err, t->file, n->line, n->col, "%s has no components", kind_word(n));
    if (n->declared && n->declared != n->nchildren)
        return diag_at(err, t->file, n->line, n->col, "%s(%d) has %d components",
                       kind_word(n), n->declared, n->nchildren);
    if (n->kind == SKEL_LOOP && check_loop(t, n, err) < 0)
        return -1;
    if (n->kind == SKEL_CHOICE && check_choice(t, n, err) < 0)
        return -1;
    n->lo = t->ntasks;
    for (int i = 0; i < n->nchildren; i++)
        if (check(t, n->children[i], depth + 1, err) < 0)
            return -1;
    n->hi = t->ntasks;
    return 0;
}

static void collect(skel_tree *t, skel_node *n)
{
    if (n->kind == SKEL_TASK) {
        t->tasks[n->index] = n;
        return;
    }
    for (int i = 0; i < n->nchildren; i++)
        collect(t, n->children[i]);
}

int skel_tree_finish(skel_tree *t, skel_node *root, diag *err)
{
    if (!root)
        return diag_at(err, t->file, 1, 1, "empty skeleton description");
    if (root->parent)
        return diag_set(err, "the root of a skeleton tree has a parent");
    t->root = root;
    t->ntasks = 0;
    if (check(t, root, 1, err) < 0)
        return -1;
    t->tasks = arena_alloc(&t->mem, (size_t)t->ntasks * sizeof *t->tasks);
    if (!t->tasks)
        return diag_set(err, "out of memory");
    collect(t, root);
    return 0;
}

int skel_node_one_stage(const skel_node *n)
{
    if (n->kind == SKEL_TASK)
        return 1;
    if (n->kind != SKEL_DEAL && n->kind != SKEL_FARM && n->kind != SKEL_LOOP)
        return 0;
    for (int c = 0; c < n->nchildren; c++)
        if (!skel_node_one_stage(n->children[c]))
            return 0;
    return 1;
}

/* ---- printing --------------------------------------------------------- */

static void print_string(const char *s, FILE *f)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_task_args(const skel_node *task, FILE *f)
{
    print_string(task->name, f);
    fprintf(f, ", %.17g", task->rate);
    if (task->data > 0)
        fprintf(f, ", data=%.17g", task->data);
    if (task->scv > 0)
        fprintf(f, ", scv=%.17g", task->scv);
}

/* deal(n, ...) sugar is printed only when every child is the same task. */
static int uniform(const skel_node *n)
{
    const skel_node *a = n->children[0];
    if (a->kind != SKEL_TASK)
        return 0;
    for (int i = 1; i < n->nchildren; i++) {
        const skel_node *b = n->children[i];
        if (b->kind != SKEL_TASK || strcmp(a->name, b->name) || a->rate != b->rate ||
            a->data != b->data || a->scv != b->scv)
            return 0;
    }
    return 1;
}

static void print_node(const skel_node *n, int depth, FILE *f)
{
    for (int i = 0; i < depth; i++)
        fputc('\t', f);
    switch (n->kind) {
    case SKEL_TASK:
        fputs("task(", f);
        print_task_args(n, f);
        fputs(");\n", f);
        return;
    case SKEL_PIPE:
        fprintf(f, "pipe(%d);\n", n->nchildren);
        break;
    case SKEL_DEAL:
    case SKEL_FARM: {
        const char *w = n->kind == SKEL_DEAL ? "deal" : "farm";
        if (uniform(n)) {
            fprintf(f, "%s(%d, ", w, n->nchildren);
            print_task_args(n->children[0], f);
            fputs(");\n", f);
            return;
        }
        fprintf(f, "x%s(%d);\n", w, n->nchildren);
        break;
    }
    case SKEL_PAR:
        fprintf(f, "par(%d);\n", n->nchildren);
        break;
    case SKEL_CHOICE:
        fputs("choice(", f);
        for (int i = 0; i < n->nchildren; i++)
            fprintf(f, "%s%.17g", i ? ", " : "", n->children[i]->prob);
        fputs(");\n", f);
        break;
    case SKEL_LOOP:
        fprintf(f, "loop(%.17g", n->mean);
        if (n->cap > 1)
            fprintf(f, ", cap=%d", n->cap);
        fputs(");\n", f);
        break;
    }
    for (int i = 0; i < n->nchildren; i++)
        print_node(n->children[i], depth + 1, f);
}

void skel_tree_print(const skel_tree *t, FILE *f)
{
    if (t->root)
        print_node(t->root, 0, f);
}
