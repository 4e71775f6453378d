/* control.c: a task's control socket: how vx-sandbox, from outside the
 * task's namespaces, takes the task's deny records once its sandbox is
 * gone (docs/protocol.md "vx-proxy", the "control" member of a task).
 *
 * A task given "control": PATH keeps its deny records here instead of
 * writing them on stdout. PATH is a second socket, never bridged into the
 * sandbox. The first connection to it from a process in vx-proxy's own
 * network namespace (every sandboxed task, its bridge relay included, has
 * a namespace of its own; the peer is checked through its pidfd
 * (SO_PEERPIDFD) or SO_PEERCRED and /proc, and a peer that cannot be
 * checked is refused) says the task has
 * ended: vx-proxy then judges what the task still sent, as for the
 * driver's "done", and answers with the task's deny records and a "done"
 * record, one line each, and closes. Any other connection is closed
 * unanswered, before a byte is read, and ends nothing: a task cannot
 * fetch, forge or cut short its own list. The socket is removed once
 * answered, and at exit. It calls nothing of the loop's (no link cycle):
 * the caller hands it the listener and the epoll set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "jsonw.h"
#include "loop.h"
#include "strbuf.h"

struct control {
	struct handle h; /* H_CONTROL */
	int fd;          /* listening; -1 once the task's end was asked */
	int peer;        /* the connection that asked, answered at the task's end */
	char *path;
	struct strbuf denies;
	struct listener *l;
};

int control_add(struct listener *l, const char *path, int ep)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		err_warn("control socket path '%s' too long", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	mode_t old = umask(077);
	int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(fd, 8) < 0) {
		err_warn_errno("unable to listen on '%s'", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct control *ctl = xcalloc(1, sizeof(*ctl));
	ctl->h.kind = H_CONTROL;
	ctl->fd = fd;
	ctl->peer = -1;
	ctl->path = xstrdup(path);
	ctl->l = l;
	l->ctl = ctl;
	/* edge-triggered: each event is drained to EAGAIN; out of descriptors,
	 * an answer waits for the next connection (vx-sandbox's 30 s then fail
	 * the task) rather than spin */
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.ptr = &ctl->h };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");
	return 0;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5, asm-generic/socket.h */
#endif
#ifndef PIDFD_GET_NET_NAMESPACE
#define PIDFD_GET_NET_NAMESPACE _IO(0xFF, 4) /* Linux 6.11, linux/pidfd.h */
#endif

/* Is the namespace file theirs describes our own network namespace? */
static bool same_netns(const struct stat *theirs)
{
	struct stat mine;
	return stat("/proc/self/ns/net", &mine) == 0 && mine.st_dev == theirs->st_dev &&
	       mine.st_ino == theirs->st_ino;
}

/* Is the peer of fd a process of our network namespace (not a sandbox)?
 * Asked of the process itself where the kernel can (a pidfd of the peer
 * taken at connect, and its namespace through that pidfd: a peer that has
 * exited since is refused, so its pid reused by another process answers
 * nothing); through /proc/PID on an older kernel, the pidfd then telling
 * that the peer outlived the look. */
static bool outside(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct stat theirs;
	char p[64];
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.pid <= 0 ||
	    cr.uid != getuid())
		return false;
	int pidfd = -1;
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0) {
		if (errno != ENOPROTOOPT)
			return false; /* the kernel has it, and the peer is gone */
		pidfd = -1;
	} else if (pidfd >= 0) {
		int ns = ioctl(pidfd, PIDFD_GET_NET_NAMESPACE, 0);
		if (ns >= 0) {
			bool ok = fstat(ns, &theirs) == 0 && same_netns(&theirs);
			close(ns);
			close(pidfd);
			return ok;
		}
		if (errno != ENOTTY && errno != EINVAL) {
			close(pidfd);
			return false; /* gone (ESRCH), or not ours to look at */
		}
	}
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)cr.pid);
	bool ok = stat(p, &theirs) == 0 && same_netns(&theirs);
	/* /proc/PID was the peer only if the peer still lives after the look */
	if (pidfd >= 0) {
		ok = ok && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
		close(pidfd);
	}
	return ok;
}

void control_on_accept(struct handle *h)
{
	struct control *ctl = (struct control *)h;
	for (;;) {
		int fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN; out of descriptors: the next round */
		}
		if (!outside(fd)) {
			close(fd);
			continue;
		}
		/* one answer a task: nobody else may ask */
		close(ctl->fd);
		ctl->fd = -1;
		unlink(ctl->path);
		ctl->peer = fd;
		struct timeval tv = { .tv_sec = 5 };
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (ctl->l->fd >= 0)
			ctl->l->done = true;
		else
			control_done(ctl->l);
		return;
	}
}

bool control_keep(const struct listener *l, const char *line, size_t len)
{
	if (!l || !l->ctl)
		return false;
	strbuf_add(&l->ctl->denies, line, len);
	strbuf_add(&l->ctl->denies, "\n", 1);
	return true;
}

bool control_done(struct listener *l)
{
	struct control *ctl = l->ctl;
	if (!ctl)
		return false;
	if (ctl->peer < 0)
		return true;
	struct jsonw w = {0};
	jsonw_open(&w, '{');
	jsonw_key(&w, "type");
	jsonw_str(&w, "done");
	jsonw_key(&w, "task");
	jsonw_str(&w, l->task->id);
	jsonw_close(&w, '}');
	strbuf_add(&ctl->denies, w.sb.buf, w.sb.len);
	strbuf_add(&ctl->denies, "\n", 1);
	jsonw_free(&w);
	if (fileio_write_all(ctl->peer, ctl->denies.buf, ctl->denies.len) != 0)
		err_warn_errno("unable to hand %s its deny records", l->task->id);
	close(ctl->peer);
	ctl->peer = -1;
	strbuf_release(&ctl->denies);
	return true;
}

void control_close(struct listener *l)
{
	struct control *ctl = l->ctl;
	if (!ctl)
		return;
	if (ctl->fd >= 0) {
		close(ctl->fd);
		unlink(ctl->path);
	}
	if (ctl->peer >= 0)
		close(ctl->peer);
	strbuf_release(&ctl->denies);
	free(ctl->path);
	free(ctl);
	l->ctl = NULL;
}
