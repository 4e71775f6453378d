/* npmlock.c: package-lock.json pruned to what the kept workspaces reach
 * (lockfile.h). */
#include "lockfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"
#include "strbuf.h"
#include "strmap.h"

char *json_print_npm(const cJSON *j)
{
	char *raw = cJSON_Print(j);
	if (!raw)
		err_die(VX_EXIT_FAIL, "out of memory");
	/* cJSON indents with tabs and writes "key":<tab>value; a string holds
	 * no raw tab (JSON escapes it), so every tab is layout */
	struct strbuf sb = STRBUF_INIT;
	bool bol = true;
	for (const char *p = raw; *p; p++) {
		if (*p == '\t')
			strbuf_addstr(&sb, bol ? "  " : " ");
		else
			strbuf_addch(&sb, *p);
		bol = *p == '\n' || (bol && *p == '\t');
	}
	strbuf_addch(&sb, '\n');
	free(raw);
	return strbuf_detach(&sb, NULL);
}

struct reach {
	cJSON *pkgs;
	struct strmap seen; /* location -> (void *)1 */
	char **todo;
	size_t ntodo, alloc;
};

static void push(struct reach *r, const char *loc)
{
	if (strmap_get(&r->seen, loc) || !cJSON_GetObjectItemCaseSensitive(r->pkgs, loc))
		return;
	char *k = xstrdup(loc);
	strmap_put(&r->seen, k, (void *)1);
	XGROW(r->todo, r->ntodo + 1, r->alloc);
	r->todo[r->ntodo++] = k;
}

/* The location node finds name at from location loc: loc/node_modules/name,
 * then the same in each parent directory up to the root. */
static void resolve(struct reach *r, const char *loc, const char *name)
{
	char *dir = xstrdup(loc);
	for (;;) {
		char *cand = *dir ? xasprintf("%s/node_modules/%s", dir, name)
				  : xasprintf("node_modules/%s", name);
		bool hit = cJSON_GetObjectItemCaseSensitive(r->pkgs, cand) != NULL;
		if (hit)
			push(r, cand);
		free(cand);
		if (hit || !*dir)
			break;
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			*dir = '\0';
	}
	free(dir);
}

static bool kept_dir(char *const *dirs, size_t ndirs, const char *dir)
{
	for (size_t i = 0; i < ndirs; i++)
		if (strcmp(dirs[i], dir) == 0)
			return true;
	return false;
}

/* lockfileVersion 2's "dependencies" (npm 6's tree, nested by name) cut the
 * same way: the entry for name under location prefix is "packages"'
 * prefix + "node_modules/" + name; a workspace's ("version": "file:DIR")
 * is DIR, its nested entries under DIR/. */
static void prune_legacy(cJSON *deps, const char *prefix, const struct strmap *seen,
	char *const *dirs, size_t ndirs)
{
	for (cJSON *next, *e = cJSON_IsObject(deps) ? deps->child : NULL; e; e = next) {
		next = e->next;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "version");
		bool ws = cJSON_IsString(v) && strncmp(v->valuestring, "file:", 5) == 0;
		char *loc = ws ? xstrdup(v->valuestring + 5) : xasprintf("%snode_modules/%s", prefix, e->string);
		bool keep = ws ? kept_dir(dirs, ndirs, loc) : strmap_get(seen, loc) != NULL;
		if (keep) {
			char *sub = xasprintf("%s/", loc);
			prune_legacy(cJSON_GetObjectItemCaseSensitive(e, "dependencies"), sub, seen, dirs, ndirs);
			free(sub);
		} else {
			cJSON_Delete(cJSON_DetachItemViaPointer(deps, e));
		}
		free(loc);
	}
}

static const char *const dep_fields[] = {
	"dependencies", "optionalDependencies", "peerDependencies", "devDependencies",
};

char *npmlock_prune(const char *text, const char *file, char *const *dirs, size_t ndirs,
	const cJSON *workspaces, size_t *kept, size_t *total)
{
	const char *end = NULL;
	cJSON *lock = cJSON_ParseWithOpts(text, &end, 1);
	if (!lock) {
		err_warn("%s: (file): invalid JSON at line %zu; fix: run npm install to rewrite it",
			file, jsonl_line_of(text, end ? (size_t)(end - text) : 0));
		return NULL;
	}
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(lock, "lockfileVersion");
	cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(lock, "packages");
	if (!cJSON_IsNumber(ver) || ver->valuedouble < 2 || !cJSON_IsObject(pkgs)) {
		err_warn("%s: lockfileVersion: only versions 2 and 3 (with \"packages\") are "
			 "pruned; fix: run npm install with npm 7 or later to upgrade it",
			file);
		cJSON_Delete(lock);
		return NULL;
	}
	struct reach r = {.pkgs = pkgs};
	strmap_init(&r.seen);
	for (size_t i = 0; i < ndirs; i++)
		push(&r, strcmp(dirs[i], ".") ? dirs[i] : "");
	/* a kept workspace's link (node_modules/<name> -> its directory) */
	cJSON *e;
	cJSON_ArrayForEach(e, pkgs) {
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(e, "resolved");
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "link")) || !cJSON_IsString(res))
			continue;
		if (kept_dir(dirs, ndirs, res->valuestring))
			push(&r, e->string);
	}
	while (r.ntodo) {
		char *loc = r.todo[--r.ntodo];
		cJSON *ent = cJSON_GetObjectItemCaseSensitive(pkgs, loc);
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(ent, "resolved");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ent, "link")) && cJSON_IsString(res))
			push(&r, res->valuestring);
		for (size_t f = 0; f < sizeof(dep_fields) / sizeof(*dep_fields); f++) {
			const cJSON *d;
			cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(ent, dep_fields[f]))
				resolve(&r, loc, d->string);
		}
	}
	*kept = *total = 0;
	for (cJSON *next, *it = pkgs->child; it; it = next) {
		next = it->next;
		bool seen = strmap_get(&r.seen, it->string) != NULL;
		/* counted: the installed packages, not workspaces nor their links */
		if (strstr(it->string, "node_modules/") &&
			!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "link"))) {
			++*total;
			*kept += seen;
		}
		if (!seen && *it->string)
			cJSON_Delete(cJSON_DetachItemViaPointer(pkgs, it));
	}
	cJSON *root = cJSON_GetObjectItemCaseSensitive(pkgs, "");
	if (root && workspaces && cJSON_GetObjectItemCaseSensitive(root, "workspaces"))
		cJSON_ReplaceItemInObjectCaseSensitive(root, "workspaces",
			cJSON_Duplicate(workspaces, 1));
	prune_legacy(cJSON_GetObjectItemCaseSensitive(lock, "dependencies"), "", &r.seen, dirs, ndirs);
	char *out = json_print_npm(lock);
	cJSON_Delete(lock);
	for (size_t i = 0; i < r.seen.cap; i++)
		free((char *)r.seen.keys[i]);
	strmap_free(&r.seen);
	free(r.todo);
	return out;
}
