#include "nx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "notes.h"
#include "path.h"

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const cJSON *as_array(const cJSON *v)
{
	return cJSON_IsArray(v) ? v : NULL;
}

static const cJSON *as_object(const cJSON *v)
{
	return cJSON_IsObject(v) ? v : NULL;
}

static void push(cJSON *arr, const char *s)
{
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

struct nctx {
	struct workspace *ws;
	const cJSON *nx;       /* nx.json */
	const cJSON *named;    /* the project's namedInputs over nx.json's */
	const cJSON *pnamed;
	const struct project *p;
	const char *file;      /* the file a note names */
	const char *target;
	const cJSON *options;  /* the target's options, for {options.x} */
};

/* Does a glob use minimatch's extended forms, which vx's globs do not read? */
static bool extglob(const char *g)
{
	return strstr(g, "?(") || strstr(g, "+(") || strstr(g, "*(") || strstr(g, "@(") ||
	       strstr(g, "!(");
}

/* {projectRoot}/x -> x, {workspaceRoot}/x -> $TURBO_ROOT$/x (the planner
 * makes that a workspace file, or refuses it as an output), a bare glob as
 * the project's. NULL when it names nothing vx can key. */
static char *fileset(struct nctx *c, const char *s, const char *key)
{
	bool neg = s[0] == '!';
	const char *b = neg ? s + 1 : s;
	char *out = NULL;
	if (extglob(b)) {
		note(c->file, key, "'%s': an extended glob, which vx's globs do not read", s);
		return NULL;
	}
	if (strncmp(b, "{projectRoot}", 13) == 0)
		out = xstrdup(b[13] == '/' ? b + 14 : "**/*");
	else if (strncmp(b, "{workspaceRoot}/", 16) == 0)
		out = xasprintf("$TURBO_ROOT$/%s", b + 16);
	else if (b[0] != '{')
		out = xstrdup(b);
	if (!out) {
		note(c->file, key, "'%s': a placeholder vx init does not know", s);
		return NULL;
	}
	char *r = neg ? xasprintf("!%s", out) : xstrdup(out);
	free(out);
	return r;
}

static void expand(struct nctx *c, const cJSON *list, cJSON *def, const char *key, int depth)
{
	const cJSON *e;
	cJSON *inputs = (cJSON *)get(def, "inputs");
	cJSON_ArrayForEach(e, as_array(list)) {
		if (cJSON_IsString(e)) {
			const char *s = e->valuestring;
			const cJSON *named = get(c->pnamed, s) ? get(c->pnamed, s) : get(c->named, s);
			if (s[0] == '^') {
				note(c->file, key, "'%s': vx keys a dependency by its tasks' keys "
						  "(dependsOn), not by its files", s);
			} else if (named && depth < 16) {
				expand(c, named, def, key, depth + 1);
			} else {
				char *f = fileset(c, s, key);
				if (f)
					push(inputs, f);
				free(f);
			}
			continue;
		}
		const cJSON *v;
		if (cJSON_IsString(v = get(e, "fileset"))) {
			char *f = fileset(c, v->valuestring, key);
			if (f)
				push(inputs, f);
			free(f);
		} else if (cJSON_IsString(v = get(e, "env"))) {
			push((cJSON *)get(def, "env"), v->valuestring);
		} else if (cJSON_IsString(v = get(e, "runtime"))) {
			push((cJSON *)get(def, "runtime"), v->valuestring);
		} else {
			char *txt = cJSON_PrintUnformatted(e);
			note(c->file, key, "%s: vx keys files, env and runtime inputs only", txt);
			free(txt);
		}
	}
}

/* {options.a.b} -> the option's value */
static const char *option(struct nctx *c, const char *s, size_t len)
{
	char *path = xstrndup(s, len);
	const cJSON *v = c->options;
	for (char *tok = strtok(path, "."); tok && v; tok = strtok(NULL, "."))
		v = get(v, tok);
	free(path);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void outputs(struct nctx *c, const cJSON *list, cJSON *out, const char *key)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, as_array(list)) {
		if (!cJSON_IsString(e))
			continue;
		const char *s = e->valuestring;
		char *ws = NULL, *rel = NULL;
		if (strncmp(s, "{options.", 9) == 0 && strchr(s, '}')) {
			const char *v = option(c, s + 9, (size_t)(strchr(s, '}') - s - 9));
			if (v)
				ws = xasprintf("%s%s", v, strchr(s, '}') + 1);
		} else if (strncmp(s, "{workspaceRoot}/", 16) == 0) {
			ws = xstrdup(s + 16);
		} else if (strncmp(s, "{projectRoot}/", 14) == 0) {
			rel = xstrdup(s + 14);
		}
		if (ws) {
			/* {projectRoot} inside a workspace path, as in dist/{projectRoot} */
			char *pr = strstr(ws, "{projectRoot}");
			if (pr) {
				char *w2 = xasprintf("%.*s%s%s", (int)(pr - ws), ws, c->p->dir, pr + 13);
				free(ws);
				ws = w2;
			}
			char *n = path_normalize(ws);
			size_t dl = strlen(c->p->dir);
			if (strcmp(c->p->dir, ".") == 0)
				rel = xstrdup(n);
			else if (strncmp(n, c->p->dir, dl) == 0 && n[dl] == '/')
				rel = xstrdup(n + dl + 1);
			free(n);
		}
		if (!rel) {
			note(c->file, key, "'%s': vx saves outputs inside the project only", s);
			free(ws);
			continue;
		}
		/* Nx names a directory or a file; a vx output is a glob */
		const char *last = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
		if (!strpbrk(last, "*?[.")) {
			char *g = xasprintf("%s/**", rel);
			push(out, g);
			free(g);
		} else {
			push(out, rel);
		}
		free(rel);
		free(ws);
	}
}

