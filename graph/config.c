#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fileio.h"
#include "grantkind.h"
#include "jsonc.h"
#include "jsonl.h"
#include "netpat.h"
#include "path.h"
#include "size.h"
#include "taskenv.h"

struct ctx {
	struct workspace *ws;
	const char *file;
};

#define NKEYS(a) (sizeof(a) / sizeof(*(a)))

static const char *type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "null";
}

static char *key_join(const char *parent, const char *child)
{
	return *parent ? xasprintf("%s.%s", parent, child) : xstrdup(child);
}

static void bad_type(struct ctx *c, const cJSON *v, const char *key, const char *want,
	const char *fix)
{
	diag_config(c->ws, c->file, key, fix, "expected %s, got %s", want, type_name(v));
}

/* Refuse unknown and repeated keys of obj. Returns false on any. */
static bool check_keys(struct ctx *c, const cJSON *obj, const char *key,
	const char *const *allowed, size_t nallowed)
{
	bool ok = true;
	const cJSON *e, *f;
	cJSON_ArrayForEach(e, obj) {
		bool known = false;
		for (size_t i = 0; i < nallowed && !known; i++)
			known = strcmp(e->string, allowed[i]) == 0;
		char *k = key_join(key, e->string);
		if (!known) {
			char list[512] = "";
			for (size_t i = 0; i < nallowed; i++) {
				strncat(list, allowed[i], sizeof(list) - strlen(list) - 3);
				if (i + 1 < nallowed)
					strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			}
			char *fix = xasprintf("remove it or use one of: %s", list);
			diag_config(c->ws, c->file, k, fix, "unknown key");
			free(fix);
			ok = false;
		}
		for (f = e->next; f; f = f->next)
			if (strcmp(f->string, e->string) == 0) {
				diag_config(c->ws, c->file, k, "keep one of them", "key appears twice");
				ok = false;
				break;
			}
		free(k);
	}
	return ok;
}

/* An array of non-empty strings. check, when set, vets each one and returns
 * NULL or why it is wrong (with the fix after a '|'). */
static bool string_array(struct ctx *c, const cJSON *v, const char *key,
	const char *(*check)(const char *s, void *arg), void *arg)
{
	if (!cJSON_IsArray(v)) {
		bad_type(c, v, key, "an array of strings", "write a list, like [\"...\"]");
		return false;
	}
	bool ok = true;
	int i = -1;
	const cJSON *e;
	char k[1024];
	cJSON_ArrayForEach(e, v) {
		const char *why = NULL;
		i++;
		if (cJSON_IsString(e) && *e->valuestring && !(check && (why = check(e->valuestring, arg))))
			continue;
		/* the element's key is spelled only for an error: this loop is hot */
		snprintf(k, sizeof(k), "%s[%d]", key, i);
		ok = false;
		if (!cJSON_IsString(e)) {
			bad_type(c, e, k, "a string", "quote it");
		} else if (!*e->valuestring) {
			diag_config(c->ws, c->file, k, "remove the empty entry", "empty string");
		} else {
			const char *bar = strchr(why, '|');
			char *msg = xstrndup(why, bar ? (size_t)(bar - why) : strlen(why));
			diag_config(c->ws, c->file, k, bar ? bar + 1 : "correct the entry", "'%s': %s",
				e->valuestring, msg);
			free(msg);
		}
	}
	return ok;
}

static const char *check_rel_glob(const char *s, void *arg)
{
	const char *what = arg;
	const char *p = s[0] == '!' ? s + 1 : s;
	if (p[0] == '/' || p[0] == '~')
		return strcmp(what, "project") == 0
			       ? "not project-relative|write it relative to the project, or use cache.inputs.workspaceFiles"
			       : "not root-relative|write it relative to the workspace root";
	char *n = path_normalize(p);
	bool up = strncmp(n, "..", 2) == 0 && (n[2] == '/' || !n[2]);
	free(n);
	if (up)
		return strcmp(what, "project") == 0
			       ? "leaves the project|key files outside the project with cache.inputs.workspaceFiles"
			       : "leaves the workspace root|keep workspaceFiles inside the workspace";
	return NULL;
}

static const char *check_env_name(const char *s, void *arg)
{
	(void)arg;
	return taskenv_check(s);
}

