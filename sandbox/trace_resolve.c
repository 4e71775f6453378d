/* trace_resolve.c: a path resolved as the kernel would, with a cache of
 * each directory's symlinks (see trace_int.h). */
#include "trace_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

/* ---- resolution, with a cache of each directory's symlinks ----
 *
 * trace_resolve() walks a path the way the kernel would, following each symlink
 * as far as the path exists. Instead of an lstat per component it looks the
 * component up in its directory's entry of the cache: the directory's
 * symlinks (names, targets read on first use), listed once with getdents.
 * Within the task only symlink, link and rename make a name a symlink (an
 * open creates regular files, io_uring is refused, mounts are refused) and
 * only unlink or rename take one away: each of those invalidates the cache
 * when its stop is judged and again at its exit stop, so an entry listed
 * while the call was in flight goes too. A directory that cannot be listed
 * falls back to an lstat per component; one that does not exist is not
 * cached (the rest of the path is lexical, as the kernel would find it).
 * A large directory (/usr/bin, /usr/lib/x86_64-linux-gnu: thousands of
 * entries, of which a task's loader and exec stops ask about a few) is not
 * listed either: each name is lstat'd when first asked about and the
 * answer, link or not, kept under the same generation as a listing. */

/* Past this size (st_size of the directory: ext4 blocks, tmpfs 20 bytes an
 * entry) a listing costs more than the lstats a task's lookups make. */
#define DCACHE_LIST_MAX 16384

static void dent_clear(struct dent *d)
{
	for (size_t i = 0; i < d->links.cap; i++) {
		struct dlink *l = d->links.keys[i] ? d->links.vals[i] : NULL;
		if (l) {
			free(l->name);
			free(l->target);
			free(l);
		}
	}
	strmap_free(&d->links);
}

void trace_dcache_free(struct dcache *c)
{
	for (size_t i = 0; i < c->dirs.cap; i++) {
		struct dent *d = c->dirs.keys[i] ? c->dirs.vals[i] : NULL;
		if (d) {
			dent_clear(d);
			free(d->path);
			free(d);
		}
	}
	strmap_free(&c->dirs);
}

static void link_add(struct dent *d, const char *name)
{
	struct dlink *l = xcalloc(1, sizeof(*l));
	l->name = xstrdup(name);
	strmap_put(&d->links, l->name, l);
}

/* The directory's entry, listed now if stale; NULL when dir does not exist
 * as a directory (nothing below it can be a symlink). */
static struct dent *dir_get(struct dcache *c, const char *dir)
{
	struct dent *d = strmap_get(&c->dirs, dir);
	DIR *dh;
	struct dirent *de;
	int fd;
	if (d && d->gen == c->gen)
		return d;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return NULL;
	if (!d) {
		d = xcalloc(1, sizeof(*d));
		d->path = xstrdup(dir);
		strmap_put(&c->dirs, d->path, d);
	}
	dent_clear(d);
	d->gen = c->gen;
	d->opaque = true;
	d->large = false;
	struct stat dst;
	if (fd >= 0 && !fstat(fd, &dst) && dst.st_size > DCACHE_LIST_MAX) {
		d->opaque = false;
		d->large = true;
		close(fd);
		return d;
	}
	if (fd < 0 || !(dh = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return d;
	}
	errno = 0;
	while ((de = readdir(dh))) {
		struct stat st;
		if (de->d_type == DT_LNK || (de->d_type == DT_UNKNOWN &&
			!fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)))
			link_add(d, de->d_name);
		errno = 0;
	}
	d->opaque = errno != 0;
	closedir(dh);
	return d;
}

/* Under /proc the links are magic (cwd, root, fd/N) and change without a
 * call of the task's the tracer sees: never listed nor cached, each one
 * read now into buf (PATH_MAX) as the opaque case does. */
static int proc_link(const char *dir, const char *name, const char **target, char *buf)
{
	char *full = xasprintf("%s/%s", dir, name);
	struct stat st;
	ssize_t n = 0;
	if (!lstat(full, &st) && S_ISLNK(st.st_mode))
		n = readlink(full, buf, PATH_MAX - 1);
	free(full);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	*target = buf;
	return 1;
}