/* Lay src's keys over dst (a new object when dst is NULL). */
static cJSON *overlay(cJSON *dst, const cJSON *src)
{
	if (!dst)
		dst = cJSON_CreateObject();
	const cJSON *e;
	cJSON_ArrayForEach(e, as_object(src)) {
		cJSON *v = cJSON_Duplicate(e, 1);
		if (get(dst, e->string))
			cJSON_ReplaceItemInObjectCaseSensitive(dst, e->string, v);
		else
			cJSON_AddItemToObject(dst, e->string, v);
	}
	return dst;
}

static const char *nx_name_to_vx(struct nctx *c, const char *name, cJSON **pjs)
{
	for (size_t i = 0; i < c->ws->nprojects; i++) {
		const cJSON *n = get(pjs[i], "name");
		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return c->ws->projects[i]->name;
	}
	return strmap_get(&c->ws->by_name, name) ? name : NULL;
}

static void depends(struct nctx *c, const cJSON *list, cJSON *def, cJSON **pjs, const char *key)
{
	cJSON *deps = cJSON_AddArrayToObject(def, "dependsOn");
	const cJSON *e;
	cJSON_ArrayForEach(e, as_array(list)) {
		if (cJSON_IsString(e)) {
			push(deps, e->valuestring);
			continue;
		}
		const cJSON *t = get(e, "target"), *pr = get(e, "projects");
		if (!cJSON_IsString(t)) {
			note(c->file, key, "an entry without a target");
			continue;
		}
		if (cJSON_IsTrue(get(e, "dependencies")) ||
			(cJSON_IsString(pr) && strcmp(pr->valuestring, "dependencies") == 0)) {
			char *s = xasprintf("^%s", t->valuestring);
			push(deps, s);
			free(s);
		} else if (cJSON_IsArray(pr) || (cJSON_IsString(pr) && strcmp(pr->valuestring, "self"))) {
			const cJSON *x;
			cJSON *one = cJSON_IsString(pr) ? cJSON_CreateStringArray((const char *const *)&pr->valuestring, 1) : NULL;
			const cJSON *names = one ? one : pr;
			cJSON_ArrayForEach(x, names) {
				const char *vx = cJSON_IsString(x) ? nx_name_to_vx(c, x->valuestring, pjs) : NULL;
				if (!vx) {
					note(c->file, key, "'%s': no project of that name (a pattern or tag?)",
						cJSON_IsString(x) ? x->valuestring : "?");
					continue;
				}
				char *s = xasprintf("%s#%s", vx, t->valuestring);
				push(deps, s);
				free(s);
			}
			cJSON_Delete(one);
		} else {
			push(deps, t->valuestring);
		}
	}
}

/* The shell command of target cfg, NULL (after a note) when it has none vx
 * can run. */
