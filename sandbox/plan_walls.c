/* plan_walls.c: what the grants leave out or add around them: the repository's
 * config (allow.gitConfig), linked packages, walls and masks, the private
 * /tmp, write globs that matched nothing. */
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

/* where tools keep credentials, relative to $HOME (the reference's
 * list, exactly, macOS paths included: they cost nothing where absent). */
static const char *const cred_stores[] = {
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".config/gcloud", ".config/gh",
	".docker/config.json", ".netrc", ".git-credentials", ".npmrc", ".yarnrc.yml",
	".pypirc", ".bunfig.toml", ".config/.bunfig.toml", ".cargo/credentials",
	".cargo/credentials.toml", ".gem/credentials", ".config/hub",
	".config/containers/auth.json", ".terraform.d/credentials.tfrc.json",
	".vault-token", ".pgpass", ".config/configstore/firebase-tools.json",
	".local/share/com.vercel.cli/auth.json",
	"Library/Application Support/com.vercel.cli/auth.json", ".netlify/config.json",
	".config/netlify/config.json", "Library/Preferences/netlify/config.json",
	".wrangler/config", ".config/.wrangler/config",
	"Library/Preferences/.wrangler/config", ".fly/config.yml",
	".supabase/access-token", ".config/doctl", "Library/Application Support/doctl",
	".config/stripe/config.toml", ".config/op", ".expo/state.json",
	".claude/.credentials.json", ".codex/auth.json",
};

/* ---- allow.gitConfig (R-25) ---- */

static bool is_named(const struct ctx *c, const char *p);

/* git writes its config as every atomic writer does: config.lock made
 * beside it, then renamed onto it. So the repository's .git directory (the
 * first found from the project up, a real directory) is bound writable and
 * every entry in it but config keeps the view it had: read-only where a
 * grant names the repository or it lies outside the workspace, masked
 * where not. A mount point cannot be removed, replaced or renamed onto, so
 * HEAD, refs, objects, hooks and index stay as they were; new names may be
 * made beside them (config.lock; what they could do config already can). */
void plan_add_git_config(struct ctx *c)
{
	char *dir = xstrdup(c->r->project), *git = NULL, *up;
	struct stat st;
	bool readable;
	DIR *d;
	struct dirent *e;
	for (;;) {
		git = path_join(dir, ".git");
		if (lstat(git, &st) == 0 || !strcmp(dir, "/"))
			break;
		free(git);
		git = NULL;
		up = path_dirname(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	if (!git || lstat(git, &st) != 0 || !S_ISDIR(st.st_mode) || !(d = opendir(git))) {
		free(git);
		return;
	}
	readable = is_named(c, git) || !path_is_within(c->r->root, git);
	plan_add_op_st(c->p, OP_RW, git, &st);
	strlist_push(&c->named, git);
	c->p->git_discovery = true;
	while ((e = readdir(d))) {
		char *p;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "config"))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || S_ISLNK(st.st_mode))
			continue;
		p = path_join(git, e->d_name);
		if (readable)
			plan_add_op_st(c->p, OP_RO, p, &st)->protect = true;
		else
			plan_add_op_st(c->p, S_ISDIR(st.st_mode) ? OP_MASK : OP_MASK_FILE, p, &st);
		free(p);
	}
	closedir(d);
	free(git);
}

/* ---- node_modules (R-28) ---- */

static bool keyed_dir(const struct ctx *c, const char *t)
{
	const struct sb_request *r = c->r;
	for (size_t i = 0; i < r->nprojects; i++) {
		if (strcmp(r->projects[i].dir, t) != 0)
			continue;
		for (size_t k = 0; k < r->keyed.n; k++)
			if (!strcmp(r->keyed.v[k], r->projects[i].name))
				return true;
	}
	return false;
}

static void scan_links(struct ctx *c, const char *nm, bool deeper);

/* Can a directory entry of this type be a link? (readdir's d_type spares
 * an lstat of each of the hundreds of packages an npm node_modules holds;
 * a file system that does not say gives DT_UNKNOWN: then lstat decides) */
