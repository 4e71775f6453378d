/* subset.c: the packages vx prune keeps (subset.h). */
#include "subset.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "lockfile.h"

static void keep_closure(const struct project *p, bool *keep)
{
	if (keep[p->index])
		return;
	keep[p->index] = true;
	for (size_t i = 0; i < p->ndeps; i++)
		keep_closure(p->deps[i], keep);
}

static const struct project *by_dir(const struct workspace *ws, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n > 2 && strncmp(dir, "./", 2) == 0) {
		dir += 2;
		n -= 2;
	}
	for (size_t i = 0; i < ws->nprojects; i++)
		if (strlen(ws->projects[i]->dir) == n && strncmp(ws->projects[i]->dir, dir, n) == 0)
			return ws->projects[i];
	return NULL;
}

int subset_select(const struct workspace *ws, char *const *names, size_t n, bool *keep)
{
	for (size_t i = 0; i < ws->nprojects; i++)
		if (strcmp(ws->projects[i]->dir, ".") == 0)
			keep_closure(ws->projects[i], keep);
	for (size_t i = 0; i < n; i++) {
		const struct project *p = strmap_get(&ws->by_name, names[i]);
		if (!p)
			p = by_dir(ws, names[i]);
		if (!p) {
			err_warn("'%s': no such package in the workspace '%s'; fix: name a package by "
				 "its package.json name or its directory (vx graph lists them)",
				names[i], ws->root);
			return -1;
		}
		keep_closure(p, keep);
	}
	return 0;
}

cJSON *subset_workspaces(const struct workspace *ws, const bool *keep)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < ws->nprojects; i++)
		if (keep[i] && strcmp(ws->projects[i]->dir, "."))
			cJSON_AddItemToArray(a, cJSON_CreateString(ws->projects[i]->dir));
	return a;
}

char *subset_manifest(const char *text, const cJSON *workspaces)
{
	cJSON *pkg = cJSON_Parse(text);
	cJSON *w = cJSON_GetObjectItemCaseSensitive(pkg, "workspaces");
	cJSON *holder = cJSON_IsObject(w) ? w : pkg;
	const char *key = cJSON_IsObject(w) ? "packages" : "workspaces";
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(holder, key))) {
		cJSON_Delete(pkg);
		return NULL;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(holder, key, cJSON_Duplicate(workspaces, 1));
	char *out = json_print_npm(pkg);
	cJSON_Delete(pkg);
	return out;
}
