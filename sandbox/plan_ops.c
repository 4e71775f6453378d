/* plan_ops.c: the plan's primitives, shared by plan.c (reads, order),
 * plan_write.c and plan_walls.c, which each call them and never each
 * other's: an op added, a grant's path canonicalised and checked against
 * escape, a glob expanded, a directory known real (plan_int.h). */
#include "plan.h"
#include "plan_int.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "err.h"
#include "glob.h"
#include "path.h"

int plan_path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = *a == '/' ? 1 : (unsigned char)*a;
		unsigned char y = *b == '/' ? 1 : (unsigned char)*b;
		if (x != y || !x)
			return x - y;
	}
}

/* An op for path, its inode from st (lstat of path), or none when st is NULL. */
struct op *plan_add_op_st(struct plan *p, enum op_kind kind, const char *path,
	const struct stat *st)
{
	struct op *o;
	XGROW(p->ops, p->nops + 1, p->cap);
	o = &p->ops[p->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->path = xstrdup(path);
	o->parent = -1;
	o->isdir = kind != OP_MASK_FILE;
	if (st) {
		o->isdir = S_ISDIR(st->st_mode);
		o->dev = st->st_dev;
		o->ino = st->st_ino;
	}
	return o;
}

struct op *plan_add_op(struct plan *p, enum op_kind kind, const char *path)
{
	struct stat st;
	return plan_add_op_st(p, kind, path, lstat(path, &st) == 0 ? &st : NULL);
}

/* The canonical form of path, resolving its longest existing ancestor and
 * appending the rest lexically: where a path not made yet would land. */
char *plan_canon_would_be(const char *path)
{
	return path_canonical_would_be(path);
}

int plan_refuse(const struct ctx *c, const char *grant, const char *fmt, const char *path)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), fmt, path);
	err_warn("%s: grant '%s' refused: %s", c->r->task_id, grant, msg);
	return -1;
}

/* A grant spelled inside the project must stay there once links resolve. */
int plan_check_escape(const struct ctx *c, const char *grant, const char *lex, char **canon)
{
	char *w = plan_canon_would_be(lex);
	if (path_is_within(c->r->project, lex) && !path_is_within(c->r->project, w)) {
		plan_refuse(c, grant, "it leaves the project through a symlink (to '%s'); "
			"fix: grant the target itself, spelled as the path it is", w);
		free(w);
		return -1;
	}
	*canon = w;
	return 0;
}

/* ---- glob expansion (R-21) ---- */

static void walk_matches(const char *base, const char *rel, const char *rest,
	struct strlist *out)
{
	char *dir = rel[0] ? path_join(base, rel) : xstrdup(base);
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d) {
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		char *r;
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		r = rel[0] ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		if (glob_match(rest, r)) {
			/* a matched directory brings its subtree: nothing to walk */
			char *full = path_join(base, r);
			strlist_push(out, full);
			free(full);
		} else if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISDIR(st.st_mode) && glob_may_match_under(rest, r)) {
			walk_matches(base, r, rest, out);
		}
		free(r);
	}
	closedir(d);
	free(dir);
}

void plan_expand(const char *pat, struct strlist *out)
{
	char *prefix, *lit;
	const char *rest = pat;
	struct stat st;
	if (!glob_has_magic(pat)) {
		lit = glob_unescape(pat);
		if (lstat(lit, &st) == 0)
			strlist_push(out, lit);
		free(lit);
		return;
	}
	/* the static prefix's segments are skipped in the pattern itself */
	prefix = glob_static_prefix(pat);
	for (const char *q = pat; *q; q++) {
		if (*q == '\\' && q[1]) {
			q++;
			continue;
		}
		if (*q == '*' || *q == '?' || *q == '[')
			break;
		if (*q == '/')
			rest = q + 1;
	}
	walk_matches(prefix[0] ? prefix : "/", "", rest, out);
	free(prefix);
}

/* The grant as an absolute pattern: "~/" from $HOME, relative from the
 * project, the R-21 collapse applied. */
char *plan_grant_pattern(const struct ctx *c, const char *g)
{
	char *col = glob_collapse(g), *home, *abs;
	if (col[0] == '~' && (col[1] == '\0' || col[1] == '/')) {
		home = path_expand_home(col);
		free(col);
		return home;
	}
	abs = path_join(c->r->project, col);
	free(col);
	return abs;
}

bool plan_names_git(const char *g)
{
	const char *s = strstr(g, ".git");
	for (; s; s = strstr(s + 1, ".git")) {
		bool start = s == g || s[-1] == '/';
		bool end = s[4] == '\0' || s[4] == '/';
		if (start && end)
			return true;
	}
	return false;
}

/* ---- read grants ---- */

/* Is dir (absolute, normalized) its own canonical form? Known answers are
 * kept for the plan: read grants are mostly siblings (../lib1 .. ../lib50),
 * so their parent is resolved once, not once per grant. */
bool plan_real_dir(struct ctx *c, const char *dir)
{
	char *cd;
	bool same;
	for (size_t i = 0; i < c->real_dirs.n; i++)
		if (!strcmp(c->real_dirs.v[i], dir))
			return true;
	cd = path_canonical(dir);
	same = cd && !strcmp(cd, dir);
	if (same)
		strlist_push(&c->real_dirs, dir);
	free(cd);
	return same;
}

/* One existing path a read grant names (lexical, absolute, normalized; st
 * its lstat). Where its parent is canonical and the path itself no symlink,
 * it is canonical as it stands and st is the op's inode: no more calls.
 * Else realpath as before. (The sandbox re-opens every source refusing
 * symlinks and compares the inode: what is decided here is checked again at
 * the mount.) */
