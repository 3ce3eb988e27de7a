/* clock: monotonic wall-clock seconds, for timings reported to users and
 * for time budgets. */
#ifndef SKELSCHED_CLOCK_H
#define SKELSCHED_CLOCK_H

/* Seconds since an arbitrary fixed point; only differences mean anything. */
double clock_now(void);

/* The process's CPU seconds (all its threads) since it started. */
double clock_cpu(void);

/* The calling thread's CPU seconds. */
double clock_thread_cpu(void);

/* A point in clock_now's time past which a computation stops: one is made
 * when a decision starts (the plugin's Budget=) and carried, by value,
 * through every phase of it (set-up, derivation, solves, search, the work
 * after it), each phase checking it cooperatively, so that the whole
 * decision ends by it rather than each phase getting a budget of its own.
 * at 0: no deadline (a zero-initialised one has none). */
typedef struct clock_deadline {
    double at;
} clock_deadline;

/* The deadline seconds from now (seconds <= 0 or not finite: none). */
clock_deadline clock_deadline_in(double seconds);

/* The earlier of d and seconds from now (seconds <= 0: d). */
clock_deadline clock_deadline_within(clock_deadline d, double seconds);

/* d moved earlier by seconds (a reserve kept for what follows); a
 * deadline with none stays with none. */
clock_deadline clock_deadline_less(clock_deadline d, double seconds);

/* Seconds left (negative once passed; a large number when none). */
double clock_deadline_left(clock_deadline d);

/* Non-zero once d has passed (never when there is none). */
int clock_deadline_passed(clock_deadline d);

#endif
