/* relay.c: the bytes of an allowed connection, spliced(2) from one
 * socket to the other through a pipe per direction (pipe.c; loop.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "http.h"
#include "loop.h"
#include "socks.h"

#define PIPE_BULK (1 << 20)   /* a pump that keeps filling its pipe grows it */
#define ROUNDS 64             /* splices a pump makes before others get a turn */
/* Grown pipes at once: a user's pipes share a budget (fs.pipe-user-pages-soft,
 * 64 MiB), past which its new pipes get one page; the task's own builds
 * spend from the same budget when vx runs unprivileged. */
#define BULK_MAX 16
/* Seconds an origin gets to close after its framed answer was delivered. */
#define DRAIN_S 1.0

/* A write to `to` said EAGAIN: its writable edge is wanted (loop.h). */
static bool want_out(struct conn *c, int to)
{
	return to == c->cfd ? ep_want_out(c->L, to, &c->hc, &c->cout, &c->cset) : ep_up_want_out(c->L, to);
}

/* Move what can move now from `from` to `to`: first the bytes owed, then
 * spliced ones. *rd and *wr are what the last edges said of the source and
 * the destination; each is cleared by the EAGAIN that ends it (a full pipe
 * also answers EAGAIN, so the source's is cleared only with the pipe
 * empty). 1: stopped after ROUNDS with work left; -1: broken. */
static int pump_run(struct conn *c, struct pump *p, int from, int to, bool *rd, bool *wr)
{
	/* a forwarded request's whole framed answer, read by sniff(): the
	 * client's socket is closed right after it (finish_framed), so its
	 * last bytes wait for that close (MSG_MORE), whose FIN rides their
	 * segment: the client wakes once for the answer and its EOF */
	int last = p == &c->down && c->body >= 0 && p->limit == 0 ? MSG_MORE : 0;
	while (p->pre && p->preoff < p->prelen) {
		if (!*wr) {
			p->blocked = true;
			return 0;
		}
		ssize_t n = send(to, p->pre + p->preoff, p->prelen - p->preoff,
			MSG_NOSIGNAL | MSG_DONTWAIT | last);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				*wr = false;
				p->blocked = true;
				return want_out(c, to) ? 0 : -1;
			}
			return -1;
		}
		p->preoff += (size_t)n;
		c->deadline = c->L->now + c->L->opts.idle_timeout;
	}
	if (p->pre) {
		free(p->pre);
		p->pre = NULL;
	}
	if (p->limit == 0)
		p->eof = true;
	int more = 0;
	for (int round = 0;; round++) {
		if (round == ROUNDS) {
			more = 1;
			break;
		}
		bool progress = false;
		if (!p->eof && *rd && (p->pipe[0] < 0 || p->inpipe < p->cap)) {
			if (p->pipe[0] < 0 && pipe_get(c->L, p) < 0)
				return -1;
			size_t want = p->cap - p->inpipe;
			if (p->limit >= 0 && (long long)want > p->limit)
				want = (size_t)p->limit;
			ssize_t n = splice(from, NULL, p->pipe[1], NULL, want,
				SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n > 0) {
				p->inpipe += (size_t)n;
				p->used = true;
				if (p->limit >= 0 && (p->limit -= n) == 0)
					p->eof = true;
				progress = true;
				/* a pump that keeps filling its pipe carries bulk:
				 * fewer, larger splices (best effort: a user past
				 * its pipe quota keeps the default) */
				if (p->inpipe >= p->cap && ++p->fills == 4 && p->cap == PIPE_CAP && c->L->nbulk < BULK_MAX) {
					int sz = fcntl(p->pipe[1], F_SETPIPE_SZ, PIPE_BULK);
					if (sz > PIPE_CAP) {
						p->cap = (size_t)sz;
						c->L->nbulk++;
					}
				}
			} else if (n == 0) {
				p->eof = true;
			} else if (errno == EAGAIN) {
				if (p->inpipe == 0)
					*rd = false;
			} else if (errno != EINTR) {
				if (errno != ECONNRESET)
					return -1;
				p->eof = true;
			}
		}
		if (p->inpipe > 0 && *wr) {
			ssize_t m = splice(p->pipe[0], NULL, to, NULL, p->inpipe,
				SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (m > 0) {
				p->inpipe -= (size_t)m;
				progress = true;
			} else if (m < 0 && errno == EAGAIN) {
				*wr = false;
				if (!want_out(c, to))
					return -1;
			} else if (m < 0 && errno != EINTR) {
				return -1;
			}
		}
		if (!progress)
			break;
		c->deadline = c->L->now + c->L->opts.idle_timeout;
	}
	/* bytes left in the pipe: wait until the destination takes more */
	p->blocked = p->inpipe > 0 && !*wr;
	if (p->eof && p->inpipe == 0 && !p->done) {
		p->done = true;
		if (p->shut)
			shutdown(to, SHUT_WR);
	}
	return more;
}

