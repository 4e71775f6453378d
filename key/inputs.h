/* inputs.h: a task's input files and their content hashes.
 *
 * inputs_collect lists the files under base (root-relative, "." for the root)
 * that the globs select ("!" entries exclude, last match wins), leaving out
 * node_modules/, .git/, .vx/, the directories in skip_dirs (root-relative:
 * nested projects), what the workspace's .gitignore files ignore, and what
 * the exclude globs match (a task's declared outputs). inputs_hash fills in
 * every file's hash: from the stat cache where it is trusted, otherwise by
 * reading the file, on a few threads. Paths in the list are relative to base,
 * sorted bytewise. */
#ifndef VX_KEY_INPUTS_H
#define VX_KEY_INPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ignore.h"
#include "statcache.h"

struct input {
	char *rel;  /* relative to base */
	char *path; /* root-relative */
	struct stat st;
	uint8_t hash[16];
};

struct inputs {
	struct input *v;
	size_t n, cap;
};

struct inputs_ctx {
	const char *root;
	struct ignore *ig;
	struct statcache *sc;
	const char *const *skip_dirs; /* root-relative, sorted */
	size_t nskip;
	size_t hashed, cached; /* counters for VX_KEY_STATS */
};

int inputs_collect(struct inputs_ctx *c, const char *base, const char *const *globs, size_t nglobs,
	const char *const *exclude, size_t nexclude, struct inputs *out);
int inputs_hash(struct inputs_ctx *c, struct inputs *in);
void inputs_free(struct inputs *in);

#endif
