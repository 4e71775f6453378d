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

struct level {
	const struct rules *rs;
	size_t off; /* where the path relative to this level's directory starts */
};

struct ignore {
	char *root;
	struct strmap dirs; /* root-relative dir ("" for the root) -> struct rules */
	char *dir;          /* the directory last asked about, and its levels */
	size_t dirlen;
	struct level *levels; /* only the levels that have rules */
	size_t nlevels, caplevels;
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

/* Walks ask about every entry of one directory in a row: the rule sets of
 * the directories from the root down to the last one asked about are kept,
 * so a query costs one compare and the rule matching, no lookups. */
static void chain_set(struct ignore *ig, const char *path, size_t dirlen)
{
	if (ig->dir && ig->dirlen == dirlen && memcmp(ig->dir, path, dirlen) == 0)
		return;
	free(ig->dir);
	ig->dir = xstrndup(path, dirlen);
	ig->dirlen = dirlen;
	ig->nlevels = 0;
	for (size_t end = 0;;) {
		XGROW(ig->levels, ig->nlevels + 1, ig->caplevels);
		char save = ig->dir[end];
		ig->dir[end] = '\0';
		struct rules *rs = load(ig, ig->dir);
		ig->dir[end] = save;
		/* rel offset: past "dir/" (nothing for the root) */
		if (rs->n)
			ig->levels[ig->nlevels++] = (struct level){rs, end ? end + 1 : 0};
		if (end == dirlen)
			break;
		const char *slash = memchr(ig->dir + end + (end ? 1 : 0), '/', dirlen - end - (end ? 1 : 0));
		end = slash ? (size_t)(slash - ig->dir) : dirlen;
	}
}

bool ignore_match(struct ignore *ig, const char *path, bool is_dir)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	chain_set(ig, path, slash ? (size_t)(slash - path) : 0);
	bool ignored = false;
	for (size_t l = 0; l < ig->nlevels; l++) {
		const struct rules *rs = ig->levels[l].rs;
		const char *rel = path + ig->levels[l].off;
		for (size_t i = 0; i < rs->n; i++) {
			const struct rule *r = &rs->r[i];
			if (r->dir_only && !is_dir)
				continue;
			if (ignored == r->neg && glob_match(r->pat, r->anchored ? rel : base))
				ignored = !r->neg;
		}
	}
	return ignored;
}

void ignore_dir_without_file(struct ignore *ig, const char *dir)
{
	if (!strmap_get(&ig->dirs, dir))
		strmap_put(&ig->dirs, xstrdup(dir), xcalloc(1, sizeof(struct rules)));
}

void ignore_free(struct ignore *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->dirs.cap; i++) {
		if (!ig->dirs.keys[i])
			continue;
		struct rules *rs = ig->dirs.vals[i];
		for (size_t j = 0; j < rs->n; j++)
			free(rs->r[j].pat);
		free(rs->r);
		free(rs);
		free((char *)ig->dirs.keys[i]);
	}
	strmap_free(&ig->dirs);
	free(ig->dir);
	free(ig->levels);
	free(ig->root);
	free(ig);
}
