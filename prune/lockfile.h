/* lockfile.h: a workspace lockfile cut down to the packages vx prune keeps.
 *
 * Each pruner takes the lockfile's text and the root-relative directories
 * of the kept workspace packages ("." for the root, always among them) and
 * returns the pruned text (malloc'd), or NULL after one error line naming
 * the file, the key and the fix. Only what the kept packages reach stays:
 *   npm (package-lock.json / npm-shrinkwrap.json, lockfileVersion 2 or 3):
 *     the "packages" entries of the kept workspaces, their node_modules/
 *     links, and every node_modules/... entry reachable from their
 *     dependencies, each name resolved as node does (the nearest
 *     node_modules up from the dependent's location); the root entry's
 *     "workspaces" becomes workspaces (the pruned root package.json's).
 *     Version 2's "dependencies" (npm 6's nested tree) is cut to the same
 *     packages.
 *   pnpm (pnpm-lock.yaml, lockfileVersion 6 or 9): the kept importers, then
 *     the packages/snapshots entries they reach. The file is machine-written
 *     with fixed indentation, so it is cut line by line: kept entries stay
 *     byte for byte as pnpm wrote them.
 *   yarn 1 (yarn.lock): the entries the kept packages' descriptors (seeds:
 *     "name@range" of their package.json dependencies, devDependencies and
 *     optionalDependencies on packages outside the workspace) reach,
 *     line by line as for pnpm; a yarn 2+ lockfile is refused.
 * *kept and *total count the package entries kept and read. */
#ifndef VX_PRUNE_LOCKFILE_H
#define VX_PRUNE_LOCKFILE_H

#include <stddef.h>

#include <cjson/cJSON.h>

char *npmlock_prune(const char *text, const char *file, char *const *dirs, size_t ndirs,
	const cJSON *workspaces, size_t *kept, size_t *total);
char *pnpmlock_prune(const char *text, const char *file, char *const *dirs, size_t ndirs,
	size_t *kept, size_t *total);
char *yarnlock_prune(const char *text, const char *file, char *const *seeds, size_t nseeds,
	size_t *kept, size_t *total);

/* cJSON's formatted print with npm's layout (two spaces an indent level,
 * "key": value) and a final newline. */
char *json_print_npm(const cJSON *j);

#endif
