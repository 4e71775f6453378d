/* pruneout.c: vx-prune's output directory written (pruneout.h). */
#include "pruneout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fileio.h"
#include "lockfile.h"
#include "path.h"
#include "subset.h"
#include "tree.h"

/* The root's dotfiles copied (the others are not: .env and the like may
 * hold secrets a Docker context must not get); json: into json/ too, as
 * what an install reads */
static const struct {
	const char *name;
	bool json;
} dot_files[] = {
	{".npmrc", true}, {".yarnrc.yml", true}, {".pnpmfile.cjs", true}, {".nvmrc", false},
	{".node-version", false}, {".gitignore", false},
};

/* what a pruner is given */
struct lockin {
	char *const *dirs; /* the kept packages' directories, "." among them */
	size_t ndirs;
	const cJSON *workspaces; /* the pruned root package.json's */
	char **seeds;            /* subset_seeds */
};

static char *npm_prune(const char *text, const char *file, const struct lockin *in,
	size_t *kept, size_t *total)
{
	return npmlock_prune(text, file, in->dirs, in->ndirs, in->workspaces, kept, total);
}

static char *pnpm_prune(const char *text, const char *file, const struct lockin *in,
	size_t *kept, size_t *total)
{
	/* pnpm-workspace.yaml's globs stay: they match only what is kept */
	return pnpmlock_prune(text, file, in->dirs, in->ndirs, kept, total);
}

static char *yarn_prune(const char *text, const char *file, const struct lockin *in,
	size_t *kept, size_t *total)
{
	size_t n = 0;
	while (in->seeds[n])
		n++;
	return yarnlock_prune(text, file, in->seeds, n, kept, total);
}

/* the lockfiles looked for at the root, in this order; NULL prune: copied whole */
static const struct {
	const char *name;
	char *(*prune)(const char *text, const char *file, const struct lockin *in, size_t *kept,
		size_t *total);
} lockfiles[] = {
	{"pnpm-lock.yaml", pnpm_prune}, {"package-lock.json", npm_prune},
	{"npm-shrinkwrap.json", npm_prune}, {"yarn.lock", yarn_prune}, {"bun.lock", NULL},
};

/* The root's lockfile, pruned where it can be, into *lk (lk->text NULL:
 * none at the root): 0, or -1 after an error line. */
struct lock {
	const char *name; /* NULL: none at the root */
	char *text;       /* NULL: none */
	size_t len, kept, total;
	bool pruned;
};

static int prune_lock(const struct workspace *ws, const struct lockin *in, struct lock *lk)
{
	for (size_t i = 0; i < sizeof(lockfiles) / sizeof(*lockfiles); i++) {
		char *path = path_join(ws->root, lockfiles[i].name);
		char *raw = fileio_read_at(AT_FDCWD, path, &lk->len);
		int e = errno;
		free(path);
		if (!raw && e == ENOENT)
			continue;
		lk->name = lockfiles[i].name;
		if (!raw) {
			errno = e;
			err_warn_errno("%s: unable to read", lk->name);
			return -1;
		}
		if (!lockfiles[i].prune) {
			err_warn("%s is not pruned: copied whole (vx prune prunes package-lock.json, "
				 "pnpm-lock.yaml and yarn 1's yarn.lock)",
				lk->name);
			lk->text = raw;
			return 0;
		}
		lk->text = lockfiles[i].prune(raw, lk->name, in, &lk->kept, &lk->total);
		free(raw);
		if (!lk->text)
			return -1;
		lk->len = strlen(lk->text);
		lk->pruned = true;
		return 0;
	}
	err_warn("no lockfile at the workspace root '%s': none written", ws->root);
	return 0;
}

/* Every regular file and symlink at the root but package.json (written
 * apart), the lockfiles (pruned apart) and the dotfiles not listed above:
 * the shared configs a package's build reads (tsconfig.base.json,
 * turbo.json, vx.json, pnpm-workspace.yaml) come along. */
