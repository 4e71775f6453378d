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

/* A socket joins the set once, for both directions, edge-triggered: no
 * epoll_ctl per change of direction; it leaves the set when closed. */
void ep_add(struct loop *L, int fd, struct handle *h)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = h };
	if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		err_die_errno(1, "epoll_ctl");
}
