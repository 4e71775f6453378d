/* request.c: the request file and the flags, into one struct sb_request. */
#include "request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "canonmemo.h"
#include "err.h"
#include "grantkind.h"
#include "path.h"
#include "taskreq.h"

void strlist_push(struct strlist *l, const char *s)
{
	XGROW(l->v, l->n + 1, l->cap);
	l->v[l->n++] = xstrdup(s);
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void request_free(struct sb_request *r)
{
	if (!r)
		return;
	free(r->task_id);
	free(r->records);
	free(r->root);
	free(r->project);
	for (size_t i = 0; i < r->nprojects; i++) {
		free(r->projects[i].name);
		free(r->projects[i].dir);
	}
	free(r->projects);
	strlist_free(&r->read);
	strlist_free(&r->write);
	strlist_free(&r->keyed);
	cJSON_Delete(r->env);
	free(r->proxy_socket);
	free(r->proxy_control);
	free(r->local_ports);
	free(r->command);
	free(r);
}

static const char *str_member(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A list of strings at o.key (absent is empty); -1 on a wrong type. */
static int str_array(const cJSON *o, const char *key, struct strlist *out)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *e;
	if (!a || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return -1;
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e))
			return -1;
		strlist_push(out, e->valuestring);
	}
	return 0;
}

static int bad(const char *file, const char *what)
{
	err_warn("%s: %s; fix: pass the graph record and the task record of "
		"'vx-graph' (docs/protocol.md)", file, what);
	return -1;
}

/* A member of the block (section "") or of one of its sections that no row
 * of grantkind.h names is refused, not skipped: a hand-written request's
 * misspelt grant (allow.wirte) would run the task without it, weaker than
 * vx run, whose vx-graph refuses it (issue 37). */
static int unknown_grant(const char *file, const cJSON *obj, const char *section)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, obj) {
		bool sect = !*section && (!strcmp(e->string, "allow") || !strcmp(e->string, "deny") ||
			!strcmp(e->string, "ignore"));
		if (sect || grantkind_find(section, e->string))
			continue;
		const struct grantkind *g = grantkind_guess(section, e->string);
		err_warn("%s: sandbox.%s%s%s is no grant of exec.sandbox (docs/grants.md); fix: %s%s",
			file, section, *section ? "." : "", e->string, g ? "write " : "remove it",
			g ? g->path : "");
		return -1;
	}
	return 0;
}

static int read_sandbox(struct sb_request *r, const char *file, const cJSON *sb)
{
	const cJSON *allow, *v;
	if (!cJSON_IsObject(sb))
		return bad(file, "the task record's 'sandbox' is not an object "
			"(a task without exec.sandbox is not run by vx-sandbox)");
	if (unknown_grant(file, sb, ""))
		return -1;
	static const char *const sections[] = {"allow", "deny", "ignore"};
	for (size_t i = 0; i < sizeof(sections) / sizeof(*sections); i++) {
		v = cJSON_GetObjectItemCaseSensitive(sb, sections[i]);
		if (cJSON_IsObject(v) && unknown_grant(file, v, sections[i]))
			return -1;
	}
	allow = cJSON_GetObjectItemCaseSensitive(sb, "allow");
	if (allow && !cJSON_IsObject(allow))
		return bad(file, "sandbox.allow is not an object");
	if (allow) {
		if (str_array(allow, "read", &r->read) || str_array(allow, "write", &r->write))
			return bad(file, "sandbox.allow.read/write must be lists of strings");
		v = cJSON_GetObjectItemCaseSensitive(allow, "unixSockets");
		/* true, or a non-empty path list (Linux cannot filter by path) */
		if (cJSON_IsTrue(v) || (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0))
			r->unix_sockets = true;
		v = cJSON_GetObjectItemCaseSensitive(allow, "localBinding");
		/* a port list is exposed on the host's loopback by the bridge */
		if (cJSON_IsArray(v)) {
			const cJSON *e;
			cJSON_ArrayForEach(e, v) {
				if (request_add_port(r, cJSON_IsNumber(e) ? e->valuedouble : 0, file))
					return -1;
			}
		}
		r->git_config = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(allow, "gitConfig"));
	}
	r->weaker_nested = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb, "weakerWhenNested"));
	return 0;
}

int request_add_port(struct sb_request *r, double port, const char *where)
{
	if (!(port >= 1 && port <= 65535 && port == (double)(unsigned)port)) {
		err_warn("%s: allow.localBinding: %g is not a port; fix: use a number from 1 to 65535",
			where, port);
		return -1;
	}
	for (size_t i = 0; i < r->nlocal_ports; i++)
		if (r->local_ports[i] == (unsigned)port)
			return 0;
	r->local_ports = xrealloc(r->local_ports, (r->nlocal_ports + 1) * sizeof(unsigned));
	r->local_ports[r->nlocal_ports++] = (unsigned)port;
	return 0;
}

struct sb_request *request_read(const char *file)
{
	struct sb_request *r = xcalloc(1, sizeof(*r));
	cJSON *graph = NULL, *task = NULL;
	const cJSON *projs, *p, *v;
	const char *s;
	char *graph_text = NULL;
	int ok = -1;

