/* proc.h: starting the stages and the tasks of a run.
 *
 * proc_stage_path names a stage program beside the running vx. proc_spawn
 * is libcommon's child_start (child.h: pipes, cwd, process group, stderr)
 * with the driver's policy: a child given no environment gets a stage's
 * (proc_env(PROC_ENV_STAGE)), never vx's own credentials.
 */
#ifndef VX_BIN_PROC_H
#define VX_BIN_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "child.h"

char *proc_stage_path(const char *name);
/* Returns the pid, or -1 with errno set. envp NULL: proc_env(PROC_ENV_STAGE). */
pid_t proc_spawn(char *const argv[], const struct spawn_opts *o, int *to_child, int *from_child);

/* The paths a run hands down, resolved once, here, from the directory vx
 * started in: VX_CACHE_DIR and TMPDIR, when relative, are made absolute in
 * vx's own environment, so every module, stage and task reading them sees
 * the same place (vx-sandbox, which refuses a grant over the cache, runs in
 * the project). Called before anything reads them. */
void proc_env_resolve(void);

/* Who gets which of vx's variables (docs/protocol.md, "The task's
 * environment"). A stage (vx-graph, vx-key, vx-proxy, vx-watch) gets vx's
 * environment minus vx's credentials: every VX_REMOTE_ variable and any
 * VX_ name ending in _TOKEN, _KEY, _SECRET or _PASSWORD. A task gets it
 * minus every VX_ variable (vx's configuration and credentials alike), PATH
 * replaced by path (a "PATH=..." string). vx-sandbox, which hands its own
 * environment to the task, gets the task's plus the VX_ variables that are
 * no credential (VX_CACHE_DIR and its knobs; it drops them for the task).
 * A task is also handed only what te allows (R-8a, taskenv.h; NULL: all);
 * vx-sandbox applies its task's policy itself, from the request.
 * A malloc'd NULL-terminated array pointing into environ and at path: the
 * caller frees the array only. */
enum proc_env_for { PROC_ENV_STAGE, PROC_ENV_TASK, PROC_ENV_SANDBOX };
struct taskenv;
char **proc_env(enum proc_env_for who, char *path, const struct taskenv *te);

#endif
