/* emit.h: vx-graph's output records (docs/protocol.md): one "graph" record
 * with the run-wide sandbox facts, then one "task" record per selected task
 * in dependency order. */
#ifndef VX_GRAPH_EMIT_H
#define VX_GRAPH_EMIT_H

#include "model.h"

void emit_graph(const struct workspace *ws, struct task **order, size_t n);

#endif