/* The first bytes of a forwarded request's answer, read instead of
 * spliced: when their head frames the response (http_resp_length), the
 * down pump takes exactly its length and the connection closes once that
 * is delivered. The client's EOF then no longer waits for the origin's
 * FIN, a wakeup later or more (a client that reads until EOF, and every
 * client's next request, wait on it); bytes past the framed response,
 * which no client should read, are not relayed. An origin asked to keep
 * the connection (c->keep) never closes it, so its head is read whole
 * (into c->buf, up to HTTP_HEAD_MAX) before anything is relayed: an answer
 * it frames is then known to end. 0: read or nothing yet; -1: broken. */
static int sniff(struct conn *c)
{
	char stack[HTTP_HEAD_MAX], *b = c->keep ? c->buf : stack;
	size_t have = c->keep ? c->len : 0;
	ssize_t n;
	long long total = -1;
	bool keep = false;
	for (;;) {
		do
			n = recv(c->ufd, b + have, HTTP_HEAD_MAX - have, MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n < 0 && errno == EAGAIN) {
			c->urd = false;
			if (c->keep)
				c->len = have;
			return 0;
		}
		if (n < 0 && errno != ECONNRESET)
			return -1;
		if (n <= 0) /* an origin's reset ends its answer, as in pump_run */
			break;
		have += (size_t)n;
		total = http_resp_length(b, have, &keep);
		/* all of the head, or all there is room for, or not asked */
		if (total != -2 || have == HTTP_HEAD_MAX || !c->keep)
			break;
	}
	c->sniff = false;
	if (n <= 0)
		c->down.eof = true;
	if (have == 0)
		return 0;
	if (total >= 0) {
		/* an origin that sent past its frame is not trusted with
		 * another request */
		c->reuse = c->keep && keep && (size_t)total >= have;
		if ((size_t)total < have)
			have = (size_t)total;
		c->down.limit = total - (long long)have;
	}
	c->down.pre = xmalloc(have);
	memcpy(c->down.pre, b, have);
	c->down.prelen = have;
	c->down.preoff = 0;
	c->deadline = c->L->now + c->L->opts.idle_timeout;
	return 0;
}

/* Read what the origin still sends after its framed answer, which goes
 * nowhere. true: it closed (or broke): nothing is left to wait for. */
