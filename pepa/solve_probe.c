/* pepa_solve_probe: AUTO's cheap look at the LU's cost before the
 * analysis of the whole chain (see solve.h for what it rests on), and
 * pepa_solve_pattern_symmetry: which of UMFPACK's strategies the chain
 * would get, which says whether a ball is counted by AMD (symmetric) or
 * by UMFPACK's own analysis of the ball (unsymmetric).
 *
 * A ball is the first k states of a breadth-first search from state 0
 * over the chain's rows (Q^T's: the predecessors, which reach every state
 * of an irreducible chain); its pattern is the chain's restricted to it,
 * renumbered in search order, and SuiteSparse AMD orders it and counts
 * its Cholesky factor (AMD_LNZ) and an LU's flops on that pattern
 * (AMD_NDIV + 2 AMD_NMULTSUBS_LU, as lu.c's predict counts them). The
 * bytes are those of L and U in double, a floor of what UMFPACK
 * predicts. */
#include "solve.h"
#include "internal.h"

#include <stdlib.h>

/* Is (i, j) in row j of q (entries sorted by col)? */
static int has_entry(const pepa_ctmc *q, uint32_t j, uint32_t i)
{
    uint64_t lo = q->rowp[j], hi = q->rowp[j + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (q->col[mid] == i)
            return 1;
        if (q->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

double pepa_solve_pattern_symmetry(const pepa_ctmc *q)
{
    uint64_t off = 0, matched = 0;
    for (uint32_t j = 0; j < q->n; j++)
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++) {
            uint32_t i = q->col[k];
            if (i == j)
                continue;
            off++;
            matched += (uint64_t)has_entry(q, i, j);
        }
    return off ? (double)matched / (double)off : 1.0;
}

#ifdef HAVE_UMFPACK
#include <suitesparse/amd.h>
#include <suitesparse/umfpack.h>

/* The probe's scratch: the search order, each state's place in it
 * (UINT32_MAX: not reached), and the ball's pattern by columns (with
 * values x for UMFPACK, on a pattern it orders by its unsymmetric
 * strategy; NULL for AMD). */
typedef struct probe {
    uint32_t *order, *place, reached, head;
    int64_t *p, *i, *perm;
    double *x;
} probe;

static void probe_free(probe *b)
{
    free(b->x);
    free(b->perm);
    free(b->i);
    free(b->p);
    free(b->place);
    free(b->order);
}

/* Go on with the search until want states are reached (or all are). */
static void grow(const pepa_ctmc *q, probe *b, uint32_t want)
{
    while (b->head < b->reached && b->reached < want) {
        uint32_t j = b->order[b->head++];
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1] && b->reached < want; k++) {
            uint32_t i = q->col[k];
            if (b->place[i] == UINT32_MAX) {
                b->place[i] = b->reached;
                b->order[b->reached++] = i;
            }
        }
    }
}

/* AMD's count for the ball of the first b->reached states. Returns 0, or
 * -1 when AMD fails (out of memory). */
static int ball_fill(const pepa_ctmc *q, probe *b, double *bytes, double *flops)
{
    uint32_t m = b->reached;
    int64_t nz = 0;
    for (uint32_t a = 0; a < m; a++) {
        uint32_t j = b->order[a];
        b->p[a] = nz;
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            if (b->place[q->col[k]] < m)
                b->i[nz++] = b->place[q->col[k]];
    }
    b->p[m] = nz;
    double info[AMD_INFO];
    int st = amd_l_order(m, b->p, b->i, b->perm, NULL, info);
    if (st != AMD_OK && st != AMD_OK_BUT_JUMBLED)
        return -1;
    *flops = info[AMD_NDIV] + 2.0 * info[AMD_NMULTSUBS_LU];
    *bytes = 8.0 * (2.0 * info[AMD_LNZ] + (double)m);
    return 0;
}

/* UMFPACK's own estimate for the ball of the first b->reached states, its
 * matrix the direct solver's restricted to the ball (pepa_solve_umf_matrix:
 * a state's predecessors in the ball and its diagonal, -out), analysed
 * with AUTO's controls: on a pattern below PEPA_UMFPACK_SYMMETRIC,
 * singletons removed, then COLAMD.
 * Returns 0, or -1 when the analysis fails. */
static int ball_umfpack(const pepa_ctmc *q, probe *b, double *bytes, double *flops)
{
    uint32_t m = b->reached;
    pepa_solve_umf_matrix(q, m, b->order, b->place, b->p, b->i, b->x, NULL);
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    void *sym = NULL;
    umfpack_dl_defaults(control);
    control[UMFPACK_PRL] = 0;
    SuiteSparse_long st = umfpack_dl_symbolic(m, m, b->p, b->i, b->x, &sym, control, info);
    umfpack_dl_free_symbolic(&sym);
    if (st != UMFPACK_OK)
        return -1;
    *flops = info[UMFPACK_FLOPS_ESTIMATE];
    *bytes = info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT];
    return 0;
}

/* The scratch for balls up to a quarter of q (values when unsym).
 * Returns 0, or -1 when out of memory. */
static int probe_alloc(const pepa_ctmc *q, int unsym, probe *b)
{
    size_t n = q->n, nz = (size_t)q->nnz + n / 4 + 1;
    b->order = malloc(n * sizeof *b->order);
    b->place = malloc(n * sizeof *b->place);
    b->p = malloc((n / 4 + 1) * sizeof *b->p);
    b->i = malloc(nz * sizeof *b->i);
    b->perm = malloc((n / 4 + 1) * sizeof *b->perm);
    b->x = unsym ? malloc(nz * sizeof *b->x) : NULL;
    return b->order && b->place && b->p && b->i && b->perm && (b->x || !unsym) ? 0 : -1;
}

int pepa_solve_probe(const pepa_ctmc *q, double max_bytes, double max_flops, uint32_t *states,
                     double *bytes, double *flops)
{
    uint32_t n = q->n;
    *states = 0;
    if (n < PEPA_PROBE_MIN_STATES)
        return 0;
    int unsym = pepa_solve_pattern_symmetry(q) < PEPA_UMFPACK_SYMMETRIC;
    probe b = {0};
    int over = 0;
    if (probe_alloc(q, unsym, &b) == 0) {
        for (uint32_t j = 0; j < n; j++)
            b.place[j] = UINT32_MAX;
        b.place[0] = 0;
        b.order[b.reached++] = 0;
        for (uint32_t want = PEPA_PROBE_FIRST; !over && want <= n / 4; want *= 2) {
            grow(q, &b, want);
            if (b.reached < want)
                break;                  /* not irreducible: no decision */
            if (unsym ? ball_umfpack(q, &b, bytes, flops) : ball_fill(q, &b, bytes, flops))
                break;                  /* out of memory: no decision */
            over = *bytes > PEPA_PROBE_MARGIN * max_bytes
                   || *flops > PEPA_PROBE_MARGIN * max_flops;
        }
    }
    *states = over ? b.reached : 0;
    probe_free(&b);
    return over;
}

#else /* !HAVE_UMFPACK */

int pepa_solve_probe(const pepa_ctmc *q, double max_bytes, double max_flops, uint32_t *states,
                     double *bytes, double *flops)
{
    (void)q;
    (void)max_bytes;
    (void)max_flops;
    (void)bytes;
    (void)flops;
    *states = 0;
    return 0;
}

#endif
