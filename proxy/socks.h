/* socks.h: SOCKS5 (RFC 1928) as vx-proxy speaks it: the "no authentication"
 * method and the CONNECT command only. Pure parsers over a buffer that may
 * hold a partial message (a client may write one byte at a time) or more
 * than one (greeting and request in one write): each says how many bytes it
 * used, and never reads past n.
 */
#ifndef VX_PROXY_SOCKS_H
#define VX_PROXY_SOCKS_H

#include <stddef.h>

#include "netpat.h"

enum socks_result { SOCKS_MORE, SOCKS_OK, SOCKS_BAD };

/* Reply codes of RFC 1928 section 6 used here. */
enum {
	SOCKS_REP_OK = 0,
	SOCKS_REP_FAIL = 1,
	SOCKS_REP_RULESET = 2,
	SOCKS_REP_NETUNREACH = 3,
	SOCKS_REP_HOSTUNREACH = 4,
	SOCKS_REP_REFUSED = 5,
	SOCKS_REP_TTL = 6,
	SOCKS_REP_CMD = 7,
	SOCKS_REP_ATYP = 8,
};

/* VER NMETHODS METHODS: SOCKS_OK when method 0 is offered. SOCKS_BAD: a
 * version other than 5 (SOCKS4 is refused) or no acceptable method. */
enum socks_result socks_greeting(const unsigned char *b, size_t n, size_t *used,
	const char **why);

struct socks_req {
	int cmd;
	char host_raw[260]; /* a domain as sent (may hold any byte), or the IP */
	size_t host_raw_len;
	char host[NETPAT_HOST_MAX]; /* canonical; "" when bad */
	enum netpat_host host_kind;
	unsigned port;
	int rep; /* the reply code for SOCKS_BAD */
};

/* VER CMD RSV ATYP DST.ADDR DST.PORT. SOCKS_BAD: r->rep and *why say why;
 * r->host_raw and r->port hold what was named when it got that far. */
enum socks_result socks_request(const unsigned char *b, size_t n, struct socks_req *r,
	size_t *used, const char **why);

/* The 10-byte reply: VER REP RSV ATYP=1 0.0.0.0:0. */
void socks_reply(unsigned char out[10], int rep);

#endif
