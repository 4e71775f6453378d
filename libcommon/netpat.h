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

enum netpat_kind { NETPAT_ALLOW, NETPAT_DENY, NETPAT_IGNORE };

/* NULL when entry is valid for kind, else why not (a static string). */
const char *netpat_check(const char *entry, enum netpat_kind kind);

#endif
