/* workq.h: a few threads that run one owner's jobs while it does other work.
 *
 * The owner (one thread) puts jobs in; each is run(job) on one of the
 * queue's threads, in the order put, several at once; the owner takes them
 * back once run, in the order they finished. par.h is the fork-join form
 * (one batch, then join); this is the streaming one, for work that arrives
 * while earlier work runs. The threads start with the first job put (a
 * queue that is never used costs nothing); a thread that cannot be started
 * only means fewer, and with none the owner runs the job in workq_put. The
 * threads block every signal, so the owner's handlers run on its thread. run
 * must be safe on several threads at once; the queue itself never looks
 * inside a job.
 *
 * With threads 0 there is no thread: workq_put runs the job at once on the
 * owner's thread, and workq_get hands it back next: the same calls, in
 * order, for a caller that asked for no concurrency. */
#ifndef VX_WORKQ_H
#define VX_WORKQ_H

#include <stdbool.h>
#include <stddef.h>

struct workq;

struct workq *workq_new(size_t threads, void (*run)(void *job));
/* job: anything but NULL. */
void workq_put(struct workq *q, void *job);
/* A job that has run, or NULL when none is put and not yet taken back.
 * wait: block until one has run (while any is out); else NULL at once when
 * none has finished yet. */
void *workq_get(struct workq *q, bool wait);
/* Jobs put and not yet taken back by workq_get. */
size_t workq_pending(const struct workq *q);
/* Join the threads and free q. Every job put must have been taken back. */
void workq_free(struct workq *q);

#endif
