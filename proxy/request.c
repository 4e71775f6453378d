#include "request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "loop.h"
#include "netpat.h"
#include "server.h"

static const char *where_;
static size_t line_;

static _Noreturn void bad(const char *key, const char *what)
{
	err_die(VX_EXIT_USAGE, "%s:%zu: %s: %s", where_, line_, key, what);
}

/* A list of entries into *list (and the union, unless the request gave it). */
static void take_list(struct policy *p, const cJSON *arr, const char *key,
	enum netpat_kind kind, char ***list, size_t *n, bool grow_union)
{
	if (!cJSON_IsArray(arr))
		bad(key, "not a list of strings");
	const cJSON *e;
	int i = 0;
	cJSON_ArrayForEach(e, arr) {
		char k[128];
		snprintf(k, sizeof(k), "%s[%d]", key, i++);
		if (!cJSON_IsString(e))
			bad(k, "not a string");
		const char *why = netpat_check(e->valuestring, kind);
		if (why) {
			char *m = xasprintf("'%s': %s", e->valuestring, why);
			bad(k, m);
		}
		policy_list_add(list, n, e->valuestring);
		if (grow_union)
			policy_list_add(&p->uni, &p->nuni, e->valuestring);
	}
}

static void add_task(struct loop *L, struct policy *p, const cJSON *t, const char *key)
{
	char k[160];
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "task");
	const cJSON *sock = cJSON_GetObjectItemCaseSensitive(t, "socket");
	const cJSON *fd = cJSON_GetObjectItemCaseSensitive(t, "fd");
	const cJSON *net = cJSON_GetObjectItemCaseSensitive(t, "network");
	const cJSON *ctl = cJSON_GetObjectItemCaseSensitive(t, "control");
	if (!cJSON_IsObject(t))
		bad(key, "not an object");
	if (!cJSON_IsString(id) || !*id->valuestring)
		bad(key, "\"task\" (the task id) missing");
	if (cJSON_IsString(sock) == cJSON_IsNumber(fd))
		bad(key, "give one of \"socket\" (a path) and \"fd\" (a listening socket)");
	struct ptask *pt = policy_task_new(id->valuestring);
	if (cJSON_IsTrue(net)) {
		pt->all = true;
	} else if (net && !cJSON_IsNull(net) && !cJSON_IsFalse(net)) {
		snprintf(k, sizeof(k), "%s.network", key);
		take_list(p, net, k, NETPAT_ALLOW, &pt->allow, &pt->nallow, !p->uni_given);
	}
	if (ctl && !cJSON_IsString(ctl))
		bad(key, "\"control\": not a path where a socket can be bound");
	int rc = server_add_task(L, pt, cJSON_IsString(sock) ? sock->valuestring : NULL,
		cJSON_IsNumber(fd) ? fd->valueint : -1, ctl ? ctl->valuestring : NULL);
	if (rc == -2)
		bad(key, "\"control\": not a path where a socket can be bound");
	if (rc < 0)
		bad(key, "cannot serve this task's socket");
}

void request_apply(struct loop *L, struct policy *p, const char *text, const char *where,
	size_t line)
{
	static bool head_seen;
	where_ = where;
	line_ = line;
	cJSON *r = cJSON_Parse(text);
	if (!cJSON_IsObject(r))
		bad("(record)", "not a JSON object");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(r, "type");
	if (!cJSON_IsString(type))
		bad("type", "missing");
	if (strcmp(type->valuestring, "proxy") == 0) {
		if (head_seen)
			bad("type", "a second \"proxy\" record");
		head_seen = true;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "v");
		if (!cJSON_IsNumber(v) || v->valueint != 1)
			bad("v", "only version 1 is understood");
		const cJSON *deny = cJSON_GetObjectItemCaseSensitive(r, "deny");
		if (deny)
			take_list(p, deny, "deny", NETPAT_DENY, &p->deny, &p->ndeny, false);
		const cJSON *uni = cJSON_GetObjectItemCaseSensitive(r, "union");
		if (uni) {
			p->uni_given = true;
			char **scratch = NULL;
			size_t ns = 0;
			take_list(p, uni, "union", NETPAT_ALLOW, &scratch, &ns, true);
			for (size_t i = 0; i < ns; i++)
				free(scratch[i]);
			free(scratch);
		}
		const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(r, "tasks");
		if (tasks && !cJSON_IsArray(tasks))
			bad("tasks", "not a list");
		const cJSON *t;
		int i = 0;
		cJSON_ArrayForEach(t, tasks) {
			char k[32];
			snprintf(k, sizeof(k), "tasks[%d]", i++);
			add_task(L, p, t, k);
		}
	} else if (strcmp(type->valuestring, "task") == 0) {
		if (!head_seen)
			bad("type", "a \"task\" record before the \"proxy\" record");
		add_task(L, p, r, "(task)");
	} else if (strcmp(type->valuestring, "done") == 0) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "task");
		if (!cJSON_IsString(id))
			bad("task", "\"task\" (the task id) missing");
		if (server_task_done(L, id->valuestring) < 0)
			bad("task", "names no task being served");
	} else {
		bad("type", "neither \"proxy\", \"task\" nor \"done\"");
	}
	cJSON_Delete(r);
}
