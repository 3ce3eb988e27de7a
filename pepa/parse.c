/* pepa_parse: a hand-written lexer and recursive-descent parser for PEPA.
 *
 * Grammar, loosest binding first:
 *   file    := { ['#'] def } system [';']
 *   def     := rname ('='|':=') expr ';'  |  Pname '=' proc ';'
 *   proc    := coop { '+' coop }
 *   coop    := prefix { ('<' actions '>' | '<>' | '||' | '<*>') prefix }
 *   prefix  := '(' action ',' expr ')' '.' prefix  |  post
 *   post    := atom { '/' ('<'|'{') actions ('>'|'}') | '[' expr ']' ['[' actions ']'] }
 *   atom    := Pname | '(' proc ')'
 *   expr    := term { ('+'|'-') term },  term := unary { ('*'|'/') unary }
 *   unary   := '-' unary | num | rname | 'infty' | 'T' | '(' expr ')'
 * Names starting with an upper-case letter are processes; others are rates
 * and actions. Names may end in primes (P1', P1''), as in the PEPA
 * Workbench and PRISM.
 *
 * Two constructs are resolved after the whole file is read:
 *  - an array's size is a rate expression (P[n], Q1[n-1], as the PEPA
 *    Eclipse Plug-in's grammar allows), evaluated once every rate is
 *    defined, and must be a positive whole number;
 *  - '%' starts a comment line in the Workbench dialect, but the Plug-in
 *    writes rate definitions as "%name = expr;". A '%' line of that form
 *    whose name is used and otherwise undefined is read as the definition. */
#define _POSIX_C_SOURCE 200809L
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

typedef enum tok {
    T_EOF, T_NAME, T_NUM, T_LP, T_RP, T_COMMA, T_DOT, T_SEMI, T_EQ, T_PLUS,
    T_MINUS, T_STAR, T_SLASH, T_LT, T_GT, T_PAR, T_COOPALL, T_EMPTYCOOP,
    T_LB, T_RB, T_LC, T_RC, T_HASH, T_BAD
} tok;

typedef struct parser {
    const char *s, *end, *p;       /* text, its end, the cursor */
    int line;
    const char *line_start;
    /* the current token */
    tok t;
    pepa_pos pos;
    char name[PEPA_MAX_NAME + 1];
    int quoted;                    /* the name was written in double quotes */
    double num;
    /* the token after it, for the one place that needs two (prefix vs
     * parenthesised process) */
    int depth;                     /* process nesting (a prefix chain counts) */
    int edepth;                    /* rate expression nesting, apart: a long
                                      prefix chain is not a deep expression */
    pepa_model *m;
    diag *err;
    struct pct_line { const char *at, *line_start; int line; } *pct; /* '%name = ...;' lines */
    size_t npct;
    struct sized { pepa_proc *array; pepa_expr *size; } *arrays;    /* sizes to evaluate */
    size_t narrays;
} parser;

static const char *tok_text(tok t)
{
    static const char *names[] = {
        "end of file", "a name", "a number", "'('", "')'", "','", "'.'", "';'", "'='",
        "'+'", "'-'", "'*'", "'/'", "'<'", "'>'", "'||'", "'<*>'", "'<>'", "'['", "']'",
        "'{'", "'}'", "'#'", "an unexpected character"
    };
    return names[t];
}

static int fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(ps->err, pepa_model_file(ps->m), ps->pos.line, ps->pos.col, fmt, ap);
    va_end(ap);
    return -1;
}

/* Describe the current token for "found ..." in messages. */
static const char *found(parser *ps, char *buf, size_t n)
{
    if (ps->t == T_NAME)
        snprintf(buf, n, "'%s'", ps->name);
    else if (ps->t == T_NUM)
        snprintf(buf, n, "the number %g", ps->num);
    else if (ps->t == T_BAD)
        snprintf(buf, n, "the character '%c'", *ps->p ? ps->p[-1] : '?');
    else
        snprintf(buf, n, "%s", tok_text(ps->t));
    return buf;
}

/* ---- lexer ----------------------------------------------------------- */

/* A '%' line shaped like a rate definition, "% name = ... ;" (or ':='):
 * remembered, in case the name turns out to be used and otherwise
 * undefined (see the top). */
