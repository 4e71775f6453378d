/* bridge.c: the in-sandbox relay to vx-proxy and localBinding's (bridge.h). */
#include "bridge.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "dns.h"
#include "err.h"

#define PIPE_CAP 65536      /* a pipe's default size */
#define PIPE_BULK (1 << 20) /* a direction that keeps filling it grows it */
/* Grown pipes at once: a user's pipes share a budget (fs.pipe-user-pages-soft)
 * with the task's own */
#define BULK_MAX 4

struct end;

/* One direction: from one socket through a pipe into the other. */
struct dir {
	struct end *from, *to;
	int pipe[2];
	size_t inpipe, cap;
	unsigned fills;
	bool eof, shut;
};

struct pair;

/* A socket is in the epoll set once, edge-triggered for both directions;
 * rd/wr keep what its last edge said until a call returns EAGAIN. */
struct end {
	struct pair *p;
	int fd;
	bool rd, wr;
};

/* Two sockets relayed both ways. */
struct pair {
	struct end a, b;
	struct dir ab, ba;
	bool dead;
	bool sniff; /* a proxy client whose first bytes are still to be read */
	struct pair *next_dead;
	struct pair *prev, *next;
};

/* What an epoll event names: a listener (kind 1 proxy, 2 localBinding, 3
 * DNS over UDP, 4 DNS over TCP), a DNS stream (one of dconn) or a pair's
 * end (kind 0). */
struct lst {
	int kind;
	int fd;
	unsigned port; /* localBinding: the sandbox port to reach */
};

static int ep = -1;
static int nbulk; /* pipes grown to PIPE_BULK now open */
static struct pair *dead; /* closed in this batch of events, freed after it */
static struct pair *pairs; /* every open pair */
static volatile sig_atomic_t draining;
static pid_t relay_pid;

/* How long the relay may take, once the task is gone, to hand vx-proxy the
 * bytes the task sent (so a request sent just before exiting is judged). */
#define DRAIN_MS 1000
static int proxy_fd = -1; /* O_PATH of vx-proxy's socket, dialled by /proc/self/fd */

/* DNS on the sandbox's 127.0.0.1:53: every query is answered REFUSED (no
 * name resolves inside), and each distinct name asked goes to the trace
 * once, up to DNS_NAMES of them (a task asking for more learns nothing
 * more, and cannot grow the relay). A stream is one of DNS_CONNS slots,
 * each holding at most one query: a client past those is closed. */
#define DNS_NAMES 32
#define DNS_CONNS 8
struct dconn {
	int fd;
	size_t len;
	unsigned char buf[2 + DNS_MAX_QUERY];
};
static struct dconn dconn[DNS_CONNS];
/* the names looked up, and the names asked of the HTTP proxy port */
struct names {
	char v[DNS_NAMES][sizeof(((struct dns_query *)0)->name)];
	size_t n;
};
static struct names looked, proxied;
static int trace_fd = -1;

int bridge_prepare(const struct sb_request *r, struct bridge *b)
{
	b->proxy_socket = r->proxy_socket;
	b->trace_fd = r->trace_fd;
	b->proxy_fd = -1;
	/* the proxy socket, held from the host: the relay dials it by this fd
	 * (no path needed inside the sandbox), and a task whose socket is gone
	 * never runs without its network boundary reported */
	if (b->proxy_socket) {
		struct stat st;
		b->proxy_fd = open(b->proxy_socket, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (b->proxy_fd < 0 || fstat(b->proxy_fd, &st) || !S_ISSOCK(st.st_mode)) {
			err_warn("unable to reach vx-proxy's socket '%s' (%s), so the task is not run "
				"(its network would go unreported); fix: pass the socket of a running "
				"vx-proxy (vx run does)", b->proxy_socket,
				b->proxy_fd < 0 ? strerror(errno) : "not a socket");
			if (b->proxy_fd >= 0)
				close(b->proxy_fd);
			b->proxy_fd = -1;
			b->host_fd = NULL;
			b->nports = 0;
			return -1;
		}
	}
	b->nports = r->nlocal_ports;
	b->ports = r->local_ports;
	b->host_fd = xcalloc(b->nports + 1, sizeof(int));
	for (size_t i = 0; i < b->nports; i++) {
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)b->ports[i]),
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		b->host_fd[i] = fd;
		/* a port left in TIME_WAIT by the last run is free; a listener is not */
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
			bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 128)) {
			int e = errno;
			if (e == EADDRINUSE)
				err_warn("allow.localBinding: port %u is already in use on the host's "
					"loopback, so the task is not run; fix: stop what listens on "
					"127.0.0.1:%u or pick another port", b->ports[i], b->ports[i]);
			else
				err_warn("allow.localBinding: unable to listen on 127.0.0.1:%u: %s",
					b->ports[i], strerror(e));
			b->nports = i + 1;
			bridge_release(b);
			return -1;
		}
	}
	return 0;
}

