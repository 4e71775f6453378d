/* bench/nsfloor.c: the kernel's price of the namespaces a sandboxed task gets,
 * with nothing else: no mounts, no tracer, no exec. The floor under issue 38
 * item 2's per-task cost. Not part of make; run (as root, or as a user
 * allowed user namespaces):
 *   cc -O2 -o /tmp/nsfloor bench/nsfloor.c
 *   /tmp/nsfloor fork     fork + _exit + waitpid (the baseline)
 *   /tmp/nsfloor ns       clone with new user, mount, pid, ipc, uts namespaces
 *   /tmp/nsfloor net      the same plus a new network namespace
 *   /tmp/nsfloor netlo    the same, the child bringing its loopback up
 * Each makes N children one after another (default 2000; VX_BENCH_N) and
 * prints the wall time and the machine's CPU per child: all cores' busy
 * time from /proc/stat, so the kernel's asynchronous network namespace
 * teardown (kworker, cleanup_net) is counted, after a settle of 2 s that
 * is counted too. Run on an idle machine, each mode a few rounds, and
 * subtract `fork`. */
#define _GNU_SOURCE
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* all cores' non-idle time, ms */
static double busy_ms(void)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[10] = {0};
	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			 &v[3], &v[4], &v[5], &v[6], &v[7]) != 8) {
		perror("/proc/stat");
		exit(1);
	}
	fclose(f);
	unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return busy * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static int lo_up;

static int child(void *arg)
{
	(void)arg;
	if (lo_up) {
		int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct ifreq r;
		memset(&r, 0, sizeof r);
		strcpy(r.ifr_name, "lo");
		r.ifr_flags = IFF_UP | IFF_RUNNING;
		if (s < 0 || ioctl(s, SIOCSIFFLAGS, &r) != 0)
			_exit(3);
		close(s);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fork";
	int n = getenv("VX_BENCH_N") ? atoi(getenv("VX_BENCH_N")) : 2000;
	int flags = 0;
	if (strcmp(mode, "fork") == 0)
		flags = 0;
	else if (strcmp(mode, "ns") == 0)
		flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
	else if (strcmp(mode, "net") == 0 || strcmp(mode, "netlo") == 0)
		flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
			CLONE_NEWNET;
	else {
		fprintf(stderr, "usage: nsfloor fork|ns|net|netlo\n");
		return 2;
	}
	lo_up = strcmp(mode, "netlo") == 0;
	static char stack[64 * 1024];
	sleep(2);
	double b0 = busy_ms(), t0 = now_ms();
	for (int i = 0; i < n; i++) {
		pid_t p = clone(child, stack + sizeof stack, flags | SIGCHLD, NULL);
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "nsfloor: child %d failed\n", i);
			return 1;
		}
	}
	double t1 = now_ms();
	sleep(2); /* the teardown of the last namespaces, counted */
	double b1 = busy_ms();
	printf("%-6s wall %.3f ms a child, machine CPU %.3f ms a child (n=%d)\n", mode,
	       (t1 - t0) / n, (b1 - b0) / n, n);
	return 0;
}
