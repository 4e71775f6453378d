/* bench/notifexit.c: can seccomp user notification judge a path call at
 * entry and still learn the kernel's result of the few calls whose record
 * needs it (issue 38 item 1, docs/benchmarks.md session 23)? And what does
 * each kind of call cost, against today's ptrace stops?
 *
 * A child calls faccessat(AT_FDCWD, PATH, F_OK) N times under a filter that
 * notifies pid 1 of faccessat; pid 1 also holds it seized by ptrace. For
 * each notification pid 1 reads the path from the child's memory (as the
 * tracer does) and judges it:
 *   "/"      needs no record whatever it returns (a read the grants bind):
 *            answered SECCOMP_USER_NOTIF_FLAG_CONTINUE, nothing more
 *   other    needs the kernel's result (a read that may be hidden): pid 1
 *            interrupts the child (PTRACE_INTERRUPT: its wait for the answer
 *            ends, the call is rolled back to be made again, ERESTARTSYS),
 *            resumes it with PTRACE_SYSCALL, lets the call made again pass
 *            (its second notification, answered CONTINUE) and reads the
 *            result at its syscall-exit stop
 * Modes (argument 1):
 *   ptrace-skip  today's tracer, a call that needs no record: a
 *                SECCOMP_RET_TRACE stop, PTRACE_CONT
 *   ptrace-exit  today's tracer, a call that needs its result: the same
 *                stop, PTRACE_SYSCALL, the exit stop, PTRACE_CONT
 *   notif-skip   the path "/": one notification, CONTINUE
 *   notif-exit   a path that does not exist: the hybrid above; each result
 *                pid 1 reads must be -ENOENT, and the child's too, or it
 *                fails (exit 1)
 * Prints the wall time and CPU (both processes) per call. Not part of make:
 *   cc -O2 -Wall -o /tmp/notifexit bench/notifexit.c
 *   for m in ptrace-skip ptrace-exit notif-skip notif-exit; do /tmp/notifexit $m; done */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 10000

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_ms(int who)
{
	struct rusage r;
	getrusage(who, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
		(double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static int install(unsigned action, unsigned flags)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_faccessat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {4, f};
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

/* the child: N calls on path; exit 1 unless each failed as want says */
static void child_loop(const char *path, int want)
{
	for (int i = 0; i < N; i++) {
		long rc = syscall(SYS_faccessat, AT_FDCWD, path, F_OK);
		if ((rc < 0 ? -errno : 0) != want)
			_exit(1);
	}
	_exit(0);
}

static void send_fd(int sock, int fd)
{
	char b[CMSG_SPACE(sizeof(int))], x = 'x';
	struct iovec io = {&x, 1};
	struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = b, .msg_controllen = sizeof(b)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (sendmsg(sock, &m, 0) != 1)
		_exit(3);
}

static int recv_fd(int sock)
{
	char b[CMSG_SPACE(sizeof(int))], x;
	struct iovec io = {&x, 1};
	struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = b, .msg_controllen = sizeof(b)};
	int fd;
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fd));
	return fd;
}

/* waitpid for c's next stop; its status */
static int next_stop(pid_t c)
{
	int st;
	if (waitpid(c, &st, __WALL) != c) {
		perror("waitpid");
		exit(2);
	}
	return st;
}

static int run_ptrace(bool exit_stop)
{
	int st, bad = 0;
	pid_t c = fork();
	if (!c) {
		raise(SIGSTOP);
		install(SECCOMP_RET_TRACE, 0);
		child_loop(exit_stop ? "/nonexistent-notifexit" : "/", exit_stop ? -ENOENT : 0);
	}
	waitpid(c, NULL, WSTOPPED);
	ptrace(PTRACE_SEIZE, c, 0, PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	kill(c, SIGCONT);
	for (;;) {
		st = next_stop(c);
		if (WIFEXITED(st))
			return WEXITSTATUS(st) || bad;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)) && exit_stop) {
			ptrace(PTRACE_SYSCALL, c, 0, 0);
		} else if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info si;
			if (ptrace(PTRACE_GET_SYSCALL_INFO, c, sizeof(si), &si) <= 0 ||
				si.op != PTRACE_SYSCALL_INFO_EXIT || si.exit.rval != -ENOENT)
				bad = 1;
			ptrace(PTRACE_CONT, c, 0, 0);
		} else {
			int sig = WSTOPSIG(st);
			ptrace(PTRACE_CONT, c, 0, st >> 16 == 0 && sig != SIGTRAP && sig != SIGSTOP ? sig : 0);
		}
	}
}

