/* wsroot.h: finding the workspace root, shared by vx-graph and the
 * driver (which looks for a run's replay before vx-graph starts).
 *
 * wsroot_find picks the root: override if given and not empty (an empty
 * VX_ROOT is none; canonicalised, must be a directory), else the nearest
 * ancestor of start with a package.json "workspaces", a pnpm-workspace.yaml, or a vx.json "projects". 0 and
 * *root set (malloc'd, canonical); -1 after printing why when loud, else
 * silently.
 */
#ifndef VX_WSROOT_H
#define VX_WSROOT_H

#include <stdbool.h>

int wsroot_find(const char *start, const char *override, bool loud, char **root);

/* The root's files every key folds, the workspace fingerprint. */
extern const char *const wsroot_fingerprint[];
#define WSROOT_NFINGERPRINT 6
/* Is rel (root-relative) one of them, a file every key folds? */
bool wsroot_is_fingerprint(const char *rel);

#endif
