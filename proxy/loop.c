/* loop.c: the loop's clock and its epoll set (loop.h). */
#include <sys/epoll.h>
#include <time.h>

#include "err.h"
#include "loop.h"

double loop_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A socket joins the set once, edge-triggered: no epoll_ctl per change of
 * direction but the one that first wants EPOLLOUT; it leaves the set when
 * closed. */
void ep_add(struct loop *L, int fd, struct handle *h, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET | (out ? EPOLLOUT : 0), .data.ptr = h };
	if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");
}

bool ep_want_out(struct loop *L, int fd, struct handle *h, bool *armed)
{
	if (*armed)
		return true;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = h };
	if (epoll_ctl(L->ep, EPOLL_CTL_MOD, fd, &ev) < 0)
		return false;
	*armed = true;
	return true;
}
