/* plan.c: grants to mounts (R-20..R-29), on the host, before the namespaces:
 * read grants and ordering; the write grants are in plan_write.c, the walls,
 * links and masks in plan_walls.c, the primitives all three use (an op
 * added, a path checked, a glob expanded) in plan_ops.c. */
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
