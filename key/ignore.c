#include "ignore.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fileio.h"
#include "glob.h"
#include "path.h"
#include "strmap.h"

struct rule {
	char *pat;
	bool neg, dir_only, anchored;
};

struct rules {
	struct rule *r;
	size_t n;
};

struct ignore {
	char *root;
	struct strmap dirs; /* root-relative dir ("" for the root) -> struct rules */
};

struct ignore *ignore_open(const char *root)
{
	struct ignore *ig = xcalloc(1, sizeof(*ig));
	ig->root = xstrdup(root);
	strmap_init(&ig->dirs);
	return ig;
}

static struct rules *load(struct ignore *ig, const char *dir)
{
	struct rules *rs = strmap_get(&ig->dirs, dir);
	if (rs)
		return rs;
	rs = xcalloc(1, sizeof(*rs));
	char *path = *dir ? xasprintf("%s/%s/.gitignore", ig->root, dir)
			  : xasprintf("%s/.gitignore", ig->root);
	char *text = fileio_read_at(AT_FDCWD, path, NULL);
	free(path);
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		size_t n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		while (n && line[n - 1] == ' ' && !(n >= 2 && line[n - 2] == '\\'))
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		struct rule r = {0};
		char *p = line;
		if (*p == '!') {
			r.neg = true;
			p++;
		} else if (*p == '\\' && (p[1] == '!' || p[1] == '#')) {
			p++;
		}
		n = strlen(p);
		if (n && p[n - 1] == '/') {
			r.dir_only = true;
			p[--n] = '\0';
		}
		if (!n)
			continue;
		r.anchored = strchr(p, '/') != NULL;
		if (*p == '/')
			p++;
		r.pat = xstrdup(p);
		rs->r = xrealloc(rs->r, (rs->n + 1) * sizeof(*rs->r));
		rs->r[rs->n++] = r;
	}
	free(text);
	strmap_put(&ig->dirs, xstrdup(dir), rs);
	return rs;
}

bool ignore_match(struct ignore *ig, const char *path, bool is_dir)
{
	bool ignored = false;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* every directory from the root down to the path's parent */
	size_t len = strlen(path);
	char *dir = xmalloc(len + 1);
	for (size_t end = 0;;) {
		memcpy(dir, path, end);
		dir[end] = '\0';
		struct rules *rs = load(ig, dir);
		const char *rel = path + (end ? end + 1 : 0);
		for (size_t i = 0; i < rs->n; i++) {
			const struct rule *r = &rs->r[i];
			if (r->dir_only && !is_dir)
				continue;
			if (glob_match(r->pat, r->anchored ? rel : base))
				ignored = !r->neg;
		}
		const char *slash = strchr(path + end + (end ? 1 : 0), '/');
		if (!slash)
			break;
		end = (size_t)(slash - path);
	}
	free(dir);
	return ignored;
}