static int looks_like_def(const char *p, const char *end)
{
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || !(islower((unsigned char)*p) || *p == '_'))
        return 0;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p + 1 < end && *p == ':' && p[1] == '=')
        p++;
    if (p >= end || *p != '=')
        return 0;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return memchr(p, ';', (size_t)((nl ? nl : end) - p)) != NULL;
}

static int note_pct(parser *ps)
{
    if (!looks_like_def(ps->p, ps->end))
        return 0;
    void *a = ps->pct;
    if (mem_grow(&a, ps->npct + 1, sizeof *ps->pct) < 0)
        return diag_set(ps->err, "out of memory");
    ps->pct = a;
    ps->pct[ps->npct++] = (struct pct_line){ ps->p + 1, ps->line_start, ps->line };
    return 0;
}

/* Skip blanks and comments; -1 on an unterminated block comment. */
static int skip_space(parser *ps)
{
    for (;;) {
        while (ps->p < ps->end && isspace((unsigned char)*ps->p)) {
            if (*ps->p == '\n') {
                ps->line++;
                ps->line_start = ps->p + 1;
            }
            ps->p++;
        }
        if (ps->p >= ps->end)
            return 0;
        if (*ps->p == '%' || (*ps->p == '/' && ps->p + 1 < ps->end && ps->p[1] == '/')) {
            if (*ps->p == '%' && note_pct(ps) < 0)
                return -1;
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
        } else if (*ps->p == '/' && ps->p + 1 < ps->end && ps->p[1] == '*') {
            ps->pos.line = ps->line;
            ps->pos.col = (int)(ps->p - ps->line_start) + 1;
            ps->p += 2;
            while (ps->p < ps->end && !(*ps->p == '*' && ps->p + 1 < ps->end && ps->p[1] == '/')) {
                if (*ps->p == '\n') {
                    ps->line++;
                    ps->line_start = ps->p + 1;
                }
                ps->p++;
            }
            if (ps->p >= ps->end)
                return fail(ps, "unterminated comment: '/*' without '*/'");
            ps->p += 2;
        } else {
            return 0;
        }
    }
}