static bool maybe_link(unsigned char type)
{
	return type == DT_LNK || type == DT_UNKNOWN;
}

static void consider_link(struct ctx *c, const char *link, bool deeper)
{
	struct stat st;
	char *t, *sub;
	if (lstat(link, &st) || !S_ISLNK(st.st_mode) || !(t = path_canonical(link)))
		return;
	/* never the task's own project or a directory holding it (rule 1);
	 * outside the root the link grants nothing the root does not (rule 2);
	 * a cached task only what its key answers for (rule 4) */
	if (stat(t, &st) || !S_ISDIR(st.st_mode) || path_is_within(t, c->r->project) ||
		!path_is_within(c->r->root, t) || (c->r->cached && !keyed_dir(c, t))) {
		if (!stat(t, &st) && S_ISDIR(st.st_mode) && !path_is_within(t, c->r->project) &&
			path_is_within(c->r->root, t)) {
			strlist_push(&c->p->withheld, link);
			strlist_push(&c->p->withheld, t);
		}
		free(t);
		return;
	}
	plan_add_op(c->p, OP_RO, t);
	strlist_push(&c->p->readable, t);
	if (deeper) {
		sub = path_join(t, "node_modules");
		scan_links(c, sub, false);
		free(sub);
	}
	free(t);
}

/* Depth 0 and inside @scope/ only (the reference's linkedDeps). */
static void scan_links(struct ctx *c, const char *nm, bool deeper)
{
	DIR *d = opendir(nm);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;
		if (e->d_name[0] == '.')
			continue;
		if (e->d_name[0] != '@' && !maybe_link(e->d_type))
			continue;
		p = path_join(nm, e->d_name);
		if (e->d_name[0] == '@') {
			DIR *s = opendir(p);
			struct dirent *f;
			struct stat st;
			if (s && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
				while ((f = readdir(s))) {
					char *q;
					if (f->d_name[0] == '.' || !maybe_link(f->d_type))
						continue;
					q = path_join(p, f->d_name);
					consider_link(c, q, deeper);
					free(q);
				}
			}
			if (s)
				closedir(s);
		} else {
			consider_link(c, p, deeper);
		}
		free(p);
	}
	closedir(d);
}

/* ---- tool caches (issue 35 item 4) ---- */

/* Where the common JS tools keep a cache of their own, in a node_modules:
 * vite's optimizer and vitest's results (.vite/vitest/<hash>/), vite's
 * bundled config (.vite-temp, in the nearest node_modules), and
 * find-cache-dir's users (babel-loader, eslint-loader, terser and others:
 * .cache/<tool>/), and unrun's bundled config (.unrun/, tsdown's config
 * loader). None is an input or an output of a task. */
static const char *const tool_caches[] = {".vite", ".vite-temp", ".cache", ".unrun"};

/* Does a grant already decide what path shows: a write bind at or above it
 * (the user's own cache, kept), or any grant inside it? */
static bool granted_around(const struct ctx *c, const char *path)
{
	for (size_t i = 0; i < c->p->nops; i++) {
		const struct op *o = &c->p->ops[i];
		if ((o->kind == OP_RW && path_is_within(o->path, path)) ||
			(o->kind != OP_DIR && strcmp(o->path, path) != 0 &&
				path_is_within(path, o->path)))
			return true;
	}
	return false;
}

/* path as the task's own cache: a real directory (made empty when absent,
 * and left in place: a later sandbox may have its mount on it, which an
 * rmdir would detach), never one reached through a symlink (a link named
 * node_modules/.cache leading to src/ keeps its read-only view, so a write
 * there still fails and is reported). */
static void add_cache(struct ctx *c, const char *path)
{
	struct stat st;
	if (granted_around(c, path))
		return;
	if (lstat(path, &st) != 0 && (errno != ENOENT || mkdir(path, 0777) != 0 ||
		lstat(path, &st) != 0))
		return;
	if (S_ISDIR(st.st_mode))
		plan_add_op(c->p, OP_CACHE, path);
}