bool bridge_needed(const struct bridge *b)
{
	return b->proxy_socket || b->nports;
}

void bridge_release(struct bridge *b)
{
	if (b->proxy_fd >= 0)
		close(b->proxy_fd);
	b->proxy_fd = -1;
	for (size_t i = 0; i < b->nports; i++)
		if (b->host_fd[i] >= 0)
			close(b->host_fd[i]);
	free(b->host_fd);
	b->host_fd = NULL;
	b->nports = 0;
}

/* 127.0.0.1:0 in the sandbox's namespace; the port it got in *port. */
static int listen_loopback(unsigned *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 128) ||
		getsockname(fd, (struct sockaddr *)&sa, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

static int set_env(unsigned http, unsigned socks)
{
	char h[64], s[64];
	snprintf(h, sizeof(h), "http://127.0.0.1:%u", http);
	snprintf(s, sizeof(s), "socks5h://127.0.0.1:%u", socks);
	static const char *const hv[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"};
	for (size_t i = 0; i < 4; i++)
		if (setenv(hv[i], h, 1))
			return -1;
	/* Node >= 24 (and >= 22.21) honours the variables for fetch and http(s)
	 * only with this; older Node ignores both, and its lookup of the target
	 * reaches the relay's DNS, which names it */
	if (setenv("NODE_USE_ENV_PROXY", "1", 1) ||
		setenv("ALL_PROXY", s, 1) || setenv("all_proxy", s, 1) ||
		setenv("NO_PROXY", "localhost,127.0.0.1,::1", 1) ||
		setenv("no_proxy", "localhost,127.0.0.1,::1", 1))
		return -1;
	return 0;
}

/* ---- the relay ---- */

static void dir_init(struct dir *d, struct end *from, struct end *to)
{
	d->from = from;
	d->to = to;
	d->pipe[0] = d->pipe[1] = -1;
	d->inpipe = 0;
	d->cap = PIPE_CAP;
	d->fills = 0;
	d->eof = d->shut = false;
}

/* Move what can move now. -1: the pair is broken. A full pipe answers
 * EAGAIN too, so the source's EAGAIN counts only with the pipe empty. */
static int dir_pump(struct dir *d)
{
	for (;;) {
		bool moved = false;
		if (!d->eof && d->from->rd && d->inpipe < d->cap) {
			if (d->pipe[0] < 0 && pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK))
				return -1;
			ssize_t n = splice(d->from->fd, NULL, d->pipe[1], NULL, d->cap - d->inpipe,
				SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->inpipe += (size_t)n;
				moved = true;
				/* bulk: fewer, larger splices (best effort) */
				if (d->inpipe >= d->cap && ++d->fills == 4 && d->cap == PIPE_CAP &&
					nbulk < BULK_MAX) {
					int sz = fcntl(d->pipe[1], F_SETPIPE_SZ, PIPE_BULK);
					if (sz > PIPE_CAP) {
						d->cap = (size_t)sz;
						nbulk++;
					}
				}
			} else if (n == 0) {
				d->eof = true;
			} else if (errno == EAGAIN) {
				if (!d->inpipe)
					d->from->rd = false;
			} else if (errno != EINTR) {
				return -1;
			}
		}
		if (d->inpipe && d->to->wr) {
			ssize_t n = splice(d->pipe[0], NULL, d->to->fd, NULL, d->inpipe,
				SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->inpipe -= (size_t)n;
				moved = true;
			} else if (n < 0 && errno == EAGAIN) {
				d->to->wr = false;
			} else if (n < 0 && errno != EINTR) {
				return -1;
			}
		}
		if (d->eof && !d->inpipe && !d->shut) {
			shutdown(d->to->fd, SHUT_WR);
			d->shut = true;
		}
		if (!moved)
			return 0;
	}
}

static int end_add(struct end *e)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = e};
	return epoll_ctl(ep, EPOLL_CTL_ADD, e->fd, &ev);
}

