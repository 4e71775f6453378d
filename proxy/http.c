#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "err.h"

/* RFC 9110 tchar */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool name_is(const struct http_hdr *h, const char *name)
{
	return h->name_len == strlen(name) && strncasecmp(h->name, name, h->name_len) == 0;
}

/* A port: 1..65535 in plain decimal, no sign, no leading zero. */
static unsigned parse_port(const char *s, size_t n)
{
	if (n == 0 || n > 5 || s[0] == '0')
		return 0;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	return v <= 65535 ? v : 0;
}

/* Split an authority (host[:port], [v6][:port]) into r's host and port.
 * need_port: CONNECT's authority form has no default. */
static const char *parse_authority(const char *a, size_t n, bool need_port,
	unsigned defport, struct http_req *r)
{
	const char *hend, *colon = NULL;
	if (memchr(a, '@', n)) {
		r->host_raw = a;
		r->host_raw_len = n;
		return "userinfo ('@') in the request target";
	}
	if (n && a[0] == '[') {
		hend = memchr(a, ']', n);
		if (!hend) {
			r->host_raw = a;
			r->host_raw_len = n;
			return "unclosed '[' in the host";
		}
		hend++;
		if (hend < a + n) {
			if (*hend != ':') {
				r->host_raw = a;
				r->host_raw_len = n;
				return "junk after an IPv6 address";
			}
			colon = hend;
		}
	} else {
		colon = memchr(a, ':', n);
		hend = colon ? colon : a + n;
	}
	r->host_raw = a;
	r->host_raw_len = (size_t)(hend - a);
	if (colon) {
		r->port = parse_port(colon + 1, (size_t)(a + n - colon - 1));
		if (!r->port)
			return "bad port (1-65535)";
	} else if (need_port) {
		return "bad port (none given)";
	} else {
		r->port = defport;
	}
	const char *why;
	r->host_kind = netpat_host_canon(r->host_raw, r->host_raw_len, r->host, &why);
	if (r->host_kind == NETPAT_HOST_BAD)
		return why;
	return NULL;
}

#define BAD(st, w) do { *status = (st); *why = (w); return HTTP_BAD; } while (0)

