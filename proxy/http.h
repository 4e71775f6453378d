/* http.h: the strict parser of one proxy request head, from a bounded buffer.
 *
 * Pure: no I/O; every pointer in struct http_req points into the caller's
 * buffer. Accepted: `CONNECT host:port HTTP/1.x` (authority form, the port
 * required) and `METHOD http://host[:port]/path HTTP/1.x` (absolute form).
 * Refused, with the HTTP status to answer: anything else, and every framing
 * a peer could read differently (RFC 9112): bare CR or LF, NUL, obs-fold,
 * space before a colon, duplicate Content-Length or Host, any
 * Transfer-Encoding (501 for exactly `chunked`, 400 for any other spelling
 * or with Content-Length: a request body needs Content-Length, so the bytes
 * forwarded are exactly the ones framed here), userinfo in the URL, a Host
 * header naming another host than the target, Content_Length or
 * Transfer_Encoding (some servers read '_' as '-'), a head over
 * HTTP_HEAD_MAX bytes or HTTP_MAX_HEADERS lines.
 */
#ifndef VX_PROXY_HTTP_H
#define VX_PROXY_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "netpat.h"

#define HTTP_HEAD_MAX 16384
#define HTTP_MAX_HEADERS 100

enum http_kind { HTTP_ABSOLUTE, HTTP_CONNECT };

struct http_hdr {
	const char *name, *value;
	size_t name_len, value_len;
};

struct http_req {
	enum http_kind kind;
	size_t head_len; /* the head's bytes, the blank line included */
	const char *method, *path; /* path: the origin-form target (absolute only) */
	size_t method_len, path_len;
	const char *host_raw; /* the host as the client spelled it (for records) */
	size_t host_raw_len;
	char host[NETPAT_HOST_MAX]; /* canonical (netpat_host_canon); "" if bad */
	enum netpat_host host_kind;
	unsigned port; /* 0 when bad or missing */
	long long content_length; /* -1: none */
	struct http_hdr hdr[HTTP_MAX_HEADERS];
	size_t nhdr;
};

enum http_result { HTTP_MORE, HTTP_OK, HTTP_BAD };

/* Parse the head at the start of buf[0..len). HTTP_MORE: incomplete (and
 * nothing wrong so far); HTTP_BAD: *status and *why (static) say what to
 * answer, and r->host_raw/port hold whatever the request line named. */
enum http_result http_parse(const char *buf, size_t len, struct http_req *r,
	int *status, const char **why);

/* The head to send to the origin for an absolute-form request: origin-form
 * request line, the canonical Host, the client's end-to-end headers (no
 * Connection, Proxy-*, Keep-Alive, TE, Upgrade, or headers Connection
 * names, except Content-Length: framing is never dropped), then
 * `Connection: close` on HTTP/1.1, or, keep, `Connection: keep-alive` on
 * HTTP/1.0: an answer to HTTP/1.0 is never chunked (RFC 9112 7.1), so it
 * is framed by Content-Length or ends when the origin closes, which
 * http_resp_length tells apart. Malloc'd, *len its size. */
char *http_forward_head(const struct http_req *r, bool keep, size_t *len);

/* The length, head included, of the response whose head starts buf[0..len),
 * when that head frames it beyond doubt: a final status (200-599), exactly
 * one Content-Length of plain digits (none for 204 and 304, which have no
 * body), no Transfer-Encoding (nor a spelling with '_'), clean CRLF lines;
 * *keep then says whether a Connection header lists keep-alive and none
 * close. -1 otherwise: such a response ends when the origin closes; -2 when
 * the head is not all in buf. (An answer to HEAD has no body: never ask.) */
long long http_resp_length(const char *buf, size_t len, bool *keep);

/* A complete error answer, `HTTP/1.1 <status> ...` with `vx-proxy: <msg>` as
 * its body and Connection: close; malloc'd. */
char *http_error(int status, const char *msg, size_t *len);

#endif
