/* skeleton/parse.c: lexer and parser of the skeleton description language
 * (Yaikhom et al. 2007 §3, as accepted by the wflow2pepa generator):
 *
 *   pipe(n);  xdeal(n);  xfarm(n);        n components follow, depth first
 *   task("name", rate [, data=bytes] [, scv=c2]);
 *   deal(n, "name", rate [, data=bytes]); n copies of one task, round robin
 *   farm(n, "name", rate [, data=bytes]); n copies of one task, on demand
 *   par(n);                               n branches, every item visits all
 *   choice(w1, ..., wn);                  n branches, an item takes one (weights)
 *   loop(mean [, cap=c]);                 one component, repeated (mean >= 1)
 *
 * A rate is an arithmetic expression (+ - * / parentheses, unary minus).
 * Comments: // and # to the end of the line, slash-star blocks.
 * The statements form one tree in preorder; a skeleton is complete once
 * its n components have been read. Errors are "file:line:col: message". */
#include "skeleton.h"
#include "internal.h"
#include "../base/mem.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXPR_DEPTH 64   /* parentheses in one rate expression */
#define MAX_NUMBER 64       /* characters of one number literal */

typedef enum tok_kind {
    T_EOF, T_IDENT, T_NUMBER, T_STRING,
    T_LPAREN, T_RPAREN, T_COMMA, T_SEMI, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_EQ
} tok_kind;

typedef struct token {
    tok_kind kind;
    int line, col;
    const char *start;          /* into the text */
    size_t len;
    char str[SKEL_MAX_NAME + 1];  /* T_STRING: unescaped value */
    double num;                 /* T_NUMBER */
    int integer;                /* T_NUMBER: written without '.' or exponent */
} token;

typedef struct parser {
    const char *file;
    double *weights;            /* of the choice statement just read (malloc'd) */
    int nweights;
    const char *p, *end;
    int line, col;
    token tok;
    skel_tree *tree;
    diag *err;
} parser;

static int fail(parser *ps, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(parser *ps, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(ps->err, ps->file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- lexer ------------------------------------------------------------ */

static void advance(parser *ps)
{
    if (*ps->p == '\n') {
        ps->line++;
        ps->col = 1;
    } else {
        ps->col++;
    }
    ps->p++;
}

static int skip_space(parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            advance(ps);
        } else if (c == '#' || (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '/')) {
            while (ps->p < ps->end && *ps->p != '\n')
                advance(ps);
        } else if (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '*') {
            int line = ps->line, col = ps->col;
            advance(ps);
            advance(ps);
            for (;;) {
                if (ps->p >= ps->end)
                    return fail(ps, line, col, "unterminated comment");
                if (*ps->p == '*' && ps->p + 1 < ps->end && ps->p[1] == '/') {
                    advance(ps);
                    advance(ps);
                    break;
                }
                advance(ps);
            }
        } else {
            break;
        }
    }
    return 0;
}

static const char *describe(const token *t)
{
    switch (t->kind) {
    case T_EOF: return "end of input";
    case T_IDENT: return "a name";
    case T_NUMBER: return "a number";
    case T_STRING: return "a string";
    case T_LPAREN: return "'('";
    case T_RPAREN: return "')'";
    case T_COMMA: return "','";
    case T_SEMI: return "';'";
    case T_PLUS: return "'+'";
    case T_MINUS: return "'-'";
    case T_STAR: return "'*'";
    case T_SLASH: return "'/'";
    case T_EQ: return "'='";
    }
    return "?";
}

static int lex_number(parser *ps, token *t)
{
    const char *s = ps->p;
    int integer = 1;
    while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
        advance(ps);
    if (ps->p < ps->end && *ps->p == '.') {
        integer = 0;
        advance(ps);
        while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
            advance(ps);
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        const char *q = ps->p + 1;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (q < ps->end && isdigit((unsigned char)*q)) {
            integer = 0;
            while (ps->p < q)
                advance(ps);
            while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
                advance(ps);
        }
    }
    size_t n = (size_t)(ps->p - s);
    if (n > MAX_NUMBER)
        return fail(ps, t->line, t->col, "number longer than %d characters", MAX_NUMBER);
    if (n == 1 && *s == '.')
        return fail(ps, t->line, t->col, "unexpected '.'");
    char buf[MAX_NUMBER + 1];
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    t->num = strtod(buf, NULL);
    if (!isfinite(t->num))
        return fail(ps, t->line, t->col, "number %s is out of range", buf);
    t->integer = integer;
    t->kind = T_NUMBER;
    return 0;
}

static int lex_string(parser *ps, token *t)
{
    size_t n = 0;
    advance(ps);   /* the opening quote */
    for (;;) {
        if (ps->p >= ps->end || *ps->p == '\n')
            return fail(ps, t->line, t->col, "unterminated string");
        char c = *ps->p;
        if (c == '"') {
            advance(ps);
            break;
        }
        if (c == '\\' && ps->p + 1 < ps->end && (ps->p[1] == '"' || ps->p[1] == '\\')) {
            advance(ps);
            c = *ps->p;
        } else if (c == '\0' || (unsigned char)c < 0x20) {
            return fail(ps, ps->line, ps->col, "control character in a string");
        }
        if (n >= SKEL_MAX_NAME)
            return fail(ps, t->line, t->col, "name longer than %d characters", SKEL_MAX_NAME);
        t->str[n++] = c;
        advance(ps);
    }
    t->str[n] = '\0';
    t->kind = T_STRING;
    return 0;
}

static int next(parser *ps)
{
    if (skip_space(ps) < 0)
        return -1;
    token *t = &ps->tok;
    t->line = ps->line;
    t->col = ps->col;
    t->start = ps->p;
    t->len = 0;
    if (ps->p >= ps->end) {
        t->kind = T_EOF;
        return 0;
    }
    unsigned char c = (unsigned char)*ps->p;
    if (isalpha(c) || c == '_') {
        while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || *ps->p == '_'))
            advance(ps);
        t->kind = T_IDENT;
    } else if (isdigit(c) || c == '.') {
        if (lex_number(ps, t) < 0)
            return -1;
    } else if (c == '"') {
        if (lex_string(ps, t) < 0)
            return -1;
    } else {
        static const struct { char c; tok_kind k; } punct[] = {
            { '(', T_LPAREN }, { ')', T_RPAREN }, { ',', T_COMMA }, { ';', T_SEMI },
            { '+', T_PLUS }, { '-', T_MINUS }, { '*', T_STAR }, { '/', T_SLASH },
            { '=', T_EQ },
        };
        size_t i;
        for (i = 0; i < sizeof punct / sizeof punct[0]; i++)
            if (punct[i].c == (char)c)
                break;
        if (i == sizeof punct / sizeof punct[0]) {
            if (isprint(c))
                return fail(ps, t->line, t->col, "unexpected character '%c'", c);
            return fail(ps, t->line, t->col, "unexpected byte 0x%02x", c);
        }
        t->kind = punct[i].k;
        advance(ps);
    }
    t->len = (size_t)(ps->p - t->start);
    return 0;
}

