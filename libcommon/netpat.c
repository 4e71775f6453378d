#include "netpat.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static bool valid_port(const char *p)
{
	size_t n = strlen(p);
	if (n == 0 || n > 5)
		return false;
	long v = 0;
	for (const char *c = p; *c; c++) {
		if (!isdigit((unsigned char)*c))
			return false;
		v = v * 10 + (*c - '0');
	}
	return v >= 1 && v <= 65535 && p[0] != '0';
}

static bool is_ipv4(const char *h, size_t n)
{
	char buf[16];
	struct in_addr a;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, h, n);
	buf[n] = '\0';
	/* inet_pton takes only the canonical a.b.c.d spelling */
	return inet_pton(AF_INET, buf, &a) == 1;
}

/* NULL when h[0..n) is a dotted domain name (a trailing dot allowed). */
static const char *check_domain(const char *h, size_t n, bool *all_numeric)
{
	if (n && h[n - 1] == '.')
		n--;
	if (n == 0)
		return "empty host";
	if (n > 253)
		return "host name longer than 253 characters";
	size_t label = 0, dots = 0;
	*all_numeric = true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];
		if (c == '.') {
			if (label == 0 || h[i - 1] == '-')
				return "empty or malformed label in host";
			label = 0;
			dots++;
			continue;
		}
		if (!isalnum(c) && c != '-' && c != '_')
			return "invalid character in host";
		if (!isdigit(c))
			*all_numeric = false;
		if (label == 0 && c == '-')
			return "a label starts with '-'";
		if (++label > 63)
			return "label longer than 63 characters";
	}
	if (label == 0 || h[n - 1] == '-')
		return "empty or malformed label in host";
	if (dots == 0)
		return "a dotless host other than localhost (too broad or not a domain)";
	return NULL;
}

const char *netpat_check(const char *entry, enum netpat_kind kind)
{
	if (!*entry)
		return "empty entry";
	if (strstr(entry, "://") || strchr(entry, '/'))
		return "a scheme or path is not a host pattern";

	const char *host = entry, *port = NULL;
	size_t hn;
	if (entry[0] == '[') {
		const char *close = strchr(entry, ']');
		if (!close)
			return "unclosed '[' in IPv6 address";
		char buf[64];
		size_t n = (size_t)(close - entry - 1);
		struct in6_addr a6;
		if (n >= sizeof(buf))
			return "bad IPv6 address";
		memcpy(buf, entry + 1, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET6, buf, &a6) != 1)
			return "bad IPv6 address";
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return "junk after IPv6 address";
		if (port && !valid_port(port))
			return "bad port (1-65535)";
		if (kind == NETPAT_IGNORE && !port)
			return "an ignore entry is host:port";
		return NULL;
	}
	const char *colon = strchr(entry, ':');
	if (colon && strchr(colon + 1, ':'))
		return "an IPv6 address needs brackets ([::1]:443)";
	if (colon) {
		port = colon + 1;
		hn = (size_t)(colon - entry);
		if (!valid_port(port))
			return "bad port (1-65535)";
	} else {
		hn = strlen(entry);
	}
	if (kind == NETPAT_IGNORE && !port)
		return "an ignore entry is host:port";

	if (hn == 1 && host[0] == '*')
		return kind == NETPAT_DENY ? NULL : "'*' would allow every host";
	if (hn == 9 && strncasecmp(host, "localhost", 9) == 0)
		return NULL;
	bool numeric;
	if (hn > 2 && host[0] == '*' && host[1] == '.') {
		const char *why = check_domain(host + 2, hn - 2, &numeric);
		if (why)
			return strstr(why, "dotless") ? "'*.tld' is too broad" : why;
		if (numeric || is_ipv4(host + 2, hn - 2))
			return "a wildcard never matches an IP address";
		return NULL;
	}
	if (is_ipv4(host, hn))
		return NULL;
	const char *why = check_domain(host, hn, &numeric);
	if (why)
		return why;
	if (numeric)
		return "not a canonical IPv4 address (write a.b.c.d)";
	return NULL;
}

/* One part of an IPv4 spelling as inet_aton reads it: 0x.. hex, 0.. octal,
 * else decimal. -1 when it is none of those or too large. */
static long long ipv4_part(const char *s, size_t n)
{
	int base = 10;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
		if (n == 0)
			return 0; /* "0x" alone is 0, as resolvers read it */
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		s++;
		n--;
	}
	if (n == 0 || n > 12)
		return -1;
	long long v = 0;
	for (size_t i = 0; i < n; i++) {
		int d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (d >= base)
			return -1;
		v = v * base + d;
	}
	return v;
}

/* Does the last label of h[0..n) look like a number (so the whole host must
 * be an IPv4 address)? */
static bool last_label_numeric(const char *h, size_t n)
{
	size_t i = n;
	while (i > 0 && h[i - 1] != '.')
		i--;
	const char *l = h + i;
	size_t ln = n - i;
	if (ln == 0)
		return false;
	if (ln >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
		for (size_t k = 2; k < ln; k++)
			if (!isxdigit((unsigned char)l[k]))
				return false;
		return true;
	}
	for (size_t k = 0; k < ln; k++)
		if (!isdigit((unsigned char)l[k]))
			return false;
	return true;
}

