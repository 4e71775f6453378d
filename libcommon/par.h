/* par.h: the one thread fan-out. par_run runs fn(arg) on the calling thread
 * and on as many more as make threads in all = min(want, online CPUs, 8),
 * then joins them: fn takes its share of the work from arg itself (an atomic
 * or locked cursor) and returns when none is left. A thread that cannot be
 * started only means fewer; the caller's own always runs. */
#ifndef VX_PAR_H
#define VX_PAR_H

#include <stddef.h>

void par_run(void *(*fn)(void *), void *arg, size_t want);

#endif
