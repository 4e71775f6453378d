/* bench/spawncost.c: what starting a process costs on this machine, the
 * figures docs/benchmarks.md "Session 16" quotes. Not part of make; run:
 *   cc -O2 -o /tmp/spawncost bench/spawncost.c
 *   /tmp/spawncost fork          fork + _exit + waitpid of this small process
 *   /tmp/spawncost clonevm       the same child made with CLONE_VM
 *   /tmp/spawncost preload [SO]  posix_spawn of /bin/true with SO (e.g.
 *                                bin/vx-trace.so) in LD_PRELOAD, or none
 * Each prints the wall time per process, averaged over N (default 300;
 * VX_BENCH_N). Run the sides one after another, several rounds. */
#define _GNU_SOURCE
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int child(void *arg)
{
	(void)arg;
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *n_env = getenv("VX_BENCH_N");
	int n = n_env ? atoi(n_env) : 300;
	double t;
	if (argc < 2 || n <= 0) {
		fputs("usage: spawncost fork|clonevm|preload [SO]\n", stderr);
		return 2;
	}
	t = now_us();
	if (!strcmp(argv[1], "fork")) {
		for (int i = 0; i < n; i++) {
			pid_t p = fork();
			if (p == 0)
				_exit(0);
			waitpid(p, NULL, 0);
		}
	} else if (!strcmp(argv[1], "clonevm")) {
		size_t sz = 1 << 20;
		char *st = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (st == MAP_FAILED)
			return 1;
		for (int i = 0; i < n; i++)
			waitpid(clone(child, st + sz, CLONE_VM | SIGCHLD, NULL), NULL, 0);
	} else if (!strcmp(argv[1], "preload")) {
		static char pre[4096];
		char *env[] = {pre, "PATH=/usr/bin:/bin", NULL}, *av[] = {"/bin/true", NULL};
		snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", argc > 2 ? argv[2] : "");
		for (int i = 0; i < n; i++) {
			pid_t p;
			if (posix_spawn(&p, av[0], NULL, NULL, av, env))
				return 1;
			waitpid(p, NULL, 0);
		}
	} else {
		fputs("usage: spawncost fork|clonevm|preload [SO]\n", stderr);
		return 2;
	}
	printf("%s%s%s %.1f us a process\n", argv[1], argc > 2 ? " " : "", argc > 2 ? argv[2] : "",
		(now_us() - t) / n);
	return 0;
}