static bool parse_ipv4_any(const char *h, size_t n, struct in_addr *out)
{
	long long part[4];
	size_t np = 0, start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && h[i] != '.')
			continue;
		if (np == 4)
			return false;
		part[np] = ipv4_part(h + start, i - start);
		if (part[np] < 0)
			return false;
		np++;
		start = i + 1;
	}
	uint32_t v = 0;
	for (size_t i = 0; i + 1 < np; i++) {
		if (part[i] > 255)
			return false;
		v |= (uint32_t)part[i] << (24 - 8 * i);
	}
	long long last = part[np - 1];
	if (last >= (1LL << (8 * (5 - np))))
		return false;
	v |= (uint32_t)last;
	out->s_addr = htonl(v);
	return true;
}

enum netpat_host netpat_host_canon(const char *host, size_t len,
	char out[NETPAT_HOST_MAX], const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	out[0] = '\0';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)host[i];
		if (c <= ' ' || c >= 0x7f || c == '%' || c == '@' || c == '/' || c == '\\') {
			*why = "a control, space, '%', '@', '/' or non-ASCII byte in the host";
			return NETPAT_HOST_BAD;
		}
	}
	if (len == 0) {
		*why = "empty host";
		return NETPAT_HOST_BAD;
	}
	if (host[0] == '[' || memchr(host, ':', len)) {
		char buf[64];
		const char *h = host;
		size_t n = len;
		if (host[0] == '[') {
			if (len < 2 || host[len - 1] != ']') {
				*why = "unclosed '[' in IPv6 address";
				return NETPAT_HOST_BAD;
			}
			h++;
			n -= 2;
		}
		struct in6_addr a6;
		if (n >= sizeof(buf)) {
			*why = "bad IPv6 address";
			return NETPAT_HOST_BAD;
		}
		memcpy(buf, h, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET6, buf, &a6) != 1) {
			*why = "bad IPv6 address";
			return NETPAT_HOST_BAD;
		}
		if (IN6_IS_ADDR_V4MAPPED(&a6)) {
			inet_ntop(AF_INET, &a6.s6_addr[12], out, NETPAT_HOST_MAX);
			return NETPAT_HOST_IPV4;
		}
		inet_ntop(AF_INET6, &a6, out, NETPAT_HOST_MAX);
		return NETPAT_HOST_IPV6;
	}
	size_t n = len;
	if (host[n - 1] == '.')
		n--;
	if (n == 0) {
		*why = "empty host";
		return NETPAT_HOST_BAD;
	}
	if (last_label_numeric(host, n)) {
		struct in_addr a4;
		if (!parse_ipv4_any(host, n, &a4)) {
			*why = "a numeric host that is no IPv4 address";
			return NETPAT_HOST_BAD;
		}
		inet_ntop(AF_INET, &a4, out, NETPAT_HOST_MAX);
		return NETPAT_HOST_IPV4;
	}
	if (n > 253) {
		*why = "host name longer than 253 characters";
		return NETPAT_HOST_BAD;
	}
	size_t label = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)host[i];
		if (c == '.') {
			if (label == 0) {
				*why = "empty label in host";
				return NETPAT_HOST_BAD;
			}
			label = 0;
		} else if (isalnum(c) || c == '-' || c == '_') {
			if (++label > 63) {
				*why = "label longer than 63 characters";
				return NETPAT_HOST_BAD;
			}
		} else {
			*why = "invalid character in host";
			return NETPAT_HOST_BAD;
		}
		out[i] = (char)tolower(c);
	}
	out[n] = '\0';
	return NETPAT_HOST_NAME;
}

/* Split an entry into its host part and port (0: any). */
static size_t entry_split(const char *entry, unsigned *port)
{
	const char *colon;
	*port = 0;
	if (entry[0] == '[') {
		const char *close = strchr(entry, ']');
		if (!close)
			return strlen(entry);
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = strchr(entry, ':');
	}
	if (!colon)
		return strlen(entry);
	*port = (unsigned)strtoul(colon + 1, NULL, 10);
	return (size_t)(colon - entry);
}

bool netpat_match(const char *entry, const char *host, unsigned port)
{
	unsigned eport;
	size_t en = entry_split(entry, &eport);
	if (eport && eport != port)
		return false;
	if (en == 1 && entry[0] == '*')
		return true;
	char h[NETPAT_HOST_MAX], e[NETPAT_HOST_MAX];
	enum netpat_host hk = netpat_host_canon(host, strlen(host), h, NULL);
	if (hk == NETPAT_HOST_BAD)
		return false;
	if (en > 2 && entry[0] == '*' && entry[1] == '.') {
		if (hk != NETPAT_HOST_NAME)
			return false;
		if (netpat_host_canon(entry + 2, en - 2, e, NULL) != NETPAT_HOST_NAME)
			return false;
		size_t hl = strlen(h), el = strlen(e);
		return hl > el + 1 && h[hl - el - 1] == '.' && memcmp(h + hl - el, e, el) == 0;
	}
	enum netpat_host ek = netpat_host_canon(entry, en, e, NULL);
	return ek != NETPAT_HOST_BAD && ek == hk && strcmp(e, h) == 0;
}

bool netpat_is_literal(const char *entry)
{
	unsigned port;
	size_t en = entry_split(entry, &port);
	char e[NETPAT_HOST_MAX];
	enum netpat_host k = netpat_host_canon(entry, en, e, NULL);
	return k == NETPAT_HOST_IPV4 || k == NETPAT_HOST_IPV6 ||
		(k == NETPAT_HOST_NAME && strcmp(e, "localhost") == 0);
}
