/* plan.c: grants to mounts (R-20..R-29), on the host, before the namespaces:
 * expansion, read grants, ordering; the write grants are in plan_write.c,
 * the walls, links and masks in plan_walls.c. */
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
static int read_path(struct ctx *c, const char *g, const char *lex, const struct stat *st)
{
	const char *leaf = strrchr(lex, '/');
	char *canon;
	if (lex[0] == '/' && !S_ISLNK(st->st_mode) && leaf && leaf[1] &&
		strcmp(leaf, "/.") != 0 && strcmp(leaf, "/..") != 0) {
		char *dir = path_dirname(lex);
		bool fast = plan_real_dir(c, dir);
		free(dir);
		if (fast) {
			plan_add_op_st(c->p, OP_RO, lex, st);
			strlist_push(&c->named, lex);
			strlist_push(&c->p->readable, lex);
			return 0;
		}
	}
	if (plan_check_escape(c, g, lex, &canon))
		return -1;
	if (access(canon, F_OK) == 0) {
		plan_add_op(c->p, OP_RO, canon);
		strlist_push(&c->named, canon);
		strlist_push(&c->p->readable, canon);
	}
	free(canon);
	return 0;
}

/* Issue 19 item 2: does path lie in a project nested in the task's, which a
 * glob whose static prefix is outside it does not reach? */
static bool beyond_nested(const struct ctx *c, const char *prefix, const char *path)
{
	for (size_t i = 0; i < c->nested.n; i++)
		if (path_is_within(c->nested.v[i], path) && !path_is_within(c->nested.v[i], prefix))
			return true;
	return false;
}

static int add_reads(struct ctx *c)
{
	for (size_t i = 0; i < c->r->read.n; i++) {
		const char *g = c->r->read.v[i];
		char *pat = plan_grant_pattern(c, g);
		struct strlist m = {0};
		struct stat st;
		int rc = 0;
		if (!glob_has_magic(pat)) {
			/* plan_expand's own test of a literal, its lstat kept */
			char *lit = glob_unescape(pat);
			if (lstat(lit, &st) == 0)
				rc = read_path(c, g, lit, &st);
			free(lit);
		} else {
			plan_expand(pat, &m);
		}
		char *prefix = glob_static_prefix(pat);
		for (size_t j = 0; !rc && j < m.n; j++)
			if (!beyond_nested(c, prefix, m.v[j]) && lstat(m.v[j], &st) == 0)
				rc = read_path(c, g, m.v[j], &st);
		free(prefix);
		strlist_free(&m);
		free(pat);
		if (rc)
			return -1;
	}
	return 0;
}

/* ---- ordering ---- */

static int rank(const struct op *o)
{
	if (o->protect)
		return 7;
	switch (o->kind) {
	case OP_RW: return 6;
	case OP_RO: return 5;
	case OP_SCRATCH: return 4;
	case OP_TEMP: return 4;
	case OP_CACHE: return 6; /* over the node_modules bind it made */
	case OP_MASK: return 3;
	case OP_MASK_FILE: return 3;
	case OP_DIR: return 1;
	}
	return 0;
}

static int op_cmp(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	int c = plan_path_cmp(x->path, y->path);
	return c ? c : rank(y) - rank(x);
}

static void link_parents(struct plan *p)
{
	int stack[512], n = 0;
	for (size_t i = 0; i < p->nops; i++) {
		while (n > 0 && !path_is_within(p->ops[stack[n - 1]].path, p->ops[i].path))
			n--;
		p->ops[i].parent = n > 0 ? stack[n - 1] : -1;
		/* a DIR is only a mount point: what lies under it belongs to the
		 * mask or bind that holds it */
		if (n < 512 && p->ops[i].kind != OP_DIR)
			stack[n++] = (int)i;
	}
}

static bool is_fdir(const struct plan *p, const char *path)
{
	for (size_t i = 0; i < p->fdirs.n; i++)
		if (!strcmp(p->fdirs.v[i], path))
			return true;
	return false;
}

/* Is o already what its parent shows? */
static bool redundant(const struct plan *p, const struct op *o)
{
	const struct op *par = o->parent >= 0 ? &p->ops[o->parent] : NULL;
	enum op_kind pk = par ? par->kind : OP_RO; /* the host root: read-only */
	bool pbind = !par || pk == OP_RO || pk == OP_RW;
	switch (o->kind) {
	case OP_RO:
		if (o->protect)
			return par && par->kind == OP_RO;
		return pbind;
	case OP_RW:
		/* a grant inside a directory bound for a file grant alone keeps
		 * a mount of its own: the shim tells the writes there apart by
		 * their mount (fastpath.h, FAST_ENV_FDIRS) */
		return par && pk == OP_RW && !par->protect && !is_fdir(p, par->path);
	case OP_MASK:
	case OP_MASK_FILE:
		/* under the writable scratch a mask still makes writes fail */
		return par && pk == OP_MASK;
	case OP_DIR:
		return pbind;
	case OP_SCRATCH:
	case OP_TEMP:
	case OP_CACHE:
		return false;
	}
	return false;
}

