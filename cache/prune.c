/* prune.c: the cache's size cap (cache.h's cache_touch and cache_prune).
 *
 * Last use: an entry's manifest mtime is its save; its hits are the lines
 * of <dir>/hits (hits.c: a run appends its hit keys once, at its end), and
 * the keys this handle hit are also kept in memory for its own prune; the
 * manifest itself is never touched (the in-place memo trusts its stat).
 * A prune is a mark and sweep: every blob of cas/ is stat'ed, every
 * manifest read for the blobs it names (blobs
 * are shared between entries by their content), entries are evicted least
 * recently used first (the manifest unlinked first: a reader sees a miss),
 * and a blob goes only when no manifest left names it and no save touched
 * it since the prune began (save.c dates a blob it reuses). Directories are
 * opened O_NOFOLLOW and files unlinked by name: no symlink is followed.
 *
 * The walk stats every blob, too much for every run that saves: the
 * ledger, <dir>/size ("vx-size 1 <bytes> <walk's unix time>"), holds what
 * the last walk counted plus what saves added since; the driver walks only
 * when that goes over the cap or the walk is a day old (bytes that came
 * another way, from the remote, are counted by the next walk).
 */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicw.h"
#include "cache_int.h"
#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "statsnap.h"
#include "strmap.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

void cache_touch(struct cache *c, const char *key)
{
	if (!hash_is_hex(key))
		return;
	pthread_mutex_lock(&c->stamp_mu);
	if (!strmap_get(&c->touched, key)) {
		char *k = xstrdup(key);
		strmap_put(&c->touched, k, k);
	}
	pthread_mutex_unlock(&c->stamp_mu);
}

struct blob {
	char hash[33];
	bool named;      /* some manifest named it */
	unsigned refs;   /* manifests left that name it */
	unsigned long long size;
};

struct entry {
	char key[33];
	int64_t last;    /* ns */
	unsigned long long size;
	struct blob **blobs;
	size_t nblobs;
};

struct pruner {
	struct cache *c;
	int top, acfd, casfd;
	int64_t start;   /* CLOCK_REALTIME_COARSE, as file times are taken */
	struct strmap blobs; /* hash -> struct blob */
	struct strmap used;  /* key -> int64_t last hit, ns (hits.c) */
	off_t hits_end;      /* what of the hits file was read */
	bool legacy;         /* a used/ directory was read */
	struct entry *es;
	size_t n, cap;
	unsigned long long total;
};

static int64_t ns_of(struct timespec t)
{
	return statsnap_ns(t);
}

static bool is_key(const char *name, size_t len)
{
	char k[33];
	if (len != 32)
		return false;
	memcpy(k, name, 32);
	k[32] = '\0';
	return hash_is_hex(k);
}

static void walk_cas(struct pruner *p)
{
	DIR *d = p->casfd >= 0 ? fdopendir(dup(p->casfd)) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		const char *h = de->d_name;
		if (strlen(h) != 2 || !strchr("0123456789abcdef", h[0]) || !strchr("0123456789abcdef", h[1]))
			continue;
		int fd = openat(p->casfd, h, DIR_FLAGS);
		DIR *sub = fd >= 0 ? fdopendir(fd) : NULL;
		if (!sub) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		struct dirent *be;
		while ((be = readdir(sub))) {
			struct stat st;
			if (!is_key(be->d_name, strlen(be->d_name)) || memcmp(be->d_name, h, 2) != 0 ||
				fstatat(dirfd(sub), be->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
				!S_ISREG(st.st_mode))
				continue;
			struct blob *b = xcalloc(1, sizeof(*b));
			memcpy(b->hash, be->d_name, 33);
			b->size = (unsigned long long)st.st_size;
			strmap_put(&p->blobs, b->hash, b);
			p->total += b->size;
		}
		closedir(sub);
	}
	if (d)
		closedir(d);
}

/* used/<key>, an empty file dated by a hit: the record of vx before the
 * hits file. Its dates are merged into the hits file, then it goes. */
static void merge_legacy_used(struct pruner *p)
{
	int fd = openat(p->top, "used", DIR_FLAGS);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (!is_key(de->d_name, strlen(de->d_name)) ||
			fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		int64_t *at = strmap_get(&p->used, de->d_name);
		if (!at) {
			at = xmalloc(sizeof(*at));
			*at = 0;
			strmap_put(&p->used, xstrdup(de->d_name), at);
		}
		if (ns_of(st.st_mtim) > *at)
			*at = ns_of(st.st_mtim);
	}
	closedir(d);
	p->legacy = true;
}

static void drop_legacy_used(struct pruner *p)
{
	int fd = openat(p->top, "used", DIR_FLAGS);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (is_key(de->d_name, strlen(de->d_name)))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	unlinkat(p->top, "used", AT_REMOVEDIR);
}

