/* bench_blas2: see bench_blas2.h.
 *
 * Every level-3 call of OpenBLAS (sgemm, strsm, sgetrf's updates) packs
 * its operands into a work buffer from blas_memory_alloc. A build meant
 * to be called from several threads (its pthread build, or a serial one
 * made with USE_LOCKING) claims the buffer under a lock; Debian 12's
 * serial 0.3.21 (libopenblas0-serial) releases its lock before searching
 * for a free buffer (objdump of blas_memory_alloc), so two threads can
 * both take the same one and pack into it at once. That is why the
 * multifrontal LU's helper thread runs a copy of OpenBLAS of its own,
 * loaded by dlmopen, not the process's (pepa/lu_par.h).
 * Two threads here take a buffer, mark it as theirs with an atomic
 * exchange on its first word (finding the mark already set means the
 * other thread holds it too), hold it a moment, unmark it and give it
 * back, as fast as they can. The allocator is looked up at run time: only OpenBLAS has it. */
#define _GNU_SOURCE             /* RTLD_DEFAULT */
#include "bench/bench_blas2.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "base/clock.h"

/* Allocations per thread: about a second on this machine's two cores. */
#define BLAS2_ALLOCS 2000000L
/* Loop turns a buffer is held (a few tenths of a microsecond: a real call
 * packs into it for longer), so that two holders overlap. */
#define BLAS2_HOLD 50

typedef void *blas2_alloc_fn(int);
typedef void blas2_free_fn(void *);

typedef struct blas2_probe {
    blas2_alloc_fn *alloc;
    blas2_free_fn *release;
    atomic_long clashes;
} blas2_probe;

/* The process's CPU seconds: over the wall time, how much of the probe
 * the two threads ran side by side (up to 2). */
static double blas2_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *blas2_thread(void *p)
{
    blas2_probe *pr = p;
    for (long i = 0; i < BLAS2_ALLOCS; i++) {
        atomic_int *mark = pr->alloc(0);  /* 0: as level-3 calls ask */
        if (!mark)
            break;
        if (atomic_exchange(mark, 1) != 0)
            atomic_fetch_add(&pr->clashes, 1);
        for (volatile int k = 0; k < BLAS2_HOLD; k++)
            continue;
        atomic_store(mark, 0);
        pr->release(mark);
    }
    return NULL;
}

long blas2_table(void)
{
    blas2_probe pr = {0};
    *(void **)&pr.alloc = dlsym(RTLD_DEFAULT, "blas_memory_alloc");
    *(void **)&pr.release = dlsym(RTLD_DEFAULT, "blas_memory_free");
    if (!pr.alloc || !pr.release) {
        printf("blas2: the BLAS loaded has no blas_memory_alloc (not OpenBLAS): not measured\n");
        return -1;
    }
    atomic_init(&pr.clashes, 0);
    pthread_t th[2];
    int started = 0;
    double w0 = clock_now(), c0 = blas2_cpu();
    while (started < 2 && pthread_create(&th[started], NULL, blas2_thread, &pr) == 0)
        started++;
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    if (started < 2) {
        printf("blas2: a thread could not be started: not measured\n");
        return -1;
    }
    long clashes = atomic_load(&pr.clashes);
    double wall = clock_now() - w0, cpu = blas2_cpu() - c0;
    printf("blas2: OpenBLAS's blas_memory_alloc from two threads at once: %ld allocations "
           "each, %.2f s of wall, %.2f of CPU (%.2f threads at a time): a buffer handed to "
           "both threads %ld times (above 0: not safe to share; 0 proves nothing)\n",
           BLAS2_ALLOCS, wall, cpu, wall > 0 ? cpu / wall : 0.0, clashes);
    return clashes;
}
