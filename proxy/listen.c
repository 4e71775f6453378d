/* listen.c: the task sockets: bound or inherited, accepted from, taken
 * out of the epoll set while the proxy is out of descriptors (loop.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "err.h"
#include "loop.h"


/* Out of descriptors: a listening socket stays readable, so polling it
 * would spin. Stop polling every task socket until resume(). */
static void starve(struct loop *L)
{
	if (!L->starved_said) {
		err_warn_errno("out of file descriptors; new connections wait until one "
			"closes (said once per run)");
		L->starved_said = true;
	}
	L->starved = true;
	L->starved_closes = L->closes;
	L->starved_at = L->now;
	for (struct listener *l = L->listeners; l; l = l->next)
		if (l->fd >= 0)
			epoll_ctl(L->ep, EPOLL_CTL_DEL, l->fd, NULL);
}

static void resume(struct loop *L)
{
	L->starved = false;
	for (struct listener *l = L->listeners; l; l = l->next) {
		/* level-triggered: a waiting backlog is an event at once */
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &l->h };
		if (l->fd >= 0 && epoll_ctl(L->ep, EPOLL_CTL_ADD, l->fd, &ev) < 0)
			err_die_errno(1, "epoll_ctl");
	}
}

void listen_resume_due(struct loop *L)
{
	if (L->starved && (L->closes != L->starved_closes || L->now - L->starved_at >= 1))
		resume(L);
}

void on_accept(struct listener *l, bool drain)
{
	while (!l->L->starved) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				starve(l->L);
			else if (errno != EAGAIN)
				err_warn_errno("accept on the socket of %s", l->task->id);
			return;
		}
		struct conn *c = conn_new(l, fd);
		/* a client writes its request as soon as it is connected: it is
		 * often there already, which saves a trip through epoll_wait;
		 * the socket joins the epoll set after that, off the path to
		 * the origin (an ADD reports what is ready already) */
		c->crd = true;
		on_head_readable(c);
		/* a forwarded request without a body, sent on already: nothing
		 * the client does until its answer is out changes what the proxy
		 * does (more bytes are not read; a hangup is found by the write
		 * it fails, or the idle timeout), so its socket joins the set
		 * only if a write to it says EAGAIN (relay.c) */
		bool quiet = c->state == C_RELAY && c->via == VIA_HTTP && c->body == 0;
		if (!c->closed && !quiet) {
			ep_add(l->L, fd, &c->hc, false); /* writable: nothing sent yet */
			c->cset = true;
		}
		/* the socket is level-triggered: one alone need not be drained,
		 * a backlog left is the next epoll_wait's event */
		if (!drain)
			return;
	}
}

int server_add_task(struct loop *L, struct ptask *t, const char *path, int fd,
	const char *control)
{
	if (path) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		if (strlen(path) >= sizeof(sa.sun_path)) {
			err_warn("socket path '%s' too long", path);
			return -1;
		}
		strcpy(sa.sun_path, path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		/* only our own user may connect: attribution is by socket */
		mode_t old = umask(077);
		int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		umask(old);
		if (r < 0 || listen(fd, 512) < 0) {
			err_warn_errno("unable to listen on '%s'", path);
			if (fd >= 0)
				close(fd);
			return -1;
		}
	} else {
		int type = 0, acc = 0;
		socklen_t l = sizeof(type), l2 = sizeof(acc);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_STREAM ||
		    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l2) < 0 || !acc) {
			err_warn("fd %d is no listening stream socket", fd);
			return -1;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	struct listener *l = xcalloc(1, sizeof(*l));
	l->h.kind = H_LISTEN;
	l->L = L;
	l->fd = fd;
	l->task = t;
	l->path = path ? xstrdup(path) : NULL;
	l->next = L->listeners;
	L->listeners = l;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &l->h };
	if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");
	if (control && control_add(l, control, L->ep) < 0)
		return -2;
	record_listening(t, path, fd);
	return 0;
}

int server_task_done(struct loop *L, const char *id)
{
	for (struct listener *l = L->listeners; l; l = l->next)
		if (!l->done && l->fd >= 0 && strcmp(l->task->id, id) == 0) {
			l->done = true;
			return 0;
		}
	return -1;
}
