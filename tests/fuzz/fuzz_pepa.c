/* Fuzz target for PEPA models: any bytes must give a solved chain or a
 * message - never a crash, a leak or a hang. Past the parser it runs what
 * `skelsched solve` runs (checks, compilation, derivation, classification,
 * steady state, measures) under small limits, so that a model the parser
 * accepts exercises the engine too. Built by `make fuzz` (libFuzzer) and by
 * `make check` with tests/fuzz/replay.c (the regression corpus). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pepa/check.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void solve(pepa_space *sp, diag *err)
{
    pepa_chain_class cls;
    if (sp->deadlocks || pepa_space_classify(sp, &cls, err) < 0 || cls.bottom > 1)
        return;
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.max_iter = 2000;
    so.time_limit = 0.5;
    double *pi = malloc((size_t)sp->n * sizeof *pi);
    double *thr = malloc((size_t)sp->sys->nactions * sizeof *thr);
    pepa_solve_result res;
    if (pi && thr && pepa_solve(sp->q, &so, pi, &res, err) == 0)
        pepa_space_throughput(sp, pi, thr, err);
    free(thr);
    free(pi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_string((const char *)data, size, "fuzz.pepa", &err);
    pepa_system *s = NULL;
    if (m && pepa_check(m, NULL, NULL, &err) == 0 && (s = pepa_system_new(m, &err)) &&
        pepa_check_system(s, NULL, NULL, &err) == 0) {
        pepa_derive_opts d = { .max_states = 2000, .time_limit = 0.5, .threads = 1 };
        pepa_space *sp = pepa_derive(s, &d, &err);
        if (sp)
            solve(sp, &err);
        pepa_space_free(sp);
    }
    pepa_system_free(s);
    pepa_model_free(m);
    return 0;
}