static bool empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = d != NULL;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return empty;
}

/* In a JS project (a package.json), each tool cache in the project's and
 * the workspace root's node_modules is the task's own empty scratch. A
 * project with no node_modules of its own in an installed workspace (the
 * root's is a directory: an npm workspace's package), or with an empty one
 * (made so by an earlier task), gets one as its scratch whole, where vite
 * puts .vite. Runs before plan_add_node_modules, which then binds the
 * one made. */
void plan_add_tool_caches(struct ctx *c)
{
	const char *dirs[2] = {c->r->project, c->r->root};
	char *pj = path_join(c->r->project, "package.json");
	char *rnm = path_join(c->r->root, "node_modules");
	struct stat st;
	bool js = lstat(pj, &st) == 0 && S_ISREG(st.st_mode);
	/* an installed JS workspace: a project with no node_modules of its own
	 * gets one made (left in place) only there */
	bool installed = lstat(rnm, &st) == 0 && S_ISDIR(st.st_mode);
	free(pj);
	free(rnm);
	if (!js)
		return;
	for (int i = 0; i < 2; i++) {
		char *nm;
		if (i == 1 && !strcmp(dirs[0], dirs[1]))
			break;
		if (!plan_real_dir(c, dirs[i]))
			continue;
		nm = path_join(dirs[i], "node_modules");
		if (lstat(nm, &st) != 0) {
			if (errno == ENOENT && i == 0 && installed)
				add_cache(c, nm);
		} else if (i == 0 && S_ISDIR(st.st_mode) && empty_dir(nm)) {
			add_cache(c, nm); /* made by an earlier task as its mount point */
		} else if (S_ISDIR(st.st_mode) && plan_real_dir(c, nm)) {
			for (size_t k = 0; k < sizeof(tool_caches) / sizeof(*tool_caches); k++) {
				char *p = path_join(nm, tool_caches[k]);
				add_cache(c, p);
				free(p);
			}
		}
		free(nm);
	}
}

void plan_add_node_modules(struct ctx *c)
{
	const char *dirs[2] = {c->r->project, c->r->root};
	for (int i = 0; i < 2; i++) {
		char *nm, *cn;
		struct stat st;
		if (i == 1 && !strcmp(dirs[0], dirs[1]))
			break;
		nm = path_join(dirs[i], "node_modules");
		/* mostly absent: one lstat, not realpath's readlink a component */
		cn = lstat(nm, &st) == 0 ? path_canonical(nm) : NULL;
		if (cn && path_is_within(c->r->root, cn)) {
			plan_add_op(c->p, OP_RO, cn);
			strlist_push(&c->p->readable, cn);
			scan_links(c, cn, true);
		}
		free(cn);
		free(nm);
	}
}

/* ---- walls and masks ---- */

static bool is_named(const struct ctx *c, const char *p)
{
	for (size_t i = 0; i < c->named.n; i++)
		if (path_is_within(p, c->named.v[i]))
			return true;
	return false;
}

