/* par.h: the one thread fan-out. par_run runs fn(arg) on the calling thread
 * and on as many more as make threads in all = min(want, online CPUs, 8),
 * then joins them: fn takes its share of the work from arg itself (an atomic
 * or locked cursor) and returns when none is left. A thread that cannot be
 * started only means fewer; the caller's own always runs.
 *
 * par_start is the same fan-out in the background: fn(arg) on min(want,
 * online CPUs - 1, 8) threads (at least one) while the caller goes on with
 * other work, sharing the rest with them through arg; par_join waits for
 * them. When none could be started, par_start runs fn(arg) itself before
 * it returns, so the work is always done. */
#ifndef VX_PAR_H
#define VX_PAR_H

#include <pthread.h>
#include <stddef.h>

#define PAR_MAX 8

struct par_bg {
	pthread_t th[PAR_MAX];
	size_t n;
};

void par_run(void *(*fn)(void *), void *arg, size_t want);
void par_start(struct par_bg *bg, void *(*fn)(void *), void *arg, size_t want);
void par_join(struct par_bg *bg);

#endif
