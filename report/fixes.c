/* fixes.c: the grants a report names, merged into one block (see fixes.h). */
#include "fixes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "glob.h"
#include "grantkind.h"
#include "jsonl.h"
#include "path.h"

static const char *str(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static const cJSON *at(const cJSON *o, const char *a, const char *b)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
}

/* s without its trailing '/' ("dist/" -> "dist"), malloc'd */
static char *bare(const char *s)
{
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		n--;
	return xstrndup(s, n);
}

/* Does grant g (a literal, spelled from the project) hold path p, spelled
 * the same way? "dist/" and "dist" both hold "dist/a", "./" all of the
 * project but nothing outside it ("../x", "~/x", "/x"); a glob holds
 * nothing here. */
static bool holds(const char *g, const char *p)
{
	if (glob_has_magic(g))
		return false;
	char *a = bare(g), *b = bare(p);
	bool in = !strcmp(a, ".") ? b[0] != '/' && b[0] != '~' && strcmp(b, "..") &&
		strncmp(b, "../", 3) : path_is_within(a, b);
	free(a);
	free(b);
	return in;
}

/* The task's write grant that holds rel although the write was denied (a
 * config or guard vx-sandbox keeps read-only in it), or NULL. */
static const char *granted(const cJSON *task, const char *rel)
{
	const cJSON *g;
	cJSON_ArrayForEach(g, at(cJSON_GetObjectItemCaseSensitive(task, "sandbox"), "allow", "write")) {
		const char *s = cJSON_GetStringValue(g);
		char *col = s ? glob_collapse(s) : NULL;
		bool hit = col && holds(col, rel);
		free(col);
		if (hit)
			return s;
	}
	return NULL;
}

static void add_once(cJSON **set, const char *s)
{
	const cJSON *e;
	if (!*set)
		*set = cJSON_CreateArray();
	cJSON_ArrayForEach(e, *set)
		if (!strcmp(e->valuestring, s))
			return;
	cJSON_AddItemToArray(*set, cJSON_CreateString(s));
}

void fixes_grant(struct fixes *f, const char *kind, const char *grant)
{
	cJSON *set;
	if (!f->grants)
		f->grants = cJSON_CreateObject();
	set = cJSON_GetObjectItemCaseSensitive(f->grants, kind);
	if (!set)
		set = cJSON_AddArrayToObject(f->grants, kind);
	add_once(&set, grant);
}

void fixes_read(struct fixes *f, const char *grant)
{
	fixes_grant(f, "read", grant);
}

void fixes_key(struct fixes *f, const char *entry)
{
	add_once(&f->keys, entry);
}

void fixes_write(struct fixes *f, const char *grant)
{
	fixes_grant(f, "write", grant);
	f->wrote = true;
}

void fixes_wrote(struct fixes *f)
{
	f->wrote = true;
}

void fixes_inside(struct fixes *f, const cJSON *rec, const char *rel, const char *shown,
	bool bin)
{
	cJSON *w = cJSON_CreateObject();
	if (!f->inside)
		f->inside = cJSON_CreateArray();
	cJSON_AddStringToObject(w, "rel", rel);
	cJSON_AddStringToObject(w, "shown", shown);
	cJSON_AddBoolToObject(w, "bin", bin);
	cJSON_AddItemToObject(w, "rec", cJSON_Duplicate(rec, 1));
	cJSON_AddItemToArray(f->inside, w);
	f->wrote = true;
}

/* The task's cache.outputs.files glob that declares rel, or NULL; *dir the
 * directory that glob makes rel's home (its static prefix, when rel lies
 * below it), else NULL. */
static const char *declared(const cJSON *task, const char *rel, char **dir)
{
	const cJSON *g;
	*dir = NULL;
	cJSON_ArrayForEach(g, at(cJSON_GetObjectItemCaseSensitive(task, "cache"), "outputs", "files")) {
		const char *pat = cJSON_GetStringValue(g);
		if (!pat || pat[0] == '!')
			continue;
		char *col = glob_collapse(pat);
		bool hit = glob_match(pat, rel) || glob_match(col, rel) ||
			(!glob_has_magic(col) && path_is_within(col, rel));
		free(col);
		if (!hit)
			continue;
		char *pre = glob_static_prefix(pat);
		char *b = bare(pre);
		if (*b && strcmp(b, ".") && strcmp(b, rel) && path_is_within(b, rel))
			*dir = b;
		else
			free(b);
		free(pre);
		return pat;
	}
	return NULL;
}

