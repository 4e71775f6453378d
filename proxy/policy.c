#include "policy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "netpat.h"

void policy_list_add(char ***list, size_t *n, const char *entry)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], entry) == 0)
			return;
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(entry);
}

struct ptask *policy_task_new(const char *id)
{
	struct ptask *t = xcalloc(1, sizeof(*t));
	t->id = xstrdup(id);
	return t;
}

bool policy_judge(const struct policy *p, const struct ptask *t, const char *host,
	unsigned port, bool *literal, char *why, size_t whylen)
{
	*literal = false;
	for (size_t i = 0; i < p->ndeny; i++) {
		if (netpat_match(p->deny[i], host, port)) {
			snprintf(why, whylen, "deny.network '%s'", p->deny[i]);
			return false;
		}
	}
	char *const *list = t->all ? p->uni : t->allow;
	size_t n = t->all ? p->nuni : t->nallow;
	bool ok = false;
	for (size_t i = 0; i < n; i++) {
		if (netpat_match(list[i], host, port)) {
			ok = true;
			if (netpat_is_literal(list[i]))
				*literal = true;
		}
	}
	if (!ok)
		snprintf(why, whylen, "%s", n ? "not in allow.network" : "no network grant");
	return ok;
}

static const char *v4_class(uint32_t a)
{
	if (a == 0xa9fea9fe || a == 0x646464c8 || a == 0xc00000c0) /* 169.254.169.254, 100.100.100.200, 192.0.0.192 */
		return "metadata";
	if ((a >> 24) == 127)
		return "loopback";
	if ((a >> 24) == 0)
		return "unspecified";
	if ((a >> 16) == 0xa9fe)
		return "link-local";
	if ((a >> 28) == 0xe || a == 0xffffffff)
		return "multicast or broadcast";
	return NULL;
}

const char *policy_addr_class(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_class(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family != AF_INET6)
		return "unspecified";
	const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a)) {
		uint32_t v;
		memcpy(&v, &a->s6_addr[12], 4);
		return v4_class(ntohl(v));
	}
	static const unsigned char ec2[16] = { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 };
	if (memcmp(a->s6_addr, ec2, 16) == 0)
		return "metadata";
	if (IN6_IS_ADDR_LOOPBACK(a))
		return "loopback";
	if (IN6_IS_ADDR_UNSPECIFIED(a))
		return "unspecified";
	if (IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_SITELOCAL(a))
		return "link-local";
	if (IN6_IS_ADDR_MULTICAST(a))
		return "multicast or broadcast";
	return NULL;
}

const char *policy_addr_denied(const struct policy *p, const struct sockaddr *sa,
	unsigned port)
{
	char text[INET6_ADDRSTRLEN + 2];
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, text, sizeof(text));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, text, sizeof(text));
	else
		return NULL;
	for (size_t i = 0; i < p->ndeny; i++) {
		/* names and wildcards were judged on the name already */
		if (!netpat_is_literal(p->deny[i]) || strncasecmp(p->deny[i], "localhost", 9) == 0)
			continue;
		if (netpat_match(p->deny[i], text, port))
			return p->deny[i];
	}
	return NULL;
}
