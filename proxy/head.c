/* head.c: a connection's first bytes read, its protocol picked by the
 * first of them, and what its request names judged (loop.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "http.h"
#include "loop.h"

/* Read the head until it is complete (the state moves on), refused, or
 * the socket has nothing more (edge-triggered: read until then). */
void on_head_readable(struct conn *c)
{
	if (!c->buf)
		c->buf = buf_get();
	while (!c->closed && c->state == C_HEAD && c->crd) {
		size_t want = HTTP_HEAD_MAX - c->len;
		ssize_t n = recv(c->cfd, c->buf + c->len, want, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				c->crd = false;
			else
				conn_close(c);
			return;
		}
		if (n == 0) {
			conn_close(c); /* gone before asking for anything */
			return;
		}
		if ((size_t)n < want)
			c->crd = false; /* a short read took all there was */
		c->len += (size_t)n;
		if (c->via == VIA_NONE)
			c->via = (c->buf[0] == 5 || c->buf[0] == 4) ? VIA_SOCKS5 : VIA_HTTP;
		/* a SOCKS head is a few hundred bytes at most; HTTP's bound is
		 * the parser's (431) */
		if (c->via == VIA_SOCKS5)
			on_socks(c);
		else
			on_http_head(c);
	}
}

void judge(struct conn *c, const char *host, enum netpat_host kind, unsigned port)
{
	char why[NETPAT_HOST_MAX + 64];
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->port = port;
	if (!policy_judge(loop_pol, c->task, host, port, &c->literal, why, sizeof(why))) {
		deny(c, host, port, why);
		return;
	}
	if (c->over) {
		snprintf(why, sizeof(why), "more than %u connections of the task open at once",
			loop_opts.max_conns);
		deny(c, host, port, why);
		return;
	}
	c->deadline = loop_now + loop_opts.connect_timeout;
	if (kind == NETPAT_HOST_NAME) {
		/* only now, allowed, is the name looked up */
		c->state = C_RESOLVE;
		resolve_submit((uintptr_t)c, host, port);
		return;
	}
	struct resolve_answer a;
	memset(&a, 0, sizeof(a));
	a.naddr = 1;
	if (kind == NETPAT_HOST_IPV4) {
		struct sockaddr_in *s = (struct sockaddr_in *)&a.addr[0];
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &s->sin_addr);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a.addr[0];
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &s->sin6_addr);
	}
	on_addresses(c, &a);
}
