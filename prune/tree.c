/* tree.c: writing vx prune's output (tree.h). */
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "path.h"
#include "walk.h"

static int mkdirs(const char *dir)
{
	if (path_mkdirs(dir) == 0)
		return 0;
	err_warn_errno("unable to make the directory '%s'", dir);
	return -1;
}

static int mkparent(const char *path)
{
	char *dir = path_dirname(path);
	int rc = mkdirs(dir);
	free(dir);
	return rc;
}

int tree_prepare(const char *out)
{
	DIR *d = opendir(out);
	if (!d)
		return errno == ENOENT ? mkdirs(out) : (err_warn_errno("unable to open '%s'", out), -1);
	struct dirent *de;
	bool empty = true;
	while (empty && (de = readdir(d)))
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	if (!empty)
		err_warn("%s: exists and is not empty; fix: remove it, or give --out-dir a new "
			 "directory",
			out);
	return empty ? 0 : -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tree_root_files(const struct workspace *ws)
{
	DIR *d = opendir(ws->root);
	if (!d) {
		err_warn_errno("unable to list '%s'", ws->root);
		return NULL;
	}
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			t = S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_DIR;
		}
		if (t != DT_REG && t != DT_LNK)
			continue;
		XGROW(names, n + 2, alloc);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	XGROW(names, n + 1, alloc);
	names[n] = NULL;
	qsort(names, n, sizeof(*names), cmp_str);
	return names;
}

int tree_write(const char *path, const char *data, size_t n, mode_t mode)
{
	if (mkparent(path) != 0)
		return -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 07777);
	bool ok = fd >= 0 && fileio_write_all(fd, data, n) == 0 && fchmod(fd, mode & 07777) == 0;
	/* closed once, whatever failed */
	ok = (fd < 0 || close(fd) == 0) && ok;
	if (!ok)
		err_warn_errno("unable to write '%s'", path);
	return ok ? 0 : -1;
}

/* abs (a file or symlink) copied to dst */
static int copy_one(const char *abs, const struct stat *st, const char *dst)
{
	if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlink(abs, target, sizeof(target) - 1);
		if (n < 0) {
			err_warn_errno("unable to read the link '%s'", abs);
			return -1;
		}
		target[n] = '\0';
		if (mkparent(dst) != 0)
			return -1;
		if (symlink(target, dst) != 0) {
			err_warn_errno("unable to make the link '%s'", dst);
			return -1;
		}
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return 0;
	size_t len;
	char *data = fileio_read_at(AT_FDCWD, abs, &len);
	if (!data) {
		err_warn_errno("unable to read '%s'", abs);
		return -1;
	}
	int rc = tree_write(dst, data, len, st->st_mode);
	free(data);
	return rc;
}

int tree_copy_file(const struct workspace *ws, const char *rel, const char *dst)
{
	char *abs = path_join(ws->root, rel);
	struct stat st;
	int rc = lstat(abs, &st) != 0 ? 1 : copy_one(abs, &st, dst);
	free(abs);
	return rc;
}

struct copy {
	const struct workspace *ws;
	const struct project *src;
	const char *dst, *out_abs;
};

/* a project directory of its own, or the output directory */
static bool skip_dir(const char *rel, void *arg)
{
	const struct copy *c = arg;
	char *abs = path_join(c->src->abs, rel);
	bool skip = strcmp(abs, c->out_abs) == 0;
	for (size_t i = 0; i < c->ws->nprojects && !skip; i++)
		skip = strcmp(c->ws->projects[i]->abs, abs) == 0;
	free(abs);
	return skip;
}

static int copy_cb(const char *rel, const struct stat *st, void *arg)
{
	const struct copy *c = arg;
	char *abs = path_join(c->src->abs, rel);
	char *dst = path_join(c->dst, rel);
	int rc = copy_one(abs, st, dst);
	free(abs);
	free(dst);
	return rc ? -1 : 0;
}

int tree_copy_dir(const struct workspace *ws, const struct project *src, const char *dst,
	const char *out_abs)
{
	static const char *const all[] = {"**"};
	struct copy c = {.ws = ws, .src = src, .dst = dst, .out_abs = out_abs};
	struct walk_opts o = {.globs = all, .nglobs = 1, .skip = skip_dir, .arg = &c};
	if (mkdirs(dst) != 0)
		return -1;
	return walk_tree(src->abs, &o, copy_cb) ? -1 : 0;
}