	if (taskreq_read_file_text(file, &graph, &task, &graph_text))
		goto out;
	/* vx-graph's stream for several tasks: the first would run and the
	 * rest be dropped without a word (issue 37); said, and nothing runs */
	const cJSON *ntasks = cJSON_GetObjectItemCaseSensitive(graph, "tasks");
	if (cJSON_IsNumber(ntasks) && ntasks->valuedouble > 1) {
		err_warn("%s: the request holds %.0f tasks (the graph record's \"tasks\") and "
			"vx-sandbox runs one; fix: pick it, as in vx-graph | vx-key | vx-pick TASK | "
			"vx-sandbox --request -, or run one vx-sandbox per task",
			strcmp(file, "-") ? file : "<stdin>", ntasks->valuedouble);
		goto out;
	}
	r->root = xstrdup(str_member(graph, "root"));
	projs = cJSON_GetObjectItemCaseSensitive(graph, "projects");
	r->projects = xcalloc((size_t)cJSON_GetArraySize(projs) + 1, sizeof(*r->projects));
	cJSON_ArrayForEach(p, projs) {
		const char *name = str_member(p, "name"), *dir = str_member(p, "dir");
		if (!name || !dir)
			continue;
		r->projects[r->nprojects].name = xstrdup(name);
		r->projects[r->nprojects].dir = path_join(r->root, dir);
		r->nprojects++;
	}
	r->task_id = xstrdup((s = str_member(task, "id")) ? s : "(unnamed task)");
	r->project = path_join(r->root, str_member(task, "dir"));
	if (!(s = str_member(task, "command"))) {
		bad(file, "the task record has no command (a group runs nothing)");
		goto out;
	}
	r->command = xstrdup(s);
	/* set by vx run for a task with a network grant (docs/protocol.md) */
	if ((s = str_member(task, "proxySocket")))
		r->proxy_socket = xstrdup(s);
	if ((s = str_member(task, "proxyControl")))
		r->proxy_control = xstrdup(s);
	v = cJSON_GetObjectItemCaseSensitive(task, "cache");
	r->cached = v && cJSON_IsObject(v);
	if (str_array(task, "keyed", &r->keyed)) {
		bad(file, "'keyed' is not a list of project names");
		goto out;
	}
	if (read_sandbox(r, file, cJSON_GetObjectItemCaseSensitive(task, "sandbox")))
		goto out;
	/* a relative project dir resolves against the graph's own projects;
	 * memoised, the projects' shared parents are resolved once: realpath
	 * per project was a readlink a component, every project, every task */
	struct canonmemo cm;
	canonmemo_init(&cm);
	for (size_t i = 0; i < r->nprojects; i++) {
		char *c = canonmemo_get(&cm, r->projects[i].dir);
		free(r->projects[i].dir);
		r->projects[i].dir = c;
	}
	canonmemo_free(&cm);
	/* the environment policy alone, in the task record's shape */
	r->env = cJSON_CreateObject();
	static const char *const envm[] = {"envMode", "passThroughEnv", "cache"};
	for (size_t i = 0; i < 3; i++)
		if ((v = cJSON_GetObjectItemCaseSensitive(task, envm[i])))
			cJSON_AddItemToObject(r->env, envm[i], cJSON_Duplicate(v, 1));
	/* what --trace - repeats ahead of the records, for vx-report: the
	 * graph record as read, not printed again (taskreq.h) */
	r->records = taskreq_format_read(graph_text, graph, task);
	ok = 0;
out:
	cJSON_Delete(graph);
	cJSON_Delete(task);
	free(graph_text);
	if (ok) {
		request_free(r);
		return NULL;
	}
	return r;
}

struct sb_request *request_from_flags(const char *root, const char *project)
{
	struct sb_request *r = xcalloc(1, sizeof(*r));
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "/");
	r->task_id = xstrdup("(command line)");
	r->project = path_join(cwd, project ? project : ".");
	r->root = root ? path_join(cwd, root) : xstrdup(r->project);
	return r;
}

int request_resolve(struct sb_request *r)
{
	char *c;
	if (!(c = path_canonical(r->root))) {
		err_warn_errno("workspace root '%s'", r->root);
		return -1;
	}
	free(r->root);
	r->root = c;
	if (!(c = path_canonical(r->project))) {
		err_warn_errno("project directory '%s'", r->project);
		return -1;
	}
	free(r->project);
	r->project = c;
	if (!path_is_within(r->root, r->project)) {
		err_warn("project directory '%s' is not inside the workspace root '%s'; "
			"fix: pass the root that holds it", r->project, r->root);
		return -1;
	}
	/* a path holding one of these reads as a pattern to every tool */
	for (const char *p = r->project; *p; p++) {
		if (strchr("[]*?\\", *p)) {
			err_warn("the project directory '%s' holds '%c', which a sandbox grant "
				"would read as a pattern; fix: rename the directory or drop "
				"exec.sandbox", r->project, *p);
			return -1;
		}
	}
	return 0;
}
