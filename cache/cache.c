/* cache.c: lookups (what makes a manifest a hit), the helpers the other
 * parts share, the log, verify and clean. Opening and closing is in
 * open.c, saving in save.c, restoring in restore.c. */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache_int.h"
#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "path.h"
#include "shadow.h"
#include "size.h"
#include "statsnap.h"
#include "strmap.h"

/* Project-relative and staying inside: no empty, "." or ".." part, not
 * absolute, and never into .git or .vx (a tampered manifest must not reach
 * hooks or the checkout's own state). */
bool cache_path_ok(const char *rel)
{
	size_t len = rel ? strlen(rel) : 0;
	if (!len || rel[0] == '/' || rel[len - 1] == '/')
		return false;
	for (const char *s = rel; *s;) {
		const char *e = strchrnul(s, '/');
		size_t n = (size_t)(e - s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.') ||
			(n == 4 && memcmp(s, ".git", 4) == 0) || (n == 3 && memcmp(s, ".vx", 3) == 0))
			return false;
		s = *e ? e + 1 : e;
	}
	return true;
}

const char *cache_link_why(const char *rel, const char *target)
{
	if (!*target || target[0] == '/')
		return "a symlink to an absolute path";
	/* lexically, from the link's own directory: restores never follow a
	 * symlink, so one planted on the way is refused there */
	size_t depth = 0;
	for (const char *s = rel; (s = strchr(s, '/')); s++)
		depth++;
	for (const char *s = target; *s;) {
		const char *e = strchrnul(s, '/');
		size_t n = (size_t)(e - s);
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (depth == 0)
				return "a symlink out of the project";
			depth--;
		} else if (n && !(n == 1 && s[0] == '.')) {
			depth++;
		}
		s = *e ? e + 1 : e;
	}
	return NULL;
}

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* A whole non-negative number member, or -1. */
static double jcount(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
		v->valuedouble != floor(v->valuedouble))
		return -1;
	return v->valuedouble;
}

/* "mode" holds the permission bits; the type bits may be there too (the
 * example record gives a symlink 0120777) and must then agree. Setuid,
 * setgid and sticky bits are dropped here, so that no restore sets them
 * whatever the manifest says; privileged says they were asked for. */
const char *cache_file_parse(const cJSON *f, struct cache_file *out)
{
	memset(out, 0, sizeof(*out));
	out->path = jstr(f, "path");
	if (!cache_path_ok(out->path))
		return "a path outside the project";
	double mode = jcount(f, "mode");
	if (mode < 0 || mode > 0177777)
		return "a bad mode";
	mode_t m = (mode_t)mode, type = m & S_IFMT;
	out->mode = m & 0777;
	out->link = jstr(f, "link");
	if (out->link) {
		const char *why = cache_link_why(out->path, out->link);
		if (why)
			return why;
		return type && type != S_IFLNK ? "a bad mode" : NULL;
	}
	out->privileged = (m & 07000) != 0;
	out->hash = jstr(f, "hash");
	double size = jcount(f, "size");
	if (!hash_is_hex(out->hash) || size < 0)
		return "a file with no hash or size";
	out->size = (size_t)size;
	return type && type != S_IFREG ? "a bad mode" : NULL;
}

char *cache_blob_path(const struct cache *c, const char *hash)
{
	return xasprintf("%s/cas/%.2s/%s", c->dir, hash, hash);
}

void cache_forget_dirs(struct cache *c)
{
	if (c->acfd >= 0)
		close(c->acfd);
	if (c->casfd >= 0)
		close(c->casfd);
	c->acfd = c->casfd = -1;
}

/* The fd of a subdirectory, opened on first use; while the cache does not
 * exist yet, every call tries again. Threads that race to open it keep the
 * first fd stored and close their own. */
static int subdir(struct cache *c, int *fd, const char *name)
{
	int have = __atomic_load_n(fd, __ATOMIC_ACQUIRE);
	if (have >= 0)
		return have;
	char *p = xasprintf("%s/%s", c->dir, name);
	int mine = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(p);
	if (mine >= 0 && !__atomic_compare_exchange_n(fd, &have, mine, false, __ATOMIC_ACQ_REL,
				 __ATOMIC_ACQUIRE)) {
		close(mine);
		return have;
	}
	return mine;
}

