/* vx why --summary: two run summaries (summary.h) compared task by task,
 * each key's move explained from the inputs the summaries recorded. */
#include "summary.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "explain.h"
#include "fileio.h"
#include "jsonl.h"
#include "strmap.h"
#include "wsroot.h"

static const char fix[] = "fix: name a file vx run --summarize wrote (<root>/.vx/runs/)";

/* path's summary, or NULL after a one-line message naming it */
static cJSON *load(const char *path)
{
	size_t len;
	char *text = fileio_read_at(AT_FDCWD, path, &len);
	if (!text) {
		err_warn("%s: %s; %s", path, strerror(errno), fix);
		return NULL;
	}
	cJSON *j = cJSON_ParseWithLength(text, len);
	free(text);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "version");
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "tasks")) || !cJSON_IsNumber(v)) {
		err_warn("%s: not a vx run summary (no \"version\" and \"tasks\"); %s", path, fix);
		cJSON_Delete(j);
		return NULL;
	}
	if (v->valueint != SUMMARY_VERSION) {
		err_warn("%s: summary format version %d, this vx reads %d; fix: compare it with the "
			 "vx that wrote it", path, v->valueint, SUMMARY_VERSION);
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The summaries in dir, sorted (their names sort by time), *n of them */
static char **list(const char *dir, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 5 && e->d_name[0] != '.' && strcmp(e->d_name + l - 5, ".json") == 0) {
			v = xgrow(v, *n + 1, &cap, sizeof(*v));
			v[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

/* Which two files to compare: given, the one before b beside it, or the
 * last two of the root's. false after a message. */
static bool pick(char **files, int nfiles, const char *root, char **a, char **b)
{
	if (nfiles == 2) {
		*a = xstrdup(files[0]);
		*b = xstrdup(files[1]);
		return true;
	}
	char *dir, *ws = NULL;
	if (nfiles == 1) {
		const char *slash = strrchr(files[0], '/');
		dir = slash ? xstrndup(files[0], (size_t)(slash - files[0])) : xstrdup(".");
	} else {
		if (wsroot_find(".", root, true, &ws) != 0)
			return false;
		dir = xasprintf("%s/.vx/runs", ws);
	}
	size_t n;
	char **v = list(dir, &n);
	size_t at = n; /* b's place */
	if (nfiles == 1) {
		const char *base = strrchr(files[0], '/') ? strrchr(files[0], '/') + 1 : files[0];
		for (at = 0; at < n && strcmp(strrchr(v[at], '/') + 1, base) < 0; at++)
			;
	}
	bool ok = at >= 1 + (nfiles == 0);
	if (ok) {
		*b = nfiles == 1 ? xstrdup(files[0]) : xstrdup(v[at - 1]);
		*a = xstrdup(v[at - 1 - (nfiles == 0)]);
	} else if (nfiles == 1) {
		err_warn("%s: no summary before it in %s; fix: name the two to compare, "
			 "vx why --summary A.json B.json", files[0], dir);
	} else {
		err_warn("%s: %s summaries, two needed; fix: run vx run TASK --summarize twice", dir,
			n ? "one of the" : "no");
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(dir);
	free(ws);
	return ok;
}

/* A task's explain again, as vx-key gave it (summary.c split it) */
static cJSON *explain_of(const cJSON *t)
{
	const cJSON *rest = cJSON_GetObjectItemCaseSensitive(t, "keyInputs");
	cJSON *ex = cJSON_IsObject(rest) ? cJSON_Duplicate(rest, 1) : cJSON_CreateObject();
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(t, "inputs");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(t, "environmentVariables");
	if (files)
		cJSON_AddItemToObject(ex, "files", cJSON_Duplicate(files, 1));
	if (env)
		cJSON_AddItemToObject(ex, "env", cJSON_Duplicate(env, 1));
	return ex;
}

static const char *str(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

static const char *cache_status(const cJSON *t)
{
	const char *s = str(cJSON_GetObjectItemCaseSensitive(t, "cache"), "status");
	return s ? s : "?";
}

static void compare(const cJSON *was, const cJSON *now)
{
	const char *id = str(now, "taskId"), *k0 = str(was, "hash"), *k1 = str(now, "hash");
	if (!k0 || !k1) {
		printf("%s: %s (%s, was %s)\n", id, !k1 ? "not keyed in the second run" : "not keyed "
		       "in the first run", cache_status(now), cache_status(was));
		return;
	}
	if (strcmp(k0, k1) == 0) {
		printf("%s: key %s unchanged (%s, was %s)\n", id, k1, cache_status(now), cache_status(was));
		return;
	}
	printf("%s: key moved from %s to %s (%s, was %s)\n", id, k0, k1, cache_status(now),
		cache_status(was));
	if (!cJSON_GetObjectItemCaseSensitive(was, "keyInputs") ||
		!cJSON_GetObjectItemCaseSensitive(now, "keyInputs")) {
		printf("  its inputs were not recorded: a run replayed from vx-watch; vx why %s "
		       "says what moved since its last run\n", id);
		return;
	}
	cJSON *a = explain_of(was), *b = explain_of(now);
	if (!explain_diff(a, b, stdout, "  "))
		printf("  no input recorded differs (the key format changed)\n");
	cJSON_Delete(a);
	cJSON_Delete(b);
}

int summary_why(char **files, int nfiles, const char *root)
{
	char *pa, *pb;
	if (nfiles > 2) {
		err_warn("vx why --summary takes at most two files; fix: vx why --summary A.json B.json");
		return VX_EXIT_USAGE;
	}
	if (!pick(files, nfiles, root, &pa, &pb))
		return VX_EXIT_USAGE;
	cJSON *a = load(pa), *b = a ? load(pb) : NULL;
	if (!b) {
		cJSON_Delete(a);
		free(pa);
		free(pb);
		return VX_EXIT_USAGE;
	}
	printf("%s -> %s\n", str(a, "id") ? str(a, "id") : pa, str(b, "id") ? str(b, "id") : pb);
	struct strmap in_a, in_b;
	strmap_init(&in_a);
	strmap_init(&in_b);
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(a, "tasks")) if (str(t, "taskId"))
		strmap_put(&in_a, str(t, "taskId"), (void *)t);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(b, "tasks")) {
		const char *id = str(t, "taskId");
		if (!id)
			continue;
		strmap_put(&in_b, id, (void *)t);
		const cJSON *old = strmap_get(&in_a, id);
		if (old)
			compare(old, t);
		else
			printf("%s: only in the second run (%s)\n", id, cache_status(t));
	}
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(a, "tasks")) {
		const char *id = str(t, "taskId");
		if (id && !strmap_get(&in_b, id))
			printf("%s: only in the first run (%s)\n", id, cache_status(t));
	}
	strmap_free(&in_a);
	strmap_free(&in_b);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(pa);
	free(pb);
	return jsonl_out_finish();
}
