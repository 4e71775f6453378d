/* head.c: a connection's first bytes read, and the protocol they speak
 * picked by classify(), the one dispatch point for a new kind of client
 * exchange: a new kind is one value of enum via, one test here and one
 * handler called below (loop.h). */
#include <errno.h>
#include <sys/socket.h>

#include "http.h"
#include "loop.h"

/* The protocol of a connection from its first bytes (n >= 1): 0x05 (and
 * 0x04, refused there) SOCKS, else HTTP. VIA_NONE would mean "not enough
 * bytes to tell yet" (a kind named by a longer prefix). */
static enum via classify(const char *b, size_t n)
{
	(void)n;
	return b[0] == 5 || b[0] == 4 ? VIA_SOCKS5 : VIA_HTTP;
}

/* Read the head until it is complete (the state moves on), refused, or
 * the socket has nothing more (edge-triggered: read until then). */
void on_head_readable(struct conn *c)
{
	if (!c->buf)
		c->buf = buf_get(c->L);
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
			c->via = classify(c->buf, c->len);
		/* a SOCKS head is a few hundred bytes at most; HTTP's bound is
		 * the parser's (431) */
		switch (c->via) {
		case VIA_NONE:
			break; /* read on */
		case VIA_SOCKS5:
		case VIA_SOCKS4:
			on_socks(c);
			break;
		default:
			on_http_head(c);
			break;
		}
	}
}
