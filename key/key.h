/* key.h: a task's key, what it folded, and whether it is final
 * (R-9a).
 *
 * The key is XXH3-128 over a message of fields, each written as a u64
 * little-endian length and its bytes, lists as a u64 count then their items,
 * so two different inputs never give the same bytes:
 *   "vx-key 3", kind,
 *   exec:  "command", command;
 *          "sandbox", 0 | 1 then exec.sandbox in its canonical spelling
 *            (canon.h: members sorted, lists as sets, defaults dropped);
 *          "files", n, (project-relative path, content hash)* sorted by path
 *            (a symlink's content hash covers "link\0" + its target);
 *          "workspaceFiles", n, (root-relative path, content hash)* sorted
 *            (nested projects are no wall here: the globs are the user's;
 *            one that selects no file is a warning, once per task and glob);
 *          "env", n, (name, 0 | 1 then value)* sorted by name;
 *          "runtime", n, (command, hash of stdout, and of the exit status
 *            when it is not 0)* sorted by command;
 *          "package", 0 | 1 then the hash of the project's package.json;
 *          "workspace", the fingerprint: hash of n, (name, hash)* over the
 *            root lockfiles present (package-lock.json, yarn.lock,
 *            pnpm-lock.yaml, bun.lock, bun.lockb, pnpm-workspace.yaml);
 *   group: "id", the task id;
 *   both:  "deps", n, (id, key)* of the folds, sorted by id.
 * Hashes are the 16 canonical bytes of XXH3-128. Paths are relative and no
 * stat field folds in, so a copy of the workspace has the same keys.
 *
 * Final: a key taken ahead of the run may still move when an upstream task
 * (a transitive dependency) may write what it reads. Where a task may write
 * (the reference's undeclaredWriteReach): a group nowhere; a cached exec task
 * its declared outputs; a sandboxed one its allow.write grants (none without
 * grants; those outside the workspace reach nothing); an unsandboxed uncached
 * exec task, or an unsandboxed persistent one, its whole project. What a task
 * reads: its inputs.files under its project, its package.json, its
 * workspaceFiles and the root lockfiles; a task folding a key that is not
 * final is not final either. Globs are compared by their static prefixes
 * (glob_static_prefix: its leading segments free of magic), which can only overstate an
 * overlap, never miss one. The records of earlier tasks are kept for this.
 */
#ifndef VX_KEY_KEY_H
#define VX_KEY_KEY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "inputs.h"
#include "wsroot.h"
#include "strbuf.h"
#include "strmap.h"

/* The members of the task record being keyed that key.c reads, found in
 * one pass (the first of each name, as cJSON's lookup by name finds). */
struct key_fields {
	const cJSON *id, *kind, *dir, *name, *config, *command, *sandbox, *cache, *keyed;
	const cJSON *folds, *deps, *env_mode, *pass_env, *explained_key;
};

struct keyer {
	struct inputs_ctx in;
	struct strmap tasks;   /* task id -> struct task (key.c) */
	struct strmap runtime; /* "dir\ncmd" -> struct runtime_out (key.c) */
	char *graph;           /* the graph record for vx-sandbox (runtime.h) */
	struct strmap warned;  /* "id\nglob": unmatched workspaceFiles said once */
	bool live;             /* inputs may change between records */
	bool stamps;           /* add each exec task's "stamp" (--stamp, --live) */
	bool have_fp;
	bool fp_linked;        /* a root lockfile has more than one hard link */
	unsigned char fp[16]; /* the workspace fingerprint, once per batch */
	struct stat fp_st[WSROOT_NFINGERPRINT]; /* the root lockfiles it went by */
	bool fp_present[WSROOT_NFINGERPRINT];
	struct inputstamp stamp; /* the task being keyed's (inputstamp.h) */
	struct strbuf msg;     /* the key message being gathered (key.c) */
	struct key_fields rf;  /* the record being keyed's (key.c) */
	struct inputs files;   /* fold_files' list, its buffers kept between tasks */
	unsigned mark;        /* walk stamp for the final rule */
	struct statcache *early; /* key_prepare's, until key_init */
	char *early_root;
};

/* Optional, on a zeroed keyer before key_init: load root's stat cache (and
 * start its preload unless live) while the graph record is still on its
 * way. key_init keeps it when the graph's root is the same directory and
 * drops it unused otherwise. */
void key_prepare(struct keyer *k, const char *root, bool live);
/* A guess for key_prepare when no root is given: the nearest directory from
 * the current one up that holds a stat cache (.vx/key-stat), or NULL. */
char *key_guess_root(void);
/* root: the workspace root; graph: the graph record (its projects list). */
void key_init(struct keyer *k, const char *root, const cJSON *graph, bool live);
/* Add "key", "final" (and "explain" when asked) to a task record. where is
 * "<stdin>:N" for input errors. -1 after one message when no key can be
 * given (a malformed record, an unknown fold, an unreadable file). */
int key_task(struct keyer *k, cJSON *rec, bool explain, const char *where);
/* Files outside any one task's inputs may have changed (a task ran): read
 * the workspace fingerprint again before the next key. */
void key_rescan(struct keyer *k);
void key_free(struct keyer *k);

#endif
