/* child.h: the one way a vx program starts another (a stage, a task, git,
 * diff, a runtime command); stage.h then talks to a started stage.
 *
 * child_start starts argv (argv[0] the program's path, or o->path) with
 * posix_spawn, so the parent's memory is neither copied nor write-protected
 * (glibc runs the child on it, CLONE_VM|CLONE_VFORK, until the exec), and a
 * failed exec, chdir or open is the call's own failure, not a child that
 * exits 127. The child starts with no signal blocked and SIGPIPE, SIGINT
 * and SIGTERM at their defaults, whatever the caller ignores. Its stdin and
 * stdout may be new pipes (to_child, from_child: NULL leaves that one to
 * the options); the caller owns the pipe ends it gets back and every other
 * fd it passes in. Every fd the child gets but 0-2 (and pass_fd's 3) is
 * left to close-on-exec: open them all O_CLOEXEC.
 */
#ifndef VX_CHILD_H
#define VX_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct spawn_opts {
	const char *cwd;         /* NULL: inherit */
	char *const *envp;       /* NULL: inherit (environ) */
	bool own_group;          /* setpgid(0, 0) */
	bool merge_stderr;       /* stderr to the same pipe as stdout */
	bool null_stdin;         /* stdin from /dev/null (when to_child is NULL) */
	int in_fd;               /* > 0: the child's stdin (when to_child is NULL) */
	int out_fd;              /* > 0: the child's stdout (when from_child is NULL) */
	int err_fd;              /* > 0: the child's stderr (unless merge_stderr) */
	int cwd_fd;              /* > 0: the child's directory (fchdir), after cwd */
	int pass_fd;             /* > 0: open in the child as its fd 3 */
	bool search_path;        /* argv[0] found in PATH as execvp does */
	const char *path;        /* the program, when argv[0] is not its path */
};

/* The pid, or -1 with errno set (nothing left open then). */
pid_t child_start(char *const argv[], const struct spawn_opts *o, int *to_child,
	int *from_child);
/* Wait for pid (EINTR retried): its exit status as the shell says it
 * (err_wait_status), or -1 when there was none to wait for. */
int child_wait(pid_t pid);
/* Wait up to timeout_ms for pid to exit, and reap it: the pid (its wait
 * status in *status, which may be NULL), 0 while it still runs, -1 when
 * there was none to wait for. */
pid_t child_wait_for(pid_t pid, int timeout_ms, int *status);

#endif