static void pair_close(struct pair *p)
{
	struct dir *ds[] = {&p->ab, &p->ba};
	for (size_t i = 0; i < 2; i++)
		if (ds[i]->pipe[0] >= 0) {
			close(ds[i]->pipe[0]);
			close(ds[i]->pipe[1]);
			if (ds[i]->cap > PIPE_CAP)
				nbulk--;
		}
	close(p->a.fd); /* close() also leaves the epoll set */
	close(p->b.fd);
	p->dead = true;
	if (p->prev)
		p->prev->next = p->next;
	else
		pairs = p->next;
	if (p->next)
		p->next->prev = p->prev;
	p->next_dead = dead;
	dead = p;
}

static void sniff(struct pair *p);

/* Pump both ways as far as the last edges allow. */
static void pair_run(struct pair *p)
{
	if (p->sniff && p->a.rd)
		sniff(p);
	if (dir_pump(&p->ab) || dir_pump(&p->ba) ||
		(p->ab.shut && p->ba.shut))
		pair_close(p);
}

/* A new stream to where a connection accepted on l goes, or -1. */
static int dial(const struct lst *l)
{
	int fd;
	if (l->kind == 1) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", proxy_fd);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
	} else {
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)l->port),
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		/* loopback: the answer (accepted or refused) comes at once */
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static void on_accept(const struct lst *l)
{
	for (;;) {
		int c = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0)
			return; /* EAGAIN, or a client gone before we took it */
		int u = dial(l);
		if (u < 0) {
			close(c); /* the client sees its connection closed */
			continue;
		}
		fcntl(u, F_SETFL, fcntl(u, F_GETFL) | O_NONBLOCK);
		struct pair *p = xcalloc(1, sizeof(*p));
		/* both new: nothing to read yet, room to write */
		p->a = (struct end){.p = p, .fd = c, .wr = true};
		p->sniff = l->kind == 1 && trace_fd >= 0;
		p->b = (struct end){.p = p, .fd = u, .wr = true};
		dir_init(&p->ab, &p->a, &p->b);
		dir_init(&p->ba, &p->b, &p->a);
		if (end_add(&p->a) || end_add(&p->b)) {
			close(c);
			close(u);
			free(p);
			continue;
		}
		p->next = pairs;
		if (pairs)
			pairs->prev = p;
		pairs = p;
	}
}

static void on_term(int sig)
{
	(void)sig;
	draining = 1;
}

/* Draining: has every byte each client sent reached the other side? */
static bool drained(void)
{
	for (struct pair *p = pairs; p; p = p->next)
		if (!p->ab.shut)
			return false;
	return true;
}

static double ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The first time of each name goes to the trace: one write of one line,
 * so it lands whole beside the tracer's own (the file's offset is shared).
 * The name holds host-name bytes only (dns.h): no escaping is needed. A
 * name the task both looked up and sent the proxy is no tool ignoring it. */
static void note(struct names *set, const char *name, const char *type)
{
	char line[sizeof(set->v[0]) + 64];
	int n;
	if (trace_fd < 0 || !name[0] || set->n == DNS_NAMES)
		return;
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], name))
			return;
	snprintf(set->v[set->n++], sizeof(set->v[0]), "%s", name);
	if (type)
		n = snprintf(line, sizeof(line), "{\"trace\":\"dns\",\"name\":\"%s\",\"type\":\"%s\"}\n",
			name, type);
	else
		n = snprintf(line, sizeof(line), "{\"trace\":\"proxied\",\"name\":\"%s\"}\n", name);
	if (n > 0 && (size_t)n < sizeof(line) && write(trace_fd, line, (size_t)n) != n)
		trace_fd = -1; /* the tracer reports a trace it cannot write */
}

static void dns_record(const struct dns_query *q)
{
	char tb[12];
	note(&looked, q->name, dns_type_name(q->type, tb));
}

/* A proxy client's first bytes, peeked (the relay passes them on as they
 * are): the name a request line asks for. One look: a line cut across two
 * segments goes unnoted, which only costs the report its exception. */