static int next(parser *ps)
{
    if (skip_space(ps) < 0)
        return -1;
    ps->pos.line = ps->line;
    ps->pos.col = (int)(ps->p - ps->line_start) + 1;
    ps->quoted = 0;
    if (ps->p >= ps->end) {
        ps->t = T_EOF;
        return 0;
    }
    const char *p = ps->p;
    char c = *p;
    if (isalpha((unsigned char)c) || c == '_' || c == '"') {
        const char *b = p, *e;
        if (c == '"') {
            b = ++p;
            while (p < ps->end && *p != '"' && *p != '\n')
                p++;
            if (p >= ps->end || *p != '"')
                return fail(ps, "unterminated quoted name");
            e = p++;
            ps->quoted = 1;
            if (e == b)
                return fail(ps, "empty quoted name");
        } else {
            while (p < ps->end && (isalnum((unsigned char)*p) || *p == '_'))
                p++;
            while (p < ps->end && *p == '\'')     /* P1', P1'' */
                p++;
            e = p;
        }
        if (e - b > PEPA_MAX_NAME)
            return fail(ps, "name longer than %d characters", PEPA_MAX_NAME);
        memcpy(ps->name, b, (size_t)(e - b));
        ps->name[e - b] = '\0';
        ps->p = p;
        ps->t = T_NAME;
        return 0;
    }
    if (isdigit((unsigned char)c) || (c == '.' && p + 1 < ps->end && isdigit((unsigned char)p[1]))) {
        char buf[128];
        size_t n = 0;
        while (p < ps->end && n + 1 < sizeof buf &&
               (isdigit((unsigned char)*p) || *p == '.' ||
                ((*p == 'e' || *p == 'E') && p + 1 < ps->end &&
                 (isdigit((unsigned char)p[1]) || ((p[1] == '-' || p[1] == '+') && p + 2 < ps->end && isdigit((unsigned char)p[2])))) ||
                ((*p == '-' || *p == '+') && n > 0 && (buf[n - 1] == 'e' || buf[n - 1] == 'E'))))
            buf[n++] = *p++;
        buf[n] = '\0';
        char *endp;
        errno = 0;
        ps->num = strtod(buf, &endp);
        if (*endp != '\0')
            return fail(ps, "malformed number '%s'", buf);
        if (errno == ERANGE && isinf(ps->num))
            return fail(ps, "number '%s' is too large", buf);
        ps->p = p;
        ps->t = T_NUM;
        return 0;
    }
    ps->p++;
    switch (c) {
    case '(': ps->t = T_LP; break;
    case ')': ps->t = T_RP; break;
    case ',': ps->t = T_COMMA; break;
    case '.': ps->t = T_DOT; break;
    case ';': ps->t = T_SEMI; break;
    case '=': ps->t = T_EQ; break;
    case '+': ps->t = T_PLUS; break;
    case '-': ps->t = T_MINUS; break;
    case '*': ps->t = T_STAR; break;
    case '/': ps->t = T_SLASH; break;
    case '>': ps->t = T_GT; break;
    case '[': ps->t = T_LB; break;
    case ']': ps->t = T_RB; break;
    case '{': ps->t = T_LC; break;
    case '}': ps->t = T_RC; break;
    case '#': ps->t = T_HASH; break;
    case ':':
        if (ps->p < ps->end && *ps->p == '=') {
            ps->p++;
            ps->t = T_EQ;
        } else {
            ps->t = T_BAD;
        }
        break;
    case '|':
        if (ps->p < ps->end && *ps->p == '|') {
            ps->p++;
            ps->t = T_PAR;
        } else {
            ps->t = T_BAD;
        }
        break;
    case '<': {
        /* "<>" and "<*>" (spaces allowed inside) are single tokens */
        const char *q = ps->p;
        while (q < ps->end && (*q == ' ' || *q == '\t'))
            q++;
        if (q < ps->end && *q == '>') {
            ps->p = q + 1;
            ps->t = T_EMPTYCOOP;
        } else if (q < ps->end && *q == '*') {
            q++;
            while (q < ps->end && (*q == ' ' || *q == '\t'))
                q++;
            if (q < ps->end && *q == '>') {
                ps->p = q + 1;
                ps->t = T_COOPALL;
            } else {
                ps->t = T_LT;
            }
        } else {
            ps->t = T_LT;
        }
        break;
    }
    default:
        ps->t = T_BAD;
    }
    if (ps->t == T_BAD)
        return fail(ps, "unexpected character '%c'", isprint((unsigned char)c) ? c : '?');
    return 0;
}

static int expect(parser *ps, tok t, const char *what)
{
    char buf[PEPA_MAX_NAME + 32];
    if (ps->t != t)
        return fail(ps, "expected %s %s, found %s", tok_text(t), what, found(ps, buf, sizeof buf));
    return next(ps);
}

static int is_process_name(const char *s)
{
    return isupper((unsigned char)s[0]);
}

/* ---- rate expressions ------------------------------------------------ */

static pepa_expr *expr(parser *ps);

static pepa_expr *with_pos(pepa_expr *e, pepa_pos pos)
{
    if (e)
        e->pos = pos;
    return e;
}

static pepa_expr *unary(parser *ps)
{
    char buf[PEPA_MAX_NAME + 32];
    pepa_pos pos = ps->pos;
    pepa_expr *e = NULL;
    if (++ps->edepth > PEPA_MAX_DEPTH) {
        fail(ps, "expression nested more than %d deep", PEPA_MAX_DEPTH);
        return NULL;
    }
    if (ps->t == T_MINUS) {
        if (next(ps) < 0)
            return NULL;
        pepa_expr *a = unary(ps);
        e = a ? with_pos(pepa_neg(ps->m, a), pos) : NULL;
    } else if (ps->t == T_NUM) {
        e = with_pos(pepa_num(ps->m, ps->num), pos);
        if (next(ps) < 0)
            return NULL;
    } else if (ps->t == T_NAME && !ps->quoted &&
               (strcmp(ps->name, "infty") == 0 || strcmp(ps->name, "T") == 0)) {
        e = with_pos(pepa_infty(ps->m), pos);
        if (next(ps) < 0)
            return NULL;
    } else if (ps->t == T_NAME && !is_process_name(ps->name)) {
        int id = pepa_model_rate_id(ps->m, ps->name);
        e = id < 0 ? NULL : with_pos(pepa_rate_ref(ps->m, id), pos);
        if (next(ps) < 0)
            return NULL;
    } else if (ps->t == T_LP) {
        if (next(ps) < 0 || !(e = expr(ps)) || expect(ps, T_RP, "to close the expression") < 0)
            return NULL;
    } else {
        fail(ps, "expected a rate (a number, a rate name or infty), found %s", found(ps, buf, sizeof buf));
        return NULL;
    }
    if (!e && !ps->err->set)
        diag_set(ps->err, "out of memory");
    ps->edepth--;
    return e;
}

