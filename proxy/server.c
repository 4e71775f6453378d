#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "hostaddr.h"
#include "http.h"
#include "jsonl.h"
#include "jsonw.h"
#include "netpat.h"
#include "resolve.h"
#include "socks.h"

#define PIPE_CAP 65536        /* a pipe's default size: the first bytes */
#define PIPE_BULK (1 << 20)   /* a pump that keeps filling its pipe grows it */
#define SWEEP_MS 200
#define ROUNDS 64             /* splices a pump makes before others get a turn */
#define POOL_MAX 64           /* connections, head buffers and pipes kept */
/* Grown pipes at once: a user's pipes share a budget (fs.pipe-user-pages-soft,
 * 64 MiB), past which its new pipes get one page; the task's own builds
 * spend from the same budget when vx runs unprivileged. */
#define BULK_MAX 16

enum hkind { H_LISTEN, H_CLIENT, H_UPSTREAM, H_RESOLVER, H_SIGNAL, H_LINES };

struct handle {
	enum hkind kind;
};

struct listener {
	struct handle h;
	int fd;
	struct ptask *task;
	char *path; /* bound here (removed at exit), or NULL for an inherited fd */
	bool done;  /* the driver said the task ended: answer once it is judged */
	unsigned nconn; /* its connections now open */
	struct listener *next;
};

/* One direction of a relay: `pre` (bytes the proxy itself owes the reader:
 * a reply, a rewritten head) first, then bytes spliced from one socket to
 * the other through a pipe. */
struct pump {
	int pipe[2];
	size_t inpipe, cap; /* bytes in the pipe, and its size */
	unsigned fills;     /* times it came back full: bulk, grow it */
	char *pre;
	size_t prelen, preoff;
	long long limit; /* bytes still to take from the source; -1: no limit */
	bool eof;        /* the source is done (EOF, or limit reached) */
	bool done;       /* all delivered */
	bool shut;       /* shutdown(SHUT_WR) the destination when done */
	bool blocked;    /* the destination would block */
};

enum cstate { C_HEAD, C_RESOLVE, C_CONNECT, C_RELAY };
enum via { VIA_NONE, VIA_HTTP, VIA_CONNECT, VIA_SOCKS5, VIA_SOCKS4 };

/* Sockets are in the epoll set once, edge-triggered for both directions;
 * what an edge said is kept here until a call returns EAGAIN. */
struct conn {
	struct handle hc, hu;
	int cfd, ufd;
	bool crd, cwr, urd, uwr; /* readable/writable as far as we know */
	bool chup, uhup;
	bool again; /* on the list of relays to run again (ran out of rounds) */
	struct ptask *task;
	struct listener *lis; /* whose socket accepted it */
	bool over;            /* accepted past max_conns: its request is refused */
	enum cstate state;
	enum via via;
	bool closed;
	bool zombie; /* closed while a lookup was out: freed by its answer */
	bool socks_greeted;
	char *buf;
	size_t len, off; /* head bytes read, and used (SOCKS) */
	char host[NETPAT_HOST_MAX];
	unsigned port;
	bool literal;
	struct sockaddr_storage addr[RESOLVE_MAX_ADDR];
	int naddr, next;
	char *upre; /* what goes upstream first once connected */
	size_t upre_len, upre_sent;
	long long body; /* body bytes still to come from the client; -1: a tunnel */
	struct pump up, down;
	double deadline;
	struct conn *prev, *nextc;
	struct conn *next_again;
};

static struct server_opts opts;
static struct policy *pol;
static int ep = -1, sfd = -1, rfd = -1;
static struct handle h_resolver = { H_RESOLVER }, h_signal = { H_SIGNAL }, h_lines = { H_LINES };
static struct listener *listeners;
static struct conn *conns;
static struct conn *dead; /* closed in this batch of events, freed after it */
static struct conn *again_list; /* relays that stopped with work left */
/* Pools, so that a connection costs no allocation and no pipe2(2) once
 * the proxy has warmed up: freed connections, head buffers, empty pipes. */
static struct conn *pool_conn;
static int npool_conn;
static char *pool_buf[POOL_MAX];
static int npool_buf;
static int pool_pipe[POOL_MAX][2];
static int npool_pipe;
static int nbulk; /* pipes grown to PIPE_BULK now open */
static double now;
static int exit_code = -1;
/* Out of descriptors: the task sockets are out of the epoll set until a
 * connection closes (closes moves) or a second passes. */