/* envMode: "strict" or "loose" (R-8a). */
static void check_env_mode(struct ctx *c, const cJSON *v, const char *key)
{
	if (!cJSON_IsString(v) || (strcmp(v->valuestring, "strict") && strcmp(v->valuestring, "loose")))
		diag_config(c->ws, c->file, key, "write \"strict\" (the default) or \"loose\"",
			"expected \"strict\" or \"loose\"");
}

int config_size(const cJSON *v, unsigned long long *out)
{
	if (cJSON_IsString(v))
		return size_parse(v->valuestring, out);
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
	    v->valuedouble != (double)(unsigned long long)v->valuedouble)
		return -1;
	*out = (unsigned long long)v->valuedouble;
	return 0;
}

static const char *check_net(const char *s, void *arg)
{
	static char buf[256];
	const char *why = netpat_check(s, *(enum netpat_kind *)arg);
	if (!why)
		return NULL;
	snprintf(buf, sizeof(buf), "%s|write a host pattern: example.com, *.example.com, "
		"either with :port, or localhost", why);
	return buf;
}

static bool want_bool(struct ctx *c, const cJSON *v, const char *key)
{
	if (cJSON_IsBool(v))
		return true;
	bad_type(c, v, key, "true or false", "write true or false");
	return false;
}

static const cJSON *member(const cJSON *obj, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(obj, name);
}

static void check_ports(struct ctx *c, const cJSON *v, const char *k)
{
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, v) {
		double d = cJSON_IsNumber(e) ? e->valuedouble : 0;
		if (d < 1 || d > 65535 || d != (double)(int)d) {
			char *ek = xasprintf("%s[%d]", k, i);
			diag_config(c->ws, c->file, ek, "use a port number from 1 to 65535", "not a port");
			free(ek);
		}
		i++;
	}
}

/* One member's value, by its row's shape: the one place a shape is checked. */
static void check_grant(struct ctx *c, const struct grantkind *g, const cJSON *v, const char *k)
{
	enum netpat_kind kind = !strcmp(g->section, "deny") ? NETPAT_DENY :
		!strcmp(g->section, "ignore") ? NETPAT_IGNORE : NETPAT_ALLOW;
	switch (g->shape) {
	case GRANT_PATHS:
	case GRANT_STRINGS:
		string_array(c, v, k, NULL, NULL);
		break;
	case GRANT_HOSTS:
		string_array(c, v, k, check_net, &kind);
		break;
	case GRANT_HOSTS_OR_TRUE:
		if (cJSON_IsArray(v))
			string_array(c, v, k, check_net, &kind);
		else if (!cJSON_IsTrue(v))
			bad_type(c, v, k, "true or an array of host patterns",
				"write [\"example.com\"] or true");
		break;
	case GRANT_BOOL:
		want_bool(c, v, k);
		break;
	case GRANT_BOOL_OR_STRINGS:
		if (!cJSON_IsBool(v))
			string_array(c, v, k, NULL, NULL);
		break;
	case GRANT_BOOL_OR_PORTS:
		if (cJSON_IsArray(v))
			check_ports(c, v, k);
		else if (!cJSON_IsBool(v))
			bad_type(c, v, k, "a boolean or an array of ports", "write true or [3000]");
		break;
	}
}

/* The fix for name, no member of section: the section that has it, else a
 * near spelling, else the members there are. */
static char *unknown_grant_fix(const char *section, const char *name)
{
	const struct grantkind *g = grantkind_guess(section, name);
	const char *here = *section ? section : "the block";
	const char *blocks = *section ? "" : "allow, deny, ignore, ";
	char list[512], where[64] = "";
	grantkind_names(section, list, sizeof(list));
	if (g && !strcmp(g->section, section))
		return xasprintf("did you mean %s? (%s: %s)", g->path, g->path, g->example);
	if (!g)
		return xasprintf("remove it or use one of: %s%s", blocks, list);
	/* every section that has it: deny.read means allow.read or ignore.read */
	for (size_t i = 0; i < ngrantkinds; i++)
		if (!strcmp(grantkinds[i].name, name) &&
			strlen(where) + strlen(grantkinds[i].section) + 5 < sizeof(where))
			snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s%s",
				*where ? " or " : "", *grantkinds[i].section ? grantkinds[i].section :
				"the block");
	return xasprintf("%s is no member of %s: write it under %s (%s: %s); %s takes: %s%s",
		name, *section ? section : "the sandbox block", where, g->path, g->example, here,
		blocks, list);
}