static pepa_expr *binary(parser *ps, int level)
{
    pepa_expr *a = level == 0 ? binary(ps, 1) : unary(ps);
    while (a) {
        pepa_expr_kind k;
        if (level == 0 && ps->t == T_PLUS) k = PEPA_E_ADD;
        else if (level == 0 && ps->t == T_MINUS) k = PEPA_E_SUB;
        else if (level == 1 && ps->t == T_STAR) k = PEPA_E_MUL;
        else if (level == 1 && ps->t == T_SLASH) k = PEPA_E_DIV;
        else break;
        pepa_pos pos = ps->pos;
        if (next(ps) < 0)
            return NULL;
        pepa_expr *b = level == 0 ? binary(ps, 1) : unary(ps);
        if (!b)
            return NULL;
        a = with_pos(pepa_binop(ps->m, k, a, b), pos);
        if (!a)
            diag_set(ps->err, "out of memory");
    }
    return a;
}

static pepa_expr *expr(parser *ps)
{
    return binary(ps, 0);
}

/* ---- process terms --------------------------------------------------- */

static pepa_proc *proc(parser *ps);

static pepa_proc *oom(parser *ps)
{
    diag_set(ps->err, "out of memory");
    return NULL;
}

/* actions := name { ',' name } up to the closing token; an empty list is
 * allowed (P/<> hides nothing, P <> Q is parallel). */
static int actions(parser *ps, tok close, int **out, int *n)
{
    char buf[PEPA_MAX_NAME + 32];
    int cap = 0;
    *out = NULL;
    *n = 0;
    while (ps->t != close) {
        if (*n > 0 && expect(ps, T_COMMA, "between action names") < 0)
            goto fail;
        if (ps->t != T_NAME || is_process_name(ps->name)) {
            fail(ps, "expected an action name, found %s", found(ps, buf, sizeof buf));
            goto fail;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            if (mem_grow((void **)out, (size_t)cap, sizeof **out) < 0) {
                diag_set(ps->err, "out of memory");
                goto fail;
            }
        }
        int id = pepa_model_action_id(ps->m, ps->name);
        if (id < 0) {
            diag_set(ps->err, "out of memory");
            goto fail;
        }
        (*out)[(*n)++] = id;
        if (next(ps) < 0)
            goto fail;
    }
    /* the token after the list may be bad too: the list is then freed here */
    if (next(ps) < 0)
        goto fail;
    return 0;
fail:
    free(*out);
    *out = NULL;
    return -1;
}

static pepa_proc *with_ppos(pepa_proc *p, pepa_pos pos)
{
    if (p)
        p->pos = pos;
    return p;
}

static pepa_proc *atom(parser *ps)
{
    char buf[PEPA_MAX_NAME + 32];
    pepa_pos pos = ps->pos;
    if (ps->t == T_NAME && is_process_name(ps->name)) {
        int id = pepa_model_proc_id(ps->m, ps->name);
        if (id < 0)
            return oom(ps);
        pepa_proc *p = with_ppos(pepa_const(ps->m, id), pos);
        if (!p)
            return oom(ps);
        return next(ps) < 0 ? NULL : p;
    }
    if (ps->t == T_LP) {
        pepa_proc *p;
        if (next(ps) < 0 || !(p = proc(ps)) || expect(ps, T_RP, "to close the process") < 0)
            return NULL;
        return p;
    }
    if (ps->t == T_NAME)
        fail(ps, "expected a process, found %s (process names start with an upper-case letter)",
             found(ps, buf, sizeof buf));
    else
        fail(ps, "expected a process, found %s", found(ps, buf, sizeof buf));
    return NULL;
}

