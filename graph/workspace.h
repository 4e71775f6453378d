/* workspace.h: finding the workspace root and its projects.
 *
 * workspace_find_root picks the root: override if given, else the nearest
 * ancestor of start with a package.json "workspaces", a pnpm-workspace.yaml,
 * or a vx.json "projects". workspace_load then lists the projects the root's
 * globs match (plus the root itself), reads each package.json for its name
 * and dependencies, and resolves those to workspace projects. Problems are
 * config errors (ws->errors); the caller exits 2 when there are any.
 */
#ifndef VX_GRAPH_WORKSPACE_H
#define VX_GRAPH_WORKSPACE_H

#include "model.h"

/* 0 and *root set, or -1 after printing why (usage-class error). */
int workspace_find_root(const char *start, const char *override, char **root);
void workspace_load(struct workspace *ws);

#endif
