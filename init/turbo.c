#include "turbo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fileio.h"
#include "jsonc.h"
#include "jsonl.h"
#include "notes.h"

/* v when it is an array (and ok), else NULL: what cJSON_ArrayForEach walks */
static const cJSON *as_array(const cJSON *v, bool ok)
{
	return ok && cJSON_IsArray(v) ? v : NULL;
}

/* Top-level keys of turbo.json and why each one vx does not carry is left. */
static const struct {
	const char *key;
	const char *why; /* NULL: carried (or read by this module) */
} top_keys[] = {
	{"$schema", NULL},
	{"tasks", NULL},
	{"pipeline", NULL},
	{"extends", NULL},
	{"globalEnv", NULL},
	{"globalDependencies", NULL},
	{"globalDotEnv", NULL},
	{"globalPassThroughEnv", NULL},
	{"ui", "vx prints each task's output its own way"},
	{"daemon", "vx-watch is started by vx run itself"},
	{"envMode", NULL},
	{"remoteCache", "set VX_REMOTE_CACHE and VX_REMOTE_CACHE_TOKEN"},
	{"cacheDir", "set VX_CACHE_DIR"},
	{"concurrency", "use vx run -j N"},
	{"dangerouslyDisablePackageManagerCheck", "vx has no package manager check"},
	{"noUpdateNotifier", "vx has no update notifier"},
	{"tags", "vx has no boundaries"},
	{"boundaries", "vx has no boundaries"},
	{"futureFlags", "turbo's own"},
	{"experimentalSpaces", "turbo's own"},
};

static void diag(const char *file, const char *key, const char *fix, const char *msg)
{
	err_warn("%s: %s: %s; fix: %s", file, key, msg, fix);
}

cJSON *turbo_read_json(int rootfd, const char *file, bool *bad)
{
	*bad = false;
	char *text = fileio_read_at(rootfd, file, NULL);
	if (!text) {
		if (errno == ENOENT || errno == ENOTDIR)
			return NULL;
		err_warn("%s: (file): unable to read: %s; fix: make it readable", file,
			strerror(errno));
		*bad = true;
		return NULL;
	}
	size_t off = 0;
	if (!jsonc_strip(text, &off)) {
		err_warn("%s: (file): a comment that never ends, at line %zu; fix: close it with */",
			file, jsonl_line_of(text, off));
		*bad = true;
		free(text);
		return NULL;
	}
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
	if (!j) {
		size_t at = end ? (size_t)(end - text) : 0;
		err_warn("%s: (file): invalid JSON at line %zu; fix: correct the JSON syntax", file,
			jsonl_line_of(text, at));
		*bad = true;
	} else if (!cJSON_IsObject(j)) {
		diag(file, "(file)", "make the file one JSON object", "not a JSON object");
		cJSON_Delete(j);
		j = NULL;
		*bad = true;
	}
	free(text);
	return j;
}

/* The tasks object of one turbo.json, after checking its shape. */
static bool tasks_of(const char *file, cJSON *j, bool is_root, cJSON **tasks, bool *v1)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "tasks");
	cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pipeline");
	*v1 = !t && p;
	t = t ? t : p;
	*tasks = NULL;
	bool ok = true;
	const cJSON *e;
	cJSON_ArrayForEach(e, j) {
		size_t i;
		for (i = 0; i < sizeof(top_keys) / sizeof(*top_keys); i++)
			if (strcmp(e->string, top_keys[i].key) == 0)
				break;
		if (i == sizeof(top_keys) / sizeof(*top_keys))
			note(file, e->string, "a key vx init does not know");
		else if (top_keys[i].why)
			note(file, e->string, "%s", top_keys[i].why);
	}
	if (!t)
		return true;
	if (!cJSON_IsObject(t)) {
		diag(file, *v1 ? "pipeline" : "tasks", "write { \"build\": { ... } }",
			"expected an object");
		return false;
	}
	cJSON_ArrayForEach(e, t) {
		char *k = xasprintf("%s.%s", *v1 ? "pipeline" : "tasks", e->string);
		if (!cJSON_IsObject(e)) {
			diag(file, k, "write { \"dependsOn\": [...], \"outputs\": [...] }",
				"expected an object");
			ok = false;
		} else if (!is_root && strchr(e->string, '#')) {
			diag(file, k, "define it in the root turbo.json, or drop the 'package#' part",
				"a package's turbo.json names its own tasks only");
			ok = false;
		}
		free(k);
	}
	if (!is_root) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "extends");
		bool root = false;
		cJSON_ArrayForEach(e, x) root |= cJSON_IsString(e) && strcmp(e->valuestring, "//") == 0;
		if (!root)
			note(file, "extends", "not [\"//\"]: read as if it were, as turbo requires");
	}
	*tasks = t;
	return ok;
}

