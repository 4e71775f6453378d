#include "netpat.h"
#include "unit.h"

#define OK(e, k) CHECK(netpat_check(e, k) == NULL)
#define BAD(e, k) CHECK(netpat_check(e, k) != NULL)

int main(void)
{
	OK("example.com", NETPAT_ALLOW);
	OK("Example.COM.", NETPAT_ALLOW);
	OK("*.example.com", NETPAT_ALLOW);
	OK("example.com:443", NETPAT_ALLOW);
	OK("*.example.com:8080", NETPAT_ALLOW);
	OK("localhost", NETPAT_ALLOW);
	OK("localhost:3000", NETPAT_ALLOW);
	OK("127.0.0.1", NETPAT_ALLOW);
	OK("[::1]:443", NETPAT_ALLOW);
	OK("registry.npmjs.org", NETPAT_ALLOW);
	BAD("https://example.com", NETPAT_ALLOW);
	BAD("example.com/path", NETPAT_ALLOW);
	BAD("intranet", NETPAT_ALLOW);
	BAD("example.com:0", NETPAT_ALLOW);
	BAD("example.com:65536", NETPAT_ALLOW);
	BAD("example.com:http", NETPAT_ALLOW);
	BAD("example.com:", NETPAT_ALLOW);
	BAD("example.com:080", NETPAT_ALLOW);
	BAD("*", NETPAT_ALLOW);
	BAD("*.com", NETPAT_ALLOW);
	BAD("*.com:443", NETPAT_ALLOW);
	BAD("a.*.com", NETPAT_ALLOW);
	BAD("*.127.0.0.1", NETPAT_ALLOW);
	BAD("127.1", NETPAT_ALLOW);
	BAD("2130706433", NETPAT_ALLOW);
	BAD("::1", NETPAT_ALLOW);
	BAD("", NETPAT_ALLOW);
	BAD("exa mple.com", NETPAT_ALLOW);
	BAD("-a.com", NETPAT_ALLOW);
	BAD("a..com", NETPAT_ALLOW);
	OK("*", NETPAT_DENY);
	OK("*:22", NETPAT_DENY);
	BAD("*.com", NETPAT_DENY);
	OK("example.com:443", NETPAT_IGNORE);
	BAD("example.com", NETPAT_IGNORE);

	/* matching: case, trailing dot, wildcards, ports */
	CHECK(netpat_match("example.com", "EXAMPLE.Com", 443));
	CHECK(netpat_match("example.com", "example.com.", 80));
	CHECK(netpat_match("Example.COM.", "example.com", 80));
	CHECK(!netpat_match("example.com", "example.com.evil.net", 443));
	CHECK(!netpat_match("example.com", "evilexample.com", 443));
	CHECK(!netpat_match("example.com", "a.example.com", 443));
	CHECK(!netpat_match("example.com", "example.com..", 443));
	CHECK(netpat_match("*.example.com", "a.example.com", 443));
	CHECK(netpat_match("*.example.com", "A.b.Example.com.", 443));
	CHECK(!netpat_match("*.example.com", "example.com", 443));
	CHECK(!netpat_match("*.example.com", "aexample.com", 443));
	CHECK(!netpat_match("*.example.com", "localhost\0.example.com", 443));
	CHECK(netpat_match("example.com:443", "example.com", 443));
	CHECK(!netpat_match("example.com:443", "example.com", 80));
	CHECK(netpat_match("*", "anything.test", 1));
	CHECK(netpat_match("*", "10.0.0.1", 1));
	CHECK(netpat_match("*:22", "x.test", 22));
	CHECK(!netpat_match("*:22", "x.test", 23));
	CHECK(netpat_match("localhost", "LOCALHOST.", 3000));
	CHECK(!netpat_match("localhost", "127.0.0.1", 3000));
	/* IP spellings canonicalised, matching only IP entries */
	CHECK(netpat_match("127.0.0.1", "127.1", 80));
	CHECK(netpat_match("127.0.0.1", "2130706433", 80));
	CHECK(netpat_match("127.0.0.1", "0x7f.1", 80));
	CHECK(netpat_match("127.0.0.1", "0177.0.0.1", 80));
	CHECK(netpat_match("127.0.0.1", "0x7f000001", 80));
	CHECK(netpat_match("127.0.0.1", "[::ffff:127.0.0.1]", 80));
	CHECK(netpat_match("127.0.0.1", "::ffff:7f00:1", 80));
	CHECK(netpat_match("127.0.0.1", "127.0.0.1.", 80));
	CHECK(!netpat_match("127.0.0.1", "127.0.0.2", 80));
	CHECK(netpat_match("[::1]", "[0:0::1]", 80));
	CHECK(netpat_match("[::1]:443", "::1", 443));
	CHECK(!netpat_match("[::1]:443", "::1", 80));
	CHECK(netpat_match("*.example.com", "1.example.com", 80));
	CHECK(netpat_match("*.example.com", "10.0.1.example.com", 80));
	CHECK(!netpat_match("example.com", "[::1]", 80));
	CHECK(!netpat_match("[::1]", "localhost", 80));
	CHECK(!netpat_match("example.com", "example.com%00", 80));
	CHECK(!netpat_match("example.com", "example.com x", 80));
	CHECK(!netpat_match("example.com", "user@example.com", 80));

	char out[NETPAT_HOST_MAX];
	const char *why;
	CHECK(netpat_host_canon("Ex.COM.", 7, out, &why) == NETPAT_HOST_NAME);
	CHECK_STR(out, "ex.com");
	CHECK(netpat_host_canon("0x7f.1", 6, out, &why) == NETPAT_HOST_IPV4);
	CHECK_STR(out, "127.0.0.1");
	CHECK(netpat_host_canon("[::FFFF:169.254.169.254]", 24, out, &why) == NETPAT_HOST_IPV4);
	CHECK_STR(out, "169.254.169.254");
	CHECK(netpat_host_canon("[FD00:EC2:0::254]", 17, out, &why) == NETPAT_HOST_IPV6);
	CHECK_STR(out, "fd00:ec2::254");
	CHECK(netpat_host_canon("a\0b.com", 8, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("a\0.b.com", 4, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("256.1.1.1", 9, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("1.2.3.4.5", 9, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("1.2.65536", 9, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("1.2.65535", 9, out, &why) == NETPAT_HOST_IPV4);
	CHECK_STR(out, "1.2.255.255");
	CHECK(netpat_host_canon("08.1.1.1", 8, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("a.1", 3, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("1.a", 3, out, &why) == NETPAT_HOST_NAME);
	CHECK(netpat_host_canon("[fe80::1%eth0]", 14, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("[::1", 4, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("a..b", 4, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon(".", 1, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("", 0, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("h:80", 4, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_host_canon("a\r\nb", 4, out, &why) == NETPAT_HOST_BAD);
	CHECK(netpat_is_literal("localhost:3000"));
	CHECK(netpat_is_literal("127.0.0.1"));
	CHECK(netpat_is_literal("[::1]:80"));
	CHECK(!netpat_is_literal("example.com"));
	CHECK(!netpat_is_literal("*.example.com"));
	return UNIT_END("netpat");
}
