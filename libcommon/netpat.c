#include "netpat.h"

#include <arpa/inet.h>
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
