#include "grants.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gcache.h"
#include "glob.h"
#include "homegrant.h"
#include "path.h"
#include "wsroot.h"

/* A grant as vx-sandbox reads it (plan_grant_pattern): an absolute pattern,
 * "~" from $HOME, a relative one from the project, the R-21 collapse applied. */
static char *grant_pattern(const struct project *p, const char *g)
{
	char *col = glob_collapse(g), *abs;
	if (col[0] == '~' && (col[1] == '\0' || col[1] == '/'))
		abs = path_expand_home(col);
	else
		abs = path_join(p->abs, col);
	free(col);
	return abs;
}

static const cJSON *allow_list(const struct task *t, const char *name)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(t->sandbox, "allow");
	const cJSON *v = a ? cJSON_GetObjectItemCaseSensitive(a, name) : NULL;
	return cJSON_IsArray(v) ? v : NULL;
}

void grants_check_home(struct workspace *ws)
{
	struct homegrant h;
	bool init = false;
	for (size_t i = 0; i < ws->nprojects; i++) {
		const struct project *p = ws->projects[i];
		for (size_t k = 0; k < p->ntasks; k++) {
			const struct task *t = p->tasks[k];
			const cJSON *w = t->sandbox ? allow_list(t, "write") : NULL, *e;
			int n = 0;
			cJSON_ArrayForEach(e, w) {
				int idx = n++;
				if (!cJSON_IsString(e))
					continue;
				if (!init) {
					homegrant_init(&h, getenv("HOME"), getenv("PATH"), ws->root);
					init = true;
				}
				char *pat = grant_pattern(p, e->valuestring);
				bool file = homegrant_file_shaped(e->valuestring, pat);
				size_t len = strlen(e->valuestring);
				struct stat st;
				if (!glob_has_magic(pat) && len && e->valuestring[len - 1] != '/')
					gcache_note_path(ws->root, pat, &st); /* absolute: root unused */
				char *why = homegrant_refusal(&h, pat, file);
				if (why) {
					char *fix = strstr(why, "; fix: ");
					*fix = '\0';
					char *key = xasprintf("tasks.%s.exec.sandbox.allow.write[%d]",
						t->name, idx);
					diag_config(ws, p->config, key, fix + strlen("; fix: "), "'%s': %s",
						e->valuestring, why);
					free(key);
				}
				free(why);
				free(pat);
			}
		}
	}
	if (init)
		homegrant_free(&h);
}

/* ---- R-21a ---- */

/* Is rel (root-relative) base or under it? "." holds everything. */
static bool rel_within(const char *base, const char *rel)
{
	return !strcmp(base, ".") || path_is_within(base, rel);
}

static bool has_segment(const char *rel, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = rel; s; s = strchr(s, '/') ? strchr(s, '/') + 1 : NULL)
		if (!strncmp(s, name, n) && (s[n] == '/' || !s[n]))
			return true;
	return false;
}

/* Does the key fold project q: it is the task's own, or in K(T)? */
static bool keyed(const struct task *t, const struct project *q)
{
	if (q == t->proj)
		return true;
	for (size_t i = 0; i < t->nkeyed; i++)
		if (t->keyed[i] == q->index)
			return true;
	return false;
}

/* The deepest project holding rel (the root holds everything), by its
 * ancestors in by_dir (project directory -> project). */
static const struct project *owner_of(const struct strmap *by_dir, const char *rel)
{
	char *a = xstrdup(rel), *s;
	const struct project *q;
	while (!(q = strmap_get(by_dir, a)) && (s = strrchr(a, '/')))
		*s = '\0';
	if (!q)
		q = strmap_get(by_dir, ".");
	free(a);
	return q;
}

/* Does the subtree rel reach project q besides its owner? Not one nested
 * in the task's own: the sandbox walls those off from a grant spelled
 * outside them (issue 19 item 2). */
static bool reaches_also(const struct task *t, const char *rel, const struct project *owner,
	const struct project *q)
{
	const struct project *p = t->proj;
	return q != owner && rel_within(rel, q->dir) && !(q != p && rel_within(p->dir, q->dir));
}

/* Does every project the subtree rel reaches (its owner, others below it)
 * belong to the key: the task's own, or in K(T)? */
static bool projects_keyed(const struct workspace *ws, const struct task *t, const char *rel,
	const struct project *owner)
{
	bool ok = owner && keyed(t, owner);
	if (owner == t->proj && strcmp(owner->dir, "."))
		return ok; /* the projects below rel are nested in it: walled */
	for (size_t i = 0; i < ws->nprojects && ok; i++)
		if (reaches_also(t, rel, owner, ws->projects[i]))
			ok = keyed(t, ws->projects[i]);
	return ok;
}

// Does workspaceFiles glob w key every file under rel: "**" or "**/*", or
// "B/**" or "B/**/*" with B matching rel or one of its ancestors?
static bool covers_tree(const char *w, const char *rel)
{
	size_t n = strlen(w), cut;
	if (!strcmp(w, "**") || !strcmp(w, "**/*"))
		return true;
	if (n > 3 && !strcmp(w + n - 3, "/**"))
		cut = n - 3;
	else if (n > 5 && !strcmp(w + n - 5, "/**/*"))
		cut = n - 5;
	else
		return false;
	char *base = xstrndup(w, cut), *a = xstrdup(rel), *s;
	bool ok = strcmp(rel, ".") && glob_match(base, a);
	while (!ok && (s = strrchr(a, '/'))) {
		*s = '\0';
		ok = glob_match(base, a);
	}
	free(base);
	free(a);
	return ok;
}