/* The grant for one denied write at rel (project-relative): the directory a
 * mkdir made or the write hit when it is one on the host, else the
 * directory the write landed in, a file at the project root by name. NULL:
 * nothing vx would grant (the project itself, .git, .vx). */
static char *grant_for(const char *rel, bool dir)
{
	char *cp = xstrdup(rel), *g;
	bool ok = strcmp(rel, ".") != 0;
	for (char *c = strtok(cp, "/"); c && ok; c = strtok(NULL, "/"))
		ok = strcmp(c, ".git") && strcmp(c, ".vx") && strcmp(c, "..");
	free(cp);
	if (!ok)
		return NULL;
	if (dir)
		return xasprintf("%s/", rel);
	const char *sl = strrchr(rel, '/');
	g = sl ? xstrndup(rel, (size_t)(sl - rel + 1)) : xstrdup(rel);
	return g;
}

struct group {
	char *grant, *shown; /* raw (NULL: none can open it), and for the line */
	const char *glob;    /* the outputs glob declaring one of its writes */
	const char *had;     /* the task's own grant that holds it already */
	cJSON *writes;       /* references to f->inside's entries */
	bool bin;
};

/* one hint record: the fields of the record it answers (if any), its fix
 * (owned) and its line (owned, freed); 1, to count it */
static size_t put_hint(const cJSON *from, char *line, cJSON *fix)
{
	static const char *const keep[] = {"op", "access", "path", "path_hex", "resolved",
		"resolved_hex", "errno"};
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "hint");
	for (size_t i = 0; from && i < sizeof(keep) / sizeof(*keep); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, keep[i]);
		if (v)
			cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
	}
	if (fix)
		cJSON_AddItemToObject(o, "fix", fix);
	cJSON_AddStringToObject(o, "line", line);
	jsonl_write(o);
	cJSON_Delete(o);
	free(line);
	return 1;
}

static bool is_dir_write(const cJSON *rec)
{
	const char *op = str(rec, "op"), *res = str(rec, "resolved");
	struct stat st;
	if (op && (!strcmp(op, "mkdir") || !strcmp(op, "mkdirat")))
		return true;
	return res && lstat(res, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The writes grouped by grant, a grant inside another one folded into it. */
static struct group *group_writes(const cJSON *inside, const cJSON *task, size_t *n)
{
	struct group *gs = xcalloc((size_t)cJSON_GetArraySize(inside) + 1, sizeof(*gs));
	const cJSON *w;
	*n = 0;
	cJSON_ArrayForEach(w, inside) {
		const char *rel = str(w, "rel"), *shown = str(w, "shown"), *glob = NULL;
		const cJSON *rec = cJSON_GetObjectItemCaseSensitive(w, "rec");
		bool bin = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "bin"));
		bool dir = is_dir_write(rec);
		char *home = NULL, *g, *gs_shown;
		const char *had = granted(task, rel);
		if (!bin)
			glob = declared(task, rel, &home);
		if (had) {
			free(home);
			home = NULL;
			g = NULL;
			gs_shown = NULL;
		} else if (home) {
			g = xasprintf("%s/", home);
			gs_shown = xstrdup(g);
		} else {
			g = grant_for(rel, dir);
			gs_shown = grant_for(shown, dir);
		}
		free(home);
		size_t i;
		for (i = 0; i < *n; i++)
			if ((!g && !gs[i].grant && !strcmp(gs_shown ? gs_shown : shown, gs[i].shown)) ||
				(g && gs[i].grant && (!strcmp(g, gs[i].grant) ||
				(gs[i].grant[strlen(gs[i].grant) - 1] == '/' && holds(gs[i].grant, rel)))))
				break;
		if (i == *n) {
			gs[i].grant = g;
			gs[i].shown = g ? gs_shown : xstrdup(shown);
			if (!g)
				free(gs_shown);
			gs[i].writes = cJSON_CreateArray();
			gs[i].bin = bin;
			gs[i].had = had;
			(*n)++;
		} else {
			free(g);
			free(gs_shown);
		}
		if (!gs[i].glob)
			gs[i].glob = glob;
		cJSON_AddItemReferenceToArray(gs[i].writes, (cJSON *)w);
	}
	/* dist/assets/ asked before dist/: one grant, dist/ */
	for (size_t i = 0; i < *n; i++) {
		size_t len = gs[i].grant ? strlen(gs[i].grant) : 0;
		if (!len || gs[i].grant[len - 1] != '/')
			continue;
		for (size_t j = 0; j < *n; j++) {
			if (j == i || !gs[j].grant || !holds(gs[i].grant, gs[j].grant))
				continue;
			/* the two in the earlier one's place, its writes first */
			size_t lo = j < i ? j : i, hi = j < i ? i : j;
			cJSON *e;
			while ((e = cJSON_DetachItemFromArray(gs[hi].writes, 0)))
				cJSON_AddItemToArray(gs[lo].writes, e);
			cJSON_Delete(gs[hi].writes);
			if (!gs[lo].glob)
				gs[lo].glob = gs[hi].glob;
			gs[lo].bin |= gs[hi].bin;
			free(gs[j].grant);
			free(gs[j].shown);
			gs[lo].grant = gs[i].grant;
			gs[lo].shown = gs[i].shown;
			memmove(&gs[hi], &gs[hi + 1], (*n - hi - 1) * sizeof(*gs));
			(*n)--;
			i = lo;
			j = (size_t)-1; /* the merged one may hold others before it */
		}
	}
	return gs;
}

