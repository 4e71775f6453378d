#include "walk.h"

#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "glob.h"

bool walk_globs_match(const char *const *globs, size_t n, const char *rel)
{
	bool hit = false;
	for (size_t i = 0; i < n; i++) {
		const char *g = globs[i];
		if (g[0] == '!') {
			if (hit && glob_match(g + 1, rel))
				hit = false;
		} else if (!hit && glob_match(g, rel)) {
			hit = true;
		}
	}
	return hit;
}

static bool may_descend(const struct walk_opts *o, const char *rel)
{
	for (size_t i = 0; i < o->nglobs; i++)
		if (o->globs[i][0] != '!' && glob_may_match_under(o->globs[i], rel))
			return true;
	return false;
}

/* One directory's entries: names in one buffer, sorted by byte order. */
struct entries {
	char *names;
	size_t len, cap;
	struct ent {
		size_t off;
		unsigned char type; /* DT_* from getdents; DT_UNKNOWN: ask fstatat */
	} *v;
	size_t n, vcap;
};

static int cmp_ent(const void *a, const void *b, void *names)
{
	return strcmp((const char *)names + ((const struct ent *)a)->off,
		(const char *)names + ((const struct ent *)b)->off);
}

/* getdents64 straight into a buffer: no fdopendir (an fstat and an fcntl per
 * directory) and d_type, so directories and unmatched files need no stat. */
static void list_dir(int dirfd, struct entries *e)
{
	char buf[32768];
	ssize_t got;
	e->len = e->n = 0;
	while ((got = getdents64(dirfd, buf, sizeof(buf))) > 0) {
		for (ssize_t pos = 0; pos < got;) {
			struct dirent64 *de = (struct dirent64 *)(buf + pos);
			pos += de->d_reclen;
			const char *nm = de->d_name;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			size_t l = strlen(nm) + 1;
			XGROW(e->names, e->len + l, e->cap);
			XGROW(e->v, e->n + 1, e->vcap);
			memcpy(e->names + e->len, nm, l);
			e->v[e->n++] = (struct ent){e->len, de->d_type};
			e->len += l;
		}
	}
	/* an empty directory leaves e->v NULL, which qsort_r must never see
	 * (its base is declared nonnull, even for no elements) */
	if (e->n > 1)
		qsort_r(e->v, e->n, sizeof(*e->v), cmp_ent, e->names);
}

bool walk_walled(const char *nm)
{
	return strcmp(nm, "node_modules") == 0 || strcmp(nm, ".git") == 0 || strcmp(nm, ".vx") == 0;
}

/* --- with a listing cache: everything by path from base ------------------ */

static int64_t coarse_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void entries_from_blob(struct entries *e, const char *blob, size_t len)
{
	e->len = e->n = 0;
	for (size_t off = 0; off < len;) {
		unsigned char type = (unsigned char)blob[off++];
		const char *nm = blob + off;
		size_t l = strnlen(nm, len - off);
		if (off + l >= len)
			break; /* no NUL: the blob ends early */
		off += l + 1;
		XGROW(e->names, e->len + l + 1, e->cap);
		XGROW(e->v, e->n + 1, e->vcap);
		memcpy(e->names + e->len, nm, l + 1);
		e->v[e->n++] = (struct ent){e->len, type};
		e->len += l + 1;
	}
}

static char *entries_to_blob(const struct entries *e, size_t *len)
{
	char *b = xmalloc(e->len + e->n + 1);
	size_t off = 0;
	for (size_t i = 0; i < e->n; i++) {
		const char *nm = e->names + e->v[i].off;
		size_t l = strlen(nm) + 1;
		b[off++] = (char)e->v[i].type;
		memcpy(b + off, nm, l);
		off += l;
	}
	*len = off;
	return b;
}

struct pathbuf {
	char *s;
	size_t len, cap; /* s holds base, then "/rel" while a directory is walked */
};

static void pb_set(struct pathbuf *pb, size_t at, const char *rel)
{
	size_t l = strlen(rel);
	XGROW(pb->s, at + l + 2, pb->cap);
	pb->len = at;
	if (*rel) {
		pb->s[pb->len++] = '/';
		memcpy(pb->s + pb->len, rel, l);
		pb->len += l;
	}
	pb->s[pb->len] = '\0';
}

/* Where a path built from base is resolved from (walk_opts.base_fd). */
static int at_fd(const struct walk_opts *o)
{
	return o->base_fd > 0 ? o->base_fd : AT_FDCWD;
}

/* The entries of directory rel at path (st: its lstat, for base its stat). */
static bool list_cached(const struct walk_opts *o, const char *path, const char *rel,
	const struct stat *st, struct entries *e)
{
	size_t len;
	const char *blob = o->cache->get(o->arg, rel, st, &len);
	if (blob) {
		entries_from_blob(e, blob, len);
		return true;
	}
	int64_t at = coarse_now();
	/* base itself may be a symlink, as open(base) follows it without a cache */
	int fd = openat(at_fd(o), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (*rel ? O_NOFOLLOW : 0));
	if (fd < 0)
		return false;
	list_dir(fd, e);
	close(fd);
	char *b = entries_to_blob(e, &len);
	o->cache->put(o->arg, rel, st, b, len, at);
	free(b);
	return true;
}

/* Where a directory's entries are reached: below an open fd by name, or
 * (with a listing cache) by path from base. */
struct at {
	int dirfd;          /* >= 0: by name below it */
	struct pathbuf *pb; /* else: pb->s starts with base */
	size_t baselen;
	const struct walk_opts *o;
	/* by path: the directory opened O_PATH at its second file's stat (the
	 * first may be its only one: the listing cache's stat hook answers
	 * most), so that each stat resolves one name, not the whole path
	 * again (-1: not yet; -2: the open failed, stat by path) */
	int statfd;
	unsigned nstat;
	const char *rel;
};

