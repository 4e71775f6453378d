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
	return UNIT_END("netpat");
}
