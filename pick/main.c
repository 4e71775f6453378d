/* vx-pick: keep the graph record and the tasks asked for from a stream of
 * vx-graph / vx-key records. Options and wiring only; pick.h does it. */
#include <stdio.h>

#include "err.h"
#include "jsonl.h"
#include "opt.h"
#include "pick.h"

static const char head[] =
	"usage: vx-pick TASK... < RECORDS\n"
	"\n"
	"Copy vx-graph's (or vx-key's) records from stdin to stdout, keeping the\n"
	"graph record and the task records TASK names, dropping the others: so\n"
	"`vx-graph build | vx-key | vx-pick app#build` is the request vx-sandbox\n"
	"reads with --request -. TASK is a task id (project#name) or a task name\n"
	"(that task in every project).\n"
	"\n";
static const char tail[] =
	"\n"
	"Exit status: 0 success, 1 a TASK matched no record or the input was\n"
	"malformed, 2 usage.\n";

enum { HELP = 1 };
static const struct opt_spec specs[] = {
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	int c;

	err_init(argv[0]);
	static struct opt_iter o; /* the TASK operands live as long as the run */
	opt_init(&o, argc, argv, specs);
	while ((c = opt_next(&o)) != OPT_END) {
		if (c == HELP)
			return opt_help(head, specs, tail);
		opt_usage(stderr, head, specs, tail);
		return VX_EXIT_USAGE;
	}
	if (o.noperands == 0) {
		err_warn("no TASK; fix: vx-pick project#name < records");
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	int rc = pick_stream(stdin, "<stdin>", o.operands, (size_t)o.noperands);
	int out = jsonl_out_finish();
	return out ? out : rc ? VX_EXIT_FAIL : VX_EXIT_OK;
}
