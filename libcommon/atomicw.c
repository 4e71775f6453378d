#include "atomicw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"

int atomicw_open(struct atomicw *w, const char *path, mode_t mode)
{
	return atomicw_openat(w, AT_FDCWD, path, mode);
}

int atomicw_openat(struct atomicw *w, int dirfd, const char *path, mode_t mode)
{
	w->f = NULL;
	w->dirfd = dirfd;
	w->sync = 0;
	w->dst = xstrdup(path);
	for (int tries = 0; tries < 8; tries++) {
		unsigned int nonce = 0;
		if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != sizeof(nonce))
			nonce = (unsigned int)rand();
		w->tmp = xasprintf("%s.%d.%08x.tmp", path, (int)getpid(), nonce);
		w->fd = openat(dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (w->fd >= 0)
			return 0;
		int e = errno;
		free(w->tmp);
		if (e != EEXIST) {
			free(w->dst);
			errno = e;
			return -1;
		}
	}
	free(w->dst);
	errno = EEXIST;
	return -1;
}

FILE *atomicw_stdio(struct atomicw *w)
{
	if (!w->f && !(w->f = fdopen(w->fd, "w")))
		return NULL;
	return w->f;
}

int atomicw_write(struct atomicw *w, const void *buf, size_t n)
{
	if (w->f && fflush(w->f) != 0)
		return -1;
	return fileio_write_all(w->fd, buf, n);
}

static void release(struct atomicw *w)
{
	free(w->tmp);
	free(w->dst);
	w->tmp = w->dst = NULL;
	w->f = NULL;
	w->fd = -1;
}

int atomicw_commit(struct atomicw *w)
{
	int r = 0;
	if (w->f)
		r = ferror(w->f) | fflush(w->f);
	if (r == 0 && w->sync)
		r = fsync(w->fd);
	r |= w->f ? fclose(w->f) : close(w->fd);
	if (r == 0 && renameat(w->dirfd, w->tmp, w->dirfd, w->dst) == 0) {
		release(w);
		return 0;
	}
	int e = errno ? errno : EIO;
	unlinkat(w->dirfd, w->tmp, 0);
	release(w);
	errno = e;
	return -1;
}

void atomicw_abort(struct atomicw *w)
{
	int e = errno;
	if (w->f)
		fclose(w->f);
	else
		close(w->fd);
	unlinkat(w->dirfd, w->tmp, 0);
	release(w);
	errno = e;
}
