/* prestat.c: see prestat.h. */
#include "prestat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

/* who took entry i: nobody yet, a thread (busy, then done), the caller */
enum { PS_NONE, PS_BUSY, PS_DONE, PS_MINE };

struct prestat_ent {
	struct stat st;
	int err;
};

/* The background threads: each takes the next entry nobody has taken, in
 * order, until all are taken or the preload is stopped. */
static void *worker(void *arg)
{
	struct prestat *p = arg;
	char buf[4096];
	for (size_t i = 0; i < p->n; i++) {
		unsigned char none = PS_NONE;
		if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
			return NULL;
		if (!__atomic_compare_exchange_n(&p->state[i], &none, PS_BUSY, false,
			    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		struct prestat_ent *e = &p->ent[i];
		const char *path = p->path(p->arg, i, buf, sizeof(buf));
		e->err = !path ? ENOENT
			 : fstatat(p->dirfd, path, &e->st, AT_SYMLINK_NOFOLLOW) ? errno : 0;
		__atomic_store_n(&p->state[i], PS_DONE, __ATOMIC_RELEASE);
	}
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
