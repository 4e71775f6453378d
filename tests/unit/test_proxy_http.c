/* vx-proxy's request parsers (http.h, socks.h) on made-up bytes. */
#include <stdlib.h>

#include "http.h"
#include "socks.h"
#include "unit.h"

static struct http_req r;
static int status;
static const char *why;

static enum http_result parse(const char *s)
{
	return http_parse(s, strlen(s), &r, &status, &why);
}

static int bad(const char *s)
{
	return parse(s) == HTTP_BAD ? status : 0;
}

int main(void)
{
	CHECK(parse("CONNECT Example.COM.:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nxx") == HTTP_OK);
	CHECK(r.kind == HTTP_CONNECT && r.port == 443 && r.head_len == 60);
	CHECK_STR(r.host, "example.com");
	CHECK(parse("GET http://a.test/x?y HTTP/1.0\r\n\r\n") == HTTP_OK);
	CHECK(r.kind == HTTP_ABSOLUTE && r.port == 80 && r.path_len == 4);
	CHECK(parse("GET http://[::ffff:10.0.0.1]:8080 HTTP/1.1\r\n\r\n") == HTTP_OK);
	CHECK_STR(r.host, "10.0.0.1");
	CHECK(r.host_kind == NETPAT_HOST_IPV4 && r.port == 8080 && r.path_len == 0);
	CHECK(parse("GET http://a.test/ HTTP/1.1\r\nX: 1\r\n") == HTTP_MORE);
	CHECK(parse("GET http://a.test/ HTTP/1.1\r") == HTTP_MORE);

	CHECK(bad("CONNECT a.test HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("CONNECT a.test:+443 HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("CONNECT a.test:443:80 HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("CONNECT a.test:65536 HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("CONNECT [::1]x:80 HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("GET http://u@a.test/ HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("GET https://a.test/ HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n") == 400);
	CHECK_STR(r.host, "a.test");
	CHECK(bad("GET http://a.test/ HTTP/2.0\r\n\r\n") == 505);
	CHECK(bad("GET http://a.test/ HTTP/1.1\n\n") == 400);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nX: a\rb\r\n\r\n") == 400);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nContent-Length : 5\r\n\r\n") == 400);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nX: 1\r\n folded\r\n\r\n") == 400);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n") == 400);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 501);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nHost: b.test\r\n\r\n") == 400);
	CHECK(bad("GET http://a.test/ HTTP/1.1\r\nHost: a.test:81\r\n\r\n") == 400);
	CHECK(parse("GET http://a.test/ HTTP/1.1\r\nHost: A.TEST.:80\r\n\r\n") == HTTP_OK);
	CHECK(bad("get http://a.test/ HTTP/1.1\r\n\r\n") == 400);
	CHECK(bad("\r\nGET http://a.test/ HTTP/1.1\r\n\r\n") == 400);

	char *big = malloc(HTTP_HEAD_MAX + 1);
	memset(big, 'a', HTTP_HEAD_MAX);
	big[HTTP_HEAD_MAX] = '\0';
	memcpy(big, "GET http://a.test/ HTTP/1.1\r\nX: ", 32);
	CHECK(bad(big) == 431);
	free(big);

	/* the forwarded head: origin form, canonical Host, no hop-by-hop */
	CHECK(parse("POST http://A.test:8080/p?q HTTP/1.1\r\nConnection: x-hop\r\nX-Hop: 1\r\n"
		"Proxy-Authorization: s\r\nContent-Length: 2\r\nAccept: */*\r\n\r\n") == HTTP_OK);
	size_t n;
	char *fw = http_forward_head(&r, false, &n);
	CHECK_STR(fw, "POST /p?q HTTP/1.1\r\nHost: a.test:8080\r\nContent-Length: 2\r\n"
		"Accept: */*\r\nConnection: close\r\n\r\n");
	CHECK(n == strlen(fw));
	free(fw);
	/* kept alive: HTTP/1.0, whose answer is never chunked */
	fw = http_forward_head(&r, true, &n);
	CHECK_STR(fw, "POST /p?q HTTP/1.0\r\nHost: a.test:8080\r\nContent-Length: 2\r\n"
		"Accept: */*\r\nConnection: keep-alive\r\n\r\n");
	free(fw);

	/* a framing header named by Connection stays: stripping Content-Length
	 * would turn the forwarded body into a second, unjudged request */
	CHECK(parse("POST http://a.test/ HTTP/1.1\r\nConnection: close, Content-Length, host\r\n"
		"Content-Length: 3\r\n\r\nabc") == HTTP_OK);
	fw = http_forward_head(&r, false, &n);
	CHECK_STR(fw, "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\nConnection: close\r\n\r\n");
	free(fw);
	CHECK(parse("POST http://a.test/ HTTP/1.1\r\nConnection: CONTENT-LENGTH\r\nContent-Length: 3\r\n\r\n") == HTTP_OK);
	fw = http_forward_head(&r, false, &n);
	CHECK(strstr(fw, "\r\nContent-Length: 3\r\n") != NULL);
	free(fw);
	/* names some servers fold into a framing header ('_' read as '-') */
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent_Length: 3\r\n\r\nabc") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer_Encoding: chunked\r\n\r\n") == 400);
	/* every Transfer-Encoding spelling, and a CL that is not one decimal */
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 501);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked,\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3 3\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: 0x3\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == 400);
	CHECK(bad("POST http://a.test/ HTTP/1.1\r\nContent-Length\t: 3\r\n\r\n") == 400);

	/* a response's length, when its head frames it beyond doubt */
	bool keep = true;
