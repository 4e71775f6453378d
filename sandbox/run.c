/* run.c: the namespaces, the sandbox's pid 1 and the task (see run.h). */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bridge.h"
#include "err.h"
#include "filter.h"
#include "mounts.h"
#include "taskenv.h"
#include "trace.h"

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
/* Two variables, not one: pid 1 may share this memory (see run_task) */
static volatile pid_t forward_pid1; /* vx-sandbox's: its pid 1, in the host's pids */
static volatile pid_t forward_task; /* pid 1's: the task's process group (negative) */
/* the task's filter, compiled (into vx-sandbox: filter.h), copied before
 * the clone */
static struct sock_fprog compiled;

/* In vx-sandbox, to pid 1. A kill of a child not yet reaped cannot fail, so
 * errno (shared with pid 1 when the memory is) is left alone. */
static void forward_out(int sig)
{
	if (forward_pid1 != 0)
		kill(forward_pid1, sig);
}

/* In pid 1, to the task's process group. */
static void forward_in(int sig)
{
	if (forward_task != 0)
		kill(forward_task, sig);
}

/* The signals forwarded, as a set: vx-sandbox blocks them from before the
 * clone until its handler knows pid 1, and pid 1 (which inherits the mask)
 * until its own handler knows the task; a signal sent meanwhile waits,
 * pending, instead of killing vx-sandbox or being dropped by pid 1 (an init
 * ignores a signal it has no handler for, but never a blocked one). */
static void forwarded_set(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		sigaddset(s, forwarded[i]);
}

static void on_signals(void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		sigaction(forwarded[i], &sa, NULL);
}

/* In the sandbox, setup failures end with _exit: no atexit handler (nor a
 * sanitizer's leak check, which ptraces) runs in a half-built sandbox. */
static void __attribute__((noreturn, format(printf, 1, 2))) setup_die(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int e = errno;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e)
		fprintf(stderr, "%s: %s: %s\n", err_prog(), msg, strerror(e));
	else
		fprintf(stderr, "%s: %s\n", err_prog(), msg);
	_exit(RUN_EXIT_SETUP);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The ids the task has inside when the caller is root and weakerWhenNested
 * lets it make user namespaces of its own. The kernel lets a new user
 * namespace map its parent's uid/gid 0 only for a creator that held
 * CAP_SETFCAP in the parent (verify_root_map, Linux 5.12): a map of 0 is
 * what lets file capabilities written there count on the host. The task
 * holds no capability, so as uid 0 inside it could not map itself into a
 * nested sandbox (unshare -Ur, a nested vx-sandbox) at all. Keeping
 * CAP_SETFCAP for it would be a real widening (a security.capability xattr
 * naming host root on a file in a write grant); mapping the host's root to
 * an ordinary id inside is none: the task still is the host's root on the
 * host's files (they show as NESTED_ID inside, owned by it), holds nothing
 * more, and its own nested maps name NESTED_ID, never 0. Without
 * weakerWhenNested nesting is refused anyway and uid 0 stays uid 0, so a
 * root tool behaves as on the host. */
#define NESTED_ID 1000

static void map_ids(uid_t uid, gid_t gid, bool nested)
{
	char line[64];
	uid_t in_uid = nested && uid == 0 ? NESTED_ID : uid;
	gid_t in_gid = nested && gid == 0 ? NESTED_ID : gid;
	/* gid_map may be written unprivileged only once setgroups is denied */
	if (write_file("/proc/self/setgroups", "deny") && errno != ENOENT)
		setup_die("unable to deny setgroups in the user namespace");
	snprintf(line, sizeof(line), "%u %u 1", in_uid, uid);
	if (write_file("/proc/self/uid_map", line))
		setup_die("unable to write the uid map");
	snprintf(line, sizeof(line), "%u %u 1", in_gid, gid);
	if (write_file("/proc/self/gid_map", line))
		setup_die("unable to write the gid map");
}

static void loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr))
		setup_die("unable to reach the loopback interface");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		setup_die("unable to bring the loopback interface up");
	close(s);
}

/* CAP_CHECKPOINT_RESTORE (Linux 5.9), the last capability of the oldest
 * kernel vx-sandbox runs on (mount_setattr is 5.12): an EINVAL before it
 * is a real failure. */
#define CAP_LAST_CAP_MIN 40

