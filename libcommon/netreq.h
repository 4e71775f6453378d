/* netreq.h: the records that ask vx-proxy to serve a task (docs/protocol.md
 * "vx-proxy"), built from the graph record and the task record, one way for
 * vx run (one vx-proxy a run) and vx-sandbox (one of its own for a request
 * that names no proxy socket).
 *
 * netreq_proxy(): the "proxy" record: the graph's sandbox.network deny list
 * and allow union. netreq_task(): a "task" record serving id on socket, its
 * deny records kept for the control socket when control is not NULL, with
 * the task's allow.network when it grants network (netreq_granted), else
 * none: vx-proxy then refuses and reports every request. The caller frees
 * both (cJSON_Delete).
 */
#ifndef VX_NETREQ_H
#define VX_NETREQ_H

#include <stdbool.h>

#include <cjson/cJSON.h>

bool netreq_granted(const cJSON *task);
cJSON *netreq_proxy(const cJSON *graph);
cJSON *netreq_task(const cJSON *task, const char *id, const char *socket, const char *control);

#endif