static int is_word(const token *t, const char *w)
{
    return t->kind == T_IDENT && t->len == strlen(w) && memcmp(t->start, w, t->len) == 0;
}

static int expect(parser *ps, tok_kind k, const char *what)
{
    if (ps->tok.kind != k)
        return fail(ps, ps->tok.line, ps->tok.col, "expected %s, found %s", what,
                    describe(&ps->tok));
    return next(ps);
}

/* ---- rate expressions --------------------------------------------------- */

static int expr(parser *ps, int depth, double *v);

static int factor(parser *ps, int depth, double *v)
{
    token *t = &ps->tok;
    if (depth > MAX_EXPR_DEPTH)
        return fail(ps, t->line, t->col, "expression nested deeper than %d levels",
                    MAX_EXPR_DEPTH);
    if (t->kind == T_NUMBER) {
        *v = t->num;
        return next(ps);
    }
    if (t->kind == T_MINUS || t->kind == T_PLUS) {
        int neg = t->kind == T_MINUS;
        if (next(ps) < 0 || factor(ps, depth + 1, v) < 0)
            return -1;
        if (neg)
            *v = -*v;
        return 0;
    }
    if (t->kind == T_LPAREN) {
        if (next(ps) < 0 || expr(ps, depth + 1, v) < 0)
            return -1;
        return expect(ps, T_RPAREN, "')'");
    }
    return fail(ps, t->line, t->col, "expected a number, found %s", describe(t));
}

static int term(parser *ps, int depth, double *v)
{
    if (factor(ps, depth, v) < 0)
        return -1;
    while (ps->tok.kind == T_STAR || ps->tok.kind == T_SLASH) {
        int div = ps->tok.kind == T_SLASH;
        int line = ps->tok.line, col = ps->tok.col;
        double w;
        if (next(ps) < 0 || factor(ps, depth, &w) < 0)
            return -1;
        if (div && w == 0)
            return fail(ps, line, col, "division by zero");
        *v = div ? *v / w : *v * w;
    }
    return 0;
}

