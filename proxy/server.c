#include "server.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "hostaddr.h"
#include "loop.h"
#include "socks.h"

#define SWEEP_MS 200

struct server_opts loop_opts;
struct policy *loop_pol;
int loop_ep = -1, loop_rfd = -1;
double loop_now;
static int sfd = -1;
static struct handle h_resolver = { H_RESOLVER }, h_signal = { H_SIGNAL }, h_lines = { H_LINES };
static int exit_code = -1;

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
void ep_add(int fd, struct handle *h)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = h };
	if (epoll_ctl(loop_ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");
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
	for (struct conn *c = conn_list, *n; c; c = n) {
		n = c->nextc;
		if (loop_now >= c->deadline)
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
		XGROW(lines_buf, lines_len + 1, lines_cap); /* 64, doubling: 1 MiB at the 15th */
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
	loop_opts = *o;
	loop_pol = p;
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
	loop_ep = epoll_create1(EPOLL_CLOEXEC);
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (loop_ep < 0 || sfd < 0)
		err_die_errno(1, "epoll or signalfd");
	loop_rfd = resolve_init(o->hosts_file);
	hostaddr_init(clock_now());
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &h_signal };
	epoll_ctl(loop_ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.ptr = &h_resolver;
	epoll_ctl(loop_ep, EPOLL_CTL_ADD, loop_rfd, &ev);
}

void server_watch_lines(int fd, void (*on_line)(char *line, void *arg), void *arg)
{
	lines_fd = fd;
	lines_cb = on_line;
	lines_arg = arg;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &h_lines };
	if (epoll_ctl(loop_ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl on the request's stdin");
}

/* A task the driver says has ended: take what is still in its socket's
 * backlog, and once none of its connections waits for a decision (every
 * client is gone, so each head ends in a decision or an EOF), close its
 * socket and answer "done": the driver then holds every deny of the task. */
static void check_done(void)
{
	for (struct listener *l = listen_list; l; l = l->next) {
		if (!l->done || l->fd < 0)
			continue;
		/* its backlog is judged once descriptors are back */
		if (listen_starved)
			continue;
		on_accept(l, true);
		bool pending = false;
		for (struct conn *c = conn_list; c && !pending; c = c->nextc)
			pending = c->task == l->task && !c->closed &&
				  (c->state == C_HEAD || c->state == C_RESOLVE);
		if (pending)
			continue;
		close(l->fd);
		l->fd = -1;
		if (l->path)
			unlink(l->path);
		if (!control_done(l))
			record_done(l->task);
	}
}

int server_run(void)
{
	struct epoll_event evs[128];
	double next_sweep = 0;
	while (exit_code < 0) {
		int n = epoll_wait(loop_ep, evs, 128, relay_waiting() ? 0 : conn_list || listen_starved ? SWEEP_MS : -1);
		if (n < 0 && errno != EINTR)
			err_die_errno(1, "epoll_wait");
		loop_now = clock_now();
		for (int i = 0; i < n; i++) {
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
			case H_CONTROL:
				control_on_accept(h);
				break;
			}
		}
		relay_again();
		conn_reap();
		listen_resume_due();
		check_done();
		if (loop_now >= next_sweep) {
			sweep();
			next_sweep = loop_now + SWEEP_MS / 1000.0;
		}
	}
	for (struct listener *l = listen_list; l; l = l->next) {
		if (l->path && l->fd >= 0)
			unlink(l->path);
		control_close(l);
	}
	return exit_code;
}