/* The members of a sandbox section (section "": the block itself, whose
 * allow, deny and ignore are the sections), in one pass: a row of
 * grantkind.h checked by its shape, anything else refused naming the row
 * meant when one is near; and repeats. */
static void check_grants(struct ctx *c, const cJSON *obj, const char *key, const char *section)
{
	const cJSON *e, *f;
	cJSON_ArrayForEach(e, obj) {
		char *k = key_join(key, e->string);
		bool sect = !*section && (!strcmp(e->string, "allow") || !strcmp(e->string, "deny") ||
			!strcmp(e->string, "ignore"));
		const struct grantkind *row = sect ? NULL : grantkind_find(section, e->string);
		if (row && member(obj, e->string) == e)
			check_grant(c, row, e, k);
		else if (!sect && !row) {
			char *fix = unknown_grant_fix(section, e->string);
			diag_config(c->ws, c->file, k, fix, "unknown key");
			free(fix);
		}
		for (f = e->next; f; f = f->next)
			if (strcmp(f->string, e->string) == 0) {
				diag_config(c->ws, c->file, k, "keep one of them", "key appears twice");
				break;
			}
		free(k);
	}
}

static void check_sandbox(struct ctx *c, const cJSON *sb, const char *key)
{
	static const struct {
		const char *name, *fix;
	} sections[] = {
		{"allow", "write allow: { read: [...], write: [...] }"},
		{"deny", "write deny: { network: [...] }"},
		{"ignore", "write ignore: { read: [...] }"},
	};
	if (!cJSON_IsObject(sb)) {
		bad_type(c, sb, key, "an object", "write {} for the baseline sandbox");
		return;
	}
	check_grants(c, sb, key, "");
	for (size_t i = 0; i < NKEYS(sections); i++) {
		const cJSON *s = member(sb, sections[i].name);
		char *k = key_join(key, sections[i].name);
		if (s && !cJSON_IsObject(s))
			bad_type(c, s, k, "an object", sections[i].fix);
		else if (s)
			check_grants(c, s, k, sections[i].name);
		free(k);
	}
}

static void check_cache(struct ctx *c, const cJSON *cache, const char *key, struct task *t)
{
	static const char *const top[] = {"inputs", "outputs"};
	static const char *const inputs[] = {"files", "tasks", "env", "runtime", "workspaceFiles"};
	static const char *const outputs[] = {"files"};
	if (!cJSON_IsObject(cache)) {
		bad_type(c, cache, key, "an object", "write cache: {} for the defaults");
		return;
	}
	check_keys(c, cache, key, top, NKEYS(top));
	const cJSON *in = member(cache, "inputs"), *out = member(cache, "outputs"), *v;
	char *k, *ik = key_join(key, "inputs"), *ok = key_join(key, "outputs");
	if (in && !cJSON_IsObject(in)) {
		bad_type(c, in, ik, "an object", "write inputs: { files: [...] }");
	} else if (in) {
		check_keys(c, in, ik, inputs, NKEYS(inputs));
		if ((v = member(in, "files"))) {
			k = key_join(ik, "files");
			string_array(c, v, k, check_rel_glob, "project");
			free(k);
		}
		if ((v = member(in, "workspaceFiles"))) {
			k = key_join(ik, "workspaceFiles");
			string_array(c, v, k, check_rel_glob, "root");
			free(k);
		}
		if ((v = member(in, "env"))) {
			k = key_join(ik, "env");
			string_array(c, v, k, check_env_name, NULL);
			free(k);
		}
		if ((v = member(in, "runtime"))) {
			k = key_join(ik, "runtime");
			string_array(c, v, k, NULL, NULL);
			free(k);
		}
		if ((v = member(in, "tasks"))) {
			k = key_join(ik, "tasks");
			if (string_array(c, v, k, NULL, NULL)) {
				t->has_fold_filter = true;
				t->nfold_filter = (size_t)cJSON_GetArraySize(v);
				t->fold_filter = xcalloc(t->nfold_filter, sizeof(char *));
				size_t i = 0;
				const cJSON *e;
				cJSON_ArrayForEach(e, v) t->fold_filter[i++] = e->valuestring;
			}
			free(k);
		}
	}
	if (out && !cJSON_IsObject(out)) {
		bad_type(c, out, ok, "an object", "write outputs: { files: [\"dist/**\"] }");
	} else if (out) {
		check_keys(c, out, ok, outputs, NKEYS(outputs));
		if ((v = member(out, "files"))) {
			k = key_join(ok, "files");
			string_array(c, v, k, check_rel_glob, "project");
			free(k);
		}
	}
	free(ik);
	free(ok);
}