static char *command(struct nctx *c, const cJSON *cfg, const cJSON *scripts, const char *key)
{
	const cJSON *ex = get(cfg, "executor"), *opt = get(cfg, "options");
	const char *exe = cJSON_IsString(ex) ? ex->valuestring : NULL;
	const cJSON *cmd = get(cfg, "command");
	if (cJSON_IsString(cmd) || (exe && strcmp(exe, "nx:run-commands") == 0)) {
		char *line = NULL;
		if (cJSON_IsString(cmd) || cJSON_IsString(get(opt, "command"))) {
			line = xstrdup(cJSON_IsString(cmd) ? cmd->valuestring : get(opt, "command")->valuestring);
		} else {
			const cJSON *e;
			int n = 0;
			cJSON_ArrayForEach(e, as_array(get(opt, "commands"))) {
				n++;
				const cJSON *s = cJSON_IsString(e) ? e : get(e, "command");
				if (!cJSON_IsString(s))
					continue;
				char *l = line ? xasprintf("%s && %s", line, s->valuestring) : xstrdup(s->valuestring);
				free(line);
				line = l;
			}
			if (n > 1 && !cJSON_IsFalse(get(opt, "parallel")))
				note(c->file, key, "commands run one after another, where Nx runs them in parallel");
		}
		if (!line) {
			note(c->file, key, "nx:run-commands with no command");
			return NULL;
		}
		/* Nx runs these from the workspace root, or from options.cwd */
		const cJSON *cwd = get(opt, "cwd");
		char *dir = path_join(c->ws->root, cJSON_IsString(cwd) ? cwd->valuestring : ".");
		char *rel = path_relative(c->p->abs, dir);
		char *full = strcmp(rel, ".") ? xasprintf("cd %s && %s", rel, line) : xstrdup(line);
		free(dir);
		free(rel);
		free(line);
		return full;
	}
	if (exe && strcmp(exe, "nx:run-script") == 0) {
		const cJSON *sn = get(opt, "script");
		const cJSON *s = cJSON_IsString(sn) ? get(scripts, sn->valuestring) : NULL;
		if (cJSON_IsString(s))
			return xstrdup(s->valuestring);
		note(c->file, key, "nx:run-script names no script of package.json");
		return NULL;
	}
	if (exe) {
		note(c->file, key, "executor '%s': vx runs shell commands; write the one it runs", exe);
		return NULL;
	}
	const cJSON *s = get(scripts, c->target);
	if (cJSON_IsString(s))
		return xstrdup(s->valuestring);
	note(c->file, key, "no command or executor here (a plugin in nx.json infers it?)");
	return NULL;
}

