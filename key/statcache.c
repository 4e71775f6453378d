#include "statcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "memo.h"
#include "prestat.h"
#include "strbuf.h"
#include "strmap.h"

/* The file: a memo (memo.h: kind "key-stat", version 5) whose body is, per
 * entry, a u16 path length (with its NUL), the path and its NUL, then
 * struct disk as is (native byte order: the file is per checkout, never
 * shared); a directory's entry (its path ends in '/') then has a u32
 * length and its listing. */
#define MEMO_KIND "key-stat"
#define MEMO_VERSION 5

struct disk {
	struct statsnap st;
	uint8_t hash[16];
};

struct statcache {
	char *path;
	struct strmap map; /* path -> struct sc_entry */
	char *buf;         /* the loaded file: keys point into it */
	size_t buflen;
	struct sc_entry *loaded; /* one array for the loaded entries */
	const char **keys;       /* and their paths */
	size_t nloaded;
	bool dirty;
	/* statcache_preload: each loaded entry's lstat, by index, taken by
	 * background threads while the walk goes on */
	struct prestat pre;
};

int64_t statcache_now(void)
{
	struct timespec t;
	/* the clock the kernel stamps file times from; a finer clock could
	 * read later than the mtime of a write that followed it */
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return statsnap_ns(t);
}

struct statcache *statcache_load(const char *root)
{
	struct statcache *sc = xcalloc(1, sizeof(*sc));
	sc->path = xasprintf("%s/.vx/key-stat", root);
	strmap_init(&sc->map);
	struct memo m;
	if (memo_load(&m, sc->path, MEMO_KIND, MEMO_VERSION) != MEMO_OK)
		return sc;
	const char *data = m.body;
	size_t len = m.len, off = 0;
	/* git's rule: an entry is racy unless its file was last written
	 * before the stat cache itself was */
	int64_t limit = m.mtime;
	sc->buf = m.data;
	sc->buflen = (size_t)(m.body - m.data) + m.len;
	size_t cap = len / (sizeof(struct disk) + 3) + 1;
	sc->loaded = xcalloc(cap, sizeof(*sc->loaded));
	sc->keys = xcalloc(cap, sizeof(*sc->keys));
	while (off + 2 <= len && sc->nloaded < cap) {
		uint16_t n;
		memcpy(&n, data + off, 2);
		off += 2;
		if (n < 2 || off + n + sizeof(struct disk) > len || data[off + n - 1] != '\0')
			break;
		const char *p = data + off;
		off += n;
		struct disk d;
		memcpy(&d, data + off, sizeof(d));
		off += sizeof(d);
		const char *list = NULL;
		uint32_t listlen = 0;
		if (p[n - 2] == '/') {
			if (off + 4 > len)
				break;
			memcpy(&listlen, data + off, 4);
			off += 4;
			if (listlen > len - off)
				break;
			list = data + off;
			off += listlen;
		}
		struct sc_entry *e = &sc->loaded[sc->nloaded++];
		*e = (struct sc_entry){.st = d.st, .limit = limit, .list = list, .listlen = listlen};
		memcpy(e->hash, d.hash, 16);
		sc->keys[sc->nloaded - 1] = p;
	}
	/* the map sized once: growing it puts every key again */
	strmap_reserve(&sc->map, sc->nloaded);
	for (size_t i = 0; i < sc->nloaded; i++)
		strmap_put(&sc->map, sc->keys[i], &sc->loaded[i]);
	return sc;
}

/* e when st matches it and it is not racy. */
static const struct sc_entry *trusted_entry(const struct sc_entry *e, const struct stat *st)
{
	if (!e || !statsnap_matches(&e->st, st))
		return NULL;
	if (!statsnap_trusted(&e->st, e->limit))
		return NULL; /* racily clean: the same tick may hide a rewrite */
	return e;
}

/* The entry for path when st matches it and it is not racy. */
static const struct sc_entry *trusted(struct statcache *sc, const char *path, const struct stat *st)
{
	return trusted_entry(strmap_get(&sc->map, path), st);
}

const uint8_t *statcache_lookup_entry(const struct sc_entry *e, const struct stat *st)
{
	e = trusted_entry(e, st);
	return e && !e->list ? e->hash : NULL;
}

const uint8_t *statcache_lookup(struct statcache *sc, const char *path, const struct stat *st)
{
	return statcache_lookup_entry(strmap_get(&sc->map, path), st);
}

const char *statcache_dir_get(struct statcache *sc, const char *key, const struct stat *st,
	size_t *len)
{
	const struct sc_entry *e = trusted(sc, key, st);
	if (!e || !e->list)
		return NULL;
	*len = e->listlen;
	return e->list;
}

/* Each child's key in buf (the directory's key, "/" for the root, then
 * the name, and '/' for a directory), and fn of it. */
static void each_child(const struct statcache *sc, const char *key, const char *list,
	size_t len, bool deep)
{
	char buf[512];
	size_t kl = strcmp(key, "/") == 0 ? 0 : strlen(key);
	if (kl >= sizeof(buf))
		return;
	memcpy(buf, key, kl);
	for (size_t off = 0; off < len;) {
		unsigned char type = (unsigned char)list[off++];
		const char *nm = list + off;
		size_t n = strnlen(nm, len - off);
		off += n + 1;
		if (kl + n + 2 > sizeof(buf))
			continue;
		memcpy(buf + kl, nm, n);
		buf[kl + n] = '/';
		buf[kl + n + (type == DT_DIR)] = '\0';
		strmap_prefetch(&sc->map, buf, deep);
	}
}

void statcache_prefetch_children(const struct statcache *sc, const char *key, const char *list,
	size_t len)
{
	/* the slots first, then (arrived by now) what they point at */
	each_child(sc, key, list, len, false);
	each_child(sc, key, list, len, true);
}