static void name_blob(struct pruner *p, struct entry *e, const char *hash)
{
	struct blob *b = hash ? strmap_get(&p->blobs, hash) : NULL;
	if (!b)
		return;
	b->named = true;
	b->refs++;
	e->blobs = xrealloc(e->blobs, (e->nblobs + 1) * sizeof(*e->blobs));
	e->blobs[e->nblobs++] = b;
}

/* The manifest's blobs; one that does not parse names none (a miss anyway). */
static void read_entry(struct pruner *p, struct entry *e)
{
	char name[40];
	snprintf(name, sizeof(name), "%s.json", e->key);
	int fd = openat(p->acfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *text = fd >= 0 ? fileio_read_fd(fd, NULL) : NULL;
	if (fd >= 0)
		close(fd);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *f, *log = cJSON_GetObjectItemCaseSensitive(m, "log");
	name_blob(p, e, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log, "hash")));
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(m, "files"))
		name_blob(p, e, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "hash")));
	cJSON_Delete(m);
}

static int64_t last_use(struct pruner *p, const char *key, const struct stat *mst)
{
	int64_t last = ns_of(mst->st_mtim);
	const int64_t *u = strmap_get(&p->used, key);
	return u && *u > last ? *u : last;
}

static void walk_ac(struct pruner *p)
{
	DIR *d = p->acfd >= 0 ? fdopendir(dup(p->acfd)) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len != 37 || strcmp(de->d_name + 32, ".json") != 0 || !is_key(de->d_name, 32))
			continue;
		int fd = openat(p->acfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		XGROW(p->es, p->n + 1, p->cap);
		struct entry *e = &p->es[p->n++];
		memset(e, 0, sizeof(*e));
		memcpy(e->key, de->d_name, 32);
		e->size = (unsigned long long)st.st_size;
		e->last = last_use(p, e->key, &st);
		p->total += e->size;
		close(fd);
	}
	if (d)
		closedir(d);
}

static int by_last(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->last < y->last ? -1 : x->last > y->last ? 1 : strcmp(x->key, y->key);
}

/* Saved again since the walk (a save of the same key): kept. Hits since
 * the walk were read before the evictions began (prune_hits_since). */
