#include "statcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "strmap.h"

#define MAGIC "vx-key-stat 1\n"

struct statcache {
	char *path;
	struct strmap map; /* path -> struct sc_entry */
	bool dirty;
};

static int64_t ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int64_t statcache_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return ns(t);
}

/* Record layout: u16 path length, path bytes, then the entry as is. */
struct statcache *statcache_load(const char *root)
{
	struct statcache *sc = xcalloc(1, sizeof(*sc));
	sc->path = xasprintf("%s/.vx/key-stat", root);
	strmap_init(&sc->map);
	size_t len;
	char *data = fileio_read_at(AT_FDCWD, sc->path, &len);
	if (!data)
		return sc;
	size_t off = strlen(MAGIC);
	if (len < off || memcmp(data, MAGIC, off) != 0) {
		free(data);
		return sc;
	}
	while (off + 2 <= len) {
		uint16_t n;
		memcpy(&n, data + off, 2);
		off += 2;
		if (off + n + sizeof(struct sc_entry) > len)
			break;
		char *p = xstrndup(data + off, n);
		off += n;
		struct sc_entry *e = xmalloc(sizeof(*e));
		memcpy(e, data + off, sizeof(*e));
		off += sizeof(*e);
		free(strmap_put(&sc->map, p, e));
	}
	free(data);
	return sc;
}

const uint8_t *statcache_lookup(struct statcache *sc, const char *path, const struct stat *st)
{
	struct sc_entry *e = strmap_get(&sc->map, path);
	if (!e || e->size != (uint64_t)st->st_size || e->ino != (uint64_t)st->st_ino ||
		e->mtime != ns(st->st_mtim) || e->ctime != ns(st->st_ctim))
		return NULL;
	if (e->mtime >= e->hashed_at)
		return NULL; /* racily clean: the same tick may hide a rewrite */
	return e->hash;
}

void statcache_store(struct statcache *sc, const char *path, const struct stat *st,
	const uint8_t hash[16], int64_t hashed_at)
{
	struct sc_entry *e = strmap_get(&sc->map, path);
	if (!e) {
		e = xmalloc(sizeof(*e));
		strmap_put(&sc->map, xstrdup(path), e);
	}
	e->size = (uint64_t)st->st_size;
	e->ino = (uint64_t)st->st_ino;
	e->mtime = ns(st->st_mtim);
	e->ctime = ns(st->st_ctim);
	e->hashed_at = hashed_at;
	memcpy(e->hash, hash, 16);
	sc->dirty = true;
}

int statcache_save(struct statcache *sc)
{
	if (!sc->dirty)
		return 0;
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap);
	memcpy(buf, MAGIC, strlen(MAGIC));
	len = strlen(MAGIC);
	for (size_t i = 0; i < sc->map.cap; i++) {
		const char *k = sc->map.keys[i];
		if (!k)
			continue;
		size_t n = strlen(k);
		if (n > 65535)
			continue;
		size_t need = 2 + n + sizeof(struct sc_entry);
		if (len + need > cap) {
			cap = (len + need) * 2;
			buf = xrealloc(buf, cap);
		}
		uint16_t n16 = (uint16_t)n;
		memcpy(buf + len, &n16, 2);
		memcpy(buf + len + 2, k, n);
		memcpy(buf + len + 2 + n, sc->map.vals[i], sizeof(struct sc_entry));
		len += need;
	}
	char *dir = xstrdup(sc->path);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0777);
	free(dir);
	char *tmp = xasprintf("%s.%d.tmp", sc->path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int r = fd < 0 ? -1 : 0;
	for (size_t off = 0; r == 0 && off < len;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			r = -1;
		else
			off += (size_t)w;
	}
	if (fd >= 0 && close(fd) != 0)
		r = -1;
	if (r == 0)
		r = rename(tmp, sc->path);
	if (r != 0)
		unlink(tmp);
	free(tmp);
	free(buf);
	sc->dirty = false;
	return r;
}
