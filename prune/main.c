/* vx-prune: the subset of the workspace some packages need, written into a
 * directory of its own for a Docker build (turbo prune's meaning): those
 * packages and the workspace packages they depend on (subset.h), written
 * out with the root files and the pruned lockfile by pruneout.h. Options
 * and wiring only. */
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "jsonl.h"
#include "opt.h"
#include "path.h"
#include "pruneout.h"
#include "subset.h"
#include "workspace.h"
#include "wsroot.h"

static const char head[] =
	"usage: vx-prune PKG... [--docker] [--out-dir DIR] [--root DIR]\n"
	"\n"
	"Write into DIR the part of the workspace the packages PKG... need: them and\n"
	"every workspace package they depend on (dependencies of every kind, as\n"
	"vx-graph resolves them), the root's files (package.json with its workspaces\n"
	"cut to those packages; every other file at the root but dotfiles, and of\n"
	"those .npmrc, .yarnrc.yml, .pnpmfile.cjs, .nvmrc, .node-version, .gitignore)\n"
	"and the lockfile pruned to what they reach (package-lock.json,\n"
	"pnpm-lock.yaml, yarn 1's yarn.lock; bun.lock is copied whole, with a warning).\n"
	"\n";
static const char tail[] =
	"\n"
	"PKG is a package.json name or a package's directory. Each package's files are\n"
	"copied but node_modules, .git and .vx.\n"
	"\n"
	"Exit status: 0 success, 1 failure (DIR not empty, a lockfile it cannot prune,\n"
	"a write), 2 usage or config error (an unknown PKG).\n";

enum { DOCKER = 1, OUTDIR, ROOT, HELP };
static const struct opt_spec specs[] = {
	{"docker", 0, OPT_FLAG, DOCKER, NULL,
		"DIR/json: the package.json files, the workspace files and\n"
		"the lockfile (what an install needs, for a Docker layer);\n"
		"DIR/full: the root files and every kept package's sources;\n"
		"the lockfile at DIR too"},
	{"out-dir", 0, OPT_VALUE, OUTDIR, "DIR",
		"where to write (default: out, from the current directory);\n"
		"refused when it exists and is not empty"},
	{"root", 0, OPT_VALUE, ROOT, "DIR",
		"the workspace root (default: VX_ROOT, else found from the\ncurrent directory)"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	const char *root = getenv("VX_ROOT");
	struct pruneout o = {.dir = "out"};
	int c;

	err_init(argv[0]);
	static struct opt_iter it; /* the PKG operands live as long as the run */
	opt_init(&it, argc, argv, specs);
	while ((c = opt_next(&it)) != OPT_END) {
		switch (c) {
		case DOCKER:
			o.docker = true;
			break;
		case OUTDIR:
			o.dir = it.value;
			break;
		case ROOT:
			root = it.value;
			break;
		case HELP:
			return opt_help(head, specs, tail);
		default:
			opt_usage(stderr, head, specs, tail);
			return VX_EXIT_USAGE;
		}
	}
	if (it.noperands == 0 || !*o.dir) {
		err_warn(it.noperands == 0 ? "no package named; see 'vx-prune --help'"
					   : "--out-dir: empty; fix: name a directory");
		return VX_EXIT_USAGE;
	}
	static struct workspace ws;
	if (wsroot_find(".", root, true, &ws.root) != 0)
		return VX_EXIT_USAGE;
	workspace_load(&ws);
	if (ws.errors)
		return VX_EXIT_USAGE;
	bool *keep = xcalloc(ws.nprojects, sizeof(bool));
	if (subset_select(&ws, it.operands, (size_t)it.noperands, keep) != 0) {
		free(keep);
		return VX_EXIT_USAGE;
	}
	o.full = o.docker ? path_join(o.dir, "full") : xstrdup(o.dir);
	int rc = pruneout_write(&ws, keep, &o);
	free(o.full);
	free(keep);
	int out = jsonl_out_finish();
	return rc ? VX_EXIT_FAIL : out;
}
