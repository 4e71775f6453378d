#include "runcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "atomicw.h"
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

bool runcache_empty(const char *root)
{
	char *dir = runcache_dir(root);
	char *ac = xasprintf("%s/ac", dir);
	DIR *d = opendir(ac);
	bool empty = !d && errno == ENOENT;
	if (d) {
		struct dirent *de;
		empty = true;
		while (empty && (de = readdir(d)))
			empty = de->d_name[0] == '.';
		closedir(d);
	}
	free(ac);
	free(dir);
	return empty;
}

/* <root>/.vx keeps itself out of git: a .gitignore of "*" in it, made with
 * the directory (and added to one made before), never through a link. */
static void state_dir(const char *state)
{
	if (mkdir(state, 0777) != 0 && errno != EEXIST)
		return;
	char *gi = xasprintf("%s/.gitignore", state);
	int fd = open(gi, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	free(gi);
	if (fd < 0)
		return;
	static const char text[] = "# made by vx: nothing in here belongs in the repository\n*\n";
	if (write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1) {
		/* a .gitignore cut short still ignores less, nothing worse */
	}
	close(fd);
}

void runcache_open(struct runcache *rc, const char *root)
{
	memset(rc, 0, sizeof(*rc));
	rc->dir = runcache_dir(root);
	/* the coarse clock, as file times are taken: what this run touches
	 * is dated at or after it */
	clock_gettime(CLOCK_REALTIME_COARSE, &rc->start);
	char *state = xasprintf("%s/.vx", root);
	state_dir(state);
	rc->c = cache_open(rc->dir, state);
	free(state);
}

void runcache_config(struct runcache *rc, const cJSON *graph)
{
	const cJSON *cap = cJSON_GetObjectItemCaseSensitive(graph, "cacheMaxSize");
	if (rc->c && cJSON_IsNumber(cap) && cap->valuedouble >= 0)
		cache_config_max_size(rc->c, (unsigned long long)cap->valuedouble);
}

void runcache_unshadow(struct runcache *rc, const char *root, const char *dir)
{
	char *proj = path_join(root, dir);
	cache_shadow_drop(rc->c, proj);
	free(proj);
}

void runcache_remote(struct runcache *rc, const char *url)
{
	const char *ro = getenv("VX_REMOTE_CACHE_READONLY");
	rc->remote = remote_open(url, getenv("VX_REMOTE_CACHE_TOKEN"), ro && strcmp(ro, "1") == 0);
}

/* A hit in place by the cache's memo (outputs as the last check found
 * them: no manifest to read), its log added to *log. Not with a remote,
 * whose lookups also want every blob present. */
static bool in_place(struct runcache *rc, const char *key, const char *proj, bool vouched,
	struct strbuf *log)
{
	char *text;
	size_t len = 0;
	if (rc->remote || !cache_hit_in_place(rc->c, key, proj, vouched, &text, &len))
		return false;
	strbuf_add(log, text, len);
	free(text);
	cache_touch(rc->c, key);
	return true;
}

int runcache_hit(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct strbuf *log, struct runcache_write **out)
{
	struct cache_entry *e = NULL;
	*out = NULL;
	rc->hit_remote = false;
	if (!rc->c)
		return 0;
	char *proj = path_join(root, dir);
	if (in_place(rc, key, proj, false, log)) {
		free(proj);
		return 1;
	}
	/* locally only the manifest is checked: the restore hashes every blob
	 * it copies and a hit whose outputs are in place needs none; with a
	 * remote, a local entry missing blobs is fetched again. A remote hit
	 * lands in the local cache first, so it is restored with every check a
	 * local hit gets. */
	int local = rc->remote ? cache_lookup(rc->c, key, &e, NULL) : cache_lookup_manifest(rc->c, key, &e);
	if (local != 1) {
		bool fetched = remote_fetch(rc->remote, rc->c, key);
		rc->grew |= fetched;
		rc->hit_remote = fetched;
		if (!fetched || cache_lookup(rc->c, key, &e, NULL) != 1) {
			free(proj);
			return 0;
		}
	}
	size_t len = 0;
	char *text = cache_entry_log(rc->c, e, &len);
	struct cache_writes *w = NULL;
	int r = text ? cache_restore_check(rc->c, e, proj, &w) : -1;
	free(proj);
	if (r < 0) {
		cache_entry_free(e);
		free(text);
		return 0;
	}
	strbuf_add(log, text, len);
	free(text);
	cache_touch(rc->c, key);
	if (r == 0) {
		cache_entry_free(e);
		return 1;
	}
	struct runcache_write *job = *out = xcalloc(1, sizeof(*job));
	job->c = rc->c;
	job->e = e;
	job->w = w;
	return 2;
}

int runcache_hit_vouched(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct strbuf *log)
{
	if (!rc->c)
		return 0;
	char *proj = path_join(root, dir);
	bool r = in_place(rc, key, proj, true, log);
	free(proj);
	return r;
}

void runcache_write(void *job)
{
	struct runcache_write *j = job;
	j->r = cache_restore_write(j->c, j->w);
	j->w = NULL; /* freed by the write */
}

bool runcache_written(struct runcache_write *job)
{
	bool ok = job->r == 1;
	cache_entry_free(job->e);
	free(job);
	return ok;
}

int runcache_restore(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct strbuf *log)
{
	struct runcache_write *job;
	int h = runcache_hit(rc, key, root, dir, log, &job);
	if (h != 2)
		return h;
	runcache_write(job);
	return runcache_written(job) ? 2 : 0;
}

int runcache_save(struct runcache *rc, const char *key, const char *root, const char *dir,
	const cJSON *rec, const char *log, size_t loglen, long ms)
{
	if (!rc->c)
		return -1;
	int r = cache_save_task(rc->c, root, dir, rec, key, log, loglen, (double)ms);
	if (r == 0) {
		rc->grew = true;
		remote_push(rc->remote, rc->c, key);
	}
	return r;
}

/* One task's line of the index: its last key ("-" before it has one) and
 * how its last run ended ("" when no run of it ended since the index began
 * keeping outcomes). */
struct why_entry {
	char key[33];
	char outcome[16];
};

static void keys_save(struct runcache *rc)
{
	if (!rc->keys_dirty)
		return;
	/* outcomes are kept for tasks that never wrote a record (a group run
	 * with --no-cache, a task skipped before its key) */
	char *dir = xasprintf("%s", rc->keys_path);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0777);
	free(dir);
	struct atomicw w;
	if (atomicw_open(&w, rc->keys_path, 0666) != 0)
		return;
	FILE *f = atomicw_stdio(&w);
	if (!f) {
		atomicw_abort(&w);
		return;
	}
	for (size_t i = 0; i < rc->keys.cap; i++)
		if (rc->keys.keys[i]) {
			const struct why_entry *e = rc->keys.vals[i];
			fprintf(f, "%s %s%s%s\n", rc->keys.keys[i], e->key, *e->outcome ? " " : "",
				e->outcome);
		}
	atomicw_commit(&w); /* failing, the next run keys afresh */
}

