/* cli_json: the JSON writer of the skelsched commands. It keeps the
 * commas and the nesting, so that a command says what it writes, not how:
 *
 *     cli_json j;
 *     cli_json_start(&j, stdout);
 *     cli_json_object(&j, NULL);                {
 *     cli_json_string(&j, "model", path);         "model": "m.pepa",
 *     cli_json_array(&j, "placement");            "placement": [
 *     cli_json_number(&j, NULL, 1.5);               1.5
 *     cli_json_end(&j);                           ]
 *     cli_json_end(&j);                         }
 *
 * in the one-line layout the commands have always printed ("key": value
 * pairs separated by ", "). A key of NULL is an array member or the top
 * value. Strings are escaped (quote, backslash and every control
 * character); a non-finite number is null, since JSON has no NaN. */
#ifndef SKELSCHED_CLI_JSON_H
#define SKELSCHED_CLI_JSON_H

#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 16

typedef struct cli_json {
    FILE *f;
    int depth;
    unsigned char first[CLI_JSON_MAX_DEPTH];   /* per level: no member written yet */
    char close[CLI_JSON_MAX_DEPTH];            /* per level: '}' or ']' */
} cli_json;

void cli_json_start(cli_json *j, FILE *f);

/* Open an object or an array (key: as for a member). */
void cli_json_object(cli_json *j, const char *key);
void cli_json_array(cli_json *j, const char *key);

/* Close the innermost object or array. */
void cli_json_end(cli_json *j);

void cli_json_string(cli_json *j, const char *key, const char *s);
void cli_json_number(cli_json *j, const char *key, double v);      /* %.17g: exact */
void cli_json_int(cli_json *j, const char *key, long long v);
void cli_json_uint(cli_json *j, const char *key, unsigned long long v);
void cli_json_bool(cli_json *j, const char *key, int v);
void cli_json_null(cli_json *j, const char *key);

/* The values alone, for text that is not built through a cli_json:
 * s as a JSON string literal (quotes included; bytes that are not UTF-8
 * become U+FFFD), v as a number (%.17g, null when not finite). */
void json_string(FILE *f, const char *s);
void json_number(FILE *f, double v);

/* A number in printf format fmt (e.g. "%.6f" for seconds), as is. */
void cli_json_numberf(cli_json *j, const char *key, const char *fmt, double v);

#endif
