/* learnrec.c: a learning run's trace to the proposed block (learnrec.h). */
#include "learnrec.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "fileio.h"
#include "glob.h"
#include "path.h"

static bool has(const cJSON *arr, const char *s)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, arr)
		if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
			return true;
	return false;
}

static void add(cJSON *arr, const char *s)
{
	if (!has(arr, s))
		cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The first segment of a relative path ("src/a.ts" -> "src"), NULL for a
 * top-level name. */
static char *top_dir(const char *rel)
{
	const char *slash = strchr(rel, '/');
	return slash ? xstrndup(rel, (size_t)(slash - rel)) : NULL;
}

bool learnrec_declared(const cJSON *task, const char *grant)
{
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(task, "cache"),
			"outputs"), "files");
	size_t n = strlen(grant);
	char *g = xstrdup(grant);
	bool dir = n && g[n - 1] == '/', yes = false;
	const cJSON *e;
	if (dir)
		g[n - 1] = '\0';
	cJSON_ArrayForEach(e, out) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '!')
			continue;
		if (dir ? glob_may_match_under(e->valuestring, g) : glob_match(e->valuestring, g))
			yes = true;
	}
	free(g);
	return yes;
}

/* The withheld package directory of the start record holding path, or NULL. */
static const char *withheld_dir(const cJSON *withheld, const char *path)
{
	const cJSON *w;
	cJSON_ArrayForEach(w, withheld) {
		const char *d = str(w, "dir");
		if (d && path_is_within(d, path))
			return d;
	}
	return NULL;
}

/* a path outside: named once, with what it holds (a directory made
 * there, then its files) */
static void add_outside(cJSON *arr, const char *path)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, arr)
		if (path_is_within(e->valuestring, path))
			return;
	add(arr, path);
}

/* The directory of the workspace project holding path whose name the
 * task's "keyed" (K(T)) holds, or NULL (malloc'd). */
static char *keyed_dir(const cJSON *graph, const cJSON *task, const char *root, const char *path)
{
	const cJSON *p, *keyed = cJSON_GetObjectItemCaseSensitive(task, "keyed");
	char *best = NULL;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(graph, "projects")) {
		const char *d = str(p, "dir"), *n = str(p, "name");
		if (!d || !n || !strcmp(d, ".") || !has(keyed, n))
			continue;
		char *abs = path_join(root, d);
		if (path_is_within(abs, path) && (!best || strlen(abs) > strlen(best))) {
			free(best);
			best = abs;
		} else {
			free(abs);
		}
	}
	return best;
}

static void on_read(struct proposal *pr, const cJSON *rec, const cJSON *withheld,
	const cJSON *graph, const cJSON *task, const char *root, const char *proj, const char *path)
{
	struct stat st;
	const char *op = str(rec, "op");
	bool listing = op && (!strcmp(op, "openat") || !strcmp(op, "open") || !strcmp(op, "openat2"));
	if (path_is_within(path, proj) || lstat(path, &st) != 0)
		return; /* the cwd or a directory holding it; a file the task made */
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "errno"))) {
		/* a read of a file the host has fails in a learning run only
		 * behind a wall (or as it fails on the host: EINVAL, ENOTDIR) */
		char *rel = path_relative(root, path);
		if (!strncmp(rel, ".git", 4) || !strncmp(rel, ".vx", 3))
			if (!rel[strcspn(rel, "/")] || rel[strcspn(rel, "/")] == '/')
				add(pr->walled, rel);
		free(rel);
		return;
	}
	if (path_is_within(proj, path)) {
		char *rel = path_relative(proj, path), *top = top_dir(rel);
		add(pr->read, top ? top : rel);
		free(top);
		free(rel);
		return;
	}
	/* outside the project: a directory only when listed (a stat of one is
	 * a tool looking around; under the baseline it still sees it) */
	if (S_ISDIR(st.st_mode) && !listing)
		return;
	const char *pkg = withheld_dir(withheld, path);
	char *at = NULL, *kdir = keyed_dir(graph, task, root, path);
	if (kdir) {
		/* a package whose cached task the key folds already (R-21a):
		 * its top directory read, no second key */
		char *in = path_relative(kdir, path), *top = top_dir(in);
		char *tp = top ? path_join(kdir, top) : xstrdup(path), *spelled = path_relative(proj, tp);
		add(pr->read, spelled);
		free(spelled);
		free(tp);
		free(top);
		free(in);
		free(kdir);
		return;
	}
	if (pkg) {
		/* the package's top directory read, keyed as a whole */
		char *in = path_relative(pkg, path), *top = top_dir(in);
		at = top ? path_join(pkg, top) : xstrdup(path);
		char *rp = path_relative(root, pkg), *line = xasprintf(
			"read %s, a workspace package its key folds no cached task of; a dependsOn "
			"edge reaching one (^build where that package's build keys its sources) "
			"would key it without the grant", rp);
		add(pr->linked, line);
		free(line);
		free(rp);
		free(in);
		free(top);
		if (stat(at, &st) != 0)
			st.st_mode = S_IFREG;
	} else {
		at = xstrdup(path);
	}
	char *spelled = path_relative(proj, at), *wrel = path_relative(root, at);
	add(pr->read, spelled);
	if (S_ISDIR(st.st_mode)) {
		char *g = xasprintf("%s/**", wrel);
		add(pr->wfiles, g);
		free(g);
	} else {
		add(pr->wfiles, wrel);
	}
	free(spelled);
	free(wrel);
	free(at);
}