size_t fixes_put_inside(struct fixes *f, const char *id, const cJSON *task)
{
	size_t n, nhint = 0, nroot = 0;
	struct group *gs = group_writes(f->inside, task, &n);
	char *roots = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		const cJSON *first = cJSON_GetArrayItem(gs[i].writes, 0);
		const cJSON *rec = cJSON_GetObjectItemCaseSensitive(first, "rec");
		int more = cJSON_GetArraySize(gs[i].writes) - 1;
		char *what = more ? xasprintf("'%s' and %d more path%s under '%s'", str(first, "shown"),
			more, more == 1 ? "" : "s", gs[i].shown) : xasprintf("'%s'", str(first, "shown"));
		char *note = gs[i].glob ? xasprintf(" (already a declared output: "
			"cache.outputs.files '%s')", gs[i].glob) : xstrdup("");
		char *line;
		if (gs[i].grant) {
			line = xasprintf("vx: %s wrote %s in its project, where no write grant reaches "
				"(%s: %s); fix: allow.write: ['%s']%s", id, what, str(rec, "op"),
				str(rec, "errno"), gs[i].shown, note);
			if (!gs[i].bin)
				fixes_write(f, gs[i].grant);
			if (!strchr(gs[i].grant, '/')) {
				char *t = xasprintf("%s%s'%s'", roots, nroot ? ", " : "", gs[i].shown);
				free(roots);
				roots = t;
				nroot++;
			}
		} else if (gs[i].had) {
			line = xasprintf("vx: %s wrote %s in its project, under its write grant '%s', "
				"which keeps it read-only (%s: %s): a shell or tool config, or a guard "
				"(vx-sandbox(1)); no grant can open it; fix: have the tool write elsewhere",
				id, what, gs[i].had, str(rec, "op"), str(rec, "errno"));
		} else {
			line = xasprintf("vx: %s wrote %s in its project, where no write grant reaches "
				"(%s: %s); no grant can open it (.git and .vx stay read-only); fix: have "
				"the tool write elsewhere", id, what, str(rec, "op"), str(rec, "errno"));
		}
		nhint += put_hint(rec, line, NULL);
		free(note);
		free(what);
		free(gs[i].grant);
		free(gs[i].shown);
		cJSON_Delete(gs[i].writes);
	}
	if (nroot > 1) {
		/* never a silent './': it would open the sources too */
		char *line = xasprintf("vx: %s wrote %zu files at its project's root (%s): each is "
			"granted by name, since allow.write: ['./'] would open the whole project to the "
			"task, its sources too", id, nroot, roots);
		nhint += put_hint(NULL, line, NULL);
	}
	free(roots);
	free(gs);
	return nhint;
}

/* list (made when absent) with each of add not already held by one of its
 * entries (an equal one, or for writes a directory holding it). */
