/* loop.c: the loop's clock and its epoll set (loop.h). */
#include <stdlib.h>
#include <string.h>
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

bool ep_want_out(struct loop *L, int fd, struct handle *h, bool *armed, bool *inset)
{
	if (*armed)
		return true;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = h };
	if (epoll_ctl(L->ep, *inset ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) < 0)
		return false;
	*armed = *inset = true;
	return true;
}

static uint64_t up_data(const struct loop *L, int fd)
{
	return (uint64_t)L->ups[fd].gen << 32 | (uint64_t)fd << 1 | 1;
}

bool ep_up_add(struct loop *L, int fd, struct conn *c, bool out)
{
	if (fd >= L->nups) {
		int n = L->nups ? L->nups : 64;
		while (n <= fd)
			n *= 2;
		L->ups = xrealloc(L->ups, (size_t)n * sizeof(*L->ups));
		memset(L->ups + L->nups, 0, (size_t)(n - L->nups) * sizeof(*L->ups));
		L->nups = n;
	}
	if (++L->upgen == 0)
		L->upgen = 1;
	L->ups[fd] = (struct upfd){ .c = c, .gen = L->upgen, .out = out };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET | (out ? EPOLLOUT : 0),
				  .data.u64 = up_data(L, fd) };
	if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		L->ups[fd].gen = 0;
		return false;
	}
	return true;
}

void ep_up_own(struct loop *L, int fd, struct conn *c)
{
	L->ups[fd].c = c;
}

bool ep_up_want_out(struct loop *L, int fd)
{
	if (L->ups[fd].out)
		return true;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u64 = up_data(L, fd) };
	if (epoll_ctl(L->ep, EPOLL_CTL_MOD, fd, &ev) < 0)
		return false;
	L->ups[fd].out = true;
	return true;
}

void ep_up_forget(struct loop *L, int fd)
{
	if (fd >= 0 && fd < L->nups)
		L->ups[fd] = (struct upfd){ 0 };
}

bool ep_up_find(const struct loop *L, uint64_t data, int *fd, struct conn **c)
{
	*fd = (int)((data >> 1) & 0x7fffffff);
	if (*fd >= L->nups || !L->ups[*fd].gen || L->ups[*fd].gen != (uint32_t)(data >> 32))
		return false;
	*c = L->ups[*fd].c;
	return true;
}