#define RL(s) http_resp_length(s, strlen(s), &keep)
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello") == 43 && !keep);
	CHECK(RL("HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\n") == 67 && keep);
	CHECK(RL("HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 5\r\n\r\n") == 74 && !keep);
	CHECK(RL("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nhello") == -1 && !keep); /* until close */
	CHECK(RL("HTTP/1.0 404 Not Found\r\nX: y\r\ncontent-length:\t12 \r\n\r\n") == 53 + 12);
	CHECK(RL("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n") == 35);
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n") == -2);      /* head not all here */
	CHECK(RL("HTTP/1.1 2") == -2);
	CHECK(RL("HTTP/1.1\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\n\r\nhello") == -1);                  /* until close */
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\nTransfer_Encoding: chunked\r\nContent-Length: 5\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 200 OK\r\nX: a\n\r\nContent-Length: 5\r\n\r\n") == -1); /* bare LF */
	CHECK(RL("HTTP/1.1 200 OK\r\nX: a\r b\r\nContent-Length: 5\r\n\r\n") == -1); /* bare CR */
	CHECK(RL("HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 5\r\n\r\n") == -1); /* obs-fold */
	CHECK(RL("HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\n") == -1);
	/* no body whatever the head says */
	CHECK(RL("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n") == 46);
	CHECK(RL("HTTP/1.1 304 Not Modified\r\nConnection: keep-alive\r\n\r\n") == 53 && keep);
	CHECK(RL("HTTP/2 200 OK\r\nContent-Length: 5\r\n\r\n") == -1);
	CHECK(RL("HTTP/1.1 2000 OK\r\nContent-Length: 5\r\n\r\n") == -1);
	CHECK(http_resp_length("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: \0\r\n\r\n", 46, &keep) == -1);

	/* SOCKS5 */
	size_t used = 0;
	struct socks_req s;
	CHECK(socks_greeting((const unsigned char *)"\x05", 1, &used, &why) == SOCKS_MORE);
	CHECK(socks_greeting((const unsigned char *)"\x05\x02\x02\x00", 4, &used, &why) == SOCKS_OK && used == 4);
	CHECK(socks_greeting((const unsigned char *)"\x05\x01\x02", 3, &used, &why) == SOCKS_BAD);
	CHECK(socks_greeting((const unsigned char *)"\x04\x01", 2, &used, &why) == SOCKS_BAD);
	const unsigned char req[] = "\x05\x01\x00\x03\x06" "a.test" "\x01\xbb";
	for (size_t k = 0; k < sizeof(req) - 1; k++)
		CHECK(socks_request(req, k, &s, &used, &why) == SOCKS_MORE);
	CHECK(socks_request(req, sizeof(req) - 1, &s, &used, &why) == SOCKS_OK);
	CHECK(used == sizeof(req) - 1 && s.port == 443);
	CHECK_STR(s.host, "a.test");
	const unsigned char nul[] = "\x05\x01\x00\x03\x08" "a\0b.test" "\x01\xbb";
	CHECK(socks_request(nul, sizeof(nul) - 1, &s, &used, &why) == SOCKS_BAD);
	CHECK(s.rep == SOCKS_REP_RULESET && s.host_raw_len == 8);
	CHECK(socks_request((const unsigned char *)"\x05\x02\x00\x01\x01\x02\x03\x04\x00\x50", 10, &s, &used, &why) == SOCKS_BAD);
	CHECK(s.rep == SOCKS_REP_CMD);
	CHECK(socks_request((const unsigned char *)"\x05\x01\x00\x07\x01", 5, &s, &used, &why) == SOCKS_BAD);
	CHECK(s.rep == SOCKS_REP_ATYP);
	CHECK(socks_request((const unsigned char *)"\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x00", 10, &s, &used, &why) == SOCKS_BAD);
	CHECK(socks_request((const unsigned char *)"\x05\x01\x00\x04\0\0\0\0\0\0\0\0\0\0\xff\xff\x7f\0\0\x01\0\x50", 22, &s, &used, &why) == SOCKS_OK);
	CHECK_STR(s.host, "127.0.0.1");
	return UNIT_END("proxy_http");
}
