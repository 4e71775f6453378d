/* vx-graph: fold the workspace's vx.json files into the task graph
 * (fold.h), or replay the same arguments' saved output (gcache.h). Options
 * and wiring only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "err.h"
#include "filter.h"
#include "fold.h"
#include "gcache.h"
#include "heap.h"
#include "jsonl.h"
#include "opt.h"
#include "workspace.h"
#include "wsroot.h"

static const char head[] =
	"usage: vx-graph [--root DIR] [--filter SEL]... [--only] [--env-mode MODE] [TASK...]\n"
	"\n"
	"Fold the workspace's vx.json files into the task graph and print it as\n"
	"JSON lines: one \"graph\" record (run-wide sandbox facts), then one \"task\"\n"
	"record per task asked for and everything it depends on, dependencies first.\n"
	"TASK is a task name (every project that has it) or a task id (project#name);\n"
	"none means every task.\n"
	"\n";
static const char tail[] = "\nExit status: 0 success, 1 failure (a write), 2 usage or config error.\n";

enum { ROOT = 1, FILTER, ONLY, ENVMODE, HELP };
static const struct opt_spec specs[] = {
	{"root", 0, OPT_VALUE, ROOT, "DIR",
		"the workspace root (default: VX_ROOT, else found from the\ncurrent directory)"},
	{"filter", 0, OPT_VALUE, FILTER, "SEL",
		"only the tasks of the projects SEL selects (turbo's\n"
		"grammar): web, @acme/*, ./apps/web, {./apps/*}, web... (and\n"
		"what it depends on), ...web (and what depends on it),\n"
		"...^web / web^... (without web), [main] (changed since the\n"
		"ref), web...[main] (web, when it or a dependency changed),\n"
		"!SEL (leave out); several union, then exclusions subtract"},
	{"only", 0, OPT_FLAG, ONLY, NULL, "the selected tasks without their dependencies"},
	{"env-mode", 0, OPT_VALUE, ENVMODE, "MODE",
		"strict or loose: every task's envMode, whatever the\nvx.json files say (R-8a)"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	heap_reserve(16);
	const char *root = getenv("VX_ROOT");
	static char **filters;
	size_t nfilters = 0;
	bool only = false;
	const char *env_mode = NULL;
	int c;

	err_init(argv[0]);
	/* the operands (TASK...) stay in the iterator, for the whole run */
	static struct opt_iter o;
	opt_init(&o, argc, argv, specs);
	while ((c = opt_next(&o)) != OPT_END) {
		switch (c) {
		case ROOT:
			root = o.value;
			break;
		case FILTER:
			filters = xrealloc(filters, (nfilters + 1) * sizeof(*filters));
			filters[nfilters++] = (char *)o.value;
			break;
		case ONLY:
			only = true;
			break;
		case ENVMODE:
			env_mode = o.value;
			if (strcmp(env_mode, "strict") && strcmp(env_mode, "loose")) {
				err_warn("--env-mode '%s': expected strict or loose", env_mode);
				return VX_EXIT_USAGE;
			}
			break;
		case HELP:
			return opt_help(head, specs, tail);
		default:
			opt_usage(stderr, head, specs, tail);
			return VX_EXIT_USAGE;
		}
	}
	jsonl_out_init();
	arena_use_for_cjson();

	/* the workspace lives as long as the process: static, so it stays
	 * reachable and LeakSanitizer reports only what was really lost */
	static struct workspace ws;
	ws.env_mode = env_mode;
	if (wsroot_find(".", root, true, &ws.root) != 0)
		return VX_EXIT_USAGE;
	/* the saved output is keyed by every argument, filters included; not
	 * used when git answers part of it (a commit moves no config file) or
	 * with --only (its note on stderr is not saved) */
	bool cacheable = !only && !filter_uses_git(filters, nfilters);
	if (cacheable && gcache_replay(ws.root, argv + 1, argc - 1))
		return jsonl_out_finish();
	gcache_begin();
	struct fold_sel sel = {.filters = filters, .nfilters = nfilters, .tasks = o.operands,
		.ntasks = o.noperands, .only = only};
	int rc = fold_emit(&ws, &sel);
	if (rc)
		return rc;
	if (cacheable)
		gcache_save(ws.root, argv + 1, argc - 1);
	return jsonl_out_finish();
}
