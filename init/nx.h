/* nx.h: an Nx workspace read into the shape turbo.h gives, so one planner
 * (plan.h) writes the vx.json files of both.
 *
 * nx_load reads nx.json (targetDefaults, namedInputs, the older
 * tasksRunnerOptions cacheableOperations) and each project's project.json
 * targets and package.json scripts and "nx" targets, as Nx merges them: a
 * target's defaults by name (or by executor) under the project's own
 * entry. Each target becomes a turbo-shaped task: its command (a script's
 * text, nx:run-commands' command(s) run from the workspace root or their
 * cwd, nx:run-script's script), dependsOn (strings and { target, projects,
 * dependencies } objects), inputs with named inputs expanded ({projectRoot}
 * and {workspaceRoot} paths, { env }, { runtime }), outputs, cache and
 * continuous. A target run by another executor, inferred by a plugin, or
 * an input vx cannot key is a note. false after printing why (exit 2). */
#ifndef VX_INIT_NX_H
#define VX_INIT_NX_H

#include <stdbool.h>

#include "model.h"
#include "turbo.h"

bool nx_load(struct turbo *t, struct workspace *ws, int rootfd);

#endif