static void sniff(struct pair *p)
{
	unsigned char buf[512];
	char host[254];
	p->sniff = false;
	ssize_t n = recv(p->a.fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n > 0 && dns_proxy_host(buf, (size_t)n, host))
		note(&proxied, host, NULL);
}

/* One query in; its answer's length in out (0: none). */
static size_t dns_serve(const unsigned char *msg, size_t len, unsigned char *out, size_t cap)
{
	struct dns_query q;
	enum dns_result r = dns_parse(msg, len, &q);
	if (r == DNS_QUESTION)
		dns_record(&q);
	return dns_answer(msg, len, r, &q, out, cap);
}

/* At most this many queries a wakeup (the sockets are level-triggered):
 * a task flooding its resolver cannot keep the relay from its streams. */
#define DNS_BATCH 64

static void on_udp(int fd)
{
	unsigned char in[DNS_MAX_QUERY], out[DNS_MAX_QUERY];
	for (int k = 0; k < DNS_BATCH; k++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		/* a longer datagram is cut: the question comes first */
		ssize_t n = recvfrom(fd, in, sizeof(in), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		size_t an = dns_serve(in, (size_t)n, out, sizeof(out));
		if (an)
			sendto(fd, out, an, MSG_DONTWAIT, (struct sockaddr *)&from, fl);
	}
}

static void dconn_close(struct dconn *c)
{
	close(c->fd); /* and out of the epoll set */
	c->fd = -1;
	c->len = 0;
}

static void on_dns_accept(int lfd)
{
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0)
			return;
		struct dconn *d = NULL;
		for (size_t i = 0; i < DNS_CONNS && !d; i++)
			if (dconn[i].fd < 0)
				d = &dconn[i];
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = d};
		if (!d || epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev)) {
			close(c);
			continue;
		}
		d->fd = c;
		d->len = 0;
	}
}

/* A stream's queries, each after its two-byte length (RFC 1035 4.2.2). */
static void on_dns_conn(struct dconn *d)
{
	for (int k = 0; k < DNS_BATCH;) {
		size_t want = 2;
		if (d->len >= 2) {
			want = 2 + (size_t)(d->buf[0] << 8 | d->buf[1]);
			if (want == 2 || want > sizeof(d->buf)) {
				dconn_close(d); /* empty, or longer than any query */
				return;
			}
		}
		if (d->len == want && want > 2) {
			unsigned char out[2 + DNS_MAX_QUERY];
			size_t an = dns_serve(d->buf + 2, want - 2, out + 2, sizeof(out) - 2);
			d->len = 0;
			out[0] = (unsigned char)(an >> 8);
			out[1] = (unsigned char)an;
			/* a few hundred bytes into an empty socket buffer: a client
			 * that does not read its answers loses the stream */
			if (!an || write(d->fd, out, an + 2) != (ssize_t)(an + 2)) {
				dconn_close(d);
				return;
			}
			k++;
			continue;
		}
		ssize_t n = read(d->fd, d->buf + d->len, want - d->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			dconn_close(d);
			return;
		}
		d->len += (size_t)n;
	}
}

static void on_listener(const struct lst *l)
{
	if (l->kind == 3)
		on_udp(l->fd);
	else if (l->kind == 4)
		on_dns_accept(l->fd);
	else
		on_accept(l);
}

static void __attribute__((noreturn)) relay_loop(struct lst *ls, size_t n)
{
	double deadline = 0;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		_exit(1);
	for (size_t i = 0; i < n; i++) {
		/* a tagged pointer: listeners are told apart by their address */
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &ls[i]};
		if (epoll_ctl(ep, EPOLL_CTL_ADD, ls[i].fd, &ev))
			_exit(1);
	}
	for (;;) {
		struct epoll_event evs[64];
		if (draining && !deadline) {
			/* the task is gone: take what waits in the backlogs, accept
			 * nothing more, and finish delivering what clients sent */
			for (size_t i = 0; i < n; i++) {
				on_listener(&ls[i]);
				close(ls[i].fd);
			}
			n = 0;
			deadline = ms_now() + DRAIN_MS;
		}
		if (deadline && (drained() || ms_now() >= deadline))
			_exit(0);
		int k = epoll_wait(ep, evs, 64, deadline ? 20 : -1);
		if (k < 0 && errno != EINTR)
			_exit(1);
		for (int i = 0; i < k; i++) {
			void *ptr = evs[i].data.ptr;
			if (ptr >= (void *)ls && ptr < (void *)(ls + n)) {
				on_listener(ptr);
				continue;
			}
			if (ptr >= (void *)dconn && ptr < (void *)(dconn + DNS_CONNS)) {
				if (((struct dconn *)ptr)->fd >= 0)
					on_dns_conn(ptr);
				continue;
			}
			struct end *e = ptr;
			if (e->p->dead)
				continue;
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
				e->rd = true;
			if (evs[i].events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
				e->wr = true;
			pair_run(e->p);
		}
		while (dead) {
			struct pair *p = dead;
			dead = p->next_dead;
			free(p);
		}
	}
}

