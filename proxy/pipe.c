/* pipe.c: the pipes a relay splices through, one per direction, pooled so
 * that a connection costs no pipe2(2) once the proxy has warmed up
 * (loop.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "loop.h"

/* A pipe for a pump: an empty one from the pool, else a new one. */
int pipe_get(struct loop *L, struct pump *p)
{
	if (L->npool_pipe) {
		L->npool_pipe--;
		p->pipe[0] = L->pool_pipe[L->npool_pipe][0];
		p->pipe[1] = L->pool_pipe[L->npool_pipe][1];
	} else if (pipe2(p->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		return -1;
	}
	p->cap = PIPE_CAP;
	p->fills = 0;
	p->used = false;
	return 0;
}

/* An empty pipe of the default size goes back to the pool; one holding
 * bytes (or grown) is closed. The next connection may be another task's:
 * the kernel's count must agree that it is empty, not only ours. */
void pump_free(struct loop *L, struct pump *p)
{
	if (p->pipe[0] >= 0) {
		int left = -1;
		if (p->inpipe == 0 && p->cap == PIPE_CAP && L->npool_pipe < POOL_MAX &&
		    (!p->used || (ioctl(p->pipe[0], FIONREAD, &left) == 0 && left == 0))) {
			L->pool_pipe[L->npool_pipe][0] = p->pipe[0];
			L->pool_pipe[L->npool_pipe][1] = p->pipe[1];
			L->npool_pipe++;
		} else {
			close(p->pipe[0]);
			close(p->pipe[1]);
			if (p->cap > PIPE_CAP)
				L->nbulk--;
		}
	}
	free(p->pre);
}
