/* The main of every unit test program: run its Check suite. */
#ifndef SKELSCHED_TESTS_SUITE_H
#define SKELSCHED_TESTS_SUITE_H

#include <check.h>
#include <stdlib.h>

/* Run suite s (the runner frees it); the program's exit status: 0 when
 * every test passed. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