/* The relay gives up what the sandbox's pid 1 still holds: it keeps only
 * the right to its own sockets. Until then it holds every capability of
 * the sandbox's namespace, which the task lacks, so the task cannot trace
 * it or open its fds in that moment either; undumpable first. It shares
 * pid 1's mount namespace (pid 1 need not wait for it): the proxy socket is
 * reached through its fd, whatever the tree shows. */
static int relay_confine(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	if (syscall(SYS_capset, &h, d))
		return -1;
	return 0;
}

/* 127.0.0.1:53 in the sandbox's namespace, of type (pid 1 still holds
 * the namespace's capabilities, so the low port is its to take). */
static int bind_dns(int type)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(53),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		(type == SOCK_STREAM && listen(fd, 16))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int bridge_start(struct bridge *b)
{
	size_t n = b->nports + (b->proxy_socket ? 4 : 0), k = 0;
	struct lst *ls = xcalloc(n + 1, sizeof(*ls));
	unsigned http = 0, socks = 0;
	if (b->proxy_socket) {
		ls[k++] = (struct lst){.kind = 1, .fd = listen_loopback(&http)};
		ls[k++] = (struct lst){.kind = 1, .fd = listen_loopback(&socks)};
		ls[k++] = (struct lst){.kind = 3, .fd = bind_dns(SOCK_DGRAM)};
		ls[k++] = (struct lst){.kind = 4, .fd = bind_dns(SOCK_STREAM)};
		if (ls[0].fd < 0 || ls[1].fd < 0 || ls[2].fd < 0 || ls[3].fd < 0) {
			err_warn_errno("unable to listen on the sandbox's loopback for the network bridge");
			return -1;
		}
		if (set_env(http, socks)) {
			err_warn_errno("unable to set the proxy environment");
			return -1;
		}
	}
	for (size_t i = 0; i < b->nports; i++)
		ls[k++] = (struct lst){.kind = 2, .fd = b->host_fd[i], .port = b->ports[i]};
	proxy_fd = b->proxy_fd;
	trace_fd = b->trace_fd;
	for (size_t i = 0; i < DNS_CONNS; i++)
		dconn[i].fd = -1;
	pid_t pid = fork();
	if (pid < 0) {
		err_warn_errno("unable to fork the network bridge");
		return -1;
	}
	if (pid == 0) {
		/* dies with pid 1, so with the task */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != 1)
			_exit(1);
		if (relay_confine()) {
			err_warn_errno("unable to confine the network bridge");
			_exit(1);
		}
		signal(SIGPIPE, SIG_IGN);
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term; /* no SA_RESTART: epoll_wait returns */
		sigaction(SIGTERM, &sa, NULL);
		/* pid 1 holds the signals it forwards blocked until it knows the
		 * task (run.c), and a fork inherits the mask: bridge_finish's
		 * SIGTERM would wait, pending, for the drain's timeout */
		sigset_t term;
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_UNBLOCK, &term, NULL);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1); /* the task's output pipe stays the task's */
			close(null);
		}
		relay_loop(ls, n);
	}
	relay_pid = pid;
	/* pid 1 keeps none of them: exec_task closes every fd past 2 anyway */
	for (size_t i = 0; i < n; i++)
		close(ls[i].fd);
	free(ls);
	return 0;
}

void bridge_finish(void)
{
	if (relay_pid <= 0)
		return;
	kill(relay_pid, SIGTERM);
	/* bounded: the relay gives up after DRAIN_MS itself; most often it is
	 * gone at once (nothing left to deliver) */
	child_wait_for(relay_pid, DRAIN_MS + 1000, NULL);
	relay_pid = 0;
}