/* Is dir/name a symlink? 1 with *target (borrowed, or in pbuf under /proc),
 * 0 not (or absent), -1 when dir itself is absent. */
static int is_link(struct dcache *c, const char *dir, const char *name, const char **target,
	char *pbuf)
{
	struct dent *d;
	struct dlink *l;
	char buf[PATH_MAX], *full;
	ssize_t n;
	struct stat st;
	if (path_is_within("/proc", dir))
		return proc_link(dir, name, target, pbuf);
	if (!(d = dir_get(c, *dir ? dir : "/")))
		return -1;
	full = xasprintf("%s/%s", dir, name);
	if (d->opaque) {
		int rc = !lstat(full, &st) && S_ISLNK(st.st_mode) &&
			(n = readlink(full, buf, sizeof(buf) - 1)) > 0;
		free(full);
		if (!rc)
			return 0;
		buf[n] = 0;
		/* not cached: kept in the entry only until the next listing */
		if (!(l = strmap_get(&d->links, name)))
			link_add(d, name), l = strmap_get(&d->links, name);
		free(l->target);
		l->target = xstrdup(buf);
		*target = l->target;
		return 1;
	}
	if (d->large && !(l = strmap_get(&d->links, name))) {
		/* first asked: a link is kept as a listing would have it */
		link_add(d, name);
		l = strmap_get(&d->links, name);
		l->none = lstat(full, &st) || !S_ISLNK(st.st_mode);
	}
	if (!(l = strmap_get(&d->links, name)) || l->none) {
		free(full);
		return 0;
	}
	if (!l->target) {
		n = readlink(full, buf, sizeof(buf) - 1);
		if (n <= 0) {
			free(full);
			return 0;
		}
		buf[n] = 0;
		l->target = xstrdup(buf);
	}
	free(full);
	*target = l->target;
	return 1;
}

/* abs with every symlink followed as far as the path exists (in the
 * sandbox's own view, which pid 1 shares), the rest appended as written.
 * /proc/self and /proc/thread-self are the task's (pid's), not pid 1's;
 * the magic links below /proc/<pid> (cwd, root, fd/N) are followed by
 * what readlink says of them (R-34: /proc/self/cwd/../../x is x). */
char *trace_resolve(struct dcache *dc, pid_t pid, const char *abs, bool follow_last)
{
	char *rest = xstrdup(abs), *cur = xstrdup(""), pbuf[PATH_MAX];
	int links = 0;
	for (;;) {
		char *s = rest, *slash, *cand;
		const char *target;
		int k;
		while (*s == '/')
			s++;
		if (!*s)
			break;
		slash = strchr(s, '/');
		if (slash)
			*slash = 0;
		if (!strcmp(s, ".")) {
			memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
			continue;
		}
		if (!strcmp(s, "..")) {
			char *l = strrchr(cur, '/');
			if (l)
				*l = 0;
			memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
			continue;
		}
		if (!strcmp(cur, "/proc") && (!strcmp(s, "self") || !strcmp(s, "thread-self"))) {
			cand = xasprintf("/proc/%d", (int)pid);
			free(cur);
			cur = cand;
			memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
			continue;
		}
		k = is_link(dc, cur, s, &target, pbuf);
		cand = xasprintf("%s/%s", cur, s);
		if (k < 0) {
			/* from here on nothing exists: the rest is lexical */
			char *tail = slash ? xasprintf("%s/%s", cand, slash + 1) : xstrdup(cand);
			char *out = path_normalize(tail);
			free(tail);
			free(cand);
			free(cur);
			free(rest);
			return out;
		}
		if (k > 0 && (slash || follow_last) && links++ < 40) {
			char *nr = slash ? xasprintf("%s/%s", target, slash + 1) : xstrdup(target);
			if (target[0] == '/')
				cur[0] = 0;
			free(rest);
			rest = nr;
			free(cand);
			continue;
		}
		free(cur);
		cur = cand;
		memmove(rest, slash ? slash + 1 : s + strlen(s), strlen(slash ? slash + 1 : "") + 1);
	}
	free(rest);
	if (!*cur) {
		free(cur);
		return xstrdup("/");
	}
	return cur;
}
