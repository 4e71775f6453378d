/* canonmemo.c: path_canonical_would_be, memoised (see canonmemo.h). */
#include "canonmemo.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "path.h"

/* a directory already read (kids), as a value no count reaches */
#define LISTED ((void *)UINTPTR_MAX)
/* at most this many entries of one directory go into the memo: the rest
 * take their lstat when asked, as before */
#define LIST_MAX 8192

void canonmemo_init(struct canonmemo *m)
{
	strmap_init(&m->map);
	strmap_init(&m->kids);
	m->lstats = 0;
}

/* dir (as asked; canon, where it resolves) read once: each subdirectory's
 * answer memoised beside it. A link or an entry of unknown type is left
 * out: its lstat decides when it is asked about. */
static void list_dir(struct canonmemo *m, const char *dir, const char *canon)
{
	DIR *d = opendir(canon);
	struct dirent *e;
	size_t n = 0;
	if (!d)
		return;
	while (n < LIST_MAX && (e = readdir(d))) {
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *key = path_join(dir, e->d_name);
		if (strmap_get(&m->map, key)) {
			free(key);
			continue;
		}
		strmap_put(&m->map, key, path_join(canon, e->d_name));
		n++;
	}
	closedir(d);
}

/* One more child of dir asked about: dir is read at the LIST_AFTER'th. */
static void count_kid(struct canonmemo *m, const char *dir, const char *canon)
{
	void *v = strmap_get(&m->kids, dir);
	uintptr_t n = (uintptr_t)v;
	if (v == LISTED)
		return;
	if (!v)
		strmap_put(&m->kids, xstrdup(dir), (void *)1);
	else if (n + 1 < CANONMEMO_LIST_AFTER)
		strmap_put(&m->kids, dir, (void *)(n + 1));
	else {
		strmap_put(&m->kids, dir, LISTED);
		list_dir(m, dir, canon);
	}
}

char *canonmemo_get(struct canonmemo *m, const char *path)
{
	char *got = strmap_get(&m->map, path), *r;
	struct stat st;
	if (got)
		return xstrdup(got);
	if (!strcmp(path, "/") || path[0] != '/') {
		r = xstrdup(path);
	} else {
		char *parent = path_dirname(path), *cp = canonmemo_get(m, parent);
		count_kid(m, parent, cp);
		if ((got = strmap_get(&m->map, path))) {
			/* a subdirectory of a directory just read */
			free(parent);
			free(cp);
			return xstrdup(got);
		}
		r = path_join(cp, strrchr(path, '/') + 1);
		m->lstats++;
		if (lstat(r, &st) == 0 && S_ISLNK(st.st_mode)) {
			char *t = path_canonical_would_be(r);
			free(r);
			r = t;
		}
		free(parent);
		free(cp);
	}
	strmap_put(&m->map, xstrdup(path), xstrdup(r));
	return r;
}

void canonmemo_free(struct canonmemo *m)
{
	for (size_t i = 0; i < m->map.cap; i++)
		if (m->map.keys[i]) {
			free((char *)m->map.keys[i]);
			free(m->map.vals[i]);
		}
	strmap_free(&m->map);
	for (size_t i = 0; i < m->kids.cap; i++)
		free((char *)m->kids.keys[i]);
	strmap_free(&m->kids);
}
