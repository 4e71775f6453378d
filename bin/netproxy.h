/* netproxy.h: vx run's side of the network boundary.
 *
 * One vx-proxy per run, started on the first sandboxed task that runs (a run
 * with none starts none), fed the "proxy" record (the graph's run-wide deny list and
 * allow union) and one "task" record per sandboxed task (issue 18: a task
 * without a grant gets a socket too, where every request is refused and
 * reported as `no network grant`, so its attempts are named, not lost),
 * each with its own socket in a 0700 directory under /tmp (hidden from every
 * sandbox by its private /tmp). The task's socket goes to vx-sandbox in the
 * request (proxySocket), with a control socket beside it (proxyControl):
 * its vx-sandbox takes the task's deny records there once the task exited,
 * when vx-proxy judged all it sent, and writes them into the task's
 * records for vx-report (sandbox/netctl.h, proxy/control.c); none passes
 * through here.
 * vx-proxy's stdin is the driver's pipe: it ends with the run, or with vx.
 */
#ifndef VX_BIN_NETPROXY_H
#define VX_BIN_NETPROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "stage.h"

struct netproxy {
	struct stage st;  /* vx-proxy; st.pid 0: not started */
	char *dir;        /* the sockets' directory */
	bool broken;
};

/* Start vx-proxy now if it is not running (netproxy_task starts it too,
 * but a task known to run can have it start while it is keyed): false when
 * it could not be. */
bool netproxy_start(struct netproxy *np, const cJSON *graph);
/* Start vx-proxy if needed and serve task id (index idx in the run) with
 * its grant, once it listens. The socket path (the caller frees it), or NULL
 * after a line on stderr; its control socket's path in *control (the
 * caller frees it). */
char *netproxy_task(struct netproxy *np, const cJSON *graph, const cJSON *task,
	size_t idx, char **control);
/* For the run's poll loop: the fd to watch (-1: none), and what to do when
 * it is readable (keeps vx-proxy from blocking on a full pipe). */
int netproxy_fd(const struct netproxy *np);
void netproxy_read(struct netproxy *np);
/* End vx-proxy (EOF on its stdin), wait for it, remove the directory. */
void netproxy_stop(struct netproxy *np);

#endif
