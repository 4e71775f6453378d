/* workq: every job put runs once and comes back once, on threads or (0
 * threads) inline in order; jobs really overlap when there are threads. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"
#include "workq.h"

struct job {
	int n, runs;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int running, most;

static void run(void *arg)
{
	struct job *j = arg;
	pthread_mutex_lock(&mu);
	if (++running > most)
		most = running;
	pthread_mutex_unlock(&mu);
	usleep(2000);
	j->runs++;
	pthread_mutex_lock(&mu);
	running--;
	pthread_mutex_unlock(&mu);
}

static void round_trip(size_t threads, int n)
{
	struct workq *q = workq_new(threads, run);
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	int back = 0, in_order = 1;
	CHECK(workq_get(q, true) == NULL); /* nothing out: no wait */
	for (int i = 0; i < n; i++) {
		jobs[i].n = i;
		workq_put(q, &jobs[i]);
		if (i % 3 == 0) { /* take some back while others run */
			struct job *j = workq_get(q, false);
			if (j) {
				in_order &= j->n == back;
				back++;
			}
		}
	}
	struct job *j;
	while ((j = workq_get(q, true))) {
		in_order &= j->n == back;
		back++;
	}
	CHECK(back == n);
	CHECK(workq_pending(q) == 0);
	int once = 1;
	for (int i = 0; i < n; i++)
		once &= jobs[i].runs == 1;
	CHECK(once);
	if (!threads)
		CHECK(in_order); /* inline: each job back in the order put */
	workq_free(q);
	free(jobs);
}

int main(void)
{
	round_trip(0, 20);
	CHECK(most == 1);
	most = 0;
	round_trip(1, 20);
	CHECK(most == 1);
	most = 0;
	round_trip(4, 40);
	CHECK(most > 1); /* the jobs overlapped */
	workq_free(workq_new(3, run)); /* never used: no thread to join */
	return UNIT_END("workq");
}
