#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "err.h"
#include "walk.h"

#define COOKIE "watch-cookie-"

static const uint32_t TREE_MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM |
				  IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF |
				  IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;
static const uint32_t VX_MASK = IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
				IN_DONT_FOLLOW;

static void set_path(struct wtree *w, int wd, const char *path)
{
	size_t i = (size_t)wd;
	if (i >= w->npaths) {
		size_t n = w->npaths ? w->npaths : 64;
		while (n <= i)
			n *= 2;
		w->paths = xrealloc(w->paths, n * sizeof(*w->paths));
		memset(w->paths + w->npaths, 0, (n - w->npaths) * sizeof(*w->paths));
		w->npaths = n;
	}
	free(w->paths[i]);
	w->paths[i] = path ? xstrdup(path) : NULL;
}

/* A file system whose files may change with no event here: another host
 * writes (NFS, SMB, Ceph, AFS, Coda, 9p, vboxsf) or a process serves it
 * (FUSE, virtiofs). */
static bool remote_fs(int fd)
{
	static const unsigned long magic[] = {0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546,
		0x01021997, 0x00c36400, 0x5346414f, 0x73757245, 0x786f4256};
	struct statfs sf;
	if (fstatfs(fd, &sf) != 0)
		return false;
	for (size_t i = 0; i < sizeof(magic) / sizeof(*magic); i++)
		if ((unsigned long)sf.f_type == magic[i])
			return true;
	return false;
}

/* Watch dir, then list it and watch its subdirectories. A directory gone
 * before its turn is no error (its removal is an event already counted). */
static int add_tree(struct wtree *w, const char *dir)
{
	int wd = inotify_add_watch(w->fd, dir, TREE_MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = errno;
		return -1;
	}
	set_path(w, wd, dir);
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : (w->err = errno, -1);
	if (remote_fs(dirfd(d))) {
		closedir(d);
		w->err = EREMOTE;
		return -1;
	}
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(d))) {
		const char *n = e->d_name;
		if ((n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]))) || walk_walled(n))
			continue;
		bool isdir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN) {
			struct stat st;
			isdir = fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		}
		if (!isdir)
			continue;
		char *sub = xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", n);
		r = add_tree(w, sub);
		free(sub);
	}
	closedir(d);
	return r;
}

static int setup(struct wtree *w)
{
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		w->err = errno;
		return -1;
	}
	char *vx = xasprintf("%s/.vx", w->root);
	w->vxwd = inotify_add_watch(w->fd, vx, VX_MASK);
	free(vx);
	if (w->vxwd < 0) {
		w->err = errno;
		return -1;
	}
	if (add_tree(w, w->root) != 0)
		return -1;
	/* the checkout's shadow of outputs (shadow.h): its files are outputs'
	 * second names, so a write there is a write to an output */
	char *shadow = xasprintf("%s/.vx/shadow", w->root);
	int r = add_tree(w, shadow);
	free(shadow);
	if (r != 0)
		return -1;
	/* the root's descriptor: adding a watch again returns the same one */
	w->rootwd = inotify_add_watch(w->fd, w->root, TREE_MASK);
	if (w->rootwd < 0) {
		w->err = errno;
		return -1;
	}
	return 0;
}

static void teardown(struct wtree *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	for (size_t i = 0; i < w->npaths; i++)
		free(w->paths[i]);
	free(w->paths);
	w->paths = NULL;
	w->npaths = 0;
}

int wtree_open(struct wtree *w, const char *root)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->root = xstrdup(root);
	if (setup(w) != 0) {
		errno = w->err;
		return -1;
	}
	return 0;
}

/* Every watch again, from scratch: what changed meanwhile is counted by gen
 * moving now, and no token is given before this returns. */
static int rebuild(struct wtree *w)
{
	teardown(w);
	w->gen++;
	w->stale = false;
	if (setup(w) != 0) {
		errno = w->err;
		return -1;
	}
	return 0;
}

static void event(struct wtree *w, const struct inotify_event *ev,
	void (*cookie)(void *, uint64_t), void *arg)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		w->gen++;
		w->stale = true;
		return;
	}
	if (ev->wd == w->vxwd) {
		if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED))
			w->gone = true;
		else if ((ev->mask & IN_CREATE) && ev->len &&
			 strncmp(ev->name, COOKIE, sizeof(COOKIE) - 1) == 0)
			cookie(arg, strtoull(ev->name + sizeof(COOKIE) - 1, NULL, 10));
		else if ((ev->mask & IN_CREATE) && (ev->mask & IN_ISDIR) && ev->len &&
			 strcmp(ev->name, "shadow") == 0) {
			w->gen++;
			char *shadow = xasprintf("%s/.vx/shadow", w->root);
			if (add_tree(w, shadow) != 0)
				w->stale = true;
			free(shadow);
		}
		return;
	}
	const char *dir = ev->wd >= 0 && (size_t)ev->wd < w->npaths ? w->paths[ev->wd] : NULL;
	if (ev->mask & IN_IGNORED) {
		if (ev->wd == w->rootwd)
			w->gone = true;
		if (dir)
			set_path(w, ev->wd, NULL);
		return;
	}
	w->gen++;
	if (ev->wd == w->rootwd && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)))
		w->gone = true;
	if (ev->mask & IN_UNMOUNT)
		w->gone = true;
	/* .vx removed or moved away: seen from the root, as the daemon's own
	 * open files in .vx keep its IN_DELETE_SELF from coming */
	if (ev->wd == w->rootwd && (ev->mask & (IN_DELETE | IN_MOVED_FROM)) && ev->len &&
		strcmp(ev->name, ".vx") == 0)
		w->gone = true;
	if (ev->mask & IN_MOVE_SELF)
		w->stale = true; /* its path and its subdirectories' are stale */
	if (!(ev->mask & IN_ISDIR) || !ev->len || walk_walled(ev->name))
		return;
	if (ev->mask & IN_MOVED_FROM)
		w->stale = true;
	else if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && dir && !w->stale) {
		char *sub = xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", ev->name);
		if (add_tree(w, sub) != 0)
			w->stale = true; /* tried again whole; a second failure is the caller's */
		free(sub);
	}
}

void wtree_read(struct wtree *w, void (*cookie)(void *arg, uint64_t n), void *arg)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			event(w, ev, cookie, arg);
			p += sizeof(*ev) + ev->len;
		}
	}
}

int wtree_fresh(struct wtree *w)
{
	if (!w->stale || w->gone)
		return 0;
	if (rebuild(w) != 0)
		return -1;
	return 1;
}

void wtree_close(struct wtree *w)
{
	teardown(w);
	free(w->root);
	w->root = NULL;
}
