/* runtime.h: one cache.inputs.runtime command, run for the key.
 *
 * An unsandboxed task's command runs under /bin/sh -c in its project
 * directory, with stdin /dev/null, as the task itself would run. A sandboxed
 * task's command runs inside that task's own sandbox (issue 20 item 2: a
 * command vx-key runs, --dry and `vx-graph | vx-key` included, has no more
 * reach than the task): vx-sandbox, found beside the running program, gets
 * the graph record and the task's record with its command replaced by the
 * runtime command, through a memfd (no file in a shared directory), so the
 * same grants, walls, credential stores and cwd apply; it has no proxy, so
 * no network. A vx-sandbox that cannot be found or started is a refusal:
 * the command never runs on the host instead.
 *
 * The result is the XXH3-128 of its stdout, followed by "\0exit N" when its
 * status N is not 0 (vx-sandbox's own failure is 125). */
#ifndef VX_KEY_RUNTIME_H
#define VX_KEY_RUNTIME_H

#include <stdint.h>

#include <cjson/cJSON.h>

/* root: the workspace root; dir: the project, root-relative. graph: the
 * graph record line for vx-sandbox; task: the task's record, or NULL for an
 * unsandboxed task. 0 with hash and *code, or -1 after one message naming
 * the task when a sandboxed command cannot be run in its sandbox. */
int runtime_exec(const char *root, const char *dir, const char *cmd, const char *graph,
	const cJSON *task, uint8_t hash[16], int *code);

#endif
