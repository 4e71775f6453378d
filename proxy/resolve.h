/* resolve.h: name lookups off the event loop.
 *
 * Two worker threads take names from a queue and post answers to a
 * completion queue; the loop learns of answers through an eventfd it polls.
 * A request carries an opaque token (the loop's connection id): an answer
 * for a connection that has gone is the loop's to drop.
 *
 * With a hosts file (resolve_init's argument: tests only) lookups read that
 * file alone, /etc/hosts syntax, and a name it does not list does not
 * resolve: the real resolver is never asked, so a test cannot leak.
 */
#ifndef VX_PROXY_RESOLVE_H
#define VX_PROXY_RESOLVE_H

#include <stdint.h>
#include <sys/socket.h>

#define RESOLVE_MAX_ADDR 8

struct resolve_answer {
	uint64_t token;
	int err; /* 0, or an EAI_* code */
	int naddr;
	struct sockaddr_storage addr[RESOLVE_MAX_ADDR]; /* port set */
};

/* Start the workers; returns the eventfd to poll. Dies on failure (bad
 * hosts file). */
int resolve_init(const char *hosts_file);
/* Queue a lookup of a canonical name. */
void resolve_submit(uint64_t token, const char *name, unsigned port);
/* Take one answer: 1, or 0 when none is ready. The loop reads the eventfd
 * (clearing it) before taking, so an answer posted meanwhile wakes it again. */
int resolve_take(struct resolve_answer *a);

#endif
