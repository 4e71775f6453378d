/* restore.c: writing an entry's outputs into a project.
 *
 * Three passes: find the outputs that differ (a stamp, else their bytes,
 * say which are already right); stage each one under a temporary name
 * beside its target, checking the blob's hash while copying (or, when the
 * checkout's shadow holds the output's bytes, its hash while reading them,
 * then a hard link: shadow.h); only when every one staged, rename them
 * into place. A bad blob therefore changes nothing.
 * Directories are reached with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS),
 * else part by part with O_NOFOLLOW: a symlink planted in the project (dist
 * -> /etc) fails the restore instead of redirecting a write.
 */
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cache_int.h"
#include "err.h"
#include "fileio.h"
#include "shadow.h"

int cache_open_beneath(struct cache *c, int projfd, const char *reldir, bool create)
{
	if (!*reldir)
		return fcntl(projfd, F_DUPFD_CLOEXEC, 0);
	if (!__atomic_load_n(&c->openat2_off, __ATOMIC_RELAXED)) {
		struct open_how how = {
			.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		int fd = (int)syscall(SYS_openat2, projfd, reldir, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ENOSYS || errno == EPERM)
			/* an old kernel, or a seccomp filter */
			__atomic_store_n(&c->openat2_off, true, __ATOMIC_RELAXED);
		else if (errno != ENOENT || !create)
			return -1;
	}
	/* part by part from projfd itself (never closed here), each part made
	 * when asked and opened without following a symlink */
	int fd = projfd;
	for (const char *s = reldir; fd >= 0 && *s;) {
		const char *e = strchrnul(s, '/');
		char part[NAME_MAX + 1];
		size_t len = (size_t)(e - s);
		int next = -1;
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
		} else {
			memcpy(part, s, len);
			part[len] = '\0';
			if (!create || mkdirat(fd, part, 0777) == 0 || errno == EEXIST)
				next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int saved = errno;
		if (fd != projfd)
			close(fd);
		errno = saved;
		fd = next;
		s = *e ? e + 1 : e;
	}
	return fd;
}

/* The directory of the output last asked for, kept while outputs share it. */
struct parent {
	char *dir;
	int fd;
	int err; /* fd < 0: why the directory could not be opened */
};

/* Is pc's directory the one rel is in? */
static bool parent_holds(const struct parent *pc, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;
	return pc->dir && strlen(pc->dir) == n && strncmp(pc->dir, rel, n) == 0;
}

static int parent_get(struct cache *c, struct parent *pc, int projfd, const char *rel,
	bool create, const char **base)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;
	*base = slash ? slash + 1 : rel;
	if (parent_holds(pc, rel) && (pc->fd >= 0 || (!create && pc->err == ENOENT))) {
		errno = pc->err; /* a directory known missing stays so while nothing is written */
		return pc->fd;
	}
	if (pc->fd >= 0)
		close(pc->fd);
	free(pc->dir);
	pc->dir = xstrndup(rel, n);
	pc->fd = cache_open_beneath(c, projfd, pc->dir, create);
	pc->err = pc->fd < 0 ? errno : 0;
	if (pc->fd < 0 && create) {
		int saved = errno;
		free(pc->dir);
		pc->dir = NULL;
		errno = saved;
	}
	return pc->fd;
}

/* Is rel's directory the one last found missing? Then rel is missing too. */
static bool parent_missing(const struct parent *pc, const char *rel)
{
	return pc->fd < 0 && pc->err == ENOENT && parent_holds(pc, rel);
}

static void parent_done(struct parent *pc)
{
	if (pc->fd >= 0)
		close(pc->fd);
	free(pc->dir);
	pc->fd = -1;
	pc->dir = NULL;
}

/* Copy fd to out (out < 0: only read), hashing: 0 and hex, or -1. size is
 * what the file should hold: each read asks for one byte more than is left,
 * so a read that comes back short once size bytes are in is the end of the
 * file, without the extra read that would return 0 (a longer file still
 * shows, as more than size bytes). */
