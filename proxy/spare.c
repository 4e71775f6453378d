/* spare.c: connections made ahead (loop.h). A task that reached an origin
 * is likely to reach it again: once a relayed connection closes, one more
 * is opened to the same address, so that the next request's socket(2),
 * TCP handshake and the origin's accept(2) are done while the proxy would
 * wait for that request. Such a spare is only made early: it carries a
 * request like any upstream connection. It serves its own
 * task and the exact address (port included) a judged request was dialled
 * at, so it reaches nothing a fresh dial would not; unused, it is closed
 * after SPARE_S seconds, or when its task ends.
 *
 * A request without a body asks the origin to keep its connection
 * (HTTP/1.0 keep-alive, head_http.c); when the answer's head agrees and
 * frames it (relay.c), the connection is kept here after the answer, in
 * place of a new one, for the task's next request to the same address. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loop.h"

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
	return x->sin6_port == y->sin6_port &&
	       memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
}

static void drop(struct loop *L, int i)
{
	ep_up_forget(L, L->spares[i].fd);
	close(L->spares[i].fd);
	L->spares[i] = L->spares[--L->nspares];
}

void spare_make(struct conn *c)
{
	struct loop *L = c->L;
	if (c->next < 1 || L->nspares == SPARE_MAX)
		return;
	const struct sockaddr_storage *a = &c->addr[c->next - 1];
	for (int i = 0; i < L->nspares; i++)
		if (L->spares[i].task == c->task && same_addr(&L->spares[i].addr, a))
			return;
	int fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return; /* out of descriptors: the next request dials */
	socklen_t alen = a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	/* in the epoll set from the start, without EPOLLOUT: the connect's
	 * end needs no wakeup; the request that takes it asks if it must */
	if ((connect(fd, (const struct sockaddr *)a, alen) < 0 && errno != EINPROGRESS) ||
	    !ep_up_add(L, fd, NULL, false)) {
		close(fd);
		return;
	}
	struct spare *s = &L->spares[L->nspares++];
	s->task = c->task;
	s->addr = *a;
	s->fd = fd;
	s->born = L->now;
}

bool spare_keep(struct conn *c)
{
	struct loop *L = c->L;
	if (c->next < 1 || L->nspares == SPARE_MAX)
		return false;
	const struct sockaddr_storage *a = &c->addr[c->next - 1];
	/* it stays in the epoll set, a spare's until taken */
	ep_up_own(L, c->ufd, NULL);
	struct spare *s = &L->spares[L->nspares++];
	s->task = c->task;
	s->addr = *a;
	s->fd = c->ufd;
	s->born = L->now;
	c->ufd = -1;
	return true;
}

int spare_take(struct loop *L, const struct ptask *t, const struct sockaddr_storage *addr)
{
	for (int i = 0; i < L->nspares; i++) {
		struct spare *s = &L->spares[i];
		if (s->task != t || !same_addr(&s->addr, addr))
			continue;
		/* still connected (or connecting) and silent: an origin that
		 * closed it, reset it or wrote on it unasked is not used */
		char b;
		if (L->now - s->born < SPARE_S && recv(s->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
		    errno == EAGAIN) {
			int fd = s->fd;
			L->spares[i] = L->spares[--L->nspares];
			return fd;
		}
		drop(L, i);
		return -1;
	}
	return -1;
}

void spare_expire(struct loop *L, const struct ptask *t, bool all)
{
	for (int i = L->nspares - 1; i >= 0; i--)
		if (all ? !t || L->spares[i].task == t : L->now - L->spares[i].born >= SPARE_S)
			drop(L, i);
}

void spare_event(struct loop *L, int fd)
{
	for (int i = 0; i < L->nspares; i++) {
		if (L->spares[i].fd != fd)
			continue;
		/* a connect that ended is no news; an origin that closed it,
		 * reset it or wrote on it unasked makes it useless */
		char b;
		if (!(recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == EAGAIN))
			drop(L, i);
		return;
	}
}
