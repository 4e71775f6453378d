/* vx-graph: fold the workspace's vx.json files into the task graph.
 * Prints one "graph" record, then one "task" record per task asked for and
 * everything it depends on, in dependency order (docs/protocol.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "config.h"
#include "emit.h"
#include "heap.h"
#include "err.h"
#include "gcache.h"
#include "graph.h"
#include "jsonl.h"
#include "opt.h"
#include "workspace.h"
#include "wsroot.h"

static const char usage[] =
	"usage: vx-graph [--root DIR] [TASK...]\n"
	"\n"
	"Fold the workspace's vx.json files into the task graph and print it as\n"
	"JSON lines: one \"graph\" record (run-wide sandbox facts), then one \"task\"\n"
	"record per task asked for and everything it depends on, dependencies first.\n"
	"TASK is a task name (every project that has it) or a task id (project#name);\n"
	"none means every task.\n"
	"\n"
	"  --root DIR   the workspace root (default: VX_ROOT, else found from the\n"
	"               current directory)\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 success, 1 failure (a write), 2 usage or config error.\n";

void diag_config(struct workspace *ws, const char *file, const char *key, const char *fix,
	const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_warn("%s: %s: %s; fix: %s", file, key, msg, fix);
	ws->errors++;
}

int main(int argc, char **argv)
{
	heap_reserve(16);
	enum { ROOT = 1, HELP };
	static const struct opt_spec specs[] = {
		{"root", 0, OPT_VALUE, ROOT},
		{"help", 'h', OPT_FLAG, HELP},
		{NULL, 0, 0, 0},
	};
	const char *root = getenv("VX_ROOT");
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
		case HELP:
			fputs(usage, stdout);
			return jsonl_out_finish();
		default:
			fputs(usage, stderr);
			return VX_EXIT_USAGE;
		}
	}
	char **tasks = o.operands;
	int ntasks = o.noperands;
	jsonl_out_init();
	arena_use_for_cjson();

	/* the workspace lives as long as the process: static, so it stays
	 * reachable and LeakSanitizer reports only what was really lost */
	static struct workspace ws;
	if (wsroot_find(".", root && *root ? root : NULL, true, &ws.root) != 0)
		return VX_EXIT_USAGE;
	if (gcache_replay(ws.root, tasks, ntasks))
		return jsonl_out_finish();
	gcache_begin();
	workspace_load(&ws);
	for (size_t i = 0; i < ws.nprojects; i++)
		config_load(&ws, ws.projects[i]);
	if (ws.errors)
		return VX_EXIT_USAGE;
	graph_resolve(&ws);
	if (ws.errors)
		return VX_EXIT_USAGE;

	static struct task **order;
	size_t n;
	if (graph_select(&ws, tasks, ntasks, &order, &n) != 0)
		return VX_EXIT_USAGE;
	graph_keyed(order, n);
	emit_graph(&ws, order, n);
	gcache_save(ws.root, tasks, ntasks);
	return jsonl_out_finish();
}
