/* trace_notify.c: the seccomp user-notification prototype, for the
 * benchmark only (trace.h). The same calls sent to pid 1 as notifications
 * instead of ptrace stops; each is judged as the ptrace loop judges it
 * (trace_judge) and answered SECCOMP_USER_NOTIF_FLAG_CONTINUE, so the
 * kernel then runs it. Built to measure against ptrace (issue 5,
 * docs/benchmarks.md), not complete: the supervisor never learns a call's
 * result, so an event's errno is the judgement's guess (a hidden read
 * ENOENT, a write past the grants EROFS), a refused mkdir of an existing
 * directory is a false event (and so is a granted write beside a file
 * grant, issue 35), a widened read cannot be told from one
 * that failed, the cwd is read again for each relative path (a pid may be
 * reused unseen), and a listing made while a rename runs is not forgotten
 * after it. vx-sandbox uses it only with VX_TRACE_NOTIFY=1 in its
 * environment. */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

bool trace_notify_wanted(void)
{
	const char *e = getenv("VX_TRACE_NOTIFY");
	return e && *e == '1';
}

static int notify_filter(scmp_filter_ctx f)
{
	for (size_t i = 0; i < trace_ncalls; i++) {
		int rc;
		if (!trace_calls[i].cls)
			continue;
		if (trace_calls[i].nr == __NR_newfstatat || trace_calls[i].nr == __NR_statx) {
			struct scmp_arg_cmp c = trace_calls[i].nr == __NR_statx
				? SCMP_A2(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0)
				: SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0);
			rc = seccomp_rule_add_array(f, SCMP_ACT_NOTIFY, trace_calls[i].nr, 1, &c);
		} else {
			rc = seccomp_rule_add_array(f, SCMP_ACT_NOTIFY, trace_calls[i].nr, 0, NULL);
		}
		if (rc && rc != -EOPNOTSUPP && rc != -EDOM) {
			err_warn("seccomp: unable to notify %s: %s", trace_calls[i].name, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

int trace_notify_child(scmp_filter_ctx f, int ready_w, int go_r)
{
	int fd;
	char c;
	if (notify_filter(f) || seccomp_load(f) || (fd = seccomp_notify_fd(f)) < 0)
		return -1;
	/* pid 1 takes the listener with pidfd_getfd, then lets the task go */
	if (write(ready_w, &fd, sizeof(fd)) != (ssize_t)sizeof(fd) || read(go_r, &c, 1) != 1)
		return -1;
	return 0;
}

int trace_notify_parent(pid_t task, int ready_r, int go_w)
{
	int fd, pidfd, listener;
	if (read(ready_r, &fd, sizeof(fd)) != (ssize_t)sizeof(fd))
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, task, 0);
	if (pidfd < 0)
		return -1;
	listener = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	if (listener < 0)
		return -1;
	/* the task and pid 1 hand the CPU to each other (Linux 6.6). The
	 * flags are the ioctl's argument itself, not a pointer to them
	 * (kernel/seccomp.c, seccomp_notify_set_flags): a pointer is EINVAL. */
	if (!getenv("VX_TRACE_NOTIFY_ASYNC") &&
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP))
		err_warn_errno("the kernel refuses synchronous wake-ups of the seccomp listener");
	if (write(go_w, "u", 1) != 1) {
		close(listener);
		return -1;
	}
	return listener;
}

int trace_notify_loop(const struct sb_request *r, const struct plan *p, pid_t task, int listener)
{
	static struct out o;
	struct tracer t;
	int task_status = 0, pidfd = (int)syscall(SYS_pidfd_open, task, 0);
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	trace_tracer_init(&t, &o, r, p);
	for (;;) {
		struct pollfd pf[2] = {{listener, POLLIN, 0}, {pidfd, POLLIN, 0}};
		struct proc pr;
		const struct sc *c;
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents & POLLIN) {
			memset(&req, 0, sizeof(req));
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
				memset(&pr, 0, sizeof(pr));
				pr.pid = (pid_t)req.pid;
				c = req.data.nr < 1024 ? t.bynr[req.data.nr] : NULL;
				if (c && c->cls && trace_judge(&t, &pr, c, (const uint64_t *)req.data.args, c->dfd, c->path,
						c->cls, c->nofollow, &pr.ev[pr.nev]))
					pr.nev++;
				if (c && c->cls2 && trace_judge(&t, &pr, c, (const uint64_t *)req.data.args, c->dfd2, c->path2,
						c->cls2, c->nofollow, &pr.ev[pr.nev]))
					pr.nev++;
				if (trace_changes(req.data.nr) == 'n' || pr.inval)
					t.dc.gen++;
				/* what was read belongs to the call still waiting */
				if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0)
					for (int k = 0; k < pr.nev; k++)
						trace_emit(&t, pr.pid, &pr.ev[k], pr.ev[k].access == 'w'
							? EROFS : ENOENT, false);
				for (int k = 0; k < pr.nev; k++)
					trace_ev_clear(&pr.ev[k]);
				free(pr.cwd);
				free(pr.inval_dir);
				memset(&resp, 0, sizeof(resp));
				resp.id = req.id;
				resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
				(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			}
		}
		if (pf[1].revents & POLLIN || pidfd < 0) {
			pid_t w = waitpid(task, &task_status, pidfd < 0 ? 0 : WNOHANG);
			if (w == task || (w < 0 && errno != EINTR))
				break;
		}
	}
	trace_end_record(&o, "end", o.failed ? "a write of the trace failed" : NULL);
	if (pidfd >= 0)
		close(pidfd);
	close(listener);
	trace_tracer_free(&t, &o);
	return task_status;
}