static int copy_hash(int fd, int out, size_t size, size_t *n, char hex[33])
{
	XXH3_state_t st;
	XXH3_128bits_reset(&st);
	char buf[65536];
	int rc = 0;
	*n = 0;
	for (;;) {
		size_t ask = *n <= size && size - *n < sizeof(buf) ? size - *n + 1 : sizeof(buf);
		ssize_t r = read(fd, buf, ask);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (out >= 0 && fileio_write_all(out, buf, (size_t)r) != 0)) {
			rc = -1;
			break;
		}
		XXH3_128bits_update(&st, buf, (size_t)r);
		*n += (size_t)r;
		if ((size_t)r < ask && *n >= size)
			break;
	}
	cache_hex128(XXH3_128bits_digest(&st), hex);
	return rc;
}

/* Is the output as st shows it already what cf records? */
static bool output_same(struct cache *c, const char *projdir, int dfd, const char *base,
	const struct cache_file *cf, const struct stat *st)
{
	if (cf->link) {
		char target[4096];
		ssize_t n = S_ISLNK(st->st_mode) ? readlinkat(dfd, base, target, sizeof(target)) : -1;
		return n >= 0 && (size_t)n == strlen(cf->link) && memcmp(target, cf->link, (size_t)n) == 0;
	}
	if (!S_ISREG(st->st_mode) || (st->st_mode & 07777) != cf->mode ||
		(size_t)st->st_size != cf->size)
		return false;
	if (cache_stamp_vouches(c, projdir, cf->path, st, cf->hash))
		return true;
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t n;
	char got[33];
	int r = copy_hash(fd, -1, cf->size, &n, got);
	close(fd);
	if (r != 0 || n != cf->size || strcmp(got, cf->hash) != 0)
		return false;
	cache_stamp_set(c, projdir, cf->path, st, cf->hash);
	return true;
}

struct todo {
	struct cache_file cf;
	char tmp[64];   /* staged under this name in the target's directory, or "" */
	struct stat st; /* of the restored file, for the stamp */
};

struct cache_writes {
	char *projdir;
	int projfd;
	int shadowfd; /* the project's shadow (shadow.h), or -1 */
	struct todo *todo;
	size_t n;
};

/* Stage t by a link to its shadow name, when that holds t's bytes and mode
 * and no other link: 0, else -1 (copy it). Linked first, then checked
 * through the staged name: what is hashed is the very inode staged, even
 * if another run replaces the shadow's name meanwhile. Dated now, as a
 * copy would be: make-like tools compare an output's mtime with its
 * sources'. */
