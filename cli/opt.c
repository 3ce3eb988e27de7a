/* The one option parser of the skelsched commands (cli/opt.h). */
#include <stdio.h>
#include <string.h>

#include "cli/opt.h"

void cli_parser_init(cli_parser *p, const char *cmd, int argc, char **argv, const cli_opt *opts,
                     cli_syntax syntax)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    p->opts = opts;
    p->syntax = syntax;
}

/* The table's entry for the first len characters of arg: the exact name,
 * or under CLI_GNU a unique prefix of a long name; NULL when none is. */
static const cli_opt *find(const cli_parser *p, const char *arg, size_t len)
{
    const cli_opt *hit = NULL;
    int prefixes = 0;
    for (const cli_opt *o = p->opts; o->name; o++) {
        if (strncmp(o->name, arg, len) != 0)
            continue;
        if (o->name[len] == '\0')
            return o;
        if (p->syntax == CLI_GNU && len > 2 && arg[1] == '-') {
            hit = o;
            prefixes++;
        }
    }
    return prefixes == 1 ? hit : NULL;
}

/* The option at argv[p->i], taking its value (advancing p->i past it). */
static int option(cli_parser *p)
{
    const char *eq = strchr(p->arg, '=');
    const cli_opt *o = find(p, p->arg, eq ? (size_t)(eq - p->arg) : strlen(p->arg));
    if (!o || (o->arg == CLI_FLAG && eq))
        return CLI_UNKNOWN;
    if (o->arg == CLI_VALUE) {
        if (eq)
            p->value = eq + 1;
        else if (p->i + 1 < p->argc)
            p->value = p->argv[++p->i];
        else
            return CLI_NO_VALUE;
    }
    return o->code;
}

int cli_parser_next(cli_parser *p)
{
    while (++p->i < p->argc) {
        p->arg = p->argv[p->i];
        p->value = NULL;
        int is_option = !p->rest && p->arg[0] == '-' && p->arg[1] != '\0';
        if (is_option && p->syntax == CLI_GNU && strcmp(p->arg, "--") == 0) {
            p->rest = 1;
            continue;
        }
        if (!is_option) {
            if (p->syntax == CLI_GNU && !p->operands)
                continue;                /* after the options, as getopt_long permutes */
            return CLI_OPERAND;
        }
        int code = option(p);
        if (!p->operands)
            return code;                 /* the second pass skips what the first took */
    }
    if (p->syntax == CLI_GNU && !p->operands) {
        p->operands = 1;
        p->rest = 0;
        p->i = 0;
        return cli_parser_next(p);
    }
    return CLI_END;
}

int cli_no_value(const cli_parser *p)
{
    fprintf(stderr, "skelsched %s: %s needs a value\n", p->cmd, p->arg);
    return 2;
}

int cli_parse_gnu(cli_parser *p, void (*usage)(FILE *), cli_take_fn take, void *cmd_args,
                  const char **path, int *operands)
{
    for (int c; (c = cli_parser_next(p)) != CLI_END;) {
        if (c == CLI_OPERAND) {
            *path = (*operands)++ ? *path : p->arg;
            continue;
        }
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == CLI_UNKNOWN || c == CLI_NO_VALUE) {
            fprintf(stderr, "skelsched %s: unknown or incomplete option '%s'\n", p->cmd, p->arg);
            usage(stderr);
            return 2;
        }
        if (take(cmd_args, c, p->value) < 0)
            return 2;
    }
    return -1;
}
