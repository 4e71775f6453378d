#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir(int dirfd, const char *rel, const struct walk_opts *o, walk_fn fn)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return 0;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = xstrdup(nm);
	}
	qsort(names, n, sizeof(*names), cmp_str);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *nm = names[i];
		struct stat st;
		if (fstatat(dirfd, nm, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		char *child = *rel ? xasprintf("%s/%s", rel, nm) : xstrdup(nm);
		if (S_ISDIR(st.st_mode)) {
			if (strcmp(nm, "node_modules") != 0 && strcmp(nm, ".git") != 0 &&
				strcmp(nm, ".vx") != 0 && (!o->skip || !o->skip(child, o->arg)) &&
				may_descend(o, child)) {
				int fd = openat(dirfd, nm, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
				if (fd >= 0)
					rc = walk_dir(fd, child, o, fn);
			}
		} else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
			   walk_globs_match(o->globs, o->nglobs, child)) {
			rc = fn(child, &st, o->arg);
		}
		free(child);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

int walk_tree(const char *base, const struct walk_opts *o, walk_fn fn)
{
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return walk_dir(fd, "", o, fn);
}
