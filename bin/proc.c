#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"

char *proc_stage_path(const char *name)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		err_die_errno(VX_EXIT_FAIL, "unable to find the vx program");
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	*slash = '\0';
	return xasprintf("%s/%s", buf, name);
}

pid_t proc_spawn(char *const argv[], const struct spawn_opts *o, int *to_child, int *from_child)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1};
	if (to_child && pipe2(in, O_CLOEXEC) != 0)
		return -1;
	if (from_child && pipe2(out, O_CLOEXEC) != 0) {
		int e = errno;
		if (to_child) {
			close(in[0]);
			close(in[1]);
		}
		errno = e;
		return -1;
	}
	/* errors between fork and exec reach the parent through this pipe */
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int e;
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (o->own_group)
			setpgid(0, 0);
		if (to_child)
			dup2(in[0], 0);
		else if (o->in_fd > 0)
			dup2(o->in_fd, 0);
		else if (o->null_stdin) {
			int fd = open("/dev/null", O_RDONLY);
			if (fd >= 0 && fd != 0) {
				dup2(fd, 0);
				close(fd);
			}
		}
		if (from_child) {
			dup2(out[1], 1);
			if (o->merge_stderr)
				dup2(out[1], 2);
		}
		if (o->cwd && chdir(o->cwd) != 0)
			goto fail;
		if (o->envp)
			execve(argv[0], argv, o->envp);
		else
			execv(argv[0], argv);
fail:
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(ep[1]);
	int child_errno = 0;
	ssize_t r;
	while ((r = read(ep[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (to_child) {
		close(in[0]);
		*to_child = in[1];
	}
	if (from_child) {
		close(out[1]);
		*from_child = out[0];
	}
	if (r > 0) {
		/* exec failed: reap the child and report */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (to_child)
			close(*to_child);
		if (from_child)
			close(*from_child);
		errno = child_errno;
		return -1;
	}
	return pid;
}
