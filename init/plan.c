#include "plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "notes.h"
#include "taskenv.h"
#include "path.h"

/* v when it is an array (and ok), else NULL: what cJSON_ArrayForEach walks */
static const cJSON *as_array(const cJSON *v, bool ok)
{
	return ok && cJSON_IsArray(v) ? v : NULL;
}

/* Task keys of turbo.json and why each one vx does not carry is left. */
static const struct {
	const char *key;
	const char *why; /* NULL: carried */
} task_keys[] = {
	{"dependsOn", NULL},
	{"inputs", NULL},
	{"outputs", NULL},
	{"env", NULL},
	{"passThroughEnv", NULL},
	{"cache", NULL},
	{"persistent", NULL},
	{"dotEnv", NULL},
	{"runtime", NULL},
	{"outputLogs", "how much of a task's output to show is a run-wide choice in vx"},
	{"outputMode", "how much of a task's output to show is a run-wide choice in vx"},
	{"interactive", "vx gives a task no terminal input"},
	{"interruptible", "vx has no restartable persistent tasks"},
	{"with", "vx has no sibling tasks; run both tasks by name"},
	{"description", "vx.json has no descriptions; it may hold a // comment"},
};

struct pctx {
	struct workspace *ws;
	const struct turbo *t;
	const char *pm;   /* the package manager that runs scripts */
	cJSON **scripts;  /* per project: its package.json "scripts", or NULL */
	cJSON **pkgjson;
	struct plan *pl;
	bool ok;
};

static void add_comment(struct otask *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_comment(struct otask *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		err_die(VX_EXIT_FAIL, "out of memory");
	va_end(ap);
	o->comments = xrealloc(o->comments, (o->ncomments + 1) * sizeof(char *));
	o->comments[o->ncomments++] = s;
}

static const char *package_manager(int rootfd, const cJSON *rootpkg)
{
	const cJSON *pm = cJSON_GetObjectItemCaseSensitive(rootpkg, "packageManager");
	if (cJSON_IsString(pm)) {
		static const char *const known[] = {"pnpm", "yarn", "bun", "npm"};
		for (size_t i = 0; i < 4; i++)
			if (strncmp(pm->valuestring, known[i], strlen(known[i])) == 0 &&
				pm->valuestring[strlen(known[i])] == '@')
				return known[i];
	}
	if (faccessat(rootfd, "pnpm-workspace.yaml", F_OK, 0) == 0 ||
		faccessat(rootfd, "pnpm-lock.yaml", F_OK, 0) == 0)
		return "pnpm";
	if (faccessat(rootfd, "yarn.lock", F_OK, 0) == 0)
		return "yarn";
	if (faccessat(rootfd, "bun.lock", F_OK, 0) == 0 || faccessat(rootfd, "bun.lockb", F_OK, 0) == 0)
		return "bun";
	return "npm";
}

static struct otask *find(const struct oproj *op, const char *name)
{
	for (size_t i = 0; i < op->ntasks; i++)
		if (strcmp(op->tasks[i]->name, name) == 0)
			return op->tasks[i];
	return NULL;
}

/* An array of strings under key of def, or NULL; a wrong type is an error. */
static const cJSON *strings(struct pctx *c, const struct otask *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o->def, key);
	if (!v)
		return NULL;
	bool good = cJSON_IsArray(v);
	const cJSON *e;
	cJSON_ArrayForEach(e, as_array(v, good)) good &= cJSON_IsString(e);
	if (!good) {
		err_warn("%s: tasks.%s.%s: expected an array of strings; fix: write a list, like "
			 "[\"...\"]",
			o->from, o->name, key);
		c->ok = false;
		return NULL;
	}
	return v;
}

static struct project *root_project(struct workspace *ws)
{
	for (size_t i = 0; i < ws->nprojects; i++)
		if (strcmp(ws->projects[i]->dir, ".") == 0)
			return ws->projects[i];
	return NULL;
}

/* The task a dependsOn spelling other than ^name names: its project via
 * *proj (NULL when there is no such project), the task or NULL. */
static struct otask *target(struct pctx *c, struct project *p, const char *s,
	struct project **proj, const char **name)
{
	const char *hash = strrchr(s, '#');
	*proj = p;
	*name = s;
	if (hash) {
		char *pname = xstrndup(s, (size_t)(hash - s));
		*proj = strcmp(pname, "//") == 0 ? root_project(c->ws) : strmap_get(&c->ws->by_name, pname);
		free(pname);
		*name = hash + 1;
	}
	return *proj ? find(&c->pl->projs[(*proj)->index], *name) : NULL;
}