static void drop_privileges(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		setup_die("unable to set no_new_privs");
	/* capabilities are numbered 0..CAP_LAST_CAP: the first EINVAL ends them */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			if (errno == EINVAL && cap > CAP_LAST_CAP_MIN)
				break;
			setup_die("unable to drop capability %d from the bounding set", cap);
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		setup_die("unable to clear the ambient capabilities");
	/* uid 0 in the namespace (the root caller) regains nothing on exec */
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
		SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
		SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0))
		setup_die("unable to lock the securebits");
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		setup_die("unable to drop the capabilities");
	/* the task may not read or write pid 1's memory through /proc */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		setup_die("unable to make the sandbox's pid 1 undumpable");
}

/* The task's side of the spawn: it may run as a vfork child (see
 * sandbox_init) or share pid 1's memory while pid 1 runs on (traced), so it
 * touches nothing of pid 1's memory (vx-sandbox's too, when shared) but
 * stderr on a failure and the stack below, sets errno only on a failure it
 * dies of, and never returns. */
static void __attribute__((noreturn)) exec_task(const struct sb_request *r)
{
	sigset_t none;
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	/* not the two that cannot be caught, nor glibc's own below SIGRTMIN:
	 * each would be an EINVAL, and errno may be pid 1's (traced) */
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP && (s < 32 || s >= SIGRTMIN))
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* a new session: no controlling terminal to push input into */
	if (setsid() < 0)
		setup_die("setsid");
	if (chdir(r->project))
		setup_die("unable to enter the project directory '%s'", r->project);
	/* only fds 0-2 reach the task: an fd left open leads outside */
	if (close_range(3, ~0U, 0)) {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	}
	if (r->command) {
		execl("/bin/sh", "sh", "-c", r->command, (char *)NULL);
		setup_die("unable to run /bin/sh");
	}
	execvp(r->argv[0], r->argv);
	fprintf(stderr, "%s: %s: %s\n", err_prog(), r->argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* The stack of a process sharing its parent's memory (pid 1, or the
 * traced task until its exec): room for the task's execvp too, whose
 * fallback for a script without #! copies argv onto the stack (at most the
 * kernel's 6 MiB of arguments); a guard below. */
#define PID1_STACK (8u << 20)
#define PID1_GUARD (64u << 10)

/* AddressSanitizer knows one stack per thread and faults on a clone running
 * on another: a sanitized build never shares. */
#ifdef __SANITIZE_ADDRESS__
#define PID1_CAN_SHARE false
#else
#define PID1_CAN_SHARE true
#endif

/* Such a stack, or NULL when it cannot have one (then the process is a
 * copy of its parent, as before sharing). */
