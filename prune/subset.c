/* subset.c: the packages vx prune keeps (subset.h). */
#include "subset.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fileio.h"
#include "lockfile.h"
#include "path.h"

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

char **subset_seeds(const struct workspace *ws, const bool *keep)
{
	static const char *const fields[] = {"dependencies", "devDependencies",
		"optionalDependencies"};
	char **seeds = NULL;
	size_t n = 0, alloc = 0;
	for (size_t i = 0; i < ws->nprojects; i++) {
		if (!keep[i])
			continue;
		char *path = path_join(ws->projects[i]->abs, "package.json");
		size_t len;
		char *text = fileio_read_at(AT_FDCWD, path, &len);
		cJSON *pkg = text ? cJSON_Parse(text) : NULL;
		for (size_t f = 0; f < sizeof(fields) / sizeof(*fields); f++) {
			const cJSON *d;
			cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(pkg, fields[f])) {
				if (!cJSON_IsString(d) || strmap_get(&ws->by_name, d->string))
					continue;
				XGROW(seeds, n + 2, alloc);
				seeds[n++] = xasprintf("%s@%s", d->string, d->valuestring);
			}
		}
		cJSON_Delete(pkg);
		free(text);
		free(path);
	}
	XGROW(seeds, n + 1, alloc);
	seeds[n] = NULL;
	return seeds;
}