static bool env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
			    (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static void add_str(cJSON **arr, const char *s)
{
	if (!*arr)
		*arr = cJSON_CreateArray();
	const cJSON *e;
	cJSON_ArrayForEach(e, *arr) if (strcmp(e->valuestring, s) == 0) return;
	cJSON_AddItemToArray(*arr, cJSON_CreateString(s));
}

/* A no-op task with nothing to wait for is no task at all. */
static bool has_deps(const struct otask *o)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(o->def, "dependsOn");
	return cJSON_GetArraySize(d) > 0;
}

/* Mark what a task that runs reaches through dependsOn, so that a no-op
 * task on the way becomes a group. */
static void reach(struct pctx *c, struct project *p, struct otask *o)
{
	const cJSON *deps = cJSON_GetObjectItemCaseSensitive(o->def, "dependsOn");
	const cJSON *e;
	cJSON_ArrayForEach(e, as_array(deps, true)) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '$')
			continue;
		const char *s = e->valuestring;
		if (s[0] == '^') {
			for (size_t i = 0; i < p->ndeps; i++) {
				struct otask *d = find(&c->pl->projs[p->deps[i]->index], s + 1);
				if (d && !d->runs && !d->reached && has_deps(d)) {
					d->reached = true;
					reach(c, p->deps[i], d);
				}
			}
			continue;
		}
		struct project *tp;
		const char *name;
		struct otask *d = target(c, p, s, &tp, &name);
		if (d && !d->runs && !d->reached && has_deps(d)) {
			d->reached = true;
			reach(c, tp, d);
		}
	}
}

/* An input glob of project p: into files, or workspaceFiles when it leaves
 * the project (turbo's "../x" and "$TURBO_ROOT$/x"). */
static void add_input(struct otask *o, const struct project *p, const char *g, const char *key)
{
	bool neg = g[0] == '!';
	const char *body = neg ? g + 1 : g;
	char *ws = NULL;
	if (strncmp(body, "$TURBO_ROOT$/", 13) == 0) {
		ws = path_normalize(body + 13);
	} else if (body[0] == '/' || body[0] == '$') {
		note(o->from, key, "'%s': write it relative to the package or to $TURBO_ROOT$", g);
		return;
	} else {
		char *n = path_normalize(body);
		if (strncmp(n, "..", 2) == 0 && (n[2] == '/' || !n[2]))
			ws = path_join(p->dir, n);
		free(n);
	}
	if (!ws) {
		add_str(&o->files, g);
		return;
	}
	if (strncmp(ws, "..", 2) == 0 && (ws[2] == '/' || !ws[2])) {
		note(o->from, key, "'%s' leaves the workspace", g);
	} else {
		char *w = neg ? xasprintf("!%s", ws) : xstrdup(ws);
		add_str(&o->wfiles, w);
		free(w);
	}
	free(ws);
}

