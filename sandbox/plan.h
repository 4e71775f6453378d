/* plan.h: from a request to the list of mounts that make the boundary.
 *
 * plan_build() runs on the host, before any namespace exists: it expands the
 * grants, creates the write grants' paths and placeholders,
 * refuses the grants R-26 forbids, and returns a plan: mount operations
 * sorted so that every operation comes after the one whose path holds it
 * (its parent). A path is both the bind's source and its target: the sandbox
 * sees each granted path where the host has it. The plan owns its strings.
 *
 * A mask (an empty tmpfs, read-only once filled) gets, before it is sealed,
 * one mount point for each operation whose parent it is; so a grant inside
 * the masked workspace root has somewhere to land and nothing else shows.
 */
#ifndef VX_SANDBOX_PLAN_H
#define VX_SANDBOX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "request.h"

enum op_kind {
	OP_DIR,       /* only a mount point in its mask (the task's cwd) */
	OP_MASK,      /* an empty read-only tmpfs over a directory */
	OP_MASK_FILE, /* an empty read-only file over a file */
	OP_SCRATCH,   /* an empty writable tmpfs (the private /tmp) */
	OP_TEMP,      /* the same over a write glob's directory that matched
	               * nothing under a mask (issue 19 item 9): the task's
	               * own, gone at its exit; a failed access there is still
	               * judged (trace.h: neither read- nor write-granted) */
	OP_CACHE,     /* an empty writable tmpfs over a tool's cache directory
	               * (plan_walls.c, tool_caches): the task's own, read and
	               * written freely, never the host's, gone at its exit */
	OP_RO,        /* the host path bound read-only */
	OP_RW,        /* the host path bound read-write */
};

struct op {
	enum op_kind kind;
	char *path;     /* absolute, canonical on the host */
	bool isdir;     /* the host path is a directory (masks: always) */
	bool protect;   /* a protected config inside a write grant */
	dev_t dev;      /* binds: the host inode, re-checked in the sandbox */
	ino_t ino;
	int parent;     /* index of the nearest op holding this path, or -1 */
};

struct placeholder {
	char *path;
	char *grant;    /* the grant as written, for the dir/ hint */
	struct timespec mtime;
};

/* An empty file (mode 0000; 0404 in $HOME) or directory (0555) made to
 * hold the name of a protected config absent at start; removed by
 * plan_sweep. */
struct guard {
	char *path;
	bool isdir;
	mode_t fmode; /* a file guard's mode */
};

struct plan {
	struct op *ops;
	size_t nops, cap;
	struct placeholder *ph;
	size_t nph, phcap;
	struct guard *guards;
	size_t ng, gcap;
	bool git_discovery; /* a grant names a .git */
	bool nested;        /* weakerWhenNested: /proc stays fully visible */
	/* for the tracer (trace.h): every path a read grant binds, and every
	 * file-shaped write grant, whose directory is bound in its place,
	 * with the grant as written (wfgrant[i] for wfiles.v[i]) */
	struct strlist readable, wfiles, wfgrant;
	/* issue 35 item 5: the directories only a file grant binds (no
	 * directory-shaped write grant holds them), where a write to anything
	 * but a granted file is reported; what a directory-shaped write grant
	 * binds; each write glob as an absolute pattern (a new name it
	 * matches is granted) */
	struct strlist fdirs, wdirs, wglobs;
	/* each link withheld from a cached task, then its target */
	struct strlist withheld;
	/* directories made to hold a guard in $HOME (issue 20 item 10),
	 * shallowest first; the sweep removes the ones left empty */
	struct strlist made;
};

/* R-25a, before plan_build: 0, or -1 after one line for each write grant
 * reaching $HOME, ~/.config, ~/.local or a PATH directory (homegrant.h),
 * judged against this process's HOME and PATH, the task's own. */
int plan_check_home_writes(const struct sb_request *r);
/* 0, or -1 after printing one line for a refused grant or a failed step. */
int plan_build(const struct sb_request *r, struct plan *p);
/* Remove the placeholders the task never wrote (when it failed, say for each
 * that a directory is spelled dir/, R-22) and the guards of absent configs. */
void plan_sweep(const struct plan *p, bool failed);
/* Is the placeholder still as made: an empty file, its mtime unchanged? */
bool plan_placeholder_untouched(const struct placeholder *ph);
void plan_free(struct plan *p);

/* Exposed for the unit tests. */
/* Sort order with '/' before every other byte, so a directory's operations
 * follow it directly. */
int plan_path_cmp(const char *a, const char *b);
/* Expand one absolute pattern (collapsed, not unescaped) into the existing
 * paths it matches; a literal yields itself when it exists. */
void plan_expand(const char *pat, struct strlist *out);

#endif