static int note_array(parser *ps, pepa_proc *array, pepa_expr *size)
{
    void *a = ps->arrays;
    if (mem_grow(&a, ps->narrays + 1, sizeof *ps->arrays) < 0)
        return diag_set(ps->err, "out of memory");
    ps->arrays = a;
    ps->arrays[ps->narrays++] = (struct sized){ array, size };
    return 0;
}

static pepa_proc *post(parser *ps)
{
    char buf[PEPA_MAX_NAME + 32];
    pepa_proc *p = atom(ps);
    while (p && (ps->t == T_SLASH || ps->t == T_LB)) {
        pepa_pos pos = ps->pos;
        int *acts, n;
        if (ps->t == T_SLASH) {
            if (next(ps) < 0)
                return NULL;
            tok close;
            if (ps->t == T_LT) close = T_GT;
            else if (ps->t == T_LC) close = T_RC;
            else if (ps->t == T_EMPTYCOOP) {       /* P/<> hides nothing */
                if (next(ps) < 0)
                    return NULL;
                continue;
            } else {
                fail(ps, "expected '<' or '{' after '/', found %s", found(ps, buf, sizeof buf));
                return NULL;
            }
            if (next(ps) < 0 || actions(ps, close, &acts, &n) < 0)
                return NULL;
            p = with_ppos(pepa_hide(ps->m, p, acts, n), pos);
            free(acts);
        } else {
            if (next(ps) < 0)
                return NULL;
            pepa_expr *size = expr(ps);
            if (!size || expect(ps, T_RB, "after the array size") < 0)
                return NULL;
            acts = NULL;
            n = 0;
            if (ps->t == T_LB && (next(ps) < 0 || actions(ps, T_RB, &acts, &n) < 0))
                return NULL;
            p = with_ppos(pepa_array(ps->m, p, 1, acts, n), pos);
            free(acts);
            if (p && note_array(ps, p, size) < 0)
                return NULL;
        }
        if (!p)
            return oom(ps);
    }
    return p;
}

static pepa_proc *prefix(parser *ps)
{
    char buf[PEPA_MAX_NAME + 32];
    if (ps->t != T_LP)
        return post(ps);
    /* '(' starts a prefix when "name ," follows; otherwise a parenthesised
     * process. Look ahead by saving and restoring the lexer. */
    parser save = *ps;
    pepa_pos pos = ps->pos;
    if (next(ps) < 0)
        return NULL;
    int is_prefix = 0;
    if (ps->t == T_NAME && !is_process_name(ps->name)) {
        parser save2 = *ps;
        if (next(ps) < 0)
            return NULL;
        is_prefix = ps->t == T_COMMA;
        *ps = save2;
    }
    if (!is_prefix) {
        *ps = save;
        return post(ps);
    }
    if (++ps->depth > PEPA_MAX_DEPTH) {
        fail(ps, "process nested more than %d deep", PEPA_MAX_DEPTH);
        return NULL;
    }
    int action = pepa_model_action_id(ps->m, ps->name);
    if (action < 0)
        return oom(ps);
    if (next(ps) < 0 || expect(ps, T_COMMA, "after the action name") < 0)
        return NULL;
    pepa_expr *rate = expr(ps);
    if (!rate || expect(ps, T_RP, "to close the activity") < 0)
        return NULL;
    if (ps->t != T_DOT) {
        fail(ps, "expected '.' after the activity (a, r), found %s", found(ps, buf, sizeof buf));
        return NULL;
    }
    if (next(ps) < 0)
        return NULL;
    pepa_proc *then = prefix(ps);
    if (!then)
        return NULL;
    ps->depth--;
    pepa_proc *p = with_ppos(pepa_prefix(ps->m, action, rate, then), pos);
    return p ? p : oom(ps);
}