static void map_cache(struct pctx *c, struct project *p, struct otask *o)
{
	const struct turbo *t = c->t;
	char key[512];
	const cJSON *e;
	const char *sect = t->sect	       ? t->sect
			   : t->v1 && strcmp(o->from, "turbo.json") == 0 ? "pipeline"
									 : "tasks";

	snprintf(key, sizeof(key), "%s.%s.inputs", sect, o->name);
	const cJSON *inputs = strings(c, o, "inputs");
	if (inputs) {
		bool dflt = false;
		cJSON_ArrayForEach(e, inputs) {
			if (strcmp(e->valuestring, "$TURBO_DEFAULT$") == 0)
				dflt = true;
			else
				add_input(o, p, e->valuestring, key);
		}
		/* the default is every file of the package, as vx's own default; put first
		 * so a later "!x" takes files away from it */
		if (dflt) {
			cJSON *all = cJSON_CreateArray();
			cJSON_AddItemToArray(all, cJSON_CreateString("**/*"));
			cJSON_ArrayForEach(e, o->files) cJSON_AddItemToArray(all, cJSON_Duplicate(e, 0));
			cJSON_Delete(o->files);
			o->files = all;
		} else if (!o->files) {
			o->files = cJSON_CreateArray();
		}
	}
	const cJSON *dot = strings(c, o, "dotEnv");
	snprintf(key, sizeof(key), "%s.%s.dotEnv", sect, o->name);
	cJSON_ArrayForEach(e, dot) if (o->files) add_input(o, p, e->valuestring, key);

	/* globalDependencies and globalDotEnv are root-relative */
	static const char *const globals[] = {"globalDependencies", "globalDotEnv"};
	for (size_t g = 0; g < 2; g++) {
		const cJSON *gd = cJSON_GetObjectItemCaseSensitive(t->root, globals[g]);
		cJSON_ArrayForEach(e, as_array(gd, true)) {
			if (!cJSON_IsString(e))
				continue;
			const char *s = e->valuestring;
			bool neg = s[0] == '!';
			char *n = path_normalize(neg ? s + 1 : s);
			if (n[0] == '/' || strncmp(n, "..", 2) == 0) {
				note("turbo.json", globals[g], "'%s' leaves the workspace", s);
			} else {
				char *w = neg ? xasprintf("!%s", n) : xstrdup(n);
				add_str(&o->wfiles, w);
				free(w);
			}
			free(n);
		}
	}

	/* turbo's env lists, patterns and '!' included (R-8a, taskenv.h) */
	const cJSON *genv = cJSON_GetObjectItemCaseSensitive(t->root, "globalEnv");
	const cJSON *lists[] = {cJSON_IsArray(genv) ? genv : NULL, strings(c, o, "env"),
		strings(c, o, "passThroughEnv")};
	for (size_t l = 0; l < 3; l++) {
		static const char *const what[] = {"globalEnv", "env", "passThroughEnv"};
		if (l == 0)
			snprintf(key, sizeof(key), "globalEnv");
		else
			snprintf(key, sizeof(key), "%s.%s.%s", sect, o->name, what[l]);
		cJSON_ArrayForEach(e, lists[l]) {
			if (!cJSON_IsString(e))
				continue;
			const char *s = e->valuestring[0] == '$' ? e->valuestring + 1 : e->valuestring;
			if (!taskenv_check(s))
				add_str(l == 2 ? &o->pass : &o->env, s);
			else
				note(l == 0 ? "turbo.json" : o->from, key,
					"'%s': not a variable name or pattern vx takes; list each one", e->valuestring);
		}
	}
	/* nx's { "runtime": "node -v" } inputs */
	const cJSON *rt = strings(c, o, "runtime");
	cJSON_ArrayForEach(e, rt) add_str(&o->runtime, e->valuestring);

	/* turbo v1's "$NAME" in dependsOn keyed a variable */
	const cJSON *deps = cJSON_GetObjectItemCaseSensitive(o->def, "dependsOn");
	cJSON_ArrayForEach(e, as_array(deps, true)) if (cJSON_IsString(e) &&
									 e->valuestring[0] == '$' &&
									 env_name(e->valuestring + 1))
		add_str(&o->env, e->valuestring + 1);

	snprintf(key, sizeof(key), "%s.%s.outputs", sect, o->name);
	const cJSON *outs = strings(c, o, "outputs");
	bool v1_default = !cJSON_GetObjectItemCaseSensitive(o->def, "outputs") && t->v1;
	if (v1_default) {
		add_str(&o->outputs, "dist/**");
		add_str(&o->outputs, "build/**");
		add_comment(o, "turbo 1.x: no outputs named, so dist/** and build/**, its default");
	}
	cJSON_ArrayForEach(e, outs) {
		const char *s = e->valuestring;
		const char *body = s[0] == '!' ? s + 1 : s;
		char *n = path_normalize(body);
		if (body[0] == '/' || body[0] == '$' || strncmp(n, "..", 2) == 0)
			note(o->from, key, "'%s': vx saves outputs inside the project only", s);
		else
			add_str(&o->outputs, s);
		free(n);
	}
}

/* The command: the script's text, run as turbo runs it. */
static void map_command(struct pctx *c, struct project *p, struct otask *o, const char *script)
{
	const cJSON *scripts = cJSON_GetObjectItemCaseSensitive(c->pkgjson[p->index], "scripts");
	const cJSON *real = cJSON_GetObjectItemCaseSensitive(scripts, o->name);
	if (!cJSON_IsString(real) || strcmp(real->valuestring, script) != 0) {
		/* an nx target's own command, not a package.json script */
		o->command = xstrdup(script);
		return;
	}
	char *pre = xasprintf("pre%s", o->name), *post = xasprintf("post%s", o->name);
	bool prepost = cJSON_GetObjectItemCaseSensitive(scripts, pre) ||
		       cJSON_GetObjectItemCaseSensitive(scripts, post);
	/* pnpm runs no pre/post scripts unless told to (enable-pre-post-scripts) */
	if (strcmp(c->pm, "pnpm") == 0)
		prepost = false;
	if (prepost) {
		o->command = xasprintf("%s run %s", c->pm, o->name);
		add_comment(o, "%s run, not the script's text: package.json has %s or %s, which %s "
			       "runs around it",
			c->pm, pre, post, c->pm);
	} else if (strstr(script, "npm_")) {
		o->command = xasprintf("%s run %s", c->pm, o->name);
		add_comment(o, "%s run, not the script's text: it reads npm_* variables, which only "
			       "a package manager sets",
			c->pm);
	} else {
		o->command = xstrdup(script);
	}
	free(pre);
	free(post);
}