static int expr(parser *ps, int depth, double *v)
{
    if (term(ps, depth, v) < 0)
        return -1;
    while (ps->tok.kind == T_PLUS || ps->tok.kind == T_MINUS) {
        int sub = ps->tok.kind == T_MINUS;
        double w;
        if (next(ps) < 0 || term(ps, depth, &w) < 0)
            return -1;
        *v = sub ? *v - w : *v + w;
    }
    return 0;
}

/* A rate: an expression whose value is positive and finite. */
static int rate_expr(parser *ps, const char *what, double *v)
{
    int line = ps->tok.line, col = ps->tok.col;
    if (expr(ps, 0, v) < 0)
        return -1;
    if (!isfinite(*v))
        return fail(ps, line, col, "%s is not finite", what);
    if (!(*v > 0))
        return fail(ps, line, col, "%s must be positive (got %g)", what, *v);
    return 0;
}

/* ---- statements ------------------------------------------------------------ */

static int count(parser *ps, const char *word, int *n)
{
    token *t = &ps->tok;
    if (t->kind != T_NUMBER || !t->integer)
        return fail(ps, t->line, t->col, "expected the number of components of %s, found %s",
                    word, t->kind == T_NUMBER ? "a non-integer" : describe(t));
    if (t->num < 1)
        return fail(ps, t->line, t->col, "%s needs at least 1 component", word);
    if (t->num > SKEL_MAX_CHILDREN)
        return fail(ps, t->line, t->col, "%s(%.0f): more than %d components", word, t->num,
                    SKEL_MAX_CHILDREN);
    *n = (int)t->num;
    return next(ps);
}

/* Optional ", key=value" arguments after a task's rate: data=bytes of the
 * item it sends, scv= of its work (checked by skel_tree_finish). */
static int options(parser *ps, double *data, double *scv)
{
    int have[2] = { 0, 0 };
    while (ps->tok.kind == T_COMMA) {
        if (next(ps) < 0)
            return -1;
        token key = ps->tok;
        if (key.kind != T_IDENT)
            return fail(ps, key.line, key.col, "expected an option such as data=, found %s",
                        describe(&key));
        int k = is_word(&key, "data") ? 0 : is_word(&key, "scv") ? 1 : -1;
        if (k < 0)
            return fail(ps, key.line, key.col, "unknown option '%.*s' (known: data, scv)",
                        (int)key.len, key.start);
        if (have[k])
            return fail(ps, key.line, key.col, "%s= given twice", k ? "scv" : "data");
        have[k] = 1;
        if (next(ps) < 0 || expect(ps, T_EQ, "'='") < 0)
            return -1;
        int line = ps->tok.line, col = ps->tok.col;
        double *v = k ? scv : data;
        if (expr(ps, 0, v) < 0)
            return -1;
        if (k == 0 && (!isfinite(*v) || *v < 0))
            return fail(ps, line, col, "data size must be non-negative and finite (got %g)", *v);
        if (k == 1 && !(*v >= SKEL_MIN_SCV && *v <= SKEL_MAX_SCV))
            return fail(ps, line, col, "scv= must be between %g and %g (got %g)", SKEL_MIN_SCV,
                        SKEL_MAX_SCV, *v);
    }
    return 0;
}

#define KNOWN "pipe, task, deal, farm, xdeal, xfarm, par, choice or loop"

/* choice(w1, ..., wn): the weights are kept in ps->weights until the
 * branches are read. */
static int choice_weights(parser *ps, skel_node *c)
{
    int cap = 0;
    for (;;) {
        if (ps->nweights >= SKEL_MAX_CHILDREN)
            return fail(ps, ps->tok.line, ps->tok.col, "choice: more than %d branches",
                        SKEL_MAX_CHILDREN);
        if (ps->nweights == cap) {
            cap = cap ? 2 * cap : 8;
            if (mem_grow((void **)&ps->weights, (size_t)cap, sizeof *ps->weights) < 0)
                return fail(ps, c->line, c->col, "out of memory");
        }
        if (rate_expr(ps, "the weight of a branch", &ps->weights[ps->nweights]) < 0)
            return -1;
        ps->nweights++;
        if (ps->tok.kind != T_COMMA)
            break;
        if (next(ps) < 0)
            return -1;
    }
    c->declared = ps->nweights;
    return 0;
}

