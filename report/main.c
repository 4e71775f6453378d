/* vx-report: judge one sandboxed task's saved access records (issue 5).
 * Options and wiring only; judge.h runs its modes, report.h is the policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"
#include "judge.h"
#include "opt.h"

static const char head[] =
	"usage: vx-report [--request FILE] [--trace FILE | --no-trace] [--network FILE] [--exit N]\n"
	"       vx-report --each\n"
	"\n"
	"Apply the sandbox's violation policy (R-34) to one task's access records,\n"
	"as vx-sandbox --trace saved them, and print JSON lines: one violation\n"
	"record per denial inside the project or under a withheld linked package\n"
	"(ignore.read/ignore.write globs drop theirs), one per request vx-proxy\n"
	"refused (ignore.network drops its), hint records, then a verdict.\n"
	"\n";
static const char tail[] =
	"\n"
	"Exit status: 0 the verdict passes, 1 it fails the task (a violation, a\n"
	"trace that did not end, or the task's own non-zero exit), 2 usage or unreadable input. With --each: 0, or\n"
	"2 for a malformed line on stdin (each task's verdict is in its record).\n";


static const struct opt_spec specs[] = {
	{"request", 0, OPT_VALUE, 'R', "FILE", "the graph record and the task record (vx-sandbox's\n"
		"request); without it the trace must start with them,\n"
		"as vx-sandbox --request - --trace - writes it"},
	{"trace", 0, OPT_VALUE, 'T', "FILE", "the access records (vx-sandbox --trace; - for stdin,\n"
		"the default)"},
	{"no-trace", 0, OPT_FLAG, 'N', NULL, "the task ran untraced (a persistent task): judge only\n"
		"its network records; the verdict's trace is \"off\""},
	{"network", 0, OPT_VALUE, 'n', "FILE", "vx-proxy's records (- for stdin): each deny of this\n"
		"task is a violation `deny network-outbound HOST:PORT\n"
		"(REASON)` unless its ignore.network matches"},
	{"exit", 0, OPT_VALUE, 'x', "N", "the task's exit status: a failed task also gets the\n"
		"past-wall and placeholder hints (default: the trace's\n"
		"exit record, else 0)"},
	{"each", 0, OPT_FLAG, 'E', NULL, "judge one task per \"judge\" record on stdin (the files\n"
		"by name, as the options above take them), each\n"
		"answered with its records and its verdict, until the\n"
		"end of input: vx run keeps one vx-report for a run;\n"
		"on a unix seqpacket socket (vx run's), also \"stream\"\n"
		"records, each with a task's record pipe attached,\n"
		"judged side by side as each ends"},
	{"help", 'h', OPT_FLAG, 'h', NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	const char *request = NULL, *trace = "-", *network = NULL;
	int c, code = 0;
	bool fail = true, exit_given = false, traced = true, one = false, per_record = false;
	int stdins;
	char *end;

	err_init(argv[0]);
	static struct opt_iter it; /* its operands live as long as the run */
	opt_init(&it, argc, argv, specs);
	while ((c = opt_next(&it)) != OPT_END) {
		one |= c != 'E' && c != 'h';
		switch (c) {
		case 'E': per_record = true; break;
		case 'R': request = it.value; break;
		case 'T': trace = it.value; break;
		case 'N': traced = false; break;
		case 'n': network = it.value; break;
		case 'x':
			exit_given = true;
			code = (int)strtol(it.value, &end, 10);
			if (*end || !*it.value) {
				err_warn("--exit '%s': expected a number", it.value);
				return VX_EXIT_USAGE;
			}
			break;
		case 'h':
			opt_usage(stdout, head, specs, tail);
			return fflush(stdout) || ferror(stdout) ? VX_EXIT_FAIL : VX_EXIT_OK;
		default:
			opt_usage(stderr, head, specs, tail);
			return VX_EXIT_USAGE;
		}
	}
	if (per_record) {
		if (one || it.noperands > 0) {
			err_warn("--each takes its tasks from stdin: no other option, no operand");
			opt_usage(stderr, head, specs, tail);
			return VX_EXIT_USAGE;
		}
		jsonl_out_init();
		code = judge_each();
		c = jsonl_out_finish();
		return c ? c : code;
	}
	stdins = (request && !strcmp(request, "-")) + (traced && !strcmp(trace, "-")) +
		 (network && !strcmp(network, "-"));
	if (it.noperands > 0 || stdins > 1 || (!traced && !request)) {
		if (it.noperands > 0)
			err_warn("'%s': no operand is taken; fix: --request FILE --trace FILE",
				it.operands[0]);
		else if (stdins > 1)
			err_warn("two of --request -, --trace - and --network - cannot both read stdin");
		else
			err_warn("--no-trace needs --request FILE: there is no trace to carry it");
		opt_usage(stderr, head, specs, tail);
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	if (judge_one(request, traced ? trace : NULL, network, exit_given, code, &fail))
		return VX_EXIT_USAGE;
	code = jsonl_out_finish();
	return code ? code : fail ? VX_EXIT_FAIL : VX_EXIT_OK;
}
