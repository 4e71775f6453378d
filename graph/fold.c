/* fold.c: the workspace folded into the task graph, printed (fold.h). */
#include "fold.h"

#include "config.h"
#include "emit.h"
#include "err.h"
#include "filter.h"
#include "grants.h"
#include "graph.h"

int fold_emit(struct workspace *ws, const struct fold_sel *sel)
{
	workspace_load(ws);
	for (size_t i = 0; i < ws->nprojects; i++)
		config_load(ws, ws->projects[i]);
	grants_check_home(ws);
	if (ws->errors)
		return VX_EXIT_USAGE;
	graph_resolve(ws);
	if (ws->errors)
		return VX_EXIT_USAGE;

	static bool *picked;
	if (sel->nfilters) {
		picked = xcalloc(ws->nprojects + 1, sizeof(bool));
		if (filter_select(ws, sel->filters, sel->nfilters, picked) != 0)
			return VX_EXIT_USAGE;
	}
	static struct task **order;
	size_t n;
	if (graph_select(ws, sel->tasks, sel->ntasks, picked, sel->only, &order, &n) != 0)
		return VX_EXIT_USAGE;
	if (n == 0 && sel->nfilters)
		err_warn("nothing to run: the projects --filter selects have none of the tasks asked for");
	graph_keyed(order, n);
	grants_check_keyed(ws, order, n);
	if (ws->errors)
		return VX_EXIT_USAGE;
	emit_graph(ws, order, n);
	return 0;
}
