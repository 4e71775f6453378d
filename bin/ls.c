/* vx ls (ls.h): the packages of vx-graph's graph record, or the tasks of
 * its task records for the packages named; text, or JSON lines with --json
 * (docs/protocol.md, "vx ls"). */
#include "ls.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "graphin.h"
#include "jsonl.h"
#include "opt.h"

static const char ls_head[] =
	"usage: vx ls [PKG...] [--json] [--output json|pretty] [--filter SEL]... [--root DIR]\n"
	"\n"
	"List the workspace's packages (name and directory); with PKG (a name or a\n"
	"directory), each one's tasks: command, dependsOn, cached, sandboxed.\n"
	"\n";
static const char ls_tail[] =
	"\n"
	"Exit status: 0 listed, 1 failure, 2 usage or config error (a PKG that is\n"
	"no package).\n";

enum { JSON = 1, OUTPUT, FILTER, ROOT, HELP };
static const struct opt_spec ls_specs[] = {
	{"json", 0, OPT_FLAG, JSON, NULL, "JSON lines: an ls record, then a package record each"},
	{"output", 0, OPT_VALUE, OUTPUT, "FMT", "turbo's spelling: json is --json, pretty (default) the text"},
	{"filter", 0, OPT_VALUE, FILTER, "SEL",
		"only the packages SEL selects that have a task (vx run's\n"
		"--filter; vx-graph(1), SELECTION); several union"},
	{"root", 0, OPT_VALUE, ROOT, "DIR", "the workspace root (default: VX_ROOT, else found from cwd)"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* The names of the projects whose tasks the filters select, as
 * "--filter ... --only" keeps them (no task of another project comes
 * along). vx-graph's note on the tasks --only cut loose is not this
 * command's: stderr is quiet for this second reading, whose filters the
 * first reading already checked. */
static cJSON *selected(const char *root, char **sel, int nsel)
{
	char **args = xcalloc((size_t)nsel + 3, sizeof(*args));
	memcpy(args, sel, (size_t)nsel * sizeof(*args));
	args[nsel] = "--only";
	args[nsel + 1] = "--";
	int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, 2);
	struct graphin g = {0};
	int rc = graphin_load(&g, root, args, nsel + 2, false, false);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (null >= 0)
		close(null);
	free(args);
	cJSON *names = cJSON_CreateObject();
	for (size_t i = 0; rc == 0 && i < g.n; i++) {
		const char *p = graphin_str(g.tasks[i], "project");
		if (p && !cJSON_HasObjectItem(names, p))
			cJSON_AddTrueToObject(names, p);
	}
	graphin_free(&g);
	return names;
}

/* the project PKG names: its name, or its directory (./dir, dir or dir/) */
static const cJSON *find_project(const cJSON *projects, const char *pkg)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, projects) {
		if (strcmp(graphin_str(p, "name"), pkg) == 0)
			return p;
	}
	const char *d = pkg[0] == '.' && pkg[1] == '/' ? pkg + 2 : pkg;
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		n--;
	cJSON_ArrayForEach(p, projects) {
		const char *dir = graphin_str(p, "dir");
		if (strlen(dir) == n && strncmp(dir, d, n) == 0)
			return p;
	}
	return NULL;
}

/* the tasks of project name, as the package record's "tasks" */
static cJSON *tasks_of(const struct graphin *g, const char *name)
{
	cJSON *out = cJSON_CreateArray();
	for (size_t i = 0; i < g->n; i++) {
		const cJSON *t = g->tasks[i];
		const char *p = graphin_str(t, "project");
		if (!p || strcmp(p, name) != 0)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", graphin_str(t, "name"));
		cJSON_AddStringToObject(o, "id", graphin_str(t, "id"));
		cJSON_AddStringToObject(o, "kind", graphin_str(t, "kind"));
		const char *cmd = graphin_str(t, "command");
		cJSON_AddItemToObject(o, "command", cmd ? cJSON_CreateString(cmd) : cJSON_CreateNull());
		const cJSON *deps = cJSON_GetObjectItemCaseSensitive(t, "deps");
		cJSON_AddItemToObject(o, "dependsOn",
			deps ? cJSON_Duplicate(deps, 1) : cJSON_CreateArray());
		cJSON_AddBoolToObject(o, "cached",
			cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(t, "cache")));
		cJSON_AddBoolToObject(o, "sandboxed",
			cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(t, "sandbox")));
		cJSON_AddItemToArray(out, o);
	}
	return out;
}

/* a package record of project p: "type" first, then its members */
static cJSON *package(const cJSON *p)
{
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "package");
	cJSON_AddStringToObject(rec, "name", graphin_str(p, "name"));
	cJSON_AddStringToObject(rec, "dir", graphin_str(p, "dir"));
	return rec;
}