static void order(struct plan *p)
{
	bool changed = true;
	qsort(p->ops, p->nops, sizeof(*p->ops), op_cmp);
	/* one op per path, the strongest (sorted first) */
	size_t w = 0;
	for (size_t i = 0; i < p->nops; i++) {
		if (w > 0 && !strcmp(p->ops[w - 1].path, p->ops[i].path)) {
			free(p->ops[i].path);
			continue;
		}
		p->ops[w++] = p->ops[i];
	}
	p->nops = w;
	while (changed) {
		bool *drop = xcalloc(p->nops + 1, sizeof(bool));
		changed = false;
		link_parents(p);
		/* judge every op against the same parents, then compact */
		for (size_t i = 0; i < p->nops; i++)
			changed |= drop[i] = redundant(p, &p->ops[i]);
		w = 0;
		for (size_t i = 0; i < p->nops; i++) {
			if (drop[i])
				free(p->ops[i].path);
			else
				p->ops[w++] = p->ops[i];
		}
		p->nops = w;
		free(drop);
	}
	link_parents(p);
}

int plan_build(const struct sb_request *r, struct plan *p)
{
	struct ctx c = {.r = r, .p = p};
	const char *home = getenv("HOME");
	int rc = -1;

	memset(p, 0, sizeof(*p));
	p->nested = r->weaker_nested;
	if (home && *home)
		c.home = path_canonical(home);
	for (size_t i = 0; i < r->nprojects; i++)
		if (strcmp(r->projects[i].dir, r->project) != 0 &&
			path_is_within(r->project, r->projects[i].dir))
			strlist_push(&c.nested, r->projects[i].dir);
	plan_add_op(p, OP_SCRATCH, "/tmp");
	plan_add_op(p, OP_MASK, r->root);
	plan_add_op(p, OP_DIR, r->project);
	for (size_t i = 0; i < r->read.n; i++)
		if (plan_names_git(r->read.v[i]))
			p->git_discovery = true;
	for (size_t i = 0; i < r->write.n; i++)
		if (plan_names_git(r->write.v[i]))
			p->git_discovery = true;
	if (plan_add_writes(&c) || add_reads(&c))
		goto out;
	if (r->git_config)
		plan_add_git_config(&c);
	plan_add_tool_caches(&c);
	plan_add_node_modules(&c);
	plan_add_tmp_keeps(&c);
	plan_add_walls(&c);
	plan_judge_empty_globs(&c);
	order(p);
	if (getenv("VX_SANDBOX_DEBUG"))
		for (size_t i = 0; i < p->nops; i++)
			fprintf(stderr, "vx-sandbox: plan: %d %s%s (parent %d)\n", p->ops[i].kind,
				p->ops[i].path, p->ops[i].protect ? " protect" : "", p->ops[i].parent);
	rc = 0;
out:
	free(c.home);
	strlist_free(&c.named);
	strlist_free(&c.real_dirs);
	strlist_free(&c.empty_globs);
	strlist_free(&c.nested);
	return rc;
}

bool plan_placeholder_untouched(const struct placeholder *ph)
{
	struct stat st;
	return !lstat(ph->path, &st) && S_ISREG(st.st_mode) && st.st_size == 0 &&
	       st.st_mtim.tv_sec == ph->mtime.tv_sec && st.st_mtim.tv_nsec == ph->mtime.tv_nsec;
}

void plan_sweep(const struct plan *p, bool failed)
{
	/* the guards, deepest first (a held .git before its parent's turn) */
	for (size_t i = p->ng; i-- > 0;) {
		struct stat st;
		if (lstat(p->guards[i].path, &st) ||
			!plan_is_guard(p->guards[i].path, &st, p->guards[i].fmode))
			continue;
		if (p->guards[i].isdir)
			rmdir(p->guards[i].path);
		else
			unlink(p->guards[i].path);
	}
	/* the parents made for $HOME's guards, deepest first, where left empty */
	for (size_t i = p->made.n; i-- > 0;)
		rmdir(p->made.v[i]);
	for (size_t i = 0; i < p->nph; i++) {
		const struct placeholder *ph = &p->ph[i];
		if (!plan_placeholder_untouched(ph))
			continue;
		unlink(ph->path);
		if (failed)
			err_warn("write grant '%s' was made an empty file the task never wrote, "
				"now removed; fix: if it names a directory, spell it '%s/'",
				ph->grant, ph->grant);
	}
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->ng; i++)
		free(p->guards[i].path);
	free(p->guards);
	for (size_t i = 0; i < p->nops; i++)
		free(p->ops[i].path);
	free(p->ops);
	for (size_t i = 0; i < p->nph; i++) {
		free(p->ph[i].path);
		free(p->ph[i].grant);
	}
	free(p->ph);
	strlist_free(&p->readable);
	strlist_free(&p->wfiles);
	strlist_free(&p->wfgrant);
	strlist_free(&p->fdirs);
	strlist_free(&p->wdirs);
	strlist_free(&p->wglobs);
	strlist_free(&p->withheld);
	strlist_free(&p->made);
	memset(p, 0, sizeof(*p));
}
