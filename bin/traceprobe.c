/* traceprobe.c: may this run trace its sandboxed tasks? (see traceprobe.h) */
#include "traceprobe.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"

/* The probe's processes share vx's memory (CLONE_VM, as vx-sandbox's pid 1
 * shares it with the task it seizes): no page table copied, ~0.1 ms.
 * AddressSanitizer knows one stack per thread and faults on a clone running
 * on another: a sanitized build forks copies instead, the answer in a
 * shared mapping. */
#ifdef __SANITIZE_ADDRESS__
#define PROBE_SHARES false
#else
#define PROBE_SHARES true
#endif
#define PROBE_STACK (64 * 1024)

struct probe_area {
	char stack[2][PROBE_STACK]; /* the prober's, the target's */
	int answer;                 /* the seize's errno, 0: seized */
};

static struct probe_area *area;

/* fn on stack in a new process that ends with the call (exit signal
 * none: vx's SIGCHLD handler is not woken; reaped with __WALL). */
static pid_t start(int (*fn)(void *), char *stack, int flags)
{
	if (PROBE_SHARES)
		return clone(fn, stack + PROBE_STACK, flags, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if ((flags & CLONE_NEWUSER) && unshare(CLONE_NEWUSER)) {
			/* as below: the probe answers for this namespace */
		}
		_exit(fn(NULL));
	}
	return pid;
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR) {
	}
}

/* The target: waits to be seized, then killed. */
static int idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* Seize a new child of this process before it runs anything of its own:
 * the errno, 0 when seized. Only system calls (vx has threads; the memory
 * is shared). */
static int seize_child(void)
{
	int e = 0;
	pid_t g = start(idle, area->stack[1], CLONE_VM);
	if (g < 0)
		return 0; /* no answer */
	if (ptrace(PTRACE_SEIZE, g, NULL, NULL))
		e = errno;
	kill(g, SIGKILL);
	reap(g);
	return e;
}

static int prober(void *arg)
{
	(void)arg;
	area->answer = seize_child();
	return 0;
}

static int probe(void)
{
	/* private is shared enough between processes of one memory */
	area = mmap(NULL, sizeof(*area), PROT_READ | PROT_WRITE,
		(PROBE_SHARES ? MAP_PRIVATE : MAP_SHARED) | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (area == MAP_FAILED)
		return 0; /* no answer: the sandbox's own "off" record still keeps the save out */
	/* vx seizing a child of its own: refused under strace -f (the child is
	 * strace's already), yama scope 3, a policy refusing ptrace */
	int e = seize_child();
	if (e == EPERM) {
		/* vx-sandbox's pid 1 seizes from a new user namespace, where it
		 * holds CAP_SYS_PTRACE (yama scope 2 lets it): asked there too */
		pid_t c = start(prober, area->stack[0], CLONE_VM | CLONE_VFORK | CLONE_NEWUSER);
		if (c > 0) {
			reap(c);
			e = area->answer;
		}
	}
	munmap(area, sizeof(*area));
	area = NULL;
	return e;
}

int traceprobe_refused(void)
{
	static bool probed;
	static int refused;
	if (!probed) {
		refused = probe();
		probed = true;
	}
	return refused;
}

char *traceprobe_line(const char *why)
{
	static bool said;
	if (said)
		return NULL;
	said = true;
	return xasprintf("sandboxed tasks are neither saved to nor restored from the cache this "
			 "run: the kernel refuses to let vx trace them (ptrace: %s), so what they "
			 "read and wrote past their grants goes unchecked; they still run "
			 "sandboxed, judged on their exit status; fix: run vx outside strace or a "
			 "debugger that follows its children, with kernel.yama.ptrace_scope below "
			 "3, and in a container, with a seccomp profile that allows ptrace "
			 "(docs/security.md, \"Untraced sandboxed tasks\")",
		why);
}
