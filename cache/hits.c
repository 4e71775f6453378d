/* hits.c: the cache's record of hits, <dir>/hits (cache_int.h).
 *
 * A hit costs no system call: cache_touch keeps the key in the handle, and
 * cache_close appends every key it kept, dated then, in one write(2) with
 * O_APPEND under a shared flock. The file is
 *
 *   vx-hits 1 <bytes when last compacted, 12 digits>\n
 *   <key> <unix time in ns>\n       one line a hit, later lines later
 *
 * A line that does not parse (a write cut short, a second header made by
 * two first appenders at once) is skipped. When the file has doubled since
 * it was compacted (and passed HITS_COMPACT_MIN), the appender rewrites it
 * under an exclusive flock: the latest time of each key (a prune that
 * evicted also drops the keys whose manifest went), renamed over the old file; an appender that opened the old
 * one sees it unlinked (st_nlink 0) once it has its lock, and opens again.
 * No symlink is followed.
 */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomicw.h"
#include "cache_int.h"
#include "err.h"
#include "hash.h"
#include "statsnap.h"
#include "strbuf.h"

#define HITS_NAME "hits"
#define HEADER_FMT "vx-hits 1 %012llu\n"
#define HEADER_LEN 23
#define LINE_LEN 53 /* 32 hex, a space, 19 digits, a newline */
#define HITS_COMPACT_MIN (4u << 20) /* ~80 runs of 1,000 hits between two */

/* when: " <19 digits>\n", the time part of a line */
static void line(struct strbuf *b, const char *key, const char when[LINE_LEN - 32])
{
	strbuf_add(b, key, 32);
	strbuf_add(b, when, LINE_LEN - 32);
}

static void when_of(char when[LINE_LEN - 32 + 1], int64_t ns)
{
	snprintf(when, LINE_LEN - 32 + 1, " %019lld\n", (long long)ns);
}

static void put_latest(struct strmap *into, const char *key, int64_t ns)
{
	int64_t *at = strmap_get(into, key);
	if (at) {
		if (ns > *at)
			*at = ns;
		return;
	}
	at = xmalloc(sizeof(*at));
	*at = ns;
	strmap_put(into, xstrndup(key, 32), at);
}

/* Complete lines of text[0, len): the offset after the last newline. */
static size_t parse(const char *text, size_t len, struct strmap *into)
{
	size_t at = 0;
	for (;;) {
		const char *nl = memchr(text + at, '\n', len - at);
		if (!nl)
			return at;
		size_t n = (size_t)(nl - (text + at));
		const char *l = text + at;
		if (n == LINE_LEN - 1 && l[32] == ' ') {
			char key[33], *end;
			memcpy(key, l, 32);
			key[32] = '\0';
			long long ns = strtoll(l + 33, &end, 10);
			if (end == nl && ns > 0 && hash_is_hex(key))
				put_latest(into, key, ns);
		}
		at += n + 1;
	}
}

off_t cache_hits_read(int top, off_t from, struct strmap *into)
{
	int fd = openat(top, HITS_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= from) {
		if (fd >= 0)
			close(fd);
		return from;
	}
	size_t want = (size_t)(st.st_size - from), got = 0;
	char *buf = xmalloc(want + 1);
	while (got < want) {
		ssize_t r = pread(fd, buf + got, want - got, from + (off_t)got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	off_t end = from + (off_t)parse(buf, got, into);
	free(buf);
	return end;
}

void cache_hits_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			free((char *)m->keys[i]);
			free(m->vals[i]);
		}
	strmap_free(m);
}

/* Under the exclusive flock of fd (the file named hits): rewrite it with
 * the latest time of each key of the file and of extra (may be NULL), of
 * keys whose manifest is there when live (a prune's: it evicted some).
 * Failing, the file stays as it was. */
