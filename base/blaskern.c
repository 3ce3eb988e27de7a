/* blaskern: see blaskern.h. */
#define _GNU_SOURCE
#include "blaskern.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

/* The environment variable OpenBLAS reads as it loads (driver/others/dynamic.c). */
#define BLASKERN_ENV "OPENBLAS_CORETYPE"

/* The kernels OpenBLAS's DYNAMIC_ARCH build falls back to for an x86-64
 * CPU it does not know. */
#define BLASKERN_FALLBACK "Prescott"

typedef const char *(*blaskern_str_fn)(void);

/* An OpenBLAS function of the process's BLAS, or NULL when the BLAS loaded
 * is another (the reference BLAS, BLIS): looked up, not linked, so that any
 * BLAS the configure found still links. */
static const char *blaskern_query(const char *symbol)
{
    void *fn = dlsym(RTLD_DEFAULT, symbol);
    if (!fn)
        return NULL;
    blaskern_str_fn f;
    memcpy(&f, &fn, sizeof f); /* object pointer to function pointer, as POSIX allows */
    return f();
}

/* The kernels this CPU can run that OpenBLAS 0.3.21 names, best first;
 * NULL when it has neither AVX-512 nor AVX2 with FMA (nothing better than
 * the fallback). GCC's checks include the operating system's support of
 * the registers (XGETBV), not only the CPUID bits. */
static const char *blaskern_target(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512cd"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return NULL;
}

/* valgrind: its runs must stay under it (a re-exec would leave valgrind,
 * which follows no exec by default). Its client request where configure
 * found <valgrind/valgrind.h>; else its preloaded core named in LD_PRELOAD
 * (which a program may also set, or valgrind's client clear). */
int blaskern_under_valgrind(void)
{
#ifdef HAVE_VALGRIND_VALGRIND_H
    return RUNNING_ON_VALGRIND != 0;
#else
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") != NULL;
#endif
}

void blaskern_reexec(char **argv)
{
    const char *opt = getenv("SKELSCHED_BLAS_REEXEC");
    if (getenv(BLASKERN_ENV) || (opt && strcmp(opt, "0") == 0) || blaskern_under_valgrind())
        return;
    const char *core = blaskern_query("openblas_get_corename");
    const char *target = blaskern_target();
    if (!core || !target || strcmp(core, BLASKERN_FALLBACK) != 0)
        return;
    if (setenv(BLASKERN_ENV, target, 1) != 0)
        return;
    fflush(NULL);
    execv("/proc/self/exe", argv);
    unsetenv(BLASKERN_ENV); /* exec failed: go on, on the slower kernels */
}

const char *blaskern_describe(char *buf, size_t n)
{
    const char *config = blaskern_query("openblas_get_config");
    const char *core = blaskern_query("openblas_get_corename");
    if (!config || !core) {
        snprintf(buf, n, "not OpenBLAS");
        return buf;
    }
    /* the config starts "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...": keep the name and version */
    int len = 0, words = 0;
    while (config[len] && !(config[len] == ' ' && ++words == 2))
        len++;
    snprintf(buf, n, "%.*s, %s kernels", len, config, core);
    return buf;
}
