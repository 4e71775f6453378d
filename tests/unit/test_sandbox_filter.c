/* The tracer's own seccomp filter (filter_build_tracer, loaded by the
 * sandbox's pid 1 under --trace): in a child that loaded it, what a hostile
 * pid 1 would try is refused, and only what the tracer needs goes through.
 * The task's filter refuses ptrace outright, for comparison, and allows
 * only the socket families filter.h lists (issue 20 item 3) and
 * socketpair(AF_UNIX) of stream and seqpacket sockets. */
#include <errno.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/vm_sockets.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"
#include "request.h"
#include "unit.h"

/* errno of a call that failed, 0 when it succeeded */
#define ERR(call) ((call) < 0 ? errno : 0)

enum { N_UNSHARE, N_CLONE, N_MOUNT, N_ATTACH, N_SEIZE, N_TRACEME, N_WRITEV, N_KEYCTL,
	N_UNIX, N_URING, N_CONT, N_READV, N_PAIR, N_VSOCK, N_HIGH, N_AUDIT, N_ROUTE, N_INET6,
	N_DPAIR, N_DUNIX, N_CONNECT, N_UNTRACED, N_MAX };

/* errno of a raw clone with these flags, 0 when it made a child (reaped) */
static int clone_errno(unsigned long flags)
{
	pid_t kid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (kid == 0)
		_exit(0);
	if (kid < 0)
		return errno;
	waitpid(kid, NULL, 0);
	return 0;
}

/* Load the filter in a child, try each call there, send back their errnos. */
static void probe(const struct sock_fprog *f, int *got)
{
	int pfd[2];
	pid_t pid;
	CHECK(pipe(pfd) == 0);
	pid = fork();
	if (pid == 0) {
		int e[N_MAX];
		char buf[8] = "x", dst[8];
		struct iovec l = {dst, 1}, rm = {buf, 1};
		pid_t parent = getppid();
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || filter_load(f))
			_exit(3);
		e[N_UNSHARE] = ERR(unshare(CLONE_NEWUSER));
		e[N_CLONE] = clone_errno(CLONE_NEWUSER);
		e[N_UNTRACED] = clone_errno(CLONE_UNTRACED);
		e[N_MOUNT] = ERR(mount("none", "/tmp", "tmpfs", 0, NULL));
		e[N_ATTACH] = ERR(ptrace(PTRACE_ATTACH, parent, 0, 0));
		e[N_SEIZE] = ERR(ptrace(PTRACE_SEIZE, parent, 0, 0));
		e[N_TRACEME] = ERR(ptrace(PTRACE_TRACEME, 0, 0, 0));
		e[N_WRITEV] = ERR(process_vm_writev(getpid(), &rm, 1, &l, 1, 0));
		e[N_KEYCTL] = ERR(syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL));
		e[N_UNIX] = ERR(socket(AF_UNIX, SOCK_STREAM, 0));
		e[N_DUNIX] = ERR(socket(AF_UNIX, SOCK_DGRAM, 0));
		e[N_CONNECT] = ERR(connect(-1, NULL, 0));
		e[N_URING] = ERR(syscall(SYS_io_uring_setup, 1, buf));
		/* a request on a process it does not trace: the kernel's ESRCH */
		e[N_CONT] = ERR(ptrace(PTRACE_CONT, parent, 0, 0));
		e[N_READV] = ERR(process_vm_readv(getpid(), &l, 1, &rm, 1, 0));
		{
			int sv[2];
			e[N_PAIR] = ERR(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
			e[N_DPAIR] = ERR(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
		}
		e[N_VSOCK] = ERR(socket(AF_VSOCK, SOCK_STREAM, 0));
		/* the kernel reads an int: the high word must not hide AF_VSOCK */
		e[N_HIGH] = ERR(syscall(SYS_socket, 0x100000000L | AF_VSOCK, SOCK_STREAM, 0));
		e[N_AUDIT] = ERR(socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT));
		e[N_ROUTE] = ERR(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE));
		e[N_INET6] = ERR(socket(AF_INET6, SOCK_DGRAM, 0));
		_exit(write(pfd[1], e, sizeof(e)) == (ssize_t)sizeof(e) ? 0 : 4);
	}
	close(pfd[1]);
	CHECK(read(pfd[0], got, N_MAX * sizeof(int)) == (ssize_t)(N_MAX * sizeof(int)));
	close(pfd[0]);
	waitpid(pid, NULL, 0);
}

/* The task's filter (or the tracer's) for r as vx-sandbox loads it (the
 * build's compiled table), loaded and probed. */
static void probe_built(const struct sb_request *r, bool tracer, int *got)
{
	struct sock_fprog f;
	int rc = filter_compiled(r, tracer, &f);
	CHECK(rc == 0);
	memset(got, -1, N_MAX * sizeof(int));
	if (rc == 0) {
		probe(&f, got);
		filter_prog_free(&f);
	}
}