static bool used_since(struct pruner *p, const struct entry *e)
{
	char name[40];
	struct stat st;
	snprintf(name, sizeof(name), "%s.json", e->key);
	if (fstatat(p->acfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return true; /* gone already: nothing to do */
	if (ns_of(st.st_mtim) > e->last)
		return true;
	const int64_t *u = strmap_get(&p->used, e->key);
	return u && *u > e->last;
}

static bool evict(struct pruner *p, struct entry *e)
{
	char name[40];
	snprintf(name, sizeof(name), "%s.json", e->key);
	if (used_since(p, e) || unlinkat(p->acfd, name, 0) != 0)
		return false;
	p->total -= e->size;
	for (size_t i = 0; i < e->nblobs; i++)
		if (--e->blobs[i]->refs == 0)
			p->total -= e->blobs[i]->size;
	return true;
}

static int by_hash(const void *a, const void *b)
{
	return strcmp((*(struct blob *const *)a)->hash, (*(struct blob *const *)b)->hash);
}

/* Remove the blobs no manifest names: those of evicted entries, and
 * orphans of killed saves older than CACHE_STALE_SECONDS; never one dated
 * since the prune began (a save reused or wrote it). The count removed. */
static size_t sweep(struct pruner *p)
{
	struct blob **dead = NULL;
	size_t n = 0, cap = 0, removed = 0;
	for (size_t i = 0; i < p->blobs.cap; i++) {
		struct blob *b = p->blobs.keys[i] ? p->blobs.vals[i] : NULL;
		if (b && b->refs == 0) {
			XGROW(dead, n + 1, cap);
			dead[n++] = b;
		}
	}
	if (n > 1)
		qsort(dead, n, sizeof(*dead), by_hash);
	int64_t stale = p->start - (int64_t)CACHE_STALE_SECONDS * 1000000000;
	int hfd = -1;
	for (size_t i = 0; i < n; i++) {
		struct blob *b = dead[i];
		if (i == 0 || memcmp(dead[i - 1]->hash, b->hash, 2) != 0) {
			char hh[3] = {b->hash[0], b->hash[1], '\0'};
			if (hfd >= 0)
				close(hfd);
			hfd = openat(p->casfd, hh, DIR_FLAGS);
		}
		struct stat st;
		if (hfd < 0 || fstatat(hfd, b->hash, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		int64_t at = ns_of(st.st_mtim);
		if (at >= p->start || (!b->named && at >= stale)) {
			if (b->named) /* counted as freed by its eviction: it stays */
				p->total += b->size;
			continue;
		}
		if (unlinkat(hfd, b->hash, 0) == 0) {
			removed++;
			if (!b->named)
				p->total -= b->size;
		} else if (b->named) {
			p->total += b->size;
		}
	}
	if (hfd >= 0)
		close(hfd);
	free(dead);
	return removed;
}

#define LEDGER_DAYS 1

/* The ledger: 0 with its bytes and walk time, or -1 (missing, malformed). */
static int ledger_read(int top, unsigned long long *bytes, long long *walked)
{
	char buf[96];
	int fd = openat(top, "size", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "vx-size 1 %llu %lld\n", bytes, walked) == 2 ? 0 : -1;
}

/* Written whole or not at all (atomicw). Failing, the next run walks. */
static void ledger_write(int top, unsigned long long bytes, long long walked)
{
	char buf[96];
	int len = snprintf(buf, sizeof(buf), "vx-size 1 %llu %lld\n", bytes, walked);
	struct atomicw w;
	if (atomicw_openat(&w, top, "size", 0666) != 0)
		return;
	if (atomicw_write(&w, buf, (size_t)len) == 0)
		atomicw_commit(&w);
	else
		atomicw_abort(&w);
}

static void pruner_free(struct pruner *p)
{
	for (size_t i = 0; i < p->blobs.cap; i++)
		if (p->blobs.keys[i])
			free(p->blobs.vals[i]);
	strmap_free(&p->blobs);
	cache_hits_free(&p->used);
	for (size_t i = 0; i < p->n; i++)
		free(p->es[i].blobs);
	free(p->es);
	int fds[] = {p->acfd, p->casfd, p->top};
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int cache_prune(struct cache *c, unsigned long long cap, const struct timespec *keep, bool by_hand,
	struct cache_pruned *out)
{
	struct cache_pruned res = {0};
	if (out)
		*out = res;
	struct pruner p = {.c = c, .acfd = -1, .casfd = -1};
	p.top = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p.top < 0) {
		if (errno == ENOENT)
			return 0; /* no cache yet */
		err_warn_errno("unable to open '%s'", c->dir);
		return -1;
	}
	int lock = openat(p.top, "prune.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
	if (lock < 0 || flock(lock, LOCK_EX | (by_hand ? 0 : LOCK_NB)) != 0) {
		int e = errno;
		if (lock >= 0)
			close(lock);
		close(p.top);
		if (!by_hand && e == EWOULDBLOCK)
			return 0; /* another prune is at it */
		errno = e;
		err_warn_errno("unable to lock '%s/prune.lock'", c->dir);
		return -1;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	p.start = ns_of(now);
	unsigned long long was;
	long long walked;
	if (!by_hand && ledger_read(p.top, &was, &walked) == 0 && walked <= now.tv_sec &&
		now.tv_sec - walked < LEDGER_DAYS * 86400 && was + c->added <= cap) {
		ledger_write(p.top, was + c->added, walked); /* under the cap: no walk */
		c->added = 0;
		res.before = res.after = was;
		close(p.top);
		close(lock);
		if (out)
			*out = res;
		return 0;
	}
	p.acfd = openat(p.top, "ac", DIR_FLAGS);
	p.casfd = openat(p.top, "cas", DIR_FLAGS);
	strmap_init(&p.blobs);
	strmap_init(&p.used);
	walk_cas(&p);
	p.hits_end = cache_hits_read(p.top, 0, &p.used);
	merge_legacy_used(&p);
	walk_ac(&p);
	res.before = res.after = p.total;
	res.entries = p.n;
	/* over the cap, down to 90% of it: not a prune on every run that saves */
	bool over = cap && p.total > cap;
	if (!over && !by_hand) { /* the stats said enough: no manifest read */
		ledger_write(p.top, p.total, now.tv_sec);
		c->added = 0;
		pruner_free(&p);
		close(lock);
		if (out)
			*out = res;
		return 0;
	}
	for (size_t i = 0; i < p.n; i++) /* the mark */
		read_entry(&p, &p.es[i]);
	if (p.n > 1)
		qsort(p.es, p.n, sizeof(*p.es), by_last);
	int64_t kept = keep ? ns_of(*keep) : INT64_MAX;
	unsigned long long target = cap - cap / 10;
	/* hits other runs recorded since the walk: theirs is a recent use */
	p.hits_end = cache_hits_read(p.top, p.hits_end, &p.used);
	for (size_t i = 0; over && p.total > target && i < p.n; i++) {
		if (p.es[i].last >= kept)
			break; /* and every later one: used by this run */
		if (strmap_get(&c->touched, p.es[i].key))
			continue; /* hit by this handle, not dated again */
		if (evict(&p, &p.es[i]))
			res.evicted++;
	}
	if (p.casfd >= 0)
		res.blobs = sweep(&p);
	/* the evicted keys' lines go, and the used/ of an older vx once merged */
	if (res.evicted || p.legacy) {
		cache_hits_compact(p.top, p.legacy ? &p.used : NULL);
		if (p.legacy)
			drop_legacy_used(&p);
	}
	res.after = p.total;
	ledger_write(p.top, p.total, now.tv_sec);
	c->added = 0;
	pruner_free(&p);
	close(lock); /* the flock goes with it */
	if (out)
		*out = res;
	return 0;
}