/* A package record, text or JSON; its tasks when it has them. */
static void show(const cJSON *rec, bool json, int width)
{
	if (json) {
		jsonl_write(rec);
		return;
	}
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(rec, "tasks");
	printf("%s%-*s  %s\n", tasks ? "" : "  ", width, graphin_str(rec, "name"),
		graphin_str(rec, "dir"));
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks) {
		const char *cmd = graphin_str(t, "command");
		const char *kind = graphin_str(t, "kind");
		printf("  %s: %s\n", graphin_str(t, "name"),
			cmd ? cmd : "(a group: no command of its own)");
		const cJSON *deps = cJSON_GetObjectItemCaseSensitive(t, "dependsOn"), *d;
		if (cJSON_GetArraySize(deps)) {
			fputs("    dependsOn:", stdout);
			cJSON_ArrayForEach(d, deps)
				printf(" %s", d->valuestring);
			putchar('\n');
		}
		printf("    %s, %s%s\n",
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "cached")) ? "cached" : "not cached",
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "sandboxed")) ? "sandboxed"
											: "not sandboxed",
			strcmp(kind, "persistent") == 0 ? ", persistent" : "");
	}
}

int ls_main(int argc, char **argv)
{
	const char *root = getenv("VX_ROOT");
	bool json = false;
	/* the stages' arguments live as long as the process (and stay reachable) */
	static char **sel;
	sel = xcalloc((size_t)argc * 2 + 1, sizeof(*sel));
	int nsel = 0, c;
	static struct opt_iter o;
	opt_init(&o, argc, argv, ls_specs);
	while ((c = opt_next(&o)) != OPT_END) {
		switch (c) {
		case JSON:
			json = true;
			break;
		case OUTPUT: /* turbo's spelling */
			if (strcmp(o.value, "json") != 0 && strcmp(o.value, "pretty") != 0) {
				err_warn("ls --output=%s: expected json or pretty", o.value);
				return VX_EXIT_USAGE;
			}
			json = strcmp(o.value, "json") == 0;
			break;
		case FILTER:
			sel[nsel++] = "--filter";
			sel[nsel++] = (char *)o.value;
			break;
		case ROOT:
			root = o.value;
			break;
		case HELP:
			return opt_help(ls_head, ls_specs, ls_tail);
		default:
			opt_usage(stderr, ls_head, ls_specs, ls_tail);
			return VX_EXIT_USAGE;
		}
	}
	jsonl_out_init();
	int nfilters = nsel;
	sel[nsel++] = "--";
	struct graphin g = {0};
	int rc = graphin_load(&g, root, sel, nsel, false, false);
	if (rc)
		return rc;
	const cJSON *projects = cJSON_GetObjectItemCaseSensitive(g.graph, "projects"), *p;
	cJSON *chosen = nfilters ? selected(graphin_str(g.graph, "root"), sel, nfilters) : NULL;
	cJSON *recs = cJSON_CreateArray();
	int width = 0;
	if (o.noperands > 0) {
		for (int i = 0; i < o.noperands; i++) {
			p = find_project(projects, o.operands[i]);
			const char *name = p ? graphin_str(p, "name") : NULL;
			if (!p || (chosen && !cJSON_HasObjectItem(chosen, name))) {
				err_warn("ls '%s': %s; fix: name one of the packages 'vx ls%s' lists, "
					 "by name or directory", o.operands[i],
					 p ? "not among the packages --filter selects" : "no such package",
					 chosen ? " --filter ..." : "");
				rc = VX_EXIT_USAGE;
				goto out;
			}
			cJSON *rec = package(p);
			cJSON_AddItemToObject(rec, "tasks", tasks_of(&g, name));
			cJSON_AddItemToArray(recs, rec);
		}
	} else {
		cJSON_ArrayForEach(p, projects) {
			const char *name = graphin_str(p, "name");
			if (chosen && !cJSON_HasObjectItem(chosen, name))
				continue;
			cJSON_AddItemToArray(recs, package(p));
			int w = (int)strlen(name);
			width = w > width ? w : width;
		}
	}
	if (json) {
		cJSON *head = cJSON_CreateObject();
		cJSON_AddStringToObject(head, "type", "ls");
		cJSON_AddNumberToObject(head, "v", 1);
		cJSON_AddStringToObject(head, "root", graphin_str(g.graph, "root"));
		cJSON_AddNumberToObject(head, "packages", cJSON_GetArraySize(recs));
		jsonl_write(head);
		cJSON_Delete(head);
	} else if (o.noperands == 0) {
		printf("%d package%s\n", cJSON_GetArraySize(recs),
			cJSON_GetArraySize(recs) == 1 ? "" : "s");
	}
	cJSON *rec;
	int k = 0;
	cJSON_ArrayForEach(rec, recs) {
		if (!json && o.noperands > 0 && k++)
			putchar('\n');
		show(rec, json, width);
	}
	rc = jsonl_out_finish();
out:
	cJSON_Delete(recs);
	cJSON_Delete(chosen);
	graphin_free(&g);
	return rc;
}
