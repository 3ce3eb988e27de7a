/* lu_blas: the LAPACK and BLAS routines the multifrontal LU calls
 * (pepa/lu.c, pepa/lu_par.c); not a public header. */
#ifndef SKELSCHED_PEPA_LU_BLAS_H
#define SKELSCHED_PEPA_LU_BLAS_H

/* LAPACK and BLAS (Fortran calling convention; Debian's OpenBLAS). */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dlaswp_(const int *n, double *a, const int *lda, const int *k1, const int *k2,
             const int *ipiv, const int *incx);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            double *b, const int *ldb);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc);
void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n,
            const double *a, const int *lda, double *x, const int *incx);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
            const double *a, const int *lda, const double *x, const int *incx,
            const double *beta, double *y, const int *incy);
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void slaswp_(const int *n, float *a, const int *lda, const int *k1, const int *k2,
             const int *ipiv, const int *incx);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            float *b, const int *ldb);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b,
            const int *ldb, const float *beta, float *c, const int *ldc);
void strsv_(const char *uplo, const char *trans, const char *diag, const int *n,
            const float *a, const int *lda, float *x, const int *incx);
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha,
            const float *a, const int *lda, const float *x, const int *incx,
            const float *beta, float *y, const int *incy);

#endif
