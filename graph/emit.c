#include "emit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"

#define FORMAT_VERSION 1

static const char *const kind_names[] = {"exec", "group", "persistent"};

static cJSON *strings_or_default(const cJSON *obj, const char *name, const char *dflt)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
	if (v)
		return cJSON_Duplicate(v, 1);
	cJSON *a = cJSON_CreateArray();
	if (dflt)
		cJSON_AddItemToArray(a, cJSON_CreateString(dflt));
	return a;
}

/* cache as the later stages need it: every list present, defaults filled. */
static cJSON *normal_cache(const cJSON *cache)
{
	if (!cache)
		return cJSON_CreateNull();
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(cache, "inputs");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(cache, "outputs");
	cJSON *c = cJSON_CreateObject(), *i = cJSON_AddObjectToObject(c, "inputs");
	cJSON_AddItemToObject(i, "files", strings_or_default(in, "files", "**/*"));
	cJSON_AddItemToObject(i, "env", strings_or_default(in, "env", NULL));
	cJSON_AddItemToObject(i, "runtime", strings_or_default(in, "runtime", NULL));
	cJSON_AddItemToObject(i, "workspaceFiles", strings_or_default(in, "workspaceFiles", NULL));
	cJSON *o = cJSON_AddObjectToObject(c, "outputs");
	cJSON_AddItemToObject(o, "files", strings_or_default(out, "files", NULL));
	return c;
}

static char *host_key(const char *s)
{
	char *k = xstrdup(s);
	for (char *p = k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	size_t n = strlen(k);
	char *colon = strrchr(k, ':');
	if (colon && colon > k && colon[-1] == '.')
		memmove(colon - 1, colon, strlen(colon) + 1);
	else if (n > 1 && k[n - 1] == '.')
		k[n - 1] = '\0';
	return k;
}

static void add_unique(cJSON *arr, const char *s)
{
	char *k = host_key(s);
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) if (strcmp(e->valuestring, k) == 0)
	{
		free(k);
		return;
	}
	cJSON_AddItemToArray(arr, cJSON_CreateString(k));
	free(k);
}

static const cJSON *path2(const cJSON *o, const char *a, const char *b)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

static cJSON *run_facts(struct task **order, size_t n)
{
	cJSON *sb = cJSON_CreateObject();
	cJSON *net = cJSON_CreateObject();
	cJSON *allow = cJSON_AddArrayToObject(net, "allow");
	cJSON *deny = cJSON_AddArrayToObject(net, "deny");
	size_t count = 0, weaker = 0;
	bool unix_sockets = false;
	for (size_t i = 0; i < n; i++) {
		const cJSON *s = order[i]->sandbox;
		const cJSON *e;
		if (!s)
			continue;
		count++;
		const cJSON *a = path2(s, "allow", "network");
		if (cJSON_IsArray(a))
			cJSON_ArrayForEach(e, a) add_unique(allow, e->valuestring);
		const cJSON *d = path2(s, "deny", "network");
		if (cJSON_IsArray(d))
			cJSON_ArrayForEach(e, d) add_unique(deny, e->valuestring);
		const cJSON *u = path2(s, "allow", "unixSockets");
		const cJSON *lb = path2(s, "allow", "localBinding");
		if (cJSON_IsTrue(u) || (cJSON_IsArray(u) && cJSON_GetArraySize(u) > 0) ||
			(cJSON_IsArray(lb) && cJSON_GetArraySize(lb) > 0))
			unix_sockets = true;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "weakerWhenNested")))
			weaker++;
	}
	cJSON_AddNumberToObject(sb, "tasks", (double)count);
	cJSON_AddItemToObject(sb, "network", net);
	cJSON_AddBoolToObject(sb, "unixSockets", unix_sockets);
	cJSON_AddBoolToObject(sb, "weakerWhenNested", count > 0 && weaker == count);
	return sb;
}

void emit_graph(const struct workspace *ws, struct task **order, size_t n)
{
	cJSON *g = cJSON_CreateObject();
	cJSON_AddStringToObject(g, "type", "graph");
	cJSON_AddNumberToObject(g, "v", FORMAT_VERSION);
	cJSON_AddStringToObject(g, "root", ws->root);
	cJSON_AddNumberToObject(g, "tasks", (double)n);
	/* every project, so a later stage can leave nested projects out of a
	 * project's files and map link targets back to projects */
	cJSON *projects = cJSON_AddArrayToObject(g, "projects");
	for (size_t i = 0; i < ws->nprojects; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "name", ws->projects[i]->name);
		cJSON_AddStringToObject(p, "dir", ws->projects[i]->dir);
		cJSON_AddItemToArray(projects, p);
	}
	cJSON_AddItemToObject(g, "sandbox", run_facts(order, n));
	jsonl_write(g);
	cJSON_Delete(g);

	for (size_t i = 0; i < n; i++) {
		const struct task *t = order[i];
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "type", "task");
		cJSON_AddStringToObject(r, "id", t->id);
		cJSON_AddStringToObject(r, "project", t->proj->name);
		cJSON_AddStringToObject(r, "name", t->name);
		cJSON_AddStringToObject(r, "dir", t->proj->dir);
		cJSON_AddStringToObject(r, "config", t->proj->config);
		cJSON_AddStringToObject(r, "kind", kind_names[t->kind]);
		if (t->command)
			cJSON_AddStringToObject(r, "command", t->command);
		else
			cJSON_AddNullToObject(r, "command");
		cJSON *deps = cJSON_AddArrayToObject(r, "deps");
		cJSON *folds = cJSON_AddArrayToObject(r, "folds");
		for (size_t e = 0; e < t->nedges; e++) {
			cJSON_AddItemToArray(deps, cJSON_CreateString(t->edges[e].to->id));
			if (t->edges[e].folded)
				cJSON_AddItemToArray(folds, cJSON_CreateString(t->edges[e].to->id));
		}
		cJSON *keyed = cJSON_AddArrayToObject(r, "keyed");
		for (size_t k = 0; k < t->nkeyed; k++)
			cJSON_AddItemToArray(keyed, cJSON_CreateString(ws->projects[t->keyed[k]]->name));
		cJSON_AddItemToObject(r, "cache", normal_cache(t->cache));
		if (t->sandbox)
			cJSON_AddItemToObject(r, "sandbox", cJSON_Duplicate(t->sandbox, 1));
		else
			cJSON_AddNullToObject(r, "sandbox");
		jsonl_write(r);
		cJSON_Delete(r);
	}
}
