/* child.h's timed wait on real children: one that has exited is reaped at
 * once with its status, one still running is left running after the
 * timeout, and a pid that is no child is -1. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "err.h"
#include "unit.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static pid_t spawn_sh(const char *script)
{
	char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
	struct spawn_opts o = {0};
	return child_start(argv, &o, NULL, NULL);
}

int main(void)
{
	int st = -1;
	double t0;
	pid_t pid;
	err_init("test_child");

	/* exits soon: reaped when it exits, well before the timeout */
	pid = spawn_sh("sleep 0.1; exit 7");
	CHECK(pid > 0);
	t0 = now_ms();
	CHECK(child_wait_for(pid, 10000, &st) == pid);
	CHECK(now_ms() - t0 < 5000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);

	/* still running at the timeout: 0, and it is still there to stop */
	pid = spawn_sh("exec sleep 30");
	CHECK(pid > 0);
	t0 = now_ms();
	CHECK(child_wait_for(pid, 100, NULL) == 0);
	CHECK(now_ms() - t0 >= 90);
	CHECK(kill(pid, 0) == 0);
	kill(pid, SIGKILL);
	CHECK(child_wait_for(pid, 10000, &st) == pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	/* reaped already: nothing to wait for */
	CHECK(child_wait_for(pid, 100, NULL) == -1);
	return UNIT_END("child");
}