void runcache_close(struct runcache *rc)
{
	/* the cap, once the run is over, when it added to the cache; quiet
	 * when another run's prune is at it, and never an entry this run used */
	if (rc->c && rc->grew && cache_max_size(rc->c))
		cache_prune(rc->c, cache_max_size(rc->c), &rc->start, false, NULL);
	if (rc->c)
		cache_close(rc->c);
	if (rc->keys_loaded) {
		keys_save(rc);
		for (size_t i = 0; i < rc->keys.cap; i++)
			if (rc->keys.keys[i]) {
				free((char *)rc->keys.keys[i]);
				free(rc->keys.vals[i]);
			}
		strmap_free(&rc->keys);
	}
	free(rc->keys_path);
	remote_close(rc->remote);
	free(rc->dir);
	memset(rc, 0, sizeof(*rc));
}

int runcache_clean(struct runcache *rc)
{
	return rc->c ? cache_clean(rc->c) : -1;
}

/* "%016llx" of the id's xxh3-64, by hand: it is taken a few times a task */
static void id_hash(const char *id, char out[17])
{
	static const char hex[] = "0123456789abcdef";
	unsigned long long h = XXH3_64bits(id, strlen(id));
	for (int i = 15; i >= 0; i--, h >>= 4)
		out[i] = hex[h & 15];
	out[16] = '\0';
}

/* which: "" for the last record, ".before" for the one it replaced */
static char *why_path(const char *root, const char *id, const char *which)
{
	char h[17];
	id_hash(id, h);
	return xasprintf("%s/.vx/why/%s%s.json", root, h, which);
}