int cache_shadow_root(struct cache *c)
{
	int have = __atomic_load_n(&c->shadowfd, __ATOMIC_ACQUIRE);
	if (have >= 0 || !c->statedir)
		return have;
	int mine = shadow_root_open(c->statedir, true);
	if (mine >= 0 && !__atomic_compare_exchange_n(&c->shadowfd, &have, mine, false,
				 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(mine);
		return have;
	}
	return mine;
}

char *cache_shadow_rel(const struct cache *c, const char *projdir)
{
	const char *slash = c->statedir ? strrchr(c->statedir, '/') : NULL;
	if (!slash)
		return NULL;
	char *root = slash == c->statedir ? xstrdup("/")
					  : xstrndup(c->statedir, (size_t)(slash - c->statedir));
	char *rel = path_under(root, projdir);
	free(root);
	return rel;
}

int cache_shadow_proj(struct cache *c, const char *projdir)
{
	char *rel = cache_shadow_rel(c, projdir);
	int root = rel ? cache_shadow_root(c) : -1;
	int fd = root >= 0 ? shadow_proj_open(root, rel, true) : -1;
	free(rel);
	return fd;
}

void cache_shadow_drop(struct cache *c, const char *projdir)
{
	char *rel = cache_shadow_rel(c, projdir);
	int fd = rel ? cache_shadow_root(c) : -1;
	if (fd >= 0 && shadow_drop(fd, rel) != 0)
		err_warn_errno("unable to remove the shadow of '%s' (.vx/shadow)", projdir);
	free(rel);
}

int cache_blob_stat(struct cache *c, const char *hash, struct stat *st)
{
	char rel[40];
	snprintf(rel, sizeof(rel), "%.2s/%s", hash, hash);
	int dfd = subdir(c, &c->casfd, "cas");
	return dfd < 0 ? -1 : fstatat(dfd, rel, st, AT_SYMLINK_NOFOLLOW);
}

const char *cache_join(char **buf, size_t *cap, const char *dir, const char *rel)
{
	size_t a = strlen(dir), b = strlen(rel);
	XGROW(*buf, a + b + 2, *cap);
	memcpy(*buf, dir, a);
	(*buf)[a] = '/';
	memcpy(*buf + a + 1, rel, b + 1);
	return *buf;
}

bool cache_in_checkout(const struct cache *c, const char *path)
{
	const char *slash = c->statedir ? strrchr(c->statedir, '/') : NULL;
	size_t n = slash ? (size_t)(slash - c->statedir) : 0;
	return n && strncmp(path, c->statedir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int cache_manifest_stat(struct cache *c, const char *key, struct stat *st)
{
	char name[40];
	snprintf(name, sizeof(name), "%.32s.json", key);
	int dfd = subdir(c, &c->acfd, "ac");
	return dfd < 0 ? -1 : fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW);
}

int cache_blob_open(struct cache *c, const char *hash)
{
	char rel[40];
	snprintf(rel, sizeof(rel), "%.2s/%s", hash, hash);
	int dfd = subdir(c, &c->casfd, "cas");
	return dfd < 0 ? -1 : openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

void cache_hex128(XXH128_hash_t h, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	XXH128_canonical_t can;
	XXH128_canonicalFromHash(&can, h);
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hex[can.digest[i] >> 4];
		out[2 * i + 1] = hex[can.digest[i] & 15];
	}
	out[32] = '\0';
}

int cache_tmp_open(struct cache *c, char **path)
{
	for (int tries = 0; tries < 100; tries++) {
		char *p = xasprintf("%s/tmp/%d.%x.%u", c->dir, c->pid, c->nonce,
			__atomic_fetch_add(&c->seq, 1, __ATOMIC_RELAXED));
		int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			*path = p;
			return fd;
		}
		free(p);
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* The blob's size as on disk, or -1 when it is not a regular file there. */
static off_t blob_size(struct cache *c, const char *hash)
{
	struct stat st;
	return cache_blob_stat(c, hash, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
}

char *cache_blob_read(struct cache *c, const char *hash, size_t size, const char **why)
{
	char rel[40];
	snprintf(rel, sizeof(rel), "%.2s/%s", hash, hash);
	int dfd = subdir(c, &c->casfd, "cas");
	size_t n;
	char *data = dfd < 0 ? NULL : fileio_read_at(dfd, rel, &n);
	if (!data) {
		*why = "a blob is missing";
		return NULL;
	}
	char got[33];
	hash_hex(data, n, got);
	if (n != size || strcmp(got, hash) != 0) {
		*why = n != size ? "a blob has the wrong size" : "a blob does not match its hash";
		free(data);
		return NULL;
	}
	return data;
}

/* The manifest's own checks, then that every blob is there with its size.
 * Paths must be unique and none may lie under another (a file "dist" and a
 * file "dist/a" cannot both be restored). */
const char *cache_entry_check(struct cache *c, const char *key, const cJSON *m, bool blobs)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "v");
	if (!cJSON_IsNumber(v) || v->valuedouble != CACHE_MANIFEST_VERSION)
		return "another manifest version";
	if (!jstr(m, "key") || strcmp(jstr(m, "key"), key) != 0)
		return "the manifest names another key";
	if (jcount(m, "exit") != 0)
		return "the manifest records a failed run";
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(m, "files");
	const cJSON *log = cJSON_GetObjectItemCaseSensitive(m, "log");
	if (!cJSON_IsArray(files) || !cJSON_IsObject(log))
		return "the manifest has no files or log";
	if (!jstr(log, "text")) {
		double size = jcount(log, "size");
		if (!hash_is_hex(jstr(log, "hash")) || size < 0)
			return "the log has no hash or size";
		/* an empty log needs no blob */
		if (blobs && size > 0 && blob_size(c, jstr(log, "hash")) != (off_t)size)
			return "the log blob is missing or has the wrong size";
	}
	const char *why = NULL;
	struct strmap seen;
	strmap_init(&seen);
	const cJSON *f;
	cJSON_ArrayForEach(f, files) {
		struct cache_file cf;
		if ((why = cache_file_parse(f, &cf)))
			break;
		if (strmap_put(&seen, cf.path, (void *)f)) {
			why = "a path twice";
			break;
		}
		if (blobs && cf.hash && blob_size(c, cf.hash) != (off_t)cf.size) {
			why = "a blob is missing or has the wrong size";
			break;
		}
	}
	/* a prefix check once every path is in */
	for (const cJSON *g = why ? NULL : files->child; g; g = g->next) {
		char *p = xstrdup(jstr(g, "path"));
		for (char *s = strrchr(p, '/'); s && !why; s = strrchr(p, '/')) {
			*s = '\0';
			if (strmap_get(&seen, p))
				why = "a path under another output file";
		}
		free(p);
		if (why)
			break;
	}
	strmap_free(&seen);
	return why;
}

static int entry_load(struct cache *c, const char *key, struct cache_entry **out,
	const char **why, bool blobs)
{
	*out = NULL;
	if (!hash_is_hex(key)) {
		*why = "not a key";
		return 0;
	}
	char name[40];
	snprintf(name, sizeof(name), "%s.json", key);
	int dfd = subdir(c, &c->acfd, "ac");
	char *text = dfd < 0 ? NULL : fileio_read_at(dfd, name, NULL);
	if (!text) {
		*why = errno == ENOENT ? "absent" : "the manifest is unreadable";
		return 0;
	}
	cJSON *m = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(m)) {
		cJSON_Delete(m);
		*why = "the manifest does not parse";
		return 0;
	}
	if ((*why = cache_entry_check(c, key, m, blobs))) {
		cJSON_Delete(m);
		return 0;
	}
	struct cache_entry *e = xcalloc(1, sizeof(*e));
	memcpy(e->key, key, 33);
	e->manifest = m;
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(m, "ms");
	e->ms = cJSON_IsNumber(ms) ? ms->valuedouble : 0;
	*out = e;
	return 1;
}

int cache_lookup(struct cache *c, const char *key, struct cache_entry **out, const char **why)
{
	const char *w = NULL;
	int r = entry_load(c, key, out, &w, true);
	if (why)
		*why = w;
	return r;
}

int cache_lookup_manifest(struct cache *c, const char *key, struct cache_entry **out)
{
	const char *w;
	return entry_load(c, key, out, &w, false);
}

void cache_entry_free(struct cache_entry *e)
{
	if (!e)
		return;
	cJSON_Delete(e->manifest);
	free(e);
}

char *cache_entry_log(struct cache *c, const struct cache_entry *e, size_t *len)
{
	const cJSON *log = cJSON_GetObjectItemCaseSensitive(e->manifest, "log");
	const char *text = jstr(log, "text"), *why;
	if (text) { /* an inline log, as bin/store.c wrote small ones */
		*len = strlen(text);
		return xstrdup(text);
	}
	*len = (size_t)jcount(log, "size");
	if (!*len)
		return xstrdup("");
	char *data = cache_blob_read(c, jstr(log, "hash"), *len, &why);
	if (!data)
		err_warn("cache entry %s: the log: %s", e->key, why);
	return data;
}

/* Stream a blob through the hash: NULL when whole, else why not. */
static const char *blob_verify(struct cache *c, const char *hash, size_t size)
{
	int fd = cache_blob_open(c, hash);
	if (fd < 0)
		return "a blob is missing";
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	char buf[65536];
	size_t n = 0;
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		XXH3_128bits_update(st, buf, (size_t)r);
		n += (size_t)r;
	}
	close(fd);
	char got[33];
	cache_hex128(XXH3_128bits_digest(st), got);
	XXH3_freeState(st);
	if (r < 0)
		return "a blob is unreadable";
	if (n != size)
		return "a blob has the wrong size";
	return strcmp(got, hash) != 0 ? "a blob does not match its hash" : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cache_verify(struct cache *c, void (*report)(const char *key, const char *what, void *arg),
	void *arg)
{
	char *acdir = xasprintf("%s/ac", c->dir);
	DIR *d = opendir(acdir);
	free(acdir);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	char **keys = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		XGROW(keys, n + 1, cap);
		keys[n++] = xstrndup(de->d_name, len - 5);
	}
	closedir(d);
	if (n > 1) /* an empty ac/ leaves keys NULL: never qsort(NULL, 0) */
		qsort(keys, n, sizeof(*keys), cmp_str);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		struct cache_entry *e;
		const char *why = NULL;
		if (entry_load(c, keys[i], &e, &why, true)) {
			const cJSON *log = cJSON_GetObjectItemCaseSensitive(e->manifest, "log"), *f;
			if (jstr(log, "hash") && jcount(log, "size") > 0)
				why = blob_verify(c, jstr(log, "hash"), (size_t)jcount(log, "size"));
			cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(e->manifest, "files")) {
				struct cache_file cf;
				if (why)
					break;
				if (!cache_file_parse(f, &cf) && cf.hash)
					why = blob_verify(c, cf.hash, cf.size);
			}
			cache_entry_free(e);
		}
		if (why) {
			report(keys[i], why, arg);
			bad++;
		}
		free(keys[i]);
	}
	free(keys);
	return bad;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	int r = flag == FTW_DP || flag == FTW_D ? rmdir(p) : unlink(p);
	return r == 0 || errno == ENOENT ? 0 : -1;
}

