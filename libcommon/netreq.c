/* netreq.c: vx-proxy's request records (netreq.h). */
#include "netreq.h"

static const cJSON *path2(const cJSON *o, const char *a, const char *b)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

static const cJSON *grant(const cJSON *task)
{
	return path2(cJSON_GetObjectItemCaseSensitive(task, "sandbox"), "allow", "network");
}

bool netreq_granted(const cJSON *task)
{
	const cJSON *g = grant(task);
	return cJSON_IsTrue(g) || cJSON_IsArray(g);
}

cJSON *netreq_proxy(const cJSON *graph)
{
	const cJSON *net = path2(graph, "sandbox", "network");
	const cJSON *deny = cJSON_GetObjectItemCaseSensitive(net, "deny");
	const cJSON *uni = cJSON_GetObjectItemCaseSensitive(net, "allow");
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "proxy");
	cJSON_AddNumberToObject(rec, "v", 1);
	cJSON_AddItemToObject(rec, "deny", cJSON_IsArray(deny) ? cJSON_Duplicate(deny, 1)
							       : cJSON_CreateArray());
	if (cJSON_IsArray(uni))
		cJSON_AddItemToObject(rec, "union", cJSON_Duplicate(uni, 1));
	return rec;
}

cJSON *netreq_task(const cJSON *task, const char *id, const char *socket, const char *control)
{
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "task");
	cJSON_AddStringToObject(rec, "task", id);
	cJSON_AddStringToObject(rec, "socket", socket);
	if (control)
		cJSON_AddStringToObject(rec, "control", control);
	/* no grant: no "network", and vx-proxy refuses and reports every request */
	if (netreq_granted(task))
		cJSON_AddItemToObject(rec, "network", cJSON_Duplicate(grant(task), 1));
	return rec;
}
