/* head_http.c: an HTTP request head (absolute URI or CONNECT) parsed,
 * refused when bad, and the bytes owed upstream prepared (loop.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "http.h"
#include "loop.h"

/* A pipelined request behind the one forwarded is never forwarded (one
 * request per connection: the origin is told Connection: close), but one
 * naming a refused host is still a refused request, and is recorded. */
static void judge_pipelined(struct conn *c, const char *b, size_t n)
{
	struct http_req *r = xmalloc(sizeof(*r));
	int status;
	const char *why;
	enum http_result res = http_parse(b, n, r, &status, &why);
	bool literal;
	char reason[NETPAT_HOST_MAX + 64];
	if (res != HTTP_MORE && r->host_kind != NETPAT_HOST_BAD && r->port &&
	    !policy_judge(c->L->pol, c->task, r->host, r->port, &literal, reason, sizeof(reason)))
		record_deny(c, r->host, r->port, reason);
	free(r);
}

void on_http_head(struct conn *c)
{
	struct http_req *r = xmalloc(sizeof(*r));
	int status;
	const char *why;
	enum http_result res = http_parse(c->buf, c->len, r, &status, &why);
	if (res == HTTP_MORE) {
		free(r);
		return;
	}
	c->via = r->kind == HTTP_CONNECT ? VIA_CONNECT : VIA_HTTP;
	if (res == HTTP_BAD) {
		char host[4 * NETPAT_HOST_MAX];
		if (r->host_kind != NETPAT_HOST_BAD)
			snprintf(host, sizeof(host), "%s", r->host);
		else
			show_host(host, sizeof(host), r->host_raw ? r->host_raw : "", r->host_raw_len);
		record_deny(c, host, r->port, why);
		refuse_http(c, status, why);
		free(r);
		return;
	}
	size_t rest = c->len - r->head_len;
	if (r->kind == HTTP_CONNECT) {
		/* bytes sent ahead of the 200 (a TLS hello) go up once allowed */
		c->upre = xmalloc(rest + 1);
		memcpy(c->upre, c->buf + r->head_len, rest);
		c->upre_len = rest;
		c->body = -1;
	} else {
		size_t head_len;
		long long cl = r->content_length > 0 ? r->content_length : 0;
		/* an answer to HEAD carries a Content-Length and no body */
		c->sniff = !(r->method_len == 4 && memcmp(r->method, "HEAD", 4) == 0);
		/* a request without a body asks the origin to keep the
		 * connection for the task's next request (relay.c, spare.c) */
		c->keep = c->sniff && cl == 0;
		char *head = http_forward_head(r, c->keep, &head_len);
		size_t take = (long long)rest < cl ? rest : (size_t)cl;
		c->upre = xrealloc(head, head_len + take + 1);
		memcpy(c->upre + head_len, c->buf + r->head_len, take);
		c->upre_len = head_len + take;
		c->body = cl - (long long)take;
		if (rest > take)
			judge_pipelined(c, c->buf + r->head_len + take, rest - take);
	}
	char host[NETPAT_HOST_MAX];
	snprintf(host, sizeof(host), "%s", r->host);
	enum netpat_host kind = r->host_kind;
	unsigned port = r->port;
	free(r);
	judge(c, host, kind, port);
}