bool nx_load(struct turbo *t, struct workspace *ws, int rootfd)
{
	bool bad;
	turbo_free(t);
	t->root = turbo_read_json(rootfd, "nx.json", &bad);
	if (!t->root)
		return !bad;
	t->sect = "targets";
	t->tool = "nx";
	t->n = ws->nprojects;
	t->pkg = xcalloc(ws->nprojects + 1, sizeof(*t->pkg));
	t->pkg_tasks = xcalloc(ws->nprojects + 1, sizeof(*t->pkg_tasks));
	t->pkg_file = xcalloc(ws->nprojects + 1, sizeof(*t->pkg_file));
	t->scripts = xcalloc(ws->nprojects + 1, sizeof(*t->scripts));
	cJSON **pjs = xcalloc(ws->nprojects + 1, sizeof(*pjs));
	cJSON **pkgs = xcalloc(ws->nprojects + 1, sizeof(*pkgs));
	bool ok = true;

	const cJSON *nx = t->root;
	if (get(nx, "plugins"))
		note("nx.json", "plugins", "the targets a plugin infers are in no file; see them with "
					   "nx show project NAME --json and add them to a vx.json");
	const cJSON *tdefs = get(nx, "targetDefaults");
	const cJSON *cacheable = get(get(get(get(nx, "tasksRunnerOptions"), "default"), "options"),
		"cacheableOperations");

	for (size_t i = 0; i < ws->nprojects; i++) {
		const struct project *p = ws->projects[i];
		bool root = strcmp(p->dir, ".") == 0;
		char *pj = root ? xstrdup("project.json") : xasprintf("%s/project.json", p->dir);
		char *pk = root ? xstrdup("package.json") : xasprintf("%s/package.json", p->dir);
		pjs[i] = turbo_read_json(rootfd, pj, &bad);
		ok &= !bad;
		pkgs[i] = turbo_read_json(rootfd, pk, &bad);
		ok &= !bad;
		t->pkg_file[i] = pjs[i] ? pj : pk;
		free(pjs[i] ? pk : pj);
	}
	if (!ok) {
		for (size_t i = 0; i < ws->nprojects; i++) {
			cJSON_Delete(pjs[i]);
			cJSON_Delete(pkgs[i]);
		}
		free(pjs);
		free(pkgs);
		return false;
	}

	for (size_t i = 0; i < ws->nprojects; i++) {
		const struct project *p = ws->projects[i];
		bool root = strcmp(p->dir, ".") == 0;
		const cJSON *scripts = get(pkgs[i], "scripts");
		const cJSON *pnx = get(pkgs[i], "nx");
		/* the root's scripts run nx itself: Nx makes no targets of them */
		if (root && !pjs[i])
			scripts = NULL;
		const cJSON *incl = get(pnx, "includedScripts");
		cJSON *names = cJSON_CreateObject(); /* name -> the project's own entry */
		const cJSON *e;
		cJSON_ArrayForEach(e, scripts) {
			bool in = !incl;
			const cJSON *x;
			cJSON_ArrayForEach(x, as_array(incl)) in |= cJSON_IsString(x) &&
								    strcmp(x->valuestring, e->string) == 0;
			if (in && !get(names, e->string))
				cJSON_AddItemToObject(names, e->string, cJSON_CreateObject());
		}
		const cJSON *srcs[] = {get(pnx, "targets"), get(pjs[i], "targets")};
		for (size_t s = 0; s < 2; s++)
			cJSON_ArrayForEach(e, as_object(srcs[s])) {
				cJSON *cur = (cJSON *)get(names, e->string);
				if (cur)
					overlay(cur, e);
				else
					cJSON_AddItemToObject(names, e->string, overlay(NULL, e));
			}
		if (get(pjs[i], "implicitDependencies"))
			note(t->pkg_file[i], "implicitDependencies",
				"vx's ^ dependencies are package.json's; add them there, or as project#task");

		cJSON *tasks = cJSON_CreateObject();
		cJSON *cmds = cJSON_CreateObject();
		cJSON *own;
		cJSON_ArrayForEach(own, names) {
			const char *name = own->string;
			const cJSON *ex = get(own, "executor");
			const cJSON *dflt = get(tdefs, name);
			if (!dflt && cJSON_IsString(ex))
				dflt = get(tdefs, ex->valuestring);
			cJSON *cfg = overlay(overlay(NULL, dflt), own);
			struct nctx c = {.ws = ws, .nx = nx, .named = get(nx, "namedInputs"),
				.pnamed = get(pjs[i], "namedInputs"), .p = p, .file = t->pkg_file[i],
				.target = name, .options = get(cfg, "options")};
			char key[512];
			snprintf(key, sizeof(key), "targets.%s", name);
			char *cmd = command(&c, cfg, scripts, key);
			cJSON *def = cJSON_CreateObject();
			snprintf(key, sizeof(key), "targets.%s.dependsOn", name);
			depends(&c, get(cfg, "dependsOn"), def, pjs, key);
			bool cache = cJSON_IsTrue(get(cfg, "cache"));
			const cJSON *x;
			cJSON_ArrayForEach(x, as_array(cacheable)) cache |= cJSON_IsString(x) &&
									  strcmp(x->valuestring, name) == 0;
			cJSON_AddBoolToObject(def, "cache", cache && !cJSON_IsFalse(get(cfg, "cache")));
			if (cJSON_IsTrue(get(cfg, "continuous")))
				cJSON_AddTrueToObject(def, "persistent");
			cJSON_AddArrayToObject(def, "env");
			cJSON_AddArrayToObject(def, "runtime");
			const cJSON *in = get(cfg, "inputs");
			snprintf(key, sizeof(key), "targets.%s.inputs", name);
			if (in) {
				cJSON_AddArrayToObject(def, "inputs");
				expand(&c, in, def, key, 0);
			} else if (get(c.named, "default") || get(c.pnamed, "default")) {
				/* Nx's default inputs: the named input "default" */
				cJSON_AddArrayToObject(def, "inputs");
				cJSON *dl = cJSON_CreateStringArray((const char *[]){"default"}, 1);
				expand(&c, dl, def, key, 0);
				cJSON_Delete(dl);
			}
			cJSON *outs = cJSON_AddArrayToObject(def, "outputs");
			snprintf(key, sizeof(key), "targets.%s.outputs", name);
			if (get(cfg, "outputs"))
				outputs(&c, get(cfg, "outputs"), outs, key);
			else if (cache) {
				/* Nx's default outputs, those inside the project */
				static const char *const d[] = {"{projectRoot}/dist", "{projectRoot}/build",
					"{projectRoot}/public"};
				cJSON *dl = cJSON_CreateStringArray(d, 3);
				outputs(&c, dl, outs, key);
				cJSON_Delete(dl);
			}
			if (cmd)
				cJSON_AddStringToObject(cmds, name, cmd);
			free(cmd);
			cJSON_AddItemToObject(tasks, name, def);
			cJSON_Delete(cfg);
		}
		cJSON_Delete(names);
		t->pkg_tasks[i] = tasks;
		t->scripts[i] = cmds;
	}
	for (size_t i = 0; i < ws->nprojects; i++) {
		cJSON_Delete(pjs[i]);
		cJSON_Delete(pkgs[i]);
	}
	free(pjs);
	free(pkgs);
	return true;
}
