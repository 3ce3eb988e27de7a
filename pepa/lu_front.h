/* The numerical phase of pepa/lu.c, in one precision: included by lu.c
 * once for double and once for float (the way CSparse and UMFPACK build
 * one source for several types), with
 *   REAL                    double or float
 *   F(name)                 name with the precision's suffix
 *   LX, UX                  the pepa_lu fields holding the factors
 *   GETRF LASWP TRSM GEMM TRSV GEMV   the LAPACK/BLAS routines
 *   KGETRF(w) KLASWP(w) KTRSM(w) KGEMM(w)   those the factorisation calls
 *                           on the thread of working set w.
 * Not a public header: see lu.h. */

/* Where the blocks of supernode s's front are (see lu.c's top): the panel
 * [F11; F21] (nr x nc, leading dimension nr), F12 (nc x nb, leading
 * dimension nc) and F22 (nb x nb, leading dimension nb). */
typedef struct F(lu_front) {
    lu_int nc, nb, nr;
    REAL *panel, *f12, *f22;
} F(lu_front);

/* The block of n entries at offset off from the stack's bottom: the
 * stack grows down from w->stk (the end of the factors' array, lu.c's
 * top, or of a stack of its own on two threads, lu_sub.h). */
static REAL *F(stack_at)(const lu_work *w, size_t off, size_t n)
{
    return (REAL *)w->stk - off - n;
}

/* B's entries of supernode s into the front: column k's entries on and
 * below the diagonal block (the panel), row k's right of it (F12). */
static void F(assemble_original)(const pepa_lu *lu, lu_int s, const lu_work *w,
                                 const F(lu_front) *f)
{
    lu_int k1 = lu->super[s], k2 = lu->super[s + 1];
    for (lu_int k = k1; k < k2; k++) {
        lu_int j = lu->perm[k];
        REAL *col = f->panel + (size_t)(k - k1) * (size_t)f->nr;
        for (int64_t p = w->ap[j]; p < w->ap[j + 1]; p++) {
            lu_int i = lu->iperm[w->ai[p]];
            if (i >= k1)
                col[w->map[i]] += (REAL)w->ax[p];
        }
        for (int64_t p = w->tp[j]; p < w->tp[j + 1]; p++) {
            lu_int i = lu->iperm[w->ti[p]];
            if (i >= k2)
                f->f12[(size_t)(w->map[i] - f->nc) * (size_t)f->nc + (size_t)(k - k1)]
                    += (REAL)w->tx[p];
        }
    }
}

/* Column jj of a child's block (nb rows r, values src) added into the
 * front. Its rows are sorted, and so are the front's, so the rows that
 * fall in F12 come before those in F22. */
static void F(add_column)(const lu_work *w, const F(lu_front) *f, const lu_int *r, lu_int nb,
                          const REAL *src, lu_int jj)
{
    lu_int c = w->map[r[jj]], ii = 0;
    if (c < f->nc) {                    /* a pivot column: the panel */
        REAL *col = f->panel + (size_t)c * (size_t)f->nr;
        for (; ii < nb; ii++)
            col[w->map[r[ii]]] += src[ii];
        return;
    }
    REAL *up = f->f12 + (size_t)(c - f->nc) * (size_t)f->nc;
    REAL *lo = f->f22 + (size_t)(c - f->nc) * (size_t)f->nb;
    for (; ii < nb && w->map[r[ii]] < f->nc; ii++)
        up[w->map[r[ii]]] += src[ii];
    for (; ii < nb; ii++)
        lo[w->map[r[ii]] - f->nc] += src[ii];
}

#ifdef PAR_DENSE
/* A large front's assembly by chunks of LU_PAR_CHUNK_ASM of its columns,
 * on one thread or two (lu_par_chunks): each chunk zeroes its columns,
 * adds B's entries and then the children's, the last child first. An
 * entry of the front lies in one column, so it gets the same additions
 * in the same order as from the whole-front routines above: the same
 * bits. The columns' F12 entries of B are read down B's columns (those
 * above read them along its rows), each entry once either way. */
#define LU_PAR_CHUNK_ASM 128

/* Is the front large: LU_PAR_MIN_FLOPS or more, its assembly and dense
 * step chunked on one thread or two? */
static int F(large)(const F(lu_front) *f)
{
    double nc = (double)f->nc, nb = (double)f->nb;
    return nc * nc * (2.0 / 3.0 * nc + 2.0 * nb) + 2.0 * nc * nb * nb >= LU_PAR_MIN_FLOPS;
}

