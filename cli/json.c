/* The JSON writer of the skelsched commands (cli/json.h). */
#include "cli/json.h"

#include <math.h>

/* The length of the UTF-8 sequence at s (1 to 4), or 0 when s does not
 * start a valid one (a stray continuation byte, an overlong or surrogate
 * form, a code point above U+10FFFF, a truncated sequence). */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
          : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
        (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

void json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        int n = utf8_length(p);
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else if (n == 0)
            fputs("\\ufffd", f);
        else
            fwrite(p, 1, (size_t)n, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}

void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

void cli_json_start(cli_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = 1;
}

/* The separator and key before a member of the innermost level. */
static void member(cli_json *j, const char *key)
{
    if (!j->first[j->depth])
        fputs(", ", j->f);
    j->first[j->depth] = 0;
    if (key) {
        json_string(j->f, key);
        fputs(": ", j->f);
    }
}

static void open_level(cli_json *j, const char *key, char opening, char closing)
{
    member(j, key);
    fputc(opening, j->f);
    if (j->depth + 1 < CLI_JSON_MAX_DEPTH)   /* deeper: a caller's bug, kept valid */
        j->depth++;
    j->first[j->depth] = 1;
    j->close[j->depth] = closing;
}

void cli_json_object(cli_json *j, const char *key)
{
    open_level(j, key, '{', '}');
}

void cli_json_array(cli_json *j, const char *key)
{
    open_level(j, key, '[', ']');
}

void cli_json_end(cli_json *j)
{
    if (j->depth == 0)
        return;
    fputc(j->close[j->depth], j->f);
    j->depth--;
}

void cli_json_string(cli_json *j, const char *key, const char *s)
{
    member(j, key);
    json_string(j->f, s);
}

void cli_json_number(cli_json *j, const char *key, double v)
{
    member(j, key);
    json_number(j->f, v);
}

void cli_json_int(cli_json *j, const char *key, long long v)
{
    member(j, key);
    fprintf(j->f, "%lld", v);
}

void cli_json_uint(cli_json *j, const char *key, unsigned long long v)
{
    member(j, key);
    fprintf(j->f, "%llu", v);
}

void cli_json_bool(cli_json *j, const char *key, int v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->f);
}

void cli_json_null(cli_json *j, const char *key)
{
    member(j, key);
    fputs("null", j->f);
}

void cli_json_numberf(cli_json *j, const char *key, const char *fmt, double v)
{
    member(j, key);
    fprintf(j->f, fmt, v);
}