static void map_task(struct pctx *c, struct project *p, struct otask *o)
{
	char key[512];
	const char *sect = c->t->sect ? c->t->sect
		: c->t->v1 && strcmp(o->from, "turbo.json") == 0 ? "pipeline"
								  : "tasks";
	const cJSON *e;
	cJSON_ArrayForEach(e, o->def) {
		size_t i;
		for (i = 0; i < sizeof(task_keys) / sizeof(*task_keys); i++)
			if (strcmp(task_keys[i].key, e->string) == 0)
				break;
		snprintf(key, sizeof(key), "%s.%s.%s", sect, o->name, e->string);
		if (i == sizeof(task_keys) / sizeof(*task_keys))
			note(o->from, key, "a key vx init does not know");
		else if (task_keys[i].why && o->runs && cJSON_IsString(e) &&
			 strncmp(e->string, "output", 6) == 0)
			note(o->from, key, "%s: vx run --output-logs %s", task_keys[i].why,
				e->valuestring);
		else if (task_keys[i].why && o->runs)
			note(o->from, key, "%s", task_keys[i].why);
	}

	const cJSON *deps = strings(c, o, "dependsOn");
	cJSON_ArrayForEach(e, deps) {
		const char *s = e->valuestring;
		if (s[0] == '$')
			continue; /* v1 env dependency: keyed in map_cache */
		if (s[0] == '^') {
			add_str(&o->depends, s);
			continue;
		}
		struct project *tp;
		const char *name;
		struct otask *d = target(c, p, s, &tp, &name);
		snprintf(key, sizeof(key), "%s.%s.dependsOn", sect, o->name);
		if (!tp) {
			note(o->from, key, "'%s' names no package of this workspace", s);
		} else if (!d) {
			note(o->from, key, "'%s' names no task turbo.json defines for %s", s, tp->name);
		} else if (d->runs || d->reached) {
			char *sp = strchr(s, '#') ? xasprintf("%s#%s", tp->name, name) : xstrdup(s);
			add_str(&o->depends, sp);
			free(sp);
		}
		/* else a no-op in turbo (no script, no dependsOn): nothing to wait for */
	}
	if (!o->runs) {
		o->group = true;
		add_comment(o, "%s: no \"%s\" command here, so a group: it keeps the order of its "
			       "dependsOn, and its key folds theirs but not this package's files",
			c->t->tool, o->name);
		return;
	}

	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o->def, "persistent");
	o->persistent = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(o->def, "cache");
	o->cached = !cJSON_IsFalse(v) && !o->persistent;
	if (o->cached)
		map_cache(c, p, o);
}

static cJSON *read_pkg(int rootfd, const struct project *p)
{
	char *file = strcmp(p->dir, ".") ? xasprintf("%s/package.json", p->dir) : xstrdup("package.json");
	char *text = fileio_read_at(rootfd, file, NULL);
	free(file);
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	free(text);
	return j;
}

/* turbo.json's envMode and globalPassThroughEnv, for the root vx.json. */
static void root_env(const struct turbo *t, struct oproj *op)
{
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(t->root, "envMode");
	if (cJSON_IsString(mode) && (strcmp(mode->valuestring, "strict") == 0 ||
					    strcmp(mode->valuestring, "loose") == 0))
		op->env_mode = mode->valuestring;
	else if (mode)
		note("turbo.json", "envMode", "not \"strict\" or \"loose\"; vx's default is strict");
	const cJSON *gp = cJSON_GetObjectItemCaseSensitive(t->root, "globalPassThroughEnv"), *e;
	cJSON_ArrayForEach(e, as_array(gp, true)) {
		if (!cJSON_IsString(e))
			continue;
		if (!taskenv_check(e->valuestring))
			add_str(&op->pass, e->valuestring);
		else
			note("turbo.json", "globalPassThroughEnv",
				"'%s': not a variable name or pattern vx takes; list each one", e->valuestring);
	}
}

