/* inputs.h: a task's input files and their content hashes.
 *
 * inputs_collect lists the files under base (root-relative, "." for the root)
 * that the globs select ("!" entries exclude, last match wins), leaving out
 * node_modules/, .git/, .vx/, the directories in skip_dirs (root-relative,
 * sorted: nested projects), what the workspace's .gitignore files ignore
 * (but for a path a glob free of magic names outright: a gitignored .env
 * named in the inputs is one), and
 * what the exclude globs match (a task's declared outputs, base-relative).
 * inputs_hash fills in every file's hash: from the stat cache where it is
 * trusted, otherwise by reading the file, on up to four threads; a file that
 * vanished since the walk is dropped from the list. The list owns its paths
 * (one buffer, no allocation per file) and is sorted bytewise by rel; a
 * list is emptied by the next inputs_collect into it, which keeps its
 * buffers (zero it before the first, inputs_free it after the last).
 * A symlink hashes "link\0" and its target, never what it points to. */
#ifndef VX_KEY_INPUTS_H
#define VX_KEY_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ignore.h"
#include "inputstamp.h"
#include "statcache.h"

struct input {
	size_t path; /* offset in names of the root-relative path */
	size_t rel;  /* offset in names of the base-relative path */
	struct stat st;
	uint8_t hash[16];
	bool gone; /* vanished before it could be read */
	bool hinted; /* sce is its stat cache entry (or NULL: none), found in the walk */
	const struct sc_entry *sce;
};

struct inputs {
	struct input *v;
	size_t n, cap;
	char *names; /* NUL-separated paths */
	size_t nlen, ncap;
};

struct inputs_ctx {
	const char *root;
	/* > 0: root opened O_PATH, which stats and walks resolve root-relative
	 * paths from (0: by root's absolute path, as before) */
	int rootfd;
	struct ignore *ig;
	struct statcache *sc;
	const char *const *skip_dirs; /* root-relative, sorted bytewise */
	size_t nskip;
	size_t hashed, cached; /* counters for VX_KEY_STATS */
	size_t linked; /* regular files seen with more than one hard link */
	/* when set, inputs_collect adds every file it keeps and every directory
	 * it walks (as "dir/", the root as "/") with the stat it went by */
	struct inputstamp *stamp;
};

static inline const char *input_rel(const struct inputs *in, size_t i)
{
	return in->names + in->v[i].rel;
}

static inline const char *input_path(const struct inputs *in, size_t i)
{
	return in->names + in->v[i].path;
}

/* 0, or -1 after a message when base exists but cannot be walked. */
int inputs_collect(struct inputs_ctx *c, const char *base, const char *const *globs, size_t nglobs,
	const char *const *exclude, size_t nexclude, struct inputs *out);
/* 0, or -1 after one message naming the file that could not be read. */
int inputs_hash(struct inputs_ctx *c, struct inputs *in);
/* The hash of one root-relative file through the stat cache: 1, 0 when it
 * does not exist, -1 after a message when it cannot be read. *st (when not
 * NULL) gets the stat it went by on 1. */
int inputs_hash_file(struct inputs_ctx *c, const char *path, uint8_t hash[16], struct stat *st);
void inputs_free(struct inputs *in);

#endif
