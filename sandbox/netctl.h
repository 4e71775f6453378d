/* netctl.h: the task's network attempts, in vx-sandbox's own record stream
 * (issue 37): vx-proxy's deny records reach vx-report without the driver.
 *
 * netctl_collect(): once the sandbox is gone, connect to the task's control
 * socket (the request's proxyControl: vx-proxy's "control",
 * proxy/control.c; never bridged into the sandbox, and answered only to a
 * process of vx-proxy's own network namespace), wait until vx-proxy judged
 * all the task sent (the guarantee vx run's "done" gives), copy each deny
 * record it answers into the trace fd, and end them with
 * {"type":"done","task":ID,"confirmed":BOOL}: false when vx-proxy did not
 * answer (30 s), and vx-report then fails the task (its network went
 * unjudged). Nothing without a control socket.
 *
 * netctl_start(): a traced request that names no proxy socket (the pipe
 * typed by hand) gets a vx-proxy of its own, started from vx-sandbox's own
 * directory and served on a socket and a control socket in a private 0700
 * directory under /tmp (every sandbox has its own /tmp), with the graph's
 * deny list and the task's grant, as vx run's would serve it: its attempts
 * are recorded and judged the same way. 0, or -1 after one line.
 * netctl_stop() ends it (EOF on its stdin) and removes the directory.
 */
#ifndef VX_SANDBOX_NETCTL_H
#define VX_SANDBOX_NETCTL_H

#include "request.h"
#include "stage.h"

struct netctl {
	struct stage st; /* vx-sandbox's own vx-proxy; st.pid 0: none */
	char *dir;
};

int netctl_start(struct sb_request *r, struct netctl *n);
void netctl_collect(const struct sb_request *r, int fd);
void netctl_stop(struct netctl *n);

#endif
