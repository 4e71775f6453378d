/* canonmemo.c: path_canonical_would_be, memoised (see canonmemo.h). */
#include "canonmemo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "path.h"

void canonmemo_init(struct canonmemo *m)
{
	strmap_init(&m->map);
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
		r = path_join(cp, strrchr(path, '/') + 1);
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
}
