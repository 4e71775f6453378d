#include "par.h"

#include <unistd.h>

static size_t cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

void par_run(void *(*fn)(void *), void *arg, size_t want)
{
	struct par_bg bg;
	size_t nt = want < cpus() ? want : cpus();
	/* nt - 1 more threads: the caller's own is the last */
	bg.n = 0;
	if (nt > 1)
		par_start(&bg, fn, arg, nt - 1 < PAR_MAX - 1 ? nt - 1 : PAR_MAX - 1);
	fn(arg);
	par_join(&bg);
}

void par_start(struct par_bg *bg, void *(*fn)(void *), void *arg, size_t want)
{
	size_t nt = cpus() > 1 ? cpus() - 1 : 1;
	if (nt > want)
		nt = want;
	if (nt > PAR_MAX)
		nt = PAR_MAX;
	if (nt < 1)
		nt = 1;
	bg->n = 0;
	for (size_t i = 0; i < nt; i++)
		if (pthread_create(&bg->th[bg->n], NULL, fn, arg) == 0)
			bg->n++;
	if (bg->n == 0)
		fn(arg);
}

void par_join(struct par_bg *bg)
{
	for (size_t i = 0; i < bg->n; i++)
		pthread_join(bg->th[i], NULL);
	bg->n = 0;
}
