/* vx-watch: keeps one workspace under inotify and tells vx run a token that
 * moves with every change under the root (serve.h; docs/protocol.md,
 * "vx-watch"). Options and wiring only. */
#include <stdio.h>
#include <sys/stat.h>

#include "err.h"
#include "opt.h"
#include "path.h"
#include "serve.h"

static const char head[] =
	"usage: vx-watch ROOT\n"
	"\n"
	"Watch the workspace at ROOT and answer vx run's queries on\n"
	"ROOT/.vx/watch.sock: \"sync\" gets \"<instance>-<generation> <dev> <ino> <root>\",\n"
	"a token that moves with every change under ROOT (but node_modules, .git\n"
	"and .vx), and the tree it is of; \"quit\" stops it. Started by vx run;\n"
	"VX_WATCH=0 keeps vx run from using it.\n"
	"\n";
static const char tail[] =
	"\nExit status: 0 stopped (or ROOT is watched already), 1 unable to watch, 2 usage.\n";

static const struct opt_spec specs[] = {
	{"help", 'h', OPT_FLAG, 1, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	err_init(argv[0]);
	struct opt_iter o;
	int c;
	opt_init(&o, argc, argv, specs);
	while ((c = opt_next(&o)) > 0) {
		/* the one option is --help */
		opt_free(&o);
		return opt_help(head, specs, tail);
	}
	if (c == OPT_BAD || o.noperands != 1) {
		opt_free(&o);
		if (c != OPT_BAD)
			err_warn("give one ROOT");
		opt_usage(stderr, head, specs, tail);
		return VX_EXIT_USAGE;
	}
	const char *arg = o.operands[0];
	opt_free(&o);
	char *root = path_canonical(arg);
	struct stat rst;
	if (!root || stat(root, &rst) != 0)
		err_die_errno(VX_EXIT_USAGE, "'%s'", arg);
	return serve_run(root, &rst);
}
