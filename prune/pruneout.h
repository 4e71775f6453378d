/* pruneout.h: vx prune's output, written.
 *
 * pruneout_write puts into o->dir the packages keep marks (subset.h) and
 * what they need: each kept package's files (o->full, which is o->dir, or
 * o->dir/full with --docker), the root package.json with its workspaces
 * cut to them, the root's other files (the dotfiles an install or a build
 * reads, no others: .env and the like may hold secrets), and the root
 * lockfile pruned to what they reach (copied whole when vx cannot prune
 * its kind, with a warning). With o->docker, o->dir/json gets the
 * manifests, the workspace files and the lockfile (the install layer).
 * The lockfile is pruned first, so one that cannot be leaves o->dir
 * untouched. Prints one summary line per lockfile and for the packages.
 * Returns 0, or -1 after an error line.
 */
#ifndef VX_PRUNE_PRUNEOUT_H
#define VX_PRUNE_PRUNEOUT_H

#include <stdbool.h>

#include "model.h"

struct pruneout {
	const char *dir;
	bool docker;
	char *full; /* where the sources go: dir, or dir/full */
};

int pruneout_write(const struct workspace *ws, const bool *keep, const struct pruneout *o);

#endif