static pepa_proc *coop(parser *ps)
{
    pepa_proc *a = prefix(ps);
    while (a && (ps->t == T_LT || ps->t == T_EMPTYCOOP || ps->t == T_PAR || ps->t == T_COOPALL)) {
        pepa_pos pos = ps->pos;
        tok t = ps->t;
        int *acts = NULL, n = 0;
        if (next(ps) < 0)
            return NULL;
        if (t == T_LT && actions(ps, T_GT, &acts, &n) < 0)
            return NULL;
        pepa_proc *b = prefix(ps);
        if (!b) {
            free(acts);
            return NULL;
        }
        a = t == T_COOPALL ? pepa_coop_all(ps->m, a, b) : pepa_coop(ps->m, a, b, acts, n);
        free(acts);
        if (!a)
            return oom(ps);
        a->pos = pos;
    }
    return a;
}

static pepa_proc *proc(parser *ps)
{
    if (++ps->depth > PEPA_MAX_DEPTH) {
        fail(ps, "process nested more than %d deep", PEPA_MAX_DEPTH);
        return NULL;
    }
    pepa_proc *a = coop(ps);
    while (a && ps->t == T_PLUS) {
        pepa_pos pos = ps->pos;
        if (next(ps) < 0)
            return NULL;
        pepa_proc *b = coop(ps);
        if (!b)
            return NULL;
        a = with_ppos(pepa_choice(ps->m, a, b), pos);
        if (!a)
            return oom(ps);
    }
    ps->depth--;
    return a;
}

/* ---- file ------------------------------------------------------------ */

static int definition_or_system(parser *ps)
{
    char buf[PEPA_MAX_NAME + 32];
    while (ps->t == T_HASH)
        if (next(ps) < 0)
            return -1;
    if (ps->t == T_NAME) {
        parser save = *ps;
        char name[PEPA_MAX_NAME + 1];
        pepa_pos pos = ps->pos;
        memcpy(name, ps->name, sizeof name);
        if (next(ps) < 0)
            return -1;
        if (ps->t == T_EQ) {
            if (next(ps) < 0)
                return -1;
            if (is_process_name(name)) {
                pepa_proc *p = proc(ps);
                if (!p || pepa_model_define_proc(ps->m, name, p, pos, ps->err) < 0)
                    return -1;
            } else {
                pepa_expr *e = expr(ps);
                if (!e || pepa_model_define_rate(ps->m, name, e, pos, ps->err) < 0)
                    return -1;
            }
            return expect(ps, T_SEMI, "at the end of the definition");
        }
        *ps = save;
    }
    if (pepa_model_system(ps->m)) {
        return fail(ps, "unexpected %s after the system equation (a definition needs 'Name = ...;')",
                    found(ps, buf, sizeof buf));
    }
    pepa_proc *sys = proc(ps);
    if (!sys)
        return -1;
    pepa_model_set_system(ps->m, sys);
    if (ps->t == T_SEMI && next(ps) < 0)
        return -1;
    if (ps->t != T_EOF) {
        if (ps->t == T_EQ)
            return fail(ps, "unexpected '=': the system equation must come after every definition");
        return fail(ps, "expected the end of the system equation, found %s", found(ps, buf, sizeof buf));
    }
    return 0;
}

/* Read the remembered '%' line of name id as its definition. */
static int pct_define(parser *ps, const struct pct_line *l)
{
    parser sub = *ps;
    sub.p = l->at;
    sub.line = l->line;
    sub.line_start = l->line_start;
    const char *nl = memchr(l->at, '\n', (size_t)(ps->end - l->at));
    sub.end = nl ? nl : ps->end;
    sub.depth = sub.edepth = 0;
    if (next(&sub) < 0)
        return -1;
    char name[PEPA_MAX_NAME + 1];
    pepa_pos pos = sub.pos;
    memcpy(name, sub.name, sizeof name);
    if (next(&sub) < 0 || expect(&sub, T_EQ, "in the '%' rate definition") < 0)
        return -1;
    pepa_expr *e = expr(&sub);
    if (!e || pepa_model_define_rate(ps->m, name, e, pos, ps->err) < 0)
        return -1;
    return sub.t == T_SEMI ? 0 : expect(&sub, T_SEMI, "at the end of the definition");
}