static int copy_root_files(const struct workspace *ws, const struct pruneout *o)
{
	char **names = tree_root_files(ws);
	if (!names)
		return -1;
	int rc = 0;
	for (size_t i = 0; names[i]; i++) {
		const char *nm = names[i];
		bool skip = strcmp(nm, "package.json") == 0, json = strcmp(nm, "pnpm-workspace.yaml") == 0;
		for (size_t k = 0; k < sizeof(lockfiles) / sizeof(*lockfiles); k++)
			skip |= strcmp(nm, lockfiles[k].name) == 0;
		if (nm[0] == '.') {
			skip = true;
			for (size_t k = 0; k < sizeof(dot_files) / sizeof(*dot_files); k++)
				if (strcmp(nm, dot_files[k].name) == 0) {
					skip = false;
					json = dot_files[k].json;
				}
		}
		if (!skip && !rc) {
			char *dst = path_join(o->full, nm);
			rc = tree_copy_file(ws, nm, dst) < 0 ? -1 : 0;
			free(dst);
		}
		if (!skip && !rc && json && o->docker) {
			char *j = xasprintf("%s/json/%s", o->dir, nm);
			rc = tree_copy_file(ws, nm, j) < 0 ? -1 : 0;
			free(j);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int pruneout_write(const struct workspace *ws, const bool *keep, const struct pruneout *o)
{
	cJSON *wsl = subset_workspaces(ws, keep);
	char **dirs = xcalloc(ws->nprojects, sizeof(char *));
	size_t ndirs = 0;
	for (size_t i = 0; i < ws->nprojects; i++)
		if (keep[i])
			dirs[ndirs++] = ws->projects[i]->dir;
	struct lock lk = {0};
	/* the lockfile first: one that cannot be pruned leaves DIR untouched */
	struct lockin in = {.dirs = dirs, .ndirs = ndirs, .workspaces = wsl,
		.seeds = subset_seeds(ws, keep)};
	int rc = prune_lock(ws, &in, &lk);
	if (!rc)
		rc = tree_prepare(o->dir);
	char *out_abs = path_canonical(o->dir);
	for (size_t i = 0; !rc && i < ws->nprojects; i++) {
		const struct project *p = ws->projects[i];
		if (!keep[i])
			continue;
		char *man = path_join(ws->root, strcmp(p->dir, ".") ? p->dir : "");
		char *mpath = path_join(man, "package.json");
		size_t n;
		char *text = fileio_read_at(AT_FDCWD, mpath, &n);
		char *rel = strcmp(p->dir, ".") ? xasprintf("%s/package.json", p->dir)
						: xstrdup("package.json");
		if (text && strcmp(p->dir, ".") == 0) {
			char *cut = subset_manifest(text, wsl);
			if (cut) {
				free(text);
				text = cut;
				n = strlen(cut);
			}
		}
		if (text && o->docker) {
			char *j = xasprintf("%s/json/%s", o->dir, rel);
			rc = tree_write(j, text, n, 0644);
			free(j);
		}
		if (!rc && strcmp(p->dir, ".") == 0 && text) {
			char *f = path_join(o->full, "package.json");
			rc = tree_write(f, text, n, 0644);
			free(f);
		} else if (!rc && strcmp(p->dir, ".")) {
			char *dst = path_join(o->full, p->dir);
			rc = tree_copy_dir(ws, p, dst, out_abs ? out_abs : "");
			free(dst);
		}
		free(text);
		free(rel);
		free(mpath);
		free(man);
	}
	if (!rc)
		rc = copy_root_files(ws, o);
	/* the lockfile at the top; with --docker in json/ too, as turbo does */
	if (!rc && lk.text) {
		char *top = path_join(o->dir, lk.name);
		rc = tree_write(top, lk.text, lk.len, 0644);
		free(top);
		if (!rc && o->docker) {
			char *j = xasprintf("%s/json/%s", o->dir, lk.name);
			rc = tree_write(j, lk.text, lk.len, 0644);
			free(j);
		}
	}
	if (!rc && lk.pruned)
		printf("vx prune: %s: %zu of %zu packages kept\n", lk.name, lk.kept, lk.total);
	if (!rc) {
		printf("vx prune: %zu packages into %s%s:", ndirs - 1, o->dir,
			o->docker ? " (json/, full/)" : "");
		for (size_t i = 0; i < ws->nprojects; i++)
			if (keep[i] && strcmp(ws->projects[i]->dir, "."))
				printf(" %s", ws->projects[i]->name);
		putchar('\n');
	}
	free(out_abs);
	free(lk.text);
	for (size_t i = 0; in.seeds[i]; i++)
		free(in.seeds[i]);
	free(in.seeds);
	free(dirs);
	cJSON_Delete(wsl);
	return rc;
}