/* loop(mean [, cap=c]) */
static int loop_args(parser *ps, skel_node *l)
{
    int line = ps->tok.line, col = ps->tok.col;
    if (expr(ps, 0, &l->mean) < 0)
        return -1;
    if (!(l->mean >= 1) || !isfinite(l->mean))
        return fail(ps, line, col,
                    "the mean number of iterations must be at least 1 and finite (got %g)",
                    l->mean);
    l->declared = 1;
    if (ps->tok.kind != T_COMMA)
        return 0;
    if (next(ps) < 0)
        return -1;
    token key = ps->tok;
    if (key.kind != T_IDENT)
        return fail(ps, key.line, key.col, "expected cap= after the mean of a loop, found %s",
                    describe(&key));
    if (!is_word(&key, "cap"))
        return fail(ps, key.line, key.col, "unknown option '%.*s' of a loop (known: cap)",
                    (int)(key.len > 64 ? 64 : key.len), key.start);
    if (next(ps) < 0 || expect(ps, T_EQ, "'='") < 0)
        return -1;
    token v = ps->tok;
    if (v.kind != T_NUMBER || !v.integer || v.num < 1 || v.num > SKEL_MAX_LOOP_CAP)
        return fail(ps, v.line, v.col, "cap= must be a whole number from 1 to %d",
                    SKEL_MAX_LOOP_CAP);
    l->cap = (int)v.num;
    return next(ps);
}

/* choice(...) or loop(...): a skeleton whose components follow. */
static int control(parser *ps, skel_node **node, int *open)
{
    token w = ps->tok;
    int is_choice = is_word(&w, "choice");
    skel_node *s = skel_node_new(ps->tree, is_choice ? SKEL_CHOICE : SKEL_LOOP, w.line, w.col,
                                 ps->err);
    if (!s || next(ps) < 0 || expect(ps, T_LPAREN, "'('") < 0)
        return -1;
    ps->nweights = 0;
    if ((is_choice ? choice_weights(ps, s) : loop_args(ps, s)) < 0)
        return -1;
    if (expect(ps, T_RPAREN, "')'") < 0)
        return -1;
    *node = s;
    *open = 1;
    return expect(ps, T_SEMI, "';' after the statement");
}

/* One statement; *node is the new node, *open is set when components
 * follow (pipe, xdeal, xfarm, par, choice, loop). */
static int statement(parser *ps, skel_node **node, int *open)
{
    token w = ps->tok;
    diag *err = ps->err;
    *open = 0;
    if (w.kind != T_IDENT)
        return fail(ps, w.line, w.col, "expected %s, found %s", KNOWN, describe(&w));
    int is_pipe = is_word(&w, "pipe"), is_task = is_word(&w, "task");
    int is_deal = is_word(&w, "deal"), is_farm = is_word(&w, "farm");
    int is_xdeal = is_word(&w, "xdeal"), is_xfarm = is_word(&w, "xfarm");
    int is_par = is_word(&w, "par");
    if (is_word(&w, "choice") || is_word(&w, "loop"))
        return control(ps, node, open);
    if (!(is_pipe || is_task || is_deal || is_farm || is_xdeal || is_xfarm || is_par))
        return fail(ps, w.line, w.col, "unknown skeleton '%.*s' (expected %s)",
                    (int)(w.len > 64 ? 64 : w.len), w.start, KNOWN);
    char word[8];
    memcpy(word, w.start, w.len);
    word[w.len] = '\0';
    if (next(ps) < 0 || expect(ps, T_LPAREN, "'('") < 0)
        return -1;

    int n = 1;
    if (!is_task && count(ps, word, &n) < 0)
        return -1;
    if (is_pipe || is_xdeal || is_xfarm || is_par) {
        skel_kind k = is_pipe ? SKEL_PIPE : is_xdeal ? SKEL_DEAL : is_par ? SKEL_PAR : SKEL_FARM;
        skel_node *s = skel_node_new(ps->tree, k, w.line, w.col, err);
        if (!s)
            return -1;
        s->declared = n;
        *node = s;
        *open = 1;
    } else {
        if (!is_task && expect(ps, T_COMMA, "','") < 0)
            return -1;
        if (ps->tok.kind != T_STRING)
            return fail(ps, ps->tok.line, ps->tok.col, "expected the task's name in quotes, found %s",
                        describe(&ps->tok));
        char name[SKEL_MAX_NAME + 1];
        memcpy(name, ps->tok.str, sizeof name);
        double rate, data = 0, scv = 0;
        if (next(ps) < 0 || expect(ps, T_COMMA, "','") < 0 ||
            rate_expr(ps, "the rate of a task", &rate) < 0 || options(ps, &data, &scv) < 0)
            return -1;
        if (is_task) {
            skel_node *t = skel_task_new(ps->tree, name, rate, w.line, w.col, err);
            if (!t)
                return -1;
            t->data = data;
            t->scv = scv;
            *node = t;
        } else {
            skel_node *s = skel_node_new(ps->tree, is_deal ? SKEL_DEAL : SKEL_FARM,
                                         w.line, w.col, err);
            if (!s)
                return -1;
            s->declared = n;
            s->sugar = 1;
            for (int i = 0; i < n; i++) {
                skel_node *t = skel_task_new(ps->tree, name, rate, w.line, w.col, err);
                if (!t || skel_node_add(ps->tree, s, t, err) < 0)
                    return -1;
                t->data = data;
                t->scv = scv;
            }
            *node = s;
        }
    }
    if (expect(ps, T_RPAREN, "')'") < 0)
        return -1;
    return expect(ps, T_SEMI, "';' after the statement");
}