static bool has_glob_char(const char *s, char *which)
{
	for (const char *p = s; *p; p++)
		if (strchr("[]*?\\", *p)) {
			*which = *p;
			return true;
		}
	return false;
}

static void check_task(struct ctx *c, struct project *p, const char *name, const cJSON *tj)
{
	static const char *const keys[] = {"exec", "dependsOn", "cache"};
	static const char *const exec_keys[] = {"command", "persistent", "sandbox", "envMode",
		"passThroughEnv"};
	char *key = xasprintf("tasks.%s", name);
	char *k;
	const cJSON *v;

	if (!*name || strchr(name, '#') || name[0] == '^' || name[0] == '!' ||
		strpbrk(name, " \t\n")) {
		diag_config(c->ws, c->file, key,
			"name tasks without '#', spaces, or a leading '^' or '!'",
			"'%s' is not a valid task name", name);
		free(key);
		return;
	}
	if (!cJSON_IsObject(tj)) {
		bad_type(c, tj, key, "an object", "write { \"exec\": { \"command\": \"...\" } }");
		free(key);
		return;
	}
	check_keys(c, tj, key, keys, NKEYS(keys));

	struct task *t = xcalloc(1, sizeof(*t));
	t->name = name;
	t->proj = p;
	t->id = xasprintf("%s#%s", p->name, name);
	t->kind = TASK_GROUP;

	const cJSON *exec = member(tj, "exec");
	char *ek = key_join(key, "exec");
	if (exec && !cJSON_IsObject(exec)) {
		bad_type(c, exec, ek, "an object", "write exec: { \"command\": \"...\" }");
	} else if (exec) {
		t->kind = TASK_EXEC;
		check_keys(c, exec, ek, exec_keys, NKEYS(exec_keys));
		v = member(exec, "command");
		k = key_join(ek, "command");
		if (!v)
			diag_config(c->ws, c->file, k, "add the shell command to run",
				"missing (a task with exec runs a command)");
		else if (!cJSON_IsString(v))
			bad_type(c, v, k, "a string", "write the command as one string");
		else if (!*v->valuestring)
			diag_config(c->ws, c->file, k, "add the shell command to run", "empty command");
		else
			t->command = v->valuestring;
		free(k);
		if ((v = member(exec, "persistent"))) {
			k = key_join(ek, "persistent");
			if (want_bool(c, v, k) && cJSON_IsTrue(v))
				t->kind = TASK_PERSISTENT;
			free(k);
		}
		if ((v = member(exec, "envMode"))) {
			k = key_join(ek, "envMode");
			check_env_mode(c, v, k);
			t->env_mode = v;
			free(k);
		}
		if ((v = member(exec, "passThroughEnv"))) {
			k = key_join(ek, "passThroughEnv");
			string_array(c, v, k, check_env_name, NULL);
			t->pass_env = v;
			free(k);
		}
		if ((v = member(exec, "sandbox"))) {
			k = key_join(ek, "sandbox");
			check_sandbox(c, v, k);
			t->sandbox = v;
			char which;
			if (has_glob_char(p->abs, &which))
				diag_config(c->ws, c->file, k,
					"rename the directory or drop exec.sandbox",
					"the project directory '%s' holds '%c', which a sandbox grant would "
					"read as a pattern (R-27)",
					p->abs, which);
			free(k);
		}
	}
	free(ek);

	if ((v = member(tj, "dependsOn"))) {
		k = key_join(key, "dependsOn");
		if (string_array(c, v, k, NULL, NULL)) {
			t->ndepends_on = (size_t)cJSON_GetArraySize(v);
			t->depends_on = xcalloc(t->ndepends_on, sizeof(char *));
			size_t i = 0;
			const cJSON *e;
			cJSON_ArrayForEach(e, v) t->depends_on[i++] = e->valuestring;
		}
		free(k);
	}
	if ((v = member(tj, "cache"))) {
		k = key_join(key, "cache");
		if (t->kind == TASK_GROUP)
			diag_config(c->ws, c->file, k, "drop cache, or give the task an exec.command",
				"a group (a task with no exec) runs nothing to cache");
		else if (t->kind == TASK_PERSISTENT)
			diag_config(c->ws, c->file, k, "drop cache or exec.persistent",
				"a persistent task is never cached (R-4)");
		else
			t->cache = v;
		check_cache(c, v, k, t);
		free(k);
	}
	free(key);

	p->tasks = xrealloc(p->tasks, (p->ntasks + 1) * sizeof(*p->tasks));
	p->tasks[p->ntasks++] = t;
	if (strmap_put(&c->ws->by_id, t->id, t))
		diag_config(c->ws, c->file, "tasks", "give the projects distinct names",
			"task id '%s' is defined twice", t->id);
}

