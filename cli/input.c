/* cli_input: load a PEPA model or a placed skeleton. See input.h. */
#define _POSIX_C_SOURCE 200809L
#include "input.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpel/bpel.h"
#include "cli/util.h"
#include "pepa/parse.h"
#include "slurm/skelslurm.h"

/* The first word of the file, comments and blanks skipped, and whether a
 * '(' follows it. */
int cli_is_skeleton(const char *path, diag *err)
{
    static const char *words[] = { "pipe", "deal", "farm", "task", "xdeal", "xfarm", "par", "choice", "loop" };
    if (strcmp(path, "-") == 0)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_set(err, "%s: %s", path, strerror(errno));
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = buf;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '/' && p[1] == '/') {
            p = strchr(p, '\n');
            if (!p)
                return 0;
        } else if (p[0] == '/' && p[1] == '*') {
            p = strstr(p + 2, "*/");
            if (!p)
                return 0;
            p += 2;
        } else if (p[0] == '#' && !isalpha((unsigned char)p[1])) {
            p = strchr(p, '\n');
            if (!p)
                return 0;
        } else {
            break;
        }
    }
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t len = strlen(words[i]);
        if (strncmp(p, words[i], len) == 0) {
            const char *q = p + len;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '(')
                return 1;
        }
    }
    return 0;
}

int cli_style_parse(const char *s, skel_style *style)
{
    if (strcmp(s, "stream") == 0)
        *style = SKEL_STYLE_STREAM;
    else if (strcmp(s, "producer") == 0)
        *style = SKEL_STYLE_PRODUCER;
    else
        return -1;
    return 0;
}