/* Is what the grant reaches keyed by the task's workspaceFiles: rel a file
 * one glob names (is_file), the subtree rel, or the glob relpat itself? A
 * "!" entry that may match there spoils it. */
static bool files_keyed(const cJSON *wsf, const char *rel, const char *relpat, bool is_file)
{
	const cJSON *e;
	bool ok = false;
	cJSON_ArrayForEach(e, wsf) {
		const char *w = cJSON_IsString(e) ? e->valuestring : "";
		if (w[0] == '!' && (is_file ? glob_match(w + 1, rel) : glob_may_match_under(w + 1, rel)))
			return false;
		if (w[0] && w[0] != '!')
			ok |= (is_file && glob_match(w, rel)) || covers_tree(w, rel) ||
			      (relpat && !strcmp(w, relpat));
	}
	return ok;
}

static void check_read(struct workspace *ws, const struct strmap *by_dir, const struct task *t,
	const char *g, int idx)
{
	const struct project *p = t->proj;
	char *pat = grant_pattern(p, g), *prefix = glob_static_prefix(pat);
	bool magic = glob_has_magic(pat), is_file = false;
	const char *tail = pat + strlen(prefix); // "/*.ts" after the static prefix
	char *rel = path_under(ws->root, prefix[0] ? prefix : "/"), *relpat = NULL, *c;
	const cJSON *wsf = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(t->cache, "inputs"), "workspaceFiles");
	const struct project *owner;

	if (!rel && (c = path_canonical(prefix[0] ? prefix : "/"))) {
		/* the root spelled through a link to it */
		rel = path_under(ws->root, c);
		free(c);
	}
	if (rel && has_segment(rel, "node_modules")) {
		/* the lockfile keys what is installed; a link into the workspace
		 * is judged where it leads */
		char *abs = path_join(ws->root, rel), *rc = NULL;
		struct stat st;
		gcache_note_path(ws->root, rel, &st);
		c = path_canonical(abs);
		if (c && (rc = path_under(ws->root, c)) && !has_segment(rc, "node_modules")) {
			free(rel);
			rel = rc;
			rc = NULL;
		} else {
			free(rel);
			rel = NULL;
		}
		free(rc);
		free(c);
		free(abs);
	}
	if (!rel || has_segment(rel, ".git") || (!magic && wsroot_is_fingerprint(rel)))
		goto out;
	owner = owner_of(by_dir, rel);
	if (projects_keyed(ws, t, rel, owner))
		goto out;
	if (magic && !strchr(pat, '\\')) {
		/* the glob spelled from the root, as a workspaceFiles entry */
		relpat = strcmp(rel, ".") ? xasprintf("%s%s", rel, tail) : xstrdup(tail + 1);
	} else if (!magic) {
		/* a file names itself; a directory its subtree */
		struct stat st;
		size_t n = strlen(g);
		bool dir = gcache_note_path(ws->root, rel, &st) == 0 && S_ISDIR(st.st_mode);
		is_file = !(n && g[n - 1] == '/') && !dir;
	}
	if (files_keyed(wsf, rel, relpat, is_file))
		goto out;

	const char *entry = relpat ? relpat : is_file ? rel : NULL;
	char *tree = strcmp(rel, ".") ? xasprintf("%s/**", rel) : xstrdup("**");
	char *key = xasprintf("tasks.%s.exec.sandbox.allow.read[%d]", t->name, idx), *edge = NULL;
	/* a sibling's files are keyed by an edge to one of its tasks, when
	 * the grant reaches no other project */
	bool alone = true;
	for (size_t i = 0; i < ws->nprojects; i++)
		if (reaches_also(t, rel, owner, ws->projects[i]))
			alone = false;
	if (owner && owner != p && strcmp(owner->dir, ".") && alone)
		edge = xasprintf(", or a dependsOn edge whose key folds a task of %s (^build where "
				 "%s#build keys its sources)",
			owner->name, owner->name);
	char *fix = xasprintf("add \"%s\" to cache.inputs.workspaceFiles of %s%s",
		entry ? entry : tree, t->id, edge ? edge : "");
	diag_config(ws, p->config, key, fix,
		"'%s' lets the cached task read '%s', outside its project, which no input of its "
		"key answers for, so an edit there would replay a stale result (R-21a)",
		g, relpat ? relpat : rel);
	free(fix);
	free(edge);
	free(key);
	free(tree);
out:
	free(relpat);
	free(rel);
	free(prefix);
	free(pat);
}

void grants_check_keyed(struct workspace *ws, struct task **order, size_t n)
{
	struct strmap by_dir;
	strmap_init(&by_dir);
	for (size_t i = 0; i < ws->nprojects; i++)
		strmap_put(&by_dir, ws->projects[i]->dir, ws->projects[i]);
	for (size_t i = 0; i < n; i++) {
		const struct task *t = order[i];
		const cJSON *r = t->kind == TASK_EXEC && t->cache && t->sandbox ?
					 allow_list(t, "read") : NULL, *e;
		int idx = 0;
		cJSON_ArrayForEach(e, r) {
			if (cJSON_IsString(e))
				check_read(ws, &by_dir, t, e->valuestring, idx);
			idx++;
		}
	}
	strmap_free(&by_dir);
}