static void merge(cJSON *obj, const char *key, const cJSON *add, bool nest)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, key);
	const cJSON *a, *e;
	if (!add)
		return;
	if (!list)
		list = cJSON_AddArrayToObject(obj, key);
	if (!cJSON_IsArray(list))
		return;
	cJSON_ArrayForEach(a, add) {
		bool held = false;
		char *ba = bare(a->valuestring);
		cJSON_ArrayForEach(e, list) {
			const char *s = cJSON_GetStringValue(e);
			char *be = s ? bare(s) : NULL;
			held |= be && (!strcmp(be, ba) || (nest && s[strlen(s) - 1] == '/' &&
				holds(s, a->valuestring)));
			free(be);
		}
		/* a later grant may hold this one (dist/ after dist/assets/) */
		cJSON_ArrayForEach(e, add)
			held |= nest && e != a && e->valuestring[strlen(e->valuestring) - 1] == '/' &&
				strcmp(e->valuestring, a->valuestring) && holds(e->valuestring, a->valuestring);
		free(ba);
		if (!held)
			cJSON_AddItemToArray(list, cJSON_CreateString(a->valuestring));
	}
}

size_t fixes_put_end(struct fixes *f, const char *id, const cJSON *task, int exit_code,
	bool failed)
{
	size_t nhint = 0;
	if (failed && (f->grants || f->keys)) {
		const cJSON *sb = cJSON_GetObjectItemCaseSensitive(task, "sandbox");
		cJSON *patch = cJSON_CreateObject();
		cJSON *mine = cJSON_IsObject(sb) ? cJSON_Duplicate(sb, 1) : cJSON_CreateObject();
		cJSON *allow = cJSON_GetObjectItemCaseSensitive(mine, "allow");
		if (!cJSON_IsObject(allow)) {
			cJSON_DeleteItemFromObjectCaseSensitive(mine, "allow");
			allow = cJSON_AddObjectToObject(mine, "allow");
		}
		/* each allow grant named, merged as its row of grantkind.h says */
		for (size_t i = 0; i < ngrantkinds; i++)
			if (!strcmp(grantkinds[i].section, "allow") && grantkinds[i].merge != GRANT_MERGE_NONE)
				merge(allow, grantkinds[i].name, cJSON_GetObjectItemCaseSensitive(f->grants,
					grantkinds[i].name), grantkinds[i].merge == GRANT_MERGE_NEST);
		cJSON_AddItemToObject(cJSON_AddObjectToObject(patch, "exec"), "sandbox", mine);
		if (f->keys) {
			const cJSON *had = cJSON_GetObjectItemCaseSensitive(
				at(task, "cache", "inputs"), "workspaceFiles");
			cJSON *inputs = cJSON_AddObjectToObject(
				cJSON_AddObjectToObject(patch, "cache"), "inputs");
			cJSON_AddItemToObject(inputs, "workspaceFiles",
				cJSON_IsArray(had) ? cJSON_Duplicate(had, 1) : cJSON_CreateArray());
			merge(inputs, "workspaceFiles", f->keys, false);
		}
		char *json = cJSON_PrintUnformatted(patch);
		const char *name = str(task, "name"), *config = str(task, "config");
		char *where = name && config ? xasprintf("tasks.%s of %s", name, config) :
			xstrdup("the task's entry in its vx.json");
		char *line = xasprintf("vx: %s: every grant above with the task's own, to merge into "
			"%s (objects merge, lists replace): %s", id, where, json);
		nhint += put_hint(NULL, line, patch);
		free(where);
		cJSON_free(json);
	}
	if (exit_code != 0 && f->wrote) {
		/* the tracer answers EROFS and most tools stop there: each run
		 * would show one more denied write */
		char *line = xasprintf("vx: %s exited %d after a denied write: a tool stops at its "
			"first, so another run would show only the next; fix: vx init --sandbox %s "
			"learns every access in one run", id, exit_code, id);
		nhint += put_hint(NULL, line, NULL);
	}
	return nhint;
}

void fixes_free(struct fixes *f)
{
	cJSON_Delete(f->grants);
	cJSON_Delete(f->keys);
	cJSON_Delete(f->inside);
	memset(f, 0, sizeof(*f));
}
