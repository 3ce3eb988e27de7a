/* skeleton/gen_gate.c: the gates of the loops (skel_gate): what each
 * counts, as the Loop<k> components of the system equation and as local
 * graphs for a node's product (gen_product.c). */
#include "gen_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The moves into loop k's body from outside (enter, each once) and out of
 * it (leave): what its gate counts. */
static void gate_moves(const gen *g, int k, int *enter, int *nin, int *leave, int *nout)
{
    const skel_gate *gt = &g->dag->gates[k];
    for (int e = 0; e < g->dag->nedges; e++) {
        int f = g->dag->edges[e].from, t = g->dag->edges[e].to;
        int fin = f >= gt->lo && f < gt->hi, tin = t >= gt->lo && t < gt->hi;
        if (tin && !fin)
            gen_add_act(enter, nin, g->move[e]);
        else if (fin && !tin)
            gen_add_act(leave, nout, g->move[e]);
    }
}

/* The local graphs of the first ng loops' gates (gls[k], zeroed by the
 * caller), for a node's product to keep no more items in a loop than its
 * cap. */
int gen_gate_graphs(const gen *g, lgraph *gls, int ng)
{
    int ne = g->dag->nedges, rc = 0;
    int *acts = malloc(2 * (size_t)(ne ? ne : 1) * sizeof *acts);
    for (int k = 0; k < ng && acts && rc == 0; k++) {
        int nin = 0, nout = 0;
        gate_moves(g, k, acts, &nin, acts + ne, &nout);
        rc = skel_gate_graph(g->dag->gates[k].cap, acts, nin, acts + ne, nout, &gls[k]);
    }
    free(acts);
    return acts ? rc : -1;
}

/* The gate of loop k (skel_gate): Loop<k>_<c> holds c items; an item enters
 * by a move into the body from outside and leaves by a move out of it. */
pepa_proc *gen_gate(gen *g, int k, int *acts)
{
    const skel_gate *gt = &g->dag->gates[k];
    int nin = 0, nout = 0;
    int *enter = acts, *leave = acts + g->dag->nedges;
    gate_moves(g, k, enter, &nin, leave, &nout);
    char name[64];
    int *pid = malloc((size_t)(gt->cap + 1) * sizeof *pid);
    if (!pid) {
        gen_oom(g);
        return NULL;
    }
    for (int c = 0; c <= gt->cap; c++) {
        snprintf(name, sizeof name, c ? "Loop%d_%d" : "Loop%d", k, c);
        if ((pid[c] = pepa_model_proc_id(g->pm, name)) < 0) {
            free(pid);
            gen_oom(g);
            return NULL;
        }
    }
    pepa_proc *res = NULL;
    for (int c = 0; c <= gt->cap; c++) {
        pepa_proc *body = NULL;
        for (int j = 0; c < gt->cap && j < nin; j++) {
            pepa_expr *r = pepa_infty(g->pm);
            pepa_proc *to = pepa_const(g->pm, pid[c + 1]);
            pepa_proc *p = r && to ? pepa_prefix(g->pm, enter[j], r, to) : NULL;
            body = !p ? NULL : body ? pepa_choice(g->pm, body, p) : p;
            if (!body)
                goto nomem;
        }
        for (int j = 0; c > 0 && j < nout; j++) {
            pepa_expr *r = pepa_infty(g->pm);
            pepa_proc *to = pepa_const(g->pm, pid[c - 1]);
            pepa_proc *p = r && to ? pepa_prefix(g->pm, leave[j], r, to) : NULL;
            body = !p ? NULL : body ? pepa_choice(g->pm, body, p) : p;
            if (!body)
                goto nomem;
        }
        snprintf(name, sizeof name, c ? "Loop%d_%d" : "Loop%d", k, c);
        if (!body) {
            diag_at(g->err, skel_tree_file(g->tree), gt->line, gt->col,
                    "this loop has no move into or out of its body");
            free(pid);
            return NULL;
        }
        if (pepa_model_define_proc(g->pm, name, body, gen_nopos, g->err) < 0) {
            free(pid);
            return NULL;
        }
    }
    res = pepa_const(g->pm, pid[0]);
    /* its cooperation set: the enter and leave moves, contiguous */
    memmove(acts + nin, leave, (size_t)nout * sizeof *acts);
    g->gate_acts = nin + nout;
    free(pid);
    if (!res)
        gen_oom(g);
    return res;
nomem:
    free(pid);
    gen_oom(g);
    return NULL;
}
