/* bridge.h: the sandbox's way out to vx-proxy, and localBinding's way in.
 *
 * The task's network namespace holds loopback only. With a proxy socket
 * (vx run names vx-proxy's socket for every sandboxed task: where it has no
 * network grant, vx-proxy refuses and reports each request)
 * the bridge listens on two ephemeral ports of that loopback, one for HTTP
 * (plain and CONNECT) and one for SOCKS5, and relays each connection to a
 * new stream on the proxy socket: vx-proxy reads the protocol from its first
 * byte. With it the relay also answers DNS on the sandbox's 127.0.0.1:53
 * (UDP and TCP; mounts.c points /etc/resolv.conf there): REFUSED to every
 * query, each distinct name written to the trace as a "dns" record, so a
 * tool that resolves a host itself instead of using the proxy is named
 * (report/lookup.h). It sets HTTP(S)_PROXY, ALL_PROXY (socks5h) and NO_PROXY (and their
 * lowercase forms) for the task, and NODE_USE_ENV_PROXY=1 (Node >= 24 then
 * sends fetch and http(s) through them). With localBinding ports, each port is bound
 * on the host's 127.0.0.1 before the sandbox exists (a taken port fails
 * before the task runs) and relayed into the sandbox's 127.0.0.1:port.
 *
 * The relay is a process of its own, forked by the sandbox's pid 1 before
 * the mount tree, the capability drop and the seccomp filter: it reaches
 * the proxy socket through an fd vx-sandbox opened on the host (a missing
 * socket fails before the sandbox exists: exit 125), drops its capabilities, is undumpable (the task may neither ptrace it nor
 * open its fds through /proc), and dies with pid 1, so with the task; pid 1
 * first gives it a moment to deliver what the task sent before exiting. The
 * task's own AF_UNIX block stays as its grant says. Bytes move with splice(2)
 * through a pipe per direction (64 KiB in flight each way; 1 MiB for a
 * direction that keeps its pipe full), sockets in an edge-triggered epoll set.
 */
#ifndef VX_SANDBOX_BRIDGE_H
#define VX_SANDBOX_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "request.h"

struct bridge {
	const char *proxy_socket; /* vx-proxy's socket for this task, or NULL */
	int trace_fd;             /* where the relay records the names looked up */
	int proxy_fd;             /* O_PATH of proxy_socket, opened by bridge_prepare */
	int *host_fd;             /* localBinding: listeners on the host's loopback */
	unsigned *ports;
	size_t nports;
};

/* On the host, before the sandbox: open the proxy socket, and bind
 * 127.0.0.1:port for each localBinding port of r. 0, or -1 after one line
 * naming the socket that is missing or the port that is taken. */
int bridge_prepare(const struct sb_request *r, struct bridge *b);
/* Is there anything to relay? */
bool bridge_needed(const struct bridge *b);
/* In the sandbox's pid 1, loopback up, before the mounts are built: listen,
 * set the task's environment, fork the relay. 0, or -1 after a line. */
int bridge_start(struct bridge *b);
/* In pid 1, once the task has exited: let the relay hand vx-proxy what the
 * task sent (at most about a second), then return. */
void bridge_finish(void);
/* In vx-sandbox, once the sandbox is started: close the host listeners. */
void bridge_release(struct bridge *b);

#endif