int cli_input_option(const char *cmd, int code, const char *v, cli_input_opts *o)
{
    switch (code) {
    case CLI_IN_PLATFORM: o->platform = v; return 1;
    case CLI_IN_PLACE: o->place = v; return 1;
    case CLI_IN_SHARING:
        if (cli_sharing_arg(cmd, v) < 0)
            return -1;
        o->sharing = v;
        return 1;
    case CLI_IN_BUFFER: o->buffer = v; return 1;
    case CLI_IN_LINK_SCV: o->link_scv = v; return 1;
    case CLI_IN_STYLE:
        if (cli_style_parse(v, &o->style) < 0) {
            fprintf(stderr, "skelsched %s: --style must be producer or stream, not '%s'\n", cmd, v);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

int cli_input_operand(const char *cmd, const char *arg, const char **file)
{
    if (arg[0] == '-' && arg[1] != '\0') {
        fprintf(stderr, "skelsched %s: unknown option '%s' (see skelsched %s --help)\n", cmd, arg,
                cmd);
        return -1;
    }
    if (*file) {
        fprintf(stderr, "skelsched %s: one skeleton description only\n", cmd);
        return -1;
    }
    *file = arg;
    return 0;
}

/* --buffer and --link-scv over the platform's (docs/platform.md). */
static int links_opts(const cli_input_opts *o, skel_platform *p, diag *err)
{
    char *end;
    if (o->buffer) {
        long b = strtol(o->buffer, &end, 10);
        if (end == o->buffer || *end || b < 0 || b > SKEL_MAX_BUFFER)
            return diag_set(err, "--buffer must be a whole number of items from 0 to %d, not '%s'",
                            SKEL_MAX_BUFFER, o->buffer);
        p->job_buffer = (int)b;
    }
    if (o->link_scv) {
        double c = strtod(o->link_scv, &end);
        if (end == o->link_scv || *end || !(c >= SKEL_MIN_SCV && c <= SKEL_MAX_SCV))
            return diag_set(err, "--link-scv must be a number from %g to %g, not '%s'",
                            SKEL_MIN_SCV, SKEL_MAX_SCV, o->link_scv);
        p->link_scv = c;
    }
    return 0;
}

/* Build the model of in->tree (already loaded) placed on the platform. */
static int place_tree(const cli_input_opts *o, cli_input *in, diag *err)
{
    int n = skel_tree_ntasks(in->tree);
    if (!(in->dag = skel_dag_build(in->tree, o->style, err)))
        return -1;
    /* the Slurm plugin's keys are accepted (and checked), so that an
     * administrator can preview its decision on skeleton.conf itself */
    slurmsk_conf keys;
    slurmsk_conf_defaults(&keys);
    in->platform = o->platform ? skel_platform_parse_file(o->platform, slurmsk_conf_key, &keys, err)
                               : skel_platform_default(n, err);
    slurmsk_conf_keys_clear(&keys);     /* CPUs= lines: the plugin's only */
    if (!in->platform)
        return -1;
    if (in->platform->nnodes == 0)
        return diag_set(err, "%s: no nodes (add NodeName= lines)", in->platform->file);
    if (o->sharing && skel_sharing_parse(o->sharing, &in->platform->sharing) < 0)
        return diag_set(err, "--sharing must be ps or static, not '%s'", o->sharing);
    if (links_opts(o, in->platform, err) < 0)
        return -1;
    if (!(in->node_of_task = malloc((size_t)(n ? n : 1) * sizeof *in->node_of_task)))
        return diag_set(err, "out of memory");
    skel_place_default(n, in->platform, in->node_of_task);
    if (o->place && skel_place_parse(o->place, n, in->platform, in->node_of_task, err) < 0)
        return diag_prefix(err, "--place: ");
    if (o->unplaced) {
        if (!(in->skel = skel_model_new_placed(in->tree, in->dag, in->platform, NULL, err)) ||
            skel_model_place(in->skel, in->platform, in->node_of_task, err) < 0)
            return -1;
    } else if (!(in->skel = (o->no_lump ? skel_model_new_placed : skel_model_new_lumped)(
                     in->tree, in->dag, in->platform, in->node_of_task, err))) {
        return -1;
    }
    in->model = in->skel->pepa;
    return 0;
}

static int load_skeleton(const char *path, const cli_input_opts *o, cli_input *in, diag *err)
{
    if (!(in->tree = skel_parse_file(path, err)))
        return -1;
    return place_tree(o, in, err);
}

/* A BPEL process becomes a skeleton (bpel/), then goes the same way. */
static int load_bpel(const char *path, const cli_input_opts *o, cli_input *in, diag *err)
{
    char *warning = NULL;
    if (!(in->tree = bpel_load_skeleton(path, NULL, &warning, err)))
        return -1;
    if (warning)
        fprintf(stderr, "%s\n", warning);   /* lines naming their file */
    free(warning);
    return place_tree(o, in, err);
}

int cli_input_load(const char *path, const cli_input_opts *o, cli_input *in, diag *err)
{
    memset(in, 0, sizeof *in);
    if (bpel_is_bpel_path(path))
        return load_bpel(path, o, in, err);
    int sk = o->skeleton ? 1 : cli_is_skeleton(path, err);
    if (sk < 0)
        return -1;
    if (sk)
        return load_skeleton(path, o, in, err);
    if (o->platform || o->place)
        return diag_set(err, "%s: --platform and --place apply to skeleton descriptions, not to PEPA models",
                        path);
    if (!(in->own = pepa_parse_file(path, err)))
        return -1;
    in->model = in->own;
    return 0;
}

void cli_input_free(cli_input *in)
{
    free(in->node_of_task);
    skel_platform_free(in->platform);
    skel_model_free(in->skel);
    skel_dag_free(in->dag);
    skel_tree_free(in->tree);
    pepa_model_free(in->own);
    memset(in, 0, sizeof *in);
}

int cli_parse_input(cli_parser *p, const char **file, cli_input_opts *o, cli_take_fn take,
                    void *cmd_args, void (*usage)(FILE *))
{
    for (int c, rc; (c = cli_parser_next(p)) != CLI_END;) {
        if (c == CLI_NO_VALUE)
            return cli_no_value(p);
        if (c < 0 && cli_input_operand(p->cmd, p->arg, file) < 0)
            return 2;
        if (c < 0 || (rc = cli_input_option(p->cmd, c, p->value, o)) > 0)
            continue;
        if (rc < 0)
            return 2;
        if ((rc = take(cmd_args, c, p->value)) >= 0)
            return rc;
    }
    if (!*file) {
        fprintf(stderr, "skelsched %s: expected a skeleton description\n", p->cmd);
        usage(stderr);
        return 2;
    }
    return -1;
}
