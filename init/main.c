/* vx-init: write vx.json files for a Turborepo or Nx workspace (convert.h),
 * or learn its tasks' sandbox blocks (propose.h). Options and wiring only. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "err.h"
#include "jsonl.h"
#include "opt.h"
#include "propose.h"
#include "workspace.h"
#include "wsroot.h"

static const char head[] =
	"usage: vx-init [--root DIR] [--dry] [--force]\n"
	"       vx-init --sandbox [TASK...] [--filter SEL]... [--only] [--root DIR]\n"
	"\n"
	"Write a vx.json for each package of a Turborepo workspace (and the root)\n"
	"from its turbo.json files and package.json scripts, or of an Nx workspace\n"
	"from nx.json, project.json and the scripts: tasks, dependsOn, inputs,\n"
	"outputs, env, persistent and cache, with the same meaning. What it\n"
	"could not carry over is one line each on stderr, naming the file and the\n"
	"key; a task carried over approximately has a // comment above it.\n"
	"\n";
static const char tail[] =
	"\n"
	"An existing vx.json is refused, and then nothing is written. Each file is\n"
	"written whole or not at all (a temporary file renamed over it).\n"
	"\n"
	"Exit status: 0 success, 1 failure (a vx.json exists, a write; with --sandbox, a task\n"
	"that failed or is not verified, or a vx.json it could not edit), 2 usage or config\n"
	"error (no turbo.json nor nx.json, or one that is wrong; a selection vx-graph\n"
	"refuses).\n";

enum { ROOT = 1, DRY, FORCE, SANDBOX, FILTER, ONLY, HELP };
static const struct opt_spec specs[] = {
	{"root", 0, OPT_VALUE, ROOT, "DIR",
		"the workspace root (default: VX_ROOT, else found from the\ncurrent directory)"},
	{"dry", 0, OPT_FLAG, DRY, NULL, "print the unified diff of what it would write; write nothing"},
	{"print", 0, OPT_FLAG, DRY, NULL, NULL},
	{"force", 0, OPT_FLAG, FORCE, NULL, "replace vx.json files that exist"},
	{"sandbox", 0, OPT_FLAG, SANDBOX, NULL,
		"learn each task's sandbox block in one run (the workspace\n"
		"readable, every write kept in a scratch layer, the real\n"
		"tree untouched), verify it in a second run sandboxed with\n"
		"it, and print the blocks as a diff of each vx.json; TASK,\n"
		"--filter and --only select as in vx run (default: every\n"
		"cached task without a block; an uncached one only by\n"
		"name, a persistent one never)"},
	{"filter", 0, OPT_VALUE, FILTER, "SEL", "with --sandbox: only the tasks of the projects SEL selects"},
	{"only", 0, OPT_FLAG, ONLY, NULL, "with --sandbox: the tasks named, not their dependencies"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	const char *root = getenv("VX_ROOT");
	bool dry = false, force = false, sandbox = false;
	char *filters[argc > 0 ? argc : 1]; /* --filter values: fewer than argc */
	struct propose_sel sel = {.filters = filters};
	int c;

	err_init(argv[0]);
	static struct opt_iter o; /* the TASK operands live as long as the run */
	opt_init(&o, argc, argv, specs);
	while ((c = opt_next(&o)) != OPT_END) {
		switch (c) {
		case ROOT:
			root = o.value;
			break;
		case DRY:
			dry = true;
			break;
		case FORCE:
			force = true;
			break;
		case SANDBOX:
			sandbox = true;
			break;
		case FILTER:
			sel.filters[sel.nfilters++] = (char *)o.value;
			break;
		case ONLY:
			sel.only = true;
			break;
		case HELP:
			return opt_help(head, specs, tail);
		default:
			opt_usage(stderr, head, specs, tail);
			return VX_EXIT_USAGE;
		}
	}
	if (!sandbox && (o.noperands || sel.nfilters || sel.only)) {
		err_warn("'%s' selects tasks for --sandbox only; see 'vx-init --help'",
			o.noperands ? o.operands[0] : sel.only ? "--only" : "--filter");
		return VX_EXIT_USAGE;
	}
	sel.tasks = o.operands;
	sel.ntasks = (size_t)o.noperands;

	static struct workspace ws;
	if (wsroot_find(".", root, true, &ws.root) != 0)
		return VX_EXIT_USAGE;
	workspace_load(&ws);
	if (ws.errors)
		return VX_EXIT_USAGE;
	int rootfd = open(ws.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		err_die_errno(VX_EXIT_USAGE, "unable to open '%s'", ws.root);
	if (sandbox) {
		int prc = propose_run(ws.root, rootfd, &sel);
		return prc ? prc : jsonl_out_finish();
	}

	int rc = convert_run(&ws, rootfd, dry, force);
	int out = jsonl_out_finish();
	return rc ? rc : out;
}