static int walk_fd(int dirfd, const char *rel, const struct walk_opts *o, walk_fn fn);
static int walk_cached(struct pathbuf *pb, size_t baselen, const char *rel,
	const struct walk_opts *o, walk_fn fn);

static int lstat_at(struct at *at, const char *nm, const char *child, struct stat *st)
{
	if (at->dirfd >= 0)
		return fstatat(at->dirfd, nm, st, AT_SYMLINK_NOFOLLOW);
	if (at->o->cache->stat) {
		int r = at->o->cache->stat(at->o->arg, child, false, false, st);
		if (r != 1)
			return r;
	}
	if (at->statfd == -1 && at->nstat++ > 0) {
		pb_set(at->pb, at->baselen, at->rel);
		/* base itself may be a symlink, as walk_cached stat()s it */
		at->statfd = openat(at_fd(at->o), at->pb->s,
			O_PATH | O_DIRECTORY | O_CLOEXEC | (*at->rel ? O_NOFOLLOW : 0));
		if (at->statfd < 0)
			at->statfd = -2;
	}
	if (at->statfd >= 0)
		return fstatat(at->statfd, nm, st, AT_SYMLINK_NOFOLLOW);
	pb_set(at->pb, at->baselen, child);
	return fstatat(at_fd(at->o), at->pb->s, st, AT_SYMLINK_NOFOLLOW);
}

/* Visit a directory's listed entries: files by the globs, directories by
 * recursion. Frees e. */
static int visit(struct at *at, const char *rel, struct entries *e,
	const struct walk_opts *o, walk_fn fn)
{
	if (o->enter)
		o->enter(rel, e->names, e->n ? e->len : 0, o->arg);
	int rc = 0;
	char *child = NULL;
	size_t ccap = 0, rlen = strlen(rel);
	for (size_t i = 0; i < e->n && rc == 0; i++) {
		const char *nm = e->names + e->v[i].off;
		size_t nlen = strlen(nm);
		XGROW(child, rlen + nlen + 2, ccap);
		if (rlen) {
			memcpy(child, rel, rlen);
			child[rlen] = '/';
			memcpy(child + rlen + 1, nm, nlen + 1);
		} else {
			memcpy(child, nm, nlen + 1);
		}
		unsigned char type = e->v[i].type;
		struct stat st;
		bool have_st = false;
		if (type == DT_UNKNOWN) {
			if (lstat_at(at, nm, child, &st) != 0)
				continue;
			have_st = true;
			type = IFTODT(st.st_mode);
		}
		bool special = o->specials && type != DT_DIR && type != DT_REG && type != DT_LNK;
		if (type == DT_DIR) {
			if (walk_walled(nm) || (o->skip && o->skip(child, o->arg)) || !may_descend(o, child))
				continue;
			if (at->dirfd < 0) {
				rc = walk_cached(at->pb, at->baselen, child, o, fn);
				continue;
			}
			int fd = openat(at->dirfd, nm, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (fd >= 0)
				rc = walk_fd(fd, child, o, fn);
		} else if ((type == DT_REG || type == DT_LNK || special) &&
			   walk_globs_match(o->globs, o->nglobs, child)) {
			/* the type can change between the listing and the stat */
			if (!have_st && lstat_at(at, nm, child, &st) != 0)
				continue;
			if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) ||
				(o->specials && !S_ISDIR(st.st_mode)))
				rc = fn(child, &st, o->arg);
		}
	}
	free(child);
	free(e->names);
	free(e->v);
	if (at->statfd >= 0)
		close(at->statfd);
	at->statfd = -1;
	return rc;
}

static int walk_fd(int dirfd, const char *rel, const struct walk_opts *o, walk_fn fn)
{
	struct entries e = {0};
	list_dir(dirfd, &e);
	struct at at = {.dirfd = dirfd, .o = o, .statfd = -1, .rel = rel};
	int rc = visit(&at, rel, &e, o, fn);
	close(dirfd);
	return rc;
}

static int walk_cached(struct pathbuf *pb, size_t baselen, const char *rel,
	const struct walk_opts *o, walk_fn fn)
{
	struct stat st;
	int r = o->cache->stat ? o->cache->stat(o->arg, rel, true, !*rel, &st) : 1;
	pb_set(pb, baselen, rel);
	if (r == 1)
		r = fstatat(at_fd(o), pb->s, &st, *rel ? AT_SYMLINK_NOFOLLOW : 0);
	if (r != 0)
		return *rel ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return *rel ? 0 : -1;
	}
	struct entries e = {0};
	if (!list_cached(o, pb->s, rel, &st, &e)) {
		int saved = errno;
		free(e.names);
		free(e.v);
		errno = saved;
		return *rel ? 0 : -1;
	}
	struct at at = {.dirfd = -1, .pb = pb, .baselen = baselen, .o = o, .statfd = -1, .rel = rel};
	return visit(&at, rel, &e, o, fn);
}

int walk_tree(const char *base, const struct walk_opts *o, walk_fn fn)
{
	if (o->cache) {
		size_t baselen = strlen(base);
		struct pathbuf pb = {.cap = baselen + 64};
		pb.s = xmalloc(pb.cap);
		memcpy(pb.s, base, baselen + 1);
		int rc = walk_cached(&pb, baselen, "", o, fn);
		int saved = errno;
		free(pb.s);
		errno = saved;
		return rc;
	}
	int fd = openat(at_fd(o), base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return walk_fd(fd, "", o, fn);
}