static void on_write(struct proposal *pr, const cJSON *rec, const char *proj, const char *path)
{
	const char *op = str(rec, "op");
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "errno"))) {
		/* mkdir -p meets what is there (EEXIST); outside the root the
		 * host is read-only in the learning run as in any sandbox */
		if (strcmp(str(rec, "errno"), "EROFS") == 0)
			add_outside(pr->outside, path);
		return;
	}
	if (!path_is_within(proj, path)) {
		add_outside(pr->outside, path);
		return;
	}
	if (!strcmp(path, proj))
		return;
	char *rel = path_relative(proj, path), *top = top_dir(rel), *grant;
	struct stat st;
	if (top && !strcmp(top, "node_modules") && strchr(rel + 13, '/')) {
		/* a tool's cache there (node_modules/.vite/): that directory,
		 * never the installed packages beside it */
		free(top);
		top = xstrndup(rel, (size_t)(strchr(rel + 13, '/') - rel));
	}
	if (top)
		grant = xasprintf("%s/", top);
	else if ((op && (!strcmp(op, "mkdir") || !strcmp(op, "mkdirat"))) ||
		 (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		grant = xasprintf("%s/", rel);
	else
		grant = xstrdup(rel);
	add(pr->write, grant);
	free(grant);
	free(top);
	free(rel);
}

/* a directory grant made only to hold a narrower one (node_modules/ for
 * node_modules/.vite/) is the narrower one's to make */
static void drop_holders(struct proposal *pr)
{
	cJSON *keep = cJSON_CreateArray();
	const cJSON *e, *f;
	cJSON_ArrayForEach(e, pr->write) {
		size_t n = strlen(e->valuestring);
		bool holder = false;
		cJSON_ArrayForEach(f, pr->write)
			holder |= n && e->valuestring[n - 1] == '/' && strlen(f->valuestring) > n &&
				  !strncmp(f->valuestring, e->valuestring, n);
		if (!holder)
			add(keep, e->valuestring);
	}
	cJSON_Delete(pr->write);
	pr->write = keep;
}

/* reads of what is written are the task's own outputs, no read grant */
static void drop_outputs(struct proposal *pr)
{
	cJSON *keep = cJSON_CreateArray();
	const cJSON *e;
	cJSON_ArrayForEach(e, pr->read) {
		char *d = xasprintf("%s/", e->valuestring);
		if (!has(pr->write, d) && !has(pr->write, e->valuestring))
			add(keep, e->valuestring);
		free(d);
	}
	cJSON_Delete(pr->read);
	pr->read = keep;
}

bool learnrec_read(const char *trace, const char *root, const char *proj, const cJSON *graph,
	const cJSON *task, struct proposal *pr)
{
	memset(pr, 0, sizeof(*pr));
	pr->read = cJSON_CreateArray();
	pr->write = cJSON_CreateArray();
	pr->wfiles = cJSON_CreateArray();
	pr->undeclared = cJSON_CreateArray();
	pr->outside = cJSON_CreateArray();
	pr->walled = cJSON_CreateArray();
	pr->linked = cJSON_CreateArray();
	pr->net = cJSON_CreateArray();
	char *text = fileio_read_at(AT_FDCWD, trace, NULL);
	if (!text)
		return false;
	cJSON *withheld = NULL;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const char *acc = str(r, "access"), *res = str(r, "resolved"), *tr = str(r, "trace");
		if (tr && !strcmp(tr, "start")) {
			withheld = cJSON_DetachItemFromObjectCaseSensitive(r, "withheld");
		} else if (tr && !strcmp(tr, "end")) {
			pr->complete = true;
		} else if (acc && !strcmp(acc, "unix")) {
			pr->unix_sockets = true;
		} else if (acc && !strcmp(acc, "net")) {
			const cJSON *port = cJSON_GetObjectItemCaseSensitive(r, "port");
			char *hp = xasprintf("%s:%d", str(r, "addr") ? str(r, "addr") : "?",
				cJSON_IsNumber(port) ? port->valueint : 0);
			add(pr->net, hp);
			free(hp);
		} else if (acc && res && !cJSON_GetObjectItemCaseSensitive(r, "resolved_hex") &&
			   path_is_within(root, res)) {
			if (!strcmp(acc, "read"))
				on_read(pr, r, withheld, graph, task, root, proj, res);
			else if (!strcmp(acc, "write"))
				on_write(pr, r, proj, res);
		} else if (acc && res && !strcmp(acc, "write")) {
			add_outside(pr->outside, res);
		}
		cJSON_Delete(r);
	}
	free(text);
	cJSON_Delete(withheld);
	drop_holders(pr);
	drop_outputs(pr);
	/* what the task keys already needs no second entry */
	const cJSON *have = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(task, "cache"),
			"inputs"), "workspaceFiles");
	cJSON *wf = cJSON_CreateArray();
	const cJSON *f;
	cJSON_ArrayForEach(f, pr->wfiles)
		if (!has(have, f->valuestring))
			add(wf, f->valuestring);
	cJSON_Delete(pr->wfiles);
	pr->wfiles = wf;
	const cJSON *e;
	cJSON_ArrayForEach(e, pr->write)
		if (!learnrec_declared(task, e->valuestring))
			add(pr->undeclared, e->valuestring);
	return true;
}