static bool starved, starved_said;
static unsigned long closes, starved_closes;
static double starved_at;
static struct jsonw rec;

static int lines_fd = -1;
static void (*lines_cb)(char *, void *);
static void *lines_arg;
static char *lines_buf;
static size_t lines_len, lines_cap;

static double clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A socket joins the set once, for both directions, edge-triggered: no
 * epoll_ctl per change of direction; it leaves the set when closed. */
static void ep_add(int fd, struct handle *h)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = h };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");
}

static char *buf_get(void)
{
	return npool_buf ? pool_buf[--npool_buf] : xmalloc(HTTP_HEAD_MAX);
}

static void buf_put(char *b)
{
	if (b && npool_buf < POOL_MAX)
		pool_buf[npool_buf++] = b;
	else
		free(b);
}

/* A host as the record shows it: the canonical form when there is one,
 * else the client's bytes with anything unprintable as \xNN. */
static void show_host(char *out, size_t cap, const char *raw, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 5 < cap; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c > 0x20 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

static const char *via_name(enum via v)
{
	switch (v) {
	case VIA_HTTP: return "http";
	case VIA_CONNECT: return "connect";
	case VIA_SOCKS5: return "socks5";
	case VIA_SOCKS4: return "socks4";
	default: return "unknown";
	}
}

/* One refusal, one line: the driver prints it under the task's violations
 * as `deny network-outbound <host>:<port> (<reason>)`. */
static void record_deny(const struct conn *c, const char *host, unsigned port, const char *reason)
{
	jsonw_reset(&rec);
	jsonw_open(&rec, '{');
	jsonw_key(&rec, "type");
	jsonw_str(&rec, "deny");
	jsonw_key(&rec, "task");
	jsonw_str(&rec, c->task->id);
	jsonw_key(&rec, "host");
	jsonw_str(&rec, host);
	jsonw_key(&rec, "port");
	jsonw_num(&rec, port);
	jsonw_key(&rec, "reason");
	jsonw_str(&rec, reason);
	jsonw_key(&rec, "via");
	jsonw_str(&rec, via_name(c->via));
	jsonw_close(&rec, '}');
	jsonl_write_raw(rec.buf, rec.len);
	if (fflush(stdout) != 0)
		err_die_errno(1, "write error");
}

/* A pipe for a pump: an empty one from the pool, else a new one. */
static int pipe_get(struct pump *p)
{
	if (npool_pipe) {
		npool_pipe--;
		p->pipe[0] = pool_pipe[npool_pipe][0];
		p->pipe[1] = pool_pipe[npool_pipe][1];
	} else if (pipe2(p->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		return -1;
	}
	p->cap = PIPE_CAP;
	p->fills = 0;
	return 0;
}

/* An empty pipe of the default size goes back to the pool; one holding
 * bytes (or grown) is closed. The next connection may be another task's:
 * the kernel's count must agree that it is empty, not only ours. */
static void pump_free(struct pump *p)
{
	if (p->pipe[0] >= 0) {
		int left = -1;
		if (p->inpipe == 0 && p->cap == PIPE_CAP && npool_pipe < POOL_MAX &&
		    ioctl(p->pipe[0], FIONREAD, &left) == 0 && left == 0) {
			pool_pipe[npool_pipe][0] = p->pipe[0];
			pool_pipe[npool_pipe][1] = p->pipe[1];
			npool_pipe++;
		} else {
			close(p->pipe[0]);
			close(p->pipe[1]);
			if (p->cap > PIPE_CAP)
				nbulk--;
		}
	}
	free(p->pre);
}

static void conn_unlink(struct conn *c)
{
	if (c->prev)
		c->prev->nextc = c->nextc;
	else
		conns = c->nextc;
	if (c->nextc)
		c->nextc->prev = c->prev;
	c->prev = c->nextc = NULL;
}

/* Release everything but the struct itself: later events of the same
 * batch may still name it (they see closed), and the resolver may hold its
 * address (zombie, freed when the answer comes). */
static void conn_close(struct conn *c)
{
	if (c->closed)
		return;
	c->closed = true;
	closes++;
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
	c->nextc = dead;
	dead = c;
}

/* Answer the client with msg, drop what it sent unread (closing a unix
 * socket with unread input would turn the client's EOF into ECONNRESET),
 * and close. */
static void conn_refuse(struct conn *c, const void *msg, size_t len)
{
	if (msg && len)
		(void)send(c->cfd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(c->cfd, SHUT_WR);
	char sink[4096];
	for (int i = 0; i < 16 && recv(c->cfd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	conn_close(c);
}

static void refuse_http(struct conn *c, int status, const char *msg)
{
	size_t n;
	char *r = http_error(status, msg, &n);
	conn_refuse(c, r, n);
	free(r);
}

static void refuse_socks(struct conn *c, int rep)
{
	unsigned char r[10];
	socks_reply(r, rep);
	conn_refuse(c, r, sizeof(r));
}

/* The client-facing refusal of the protocol in use. */
static void refuse(struct conn *c, int status, int rep, const char *msg)
{
	if (c->via == VIA_SOCKS5)
		refuse_socks(c, rep);
	else if (c->via == VIA_SOCKS4)
		conn_refuse(c, "\0\x5b\0\0\0\0\0\0", 8);
	else
		refuse_http(c, status, msg);
}

static void deny(struct conn *c, const char *host, unsigned port, const char *reason)
{
	record_deny(c, host, port, reason);
	char *msg = xasprintf("deny %s:%u (%s)", host, port, reason);
	refuse(c, 403, SOCKS_REP_RULESET, msg);
	free(msg);
}

/* ---- the relay ---- */

/* Move what can move now from `from` to `to`: first the bytes owed, then
 * spliced ones. *rd and *wr are what the last edges said of the source and
 * the destination; each is cleared by the EAGAIN that ends it (a full pipe
 * also answers EAGAIN, so the source's is cleared only with the pipe
 * empty). 1: stopped after ROUNDS with work left; -1: broken. */
static int pump_run(struct conn *c, struct pump *p, int from, int to, bool *rd, bool *wr)
{
	while (p->pre && p->preoff < p->prelen) {
		if (!*wr) {
			p->blocked = true;
			return 0;
		}
		ssize_t n = send(to, p->pre + p->preoff, p->prelen - p->preoff,
			MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				*wr = false;
				p->blocked = true;
				return 0;
			}
			return -1;
		}
		p->preoff += (size_t)n;
		c->deadline = now + opts.idle_timeout;
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
			if (p->pipe[0] < 0 && pipe_get(p) < 0)
				return -1;
			size_t want = p->cap - p->inpipe;
			if (p->limit >= 0 && (long long)want > p->limit)
				want = (size_t)p->limit;
			ssize_t n = splice(from, NULL, p->pipe[1], NULL, want,
				SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n > 0) {
				p->inpipe += (size_t)n;
				if (p->limit >= 0 && (p->limit -= n) == 0)
					p->eof = true;
				progress = true;
				/* a pump that keeps filling its pipe carries bulk:
				 * fewer, larger splices (best effort: a user past
				 * its pipe quota keeps the default) */
				if (p->inpipe >= p->cap && ++p->fills == 4 && p->cap == PIPE_CAP && nbulk < BULK_MAX) {
					int sz = fcntl(p->pipe[1], F_SETPIPE_SZ, PIPE_BULK);
					if (sz > PIPE_CAP) {
						p->cap = (size_t)sz;
						nbulk++;
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
			} else if (m < 0 && errno != EINTR) {
				return -1;
			}
		}
		if (!progress)
			break;
		c->deadline = now + opts.idle_timeout;
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

static void relay(struct conn *c)
{
	int up = pump_run(c, &c->up, c->cfd, c->ufd, &c->crd, &c->uwr);
	int down = up < 0 ? 0 : pump_run(c, &c->down, c->ufd, c->cfd, &c->urd, &c->cwr);
	if (up < 0 || down < 0) {
		conn_close(c);
		return;
	}
	/* a tunnel ends when both directions have; a forwarded request when
	 * the origin's answer has been delivered */
	if (c->down.done && (c->up.done || c->body >= 0)) {
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
		c->next_again = again_list;
		again_list = c;
	}
}

/* Connected: queue what each side is owed and start relaying. Both pipes
 * are taken now (from the pool, as a rule): out of descriptors, the
 * connection fails here, never a tunnel that was working. */
static void relay_start(struct conn *c)
{
	if (pipe_get(&c->up) < 0 || pipe_get(&c->down) < 0) {
		refuse(c, 502, SOCKS_REP_FAIL, "out of file descriptors");
		return;
	}
	c->state = C_RELAY;
	c->deadline = now + opts.idle_timeout;
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
	buf_put(c->buf);
	c->buf = NULL;
	c->cwr = true; /* nothing written to the client yet */
	relay(c);
}

/* ---- connecting ---- */

static void connect_next(struct conn *c)
{
	while (c->next < c->naddr) {
		struct sockaddr_storage *a = &c->addr[c->next++];
		socklen_t alen = a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		int one = 1, fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		/* a forwarded head without a body goes in one send; what is
		 * relayed piecemeal (a tunnel, a body) should not wait for ACKs */
		if (c->body != 0)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)a, alen) == 0 || errno == EINPROGRESS) {
			c->ufd = fd;
			c->urd = c->uwr = c->uhup = false;
			c->state = C_CONNECT;
			ep_add(fd, &c->hu); /* the connect's end is an edge */
			if (!c->upre_len)
				return;
			/* on loopback the handshake is over by now, as a rule: the
			 * bytes owed upstream go at once, and their send tells
			 * (EAGAIN: still connecting, wait for the edge) */
			ssize_t n = send(fd, c->upre, c->upre_len, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0) {
				c->upre_sent = (size_t)n;
				c->uwr = true;
				relay_start(c);
				return;
			}
			if (errno == EAGAIN)
				return;
			c->ufd = -1; /* refused at once: the next address */
		}
		close(fd);
	}
	refuse(c, 502, SOCKS_REP_REFUSED, "cannot connect to the origin");
}

static void on_connected(struct conn *c, uint32_t ev)
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
static void on_addresses(struct conn *c, const struct resolve_answer *a)
{
	for (int i = 0; i < a->naddr; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&a->addr[i];
		char text[INET6_ADDRSTRLEN];
		const void *raw = sa->sa_family == AF_INET ?
			(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
			(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		inet_ntop(sa->sa_family, raw, text, sizeof(text));
		const char *cls = policy_addr_class(sa), *d;
		if (!cls && hostaddr_is_own(sa, now))
			cls = "this host's";
		if (cls && !c->literal) {
			char *why = xasprintf("resolves to %s address %s", cls, text);
			deny(c, c->host, c->port, why);
			free(why);
			return;
		}
		if ((d = policy_addr_denied(pol, sa, c->port))) {
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

static void on_resolved(void)
{
	uint64_t v;
	(void)!read(rfd, &v, sizeof(v));
	struct resolve_answer a;
	while (resolve_take(&a)) {
		struct conn *c = (struct conn *)(uintptr_t)a.token;
		if (c->zombie) {
			c->nextc = dead;
			dead = c;
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

/* ---- judging a request ---- */

static void judge(struct conn *c, const char *host, enum netpat_host kind, unsigned port)
{
	char why[NETPAT_HOST_MAX + 64];
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->port = port;
	if (!policy_judge(pol, c->task, host, port, &c->literal, why, sizeof(why))) {
		deny(c, host, port, why);
		return;
	}
	if (c->over) {
		snprintf(why, sizeof(why), "more than %u connections of the task open at once",
			opts.max_conns);
		deny(c, host, port, why);
		return;
	}
	c->deadline = now + opts.connect_timeout;
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

/* A pipelined request behind the one forwarded is never forwarded (one
 * request per connection: the origin is told Connection: close), but one
 * naming a refused host is still a refused request, and is recorded. */
static void judge_pipelined(struct conn *c, const char *b, size_t n)
{
	struct http_req *r = xmalloc(sizeof(*r));
	int status;
	const char *why;
	enum http_result res = http_parse(b, n, r, &status, &why);
	bool literal;
	char reason[NETPAT_HOST_MAX + 64];
	if (res != HTTP_MORE && r->host_kind != NETPAT_HOST_BAD && r->port &&
	    !policy_judge(pol, c->task, r->host, r->port, &literal, reason, sizeof(reason)))
		record_deny(c, r->host, r->port, reason);
	free(r);
}

static void on_http_head(struct conn *c)
{
	struct http_req *r = xmalloc(sizeof(*r));
	int status;
	const char *why;
	enum http_result res = http_parse(c->buf, c->len, r, &status, &why);
	if (res == HTTP_MORE) {
		free(r);
		return;
	}
	c->via = r->kind == HTTP_CONNECT ? VIA_CONNECT : VIA_HTTP;
	if (res == HTTP_BAD) {
		char host[4 * NETPAT_HOST_MAX];
		if (r->host_kind != NETPAT_HOST_BAD)
			snprintf(host, sizeof(host), "%s", r->host);
		else
			show_host(host, sizeof(host), r->host_raw ? r->host_raw : "", r->host_raw_len);
		record_deny(c, host, r->port, why);
		refuse_http(c, status, why);
		free(r);
		return;
	}
	size_t rest = c->len - r->head_len;
	if (r->kind == HTTP_CONNECT) {
		/* bytes sent ahead of the 200 (a TLS hello) go up once allowed */
		c->upre = xmalloc(rest + 1);
		memcpy(c->upre, c->buf + r->head_len, rest);
		c->upre_len = rest;
		c->body = -1;
	} else {
		size_t head_len;
		char *head = http_forward_head(r, &head_len);
		long long cl = r->content_length > 0 ? r->content_length : 0;
		size_t take = (long long)rest < cl ? rest : (size_t)cl;
		c->upre = xrealloc(head, head_len + take + 1);
		memcpy(c->upre + head_len, c->buf + r->head_len, take);
		c->upre_len = head_len + take;
		c->body = cl - (long long)take;
		if (rest > take)
			judge_pipelined(c, c->buf + r->head_len + take, rest - take);
	}
	char host[NETPAT_HOST_MAX];
	snprintf(host, sizeof(host), "%s", r->host);
	enum netpat_host kind = r->host_kind;
	unsigned port = r->port;
	free(r);
	judge(c, host, kind, port);
}

static void on_socks(struct conn *c)
{
	const unsigned char *b = (const unsigned char *)c->buf;
	const char *why = "";
	size_t used = 0;
	if (!c->socks_greeted) {
		enum socks_result res = socks_greeting(b, c->len, &used, &why);
		if (res == SOCKS_MORE)
			return;
		if (res == SOCKS_BAD) {
			if (b[0] == 4) {
				c->via = VIA_SOCKS4;
				char host[INET_ADDRSTRLEN] = "";
				unsigned port = 0;
				if (c->len >= 8) {
					inet_ntop(AF_INET, b + 4, host, sizeof(host));
					port = (unsigned)b[2] << 8 | b[3];
				}
				record_deny(c, host, port, why);
				refuse(c, 0, 0, why);
			} else {
				conn_refuse(c, "\x05\xff", 2);
			}
			return;
		}
		if (send(c->cfd, "\x05\x00", 2, MSG_NOSIGNAL | MSG_DONTWAIT) != 2) {
			conn_close(c);
			return;
		}
		c->socks_greeted = true;
		c->off = used;
	}
	struct socks_req r;
	enum socks_result res = socks_request(b + c->off, c->len - c->off, &r, &used, &why);
	if (res == SOCKS_MORE)
		return;
	if (res == SOCKS_BAD) {
		char host[4 * NETPAT_HOST_MAX];
		if (r.host_kind != NETPAT_HOST_BAD)
			snprintf(host, sizeof(host), "%s", r.host);
		else
			show_host(host, sizeof(host), r.host_raw, r.host_raw_len);
		record_deny(c, host, r.port, why);
		refuse_socks(c, r.rep);
		return;
	}
	c->off += used;
	size_t rest = c->len - c->off;
	c->upre = xmalloc(rest + 1);
	memcpy(c->upre, c->buf + c->off, rest);
	c->upre_len = rest;
	c->body = -1;
	judge(c, r.host, r.host_kind, r.port);
}

/* Read the head until it is complete (the state moves on), refused, or
 * the socket has nothing more (edge-triggered: read until then). */
static void on_head_readable(struct conn *c)
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

/* ---- accepting, timeouts, the loop ---- */

/* Out of descriptors: a listening socket stays readable, so polling it
 * would spin. Stop polling every task socket until resume(). */
static void starve(void)
{
	if (!starved_said) {
		err_warn_errno("out of file descriptors; new connections wait until one "
			"closes (said once per run)");
		starved_said = true;
	}
	starved = true;
	starved_closes = closes;
	starved_at = now;
	for (struct listener *l = listeners; l; l = l->next)
		if (l->fd >= 0)
			epoll_ctl(ep, EPOLL_CTL_DEL, l->fd, NULL);
}

static void resume(void)
{
	starved = false;
	for (struct listener *l = listeners; l; l = l->next) {
		/* level-triggered: a waiting backlog is an event at once */
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &l->h };
		if (l->fd >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &ev) < 0)
			err_die_errno(1, "epoll_ctl");
	}
}

static void on_accept(struct listener *l)
{
	while (!starved) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				starve();
			else if (errno != EAGAIN)
				err_warn_errno("accept on the socket of %s", l->task->id);
			return;
		}
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
		c->over = ++l->nconn > opts.max_conns;
		c->deadline = now + opts.header_timeout;
		c->nextc = conns;
		if (conns)
			conns->prev = c;
		conns = c;
		ep_add(fd, &c->hc); /* bytes already there are an edge */
		/* a client writes its request as soon as it is connected: it is
		 * often there already, which saves a trip through epoll_wait */
		c->crd = true;
		on_head_readable(c);
	}
}

static void on_timeout(struct conn *c)
{
	switch (c->state) {
	case C_HEAD:
		/* a slow head (slowloris) is cut off: no record, it named nothing */
		if (c->via == VIA_HTTP)
			refuse_http(c, 408, "request head not complete in time");
		else
			conn_close(c);
		break;
	case C_RESOLVE:
	case C_CONNECT:
		refuse(c, 504, SOCKS_REP_TTL, "the origin did not answer in time");
		break;
	case C_RELAY:
		conn_close(c);
		break;
	}
}

static void sweep(void)
{
	for (struct conn *c = conns, *n; c; c = n) {
		n = c->nextc;
		if (now >= c->deadline)
			on_timeout(c);
	}
}

static void on_conn_event(struct conn *c, bool upstream, uint32_t ev)
{
	if (c->closed)
		return;
	bool *rd = upstream ? &c->urd : &c->crd, *wr = upstream ? &c->uwr : &c->cwr;
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		*rd = true;
	if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		*wr = true;
	if (ev & (EPOLLHUP | EPOLLERR)) {
		if (upstream)
			c->uhup = true;
		else
			c->chup = true;
	}
	switch (c->state) {
	case C_HEAD:
		if (!upstream)
			on_head_readable(c);
		break;
	case C_RESOLVE:
		/* the client hung up during the lookup */
		if (!upstream && (ev & (EPOLLHUP | EPOLLERR)))
			conn_close(c);
		break;
	case C_CONNECT:
		if (upstream)
			on_connected(c, ev);
		else if (ev & (EPOLLHUP | EPOLLERR))
			conn_close(c);
		break;
	case C_RELAY:
		relay(c);
		break;
	}
}

static void on_lines(void)
{
	if (lines_len == lines_cap) {
		if (lines_cap >= (1u << 20))
			err_die(2, "<stdin>: request line longer than 1 MiB");
		lines_cap = lines_cap ? lines_cap * 2 : 4096;
		lines_buf = xrealloc(lines_buf, lines_cap + 1);
	}
	ssize_t n = read(lines_fd, lines_buf + lines_len, lines_cap - lines_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		exit_code = VX_EXIT_OK; /* the driver closed our stdin: the run is over */
		return;
	}
	lines_len += (size_t)n;
	char *s = lines_buf, *nl;
	while ((nl = memchr(s, '\n', (size_t)(lines_buf + lines_len - s)))) {
		*nl = '\0';
		lines_cb(s, lines_arg);
		s = nl + 1;
	}
	lines_len -= (size_t)(s - lines_buf);
	memmove(lines_buf, s, lines_len);
}

void server_init(const struct server_opts *o, struct policy *p)
{
	opts = *o;
	pol = p;
	struct rlimit rl;
	/* splice needs two pipes per tunnel: six descriptors a connection */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	/* blocked before the resolver threads start, so they inherit it */
	sigprocmask(SIG_BLOCK, &set, NULL);
	ep = epoll_create1(EPOLL_CLOEXEC);
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (ep < 0 || sfd < 0)
		err_die_errno(1, "epoll or signalfd");
	rfd = resolve_init(o->hosts_file);
	hostaddr_init(clock_now());
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &h_signal };
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.ptr = &h_resolver;
	epoll_ctl(ep, EPOLL_CTL_ADD, rfd, &ev);
}

int server_add_task(struct ptask *t, const char *path, int fd)
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
	l->fd = fd;
	l->task = t;
	l->path = path ? xstrdup(path) : NULL;
	l->next = listeners;
	listeners = l;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &l->h };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");

	jsonw_reset(&rec);
	jsonw_open(&rec, '{');
	jsonw_key(&rec, "type");
	jsonw_str(&rec, "listening");
	jsonw_key(&rec, "v");
	jsonw_num(&rec, 1);
	jsonw_key(&rec, "task");
	jsonw_str(&rec, t->id);
	if (path) {
		jsonw_key(&rec, "socket");
		jsonw_str(&rec, path);
	} else {
		jsonw_key(&rec, "fd");
		jsonw_num(&rec, fd);
	}
	jsonw_close(&rec, '}');
	jsonl_write_raw(rec.buf, rec.len);
	if (fflush(stdout) != 0)
		err_die_errno(1, "write error");
	return 0;
}

void server_watch_lines(int fd, void (*on_line)(char *line, void *arg), void *arg)
{
	lines_fd = fd;
	lines_cb = on_line;
	lines_arg = arg;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &h_lines };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl on the request's stdin");
}

int server_task_done(const char *id)
{
	for (struct listener *l = listeners; l; l = l->next)
		if (!l->done && l->fd >= 0 && strcmp(l->task->id, id) == 0) {
			l->done = true;
			return 0;
		}
	return -1;
}

/* A task the driver says has ended: take what is still in its socket's
 * backlog, and once none of its connections waits for a decision (every
 * client is gone, so each head ends in a decision or an EOF), close its
 * socket and answer "done": the driver then holds every deny of the task. */
static void check_done(void)
{
	for (struct listener *l = listeners; l; l = l->next) {
		if (!l->done || l->fd < 0)
			continue;
		/* its backlog is judged once descriptors are back */
		if (starved)
			continue;
		on_accept(l);
		bool pending = false;
		for (struct conn *c = conns; c && !pending; c = c->nextc)
			pending = c->task == l->task && !c->closed &&
				  (c->state == C_HEAD || c->state == C_RESOLVE);
		if (pending)
			continue;
		close(l->fd);
		l->fd = -1;
		if (l->path)
			unlink(l->path);
		jsonw_reset(&rec);
		jsonw_open(&rec, '{');
		jsonw_key(&rec, "type");
		jsonw_str(&rec, "done");
		jsonw_key(&rec, "task");
		jsonw_str(&rec, l->task->id);
		jsonw_close(&rec, '}');
		jsonl_write_raw(rec.buf, rec.len);
		if (fflush(stdout) != 0)
			err_die_errno(1, "write error");
	}
}

int server_run(void)
{
	struct epoll_event evs[128];
	double next_sweep = 0;
	while (exit_code < 0) {
		int n = epoll_wait(ep, evs, 128, again_list ? 0 : conns || starved ? SWEEP_MS : -1);
		if (n < 0 && errno != EINTR)
			err_die_errno(1, "epoll_wait");
		now = clock_now();
		for (int i = 0; i < n; i++) {
			struct handle *h = evs[i].data.ptr;
			switch (h->kind) {
			case H_LISTEN:
				on_accept((struct listener *)h);
				break;
			case H_CLIENT:
				on_conn_event((struct conn *)((char *)h - offsetof(struct conn, hc)), false, evs[i].events);
				break;
			case H_UPSTREAM:
				on_conn_event((struct conn *)((char *)h - offsetof(struct conn, hu)), true, evs[i].events);
				break;
			case H_RESOLVER:
				on_resolved();
				break;
			case H_SIGNAL:
				exit_code = VX_EXIT_OK;
				break;
			case H_LINES:
				on_lines();
				break;
			}
		}
		/* relays that ran out of rounds go on where they stopped */
		for (struct conn *c = again_list, *nx; c; c = nx) {
			if (c == again_list)
				again_list = NULL; /* a relay may queue itself anew */
			nx = c->next_again;
			c->again = false;
			if (!c->closed)
				relay(c);
		}
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
		if (starved && (closes != starved_closes || now - starved_at >= 1))
			resume();
		check_done();
		if (now >= next_sweep) {
			sweep();
			next_sweep = now + SWEEP_MS / 1000.0;
		}
	}
	for (struct listener *l = listeners; l; l = l->next)
		if (l->path && l->fd >= 0)
			unlink(l->path);
	return exit_code;
}