static void compact_locked(int top, int fd, const struct strmap *extra, bool live)
{
	struct strmap m;
	strmap_init(&m);
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		size_t want = (size_t)st.st_size, got = 0;
		char *buf = xmalloc(want + 1);
		ssize_t r;
		while (got < want && (r = pread(fd, buf + got, want - got, (off_t)got)) > 0)
			got += (size_t)r;
		parse(buf, got, &m);
		free(buf);
	}
	if (extra)
		for (size_t i = 0; i < extra->cap; i++)
			if (extra->keys[i])
				put_latest(&m, extra->keys[i], *(int64_t *)extra->vals[i]);
	int ac = live ? openat(top, "ac", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, HEADER_FMT, 0ULL);
	for (size_t i = 0; (ac >= 0 || !live) && i < m.cap; i++) {
		char name[40], when[LINE_LEN - 32 + 1];
		struct stat ms;
		if (!m.keys[i])
			continue;
		snprintf(name, sizeof(name), "%s.json", m.keys[i]);
		if (live && fstatat(ac, name, &ms, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		when_of(when, *(int64_t *)m.vals[i]);
		line(&b, m.keys[i], when);
	}
	if (ac >= 0)
		close(ac);
	char head[HEADER_LEN + 1];
	snprintf(head, sizeof(head), HEADER_FMT, (unsigned long long)b.len);
	memcpy(b.buf, head, HEADER_LEN);
	struct atomicw w;
	if (atomicw_openat(&w, top, HITS_NAME, 0666) == 0) {
		if (atomicw_write(&w, b.buf, b.len) == 0)
			atomicw_commit(&w);
		else
			atomicw_abort(&w);
	}
	strbuf_release(&b);
	cache_hits_free(&m);
}

/* The hits file open for appending, its shared (or, excl, exclusive)
 * flock held and st filled: an fd, or -1. */
static int open_locked(int top, bool excl, struct stat *st)
{
	for (int tries = 0; tries < 4; tries++) {
		int fd = openat(top, HITS_NAME, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0666);
		if (fd < 0)
			return -1;
		if (flock(fd, excl ? LOCK_EX : LOCK_SH) != 0 || fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
			close(fd);
			return -1;
		}
		if (st->st_nlink > 0)
			return fd;
		close(fd); /* compacted meanwhile: the new file */
	}
	return -1;
}

void cache_hits_compact(int top, const struct strmap *extra)
{
	struct stat st;
	int fd = open_locked(top, true, &st);
	if (fd < 0)
		return;
	compact_locked(top, fd, extra, true);
	close(fd);
}

void cache_hits_flush(struct cache *c)
{
	if (c->touched.len == 0)
		return;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	int64_t ns = statsnap_ns(now);
	int top = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return;
	struct stat st;
	int fd = open_locked(top, false, &st);
	if (fd < 0) {
		close(top);
		return;
	}
	unsigned long long compacted = 0;
	struct strbuf b = STRBUF_INIT;
	if (st.st_size == 0) {
		strbuf_addf(&b, HEADER_FMT, 0ULL);
	} else {
		char head[HEADER_LEN + 1];
		if (pread(fd, head, HEADER_LEN, 0) == HEADER_LEN) {
			head[HEADER_LEN] = '\0';
			if (sscanf(head, "vx-hits 1 %12llu\n", &compacted) != 1)
				compacted = 0;
		}
	}
	char when[LINE_LEN - 32 + 1];
	when_of(when, ns);
	strbuf_grow(&b, c->touched.len * LINE_LEN);
	for (size_t i = 0; i < c->touched.cap; i++)
		if (c->touched.keys[i])
			line(&b, c->touched.keys[i], when);
	/* one write: appenders under the shared lock do not interleave lines */
	bool ok = write(fd, b.buf, b.len) == (ssize_t)b.len;
	unsigned long long size = (unsigned long long)st.st_size + b.len;
	strbuf_release(&b);
	if (ok && size > HITS_COMPACT_MIN && size > 2 * compacted &&
		flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0)
		compact_locked(top, fd, NULL, false);
	close(fd);
	close(top);
}