/* One hook per grant row init proposes: the row's path (it must be a row
 * of grantkind.c: tests/unit/test_learnrec.c holds it to the table), the
 * list it learns, and whether the verifying run grants only the entries
 * the cache.outputs declare (the sources stay as they are). */
static const struct learner {
	const char *path;
	size_t off;
	bool outputs_only;
} learners[] = {
	{"allow.read", offsetof(struct proposal, read), false},
	{"allow.write", offsetof(struct proposal, write), true},
};

cJSON *learnrec_grant(const struct proposal *pr, const struct grantkind *g,
	const cJSON *verify_task)
{
	for (size_t i = 0; i < sizeof(learners) / sizeof(*learners); i++) {
		const struct learner *l = &learners[i];
		if (grantkind_at(l->path) != g)
			continue;
		const cJSON *list = *(cJSON *const *)((const char *)pr + l->off), *e;
		if (!cJSON_GetArraySize(list))
			return NULL;
		cJSON *out = cJSON_CreateArray();
		cJSON_ArrayForEach(e, list)
			if (!verify_task || !l->outputs_only || learnrec_declared(verify_task, e->valuestring))
				cJSON_AddItemToArray(out, cJSON_CreateString(e->valuestring));
		return out;
	}
	return NULL;
}

void learnrec_free(struct proposal *pr)
{
	cJSON *all[] = {pr->read, pr->write, pr->wfiles, pr->undeclared, pr->outside, pr->walled,
		pr->linked, pr->net};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		cJSON_Delete(all[i]);
	memset(pr, 0, sizeof(*pr));
}
