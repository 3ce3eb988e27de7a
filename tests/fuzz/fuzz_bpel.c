/* libFuzzer target for the BPEL importer: any bytes, as a process and as a
 * side file, must give a tree or a message - never a crash, a leak, a hang
 * or a fetch. Built by hand (not by make) in a configured and built build
 * directory; the importer is compiled instrumented, the rest is linked from
 * the build's convenience libraries:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I$SRC -I. -include config.h \
 *     $(pkg-config --cflags libxml-2.0) $SRC/tests/fuzz/fuzz_bpel.c $SRC/bpel/[a-z]*.c \
 *     skeleton/.libs/libskeleton.a pepa/.libs/libpepa.a base/.libs/libbase.a \
 *     $(pkg-config --libs libxml-2.0) -lumfpack -lm -lpthread -o fuzz_bpel
 *   ./fuzz_bpel -max_len=65536 -rss_limit_mb=512 $SHARED_DIR/corpus/bpel
 *
 * The first NUL byte, if any, splits the input into a side file (before)
 * and the process (after); otherwise the whole input is the process. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpel/bpel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    bpel_params *params = NULL;
    diag err;
    diag_clear(&err);
    if (nul) {
        params = bpel_params_parse_string(text, (size_t)(nul - text), "fuzz.params", &err);
        size -= (size_t)(nul - text) + 1;
        text = nul + 1;
    }
    diag_clear(&err);
    bpel_import imp;
    if (bpel_import_memory(text, size, "fuzz.bpel", params, &imp, &err) == 0)
        bpel_import_clear(&imp);
    bpel_params_free(params);
    return 0;
}