static bool owned_key(const struct statcache *sc, const char *k)
{
	return !(sc->buf && k >= sc->buf && k < sc->buf + sc->buflen);
}

static bool owned_val(const struct statcache *sc, const struct sc_entry *e)
{
	return !(sc->loaded && e >= sc->loaded && e < sc->loaded + sc->nloaded);
}

static struct sc_entry *entry(struct statcache *sc, const char *path, const struct stat *st,
	int64_t limit)
{
	struct sc_entry *e = strmap_get(&sc->map, path);
	if (!e) {
		e = xmalloc(sizeof(*e));
		strmap_put(&sc->map, xstrdup(path), e);
	} else if (e->list_owned) {
		free((char *)e->list);
	}
	*e = (struct sc_entry){.limit = limit};
	statsnap_take(&e->st, st);
	sc->dirty = true;
	return e;
}

void statcache_store(struct statcache *sc, const char *path, const struct stat *st,
	const uint8_t hash[16], int64_t hashed_at)
{
	memcpy(entry(sc, path, st, hashed_at)->hash, hash, 16);
}

void statcache_dir_put(struct statcache *sc, const char *key, const struct stat *st,
	const char *list, size_t len, int64_t listed_at)
{
	if (len > UINT32_MAX)
		return;
	struct sc_entry *e = entry(sc, key, st, listed_at);
	char *l = xmalloc(len ? len : 1);
	memcpy(l, list, len);
	e->list = l;
	e->listlen = (uint32_t)len;
	e->list_owned = true;
}

bool statcache_dirty(const struct statcache *sc)
{
	return sc->dirty;
}

int statcache_save(struct statcache *sc)
{
	statcache_preload_drop(sc); /* the walk is over: the threads stop */
	if (!sc->dirty)
		return 0;
	struct strbuf buf = STRBUF_INIT;
	strbuf_grow(&buf, 1 << 16);
	for (size_t i = 0; i < sc->map.cap; i++) {
		const char *k = sc->map.keys[i];
		const struct sc_entry *e = k ? sc->map.vals[i] : NULL;
		/* still racy: leave it out, or the new file's later mtime would
		 * make it look clean next time */
		if (!e || !statsnap_trusted(&e->st, e->limit))
			continue;
		size_t n = strlen(k) + 1;
		if (n > 65535)
			continue;
		bool dir = n >= 2 && k[n - 2] == '/';
		if (dir != (e->list != NULL))
			continue;
		uint16_t n16 = (uint16_t)n;
		struct disk d = {.st = e->st};
		memcpy(d.hash, e->hash, 16);
		strbuf_add(&buf, &n16, 2);
		strbuf_add(&buf, k, n);
		strbuf_add(&buf, &d, sizeof(d));
		if (dir) {
			strbuf_add(&buf, &e->listlen, 4);
			strbuf_add(&buf, e->list, e->listlen);
		}
	}
	char *dir = xstrdup(sc->path);
	*strrchr(dir, '/') = '\0';
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		free(dir);
		strbuf_release(&buf);
		return -1;
	}
	free(dir);
	int r = memo_save(sc->path, MEMO_KIND, MEMO_VERSION, buf.buf, buf.len, 0666);
	strbuf_release(&buf);
	if (r == 0)
		sc->dirty = false;
	return r;
}

void statcache_free(struct statcache *sc)
{
	if (!sc)
		return;
	statcache_preload_drop(sc);
	for (size_t i = 0; i < sc->map.cap; i++) {
		const char *k = sc->map.keys[i];
		if (!k)
			continue;
		struct sc_entry *e = sc->map.vals[i];
		if (e->list_owned)
			free((char *)e->list);
		if (owned_val(sc, e))
			free(e);
		if (owned_key(sc, k))
			free((char *)k);
	}
	strmap_free(&sc->map);
	free(sc->loaded);
	free(sc->keys);
	free(sc->buf);
	free(sc->path);
	free(sc);
}

/* ---- the preload (git's preload_index) ---- */

/* The path of loaded entry i for prestat.h: a directory's key ends in '/'
 * (the root's is "/"), which lstat must not see. */
static const char *entry_path(void *arg, size_t i, char *buf, size_t cap)
{
	const struct statcache *sc = arg;
	const char *k = sc->keys[i];
	size_t n = strlen(k);
	if (!n || k[n - 1] != '/')
		return k;
	if (n == 1)
		return ".";
	if (n > cap)
		return NULL;
	memcpy(buf, k, n - 1);
	buf[n - 1] = '\0';
	return buf;
}

void statcache_preload(struct statcache *sc, const char *root)
{
	statcache_preload_drop(sc);
	if (!sc->nloaded)
		return;
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	prestat_start(&sc->pre, fd, sc->nloaded, entry_path, sc, 3);
}

void statcache_preload_drop(struct statcache *sc)
{
	prestat_stop(&sc->pre);
}

int statcache_prestat(struct statcache *sc, const char *key, bool follow, struct stat *st,
	const struct sc_entry **entry)
{
	if (!entry && !sc->pre.on)
		return 1; /* nothing to find: no preload, no entry wanted */
	const struct sc_entry *e = strmap_get(&sc->map, key);
	if (entry)
		*entry = e;
	if (!e || owned_val(sc, e))
		return 1;
	struct stat pst;
	int r = prestat_take(&sc->pre, (size_t)(e - sc->loaded), &pst);
	/* stat() of anything but a symlink is its lstat(); of one, ask the kernel */
	if (r != 0 || (follow && S_ISLNK(pst.st_mode)))
		return r;
	*st = pst;
	return 0;
}
