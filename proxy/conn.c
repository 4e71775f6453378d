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

#define POOL_MAX 64 /* connections and head buffers kept */

struct conn *conn_list;
unsigned long conn_closes;
static struct conn *dead; /* closed in this batch of events, freed after it */
static struct conn *pool_conn;
static int npool_conn;
static char *pool_buf[POOL_MAX];
static int npool_buf;

struct conn *conn_new(struct listener *l, int fd)
{
	struct conn *c = pool_conn;
	if (c) {
		pool_conn = c->nextc;
		npool_conn--;
		memset(c, 0, sizeof(*c));
	} else {
		c = xcalloc(1, sizeof(*c));
	}
	c->hc.kind = H_CLIENT;
	c->hu.kind = H_UPSTREAM;
	c->cfd = fd;
	c->ufd = -1;
	c->up.pipe[0] = c->down.pipe[0] = -1;
	c->task = l->task;
	c->lis = l;
	c->over = ++l->nconn > loop_opts.max_conns;
	c->deadline = loop_now + loop_opts.header_timeout;
	c->nextc = conn_list;
	if (conn_list)
		conn_list->prev = c;
	conn_list = c;
	return c;
}

char *buf_get(void)
{
	return npool_buf ? pool_buf[--npool_buf] : xmalloc(HTTP_HEAD_MAX);
}

void buf_put(char *b)
{
	if (b && npool_buf < POOL_MAX)
		pool_buf[npool_buf++] = b;
	else
		free(b);
}

static void conn_unlink(struct conn *c)
{
	if (c->prev)
		c->prev->nextc = c->nextc;
	else
		conn_list = c->nextc;
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
	conn_closes++;
	if (c->lis)
		c->lis->nconn--;
	if (c->cfd >= 0)
		close(c->cfd); /* close() also leaves the epoll set */
	if (c->ufd >= 0)
		close(c->ufd);
	c->cfd = c->ufd = -1;
	conn_unlink(c);
	pump_free(&c->up);
	pump_free(&c->down);
	buf_put(c->buf);
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
	c->nextc = dead;
	dead = c;
}

void conn_reap(void)
{
	while (dead) {
		struct conn *c = dead;
		dead = c->nextc;
		if (npool_conn < POOL_MAX) {
			c->nextc = pool_conn;
			pool_conn = c;
			npool_conn++;
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
