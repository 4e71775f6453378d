/* judge.c: what a parsed request names, judged (policy.h): refused with a
 * record, or looked up (a name) or dialled (an address) (loop.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "loop.h"

void judge(struct conn *c, const char *host, enum netpat_host kind, unsigned port)
{
	struct loop *L = c->L;
	char why[NETPAT_HOST_MAX + 64];
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->port = port;
	if (!policy_judge(L->pol, c->task, host, port, &c->literal, why, sizeof(why))) {
		deny(c, host, port, why);
		return;
	}
	if (c->over) {
		snprintf(why, sizeof(why), "more than %u connections of the task open at once",
			L->opts.max_conns);
		deny(c, host, port, why);
		return;
	}
	c->deadline = L->now + L->opts.connect_timeout;
	if (kind == NETPAT_HOST_NAME) {
		/* only now, allowed, is the name looked up */
		c->state = C_RESOLVE;
		resolve_submit((uintptr_t)c, host, port);
		return;
	}
	struct resolve_answer a;
	memset(&a, 0, sizeof(a));
	a.naddr = 1;
	if (kind == NETPAT_HOST_IPV4) {
		struct sockaddr_in *s = (struct sockaddr_in *)&a.addr[0];
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &s->sin_addr);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a.addr[0];
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &s->sin6_addr);
	}
	on_addresses(c, &a);
}
