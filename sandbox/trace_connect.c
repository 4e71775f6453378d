/* trace_connect.c: the tracer's network stops: a connect pid 1 makes on
 * the task's socket itself (unix or inet), a unix socket refused (see
 * trace_int.h). */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include "err.h"
#include "filter.h"

/* sock_diag for the connect judgement (bound_here), opened before pid 1's
 * own filter refuses that netlink protocol */
static int diag_fd = -1;

int trace_confine(const struct sb_request *r)
{
	struct sock_fprog prog;
	int rc;
	if (diag_fd < 0)
		diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (filter_compiled(r, true, &prog))
		return -1;
	rc = filter_load(&prog);
	filter_prog_free(&prog);
	if (rc)
		errno = -rc;
	return rc ? -1 : 0;
}

/* Skip the stopped call, its result rc (0 or -errno). A tracee whose call
 * cannot be skipped is killed, never let through. */
static void skip_call(pid_t pid, long rc)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs)) {
		kill(pid, SIGKILL);
		return;
	}
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)rc;
	if (ptrace(PTRACE_SETREGS, pid, 0, &regs))
		kill(pid, SIGKILL);
}

/* The task's datagram socket(AF_UNIX) without allow.unixSockets (filter.h,
 * skipped with EPERM, and recorded. The domain is a register, so
 * nothing the task does meanwhile changes what was judged. No peer is
 * known yet, so the record names the family and the socket type. */
void trace_refuse_unix(struct tracer *t, struct proc *pr, const struct sc_info *si)
{
	struct ev e = {.op = "socket", .access = 'u'};
	unsigned type = (unsigned)si->seccomp.args[1] & 0xf;
	skip_call(pr->pid, -EPERM);
	e.path = xstrdup(type == SOCK_STREAM ? "AF_UNIX SOCK_STREAM" : type == SOCK_DGRAM
		? "AF_UNIX SOCK_DGRAM" : type == SOCK_SEQPACKET ? "AF_UNIX SOCK_SEQPACKET" : "AF_UNIX");
	e.resolved = xstrdup(e.path);
	trace_emit(t, pr->pid, &e, EPERM, false);
	trace_ev_clear(&e);
}

