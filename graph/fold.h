/* fold.h: vx-graph's work, start to end.
 *
 * fold_emit loads every project of ws (its root found) and its vx.json,
 * checks the grants, resolves the dependencies, selects the tasks sel asks
 * for (its --filter selectors, its TASK names or ids, none: every task;
 * and what they depend on unless only) and prints the graph record, then
 * one task record each, dependencies first (emit.h; docs/protocol.md).
 * Returns 0, or VX_EXIT_USAGE after each config or selection error was
 * said (then nothing is printed). The workspace's memory lives as long as
 * the process.
 */
#ifndef VX_GRAPH_FOLD_H
#define VX_GRAPH_FOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "workspace.h"

struct fold_sel {
	char **filters; /* --filter values */
	size_t nfilters;
	char **tasks; /* TASK operands */
	int ntasks;
	bool only;
};

int fold_emit(struct workspace *ws, const struct fold_sel *sel);

#endif
