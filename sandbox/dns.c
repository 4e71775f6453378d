/* dns.c: a query's question, and the REFUSED answer (dns.h). */
#include "dns.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define HDR 12

static bool host_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

enum dns_result dns_parse(const unsigned char *msg, size_t len, struct dns_query *q)
{
	size_t off = HDR, n = 0;
	memset(q, 0, sizeof(*q));
	/* header: id(2) flags(2) qdcount ancount nscount arcount; a response
	 * (QR set) is never answered, so two relays cannot ping-pong */
	if (len < HDR || (msg[2] & 0x80))
		return DNS_IGNORE;
	if ((msg[2] & 0x78) != 0 || msg[4] != 0 || msg[5] != 1)
		return DNS_BAD; /* not a standard query with exactly one question */
	for (;;) {
		if (off >= len)
			return DNS_BAD;
		unsigned l = msg[off++];
		if (l == 0)
			break;
		if (l > 63 || len - off < l)
			return DNS_BAD; /* a pointer (0xc0) or an extended label, or cut */
		if (n + (n ? 1 : 0) + l > sizeof(q->name) - 1)
			return DNS_BAD;
		if (n)
			q->name[n++] = '.';
		for (unsigned i = 0; i < l; i++) {
			unsigned char c = msg[off + i];
			if (!host_byte(c))
				return DNS_BAD;
			q->name[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		off += l;
	}
	if (len - off < 4)
		return DNS_BAD;
	q->name[n] = '\0';
	q->type = (uint16_t)(msg[off] << 8 | msg[off + 1]);
	q->qend = off + 4;
	return DNS_QUESTION;
}

size_t dns_answer(const unsigned char *msg, size_t len, enum dns_result res,
	const struct dns_query *q, unsigned char *out, size_t cap)
{
	size_t n = res == DNS_QUESTION ? q->qend : HDR;
	if (res == DNS_IGNORE || len < n || n < HDR || cap < n)
		return 0;
	memcpy(out, msg, n);
	out[2] = (unsigned char)(0x80 | (msg[2] & 0x79)); /* QR, opcode, RD */
	out[3] = res == DNS_QUESTION ? 5 : 1;               /* REFUSED : FORMERR */
	memset(out + 4, 0, 8);
	out[5] = res == DNS_QUESTION ? 1 : 0;
	return n;
}

bool dns_proxy_host(const unsigned char *buf, size_t len, char host[254])
{
	size_t i = 0, n = 0;
	const unsigned char *sp = memchr(buf, ' ', len < 16 ? len : 16);
	if (!sp)
		return false;
	i = (size_t)(sp - buf) + 1;
	if (!(sp - buf == 7 && !memcmp(buf, "CONNECT", 7))) {
		/* an absolute URI: the scheme, then the authority */
		static const char *const schemes[] = {"http://", "https://"};
		size_t k = 0;
		for (; k < 2; k++) {
			size_t sl = strlen(schemes[k]);
			if (len - i >= sl && !strncasecmp((const char *)buf + i, schemes[k], sl)) {
				i += sl;
				break;
			}
		}
		if (k == 2)
			return false;
	}
	/* the name up to ':', '/' or ' ': host-name bytes and dots only, so an
	 * IP literal ends with a numeric label and is refused below */
	for (; i < len && buf[i] != ':' && buf[i] != '/' && buf[i] != ' '; i++) {
		unsigned char c = buf[i];
		if (n == 253 || !(host_byte(c) || c == '.'))
			return false;
		host[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	if (i == len || n == 0)
		return false; /* cut before the name ended */
	host[n] = '\0';
	if (host[n - 1] == '.')
		host[--n] = '\0';
	const char *last = strrchr(host, '.');
	last = last ? last + 1 : host;
	return n > 0 && !(*last >= '0' && *last <= '9');
}

const char *dns_type_name(uint16_t type, char buf[12])
{
	static const struct {
		uint16_t t;
		const char *name;
	} known[] = {{1, "A"}, {2, "NS"}, {5, "CNAME"}, {6, "SOA"}, {12, "PTR"}, {15, "MX"},
		{16, "TXT"}, {28, "AAAA"}, {33, "SRV"}, {64, "SVCB"}, {65, "HTTPS"}, {255, "ANY"}};
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (known[i].t == type)
			return known[i].name;
	snprintf(buf, 12, "TYPE%u", (unsigned)type);
	return buf;
}
