/* workq.c: see workq.h. One lock, two FIFOs (to run, run), two condition
 * variables: the threads wait for work, the owner for a finished job. */
#include "workq.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "err.h"

#define WORKQ_MAX 8

struct fifo {
	void **v;
	size_t head, tail, cap; /* v[head..tail) in a ring of cap */
};

struct workq {
	void (*run)(void *job);
	size_t want, nthreads, pending;
	pthread_t th[WORKQ_MAX];
	pthread_mutex_t mu;
	pthread_cond_t work, done_cv;
	struct fifo todo, done;
	bool stop;
};

static void fifo_push(struct fifo *f, void *job)
{
	if (f->tail - f->head == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		void **v = xcalloc(cap, sizeof(*v));
		for (size_t i = f->head; i < f->tail; i++)
			v[i - f->head] = f->v[i % f->cap];
		free(f->v);
		f->v = v;
		f->tail -= f->head;
		f->head = 0;
		f->cap = cap;
	}
	f->v[f->tail++ % f->cap] = job;
}

static void *fifo_pop(struct fifo *f)
{
	return f->head == f->tail ? NULL : f->v[f->head++ % f->cap];
}

static void *worker(void *arg)
{
	struct workq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		void *job = fifo_pop(&q->todo);
		if (!job) {
			if (q->stop)
				break;
			pthread_cond_wait(&q->work, &q->mu);
			continue;
		}
		pthread_mutex_unlock(&q->mu);
		q->run(job);
		pthread_mutex_lock(&q->mu);
		fifo_push(&q->done, job);
		pthread_cond_signal(&q->done_cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct workq *workq_new(size_t threads, void (*run)(void *job))
{
	struct workq *q = xcalloc(1, sizeof(*q));
	q->run = run;
	q->want = threads < WORKQ_MAX ? threads : WORKQ_MAX;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->done_cv, NULL);
	return q;
}

void workq_put(struct workq *q, void *job)
{
	q->pending++;
	if (q->want && !q->nthreads) {
		/* started with every signal blocked: the owner's handlers run on
		 * the owner's thread */
		sigset_t all, was;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &was);
		for (size_t i = 0; i < q->want; i++)
			if (pthread_create(&q->th[q->nthreads], NULL, worker, q) == 0)
				q->nthreads++;
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		if (!q->nthreads)
			q->want = 0; /* none could start: the owner runs every job */
	}
	if (!q->nthreads) {
		q->run(job);
		fifo_push(&q->done, job);
		return;
	}
	pthread_mutex_lock(&q->mu);
	fifo_push(&q->todo, job);
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
}

void *workq_get(struct workq *q, bool wait)
{
	if (!q->pending)
		return NULL;
	if (!q->nthreads) {
		q->pending--;
		return fifo_pop(&q->done);
	}
	pthread_mutex_lock(&q->mu);
	void *job;
	while (!(job = fifo_pop(&q->done)) && wait)
		pthread_cond_wait(&q->done_cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	if (job)
		q->pending--;
	return job;
}

size_t workq_pending(const struct workq *q)
{
	return q->pending;
}

void workq_free(struct workq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->mu);
	for (size_t i = 0; i < q->nthreads; i++)
		pthread_join(q->th[i], NULL);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->done_cv);
	free(q->todo.v);
	free(q->done.v);
	free(q);
}