/* The index, a line per task: "<xxh3-64 of the id> <key or -> [<outcome>]".
 * The outcome is optional so that an index written before outcomes were
 * kept still reads; a malformed line is dropped (its task's record is then
 * rewritten on its next keying, nothing worse). */
static void keys_load(struct runcache *rc, const char *root)
{
	rc->keys_loaded = true;
	strmap_init(&rc->keys);
	rc->keys_path = xasprintf("%s/.vx/why/keys", root);
	char *text = fileio_read_at(AT_FDCWD, rc->keys_path, NULL);
	for (char *line = text, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strlen(line) < 18 || line[16] != ' ')
			continue;
		char *key = line + 17, *sp = strchr(key, ' ');
		size_t klen = sp ? (size_t)(sp - key) : strlen(key);
		const char *outcome = sp ? sp + 1 : "";
		if ((klen != 32 && !(klen == 1 && key[0] == '-')) || strlen(outcome) >= 16 ||
		    strchr(outcome, ' '))
			continue;
		char *id = xstrndup(line, 16);
		if (strmap_get(&rc->keys, id)) {
			free(id);
			continue;
		}
		struct why_entry *e = xcalloc(1, sizeof(*e));
		memcpy(e->key, key, klen);
		strcpy(e->outcome, outcome);
		strmap_put(&rc->keys, id, e);
	}
	free(text);
}

/* id's line of the index, made ("-", no outcome) when it has none. */
static struct why_entry *keys_entry(struct runcache *rc, const char *root, const char *id)
{
	if (!rc->keys_loaded)
		keys_load(rc, root);
	char h[17];
	id_hash(id, h);
	struct why_entry *e = strmap_get(&rc->keys, h);
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		strcpy(e->key, "-");
		strmap_put(&rc->keys, xstrdup(h), e);
	}
	return e;
}

void runcache_remember(struct runcache *rc, const char *root, const char *id, const cJSON *keyed)
{
	const cJSON *explain = cJSON_GetObjectItemCaseSensitive(keyed, "explain");
	const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(keyed, "key"));
	if (!explain || !key)
		return;
	/* most runs key most tasks as they were: a rename per task would cost
	 * more than the run, so the record is written only when the key moved,
	 * and whether it moved is told by one index, not by reading each record */
	struct why_entry *was = keys_entry(rc, root, id);
	if (strcmp(was->key, key) == 0)
		return;
	snprintf(was->key, sizeof(was->key), "%s", key);
	rc->keys_dirty = true;
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
	char *path = why_path(root, id, ""), *before = why_path(root, id, ".before");
	/* the record it replaces is what vx why compares the last run with */
	if (rename(path, before) != 0)
		unlink(before);
	free(before);
	struct atomicw w;
	if (atomicw_open(&w, path, 0666) == 0) {
		if (atomicw_write(&w, text, strlen(text)) == 0)
			atomicw_commit(&w);
		else
			atomicw_abort(&w);
	}
	free(path);
	cJSON_free(text);
}

cJSON *runcache_recall(const char *root, const char *id, bool before)
{
	char *path = why_path(root, id, before ? ".before" : "");
	char *text = fileio_read_at(AT_FDCWD, path, NULL);
	free(path);
	if (!text)
		return NULL;
	cJSON *j = cJSON_Parse(text);
	free(text);
	return j;
}

void runcache_outcome(struct runcache *rc, const char *root, const char *id, const char *outcome)
{
	struct why_entry *e = keys_entry(rc, root, id);
	/* a run whose tasks ended as the last one did writes no index */
	if (strcmp(e->outcome, outcome) == 0)
		return;
	snprintf(e->outcome, sizeof(e->outcome), "%s", outcome);
	rc->keys_dirty = true;
}

const char *runcache_last_outcome(struct runcache *rc, const char *root, const char *id)
{
	if (!rc->keys_loaded)
		keys_load(rc, root);
	char h[17];
	id_hash(id, h);
	const struct why_entry *e = strmap_get(&rc->keys, h);
	return e && *e->outcome ? e->outcome : NULL;
}

const char *runcache_remembered_key(struct runcache *rc, const char *root, const char *id)
{
	if (!rc->keys_loaded)
		keys_load(rc, root);
	char h[17];
	id_hash(id, h);
	const struct why_entry *e = strmap_get(&rc->keys, h);
	return e && strlen(e->key) == 32 ? e->key : NULL;
}
