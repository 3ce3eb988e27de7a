/* skeleton/approx_test.h: what the approximation's workspace did, for the
 * tests (test_approx) to observe; not part of skeleton.h's API. */
#ifndef SKELETON_APPROX_TEST_H
#define SKELETON_APPROX_TEST_H

#include "skeleton.h"

/* The explorations of the whole model as one window (approx.c's
 * approx_new with a whole bound, built or failed) made for a, from
 * skel_approx_new through its rebuilds (relink, whole_retry). */
unsigned long skel_approx_whole_builds(const skel_approx *a);

#endif
