/* server.h: vx-proxy's event loop: the task sockets, the client
 * connections, the judgement and the relay.
 *
 * One thread and one edge-triggered epoll set (each socket joins it once,
 * for both directions); name lookups go to resolve.h's workers. A
 * connection is attributed to the task whose socket accepted it, and to
 * nothing the client says. Its first byte picks the protocol (0x05 SOCKS5,
 * 0x04 SOCKS4 (refused), else HTTP); its request is judged (policy.h)
 * before any lookup, the addresses a name resolves to are judged again,
 * and the address dialled is one of those. Tunnel bytes move with
 * splice(2) through a pipe per direction (64 KiB, grown to 1 MiB for a
 * direction that keeps filling it). Every refusal is one "deny" record on
 * stdout (docs/protocol.md).
 *
 * Out of descriptors (EMFILE, ENFILE; accept's ENOBUFS, ENOMEM), the loop
 * stops polling the task sockets, says so once per run on stderr, and tries
 * again when a connection closes or a second has passed: open connections
 * go on, new ones wait in the backlog. A task may hold max_conns
 * connections; a request on one more is refused and recorded.
 */
#ifndef VX_PROXY_SERVER_H
#define VX_PROXY_SERVER_H

#include "policy.h"

struct server_opts {
	double header_timeout;  /* seconds from accept to a complete request */
	double connect_timeout; /* seconds for the lookup and the connect */
	double idle_timeout;    /* seconds with no byte either way */
	const char *hosts_file; /* resolver override (tests), or NULL */
	unsigned max_conns;     /* a task's open connections at once; past it,
				 * a request is refused with a deny record */
};

/* The loop: its whole state, which every call below takes. */
struct loop;

/* Once, before anything else: blocks the stop signals, starts the resolver. */
struct loop *server_new(const struct server_opts *o, struct policy *p);
/* Serve task t on a new socket bound at path (an existing path is refused),
 * or, path NULL, on the listening socket fd, and, control not NULL, its
 * control socket bound there (control.c). Writes the "listening" record
 * once both accept connections: the driver starts the task on it, and a
 * task may end, and its vx-sandbox dial control, before this process runs
 * again. 0; -1 (the task's socket) or -2 (its control) after reporting. */
int server_add_task(struct loop *L, struct ptask *t, const char *path, int fd,
	const char *control);
/* Hand every '\n'-terminated line read from fd to on_line; EOF on fd ends
 * the run (the driver went away). */
void server_watch_lines(struct loop *L, int fd, void (*on_line)(char *line, void *arg), void *arg);
/* The driver says task id has ended (its sandbox is gone): once each of
 * its connections has been judged or has closed, its socket is closed and
 * removed and a "done" record written. -1: no such task still served. */
int server_task_done(struct loop *L, const char *id);
/* Serve until SIGTERM, SIGINT or SIGHUP, or EOF on the watched fd; removes
 * the sockets it bound. Returns the exit code. */
int server_run(struct loop *L);

#endif