typedef struct F(lu_asm) {
    const pepa_lu *lu;
    lu_int s;
    const lu_work *w;
    const F(lu_front) *f;
} F(lu_asm);

/* Front column c zeroed and given B's entries. */
static void F(asm_column)(const F(lu_asm) *a, lu_int c)
{
    const pepa_lu *lu = a->lu;
    const lu_work *w = a->w;
    const F(lu_front) *f = a->f;
    lu_int k1 = lu->super[a->s], k2 = lu->super[a->s + 1];
    if (c < f->nc) {                    /* pivot column k1 + c of the panel */
        REAL *col = f->panel + (size_t)c * (size_t)f->nr;
        lu_int j = lu->perm[k1 + c];
        memset(col, 0, (size_t)f->nr * sizeof *col);
        for (int64_t p = w->ap[j]; p < w->ap[j + 1]; p++) {
            lu_int i = lu->iperm[w->ai[p]];
            if (i >= k1)
                col[w->map[i]] += (REAL)w->ax[p];
        }
        return;
    }
    REAL *up = f->f12 + (size_t)(c - f->nc) * (size_t)f->nc;
    lu_int j = lu->perm[lu->rows[lu->rp[a->s] + c]];
    memset(up, 0, (size_t)f->nc * sizeof *up);
    memset(f->f22 + (size_t)(c - f->nc) * (size_t)f->nb, 0, (size_t)f->nb * sizeof *up);
    for (int64_t p = w->ap[j]; p < w->ap[j + 1]; p++) {
        lu_int k = lu->iperm[w->ai[p]];
        if (k >= k1 && k < k2)
            up[k - k1] += (REAL)w->ax[p];
    }
}

