/* vx-report: judge one sandboxed task's saved access records (issue 5).
 * Options and wiring only; the policy is report.h's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"
#include "report.h"

static const char usage[] =
	"usage: vx-report [--request FILE] [--trace FILE | --no-trace] [--network FILE] [--exit N]\n"
	"\n"
	"Apply the sandbox's violation policy (R-34) to one task's access records,\n"
	"as vx-sandbox --trace saved them, and print JSON lines: one violation\n"
	"record per denial inside the project or under a withheld linked package\n"
	"(ignore.read/ignore.write globs drop theirs), one per request vx-proxy\n"
	"refused (ignore.network drops its), hint records, then a verdict.\n"
	"\n"
	"  --request FILE  the graph record and the task record (vx-sandbox's\n"
	"                  request); without it the trace must start with them,\n"
	"                  as vx-sandbox --request - --trace - writes it\n"
	"  --trace FILE    the access records (vx-sandbox --trace; - for stdin,\n"
	"                  the default)\n"
	"  --no-trace      the task ran untraced (a persistent task): judge only\n"
	"                  its network records; the verdict's trace is \"off\"\n"
	"  --network FILE  vx-proxy's records (- for stdin): each deny of this\n"
	"                  task is a violation `deny network-outbound HOST:PORT\n"
	"                  (REASON)` unless its ignore.network matches\n"
	"  --exit N        the task's exit status: a failed task also gets the\n"
	"                  past-wall and placeholder hints (default: the trace's\n"
	"                  exit record, else 0)\n"
	"  -h, --help      this text\n"
	"\n"
	"Exit status: 0 the verdict passes, 1 it fails the task (a violation, or a\n"
	"trace that did not end), 2 usage or unreadable input.\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"request", required_argument, NULL, 'R'},
		{"trace", required_argument, NULL, 'T'},
		{"exit", required_argument, NULL, 'x'},
		{"no-trace", no_argument, NULL, 'N'},
		{"network", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *request = NULL, *trace = "-", *network = NULL;
	struct report r = {0};
	int c, code = 0;
	bool fail, exit_given = false, traced = true;
	int stdins;
	char *end;

	err_init(argv[0]);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'R': request = optarg; break;
		case 'T': trace = optarg; break;
		case 'N': traced = false; break;
		case 'n': network = optarg; break;
		case 'x':
			exit_given = true;
			code = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg) {
				err_warn("--exit '%s': expected a number", optarg);
				return VX_EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return fflush(stdout) || ferror(stdout) ? VX_EXIT_FAIL : VX_EXIT_OK;
		default:
			fputs(usage, stderr);
			return VX_EXIT_USAGE;
		}
	}
	stdins = (request && !strcmp(request, "-")) + (traced && !strcmp(trace, "-")) +
		 (network && !strcmp(network, "-"));
	if (optind < argc || stdins > 1 || (!traced && !request)) {
		if (optind < argc)
			err_warn("'%s': no operand is taken; fix: --request FILE --trace FILE",
				argv[optind]);
		else if (stdins > 1)
			err_warn("two of --request -, --trace - and --network - cannot both read stdin");
		else
			err_warn("--no-trace needs --request FILE: there is no trace to carry it");
		fputs(usage, stderr);
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	if ((request && report_read_request(&r, request)) || (traced && report_read_trace(&r, trace))) {
		report_free(&r);
		return VX_EXIT_USAGE;
	}
	if (!r.task) {
		err_warn("%s: no request: the trace does not start with the graph and task "
			 "records; fix: --request FILE, or vx-sandbox --request - --trace -",
			strcmp(trace, "-") ? trace : "<stdin>");
		report_free(&r);
		return VX_EXIT_USAGE;
	}
	if (!traced)
		r.state = "off";
	if (network && report_read_network(&r, network)) {
		report_free(&r);
		return VX_EXIT_USAGE;
	}
	if (!exit_given && r.has_exit)
		code = r.exit_status;
	fail = report_judge(&r, code);
	report_free(&r);
	code = jsonl_out_finish();
	return code ? code : fail ? VX_EXIT_FAIL : VX_EXIT_OK;
}