/* The '%' definitions of names used and otherwise undefined, until none is
 * left (one may use a rate another defines). */
static int pct_resolve(parser *ps)
{
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t k = 0; k < ps->npct; k++) {
            const char *p = ps->pct[k].at;
            while (*p == ' ' || *p == '\t')
                p++;
            char name[PEPA_MAX_NAME + 1];
            size_t n = 0;
            while (n < PEPA_MAX_NAME && (isalnum((unsigned char)p[n]) || p[n] == '_'))
                name[n] = p[n], n++;
            name[n] = '\0';
            int id = pepa_model_find_rate(ps->m, name);
            if (id < 0 || pepa_model_rate(ps->m, id)->expr)
                continue;
            if (pct_define(ps, &ps->pct[k]) < 0)
                return -1;
            progress = 1;
        }
    }
    return 0;
}

/* Array sizes, now that every rate is defined. */
static int size_arrays(parser *ps)
{
    for (size_t k = 0; k < ps->narrays; k++) {
        pepa_rate r;
        const pepa_expr *e = ps->arrays[k].size;
        if (pepa_eval_rate(ps->m, e, &r, ps->err) < 0)
            return -1;
        if (r.w > 0 || !(r.r >= 1) || r.r != floor(r.r))
            return diag_at(ps->err, pepa_model_file(ps->m), e->pos.line, e->pos.col,
                           "an array size must be a positive whole number of copies, but this one is %s%g",
                           r.w > 0 ? "passive, weight " : "", r.w > 0 ? r.w : r.r);
        if (r.r > (double)LONG_MAX / 2)
            return diag_at(ps->err, pepa_model_file(ps->m), e->pos.line, e->pos.col,
                           "array size %g is too large", r.r);
        ps->arrays[k].array->count = (long)r.r;
    }
    return 0;
}

pepa_model *pepa_parse_string(const char *text, size_t len, const char *file, diag *err)
{
    diag local;
    if (!err) {
        diag_clear(&local);
        err = &local;
    }
    pepa_model *m = pepa_model_new(file);
    if (!m) {
        diag_set(err, "out of memory");
        return NULL;
    }
    parser ps = { .s = text, .end = text + len, .p = text, .line = 1, .line_start = text,
                  .m = m, .err = err };
    if (memchr(text, '\0', len)) {
        const char *z = memchr(text, '\0', len);
        int line = 1;
        for (const char *c = text; c < z; c++)
            line += *c == '\n';
        diag_at(err, pepa_model_file(m), line, 0, "the file contains a NUL byte (is it a text file?)");
        pepa_model_free(m);
        return NULL;
    }
    if (next(&ps) < 0)
        goto fail;
    while (ps.t != T_EOF)
        if (definition_or_system(&ps) < 0)
            goto fail;
    if (pct_resolve(&ps) < 0 || size_arrays(&ps) < 0)
        goto fail;
    if (!pepa_model_system(m)) {
        diag_at(err, pepa_model_file(m), ps.pos.line, ps.pos.col,
                "the model has no system equation (the last line should name the composed processes)");
        goto fail;
    }
    free(ps.pct);
    free(ps.arrays);
    return m;
fail:
    free(ps.pct);
    free(ps.arrays);
    pepa_model_free(m);
    return NULL;
}

pepa_model *pepa_parse_file(const char *path, diag *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        diag_set(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
        if (len == cap) {
            if (cap >= PEPA_MAX_FILE) {
                free(buf);
                buf = NULL;
                diag_set(err, "%s: file larger than %zu MiB", path, PEPA_MAX_FILE >> 20);
                break;
            }
            if (mem_grow((void **)&buf, cap * 2, 1) < 0) {
                free(buf);
                buf = NULL;
            }
            cap *= 2;
        }
    }
    int rerr = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf) {
        diag_set(err, "%s: out of memory", path);
        return NULL;
    }
    if (rerr) {
        free(buf);
        diag_set(err, "%s: read error", path);
        return NULL;
    }
    pepa_model *m = pepa_parse_string(buf, len, path, err);
    free(buf);
    return m;
}
