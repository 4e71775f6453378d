/* workspace.h: finding the workspace root and its projects.
 *
 * The root is found by wsroot_find (libcommon/wsroot.h). workspace_load
 * lists the projects the root's globs match (plus the root itself), reads each package.json for its name
 * and dependencies, and resolves those to workspace projects. Problems are
 * config errors (ws->errors); the caller exits 2 when there are any.
 */
#ifndef VX_GRAPH_WORKSPACE_H
#define VX_GRAPH_WORKSPACE_H

#include "model.h"

void workspace_load(struct workspace *ws);

#endif
