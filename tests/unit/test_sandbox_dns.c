/* test_sandbox_dns: the bridge's DNS query parser and its REFUSED answer
 * (sandbox/dns.h) over well-formed queries and what a hostile task may send. */
#include <stdlib.h>
#include <string.h>

#include "dns.h"
#include "unit.h"

/* A query for name (dotted) and type as a stub resolver writes it. */
static size_t query(unsigned char *buf, const char *name, uint16_t type)
{
	static const unsigned char hdr[] = {0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
	size_t n = sizeof(hdr);
	memcpy(buf, hdr, n);
	while (*name) {
		size_t l = strcspn(name, ".");
		buf[n++] = (unsigned char)l;
		memcpy(buf + n, name, l);
		n += l;
		name += l + (name[l] == '.');
	}
	buf[n++] = 0;
	buf[n++] = (unsigned char)(type >> 8);
	buf[n++] = (unsigned char)type;
	buf[n++] = 0;
	buf[n++] = 1; /* class IN */
	return n;
}

int main(void)
{
	unsigned char q[600], a[600];
	struct dns_query dq;
	char tb[12];
	size_t n = query(q, "Registry.NPMJS.org", 28), an;

	CHECK(dns_parse(q, n, &dq) == DNS_QUESTION);
	CHECK_STR(dq.name, "registry.npmjs.org");
	CHECK(dq.type == 28);
	CHECK_STR(dns_type_name(dq.type, tb), "AAAA");
	CHECK_STR(dns_type_name(4242, tb), "TYPE4242");
	/* the answer: same id, QR and RD set, REFUSED, the question echoed */
	an = dns_answer(q, n, DNS_QUESTION, &dq, a, sizeof(a));
	CHECK(an == n);
	CHECK(a[0] == 0xab && a[1] == 0xcd);
	CHECK(a[2] == 0x81 && a[3] == 5);
	CHECK(a[4] == 0 && a[5] == 1 && a[7] == 0 && a[9] == 0 && a[11] == 0);
	CHECK(memcmp(a + 12, q + 12, n - 12) == 0);
	CHECK(dns_answer(q, n, DNS_QUESTION, &dq, a, n - 1) == 0);

	/* every cut of a query: no question read past its end */
	for (size_t k = 0; k < n; k++) {
		unsigned char *cut = malloc(k ? k : 1);
		memcpy(cut, q, k);
		enum dns_result r = dns_parse(cut, k, &dq);
		CHECK(r == (k < 12 ? DNS_IGNORE : DNS_BAD));
		free(cut);
	}
	/* a response is never answered */
	q[2] |= 0x80;
	CHECK(dns_parse(q, n, &dq) == DNS_IGNORE);
	CHECK(dns_answer(q, n, DNS_IGNORE, &dq, a, sizeof(a)) == 0);
	q[2] &= 0x7f;
	/* two questions, a compression pointer, a byte no host name has, an
	 * extended label: FORMERR, with no question */
	q[5] = 2;
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	an = dns_answer(q, n, DNS_BAD, &dq, a, sizeof(a));
	CHECK(an == 12 && a[3] == 1 && a[5] == 0);
	q[5] = 1;
	n = query(q, "a.example", 1);
	q[12 + 2] = 0xc0;
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	n = query(q, "a\"b.example", 1);
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	n = query(q, "a\nb.example", 1);
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	n = query(q, "x.example", 1);
	q[12] = 0x41;
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	/* the longest name fits (253 characters), one more does not */
	char name[300];
	memset(name, 'a', sizeof(name));
	for (size_t i = 63; i < sizeof(name); i += 64)
		name[i] = '.';
	name[253] = '\0';
	n = query(q, name, 1);
	CHECK(dns_parse(q, n, &dq) == DNS_QUESTION && strlen(dq.name) == 253);
	name[253] = 'a';
	name[254] = '\0';
	n = query(q, name, 1);
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	/* a label over 63 bytes */
	memset(name, 'b', 64);
	name[64] = '\0';
	n = query(q, name, 1);
	CHECK(dns_parse(q, n, &dq) == DNS_BAD);
	/* the root: an empty name */
	n = query(q, "", 2);
	CHECK(dns_parse(q, n, &dq) == DNS_QUESTION && dq.name[0] == '\0');
	/* an EDNS record past the question is not echoed */
	n = query(q, "example.com", 1);
	q[11] = 1;
	memcpy(q + n, "\0\0\x29\x10\0\0\0\0\0\0\0", 11);
	CHECK(dns_parse(q, n + 11, &dq) == DNS_QUESTION);
	an = dns_answer(q, n + 11, DNS_QUESTION, &dq, a, sizeof(a));
	CHECK(an == n && a[11] == 0);

	/* the name a proxy request asks for */
	char host[254];
#define PH(s) dns_proxy_host((const unsigned char *)(s), strlen(s), host)
	CHECK(PH("CONNECT Registry.NPMJS.org:443 HTTP/1.1\r\n") && !strcmp(host, "registry.npmjs.org"));
	CHECK(PH("GET http://origin.test:8080/x HTTP/1.1\r\n") && !strcmp(host, "origin.test"));
	CHECK(PH("POST HTTPS://example.com./ HTTP/1.1\r\n") && !strcmp(host, "example.com"));
	CHECK(PH("GET http://example.com HTTP/1.1\r\n") && !strcmp(host, "example.com"));
	CHECK(!PH("CONNECT 10.0.0.1:443 HTTP/1.1\r\n"));  /* an address: no lookup to excuse */
	CHECK(!PH("CONNECT [::1]:443 HTTP/1.1\r\n"));
	CHECK(!PH("GET /relative HTTP/1.1\r\n"));
	CHECK(!PH("GET ftp://example.com/ HTTP/1.1\r\n"));
	CHECK(!PH("CONNECT exa\"mple.com:443 HTTP/1.1\r\n"));
	CHECK(!PH("CONNECT example.co"));                   /* cut */
	CHECK(!PH("\x05\x01\x00"));                         /* SOCKS5 */
	CHECK(!PH(""));
	CHECK(!PH("CONNECT :443 HTTP/1.1\r\n"));
	memset(name, 'a', 260);
	memcpy(name, "CONNECT ", 8);
	memcpy(name + 262, ":1 ", 4);
	CHECK(!dns_proxy_host((const unsigned char *)name, 266, host)); /* over 253 */
	return UNIT_END("sandbox_dns");
}
