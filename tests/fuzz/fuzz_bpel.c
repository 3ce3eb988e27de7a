/* libFuzzer target for the BPEL importer: any bytes, as a process and as a
 * side file, must give a tree or a message - never a crash, a leak, a hang
 * or a fetch. Built by `make fuzz` (libFuzzer) and by `make check` with
 * tests/fuzz/replay.c (the regression corpus).
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
