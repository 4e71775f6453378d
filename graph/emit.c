#include "emit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "err.h"
#include "jsonl.h"
#include "jsonw.h"

#define FORMAT_VERSION 1

static const char *const kind_names[] = {"exec", "group", "persistent"};

static void strings_or_default(struct jsonw *w, const cJSON *obj, const char *name,
	const char *dflt)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
	jsonw_key(w, name);
	if (v) {
		jsonw_cjson(w, v);
		return;
	}
	jsonw_open(w, '[');
	if (dflt)
		jsonw_str(w, dflt);
	jsonw_close(w, ']');
}

/* cache as the later stages need it: every list present, defaults filled. */
static void normal_cache(struct jsonw *w, const cJSON *cache)
{
	jsonw_key(w, "cache");
	if (!cache) {
		jsonw_null(w);
		return;
	}
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(cache, "inputs");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(cache, "outputs");
	jsonw_open(w, '{');
	jsonw_key(w, "inputs");
	jsonw_open(w, '{');
	strings_or_default(w, in, "files", "**/*");
	strings_or_default(w, in, "env", NULL);
	strings_or_default(w, in, "runtime", NULL);
	strings_or_default(w, in, "workspaceFiles", NULL);
	jsonw_close(w, '}');
	jsonw_key(w, "outputs");
	jsonw_open(w, '{');
	strings_or_default(w, out, "files", NULL);
	jsonw_close(w, '}');
	jsonw_close(w, '}');
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
		/* a localBinding list needs no AF_UNIX: vx-sandbox relays its ports */
		const cJSON *u = path2(s, "allow", "unixSockets");
		if (cJSON_IsTrue(u) || (cJSON_IsArray(u) && cJSON_GetArraySize(u) > 0))
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

/* The root vx.json's workspace-wide member name, or NULL. */
static const cJSON *root_setting(const struct workspace *ws, const char *name)
{
	for (size_t i = 0; i < ws->nprojects; i++)
		if (strcmp(ws->projects[i]->dir, ".") == 0)
			return cJSON_GetObjectItemCaseSensitive(ws->projects[i]->json, name);
	return NULL;
}

/* envMode and passThroughEnv as the task gets them (R-8a, taskenv.h): its
 * own mode, else the root's, else strict; the root's list, then its own. */
static void task_env(struct jsonw *w, const struct task *t, const cJSON *mode, bool forced,
	const cJSON *pass)
{
	const cJSON *m = t->env_mode && !forced ? t->env_mode : mode;
	jsonw_key(w, "envMode");
	jsonw_str(w, cJSON_IsString(m) ? m->valuestring : "strict");
	jsonw_key(w, "passThroughEnv");
	jsonw_open(w, '[');
	const cJSON *lists[] = {pass, t->pass_env}, *e;
	for (size_t l = 0; l < 2; l++)
		cJSON_ArrayForEach(e, lists[l]) if (cJSON_IsString(e)) jsonw_str(w, e->valuestring);
	jsonw_close(w, ']');
}

void emit_graph(const struct workspace *ws, struct task **order, size_t n)
{
	cJSON *forced = ws->env_mode ? cJSON_CreateString(ws->env_mode) : NULL;
	const cJSON *root_mode = forced ? forced : root_setting(ws, "envMode");
	const cJSON *root_pass = root_setting(ws, "passThroughEnv");
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
	unsigned long long cap;
	if (config_size(root_setting(ws, "cacheMaxSize"), &cap) == 0)
		cJSON_AddNumberToObject(g, "cacheMaxSize", (double)cap);
	jsonl_write(g);
	cJSON_Delete(g);

	/* task records are the hot loop: written with jsonw into one buffer */
	struct jsonw w = {0};
	for (size_t i = 0; i < n; i++) {
		const struct task *t = order[i];
		jsonw_reset(&w);
		jsonw_open(&w, '{');
		jsonw_key(&w, "type");
		jsonw_str(&w, "task");
		jsonw_key(&w, "id");
		jsonw_str(&w, t->id);
		jsonw_key(&w, "project");
		jsonw_str(&w, t->proj->name);
		jsonw_key(&w, "name");
		jsonw_str(&w, t->name);
		jsonw_key(&w, "dir");
		jsonw_str(&w, t->proj->dir);
		jsonw_key(&w, "config");
		jsonw_str(&w, t->proj->config);
		jsonw_key(&w, "kind");
		jsonw_str(&w, kind_names[t->kind]);
		jsonw_key(&w, "command");
		jsonw_str(&w, t->command);
		jsonw_key(&w, "deps");
		jsonw_open(&w, '[');
		for (size_t e = 0; e < t->nedges; e++)
			jsonw_str(&w, t->edges[e].to->id);
		jsonw_close(&w, ']');
		jsonw_key(&w, "folds");
		jsonw_open(&w, '[');
		for (size_t e = 0; e < t->nedges; e++)
			if (t->edges[e].folded)
				jsonw_str(&w, t->edges[e].to->id);
		jsonw_close(&w, ']');
		jsonw_key(&w, "keyed");
		jsonw_open(&w, '[');
		for (size_t k = 0; k < t->nkeyed; k++)
			jsonw_str(&w, ws->projects[t->keyed[k]]->name);
		jsonw_close(&w, ']');
		task_env(&w, t, root_mode, forced != NULL, root_pass);
		normal_cache(&w, t->cache);
		jsonw_key(&w, "sandbox");
		jsonw_cjson(&w, t->sandbox);
		jsonw_close(&w, '}');
		jsonl_write_raw(w.sb.buf, w.sb.len);
	}
	jsonw_free(&w);
	cJSON_Delete(forced);
}
