#include "par.h"

#include <pthread.h>
#include <unistd.h>

#define PAR_MAX 8

void par_run(void *(*fn)(void *), void *arg, size_t want)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = want;
	if (nt > (size_t)(cpus > 0 ? cpus : 1))
		nt = (size_t)(cpus > 0 ? cpus : 1);
	if (nt > PAR_MAX)
		nt = PAR_MAX;
	pthread_t th[PAR_MAX];
	size_t started = 0;
	for (size_t i = 1; i < nt; i++)
		if (pthread_create(&th[started], NULL, fn, arg) == 0)
			started++;
	fn(arg);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}
