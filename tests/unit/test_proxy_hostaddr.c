/* vx-proxy's host-address guard (hostaddr.h) against this host's own list. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "hostaddr.h"
#include "unit.h"

static struct sockaddr_storage ss;

static const struct sockaddr *v4(const char *a)
{
	struct sockaddr_in *s = (struct sockaddr_in *)&ss;
	memset(&ss, 0, sizeof(ss));
	s->sin_family = AF_INET;
	inet_pton(AF_INET, a, &s->sin_addr);
	return (const struct sockaddr *)&ss;
}

static const struct sockaddr *v6(const char *a)
{
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
	memset(&ss, 0, sizeof(ss));
	s->sin6_family = AF_INET6;
	inet_pton(AF_INET6, a, &s->sin6_addr);
	return (const struct sockaddr *)&ss;
}

int main(void)
{
	hostaddr_init(1);
	/* lo is one of the interfaces, in every form */
	CHECK(hostaddr_is_own(v4("127.0.0.1"), 1));
	CHECK(hostaddr_is_own(v6("::ffff:127.0.0.1"), 1));
	CHECK(hostaddr_is_own(v6("::127.0.0.1"), 1));
	/* documentation addresses no interface here carries */
	CHECK(!hostaddr_is_own(v4("203.0.113.77"), 1));
	CHECK(!hostaddr_is_own(v6("2001:db8::77"), 1));
	CHECK(!hostaddr_is_own(v6("::ffff:203.0.113.77"), 1));
	/* every address getifaddrs lists, and every broadcast address, is own
	 * (a second later too: the list is taken again) */
	struct ifaddrs *ifs;
	CHECK(getifaddrs(&ifs) == 0);
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
			continue;
		CHECK(hostaddr_is_own(i->ifa_addr, 2.5));
		if (i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_BROADCAST) && i->ifa_broadaddr)
			CHECK(hostaddr_is_own(i->ifa_broadaddr, 2.5));
	}
	freeifaddrs(ifs);
	return UNIT_END("proxy_hostaddr");
}
