/* prestat.c: see prestat.h. */
#include "prestat.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"

/* who took entry i: nobody yet, a thread (busy, then done), the caller */
enum { PS_NONE, PS_BUSY, PS_DONE, PS_MINE };

struct prestat_ent {
	struct stat st;
	int err;
};

/* One stat a thread may take when the page cache is cold: well above a warm
 * lstat here (2-3 us), well below a read from the disk. */
#define COLD_NS 25000
#define COLD_SAMPLE 32
/* Threads added to a cold preload: it waits on the disk, not a core, so it
 * gains from more stats in flight than there are cores (a warm one only
 * loses: its threads would take cores from the caller). */
#define COLD_EXTRA 4

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *worker(void *arg);

/* The first stats of a thread were slow: the inode tables are being read
 * from the disk. Add threads to keep more reads in flight; the caller of
 * grow joins them (*extra of them) before it returns. */
static void grow(struct prestat *p, pthread_t *th, size_t *extra)
{
	int no = 0;
	if (!__atomic_compare_exchange_n(&p->grown, &no, 1, false, __ATOMIC_RELAXED,
		    __ATOMIC_RELAXED))
		return;
	for (size_t k = 0; k < COLD_EXTRA; k++)
		if (pthread_create(&th[*extra], NULL, worker, p) == 0)
			(*extra)++;
}

/* The background threads: each takes the next entry nobody has taken, in
 * order, until all are taken or the preload is stopped. */
static void *worker(void *arg)
{
	struct prestat *p = arg;
	char buf[4096];
	pthread_t th[COLD_EXTRA];
	size_t extra = 0, done = 0;
	int64_t t0 = now_ns();
	for (size_t i = 0; i < p->n; i++) {
		unsigned char none = PS_NONE;
		if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
			break;
		if (!__atomic_compare_exchange_n(&p->state[i], &none, PS_BUSY, false,
			    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		struct prestat_ent *e = &p->ent[i];
		const char *path = p->path(p->arg, i, buf, sizeof(buf));
		e->err = !path ? ENOENT
			 : fstatat(p->dirfd, path, &e->st, AT_SYMLINK_NOFOLLOW) ? errno : 0;
		__atomic_store_n(&p->state[i], PS_DONE, __ATOMIC_RELEASE);
		if (++done == COLD_SAMPLE && now_ns() - t0 > (int64_t)COLD_SAMPLE * COLD_NS)
			grow(p, th, &extra);
	}
	for (size_t k = 0; k < extra; k++)
		pthread_join(th[k], NULL);
	return NULL;
}

void prestat_start(struct prestat *p, int dirfd, size_t n,
	const char *(*path)(void *arg, size_t i, char *buf, size_t cap), void *arg, size_t want)
{
	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
	if (!n || dirfd < 0) {
		if (dirfd >= 0)
			close(dirfd);
		return;
	}
	p->dirfd = dirfd;
	p->path = path;
	p->arg = arg;
	p->n = n;
	p->ent = xmalloc(n * sizeof(*p->ent));
	p->state = xcalloc(n, 1);
	p->on = true;
	par_start(&p->bg, worker, p, want);
}

int prestat_take(struct prestat *p, size_t i, struct stat *st)
{
	unsigned char s = PS_NONE;
	if (!p->on || i >= p->n)
		return 1;
	/* not taken yet: the caller takes it and stats it now, so no thread
	 * makes the same call again; one a thread is on: the caller's too */
	if (__atomic_compare_exchange_n(&p->state[i], &s, PS_MINE, false, __ATOMIC_ACQUIRE,
		    __ATOMIC_ACQUIRE) || s != PS_DONE)
		return 1;
	const struct prestat_ent *e = &p->ent[i];
	if (e->err) {
		errno = e->err;
		return -1;
	}
	*st = e->st;
	return 0;
}

void prestat_stop(struct prestat *p)
{
	if (!p->on)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	par_join(&p->bg);
	close(p->dirfd);
	free(p->ent);
	free(p->state);
	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
}
