/* key.h: a task's key and what it folded.
 *
 * The key is XXH3-128 over a versioned message of length-prefixed fields,
 * so no two different inputs give the same bytes:
 *   "vx-key 1", kind, command,
 *   per input file (sorted by path): path, content hash (a symlink hashes
 *     "link\0" and its target),
 *   per inputs.env name: name, then 1+value or 0 when unset,
 *   per inputs.runtime command: command, exit status, stdout,
 *   the project's package.json hash (or "absent"),
 *   per root lockfile present (package-lock.json, yarn.lock, pnpm-lock.yaml,
 *     bun.lock, bun.lockb, pnpm-workspace.yaml): name, hash,
 *   per folded dependency (sorted by id): id, key.
 * A group folds only "group", its id and its folds. Paths are relative to
 * the project (inputs.files) or the root (workspaceFiles): nothing absolute,
 * no mtime or inode, so a copy of the workspace elsewhere has the same keys.
 */
#ifndef VX_KEY_KEY_H
#define VX_KEY_KEY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "inputs.h"
#include "strmap.h"

struct keyer {
	struct inputs_ctx in;
	struct strmap keys;     /* task id -> char[33] key, as last computed */
	struct strmap runtime;  /* "dir\0cmd" -> cached stdout hash + status */
	struct strmap records;  /* task id -> cJSON task record, for the reach rule */
	char *fingerprint;      /* hex, computed once per process */
};

void key_init(struct keyer *k, const char *root, cJSON *graph);
/* Adds "key" (and "explain" when asked) to the task record; -1 after a
 * message on a problem that leaves no key. */
int key_task(struct keyer *k, cJSON *rec, bool explain);
/* R-9a: may an upstream task still write rec's inputs? */
bool key_final(struct keyer *k, const cJSON *rec);

#endif
