/* Fuzz target for skeleton descriptions: any bytes must give a tree or a
 * message. A tree the parser accepts goes on through what `skelsched gen`
 * does (the task graph in both boundary styles, the PEPA model) and its
 * default placement on a two-node platform, so that every stage sees
 * hostile shapes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "skeleton/skeleton.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void generate(const skel_tree *t, skel_style style, const skel_platform *p, diag *err)
{
    skel_dag *d = skel_dag_build(t, style, err);
    skel_model *m = d ? skel_model_new(t, d, err) : NULL;
    if (m) {
        int *where = malloc((size_t)m->ntasks * sizeof *where);
        if (where) {
            skel_place_default(m->ntasks, p, where);
            skel_model_place(m, p, where, err);
        }
        free(where);
    }
    skel_model_free(m);
    skel_dag_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag err;
    diag_clear(&err);
    skel_tree *t = skel_parse_string((const char *)data, size, "fuzz.skel", &err);
    skel_platform *p = t ? skel_platform_default(2, &err) : NULL;
    if (p) {
        generate(t, SKEL_STYLE_PRODUCER, p, &err);
        generate(t, SKEL_STYLE_STREAM, p, &err);
    }
    skel_platform_free(p);
    skel_tree_free(t);
    return 0;
}