static int stage_link(struct cache *c, int sfd, const char *name, int dfd, struct todo *t)
{
	if (linkat(sfd, name, dfd, t->tmp, 0) != 0)
		return -1;
	int fd = openat(dfd, t->tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	size_t n;
	char got[33];
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 2 &&
		st.st_uid == c->euid && (st.st_mode & 07777) == t->cf.mode &&
		(size_t)st.st_size == t->cf.size && copy_hash(fd, -1, t->cf.size, &n, got) == 0 &&
		n == t->cf.size && strcmp(got, t->cf.hash) == 0 && futimens(fd, NULL) == 0;
	if (fd >= 0)
		close(fd);
	if (ok)
		return 0;
	unlinkat(dfd, t->tmp, 0);
	return -1;
}

/* Stage one output beside its target: a link to its shadow when that holds
 * its bytes, else a copy of its blob, which the shadow then links to. A
 * blob whose bytes do not match its name is removed from the cache, so the
 * next save writes it afresh. */
static int stage(struct cache *c, const struct cache_writes *w, int dfd, struct todo *t)
{
	snprintf(t->tmp, sizeof(t->tmp), CACHE_RESTORE_TMP "%d.%x.%u", c->pid, c->nonce,
		__atomic_fetch_add(&c->seq, 1, __ATOMIC_RELAXED));
	/* regular files only: a symlink is as cheap to make as a link */
	int sfd = t->cf.hash ? w->shadowfd : -1;
	char sname[SHADOW_NAME_LEN + 1];
	if (sfd >= 0) {
		shadow_name(t->cf.path, sname);
		if (stage_link(c, sfd, sname, dfd, t) == 0)
			return 0;
	}
	if (t->cf.link) {
		if (symlinkat(t->cf.link, dfd, t->tmp) == 0)
			return 0;
		err_warn_errno("unable to restore '%s'", t->cf.path);
		t->tmp[0] = '\0';
		return -1;
	}
	int bfd = cache_blob_open(c, t->cf.hash);
	if (bfd < 0) {
		err_warn("cache blob %s of '%s' is missing", t->cf.hash, t->cf.path);
		t->tmp[0] = '\0';
		return -1;
	}
	/* created with its mode when the umask keeps it whole: no fchmod */
	bool direct = !(t->cf.mode & ~0777u) && !(t->cf.mode & c->umask);
	int fd = openat(dfd, t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		direct ? t->cf.mode : 0600);
	if (fd < 0) {
		err_warn_errno("unable to restore '%s'", t->cf.path);
		close(bfd);
		t->tmp[0] = '\0';
		return -1;
	}
	size_t n;
	char got[33];
	int r = copy_hash(bfd, fd, t->cf.size, &n, got);
	close(bfd);
	if (r != 0)
		err_warn_errno("unable to restore '%s'", t->cf.path);
	else if (n != t->cf.size || strcmp(got, t->cf.hash) != 0) {
		err_warn("cache blob %s of '%s' is corrupt: removed", t->cf.hash, t->cf.path);
		char *bp = cache_blob_path(c, t->cf.hash);
		unlink(bp);
		free(bp);
		r = -1;
	} else if (!direct && fchmod(fd, t->cf.mode) != 0) {
		err_warn_errno("unable to restore '%s'", t->cf.path);
		r = -1;
	}
	if (close(fd) != 0 && r == 0) {
		err_warn_errno("unable to restore '%s'", t->cf.path);
		r = -1;
	}
	if (r == 0) {
		/* the shadow's name for it now (failures only cost the next restore) */
		if (sfd >= 0)
			shadow_put(sfd, sname, dfd, t->tmp);
		return 0;
	}
	unlinkat(dfd, t->tmp, 0);
	t->tmp[0] = '\0';
	return -1;
}

static void writes_free(struct cache_writes *w)
{
	if (w->projfd >= 0)
		close(w->projfd);
	if (w->shadowfd >= 0)
		close(w->shadowfd);
	free(w->projdir);
	free(w->todo);
	free(w);
}

int cache_restore_check(struct cache *c, const struct cache_entry *e, const char *projdir,
	struct cache_writes **out)
{
	int projfd = -1;
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(e->manifest, "files"), *f;
	size_t nfiles = (size_t)cJSON_GetArraySize(files), n = 0;
	struct todo *todo = xcalloc(nfiles + 1, sizeof(*todo));
	struct parent pc = {NULL, -1, 0};
	const char *base;
	char *abs = NULL;
	size_t abscap = 0;
	int r = 0;
	*out = NULL;
	/* what was found in place, for the memo (inplace.c): when every
	 * output is, the next run's check can be a stat of each */
	struct timespec since;
	clock_gettime(CLOCK_REALTIME_COARSE, &since);
	bool memo = c->statedir != NULL;
	const char **rels = memo ? xcalloc(nfiles + 1, sizeof(*rels)) : NULL;
	struct stat *sts = memo ? xcalloc(nfiles + 1, sizeof(*sts)) : NULL;
	size_t nsame = 0;
	cJSON_ArrayForEach(f, files) {
		struct cache_file cf;
		if (cache_file_parse(f, &cf)) { /* entry_check let it through: cannot happen */
			err_warn("cache entry %s: a bad file record", e->key);
			r = -1;
			break;
		}
		/* the all-hit rerun's path: one stat (or readlink) by absolute path,
		 * no directory opened. A symlinked parent on the way is harmless
		 * here, as nothing is written: it can only lead to the very inode
		 * the stamp recorded */
		struct stat st;
		if (parent_missing(&pc, cf.path)) {
			todo[n++].cf = cf;
			continue;
		}
		const char *ap = cache_join(&abs, &abscap, projdir, cf.path);
		if (cf.hash && fstatat(AT_FDCWD, ap, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISREG(st.st_mode) && (st.st_mode & 07777) == cf.mode &&
			(size_t)st.st_size == cf.size &&
			cache_stamp_vouches(c, projdir, cf.path, &st, cf.hash)) {
			if (memo) {
				rels[nsame] = cf.path;
				sts[nsame++] = st;
			}
			continue;
		}
		char target[4096];
		ssize_t tn = cf.link ? readlink(ap, target, sizeof(target)) : -1;
		if (tn >= 0 && (size_t)tn == strlen(cf.link) && memcmp(target, cf.link, (size_t)tn) == 0) {
			memo = false; /* a symlink: its target is not in a stat */
			continue;
		}
		if (projfd < 0 && (projfd = open(projdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			err_warn_errno("unable to open '%s'", projdir);
			r = -1;
			break;
		}
		int dfd = parent_get(c, &pc, projfd, cf.path, false, &base);
		if (dfd < 0 && errno != ENOENT) {
			err_warn("refusing to restore '%s': a part of its directory is a symlink or "
				 "not a directory", cf.path);
			r = -1;
			break;
		}
		if (dfd >= 0 && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(st.st_mode)) {
				err_warn("refusing to restore '%s': a directory is in the way", cf.path);
				r = -1;
				break;
			}
			if (output_same(c, projdir, dfd, base, &cf, &st)) {
				if (memo) {
					rels[nsame] = cf.path;
					sts[nsame++] = st;
				}
				continue;
			}
		}
		todo[n++].cf = cf;
	}
	parent_done(&pc);
	free(abs);
	if (memo && r == 0 && n == 0 && nsame == nfiles)
		cache_inplace_note(c, e, projdir, rels, sts, nsame, &since);
	free(rels);
	free(sts);
	if (r != 0 || !n) {
		free(todo);
		if (projfd >= 0)
			close(projfd);
		return r;
	}
	/* the stamp the writes will update is read here, on the caller's
	 * thread, not by whichever writer gets to it first */
	cache_stamp_load(c);
	struct cache_writes *w = *out = xcalloc(1, sizeof(*w));
	w->projdir = xstrdup(projdir);
	w->projfd = projfd;
	w->shadowfd = cache_shadow_proj(c, projdir);
	w->todo = todo;
	w->n = n;
	return 1;
}

int cache_restore_write(struct cache *c, struct cache_writes *w)
{
	struct parent pc = {NULL, -1, 0};
	const char *base;
	size_t staged = 0;
	int r = 0;
	for (; staged < w->n; staged++) {
		struct todo *t = &w->todo[staged];
		int dfd = parent_get(c, &pc, w->projfd, t->cf.path, true, &base);
		if (dfd < 0) {
			err_warn("refusing to restore '%s': a part of its directory is a symlink or "
				 "not a directory", t->cf.path);
			r = -1;
		} else {
			r = stage(c, w, dfd, t);
		}
		if (r != 0)
			break;
	}
	/* pc still holds the last directory staged in: the renames start there */
	for (size_t i = 0; i < staged; i++) {
		struct todo *t = &w->todo[i];
		int dfd = parent_get(c, &pc, w->projfd, t->cf.path, false, &base);
		if (r == 0 && dfd >= 0 && renameat(dfd, t->tmp, dfd, base) == 0) {
			/* the rename moved the ctime the stamp keeps */
			if (t->cf.hash && fstatat(dfd, base, &t->st, AT_SYMLINK_NOFOLLOW) == 0)
				cache_stamp_set(c, w->projdir, t->cf.path, &t->st, t->cf.hash);
		} else {
			if (r == 0)
				err_warn_errno("unable to restore '%s'", t->cf.path);
			r = -1;
			if (dfd >= 0)
				unlinkat(dfd, t->tmp, 0);
		}
	}
	parent_done(&pc);
	writes_free(w);
	return r == 0 ? 1 : -1;
}

int cache_restore(struct cache *c, const struct cache_entry *e, const char *projdir)
{
	struct cache_writes *w;
	int r = cache_restore_check(c, e, projdir, &w);
	return r == 1 ? cache_restore_write(c, w) : r;
}
