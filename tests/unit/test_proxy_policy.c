/* vx-proxy's judgement (policy.h): deny first, per-task lists, the union,
 * and the address classes a name may not lead to. */
#include <arpa/inet.h>

#include "policy.h"
#include "unit.h"

static const char *cls(const char *ip)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	return policy_addr_class((struct sockaddr *)&ss);
}

/* static: reachable at exit, so LeakSanitizer stays quiet */
static struct policy p;
static struct ptask *a, *none, *all;

int main(void)
{
	char why[256];
	bool lit;
	policy_list_add(&p.deny, &p.ndeny, "*:22");
	policy_list_add(&p.deny, &p.ndeny, "bad.test");
	a = policy_task_new("a");
	none = policy_task_new("none");
	all = policy_task_new("all");
	policy_list_add(&a->allow, &a->nallow, "*.ok.test");
	policy_list_add(&a->allow, &a->nallow, "localhost");
	policy_list_add(&p.uni, &p.nuni, "*.ok.test");
	policy_list_add(&p.uni, &p.nuni, "u.test:443");
	all->all = true;

	CHECK(policy_judge(&p, a, "x.ok.test", 443, &lit, why, sizeof(why)) && !lit);
	CHECK(!policy_judge(&p, a, "x.ok.test", 22, &lit, why, sizeof(why)));
	CHECK_STR(why, "deny.network '*:22'");
	CHECK(!policy_judge(&p, a, "ok.test", 443, &lit, why, sizeof(why)));
	CHECK_STR(why, "not in allow.network");
	CHECK(policy_judge(&p, a, "localhost", 3000, &lit, why, sizeof(why)) && lit);
	CHECK(!policy_judge(&p, none, "x.ok.test", 443, &lit, why, sizeof(why)));
	CHECK_STR(why, "no network grant");
	CHECK(policy_judge(&p, all, "u.test", 443, &lit, why, sizeof(why)));
	CHECK(!policy_judge(&p, all, "u.test", 80, &lit, why, sizeof(why)));
	CHECK(!policy_judge(&p, a, "bad.test", 443, &lit, why, sizeof(why)));

	CHECK_STR(cls("127.0.0.5"), "loopback");
	CHECK_STR(cls("0.0.0.0"), "unspecified");
	CHECK_STR(cls("169.254.169.254"), "metadata");
	CHECK_STR(cls("169.254.1.1"), "link-local");
	CHECK_STR(cls("100.100.100.200"), "metadata");
	CHECK_STR(cls("fd00:ec2::254"), "metadata");
	CHECK_STR(cls("::1"), "loopback");
	CHECK_STR(cls("::ffff:127.0.0.1"), "loopback");
	CHECK_STR(cls("fe80::1"), "link-local");
	CHECK_STR(cls("224.0.0.1"), "multicast or broadcast");
	CHECK_STR(cls("10.0.0.1"), NULL);
	CHECK_STR(cls("192.0.2.7"), NULL);
	CHECK_STR(cls("2001:db8::1"), NULL);
	return UNIT_END("proxy_policy");
}
