/* lookup.c: the hint for names a task looked up itself (lookup.h). */
#include "lookup.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "netpat.h"

/* Past this many names the hint says how many more. */
#define SHOWN 4

void lookup_add(cJSON **set, const cJSON *rec)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(rec, "name");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(rec, "trace");
	char canon[NETPAT_HOST_MAX];
	const char *why, *e;
	if (!cJSON_IsString(n) || !cJSON_IsString(kind) ||
		(strcmp(kind->valuestring, "dns") && strcmp(kind->valuestring, "proxied")) ||
		netpat_host_canon(n->valuestring, strlen(n->valuestring), canon, &why) !=
			NETPAT_HOST_NAME)
		return;
	if (!*set)
		*set = cJSON_CreateObject();
	cJSON *names = cJSON_GetObjectItemCaseSensitive(*set, kind->valuestring);
	if (!names)
		names = cJSON_AddArrayToObject(*set, kind->valuestring);
	const cJSON *it;
	cJSON_ArrayForEach(it, names)
		if ((e = cJSON_GetStringValue(it)) && !strcmp(e, canon))
			return;
	cJSON_AddItemToArray(names, cJSON_CreateString(canon));
}

/* The names looked up that the proxy never carried. */
static cJSON *unproxied(const cJSON *set)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *d, *p, *via = cJSON_GetObjectItemCaseSensitive(set, "proxied");
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(set, "dns")) {
		bool carried = false;
		cJSON_ArrayForEach(p, via)
			carried |= !strcmp(p->valuestring, d->valuestring);
		if (!carried)
			cJSON_AddItemToArray(out, cJSON_CreateString(d->valuestring));
	}
	return out;
}

/* Would the task's allow.network let a request for host through (on the
 * ports a web client uses)? */
static bool granted(const cJSON *grant, const char *host)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, grant)
		if (cJSON_IsString(e) && !netpat_check(e->valuestring, NETPAT_ALLOW) &&
			(netpat_match(e->valuestring, host, 443) || netpat_match(e->valuestring, host, 80)))
			return true;
	return false;
}

/* "a, b and c" of the first cnt names ("a, b, c" when more follow). */
static char *list(const cJSON *names, int cnt, bool more)
{
	char *s = xstrdup("");
	for (int i = 0; i < cnt; i++) {
		const char *sep = i == 0 ? "" : (i + 1 == cnt && !more) ? " and " : ", ";
		char *t = xasprintf("%s%s%s", s, sep, cJSON_GetStringValue(cJSON_GetArrayItem(names, i)));
		free(s);
		s = t;
	}
	return s;
}

char *lookup_hint(const char *id, const cJSON *set, const cJSON *task)
{
	cJSON *names = unproxied(set);
	int n = cJSON_GetArraySize(names);
	if (n <= 0) {
		cJSON_Delete(names);
		return NULL;
	}
	const cJSON *grant = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(task, "sandbox"),
			"allow"), "network");
	int shown = n > SHOWN ? SHOWN : n;
	char *who = list(names, shown, n > shown);
	char *more = n > shown ? xasprintf(" and %d more", n - shown) : xstrdup("");
	/* the grant, said of the names shown: granted ones would pass through
	 * the proxy; the others need allow.network as well */
	cJSON *no = cJSON_CreateArray();
	for (int i = 0; i < shown; i++) {
		const char *name = cJSON_GetStringValue(cJSON_GetArrayItem(names, i));
		if (!cJSON_IsTrue(grant) && !granted(grant, name))
			cJSON_AddItemToArray(no, cJSON_CreateString(name));
	}
	char *grants;
	int nno = cJSON_GetArraySize(no);
	if (cJSON_IsTrue(grant)) {
		grants = xstrdup("allow.network is true: through the proxy the tool may reach "
			"the hosts the run grants");
	} else if (nno == 0) {
		grants = xasprintf("allow.network grants %s, so through the proxy the tool "
			"would pass", n == 1 ? "it" : "those shown");
	} else {
		char *l = list(no, nno, false), *quoted = xstrdup("");
		for (int i = 0; i < nno; i++) {
			char *t = xasprintf("%s%s'%s'", quoted, i ? ", " : "",
				cJSON_GetStringValue(cJSON_GetArrayItem(no, i)));
			free(quoted);
			quoted = t;
		}
		grants = xasprintf("%s %s not in allow.network either: add [%s] for the tool "
			"to pass through the proxy", l, nno == 1 ? "is" : "are", quoted);
		free(l);
		free(quoted);
	}
	char *line = xasprintf("vx: %s looked up %s%s itself (DNS), which a sandboxed task "
		"cannot do (the sandbox answers every lookup REFUSED): the tool ignores "
		"HTTP_PROXY/HTTPS_PROXY, the only way out; Node's own fetch and http(s) follow them "
		"only with NODE_USE_ENV_PROXY=1 (which vx sets) from Node 22.21 and 24, so Node 20's "
		"fetch fails this way; fix: run it on Node >= 22.21, or give the tool its own proxy "
		"setting ($HTTPS_PROXY); %s", id, who, more, grants);
	free(who);
	free(more);
	free(grants);
	cJSON_Delete(no);
	cJSON_Delete(names);
	return line;
}
