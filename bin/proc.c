#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "path.h"

extern char **environ;

void proc_env_resolve(void)
{
	static const char *const names[] = {"VX_CACHE_DIR", "TMPDIR"};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const char *v = getenv(names[i]);
		if (!v || !*v || *v == '/')
			continue;
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			err_die_errno(VX_EXIT_FAIL, "%s '%s' is relative and the working directory "
				"is unknown; fix: an absolute path", names[i], v);
		char *abs = path_join(cwd, v);
		if (setenv(names[i], abs, 1) != 0)
			err_die_errno(VX_EXIT_FAIL, "setenv %s", names[i]);
		free(abs);
		free(cwd);
	}
}

/* "NAME=value": one of vx's own credentials? */
static bool credential(const char *e)
{
	static const char *const ends[] = {"_TOKEN", "_KEY", "_SECRET", "_PASSWORD"};
	if (strncmp(e, "VX_", 3) != 0)
		return false;
	if (strncmp(e, "VX_REMOTE_", 10) == 0)
		return true;
	const char *eq = strchr(e, '=');
	size_t n = eq ? (size_t)(eq - e) : strlen(e);
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t k = strlen(ends[i]);
		if (n >= k && memcmp(e + n - k, ends[i], k) == 0)
			return true;
	}
	return false;
}

char **proc_env(enum proc_env_for who, char *path)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = xcalloc(n + 2, sizeof(char *)), **o = envp;
	if (who != PROC_ENV_STAGE && path)
		*o++ = path;
	for (char **e = environ; *e; e++) {
		bool vx = strncmp(*e, "VX_", 3) == 0;
		if (credential(*e) || (vx && who == PROC_ENV_TASK) ||
			(who != PROC_ENV_STAGE && path && strncmp(*e, "PATH=", 5) == 0))
			continue;
		*o++ = *e;
	}
	*o = NULL;
	return envp;
}

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

/* posix_spawn, not fork: glibc's runs the child on the parent's memory
 * (CLONE_VM|CLONE_VFORK) until it execs, so the parent's pages are neither
 * copied nor write-protected. After a fork every page the driver had touched
 * (the graph, the key records) took a copy-on-write fault on its next write:
 * 4,000 faults of an all-hit rerun, a third of its CPU on this machine. */
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
	if (from_child) {
		posix_spawn_file_actions_adddup2(&fa, out[1], 1);
		if (o->merge_stderr)
			posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	}
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	pid_t pid;
	char **stage = o->envp ? NULL : proc_env(PROC_ENV_STAGE, NULL);
	int e = posix_spawn(&pid, argv[0], &fa, &at, argv, o->envp ? o->envp : stage);
	free(stage);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
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
