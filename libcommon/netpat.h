/* netpat.h: network entries of exec.sandbox, checked at config time
 * by vx-graph and matched by vx-proxy with the same parser.
 *
 * An entry is HOST or HOST:PORT. HOST is a dotted domain name, "*.domain"
 * (strict subdomains; the domain must itself hold a dot, so "*.com" is too
 * broad), "localhost", a dotted-quad IPv4 address, or a bracketed IPv6
 * address. PORT is 1..65535 in decimal. Deny lists also take "*" and
 * "*:PORT"; ignore lists need the port.
 */
#ifndef VX_NETPAT_H
#define VX_NETPAT_H

#include <stdbool.h>
#include <stddef.h>

enum netpat_kind { NETPAT_ALLOW, NETPAT_DENY, NETPAT_IGNORE };

/* NULL when entry is valid for kind, else why not (a static string). */
const char *netpat_check(const char *entry, enum netpat_kind kind);

/* Matching (vx-proxy's decision, vx run's ignore.network) works on the
 * canonical form of a host as a client spelled it:
 *   a name      lowercased, the trailing dot dropped, letters, digits, '-'
 *               and '_' only, labels of 1..63, at most 253 in all;
 *   an IPv4     any spelling a resolver would take as one (127.1,
 *               2130706433, 0x7f.1, 0177.0.0.1: a host whose last label is
 *               numeric is an IPv4 address or nothing), written a.b.c.d;
 *   an IPv6     bracketed or bare, no zone id, written as inet_ntop does;
 *               an IPv4-mapped address (::ffff:a.b.c.d) is that IPv4.
 * Anything else (NUL, CR, LF, space, '%', '@', ':' in a name...) is refused. */
#define NETPAT_HOST_MAX 256
enum netpat_host { NETPAT_HOST_BAD, NETPAT_HOST_NAME, NETPAT_HOST_IPV4, NETPAT_HOST_IPV6 };

/* host[0..len) into out (NUL-terminated); NETPAT_HOST_BAD with *why set
 * (a static string) when it is no host at all. */
enum netpat_host netpat_host_canon(const char *host, size_t len,
	char out[NETPAT_HOST_MAX], const char **why);

/* Does entry (one netpat_check accepted) match host (any spelling, canonicalised
 * here) and port? Case-blind; `*.x` matches strict subdomains of x and never an
 * IP; an entry without a port matches every port; an IP entry matches only that
 * address, a name entry only that name; `*` and `*:port` (deny lists) match
 * every host. */
bool netpat_match(const char *entry, const char *host, unsigned port);

/* Is entry a literal name for its host (localhost or an IP address), so a
 * loopback or link-local address it leads to was asked for by name? */
bool netpat_is_literal(const char *entry);

#endif