bool turbo_load(struct turbo *t, struct workspace *ws, int rootfd)
{
	bool bad, ok = true, v1;
	memset(t, 0, sizeof(*t));
	t->tool = "turbo";
	t->root = turbo_read_json(rootfd, "turbo.json", &bad);
	ok &= !bad;
	if (t->root) {
		ok &= tasks_of("turbo.json", t->root, true, &t->root_tasks, &v1);
		t->v1 = v1;
	}
	t->n = ws->nprojects;
	t->pkg = xcalloc(ws->nprojects + 1, sizeof(*t->pkg));
	t->pkg_tasks = xcalloc(ws->nprojects + 1, sizeof(*t->pkg_tasks));
	t->pkg_file = xcalloc(ws->nprojects + 1, sizeof(*t->pkg_file));
	for (size_t i = 0; i < ws->nprojects; i++) {
		const struct project *p = ws->projects[i];
		if (strcmp(p->dir, ".") == 0)
			continue;
		char *file = xasprintf("%s/turbo.json", p->dir);
		t->pkg[i] = turbo_read_json(rootfd, file, &bad);
		ok &= !bad;
		if (t->pkg[i]) {
			ok &= tasks_of(file, t->pkg[i], false, &t->pkg_tasks[i], &v1);
			t->pkg_file[i] = file;
		} else {
			free(file);
		}
	}
	return ok;
}

void turbo_free(struct turbo *t)
{
	for (size_t i = 0; i < t->n; i++) {
		cJSON_Delete(t->pkg[i]);
		free(t->pkg_file[i]);
	}
	cJSON_Delete(t->root);
	free(t->pkg);
	free(t->pkg_tasks);
	free(t->pkg_file);
	memset(t, 0, sizeof(*t));
}

static bool is_root(const struct project *p)
{
	return strcmp(p->dir, ".") == 0;
}

/* The root entry that applies to p's task name, NULL when none. */
static const cJSON *root_entry(const struct turbo *t, const struct project *p, const char *name)
{
	if (!t->root_tasks)
		return NULL;
	char *k = xasprintf("%s#%s", is_root(p) ? "//" : p->name, name);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(t->root_tasks, k);
	free(k);
	if (!e && !is_root(p))
		e = cJSON_GetObjectItemCaseSensitive(t->root_tasks, name);
	return e;
}

cJSON *turbo_def(const struct turbo *t, const struct workspace *ws, const struct project *p,
	const char *name, const char **from)
{
	(void)ws;
	const cJSON *base = root_entry(t, p, name);
	const cJSON *over = t->pkg_tasks[p->index]
				    ? cJSON_GetObjectItemCaseSensitive(t->pkg_tasks[p->index], name)
				    : NULL;
	if (!base && !over)
		return NULL;
	*from = over ? t->pkg_file[p->index] : "turbo.json";
	cJSON *d = base ? cJSON_Duplicate(base, 1) : cJSON_CreateObject();
	const cJSON *e;
	cJSON_ArrayForEach(e, over) {
		cJSON *v = cJSON_Duplicate(e, 1);
		const cJSON *old = cJSON_GetObjectItemCaseSensitive(d, e->string);
		bool extends = false;
		const cJSON *x;
		cJSON_ArrayForEach(x, as_array(v, true)) extends |=
			cJSON_IsString(x) && strcmp(x->valuestring, "$TURBO_EXTENDS$") == 0;
		if (extends) {
			cJSON *merged = cJSON_IsArray(old) ? cJSON_Duplicate(old, 1) : cJSON_CreateArray();
			cJSON_ArrayForEach(x, v) if (!(cJSON_IsString(x) &&
							   strcmp(x->valuestring, "$TURBO_EXTENDS$") == 0))
				cJSON_AddItemToArray(merged, cJSON_Duplicate(x, 1));
			cJSON_Delete(v);
			v = merged;
		}
		if (old)
			cJSON_ReplaceItemInObjectCaseSensitive(d, e->string, v);
		else
			cJSON_AddItemToObject(d, e->string, v);
	}
	return d;
}

static void add_name(const char ***names, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], s) == 0)
			return;
	*names = xrealloc(*names, (*n + 2) * sizeof(**names));
	(*names)[(*n)++] = s;
	(*names)[*n] = NULL;
}

const char **turbo_names(const struct turbo *t, const struct workspace *ws,
	const struct project *p)
{
	(void)ws;
	const char **names = xcalloc(1, sizeof(*names));
	size_t n = 0;
	const cJSON *e;
	const char *self = is_root(p) ? "//" : p->name;
	size_t len = strlen(self);
	cJSON_ArrayForEach(e, t->root_tasks) {
		const char *hash = strrchr(e->string, '#');
		if (!hash && !is_root(p))
			add_name(&names, &n, e->string);
		else if (hash && (size_t)(hash - e->string) == len &&
			 strncmp(e->string, self, len) == 0)
			add_name(&names, &n, hash + 1);
	}
	cJSON_ArrayForEach(e, t->pkg_tasks[p->index]) add_name(&names, &n, e->string);
	return names;
}
