/* clock: monotonic wall-clock seconds, for timings reported to users and
 * for time budgets. */
#ifndef SKELSCHED_CLOCK_H
#define SKELSCHED_CLOCK_H

/* Seconds since an arbitrary fixed point; only differences mean anything. */
double clock_now(void);

#endif