static bool origin_drained(struct conn *c)
{
	char sink[4096];
	for (int i = 0; i < 16; i++) {
		ssize_t n = recv(c->ufd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return false;
		if (n <= 0)
			return true;
	}
	return false;
}

/* A framed answer delivered: the client gets its EOF at once. An origin
 * that keeps the connection keeps it for the next request; else its
 * socket stays open until the origin's FIN (DRAIN_S at most), so that the
 * origin closes first and TIME_WAIT stays on its side, as it did when the
 * answer ended with that FIN: a busy proxy's ports to one origin are not
 * tied up. */
static void finish_framed(struct conn *c)
{
	close(c->cfd); /* the client's EOF first; also leaves the epoll set */
	c->cfd = -1;
	/* an origin that keeps its connection, all of the request sent and
	 * nothing more from it: the task's next request here takes it */
	if (c->reuse && c->up.done && !c->ufin && spare_keep(c)) {
		conn_close(c);
		return;
	}
	/* one that would keep it, not kept, sends no FIN to wait for */
	if (c->reuse) {
		conn_close(c);
		return;
	}
	/* the edge that brought the answer also said the origin's FIN had
	 * come, as a rule: nothing to read for it */
	if (c->ufin || origin_drained(c)) {
		conn_close(c);
		return;
	}
	c->draining = true;
	c->deadline = c->L->now + (c->L->opts.idle_timeout < DRAIN_S ? c->L->opts.idle_timeout : DRAIN_S);
}

void relay(struct conn *c)
{
	if (c->draining) {
		if (origin_drained(c))
			conn_close(c);
		return;
	}
	int up = pump_run(c, &c->up, c->cfd, c->ufd, &c->crd, &c->uwr);
	int down = up < 0 || !c->sniff || !c->urd ? 0 : sniff(c);
	if (up >= 0 && down >= 0)
		down = pump_run(c, &c->down, c->ufd, c->cfd, &c->urd, &c->cwr);
	if (up < 0 || down < 0) {
		conn_close(c);
		return;
	}
	/* a tunnel ends when both directions have; a forwarded request when
	 * the origin's answer has been delivered (to its frame's end: limit 0) */
	if (c->down.done && (c->up.done || c->body >= 0)) {
		if (c->body >= 0 && c->down.limit == 0)
			finish_framed(c);
		else
			conn_close(c);
		return;
	}
	/* a hung-up peer that can take nothing more: nothing left to do */
	if ((c->chup && !c->down.done && c->down.blocked) || (c->uhup && !c->up.done && c->up.blocked)) {
		conn_close(c);
		return;
	}
	/* out of rounds with bytes still moving: no edge will come for what
	 * is already there, so run again after this batch of events */
	if ((up > 0 || down > 0) && !c->again) {
		c->again = true;
		c->next_again = c->L->again;
		c->L->again = c;
	}
}

/* Connected: queue what each side is owed and start relaying. The pipes
 * are taken now (from the pool, as a rule): out of descriptors, the
 * connection fails here, never a tunnel that was working. A forwarded
 * request without a body has sent all it sends upstream (its head goes
 * from memory): its up direction needs no pipe. */
void relay_start(struct conn *c)
{
	if ((c->body != 0 && pipe_get(c->L, &c->up) < 0) || pipe_get(c->L, &c->down) < 0) {
		refuse(c, 502, SOCKS_REP_FAIL, "out of file descriptors");
		return;
	}
	c->state = C_RELAY;
	c->deadline = c->L->now + c->L->opts.idle_timeout;
	c->up.pre = c->upre;
	c->up.prelen = c->upre_len;
	c->up.preoff = c->upre_sent;
	c->upre = NULL;
	c->up.limit = c->body;
	c->up.shut = c->body < 0;
	c->down.limit = -1;
	/* a tunnel's client may still send after the origin is done; a
	 * forwarded request's connection closes once the answer is out, and
	 * close() sends the FIN itself */
	c->down.shut = c->body < 0;
	if (c->via == VIA_CONNECT) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		c->down.pre = xstrdup(ok);
		c->down.prelen = sizeof(ok) - 1;
	} else if (c->via == VIA_SOCKS5) {
		c->down.pre = xmalloc(10);
		socks_reply((unsigned char *)c->down.pre, SOCKS_REP_OK);
		c->down.prelen = 10;
	}
	if (c->keep) {
		c->len = 0; /* the head buffer holds the answer's head (sniff) */
	} else {
		buf_put(c->L, c->buf);
		c->buf = NULL;
	}
	c->cwr = true; /* nothing written to the client yet */
	relay(c);
}

bool relay_waiting(const struct loop *L)
{
	return L->again != NULL;
}

/* Relays that ran out of rounds go on where they stopped: no edge will
 * come for bytes already there. */
void relay_again(struct loop *L)
{
	for (struct conn *c = L->again, *nx; c; c = nx) {
		if (c == L->again)
			L->again = NULL; /* a relay may queue itself anew */
		nx = c->next_again;
		c->again = false;
		if (!c->closed)
			relay(c);
	}
}
