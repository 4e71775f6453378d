/* proc.h: starting the stages and the tasks of a run.
 *
 * proc_stage_path names a stage program beside the running vx. proc_spawn
 * starts argv with its stdin and stdout connected to new pipes (either may be
 * left alone by passing NULL), in its own process group when own_group is
 * set, with cwd and extra environment when given. The caller owns the pipe
 * ends it gets back; every fd is close-on-exec except the child's 0-2.
 */
#ifndef VX_BIN_PROC_H
#define VX_BIN_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct spawn_opts {
	const char *cwd;         /* NULL: inherit */
	char *const *envp;       /* NULL: inherit */
	bool own_group;          /* setpgid(0, 0) */
	bool merge_stderr;       /* stderr to the same pipe as stdout */
	bool null_stdin;         /* stdin from /dev/null (when to_child is NULL) */
	int in_fd;               /* > 0: the child's stdin (when to_child is NULL) */
};

char *proc_stage_path(const char *name);
/* Returns the pid, or -1 with errno set. */
pid_t proc_spawn(char *const argv[], const struct spawn_opts *o, int *to_child, int *from_child);

#endif
