#include "hostaddr.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "err.h"

static struct in_addr *v4;
static struct in6_addr *v6;
static size_t nv4, nv6;
static double taken = -1;

static void add4(const struct sockaddr *sa)
{
	if (!sa || sa->sa_family != AF_INET)
		return;
	v4 = xrealloc(v4, (nv4 + 1) * sizeof(*v4));
	v4[nv4++] = ((const struct sockaddr_in *)sa)->sin_addr;
}

static int refresh(double now)
{
	static bool said;
	struct ifaddrs *ifs;
	if (getifaddrs(&ifs) < 0) {
		/* keep the last list (out of descriptors, say); try again at the
		 * next check */
		if (!said)
			err_warn_errno("unable to list the host's addresses (getifaddrs); "
				"the last list stands (said once per run)");
		said = true;
		return -1;
	}
	nv4 = nv6 = 0;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;
		if (!a)
			continue;
		if (a->sa_family == AF_INET) {
			add4(a);
			if (i->ifa_flags & IFF_BROADCAST)
				add4(i->ifa_broadaddr);
		} else if (a->sa_family == AF_INET6) {
			v6 = xrealloc(v6, (nv6 + 1) * sizeof(*v6));
			v6[nv6++] = ((const struct sockaddr_in6 *)a)->sin6_addr;
		}
	}
	freeifaddrs(ifs);
	taken = now;
	return 0;
}

void hostaddr_init(double now)
{
	if (refresh(now) < 0)
		err_die(1, "unable to list the host's addresses");
}

bool hostaddr_is_own(const struct sockaddr *sa, double now)
{
	if (now - taken >= HOSTADDR_TTL)
		(void)refresh(now);
	struct in_addr a4;
	if (sa->sa_family == AF_INET) {
		a4 = ((const struct sockaddr_in *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (!IN6_IS_ADDR_V4MAPPED(a) && !IN6_IS_ADDR_V4COMPAT(a)) {
			for (size_t i = 0; i < nv6; i++)
				if (memcmp(&v6[i], a, sizeof(*a)) == 0)
					return true;
			return false;
		}
		memcpy(&a4, &a->s6_addr[12], 4);
	} else {
		return false;
	}
	for (size_t i = 0; i < nv4; i++)
		if (v4[i].s_addr == a4.s_addr)
			return true;
	return false;
}
