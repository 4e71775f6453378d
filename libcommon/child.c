#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"

extern char **environ;

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

pid_t child_start(char *const argv[], const struct spawn_opts *o, int *to_child,
	int *from_child)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, pass = -1;
	if ((to_child && pipe2(in, O_CLOEXEC) != 0) ||
		(from_child && pipe2(out, O_CLOEXEC) != 0) ||
		/* dup2 onto itself would leave it close-on-exec: from above 3 */
		(o->pass_fd > 0 && (pass = fcntl(o->pass_fd, F_DUPFD_CLOEXEC, 4)) < 0)) {
		int e = errno;
		close_pair(in);
		close_pair(out);
		errno = e;
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	sigset_t none, dfl;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	if (o->own_group) {
		flags |= POSIX_SPAWN_SETPGROUP;
		posix_spawnattr_setpgroup(&at, 0);
	}
	posix_spawnattr_setflags(&at, flags);
	if (to_child)
		posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	else if (o->in_fd > 0)
		posix_spawn_file_actions_adddup2(&fa, o->in_fd, 0);
	else if (o->null_stdin)
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (from_child)
		posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	else if (o->out_fd > 0)
		posix_spawn_file_actions_adddup2(&fa, o->out_fd, 1);
	if (from_child && o->merge_stderr)
		posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	else if (o->err_fd > 0)
		posix_spawn_file_actions_adddup2(&fa, o->err_fd, 2);
	if (pass >= 0)
		posix_spawn_file_actions_adddup2(&fa, pass, 3);
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	if (o->cwd_fd > 0)
		posix_spawn_file_actions_addfchdir_np(&fa, o->cwd_fd);
	pid_t pid;
	const char *prog = o->path ? o->path : argv[0];
	char *const *envp = o->envp ? o->envp : environ;
	int e = o->search_path ? posix_spawnp(&pid, prog, &fa, &at, argv, envp)
			       : posix_spawn(&pid, prog, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (pass >= 0)
		close(pass);
	if (to_child) {
		close(in[0]);
		if (e == 0)
			*to_child = in[1];
		else
			close(in[1]);
	}
	if (from_child) {
		close(out[1]);
		if (e == 0)
			*from_child = out[0];
		else
			close(out[0]);
	}
	if (e != 0) {
		errno = e;
		return -1;
	}
	return pid;
}

int child_wait(pid_t pid)
{
	int st;
	if (pid <= 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return err_wait_status(st);
}

pid_t child_wait_for(pid_t pid, int timeout_ms, int *status)
{
	int st, pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	pid_t w;
	if (pfd >= 0) {
		/* woken the moment it exits: a sleep-and-check loop adds its
		 * period to every wait */
		struct pollfd p = {.fd = pfd, .events = POLLIN};
		while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
			;
		close(pfd);
		while ((w = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
			;
	} else { /* a kernel before 5.3, or no such child */
		const struct timespec slice = {0, 2000000};
		for (int waited = 0; (w = waitpid(pid, &st, WNOHANG)) == 0 && waited < timeout_ms;
			waited += 2)
			nanosleep(&slice, NULL);
	}
	if (w > 0 && status)
		*status = st;
	return w;
}
