/* dry.h: vx run --dry, each task's hit or miss with nothing run.
 *
 * dry_main answers the cheapest way that still tells the truth: a run a
 * running vx-watch vouches for (replay.h; --dry starts none) is all hits
 * with its keys; with an empty
 * local cache (or --force, --no-cache) no task can hit, so no key is taken
 * (vx-graph alone, no hashing, no runtime commands); else vx-graph | vx-key
 * and one manifest lookup per cached task. Statuses: hit, miss, run (runs
 * whatever the cache holds: uncached, persistent, --force), done (a group
 * not all hits), unknown (not in the local cache, and a remote cache that
 * --dry does not ask). Returns the exit code.
 */
#ifndef VX_BIN_DRY_H
#define VX_BIN_DRY_H

#include <stdbool.h>

struct dry_opts {
	const char *root;  /* --root, or NULL */
	char **args;       /* vx-graph's selection arguments and TASKs */
	int nargs;
	bool json, use_cache, force;
	const char *remote; /* the remote cache's URL, or NULL */
};

int dry_main(const struct dry_opts *o);

#endif
