#include "socks.h"

#include <arpa/inet.h>
#include <string.h>

enum socks_result socks_greeting(const unsigned char *b, size_t n, size_t *used,
	const char **why)
{
	if (n < 1)
		return SOCKS_MORE;
	if (b[0] == 4) {
		*why = "SOCKS4 is not spoken (SOCKS5 only)";
		return SOCKS_BAD;
	}
	if (b[0] != 5) {
		*why = "not a SOCKS5 greeting";
		return SOCKS_BAD;
	}
	if (n < 2)
		return SOCKS_MORE;
	size_t need = 2 + (size_t)b[1];
	if (n < need)
		return SOCKS_MORE;
	*used = need;
	if (!memchr(b + 2, 0, b[1])) {
		*why = "SOCKS5 client offers no 'no authentication' method";
		return SOCKS_BAD;
	}
	return SOCKS_OK;
}

enum socks_result socks_request(const unsigned char *b, size_t n, struct socks_req *r,
	size_t *used, const char **why)
{
	memset(r, 0, sizeof(*r));
	if (n < 4)
		return SOCKS_MORE;
	r->cmd = b[1];
	if (b[0] != 5 || b[2] != 0) {
		r->rep = SOCKS_REP_FAIL;
		*why = "malformed SOCKS5 request";
		return SOCKS_BAD;
	}
	size_t alen;
	switch (b[3]) {
	case 1: alen = 4; break;
	case 4: alen = 16; break;
	case 3:
		if (n < 5)
			return SOCKS_MORE;
		alen = 1 + (size_t)b[4];
		break;
	default:
		r->rep = SOCKS_REP_ATYP;
		*why = "unknown SOCKS5 address type";
		return SOCKS_BAD;
	}
	size_t need = 4 + alen + 2;
	if (n < need)
		return SOCKS_MORE;
	*used = need;
	const unsigned char *a = b + 4;
	r->port = (unsigned)a[alen] << 8 | a[alen + 1];
	if (b[3] == 1) {
		inet_ntop(AF_INET, a, r->host_raw, sizeof(r->host_raw));
	} else if (b[3] == 4) {
		inet_ntop(AF_INET6, a, r->host_raw, sizeof(r->host_raw));
	} else {
		memcpy(r->host_raw, a + 1, alen - 1);
		r->host_raw[alen - 1] = '\0';
		r->host_raw_len = alen - 1;
	}
	if (b[3] != 3)
		r->host_raw_len = strlen(r->host_raw);
	/* the domain is taken whole, embedded NULs and all: the check below
	 * refuses it rather than reading up to the first NUL */
	r->host_kind = netpat_host_canon(r->host_raw, r->host_raw_len, r->host, why);
	if (r->cmd != 1) {
		r->rep = SOCKS_REP_CMD;
		*why = r->cmd == 2 ? "SOCKS5 BIND is not supported (CONNECT only)" :
			r->cmd == 3 ? "SOCKS5 UDP ASSOCIATE is not supported (CONNECT only)" :
			"unknown SOCKS5 command";
		return SOCKS_BAD;
	}
	if (r->host_kind == NETPAT_HOST_BAD) {
		r->rep = SOCKS_REP_RULESET;
		return SOCKS_BAD;
	}
	if (r->port == 0) {
		r->rep = SOCKS_REP_RULESET;
		*why = "bad port (1-65535)";
		return SOCKS_BAD;
	}
	return SOCKS_OK;
}

void socks_reply(unsigned char out[10], int rep)
{
	memset(out, 0, 10);
	out[0] = 5;
	out[1] = (unsigned char)rep;
	out[3] = 1;
}
