/* clock: see clock.h. */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"

#include <time.h>

double clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What "none" leaves: far more than any computation is given. */
#define CLOCK_NO_DEADLINE 1e30

clock_deadline clock_deadline_in(double seconds)
{
    clock_deadline d = { 0 };
    if (seconds > 0 && seconds < CLOCK_NO_DEADLINE)
        d.at = clock_now() + seconds;
    return d;
}

clock_deadline clock_deadline_within(clock_deadline d, double seconds)
{
    clock_deadline e = clock_deadline_in(seconds);
    if (e.at > 0 && (d.at <= 0 || e.at < d.at))
        return e;
    return d;
}

clock_deadline clock_deadline_less(clock_deadline d, double seconds)
{
    if (d.at > 0 && seconds > 0)
        d.at -= seconds;
    return d;
}

double clock_deadline_left(clock_deadline d)
{
    return d.at > 0 ? d.at - clock_now() : CLOCK_NO_DEADLINE;
}

int clock_deadline_passed(clock_deadline d)
{
    return d.at > 0 && clock_now() > d.at;
}
