/* dial.c: from an allowed request to a connected origin: the addresses a
 * name resolved to judged in turn, then dialled one after the other
 * (loop.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "hostaddr.h"
#include "loop.h"
#include "socks.h"

static void connect_next(struct conn *c)
{
	while (c->next < c->naddr) {
		struct sockaddr_storage *a = &c->addr[c->next++];
		socklen_t alen = a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		/* a spare made after the task's last request here is
		 * connected already (spare.c) */
		int one = 1, fd = spare_take(c->L, c->task, a);
		bool spare = fd >= 0;
		if (!spare)
			fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		/* a forwarded head without a body goes in one send; what is
		 * relayed piecemeal (a tunnel, a body) should not wait for ACKs */
		if (c->body != 0)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (spare || connect(fd, (struct sockaddr *)a, alen) == 0 || errno == EINPROGRESS) {
			c->ufd = fd;
			c->urd = c->uwr = c->uhup = c->ufin = false;
			c->state = C_CONNECT;
			/* on loopback the handshake is over by now, as a rule: the
			 * bytes owed upstream go at once, and their send tells
			 * (EAGAIN: still connecting, wait for the edge). The
			 * socket joins the epoll set after that send, off the
			 * origin's path: an ADD reports what is already ready. */
			ssize_t n = c->upre_len ?
				send(fd, c->upre, c->upre_len, MSG_NOSIGNAL | MSG_DONTWAIT) : 0;
			if (n > 0 || !c->upre_len || errno == EAGAIN) {
				/* the connect's end is an EPOLLOUT edge; a send
				 * that went needs none (a later EAGAIN asks). A
				 * spare is in the set already: it changes hands */
				bool ok;
				if (spare) {
					ep_up_own(c->L, fd, c);
					ok = n > 0 || ep_up_want_out(c->L, fd);
				} else {
					ok = ep_up_add(c->L, fd, c, n <= 0);
				}
				if (!ok)
					err_die_errno(1, "epoll_ctl");
				if (n > 0) {
					c->upre_sent = (size_t)n;
					c->uwr = true;
					relay_start(c);
				}
				return;
			}
			c->ufd = -1; /* refused at once: the next address */
			if (spare)
				c->next--; /* a spare the origin closed: this one again, dialled */
		}
		ep_up_forget(c->L, fd);
		close(fd);
	}
	refuse(c, 502, SOCKS_REP_REFUSED, "cannot connect to the origin");
}

void on_connected(struct conn *c, uint32_t ev)
{
	if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
		return;
	/* writable without an error or a hangup: connected */
	int e = 0;
	socklen_t el = sizeof(e);
	if ((ev & (EPOLLERR | EPOLLHUP)) && getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		e = errno;
	if ((ev & (EPOLLERR | EPOLLHUP)) && !e)
		e = ECONNREFUSED;
	if (e) {
		ep_up_forget(c->L, c->ufd);
		close(c->ufd);
		c->ufd = -1;
		connect_next(c);
		return;
	}
	relay_start(c);
}

/* The addresses a name led to are judged too: no loopback, link-local,
 * metadata address or address of the host's own interfaces unless the
 * entry named the host literally, and none an IP entry of the deny list
 * names. Then dial exactly these. */
void on_addresses(struct conn *c, const struct resolve_answer *a)
{
	for (int i = 0; i < a->naddr; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&a->addr[i];
		char text[INET6_ADDRSTRLEN];
		const void *raw = sa->sa_family == AF_INET ?
			(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
			(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		inet_ntop(sa->sa_family, raw, text, sizeof(text));
		const char *cls = policy_addr_class(sa), *d;
		if (!cls && hostaddr_is_own(sa, c->L->now))
			cls = "this host's";
		if (cls && !c->literal) {
			char *why = xasprintf("resolves to %s address %s", cls, text);
			deny(c, c->host, c->port, why);
			free(why);
			return;
		}
		if ((d = policy_addr_denied(c->L->pol, sa, c->port))) {
			char *why = xasprintf("resolves to %s, deny.network '%s'", text, d);
			deny(c, c->host, c->port, why);
			free(why);
			return;
		}
	}
	memcpy(c->addr, a->addr, sizeof(c->addr));
	c->naddr = a->naddr;
	c->next = 0;
	connect_next(c);
}

void on_resolved(struct loop *L)
{
	uint64_t v;
	(void)!read(L->rfd, &v, sizeof(v));
	struct resolve_answer a;
	while (resolve_take(&a)) {
		struct conn *c = (struct conn *)(uintptr_t)a.token;
		if (c->zombie) {
			conn_release(c);
			continue;
		}
		c->state = C_HEAD; /* no longer owned by the resolver */
		if (a.err) {
			char *msg = xasprintf("cannot resolve '%s'", c->host);
			refuse(c, 502, SOCKS_REP_HOSTUNREACH, msg);
			free(msg);
			continue;
		}
		on_addresses(c, &a);
	}
}
