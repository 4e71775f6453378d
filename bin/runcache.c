#include "runcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "err.h"
#include "fileio.h"
#include "path.h"
#include "store.h"

char *runcache_dir(const char *root)
{
	const char *env = getenv("VX_CACHE_DIR");
	if (env && *env) {
		char *cwd = getcwd(NULL, 0);
		char *d = path_join(cwd ? cwd : "/", env);
		free(cwd);
		return d;
	}
	return xasprintf("%s/.vx/cache", root);
}

void runcache_open(struct runcache *rc, const char *root)
{
	memset(rc, 0, sizeof(*rc));
	rc->dir = runcache_dir(root);
}

int runcache_restore(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct ui_buf *log)
{
	struct store_entry e;
	if (store_get(rc->dir, key, &e) != 0)
		return 0;
	char *proj = path_join(root, dir);
	char *text = NULL;
	size_t len = 0;
	int r = store_restore(rc->dir, &e, root, proj, &text, &len);
	free(proj);
	store_entry_free(&e);
	if (r != 0)
		return 0;
	ui_buf_add(log, text, len);
	free(text);
	return 1;
}

int runcache_save(struct runcache *rc, const char *key, const char *root, const char *dir,
	const cJSON *rec, const char *log, size_t loglen, long ms)
{
	const cJSON *outs = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "cache"), "outputs"),
		"files");
	size_t n = 0;
	const char **globs = xcalloc((size_t)cJSON_GetArraySize(outs) + 1, sizeof(char *));
	const cJSON *g;
	cJSON_ArrayForEach(g, outs) if (cJSON_IsString(g)) globs[n++] = g->valuestring;
	char *proj = path_join(root, dir);
	int r = store_save(rc->dir, key, root, proj, globs, n, log, loglen, ms);
	free(proj);
	free(globs);
	return r;
}

static char *why_path(const char *root, const char *id)
{
	return xasprintf("%s/.vx/why/%016llx.json", root,
		(unsigned long long)XXH3_64bits(id, strlen(id)));
}

void runcache_remember(struct runcache *rc, const char *root, const char *id, const cJSON *keyed)
{
	const cJSON *explain = cJSON_GetObjectItemCaseSensitive(keyed, "explain");
	const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(keyed, "key"));
	if (!explain || !key)
		return;
	/* most runs key most tasks as they were: a rename per task would cost
	 * more than the run, so the record is written only when the key moved */
	cJSON *last = runcache_recall(root, id);
	const char *was = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "key"));
	bool same = was && strcmp(was, key) == 0;
	cJSON_Delete(last);
	if (same)
		return;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "id", id);
	cJSON_AddStringToObject(rec, "key", key);
	cJSON_AddItemToObject(rec, "explain", cJSON_Duplicate(explain, 1));
	char *text = cJSON_PrintUnformatted(rec);
	cJSON_Delete(rec);
	if (!rc->why_dir_made) {
		char *vx = xasprintf("%s/.vx", root), *dir = xasprintf("%s/.vx/why", root);
		mkdir(vx, 0777);
		mkdir(dir, 0777);
		free(vx);
		free(dir);
		rc->why_dir_made = true;
	}
	char *path = why_path(root, id);
	char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	size_t n = strlen(text);
	bool ok = fd >= 0 && write(fd, text, n) == (ssize_t)n;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
	free(tmp);
	free(path);
	cJSON_free(text);
}

cJSON *runcache_recall(const char *root, const char *id)
{
	char *path = why_path(root, id);
	char *text = fileio_read_at(AT_FDCWD, path, NULL);
	free(path);
	if (!text)
		return NULL;
	cJSON *j = cJSON_Parse(text);
	free(text);
	return j;
}