bool plan_build(struct plan *pl, struct workspace *ws, const struct turbo *t, int rootfd)
{
	struct pctx c = {.ws = ws, .t = t, .pl = pl, .ok = true};
	pl->n = ws->nprojects;
	pl->projs = xcalloc(pl->n + 1, sizeof(*pl->projs));
	c.scripts = xcalloc(pl->n + 1, sizeof(*c.scripts));
	c.pkgjson = xcalloc(pl->n + 1, sizeof(*c.pkgjson));
	struct project *root = root_project(ws);
	for (size_t i = 0; i < pl->n; i++) {
		struct project *p = ws->projects[i];
		c.pkgjson[i] = read_pkg(rootfd, p);
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(c.pkgjson[i], "scripts");
		c.scripts[i] = t->scripts ? t->scripts[i] : cJSON_IsObject(s) ? (cJSON *)s : NULL;
	}
	c.pm = package_manager(rootfd, root ? c.pkgjson[root->index] : NULL);

	/* every task turbo.json defines for each project: runs (a script) or
	 * a candidate group */
	for (size_t i = 0; i < pl->n; i++) {
		struct project *p = ws->projects[i];
		struct oproj *op = &pl->projs[i];
		op->p = p;
		op->file = strcmp(p->dir, ".") ? xasprintf("%s/vx.json", p->dir) : xstrdup("vx.json");
		const char **names = turbo_names(t, ws, p);
		for (const char **n = names; *n; n++) {
			const char *from = NULL;
			cJSON *def = turbo_def(t, ws, p, *n, &from);
			if (!def)
				continue;
			/* vx-graph refuses these names: say so, write the rest */
			if (!**n || strchr(*n, '#') || **n == '^' || **n == '!' || strpbrk(*n, " \t\n\r")) {
				char *key = xasprintf("%s.%s", t->sect ? t->sect : "tasks", *n);
				note(from, key, "not a vx task name (no '#', spaces, or a leading '^' or '!'); "
						"rename the script");
				free(key);
				cJSON_Delete(def);
				continue;
			}
			struct otask *o = xcalloc(1, sizeof(*o));
			o->name = *n;
			o->def = def;
			o->from = from;
			const cJSON *sc = cJSON_GetObjectItemCaseSensitive(c.scripts[i], *n);
			o->runs = cJSON_IsString(sc);
			op->tasks = xrealloc(op->tasks, (op->ntasks + 1) * sizeof(*op->tasks));
			op->tasks[op->ntasks++] = o;
		}
		free(names);
	}
	for (size_t i = 0; i < pl->n; i++)
		for (size_t k = 0; k < pl->projs[i].ntasks; k++)
			if (pl->projs[i].tasks[k]->runs)
				reach(&c, ws->projects[i], pl->projs[i].tasks[k]);

	/* keep what runs or is reached; map it */
	for (size_t i = 0; i < pl->n; i++) {
		struct oproj *op = &pl->projs[i];
		struct project *p = ws->projects[i];
		for (size_t k = 0; k < op->ntasks; k++) {
			struct otask *o = op->tasks[k];
			if (!o->runs && !o->reached)
				continue;
			if (o->runs)
				map_command(&c, p, o,
					cJSON_GetObjectItemCaseSensitive(c.scripts[i], o->name)->valuestring);
			map_task(&c, p, o);
			bool seen = false;
			for (size_t s = 0; s < op->nsources; s++)
				seen |= strcmp(op->sources[s], o->from) == 0;
			if (!seen) {
				op->sources = xrealloc(op->sources, (op->nsources + 1) * sizeof(char *));
				op->sources[op->nsources++] = xstrdup(o->from);
			}
		}
		size_t kept = 0;
		for (size_t k = 0; k < op->ntasks; k++) {
			struct otask *o = op->tasks[k];
			if (o->runs || o->reached) {
				op->tasks[kept++] = o;
			} else {
				cJSON_Delete(o->def);
				free(o);
			}
		}
		op->ntasks = kept;
	}
	if (root)
		root_env(t, &pl->projs[root->index]);
	for (size_t i = 0; i < pl->n; i++)
		cJSON_Delete(c.pkgjson[i]);
	free(c.pkgjson);
	free(c.scripts);
	return c.ok;
}