/* ---- connect (filter.h): pid 1 connects the task's socket itself ----
 *
 * At the task's connect() stop pid 1 takes the socket (pidfd_getfd: the same
 * open file description), reads the address once into its own memory, and
 * connects that socket to that address, then skips the task's call with
 * the result. Another thread of the task can neither rewrite the address
 * after it was judged nor dup2() another socket onto the fd number: what
 * was judged is what connects. A unix socket is reached through an O_PATH
 * fd of the file pid 1 judged (/proc/self/fd/N), never by its name again. */

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Is a unix socket of the sandbox's network namespace bound to the file
 * (dev, ino)? Only the task's processes live there, so it is one the task
 * made. The kernel's dump names each bound socket's file (its dev in the
 * kernel's encoding, its inode in 32 bits). */
static bool bound_here(dev_t dev, ino_t ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
		.nlh = {.nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		.r = {.sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_show = UDIAG_SHOW_VFS},
	};
	static long buf[8192];
	bool found = false, done = false;
	if (diag_fd < 0 || send(diag_fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return false;
	while (!done) {
		int n = (int)recv(diag_fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			for (struct rtattr *a = (void *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				const struct unix_diag_vfs *v = RTA_DATA(a);
				if (a->rta_type == UNIX_DIAG_VFS && RTA_PAYLOAD(a) >= sizeof(*v) &&
					v->udiag_vfs_ino == (uint32_t)ino &&
					major(dev) == v->udiag_vfs_dev >> 20 &&
					minor(dev) == (v->udiag_vfs_dev & 0xfffff))
					found = true;
			}
		}
	}
	return found;
}

/* connect(2) on the task's socket as the task would see it. A blocking
 * connect may wait on a listener that is itself a stopped tracee (a full
 * backlog), and pid 1 waits with it: the wait is capped at 10 s (the
 * task's own SO_SNDTIMEO when shorter), then ETIMEDOUT. */
static long connect_as_task(int sock, const void *sa, socklen_t len)
{
	struct timeval old, cap = {10, 0};
	socklen_t ol = sizeof(old);
	int fl = fcntl(sock, F_GETFL);
	bool capped = false;
	long rc;
	if (fl >= 0 && !(fl & O_NONBLOCK) &&
		!getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, &ol) &&
		((!old.tv_sec && !old.tv_usec) || old.tv_sec >= cap.tv_sec))
		capped = !setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &cap, sizeof(cap));
	rc = connect(sock, sa, len) ? -errno : 0;
	if (capped) {
		(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, sizeof(old));
		if (rc == -EINPROGRESS || rc == -EAGAIN)
			rc = -ETIMEDOUT;
	}
	return rc;
}

/* A unix socket's connect. An abstract name lives in the sandbox's own
 * network namespace (only the task's sockets are there); a path is
 * resolved as the task sees it (its root, its cwd) and reached when it is
 * a socket the task bound itself, or with allow.unixSockets. Another
 * existing socket is refused with EPERM and recorded; a path that is no
 * socket, or exists nowhere in the task's view, gets the kernel's answer
 * silently. */
static long connect_unix(struct tracer *t, struct proc *pr, int sock,
	const struct sockaddr_un *sun, socklen_t len)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	char name[sizeof(sun->sun_path) + 1], dir[64];
	struct sockaddr_un at = {.sun_family = AF_UNIX};
	struct open_how how = {.flags = O_PATH | O_CLOEXEC};
	struct ev e = {.op = "connect", .access = 'u'};
	struct stat st;
	int dfd, fd;
	long rc;
	if (len <= off || sun->sun_family != AF_UNIX || !sun->sun_path[0])
		return connect_as_task(sock, sun, len);
	memcpy(name, sun->sun_path, len - off);
	name[len - off] = 0;
	snprintf(dir, sizeof(dir), "/proc/%d/%s", (int)pr->pid, name[0] == '/' ? "root" : "cwd");
	if (name[0] == '/')
		how.resolve = RESOLVE_IN_ROOT;
	if ((dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -ENOENT;
	fd = (int)syscall(SYS_openat2, dfd, name, &how, sizeof(how));
	rc = fd < 0 ? -errno : 0;
	close(dfd);
	if (rc)
		return rc;
	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return -ECONNREFUSED;
	}
	if (t->r->unix_sockets || bound_here(st.st_dev, st.st_ino)) {
		snprintf(at.sun_path, sizeof(at.sun_path), "/proc/self/fd/%d", fd);
		rc = connect_as_task(sock, &at, sizeof(at));
		close(fd);
		return rc;
	}
	/* the socket's own path, symlinks followed, in the task's view */
	snprintf(dir, sizeof(dir), "fd/%d", fd);
	e.resolved = trace_proc_link(getpid(), dir);
	close(fd);
	if (!e.resolved)
		e.resolved = xstrdup(name);
	e.path = xstrdup(name);
	trace_emit(t, pr->pid, &e, EPERM, false);
	trace_ev_clear(&e);
	return -EPERM;
}

/* An inet address outside the sandbox (neither loopback nor any): its
 * text in host, its port in *port. The namespace has no route there. */
static bool outside(const struct sockaddr_storage *ss, socklen_t len, char *host, unsigned *port)
{
	const struct sockaddr_in *in = (const void *)ss;
	const struct sockaddr_in6 *in6 = (const void *)ss;
	uint32_t a;
	if (ss->ss_family == AF_INET && len >= sizeof(*in)) {
		a = ntohl(in->sin_addr.s_addr);
		*port = ntohs(in->sin_port);
		return a >> 24 != 127 && a && inet_ntop(AF_INET, &in->sin_addr, host, INET6_ADDRSTRLEN);
	}
	if (ss->ss_family != AF_INET6 || len < sizeof(*in6) ||
		IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
		return false;
	*port = ntohs(in6->sin6_port);
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		memcpy(&a, in6->sin6_addr.s6_addr + 12, 4);
		a = ntohl(a);
		return a >> 24 != 127 && a &&
			inet_ntop(AF_INET, in6->sin6_addr.s6_addr + 12, host, INET6_ADDRSTRLEN);
	}
	return inet_ntop(AF_INET6, &in6->sin6_addr, host, INET6_ADDRSTRLEN) != NULL;
}

void trace_on_connect(struct tracer *t, struct proc *pr, const struct sc_info *si)
{
	struct sockaddr_storage ss;
	int len = (int)si->seccomp.args[2], sock = -1, pidfd, dom = 0;
	socklen_t dl = sizeof(dom);
	char host[INET6_ADDRSTRLEN];
	unsigned port = 0;
	long rc = 0;
	memset(&ss, 0, sizeof(ss));
	/* the kernel's order: the fd, the address, then the socket */
	pidfd = (int)syscall(SYS_pidfd_open, pr->pid, PIDFD_THREAD);
	if (pidfd < 0) {
		kill(pr->pid, SIGKILL);
		return;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)si->seccomp.args[0], 0);
	if (sock < 0)
		rc = errno == EBADF ? -EBADF : -EPERM;
	close(pidfd);
	if (!rc && (len < 0 || (size_t)len > sizeof(ss))) {
		rc = -EINVAL;
	} else if (!rc && len) {
		struct iovec l = {&ss, (size_t)len};
		struct iovec rm = {(void *)(uintptr_t)si->seccomp.args[1], (size_t)len};
		if (process_vm_readv(pr->pid, &l, 1, &rm, 1, 0) != len)
			rc = -EFAULT;
	}
	if (!rc && getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &dl))
		rc = -errno;
	if (!rc && dom == AF_UNIX) {
		rc = connect_unix(t, pr, sock, (const struct sockaddr_un *)&ss, (socklen_t)len);
	} else if (!rc) {
		rc = connect_as_task(sock, &ss, (socklen_t)len);
		if ((dom == AF_INET || dom == AF_INET6) && outside(&ss, (socklen_t)len, host, &port))
			trace_emit_net(t, pr->pid, host, port, sock, rc);
	}
	if (sock >= 0)
		close(sock);
	skip_call(pr->pid, rc);
}
