/* hostaddr.h: is an address one of this host's own?
 *
 * A name that resolves to an address of one of the host's interfaces (eth0's,
 * a bridge's, a veth's), or to an interface's broadcast address, reaches
 * whatever listens on the host's 0.0.0.0 or [::]: the loopback guard must
 * cover these too (DNS rebinding to the host itself). The list comes from
 * getifaddrs(3), taken again when older than HOSTADDR_TTL seconds (a
 * getifaddrs costs ~0.1 ms: too much per request, so an address added to the
 * host in the last second may be missed). IPv4-mapped and IPv4-compatible
 * IPv6 addresses are judged as the IPv4 they carry.
 */
#ifndef VX_PROXY_HOSTADDR_H
#define VX_PROXY_HOSTADDR_H

#include <stdbool.h>
#include <sys/socket.h>

#define HOSTADDR_TTL 1.0

/* Take the list (dies when getifaddrs fails): before the first check, so
 * that a later failure (EMFILE) leaves a list to judge by. */
void hostaddr_init(double now);
/* now: a CLOCK_MONOTONIC time in seconds, to age the list. */
bool hostaddr_is_own(const struct sockaddr *sa, double now);

#endif