static int rm_tree(const char *p)
{
	return nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 || errno == ENOENT ? 0 : -1;
}

/* Renamed aside first so a concurrent reader sees the whole cache or none.
 * Directories left aside by a clean that was killed are removed too. */
int cache_clean(struct cache *c)
{
	char *real = path_canonical(c->dir);
	const char *dir = real ? real : c->dir;
	cache_forget_dirs(c);
	char *aside = xasprintf("%s.vx-clean.%d.%x", dir, (int)getpid(), c->nonce);
	int r = 0;
	if (rename(dir, aside) != 0 && errno != ENOENT) {
		err_warn_errno("unable to move '%s' aside", dir);
		r = -1;
	} else if (rm_tree(aside) != 0) {
		err_warn_errno("unable to remove '%s'", aside);
		r = -1;
	}
	free(aside);
	const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	char *parent = path_join(dir, ".."), *prefix = xasprintf("%s.vx-clean.", base);
	DIR *d = opendir(parent);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		char *p = path_join(parent, de->d_name);
		rm_tree(p);
		free(p);
	}
	if (d)
		closedir(d);
	free(parent);
	free(prefix);
	free(real);
	/* the checkout's shadow holds outputs' bytes too: a clean frees them */
	if (c->statedir) {
		if (c->shadowfd >= 0)
			close(c->shadowfd);
		c->shadowfd = -1;
		char *sh = xasprintf("%s/shadow", c->statedir);
		if (rm_tree(sh) != 0) {
			err_warn_errno("unable to remove '%s'", sh);
			r = -1;
		}
		free(sh);
	}
	return r;
}