void plan_add_walls(struct ctx *c)
{
	/* .git and .vx under a bind of the root stay hidden unless named */
	const char *walls[] = {".git", ".vx"};
	for (size_t i = 0; i < 2; i++) {
		char *p = path_join(c->r->root, walls[i]);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && !is_named(c, p))
			plan_add_op(c->p, OP_MASK, p);
		free(p);
	}
	/* issue 19 item 2: a project nested in the task's is a wall its grants
	 * do not reach (its files fold into its own tasks' keys, never this
	 * one's): masked under a grant of an ancestor ('.'), while a grant
	 * spelled inside it, or its link under node_modules, binds over
	 * the mask */
	for (size_t i = 0; i < c->nested.n; i++) {
		struct stat st;
		if (lstat(c->nested.v[i], &st) == 0 && S_ISDIR(st.st_mode))
			plan_add_op(c->p, OP_MASK, c->nested.v[i]);
	}
	if (!c->home)
		return;
	for (size_t i = 0; i < sizeof(cred_stores) / sizeof(*cred_stores); i++) {
		char *p = path_join(c->home, cred_stores[i]), *cp, *dir;
		struct stat st;
		bool real;
		if (lstat(p, &st) != 0) {
			free(p);
			continue;
		}
		/* no symlink on the way: canonical as it stands, st its own */
		dir = path_dirname(p);
		real = !S_ISLNK(st.st_mode) && plan_real_dir(c, dir);
		free(dir);
		if (real) {
			cp = xstrdup(p);
		} else if (!(cp = path_canonical(p)) || stat(cp, &st) != 0) {
			free(cp);
			free(p);
			continue;
		}
		/* a grant naming the store, or a path inside it, frees that path */
		bool exact = false;
		for (size_t k = 0; k < c->named.n; k++)
			if (!strcmp(c->named.v[k], cp))
				exact = true;
		if (!exact)
			plan_add_op_st(c->p, S_ISDIR(st.st_mode) ? OP_MASK : OP_MASK_FILE, cp, &st);
		free(cp);
		free(p);
	}
}

/* ---- the private /tmp (issue 19 item 9) ---- */

/* Paths outside the workspace stay readable, but the task's /tmp is
 * its own: a $HOME or a toolchain on PATH under the host's /tmp would
 * vanish. Each is bound back read-only (the credential stores in $HOME
 * masked as anywhere). Nothing else of the host's /tmp shows: other users'
 * and other tasks' files there (vx run's proxy sockets) stay out of reach;
 * another path there is granted by naming it (allow.read). */
static void keep_under_tmp(struct ctx *c, const char *path)
{
	/* as spelled: a PATH of /usr/bin costs no realpath */
	char *cp = path && path_is_within("/tmp", path) ? path_canonical(path) : NULL;
	struct stat st;
	if (cp && strcmp(cp, "/tmp") != 0 && path_is_within("/tmp", cp) &&
		!path_is_within(c->r->root, cp) && lstat(cp, &st) == 0 && S_ISDIR(st.st_mode))
		plan_add_op_st(c->p, OP_RO, cp, &st);
	free(cp);
}

void plan_add_tmp_keeps(struct ctx *c)
{
	const char *path = getenv("PATH");
	keep_under_tmp(c, c->home);
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *dir = xstrndup(path, n);
		keep_under_tmp(c, dir);
		free(dir);
		path = colon ? colon + 1 : NULL;
	}
}

/* ---- write globs matching nothing (issue 19 item 9) ---- */

/* The reference's rule for a write glob that matches nothing when the task
 * starts, by what holds its directory: a mask (no grant shows it) makes it
 * the task's own scratch, where the task may create, write and remove what
 * the glob matches (anything else too) and nothing outlives the task: right
 * for a tool's temp directory (the schema's Bun example); a read-only bind
 * (a read grant, the host's /) leaves the task's write there EROFS, so that
 * is said
 * once, before the task runs, with the directory to grant; a writable one
 * needs nothing. */
void plan_judge_empty_globs(struct ctx *c)
{
	for (size_t i = 0; i + 1 < c->empty_globs.n; i += 2) {
		const char *d = c->empty_globs.v[i], *g = c->empty_globs.v[i + 1];
		const struct op *best = NULL;
		for (size_t k = 0; k < c->p->nops; k++) {
			const struct op *o = &c->p->ops[k];
			if (o->kind != OP_DIR && path_is_within(o->path, d) &&
				(!best || strlen(o->path) > strlen(best->path)))
				best = o;
		}
		if (best && best->kind == OP_MASK) {
			plan_add_op(c->p, OP_TEMP, d);
		} else if (!best || best->kind == OP_RO || best->protect) {
			char *hint = glob_static_prefix(g);
			err_warn("%s: write grant '%s' matches nothing when the task "
				"starts, so a write under it is refused; fix: grant the "
				"directory, allow: { write: ['%s/'] }", c->r->task_id, g,
				hint[0] ? hint : ".");
			free(hint);
		}
	}
}

