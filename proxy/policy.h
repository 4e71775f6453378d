/* policy.h: who may reach what. One run-wide deny list, checked first, and
 * per task an allow list: a task reaches only the hosts its own grant
 * names; `network: true` is the union of every list in the run. Entries are
 * matched by netpat_match (libcommon), the grammar vx-graph validated.
 *
 * The policy owns every string in it. Tasks are appended and never removed,
 * so a connection may keep a pointer to its task for its whole life.
 */
#ifndef VX_PROXY_POLICY_H
#define VX_PROXY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct ptask {
	char *id;
	char **allow;
	size_t nallow;
	bool all; /* network: true: the run's union */
};

struct policy {
	char **deny;
	size_t ndeny;
	char **uni; /* the run's union of allow lists */
	size_t nuni;
	bool uni_given; /* set by the request, not grown from the tasks */
};

/* Add entry to a list (copied, deduplicated). */
void policy_list_add(char ***list, size_t *n, const char *entry);
/* A task with an empty allow list (the caller fills it and, unless
 * uni_given, adds its entries to the union). */
struct ptask *policy_task_new(const char *id);

/* Judge a canonical host and port for task t. true: allowed, and *literal
 * says whether the entry that allowed it names the host literally (localhost
 * or an IP), so a loopback address is what was asked for. false: why[] holds
 * the reason for the record. */
bool policy_judge(const struct policy *p, const struct ptask *t, const char *host,
	unsigned port, bool *literal, char *why, size_t whylen);

/* Is sa an address a name may not lead to? NULL, or its class for the
 * reason ("loopback", "link-local", "metadata", "unspecified", "multicast").
 * IPv4-mapped IPv6 addresses are judged as the IPv4 they carry. */
const char *policy_addr_class(const struct sockaddr *sa);

/* Does an IP entry of the deny list name this address? (A name that
 * resolves to a denied address is denied too.) NULL or the entry. */
const char *policy_addr_denied(const struct policy *p, const struct sockaddr *sa,
	unsigned port);

#endif