static const char *kind_name(const skel_node *n)
{
    switch (n->kind) {
    case SKEL_PIPE: return "pipe";
    case SKEL_DEAL: return "xdeal";
    case SKEL_FARM: return "xfarm";
    case SKEL_PAR: return "par";
    case SKEL_CHOICE: return "choice";
    case SKEL_LOOP: return "loop";
    default: return "task";
    }
}

/* The weights of an open choice, kept until its branches are read. */
typedef struct frame {
    skel_node *node;
    double *weights;            /* CHOICE: malloc'd, declared entries */
} frame;

static int parse_tree(parser *ps, frame *stack, int *depth)
{
    skel_node *root = NULL;
    if (next(ps) < 0)
        return -1;
    if (ps->tok.kind == T_EOF)
        return fail(ps, ps->tok.line, ps->tok.col, "empty skeleton description");
    while (ps->tok.kind != T_EOF) {
        if (root && *depth == 0)
            return fail(ps, ps->tok.line, ps->tok.col,
                        "text after the end of the skeleton (the %s at %d:%d is complete)",
                        kind_name(root), root->line, root->col);
        int line = ps->tok.line, col = ps->tok.col;
        skel_node *n = NULL;
        int open = 0;
        if (statement(ps, &n, &open) < 0)
            return -1;
        if (!root) {
            root = n;
        } else {
            frame *top = &stack[*depth - 1];
            if (top->weights)
                n->prob = top->weights[top->node->nchildren];
            if (skel_node_add(ps->tree, top->node, n, ps->err) < 0)
                return -1;
        }
        if (open) {
            if (*depth >= SKEL_MAX_DEPTH)
                return fail(ps, line, col, "skeletons nested deeper than %d levels",
                            SKEL_MAX_DEPTH);
            frame *f = &stack[(*depth)++];
            f->node = n;
            f->weights = NULL;
            if (n->kind == SKEL_CHOICE) {
                f->weights = ps->weights;   /* the frame owns them now */
                ps->weights = NULL;
            }
        }
        /* Close every skeleton that now has all its components. */
        while (*depth > 0 && stack[*depth - 1].node->nchildren == stack[*depth - 1].node->declared) {
            (*depth)--;
            free(stack[*depth].weights);
        }
    }
    if (*depth > 0) {
        skel_node *s = stack[*depth - 1].node;
        return fail(ps, s->line, s->col, "%s(%d) has only %d of its %d components",
                    kind_name(s), s->declared, s->nchildren, s->declared);
    }
    return skel_tree_finish(ps->tree, root, ps->err);
}

static int parse(parser *ps)
{
    frame stack[SKEL_MAX_DEPTH];
    int depth = 0;
    int rc = parse_tree(ps, stack, &depth);
    while (depth > 0)
        free(stack[--depth].weights);
    free(ps->weights);
    ps->weights = NULL;
    return rc;
}

skel_tree *skel_parse_string(const char *text, size_t len, const char *file, diag *err)
{
    if (len > SKEL_MAX_FILE) {
        diag_set(err, "%s: larger than %zu bytes", file ? file : "<input>", SKEL_MAX_FILE);
        return NULL;
    }
    skel_tree *t = skel_tree_new(file);
    if (!t) {
        diag_set(err, "out of memory");
        return NULL;
    }
    parser ps = { .file = skel_tree_file(t), .p = text, .end = text + len,
                  .line = 1, .col = 1, .tree = t, .err = err };
    if (parse(&ps) < 0) {
        skel_tree_free(t);
        return NULL;
    }
    return t;
}

skel_tree *skel_parse_file(const char *path, diag *err)
{
    char *text;
    size_t len;
    if (skel_read_file(path, SKEL_MAX_FILE, &text, &len, err) < 0)
        return NULL;
    skel_tree *t = skel_parse_string(text, len, path, err);
    free(text);
    return t;
}
