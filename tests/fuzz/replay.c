/* A plain main() for the fuzz targets, so that any compiler's build replays
 * inputs without libFuzzer: `make check` runs each target over its
 * regression corpus (tests/fuzz/regress/<target>/: every input that ever
 * crashed, leaked or hung it, plus a few seeds). Arguments are files or
 * directories (every file in them, one level); with none, the target's
 * regression directory under $SRCDIR. An input that takes longer than
 * FUZZ_REPLAY_LIMIT seconds (default 60) counts as a failure (a hang);
 * a crash or a sanitizer report ends the program, which fails the test. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/mem.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME must name the target (its regression directory)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct tally {
    int passed, failed;
    double limit;
} tally;

static void run_file(const char *path, tally *t)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "FAIL %s: cannot open\n", path);
        t->failed++;
        return;
    }
    size_t cap = 4096, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            if (mem_grow((void **)&buf, cap *= 2, 1) < 0) {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "FAIL %s: out of memory\n", path);
        t->failed++;
        return;
    }
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    double t0 = clock_now();
    LLVMFuzzerTestOneInput(buf, len);
    double dt = clock_now() - t0;
    free(buf);
    if (dt > t->limit) {
        fprintf(stderr, "FAIL %s: %.1f s (more than %.0f s: a hang)\n", path, dt, t->limit);
        t->failed++;
    } else {
        t->passed++;
    }
}

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a directory, in name order (reproducible logs). */
static void run_dir(const char *dir, tally *t)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "FAIL %s: cannot open the directory\n", dir);
        t->failed++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            if (mem_grow((void **)&names, cap = cap ? 2 * cap : 64, sizeof *names) < 0)
                break;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len)))
            break;
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, compare);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            run_file(names[i], t);
        free(names[i]);
    }
    free(names);
}

static void run_path(const char *path, tally *t)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        run_dir(path, t);
    else
        run_file(path, t);
}

int main(int argc, char **argv)
{
    tally t = { 0, 0, 60 };
    const char *lim = getenv("FUZZ_REPLAY_LIMIT");
    if (lim && atof(lim) > 0)
        t.limit = atof(lim);
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            run_path(argv[i], &t);
    } else {
        const char *src = getenv("SRCDIR");
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/tests/fuzz/regress/%s", src && *src ? src : ".", FUZZ_NAME);
        run_dir(dir, &t);
    }
    printf("%d passed, %d failed\n", t.passed, t.failed);
    return t.failed ? 1 : 0;
}
