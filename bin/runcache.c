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
#include "cache.h"
#include "remote.h"

static char *runcache_dir(const char *root)
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
	char *state = xasprintf("%s/.vx", root);
	rc->c = cache_open(rc->dir, state);
	free(state);
}

void runcache_remote(struct runcache *rc, const char *url)
{
	const char *ro = getenv("VX_REMOTE_CACHE_READONLY");
	rc->remote = remote_open(url, getenv("VX_REMOTE_CACHE_TOKEN"), ro && strcmp(ro, "1") == 0);
}

int runcache_restore(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct ui_buf *log)
{
	struct cache_entry *e = NULL;
	if (!rc->c)
		return 0;
	/* a remote hit lands in the local cache first, so it is restored with
	 * every check a local hit gets */
	if (cache_lookup(rc->c, key, &e, NULL) != 1 &&
		(!remote_fetch(rc->remote, rc->c, key) || cache_lookup(rc->c, key, &e, NULL) != 1))
		return 0;
	size_t len = 0;
	char *text = cache_entry_log(rc->c, e, &len);
	char *proj = path_join(root, dir);
	int r = text ? cache_restore(rc->c, e, proj) : -1;
	free(proj);
	cache_entry_free(e);
	if (r != 0) {
		free(text);
		return 0;
	}
	ui_buf_add(log, text, len);
	free(text);
	return 1;
}

int runcache_save(struct runcache *rc, const char *key, const char *root, const char *dir,
	const cJSON *rec, const char *log, size_t loglen, long ms)
{
	if (!rc->c)
		return -1;
	const cJSON *outs = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "cache"), "outputs"),
		"files");
	size_t n = 0;
	const char **globs = xcalloc((size_t)cJSON_GetArraySize(outs) + 1, sizeof(char *));
	const cJSON *g;
	cJSON_ArrayForEach(g, outs) if (cJSON_IsString(g)) globs[n++] = g->valuestring;
	char *proj = path_join(root, dir);
	struct cache_save s = {.key = key, .projdir = proj, .globs = globs, .nglobs = n,
		.log = log ? log : "", .loglen = loglen, .exit = 0, .ms = (double)ms};
	int r = cache_save(rc->c, &s);
	free(proj);
	free(globs);
	if (r == 0)
		remote_push(rc->remote, rc->c, key);
	return r;
}

void runcache_close(struct runcache *rc)
{
	if (rc->c)
		cache_close(rc->c);
	remote_close(rc->remote);
	free(rc->dir);
	memset(rc, 0, sizeof(*rc));
}

int runcache_clean(struct runcache *rc)
{
	return rc->c ? cache_clean(rc->c) : -1;
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
