/* conn.c: a connection's struct and head buffer (pooled, so that a
 * connection costs no allocation once the proxy has warmed up), closing it,
 * and refusing its request in the words of its protocol (loop.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "http.h"
#include "loop.h"
#include "socks.h"

struct conn *conn_new(struct listener *l, int fd)
{
	struct loop *L = l->L;
	struct conn *c = L->pool_conn;
	if (c) {
		L->pool_conn = c->nextc;
		L->npool_conn--;
		memset(c, 0, sizeof(*c));
	} else {
		c = xcalloc(1, sizeof(*c));
	}
	c->L = L;
	c->hc.kind = H_CLIENT;
	c->cfd = fd;
	c->ufd = -1;
	c->up.pipe[0] = c->down.pipe[0] = -1;
	c->task = l->task;
	c->lis = l;
	c->over = ++l->nconn > L->opts.max_conns;
	c->deadline = L->now + L->opts.header_timeout;
	c->nextc = L->conns;
	if (L->conns)
		L->conns->prev = c;
	L->conns = c;
	return c;
}

char *buf_get(struct loop *L)
{
	return L->npool_buf ? L->pool_buf[--L->npool_buf] : xmalloc(HTTP_HEAD_MAX);
}

void buf_put(struct loop *L, char *b)
{
	if (b && L->npool_buf < POOL_MAX)
		L->pool_buf[L->npool_buf++] = b;
	else
		free(b);
}

static void conn_unlink(struct conn *c)
{
	if (c->prev)
		c->prev->nextc = c->nextc;
	else
		c->L->conns = c->nextc;
	if (c->nextc)
		c->nextc->prev = c->prev;
	c->prev = c->nextc = NULL;
}

/* Release everything but the struct itself: later events of the same
 * batch may still name it (they see closed), and the resolver may hold its
 * address (zombie, freed when the answer comes). */
void conn_close(struct conn *c)
{
	if (c->closed)
		return;
	c->closed = true;
	c->L->closes++;
	if (c->lis)
		c->lis->nconn--;
	if (c->cfd >= 0)
		close(c->cfd); /* close() also leaves the epoll set */
	if (c->ufd >= 0) {
		ep_up_forget(c->L, c->ufd);
		close(c->ufd);
	}
	c->cfd = c->ufd = -1;
	/* the task reached this origin: its next request finds a connection
	 * made (after this one's bytes, off their path) */
	if (c->state == C_RELAY)
		spare_make(c);
	conn_unlink(c);
	pump_free(c->L, &c->up);
	pump_free(c->L, &c->down);
	buf_put(c->L, c->buf);
	free(c->upre);
	c->buf = c->upre = NULL;
	c->up.pre = c->down.pre = NULL;
	c->up.pipe[0] = c->down.pipe[0] = -1;
	if (c->state == C_RESOLVE) {
		c->zombie = true;
		return;
	}
	conn_release(c);
}

void conn_release(struct conn *c)
{
	c->nextc = c->L->dead;
	c->L->dead = c;
}

void conn_reap(struct loop *L)
{
	while (L->dead) {
		struct conn *c = L->dead;
		L->dead = c->nextc;
		if (L->npool_conn < POOL_MAX) {
			c->nextc = L->pool_conn;
			L->pool_conn = c;
			L->npool_conn++;
		} else {
			free(c);
		}
	}
}

/* Answer the client with msg, drop what it sent unread (closing a unix
 * socket with unread input would turn the client's EOF into ECONNRESET),
 * and close. */
void conn_refuse(struct conn *c, const void *msg, size_t len)
{
	if (msg && len)
		(void)send(c->cfd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(c->cfd, SHUT_WR);
	char sink[4096];
	for (int i = 0; i < 16 && recv(c->cfd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	conn_close(c);
}

void refuse_http(struct conn *c, int status, const char *msg)
{
	size_t n;
	char *r = http_error(status, msg, &n);
	conn_refuse(c, r, n);
	free(r);
}

void refuse_socks(struct conn *c, int rep)
{
	unsigned char r[10];
	socks_reply(r, rep);
	conn_refuse(c, r, sizeof(r));
}

/* The client-facing refusal of the protocol in use. */
void refuse(struct conn *c, int status, int rep, const char *msg)
{
	if (c->via == VIA_SOCKS5)
		refuse_socks(c, rep);
	else if (c->via == VIA_SOCKS4)
		conn_refuse(c, "\0\x5b\0\0\0\0\0\0", 8);
	else
		refuse_http(c, status, msg);
}

void deny(struct conn *c, const char *host, unsigned port, const char *reason)
{
	record_deny(c, host, port, reason);
	char *msg = xasprintf("deny %s:%u (%s)", host, port, reason);
	refuse(c, 403, SOCKS_REP_RULESET, msg);
	free(msg);
}
