/* Fuzz target for platform descriptions (docs/platform.md), and the
 * hostlists they contain: any bytes must give a platform or a message. On a
 * platform it accepts, the links between its first nodes are looked up. */
#include <stddef.h>
#include <stdint.h>

#include "skeleton/skeleton.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag err;
    diag_clear(&err);
    skel_platform *p = skel_platform_parse_string((const char *)data, size, "fuzz.conf", NULL, NULL, &err);
    if (p) {
        double lat, bw;
        for (int a = 0; a < p->nnodes && a < 64; a++)
            for (int b = 0; b < p->nnodes && b < 64; b++)
                skel_platform_link(p, a, b, &lat, &bw, &err);
    }
    skel_platform_free(p);
    return 0;
}