enum http_result http_parse(const char *buf, size_t len, struct http_req *r,
	int *status, const char **why)
{
	memset(r, 0, sizeof(*r));
	r->content_length = -1;

	/* Find the end of the head, refusing a bare CR or LF or a NUL anywhere
	 * before it: those are where two parsers disagree about lines. */
	size_t end = 0, line_start = 0;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (c == '\0')
			BAD(400, "NUL byte in the request head");
		if (c == '\r' && i + 1 < len && buf[i + 1] != '\n')
			BAD(400, "bare CR in the request head");
		if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				BAD(400, "bare LF in the request head");
			if (i - line_start == 1) {
				if (line_start == 0)
					BAD(400, "empty request line");
				end = i + 1;
				break;
			}
			line_start = i + 1;
		}
	}
	if (!end) {
		if (len >= HTTP_HEAD_MAX)
			BAD(431, "request head too large");
		return HTTP_MORE;
	}
	if (end > HTTP_HEAD_MAX)
		BAD(431, "request head too large");
	r->head_len = end;

	/* request line: METHOD SP target SP HTTP/1.x CRLF */
	const char *p = buf, *eol = memchr(buf, '\r', end);
	const char *sp1 = memchr(p, ' ', (size_t)(eol - p));
	if (!sp1 || sp1 == p || sp1 - p > 20)
		BAD(400, "malformed request line");
	for (const char *m = p; m < sp1; m++)
		if (*m < 'A' || *m > 'Z')
			BAD(400, "malformed method");
	r->method = p;
	r->method_len = (size_t)(sp1 - p);
	const char *tgt = sp1 + 1;
	const char *sp2 = memchr(tgt, ' ', (size_t)(eol - tgt));
	if (!sp2 || sp2 == tgt)
		BAD(400, "malformed request line");
	for (const char *t = tgt; t < sp2; t++)
		if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
			BAD(400, "a control, space or non-ASCII byte in the request target");
	size_t vlen = (size_t)(eol - sp2 - 1);
	if (memchr(sp2 + 1, ' ', vlen))
		BAD(400, "malformed request line (a space in the target?)");
	if (vlen != 8 || (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 && memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		BAD(505, "only HTTP/1.0 and HTTP/1.1 are spoken");
	size_t tlen = (size_t)(sp2 - tgt);
	const char *bad;
	bool connect = r->method_len == 7 && memcmp(r->method, "CONNECT", 7) == 0;
	if (connect) {
		r->kind = HTTP_CONNECT;
		if ((bad = parse_authority(tgt, tlen, true, 0, r)))
			BAD(400, bad);
	} else if (tlen > 7 && strncasecmp(tgt, "http://", 7) == 0) {
		r->kind = HTTP_ABSOLUTE;
		const char *a = tgt + 7, *tend = tgt + tlen, *q = a;
		while (q < tend && *q != '/' && *q != '?' && *q != '#')
			q++;
		if (memchr(a, '#', (size_t)(tend - a)))
			BAD(400, "a fragment in the request target");
		if ((bad = parse_authority(a, (size_t)(q - a), false, 80, r)))
			BAD(400, bad);
		r->path = q;
		r->path_len = (size_t)(tend - q);
	} else if (tgt[0] == '/') {
		/* origin form: a client that thinks it talks to the origin; the
		 * Host header below names the host for the record only */
		r->kind = HTTP_ABSOLUTE;
	} else {
		BAD(400, "the request target is neither http://host/... nor CONNECT's host:port");
	}

	/* header lines */
	bool have_host = false;
	const struct http_hdr *te = NULL;
	const char *host_val = NULL;
	size_t host_vlen = 0;
	p = eol + 2;
	while (p < buf + end - 2) {
		eol = memchr(p, '\r', (size_t)(buf + end - p));
		if (*p == ' ' || *p == '\t')
			BAD(400, "folded header line (obs-fold)");
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon == p)
			BAD(400, "malformed header line");
		for (const char *c = p; c < colon; c++)
			if (!is_tchar((unsigned char)*c))
				BAD(400, "malformed header name (space before ':'?)");
		const char *v = colon + 1, *ve = eol;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		for (const char *c = v; c < ve; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				BAD(400, "control byte in a header value");
		if (r->nhdr == HTTP_MAX_HEADERS)
			BAD(431, "too many header lines");
		struct http_hdr *h = &r->hdr[r->nhdr++];
		h->name = p;
		h->name_len = (size_t)(colon - p);
		h->value = v;
		h->value_len = (size_t)(ve - v);
		if (name_is(h, "content-length")) {
			if (r->content_length >= 0)
				BAD(400, "more than one Content-Length");
			if (h->value_len == 0 || h->value_len > 15)
				BAD(400, "malformed Content-Length");
			long long cl = 0;
			for (size_t k = 0; k < h->value_len; k++) {
				if (v[k] < '0' || v[k] > '9')
					BAD(400, "malformed Content-Length");
				cl = cl * 10 + (v[k] - '0');
			}
			r->content_length = cl;
		} else if (name_is(h, "transfer-encoding")) {
			/* only the one spelling every reader agrees on is even
			 * answered 501; `Chunked`, `chunked,`, a list: 400 */
			if (te)
				BAD(400, "more than one Transfer-Encoding");
			te = h;
		} else if (name_is(h, "content_length") || name_is(h, "transfer_encoding")) {
			BAD(400, "framing header spelled with '_' (some servers read it as '-')");
		} else if (name_is(h, "host")) {
			if (have_host)
				BAD(400, "more than one Host header");
			have_host = true;
			host_val = v;
			host_vlen = h->value_len;
		}
		p = eol + 2;
	}

	if (te && r->content_length >= 0)
		BAD(400, "Content-Length and Transfer-Encoding together");
	if (te && !(te->value_len == 7 && memcmp(te->value, "chunked", 7) == 0))
		BAD(400, "malformed Transfer-Encoding (not exactly 'chunked')");
	if (te)
		BAD(501, "Transfer-Encoding on a request (send Content-Length)");
	if (r->kind == HTTP_CONNECT && r->content_length >= 0)
		BAD(400, "Content-Length on CONNECT");
	if (r->kind == HTTP_ABSOLUTE && !r->path) {
		/* origin form: report the Host header's host, refuse */
		if (host_val) {
			struct http_req tmp;
			memset(&tmp, 0, sizeof(tmp));
			parse_authority(host_val, host_vlen, false, 80, &tmp);
			r->host_raw = tmp.host_raw;
			r->host_raw_len = tmp.host_raw_len;
			r->port = tmp.port;
			memcpy(r->host, tmp.host, sizeof(r->host));
			r->host_kind = tmp.host_kind;
		}
		BAD(400, "origin-form request (a proxy needs http://host/... or CONNECT)");
	}
	if (host_val) {
		struct http_req tmp;
		memset(&tmp, 0, sizeof(tmp));
		unsigned def = r->kind == HTTP_CONNECT ? r->port : 80;
		if (parse_authority(host_val, host_vlen, false, def, &tmp) ||
		    tmp.host_kind != r->host_kind || strcmp(tmp.host, r->host) != 0 ||
		    tmp.port != r->port)
			BAD(400, "Host header names another host than the request target");
	}
	return HTTP_OK;
}

static bool hop_by_hop(const struct http_req *r, const struct http_hdr *h)
{
	static const char *const hop[] = { "host", "connection", "proxy-connection",
		"keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer",
		"upgrade", NULL };
	for (const char *const *n = hop; *n; n++)
		if (name_is(h, *n))
			return true;
	/* and every header the client's Connection header names, but never
	 * Content-Length: dropping it while the body is forwarded would make
	 * the body a second request the origin reads and nobody judged (Host
	 * is rewritten above; Transfer-Encoding never gets this far) */
	if (name_is(h, "content-length"))
		return false;
	for (size_t i = 0; i < r->nhdr; i++) {
		const struct http_hdr *c = &r->hdr[i];
		if (!name_is(c, "connection"))
			continue;
		const char *t = c->value, *e = c->value + c->value_len;
		while (t < e) {
			while (t < e && (*t == ',' || *t == ' ' || *t == '\t'))
				t++;
			const char *s = t;
			while (t < e && *t != ',' && *t != ' ' && *t != '\t')
				t++;
			if ((size_t)(t - s) == h->name_len && strncasecmp(s, h->name, h->name_len) == 0)
				return true;
		}
	}
	return false;
}

char *http_forward_head(const struct http_req *r, bool keep, size_t *len)
{
	size_t cap = r->head_len + 2 * HTTP_MAX_HEADERS + NETPAT_HOST_MAX + 96;
	char *out = xmalloc(cap), *o = out;
	memcpy(o, r->method, r->method_len);
	o += r->method_len;
	*o++ = ' ';
	if (r->path_len == 0 || r->path[0] != '/')
		*o++ = '/';
	memcpy(o, r->path, r->path_len);
	o += r->path_len;
	bool v6 = r->host_kind == NETPAT_HOST_IPV6;
	o += sprintf(o, " HTTP/1.%c\r\nHost: %s%s%s", keep ? '0' : '1', v6 ? "[" : "", r->host, v6 ? "]" : "");
	if (r->port != 80)
		o += sprintf(o, ":%u", r->port);
	o += sprintf(o, "\r\n");
	for (size_t i = 0; i < r->nhdr; i++) {
		const struct http_hdr *h = &r->hdr[i];
		if (hop_by_hop(r, h))
			continue;
		memcpy(o, h->name, h->name_len);
		o += h->name_len;
		*o++ = ':';
		*o++ = ' ';
		memcpy(o, h->value, h->value_len);
		o += h->value_len;
		*o++ = '\r';
		*o++ = '\n';
	}
	o += sprintf(o, "Connection: %s\r\n\r\n", keep ? "keep-alive" : "close");
	*len = (size_t)(o - out);
	return out;
}

/* Does a Connection header value list token tok (case-blind)? */
static bool conn_lists(const char *v, const char *e, const char *tok)
{
	size_t n = strlen(tok);
	while (v < e) {
		while (v < e && (*v == ',' || *v == ' ' || *v == '\t'))
			v++;
		const char *s = v;
		while (v < e && *v != ',' && *v != ' ' && *v != '\t')
			v++;
		if ((size_t)(v - s) == n && strncasecmp(s, tok, n) == 0)
			return true;
	}
	return false;
}

long long http_resp_length(const char *buf, size_t len, bool *keep)
{
	*keep = false;
	/* status line: HTTP/1.x SP 3DIGIT (SP reason) CRLF */
	if (len < 14)
		return memchr(buf, '\n', len) ? -1 : -2;
	if (memcmp(buf, "HTTP/1.1 ", 9) != 0 && memcmp(buf, "HTTP/1.0 ", 9) != 0)
		return -1;
	for (int i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
	int status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	if (status < 200 || status > 599)
		return -1;
	if (buf[12] != ' ' && buf[12] != '\r')
		return -1;
	/* no body whatever the head says (RFC 9112 6.3) */
	bool bodyless = status == 204 || status == 304;
	long long cl = -1;
	bool ka = false, cls = false;
	const char *p = buf, *end = buf + len;
	for (;;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			return -2; /* the head goes on past what was read */
		if (eol == p || eol[-1] != '\r' || memchr(p, '\0', (size_t)(eol - p)) ||
		    memchr(p, '\r', (size_t)(eol - 1 - p)))
			return -1; /* bare LF or CR, NUL */
		p = eol + 1;
		if (p + 2 <= end && p[0] == '\r' && p[1] == '\n')
			break; /* the blank line */
		if (p < end && (*p == ' ' || *p == '\t'))
			return -1; /* obs-fold */
		const char *colon = memchr(p, ':', (size_t)(end - p));
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return -2;
		if (!colon || colon > nl || colon == p)
			return -1;
		struct http_hdr h = { .name = p, .name_len = (size_t)(colon - p) };
		for (const char *c = p; c < colon; c++)
			if (!is_tchar((unsigned char)*c))
				return -1;
		if (name_is(&h, "transfer-encoding") || name_is(&h, "transfer_encoding") ||
		    name_is(&h, "content_length"))
			return -1;
		const char *v = colon + 1, *ve = nl - 1;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (name_is(&h, "connection")) {
			ka |= conn_lists(v, ve, "keep-alive");
			cls |= conn_lists(v, ve, "close");
		} else if (name_is(&h, "content-length")) {
			if (cl >= 0 || ve == v || ve - v > 15)
				return -1;
			cl = 0;
			for (; v < ve; v++) {
				if (*v < '0' || *v > '9')
					return -1;
				cl = cl * 10 + (*v - '0');
			}
		}
	}
	if (bodyless)
		cl = 0;
	if (cl < 0)
		return -1;
	*keep = ka && !cls;
	return (long long)(p + 2 - buf) + cl;
}

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}

char *http_error(int status, const char *msg, size_t *len)
{
	char *body = xasprintf("vx-proxy: %s\n", msg);
	char *out = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
		"Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		status, status_text(status), strlen(body), body);
	free(body);
	*len = strlen(out);
	return out;
}
