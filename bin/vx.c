/* vx: the driver. "vx <sub> ARGS" runs the program vx-<sub> found beside
 * this one (git's fallback to git-foo), so every stage stays a program of
 * its own that can also run alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap.h"
#include "err.h"
#include "graphview.h"
#include "jsonl.h"
#include "ls.h"
#include "opt.h"
#include "proc.h"
#include "run.h"
#include "watchrun.h"

static const char head[] =
	"usage: vx <command> [ARGS...]\n"
	"\n"
	"  vx run TASK... [-j N] [--force] [--no-cache] [--dry] [--json]\n"
	"         [--log-order ORDER] [--output-logs WHAT] [--filter SEL]... [--only]\n"
	"                       run the tasks and their dependencies, restoring hits\n"
	"  vx watch TASK... [vx run's options]\n"
	"                       run them, then rerun what each change affects; servers\n"
	"                       (persistent tasks) kept running; until Ctrl-C\n"
	"  vx graph [TASK...] [--filter SEL]... [--only]\n"
	"                       the folded task graph, as vx-graph prints it\n"
	"  vx graph --dot|--html FILE [TASK...]\n"
	"                       the graph drawn, each task as its last run left it\n"
	"  vx why TASK...       what moved each task's key: for its last run, and since\n"
	"  vx clean             empty the local cache\n"
	"  vx ls [PKG...] [--json] [--filter SEL]...\n"
	"                       the packages, or each PKG's tasks\n"
	"  vx init [--dry]      write vx.json files from turbo.json and package.json scripts\n"
	"  vx init --sandbox [TASK...] [--filter SEL]... [--only]\n"
	"                       learn each task's sandbox block in one run, verify it\n"
	"  vx prune PKG... [--docker] [--out-dir DIR]\n"
	"                       the packages, those they depend on and the pruned\n"
	"                       lockfile, for a Docker build (turbo prune)\n"
	"  vx <name> ARGS...    runs the program vx-<name> beside vx\n"
	"\n";
static const char tail[] =
	"\n"
	"Every stage runs alone too: vx-graph --help.\n"
	"Exit status: 0 success, 1 failure, 2 usage or config error.\n";
/* vx's own option, in the command's place: --help ("vx help" too) */
static const struct opt_spec specs[] = {
	{"help", 'h', OPT_FLAG, 1, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	err_init(argv[0]);
	heap_reserve(16);
	proc_env_resolve();
	if (argc < 2) {
		opt_usage(stderr, head, specs, tail);
		return VX_EXIT_USAGE;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0)
		return opt_help(head, specs, tail);
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} builtins[] = {{"run", run_main}, {"why", why_main}, {"clean", clean_main},
		{"watch", watch_main}, {"ls", ls_main}};
	/* vx graph draws the graph itself; its records stay vx-graph's */
	if (strcmp(sub, "graph") == 0 && graphview_wanted(argc - 1, argv + 1))
		return graphview_main(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(builtins) / sizeof(*builtins); i++)
		if (strcmp(sub, builtins[i].name) == 0)
			return builtins[i].fn(argc - 1, argv + 1);
	if (sub[0] == '-' || strchr(sub, '/')) {
		err_warn("unknown option '%s'; see 'vx --help'", sub);
		return VX_EXIT_USAGE;
	}
	char *name = xasprintf("vx-%s", sub), *prog = proc_stage_path(name);
	free(name);
	argv[1] = prog;
	execv(prog, argv + 1);
	int e = errno;
	if (e == ENOENT) {
		free(prog);
		err_die(VX_EXIT_USAGE, "'%s' is not a vx command; see 'vx --help'", sub);
	}
	errno = e;
	err_warn_errno("unable to run '%s'", prog);
	free(prog);
	return VX_EXIT_FAIL;
}
