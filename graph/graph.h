/* graph.h: the task graph over a loaded workspace.
 *
 * graph_resolve turns each dependsOn spelling into edges and marks the
 * ones that fold into the key (R-6 inputs.tasks, R-8), refusing spellings
 * that name nothing. graph_select marks the tasks asked for, in the
 * projects --filter kept, and everything they depend on (with only: nothing
 * else; a task that lost a dependency is made uncached), refuses cycles
 * among them, and returns them in dependency order. graph_keyed computes K(T) for each selected task: the
 * projects of the exec tasks, cached or not, the fold relation reaches from
 * it (an uncached exec task's key folds all its files, R-8).
 * Errors are config errors (ws->errors), or -1 for a TASK naming nothing.
 */
#ifndef VX_GRAPH_GRAPH_H
#define VX_GRAPH_GRAPH_H

#include "model.h"

void graph_resolve(struct workspace *ws);
/* names: task names or ids; none means every task. picked: per project
 * index, kept by --filter (NULL: every project). Returns 0 with *order
 * (malloc'd, *n tasks) or -1 after reporting. */
int graph_select(struct workspace *ws, char **names, int nnames, const bool *picked, bool only,
	struct task ***order, size_t *n);
void graph_keyed(struct task **order, size_t n);

#endif