/* The table holds, for every variant, exactly what libseccomp compiles
 * from filter.c's rules now; the variants differ. */
static void check_table(void)
{
	size_t generated = 0;
	for (unsigned v = 0; v < FILTER_VARIANTS; v++) {
		struct sb_request r;
		bool tracer = (v & FILTER_V_TRACER) != 0;
		struct sock_fprog now;
		memset(&r, 0, sizeof(r));
		r.trace_fd = (v & FILTER_V_TRACED) ? 0 : -1;
		r.unix_sockets = (v & FILTER_V_UNIX) != 0;
		r.weaker_nested = (v & FILTER_V_NESTED) != 0;
		CHECK(filter_variant(&r, tracer) == v);
		if (tracer && !(v & FILTER_V_TRACED)) {
			CHECK(filter_gen[v].len == 0);
			continue;
		}
		generated++;
		CHECK(filter_gen[v].len > 0);
		CHECK(filter_compile(&r, tracer, &now) == 0);
		CHECK(now.len == filter_gen[v].len &&
			memcmp(now.filter, filter_gen[v].insns, now.len * sizeof(*now.filter)) == 0);
		for (unsigned w = 0; w < v; w++)
			if (filter_gen[w].len)
				CHECK(filter_gen[w].len != filter_gen[v].len ||
					memcmp(filter_gen[w].insns, filter_gen[v].insns,
						filter_gen[v].len * sizeof(*now.filter)) != 0);
		filter_prog_free(&now);
	}
	CHECK(generated == 12);
}

int main(void)
{
	struct sb_request r;
	int got[N_MAX];

	check_table();
	memset(&r, 0, sizeof(r));
	probe_built(&r, true, got);
	CHECK(got[N_UNSHARE] == EPERM);
	CHECK(got[N_CLONE] == EPERM);
	CHECK(got[N_MOUNT] == EPERM);
	CHECK(got[N_ATTACH] == EPERM);
	CHECK(got[N_SEIZE] == EPERM);
	CHECK(got[N_TRACEME] == EPERM);
	CHECK(got[N_WRITEV] == EPERM);
	CHECK(got[N_KEYCTL] == EPERM);
	CHECK(got[N_UNIX] == EPERM);
	/* pid 1 makes the task's connects: its own never stop */
	CHECK(got[N_CONNECT] == EBADF);
	CHECK(got[N_URING] == ENOSYS);
	CHECK(got[N_CONT] == ESRCH);
	CHECK(got[N_READV] == 0);

	/* the task's own filter: no ptrace at all; socket families
	 * allow-listed (issue 20 item 3); socketpair(AF_UNIX) free */
	r.trace_fd = -1;
	probe_built(&r, false, got);
	CHECK(got[N_CONT] == EPERM);
	CHECK(got[N_READV] == EPERM);
	CHECK(got[N_UNSHARE] == EPERM);
	CHECK(got[N_UNIX] == EPERM);
	CHECK(got[N_PAIR] == 0);
	CHECK(got[N_DPAIR] == EPERM);
	CHECK(got[N_VSOCK] == EAFNOSUPPORT);
	CHECK(got[N_HIGH] == EAFNOSUPPORT);
	CHECK(got[N_AUDIT] == EPROTONOSUPPORT);
	CHECK(got[N_ROUTE] == 0);
	CHECK(got[N_INET6] == 0);
	CHECK(got[N_URING] == ENOSYS);

	CHECK(got[N_DUNIX] == EPERM);
	CHECK(got[N_CONNECT] == EBADF);

	/* under --trace a stream socket(AF_UNIX) is free and every connect is
	 * pid 1's to make; a datagram one is pid 1's to refuse. With no tracer
	 * attached the kernel fails both stops (run.c then loads the untraced
	 * filter instead) */
	CHECK(got[N_UNTRACED] == 0);
	r.trace_fd = 0;
	probe_built(&r, false, got);
	CHECK(got[N_UNTRACED] == EPERM);
	CHECK(got[N_UNIX] == 0);
	CHECK(got[N_DUNIX] == ENOSYS);
	CHECK(got[N_CONNECT] == ENOSYS);
	CHECK(got[N_PAIR] == 0);
	CHECK(got[N_VSOCK] == EAFNOSUPPORT);

	/* the grant lifts only AF_UNIX */
	r.unix_sockets = true;
	probe_built(&r, false, got);
	CHECK(got[N_UNIX] == 0);
	CHECK(got[N_DUNIX] == 0);
	CHECK(got[N_CONNECT] == ENOSYS);
	CHECK(got[N_DPAIR] == 0);
	CHECK(got[N_VSOCK] == EAFNOSUPPORT);
	return UNIT_END("sandbox_filter");
}