void config_load(struct workspace *ws, struct project *p)
{
	static const char *const top[] = {"$schema", "tasks", "projects", "envMode", "passThroughEnv",
		"cacheMaxSize"};
	char *file = strcmp(p->dir, ".") ? xasprintf("%s/vx.json", p->dir) : xstrdup("vx.json");
	char *text = p->vx_text;
	p->vx_text = NULL;
	if (!text) {
		if (p->vx_errno != ENOENT && p->vx_errno != ENOTDIR)
			diag_config(ws, file, "(file)", "make it readable", "unable to read: %s",
				strerror(p->vx_errno));
		free(file);
		return;
	}
	p->config = file;
	const char *end = NULL;
	size_t bad;
	if (!jsonc_strip(text, &bad)) {
		diag_config(ws, file, "(file)", "close it with */", "a comment that never ends, at line %zu",
			jsonl_line_of(text, bad));
		free(text);
		return;
	}
	p->json = cJSON_ParseWithOpts(text, &end, 1);
	if (!p->json) {
		size_t off = end ? (size_t)(end - text) : 0;
		diag_config(ws, file, "(file)", "correct the JSON syntax", "invalid JSON at line %zu",
			jsonl_line_of(text, off));
		free(text);
		return;
	}
	free(text);
	struct ctx c = {ws, file};
	if (!cJSON_IsObject(p->json)) {
		diag_config(ws, file, "(file)", "make the file one JSON object", "not a JSON object");
		return;
	}
	check_keys(&c, p->json, "", top, NKEYS(top));
	const cJSON *v = member(p->json, "$schema");
	if (v && !cJSON_IsString(v))
		bad_type(&c, v, "$schema", "a string", "write the schema URL as a string");
	static const char *const root_only[] = {"envMode", "passThroughEnv", "cacheMaxSize"};
	for (size_t i = 0; i < NKEYS(root_only); i++) {
		if (!(v = member(p->json, root_only[i])))
			continue;
		if (strcmp(p->dir, ".") != 0)
			diag_config(ws, file, root_only[i], i < 2 ?
				"move it to the workspace root's vx.json, or to this project's tasks' exec" :
				"move it to the workspace root's vx.json",
				"a workspace-wide setting outside the root's vx.json");
		else if (i == 0)
			check_env_mode(&c, v, root_only[i]);
		else if (i == 1)
			string_array(&c, v, root_only[i], check_env_name, NULL);
		else if (config_size(v, &(unsigned long long){0}) != 0)
			diag_config(ws, file, root_only[i], "write a size: \"10G\", \"500M\", a number "
				"of bytes, or 0 for no cap", "not a size");
	}
	v = member(p->json, "projects");
	if (v && !cJSON_IsArray(v))
		bad_type(&c, v, "projects", "an array of strings", "write [\"packages/*\"]");
	const cJSON *tasks = member(p->json, "tasks");
	if (!tasks)
		return;
	if (!cJSON_IsObject(tasks)) {
		bad_type(&c, tasks, "tasks", "an object", "write { \"build\": { ... } }");
		return;
	}
	const cJSON *tj;
	cJSON_ArrayForEach(tj, tasks) check_task(&c, p, tj->string, tj);
}
