/* convert.h: vx init's conversion, start to end.
 *
 * convert_run reads the workspace's turbo.json files (turbo.h), else its
 * nx.json and project.json files (nx.h), and the packages' scripts, plans
 * one vx.json per package (plan.h) and writes them (output.h; dry: prints
 * each one's diff instead, writing nothing). Without force, a vx.json that
 * exists refuses the whole run before anything is written. What could not
 * be carried over is one note each on stderr (notes.h); a summary line
 * ends a write. Returns VX_EXIT_OK, VX_EXIT_FAIL (a vx.json exists, a
 * write failed) or VX_EXIT_USAGE (no turbo.json nor nx.json, or a wrong
 * one), after saying why.
 */
#ifndef VX_INIT_CONVERT_H
#define VX_INIT_CONVERT_H

#include <stdbool.h>

#include "workspace.h"

int convert_run(struct workspace *ws, int rootfd, bool dry, bool force);

#endif
