/* subset.h: which workspace packages vx prune keeps, and the root
 * package.json rewritten for them.
 *
 * subset_select marks the packages named (by package.json name, or by
 * directory) and every workspace package they depend on, transitively, as
 * vx-graph resolves dependencies (workspace.h: dependencies,
 * devDependencies, optionalDependencies, peerDependencies, workspace:
 * protocol or not), plus the root. An unknown name is one error line and -1.
 * subset_workspaces is the kept packages' directories as a JSON array (the
 * root left out), sorted; subset_manifest is the root package.json's text
 * with its "workspaces" (or "workspaces.packages") replaced by that array,
 * or NULL when it has none (then it is copied as it is). subset_seeds is
 * the kept packages' "name@range" dependencies on packages outside the
 * workspace (yarn.lock's descriptors), NULL-terminated.
 */
#ifndef VX_PRUNE_SUBSET_H
#define VX_PRUNE_SUBSET_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "model.h"

int subset_select(const struct workspace *ws, char *const *names, size_t n, bool *keep);
cJSON *subset_workspaces(const struct workspace *ws, const bool *keep);
char *subset_manifest(const char *text, const cJSON *workspaces);
char **subset_seeds(const struct workspace *ws, const bool *keep);

#endif