static int run_notif(bool exit_stop)
{
	int sv[2], fd, st, bad = 0;
	unsigned long results = 0;
	pid_t c;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 2;
	c = fork();
	if (!c) {
		char go;
		/* seized before it goes on: no signal stop to answer first */
		if (read(sv[1], &go, 1) != 1)
			_exit(3);
		fd = install(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
		send_fd(sv[1], fd);
		close(fd);
		child_loop(exit_stop ? "/nonexistent-notifexit" : "/", exit_stop ? -ENOENT : 0);
	}
	if (ptrace(PTRACE_SEIZE, c, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL) || write(sv[0], "g", 1) != 1)
		return 2;
	fd = recv_fd(sv[0]);
	if (fd < 0)
		return 2;
	/* SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP */
	if (ioctl(fd, SECCOMP_IOW(4, __u64), 1UL))
		perror("SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP");
	bool again = false; /* the call made again after an interrupt */
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		char path[64] = "";
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req))
			break; /* the child is gone */
		struct iovec l = {path, sizeof(path) - 1}, r = {(void *)(uintptr_t)req.data.args[1], sizeof(path) - 1};
		if (process_vm_readv(c, &l, 1, &r, 1, 0) <= 0)
			bad = 1;
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (!strcmp(path, "/") || again) {
			ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			if (again) {
				/* its exit stop: the kernel's own result */
				st = next_stop(c);
				struct __ptrace_syscall_info si;
				if (WSTOPSIG(st) != (SIGTRAP | 0x80) ||
					ptrace(PTRACE_GET_SYSCALL_INFO, c, sizeof(si), &si) <= 0 ||
					si.op != PTRACE_SYSCALL_INFO_EXIT || si.exit.rval != -ENOENT)
					bad = 1;
				else
					results++;
				ptrace(PTRACE_CONT, c, 0, 0);
				again = false;
			}
			continue;
		}
		/* needs its result: make the child take it back, and trace it */
		ptrace(PTRACE_INTERRUPT, c, 0, 0);
		st = next_stop(c);
		if (st >> 16 != PTRACE_EVENT_STOP)
			bad = 1;
		/* the first notification is gone with the interrupt */
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
			bad = 1;
		ptrace(PTRACE_SYSCALL, c, 0, 0);
		st = next_stop(c); /* the call made again: its entry stop */
		if (WSTOPSIG(st) != (SIGTRAP | 0x80))
			bad = 1;
		ptrace(PTRACE_SYSCALL, c, 0, 0);
		again = true;
	}
	waitpid(c, &st, __WALL);
	if (exit_stop && results != N) {
		fprintf(stderr, "notif-exit: %lu of %d results read\n", results, N);
		bad = 1;
	}
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 1) || bad;
}

int main(int argc, char **argv)
{
	double t0 = now_ms(), c0 = cpu_ms(RUSAGE_SELF) + cpu_ms(RUSAGE_CHILDREN), w, cpu;
	int rc;
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "ptrace-skip") || !strcmp(mode, "ptrace-exit"))
		rc = run_ptrace(!strcmp(mode, "ptrace-exit"));
	else if (!strcmp(mode, "notif-skip") || !strcmp(mode, "notif-exit"))
		rc = run_notif(!strcmp(mode, "notif-exit"));
	else {
		fputs("usage: notifexit ptrace-skip|ptrace-exit|notif-skip|notif-exit\n", stderr);
		return 2;
	}
	w = now_ms() - t0;
	cpu = cpu_ms(RUSAGE_SELF) + cpu_ms(RUSAGE_CHILDREN) - c0;
	printf("%-12s %6.1f us wall/call %6.1f us cpu/call%s\n", mode, w * 1000 / N, cpu * 1000 / N,
		rc ? "  FAILED: a result was wrong or unread" : "");
	return rc ? 1 : 0;
}