static char *shared_stack(void)
{
	char *s = mmap(NULL, PID1_STACK + PID1_GUARD, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	if (mprotect(s, PID1_GUARD, PROT_NONE)) {
		munmap(s, PID1_STACK + PID1_GUARD);
		return NULL;
	}
	return s;
}

/* What the traced task starts from (clone's argument): the pipes it waits
 * on, and the filters pid 1 prepared for it. */
struct task_start {
	const struct sb_request *r;
	const struct plan *p;
	bool shared;                /* CLONE_VM: sees what pid 1 prepares */
	int ready[2], go[2];
	struct sock_fprog untraced; /* the task's own filter with no tracer */
	struct sock_fprog arm;      /* the trace filter, after the task's own */
};

/* The filters the task loads once let go with c ('t' traced, 'n' not):
 * made by pid 1 for a task that shares its memory, by a forked task itself.
 * 0, or -1 after one line. */
static int prepare_filters(struct task_start *a, char c)
{
	struct sb_request u = *a->r;
	if (c == 't')
		return trace_arm_prepare(a->r, a->p, &a->arm);
	/* no ptrace tracer: its stops (connect) would fail with ENOSYS, so
	 * the untraced rules apply (filter.h) */
	u.trace_fd = -1;
	return filter_compiled(&u, false, &a->untraced);
}

static int task_main(void *arg)
{
	struct task_start *a = arg;
	const struct sb_request *r = a->r;
	char c = 0;
	int rc;
	close(a->ready[0]);
	close(a->go[1]);
	if (write(a->ready[1], "r", 1) != 1 || read(a->go[0], &c, 1) != 1)
		_exit(RUN_EXIT_SETUP);
	if (c == 'u') {
		/* the notification prototype (bench only, trace.h), on
		 * libseccomp's filter object: a forked task only */
		scmp_filter_ctx filter = filter_build(r);
		if (!filter || trace_notify_child(filter, a->ready[1], a->go[0]))
			setup_die("unable to hand the seccomp listener over");
		exec_task(r);
	}
	/* a forked task sees nothing pid 1 prepares after the fork */
	if (!a->shared && prepare_filters(a, c))
		_exit(RUN_EXIT_SETUP);
	rc = filter_load(c == 't' ? &compiled : &a->untraced);
	if (rc) {
		errno = -rc;
		setup_die("the kernel refuses the seccomp filter; fix: run on a kernel "
			"with CONFIG_SECCOMP_FILTER");
	}
	if (c == 't' && (rc = filter_load(&a->arm))) {
		errno = -rc;
		setup_die("the kernel refuses the trace filter");
	}
	exec_task(r);
}

/* The task under the tracer (trace.h): pid 1 loads a filter of its own that
 * leaves it ptrace of its tracees (trace_confine), the task loads the task's
 * once pid 1 has seized it. The task shares pid 1's memory until its exec
 * (CLONE_VM on a stack of its own, as posix_spawn does: no page table
 * copied, no copy-on-write fault on either side), waiting on a pipe while
 * pid 1 seizes it and prepares its filters, then loading them and exec'ing
 * with what task_main and exec_task allow themselves: no allocation, no
 * errno but on the way to dying. A sanitized build forks it instead (see
 * PID1_CAN_SHARE), as does the notification prototype: that copy prepares
 * its own filters once it is let go (prepare_filters). pid 1 is dumpable
 * only while it seizes the task (the seize needs the task's memory
 * dumpable, and it is pid 1's), undumpable again before the task can run
 * anything of its own. Returns pid 1's exit code. */
static int traced(const struct sb_request *r, const struct plan *p)
{
	static struct task_start a;
	int st, rc;
	char c;
	pid_t task;
	bool notify = trace_notify_wanted();
	char *stack = PID1_CAN_SHARE && !notify ? shared_stack() : NULL;

	a.r = r;
	a.p = p;
	a.shared = stack != NULL;
	if (pipe2(a.ready, O_CLOEXEC) || pipe2(a.go, O_CLOEXEC))
		setup_die("unable to make a pipe");
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		setup_die("unable to let pid 1 seize the task");
	forward_task = 0;
	if (a.shared) {
		task = clone(task_main, stack + PID1_STACK + PID1_GUARD, CLONE_VM | SIGCHLD, &a);
	} else {
		task = fork();
		if (task == 0)
			task_main(&a);
	}
	if (task < 0)
		setup_die("unable to fork the task");
	close(a.ready[1]);
	close(a.go[0]);
	if (read(a.ready[0], &c, 1) != 1)
		setup_die("the task died before it could be traced");
	forward_task = -task;
	on_signals(forward_in, 0);
	sigset_t fw;
	forwarded_set(&fw);
	sigprocmask(SIG_UNBLOCK, &fw, NULL);
	if (notify) {
		int listener;
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) || write(a.go[1], "u", 1) != 1 ||
			(listener = trace_notify_parent(task, a.ready[0], a.go[1])) < 0)
			setup_die("unable to take the task's seccomp listener");
		close(a.go[1]);
		if (trace_confine(r))
			setup_die("the kernel refuses the tracer's seccomp filter");
		st = trace_notify_loop(r, p, task, listener);
	} else if (trace_seize(task)) {
		trace_off(r, strerror(errno));
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) || (a.shared && prepare_filters(&a, 'n')) ||
			write(a.go[1], "n", 1) != 1)
			setup_die("unable to start the task");
		close(a.go[1]);
		close(r->trace_fd);
		/* untraced, pid 1 goes under the filter like the task */
		rc = filter_load(&compiled);
		while (waitpid(task, &st, 0) < 0)
			if (errno != EINTR)
				_exit(RUN_EXIT_SETUP);
		(void)rc;
	} else {
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
			setup_die("unable to make the sandbox's pid 1 undumpable");
		if (a.shared && prepare_filters(&a, 't'))
			_exit(RUN_EXIT_SETUP);
		if (trace_confine(r))
			setup_die("the kernel refuses the tracer's seccomp filter");
		if (write(a.go[1], "t", 1) != 1)
			setup_die("unable to start the task");
		close(a.go[1]);
		st = trace_loop(r, p, task);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void __attribute__((noreturn)) sandbox_init(const struct sb_request *r,
	const struct plan *p, int sync, uid_t uid, gid_t gid,
	struct bridge *b)
{
	char c;
	pid_t task;
	int st, rc;
	sigset_t fw;

	/* die with vx-sandbox. It holds the sync pipe's only write end until it
	 * has reaped this process, and never writes: a read finding the pipe
	 * empty (EAGAIN) proves vx-sandbox was alive after the signal was
	 * armed, end of file that it was already gone. No hand-off to wait for. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		setup_die("unable to set the parent-death signal");
	if (read(sync, &c, 1) != -1 || errno != EAGAIN)
		_exit(RUN_EXIT_SETUP);
	close(sync);
	map_ids(uid, gid, r->weaker_nested);
	if (sethostname("vx-sandbox", 10))
		setup_die("unable to set the host name");
	/* the network bridge, before the mounts hide the host's socket path */
	if (bridge_needed(b)) {
		loopback_up();
		if (bridge_start(b))
			_exit(RUN_EXIT_SETUP);
	}
	if (mounts_build(p))
		_exit(RUN_EXIT_SETUP);
	loopback_up();
	/* the caller's session keyring stays outside (keyctl is filtered too) */
	syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
	drop_privileges();
	if (r->trace_fd >= 0) {
		int code = traced(r, p);
		bridge_finish(); /* the relay drains, as after an untraced task */
		_exit(code);
	}
	rc = filter_load(&compiled);
	if (rc) {
		errno = -rc;
		setup_die("the kernel refuses the seccomp filter; fix: run on a kernel "
			"with CONFIG_SECCOMP_FILTER");
	}
	/* vfork: pid 1 waits until the task has exec'd, sharing its memory
	 * meanwhile, instead of copying its page tables and taking a
	 * copy-on-write fault for every page either side writes afterwards
	 * (1 ms a fork on this kind of VM). The signals to forward stay blocked
	 * until pid 1 knows the task's process group. */
	forwarded_set(&fw);
	sigprocmask(SIG_BLOCK, &fw, NULL);
	forward_task = 0;
	task = vfork();
	if (task < 0)
		setup_die("unable to fork the task");
	if (task == 0)
		exec_task(r);
	forward_task = -task; /* the task leads its own process group */
	on_signals(forward_in, 0);
	/* unblocked, not old: vx-sandbox's clone left them blocked too */
	sigprocmask(SIG_UNBLOCK, &fw, NULL);
	for (;;) {
		pid_t w = waitpid(-1, &st, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(RUN_EXIT_SETUP);
		if (w == task)
			break;
	}
	bridge_finish();
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* What pid 1 starts from (clone's argument). */
struct pid1 {
	const struct sb_request *r;
	const struct plan *p;
	struct bridge *b;
	int sync[2];
	uid_t uid;
	gid_t gid;
};

static int pid1_main(void *arg)
{
	struct pid1 *a = arg;
	close(a->sync[1]);
	sandbox_init(a->r, a->p, a->sync[0], a->uid, a->gid, a->b);
}

/* With a stack, pid 1 shares this memory and starts on it; without, it is a
 * fork-like copy going on from here on a copy of this stack. */
static pid_t clone_pid1(int flags, char *stack, struct pid1 *a)
{
	pid_t pid;
	if (stack)
		return clone(pid1_main, stack + PID1_STACK + PID1_GUARD, flags | CLONE_VM, a);
	pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, 0);
	if (pid == 0)
		pid1_main(a);
	return pid;
}

/* Drop what the task's policy does not hand it (R-8a, taskenv.h), before
 * vx-sandbox sets the variables of its own (the bridge's proxies, TMPDIR);
 * vx's VX_ variables are read later and dropped then. */
static void keep_task_env(const cJSON *policy)
{
	struct taskenv te;
	taskenv_of(policy, &te);
	for (size_t i = 0; environ[i];) {
		char *name = NULL;
		if (strncmp(environ[i], "VX_", 3) == 0 || taskenv_allows(&te, environ[i]) ||
			!(name = strndup(environ[i], strcspn(environ[i], "="))) || unsetenv(name) != 0)
			i++;
		free(name);
	}
}

int run_task(const struct sb_request *r, const struct plan *p)
{
	struct pid1 a = {.r = r, .p = p, .uid = getuid(), .gid = getgid()};
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET |
		    CLONE_NEWUTS | SIGCHLD;
	int st;
	bool shared;
	pid_t pid;
	char *stack = NULL;
	struct bridge b = {0};

	a.b = &b;
	if (r->env)
		keep_task_env(r->env);
	if (bridge_prepare(r, &b))
		return RUN_EXIT_SETUP;
	if (r->trace_fd >= 0)
		trace_shim_open();
	if (filter_compiled(r, false, &compiled)) {
		bridge_release(&b);
		return RUN_EXIT_SETUP;
	}
	/* the task's environment, set here so pid 1 allocates nothing for it;
	 * vx's own variables were read (the plan, the tracer's knobs) and are
	 * not the task's: all but the tracer's VX_TRACE_ go */
	for (size_t i = 0; environ[i];)
		if (strncmp(environ[i], "VX_", 3) == 0 && strncmp(environ[i], "VX_TRACE_", 9) != 0) {
			char *name = strndup(environ[i], strcspn(environ[i], "="));
			if (!name || unsetenv(name) != 0)
				i++;
			free(name);
		} else {
			i++;
		}
	if (setenv("TMPDIR", "/tmp", 1) || setenv("PWD", r->project, 1) ||
		(p->git_discovery && setenv("GIT_DISCOVERY_ACROSS_FILESYSTEM", "1", 0))) {
		bridge_release(&b);
		filter_prog_free(&compiled);
		err_warn_errno("unable to set the task's environment");
		return RUN_EXIT_SETUP;
	}
	if (pipe2(a.sync, O_CLOEXEC | O_NONBLOCK)) {
		bridge_release(&b);
		filter_prog_free(&compiled);
		err_warn_errno("unable to make a pipe");
		return RUN_EXIT_SETUP;
	}
	/* Untraced and without a bridge, pid 1 runs in this process's memory
	 * (CLONE_VM, as posix_spawn does): no page table copied, no
	 * copy-on-write fault on either side afterwards, no address space to
	 * tear down at its exit. It only sets up the sandbox, vforks the task
	 * and waits; this process meanwhile only waits for it and forwards
	 * signals, touching no memory pid 1 uses (its own signal variable,
	 * waitpid restarted, not interrupted, so errno stays pid 1's). The
	 * tracer and the bridge's relay read what the task sends: they keep a
	 * copy of their own, so a flaw there cannot reach this process. */
	shared = PID1_CAN_SHARE && r->trace_fd < 0 && !bridge_needed(&b) &&
		 (stack = shared_stack()) != NULL;
	fflush(NULL);
	sigset_t fw, old;
	forwarded_set(&fw);
	sigprocmask(SIG_BLOCK, &fw, &old);
	pid = clone_pid1(flags, shared ? stack : NULL, &a);
	if (pid < 0) {
		int e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(a.sync[0]);
		close(a.sync[1]);
		if (shared)
			munmap(stack, PID1_STACK + PID1_GUARD);
		bridge_release(&b);
		filter_prog_free(&compiled);
		if (e == EPERM || e == ENOSPC || e == EUSERS || e == EINVAL)
			err_warn("the kernel refuses to make a user namespace (%s), so the task "
				"cannot be sandboxed and is not run; fix: allow unprivileged user "
				"namespaces: in a container, a seccomp profile that allows unshare "
				"and clone with CLONE_NEWUSER (Docker's default refuses them), or "
				"--privileged; on the host, sysctl kernel.unprivileged_userns_clone=1, "
				"user.max_user_namespaces > 0, "
				"kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor "
				"profile allowing userns; inside vx's own sandbox, weakerWhenNested; "
				"or drop exec.sandbox (docs/security.md, \"When the kernel refuses "
				"the sandbox\")", strerror(e));
		else
			err_warn("unable to make the sandbox's namespaces: %s", strerror(e));
		return RUN_EXIT_SETUP;
	}
	close(a.sync[0]);
	if (!shared)
		bridge_release(&b);
	forward_pid1 = pid;
	on_signals(forward_out, SA_RESTART);
	sigprocmask(SIG_SETMASK, &old, NULL); /* what came meanwhile goes to pid 1 now */
	/* pid 1 stays unreaped (WNOWAIT) until nothing forwards to it any
	 * more: its pid cannot have gone to another process meanwhile */
	for (;;) {
		siginfo_t si = {0};
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0) {
			forward_pid1 = 0;
			if (waitpid(pid, &st, 0) == pid)
				break;
		}
		if (errno != EINTR) {
			close(a.sync[1]);
			err_warn_errno("unable to wait for the sandbox");
			return RUN_EXIT_SETUP;
		}
	}
	close(a.sync[1]);
	/* pid 1 ends with _exit; killed instead (from the host: nothing in
	 * the sandbox can signal it so), it may have stopped inside malloc with
	 * the shared heap half-updated: sweep the placeholders (no allocation)
	 * and leave without touching the heap again. */
	if (shared && WIFSIGNALED(st)) {
		plan_sweep(p, true);
		_exit(128 + WTERMSIG(st));
	}
	if (shared)
		munmap(stack, PID1_STACK + PID1_GUARD);
	bridge_release(&b);
	filter_prog_free(&compiled);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
