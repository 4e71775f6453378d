/* server.c: the top of vx-proxy's loop (loop.h): waits for events, sends
 * each where it belongs, times connections out, and answers "done" for a
 * task the driver says has ended. */
#include "server.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "err.h"
#include "hostaddr.h"
#include "loop.h"
#include "socks.h"

#define SWEEP_MS 200

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

static void sweep(struct loop *L)
{
	for (struct conn *c = L->conns, *n; c; c = n) {
		n = c->nextc;
		if (L->now >= c->deadline)
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
	if (upstream && (ev & EPOLLRDHUP))
		c->ufin = true;
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

/* An origin's socket (loop.h): its connection's, or an unused spare's. */
static void on_up_event(struct loop *L, uint64_t data, uint32_t ev)
{
	int fd;
	struct conn *c;
	if (!ep_up_find(L, data, &fd, &c))
		return;
	if (c)
		on_conn_event(c, true, ev);
	else
		spare_event(L, fd);
}

static void on_lines(struct loop *L)
{
	if (L->lines_len == L->lines_cap) {
		if (L->lines_cap >= (1u << 20))
			err_die(2, "<stdin>: request line longer than 1 MiB");
		XGROW(L->lines_buf, L->lines_len + 1, L->lines_cap); /* 64, doubling: 1 MiB at the 15th */
	}
	ssize_t n = read(L->lines_fd, L->lines_buf + L->lines_len, L->lines_cap - L->lines_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		L->exit_code = VX_EXIT_OK; /* the driver closed our stdin: the run is over */
		return;
	}
	L->lines_len += (size_t)n;
	char *s = L->lines_buf, *nl;
	while ((nl = memchr(s, '\n', (size_t)(L->lines_buf + L->lines_len - s)))) {
		*nl = '\0';
		L->lines_cb(s, L->lines_arg);
		s = nl + 1;
	}
	L->lines_len -= (size_t)(s - L->lines_buf);
	memmove(L->lines_buf, s, L->lines_len);
}

struct loop *server_new(const struct server_opts *o, struct policy *p)
{
	struct loop *L = xcalloc(1, sizeof(*L));
	L->opts = *o;
	L->pol = p;
	L->exit_code = -1;
	L->lines_fd = -1;
	L->h_resolver.kind = H_RESOLVER;
	L->h_signal.kind = H_SIGNAL;
	L->h_lines.kind = H_LINES;
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
	L->ep = epoll_create1(EPOLL_CLOEXEC);
	L->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (L->ep < 0 || L->sfd < 0)
		err_die_errno(1, "epoll or signalfd");
	L->rfd = resolve_init(o->hosts_file);
	hostaddr_init(loop_clock());
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &L->h_signal };
	epoll_ctl(L->ep, EPOLL_CTL_ADD, L->sfd, &ev);
	ev.data.ptr = &L->h_resolver;
	epoll_ctl(L->ep, EPOLL_CTL_ADD, L->rfd, &ev);
	return L;
}

void server_watch_lines(struct loop *L, int fd, void (*on_line)(char *line, void *arg), void *arg)
{
	L->lines_fd = fd;
	L->lines_cb = on_line;
	L->lines_arg = arg;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &L->h_lines };
	if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl on the request's stdin");
}

/* A task the driver says has ended: take what is still in its socket's
 * backlog, and once none of its connections waits for a decision (every
 * client is gone, so each head ends in a decision or an EOF), close its
 * socket and answer "done": the driver then holds every deny of the task. */
static void check_done(struct loop *L)
{
	for (struct listener *l = L->listeners; l; l = l->next) {
		if (!l->done || l->fd < 0)
			continue;
		/* its backlog is judged once descriptors are back */
		if (L->starved)
			continue;
		on_accept(l, true);
		bool pending = false;
		for (struct conn *c = L->conns; c && !pending; c = c->nextc)
			pending = c->task == l->task && !c->closed &&
				  (c->state == C_HEAD || c->state == C_RESOLVE);
		if (pending)
			continue;
		close(l->fd);
		l->fd = -1;
		if (l->path)
			unlink(l->path);
		spare_expire(L, l->task, true);
		if (!control_done(l))
			record_done(l->task);
	}
}

int server_run(struct loop *L)
{
	struct epoll_event evs[128];
	double next_sweep = 0;
	while (L->exit_code < 0) {
		int n = epoll_wait(L->ep, evs, 128, relay_waiting(L) ? 0 :
			L->conns || L->starved || L->nspares ? SWEEP_MS : -1);
		if (n < 0 && errno != EINTR)
			err_die_errno(1, "epoll_wait");
		L->now = loop_clock();
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u64 & 1) {
				on_up_event(L, evs[i].data.u64, evs[i].events);
				continue;
			}
			struct handle *h = evs[i].data.ptr;
			switch (h->kind) {
			case H_LISTEN:
				/* alone in its batch (one client at a time), the
				 * accept that would only say EAGAIN is skipped */
				on_accept((struct listener *)h, n > 1);
				break;
			case H_CLIENT:
				on_conn_event((struct conn *)((char *)h - offsetof(struct conn, hc)), false, evs[i].events);
				break;
			case H_RESOLVER:
				on_resolved(L);
				break;
			case H_SIGNAL:
				L->exit_code = VX_EXIT_OK;
				break;
			case H_LINES:
				on_lines(L);
				break;
			case H_CONTROL:
				control_on_accept(h);
				break;
			}
		}
		relay_again(L);
		conn_reap(L);
		listen_resume_due(L);
		check_done(L);
		if (L->now >= next_sweep) {
			sweep(L);
			spare_expire(L, NULL, false);
			next_sweep = L->now + SWEEP_MS / 1000.0;
		}
	}
	for (struct listener *l = L->listeners; l; l = l->next) {
		if (l->path && l->fd >= 0)
			unlink(l->path);
		control_close(l);
	}
	return L->exit_code;
}
