/* head_socks.c: a SOCKS5 greeting and request parsed (a SOCKS4 one is
 * refused and recorded), and the bytes sent ahead kept for upstream
 * (loop.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "err.h"
#include "loop.h"
#include "socks.h"

void on_socks(struct conn *c)
{
	const unsigned char *b = (const unsigned char *)c->buf;
	const char *why = "";
	size_t used = 0;
	if (!c->socks_greeted) {
		enum socks_result res = socks_greeting(b, c->len, &used, &why);
		if (res == SOCKS_MORE)
			return;
		if (res == SOCKS_BAD) {
			if (b[0] == 4) {
				c->via = VIA_SOCKS4;
				char host[INET_ADDRSTRLEN] = "";
				unsigned port = 0;
				if (c->len >= 8) {
					inet_ntop(AF_INET, b + 4, host, sizeof(host));
					port = (unsigned)b[2] << 8 | b[3];
				}
				record_deny(c, host, port, why);
				refuse(c, 0, 0, why);
			} else {
				conn_refuse(c, "\x05\xff", 2);
			}
			return;
		}
		if (send(c->cfd, "\x05\x00", 2, MSG_NOSIGNAL | MSG_DONTWAIT) != 2) {
			conn_close(c);
			return;
		}
		c->socks_greeted = true;
		c->off = used;
	}
	struct socks_req r;
	enum socks_result res = socks_request(b + c->off, c->len - c->off, &r, &used, &why);
	if (res == SOCKS_MORE)
		return;
	if (res == SOCKS_BAD) {
		char host[4 * NETPAT_HOST_MAX];
		if (r.host_kind != NETPAT_HOST_BAD)
			snprintf(host, sizeof(host), "%s", r.host);
		else
			show_host(host, sizeof(host), r.host_raw, r.host_raw_len);
		record_deny(c, host, r.port, why);
		refuse_socks(c, r.rep);
		return;
	}
	c->off += used;
	size_t rest = c->len - c->off;
	c->upre = xmalloc(rest + 1);
	memcpy(c->upre, c->buf + c->off, rest);
	c->upre_len = rest;
	c->body = -1;
	judge(c, r.host, r.host_kind, r.port);
}
