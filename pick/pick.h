/* pick.h: select tasks from a stream of vx-graph/vx-key records.
 *
 * pick_stream() copies in to stdout (jsonl.h's writer): every "graph" record,
 * and each "task" record whose id is one of want, or whose name is one of
 * want that holds no '#' (a task name picks that task in every project, as
 * vx-graph's TASK does). Other records are dropped. The graph record's
 * "tasks" is set to the number of tasks kept, so the records are written
 * once the input ended. So
 * `vx-graph | vx-key | vx-pick app#build` is a request vx-sandbox reads.
 * Returns 0, or 1 when an entry of want matched no task (one line each,
 * naming it) or the input was malformed (reported by the reader).
 */
#ifndef VX_PICK_H
#define VX_PICK_H

#include <stddef.h>
#include <stdio.h>

int pick_stream(FILE *in, const char *name, char **want, size_t nwant);

#endif