/* The first of a child's nb sorted rows r at or past front column c. */
static lu_int F(asm_first)(const lu_work *w, const lu_int *r, lu_int nb, lu_int c)
{
    lu_int lo = 0, hi = nb;
    while (lo < hi) {
        lu_int mid = lo + (hi - lo) / 2;
        if (w->map[r[mid]] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Chunk k: front columns [lo, hi). */
static void F(asm_chunk)(void *p, int k)
{
    const F(lu_asm) *a = p;
    const pepa_lu *lu = a->lu;
    lu_int lo = (lu_int)k * LU_PAR_CHUNK_ASM, hi = lo + LU_PAR_CHUNK_ASM;
    hi = hi < a->f->nr ? hi : a->f->nr;
    for (lu_int c = lo; c < hi; c++)
        F(asm_column)(a, c);
    for (lu_int q = lu->kp[a->s + 1]; q-- > lu->kp[a->s];) {
        lu_int ch = lu->kid[q], cnc = lu->super[ch + 1] - lu->super[ch];
        lu_int nb = lu->rp[ch + 1] - lu->rp[ch] - cnc;
        const lu_int *r = lu->rows + lu->rp[ch] + cnc;
        const REAL *cb = a->w->cbp[ch];
        lu_int end = F(asm_first)(a->w, r, nb, hi);
        for (lu_int jj = F(asm_first)(a->w, r, nb, lo); jj < end; jj++)
            F(add_column)(a->w, a->f, r, nb, cb + (size_t)jj * (size_t)nb, jj);
    }
}

/* The large front s assembled by chunks; w->asm_tally what a helper did. */
static void F(asm_par)(const pepa_lu *lu, lu_int s, lu_work *w, const F(lu_front) *f)
{
    F(lu_asm) a = {lu, s, w, f};
    int n = (int)((f->nr + LU_PAR_CHUNK_ASM - 1) / LU_PAR_CHUNK_ASM);
    lu_par_chunks(&w->team, F(asm_chunk), &a, n, &w->asm_tally);
}
#endif

/* The children's contribution blocks added in, the last child first
 * (the order is part of the answer: the same on one thread and two). */
static void F(extend_add)(const pepa_lu *lu, lu_int s, const lu_work *w, const F(lu_front) *f)
{
    for (lu_int k = lu->kp[s + 1]; k-- > lu->kp[s];) {
        lu_int c = lu->kid[k];
        lu_int cnc = lu->super[c + 1] - lu->super[c];
        lu_int nb = lu->rp[c + 1] - lu->rp[c] - cnc;
        const lu_int *r = lu->rows + lu->rp[c] + cnc;
        const REAL *cb = w->cbp[c];
        for (lu_int jj = 0; jj < nb; jj++)
            F(add_column)(w, f, r, nb, cb + (size_t)jj * (size_t)nb, jj);
    }
}

/* The children's blocks on this thread's stack (on top, below F22)
 * popped; returns the offset where the first of them began, where F22
 * goes. A child's block left by another thread's subtree (lu_sub.h)
 * stays where it is. */
static size_t F(pop_children)(const pepa_lu *lu, lu_int s, lu_work *w)
{
    size_t base = w->used;
    while (w->top > 0 && lu->parent[w->cbs[w->top - 1]] == s)
        base = w->cbo[--w->top];
    return base;
}


/* The dense partial factorisation of the front (see lu.c's top). A large
 * one in single precision goes through PAR_DENSE (lu_par.h) on one thread
 * or two, cut into the same chunks either way, so the factors are the
 * same bit for bit whatever the threads. Returns LAPACK's info (> 0: a
 * zero pivot). */
static int F(dense_step)(pepa_lu *lu, lu_int s, lu_work *w, const F(lu_front) *f)
{
    int nc = (int)f->nc, nb = (int)f->nb, nr = (int)f->nr, info = 0, one = 1;
    REAL pone = 1, mone = -1;
    int *ipiv = lu->ipiv + lu->super[s];
#ifdef PAR_DENSE
    if (F(large)(f)) {
        lu_par_tally t;
        info = PAR_DENSE(&w->team, nc, nb, nr, f->panel, f->f12, f->f22, ipiv, &t);
        w->split += t.helped > 0 || w->asm_tally.helped > 0;   /* the helper worked on it */
        w->offered += t.offered > 0 || w->asm_tally.offered > 0;
        w->unstarted += t.unstarted > 0 || w->asm_tally.unstarted > 0;
        return info;
    }
#else
    (void)w;
#endif
    KGETRF(w)(&nc, &nc, f->panel, &nr, ipiv, &info);
    if (info != 0 || nb == 0)
        return info;
    KLASWP(w)(&nb, f->f12, &nc, &one, &nc, ipiv, &one);
    KTRSM(w)("L", "L", "N", "U", &nc, &nb, &pone, f->panel, &nr, f->f12, &nc);
    KTRSM(w)("R", "U", "N", "N", &nb, &nc, &pone, f->panel, &nr, f->panel + nc, &nr);
    KGEMM(w)("N", "N", &nb, &nb, &nc, &mone, f->panel + nc, &nr, f->f12, &nc, &pone, f->f22,
             &nb);
    return 0;
}

/* Front s zeroed, B's entries and the children's blocks added, those
 * blocks on this thread's stack popped; returns extend_add's offset. */
static size_t F(assemble)(pepa_lu *lu, lu_int s, lu_work *w, const F(lu_front) *f)
{
#ifdef PAR_DENSE
    if (F(large)(f)) {
        F(asm_par)(lu, s, w, f);        /* counted with the dense step's (dense_step) */
        w->chunked++;
        return F(pop_children)(lu, s, w);
    }
#endif
    memset(f->panel, 0, (size_t)f->nr * (size_t)f->nc * sizeof *f->panel);
    memset(f->f12, 0, (size_t)f->nc * (size_t)f->nb * sizeof *f->f12);
    memset(f->f22, 0, (size_t)f->nb * (size_t)f->nb * sizeof *f->f22);
    F(assemble_original)(lu, s, w, f);
    F(extend_add)(lu, s, w, f);
    return F(pop_children)(lu, s, w);
}

/* Supernode s: its front assembled, factorised, F22 pushed where its
 * children's blocks were. Returns LAPACK's info, or -1 if the array is
 * too small (never, if predict() is right). */
static int F(supernode)(pepa_lu *lu, lu_int s, lu_work *w)
{
    F(lu_front) f;
    f.nc = lu->super[s + 1] - lu->super[s];
    f.nr = lu->rp[s + 1] - lu->rp[s];
    f.nb = f.nr - f.nc;
    f.panel = (REAL *)lu->LX + lu->lp[s];
    f.f12 = (REAL *)lu->UX + lu->up[s];
    size_t n22 = (size_t)f.nb * (size_t)f.nb;
    if (w->tail ? lu->lp[s + 1] + w->used + n22 > w->end : w->used + n22 > w->cap)
        return -1;      /* the stack would meet the factors or its end: predict()/lu_sub wrong */
    f.f22 = F(stack_at)(w, w->used, n22);
    const lu_int *r = lu->rows + lu->rp[s];
    for (lu_int i = 0; i < f.nr; i++)
        w->map[r[i]] = i;
    size_t base = F(assemble)(lu, s, w, &f);
    int info = F(dense_step)(lu, s, w, &f);
    w->fronts++;
    if (info != 0 || f.nb == 0) {
        w->used = base;
        return info;
    }
    w->cbp[s] = memmove(F(stack_at)(w, base, n22), f.f22, n22 * sizeof *f.f22);
    w->cbs[w->top] = s;
    w->cbo[w->top++] = base;
    w->used = base + n22;
    return 0;
}

/* Every supernode of this thread's (all of them when w->owner is NULL)
 * in order; returns the first non-zero LAPACK info, also in w->info. */
static int F(factor_all)(pepa_lu *lu, lu_work *w)
{
    int info = 0;
    for (lu_int s = 0; s < lu->nsuper && info == 0; s++)
        if (!w->owner || w->owner[s] == w->group)
            info = F(supernode)(lu, s, w);
    w->info = info;
    return info;
}

/* L z = P y, then U x = z, on y permuted (m entries, in place); t is
 * scratch of the largest front's order. */
static void F(sweeps)(const pepa_lu *lu, REAL *y, REAL *t)
{
    REAL pone = 1, zero = 0, mone = -1;
    const REAL *lx = lu->LX, *ux = lu->UX;
    int one = 1;
    for (lu_int s = 0; s < lu->nsuper; s++) {           /* L z = P y */
        int k1 = (int)lu->super[s], nc = (int)(lu->super[s + 1] - k1);
        int nr = (int)(lu->rp[s + 1] - lu->rp[s]), nb = nr - nc, lo = 1;
        const REAL *l = lx + lu->lp[s];
        LASWP(&one, y + k1, &nc, &lo, &nc, lu->ipiv + k1, &one);
        TRSV("L", "N", "U", &nc, l, &nr, y + k1, &one);
        if (nb == 0)
            continue;
        GEMV("N", &nb, &nc, &pone, l + nc, &nr, y + k1, &one, &zero, t, &one);
        const lu_int *r = lu->rows + lu->rp[s] + nc;
        for (int i = 0; i < nb; i++)
            y[r[i]] -= t[i];
    }
    for (lu_int s = lu->nsuper - 1; s >= 0; s--) {      /* U x = z */
        int k1 = (int)lu->super[s], nc = (int)(lu->super[s + 1] - k1);
        int nr = (int)(lu->rp[s + 1] - lu->rp[s]), nb = nr - nc;
        if (nb > 0) {
            const lu_int *r = lu->rows + lu->rp[s] + nc;
            for (int i = 0; i < nb; i++)
                t[i] = y[r[i]];
            GEMV("N", &nc, &nb, &mone, ux + lu->up[s], &nc, t, &one, &pone, y + k1, &one);
        }
        TRSV("U", "N", "N", &nc, lx + lu->lp[s], &nr, y + k1, &one);
    }
}

/* x = A^-1 b with the factors in this precision. b is scaled by a power
 * of two (exact) so that its largest entry is about 1: a residual of
 * 1e-40 would underflow in single precision. */
static void F(solve)(const pepa_lu *lu, const double *b, double *x)
{
    lu_int m = lu->m;
    REAL *t = malloc((lu->maxf ? lu->maxf : 1) * sizeof *t);
    REAL *y = malloc((size_t)(m ? m : 1) * sizeof *y);
    if (!t || !y) {
        free(y);
        free(t);
        for (lu_int k = 0; k < m; k++)
            x[k] = NAN;
        return;
    }
    double big = 0.0;
    for (lu_int k = 0; k < m; k++)
        big = fmax(big, fabs(b[k]));
    int e = 0;
    if (big > 0.0 && isfinite(big))
        frexp(big, &e);
    for (lu_int k = 0; k < m; k++)
        y[k] = (REAL)ldexp(b[lu->perm[k]], -e);
    F(sweeps)(lu, y, t);
    for (lu_int k = 0; k < m; k++)
        x[lu->perm[k]] = ldexp((double)y[k], e);
    free(y);
    free(t);
}
