/* request.h: vx-proxy's request, JSON lines (docs/protocol.md, vx-proxy):
 *
 *   {"type":"proxy","v":1,"deny":["*:22"],"union":["a.test"],"tasks":[TASK...]}
 *   {"type":"task","task":"@x/app#fetch","socket":"/run/vx/p/3.sock","network":["a.test"]}
 *
 * TASK is the "task" record without its "type". "socket" is a path to bind,
 * or "fd" a listening socket inherited from the driver. "network" is true
 * (the run's union), a list, or absent (no grant: every request refused).
 * "union" is optional: without it the union is every list seen so far.
 * Every entry is checked with netpat_check as vx-graph checks it; a bad
 * record ends vx-proxy with exit 2 naming the place.
 */
#ifndef VX_PROXY_REQUEST_H
#define VX_PROXY_REQUEST_H

#include <stddef.h>

#include "policy.h"

struct loop;

/* Apply one record to the policy p and the loop L serving its tasks
 * (where/line name it in errors). Dies on a bad record. */
void request_apply(struct loop *L, struct policy *p, const char *text, const char *where,
	size_t line);

#endif
