/* vx-report: judge one sandboxed task's saved access records (issue 5).
 * Options and wiring only; the policy is report.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"
#include "opt.h"
#include "report.h"
#include "streams.h"

static const char usage[] =
	"usage: vx-report [--request FILE] [--trace FILE | --no-trace] [--network FILE] [--exit N]\n"
	"       vx-report --each\n"
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
	"  --each          judge one task per \"judge\" record on stdin (the files\n"
	"                  by name, as the options above take them), each\n"
	"                  answered with its records and its verdict, until the\n"
	"                  end of input: vx run keeps one vx-report for a run;\n"
	"                  on a unix seqpacket socket (vx run's), also \"stream\"\n"
	"                  records, each with a task's record pipe attached,\n"
	"                  judged side by side as each ends\n"
	"  -h, --help      this text\n"
	"\n"
	"Exit status: 0 the verdict passes, 1 it fails the task (a violation, a\n"
	"trace that did not end, or the task's own non-zero exit), 2 usage or unreadable input. With --each: 0, or\n"
	"2 for a malformed line on stdin (each task's verdict is in its record).\n";

/* One task: read what is named (request NULL: the trace carries it; trace
 * NULL: untraced), judge, write the records. *fail the verdict; returns
 * VX_EXIT_USAGE after one line when an input could not be read. */
static int judge(const char *request, const char *trace, const char *network,
	bool exit_given, int code, bool *fail)
{
	struct report r = {0};
	if ((request && report_read_request(&r, request)) || (trace && report_read_trace(&r, trace))) {
		report_free(&r);
		return VX_EXIT_USAGE;
	}
	if (!r.task) {
		err_warn("%s: no request: the trace does not start with the graph and task "
			 "records; fix: --request FILE, or vx-sandbox --request - --trace -",
			trace && strcmp(trace, "-") ? trace : "<stdin>");
		report_free(&r);
		return VX_EXIT_USAGE;
	}
	if (!trace)
		r.state = "off";
	if (network && report_read_network(&r, network)) {
		report_free(&r);
		return VX_EXIT_USAGE;
	}
	if (!exit_given && r.has_exit)
		code = r.exit_status;
	*fail = report_judge(&r, code);
	report_free(&r);
	return VX_EXIT_OK;
}

static const char *field(const cJSON *rec, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, key));
}

/* --each: {"type":"judge","request":FILE,"trace":FILE|null,"network":FILE|null,
 * "exit":N} per task (docs/protocol.md), the n-th line of stdin. A task whose
 * files cannot be read still gets its verdict, failed, with
 * "trace":"unreadable". -1 for a record that is none (named). */
static int judge_record(const cJSON *rec, size_t n)
{
	const char *type = field(rec, "type"), *request = field(rec, "request");
	const char *trace = field(rec, "trace"), *net = field(rec, "network");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(rec, "exit");
	bool fail = true;
	if (type && !strcmp(type, "stream") && field(rec, "id")) {
		/* its descriptor was lost: stdin is no socket of vx run's */
		err_warn("<stdin>:%zu: a stream record without its stream: stdin must be vx "
			 "run's socket; fix: pass it on, not through a pipe", n);
		report_unjudged(field(rec, "id"));
		return -1;
	}
	/* stdin is this stream: no file of a task is read from it */
	if (!type || strcmp(type, "judge") || !request || !cJSON_IsNumber(x) ||
		!strcmp(request, "-") || (trace && !strcmp(trace, "-")) ||
		(net && !strcmp(net, "-"))) {
		err_warn("<stdin>:%zu: not a judge record; fix: {\"type\":\"judge\","
			 "\"request\":FILE,\"trace\":FILE,\"exit\":N}", n);
		return -1;
	}
	if (judge(request, trace, net, true, (int)x->valuedouble, &fail))
		report_unreadable(request);
	return 0;
}

/* --each on a pipe: judge records; on vx run's socket, streams (streams.h) */
static int each(void)
{
	struct jsonl_reader rd;
	cJSON *rec;
	int got, code = VX_EXIT_OK;
	if (streams_on_stdin())
		return streams_serve(judge_record);
	jsonl_reader_init(&rd, stdin, "<stdin>");
	while ((got = jsonl_read(&rd, &rec)) != 0) {
		if (got < 0 || judge_record(rec, rd.line) < 0)
			code = VX_EXIT_USAGE;
		cJSON_Delete(rec);
	}
	jsonl_reader_free(&rd);
	return code;
}

int main(int argc, char **argv)
{
	static const struct opt_spec specs[] = {
		{"request", 0, OPT_VALUE, 'R'},
		{"trace", 0, OPT_VALUE, 'T'},
		{"exit", 0, OPT_VALUE, 'x'},
		{"no-trace", 0, OPT_FLAG, 'N'},
		{"network", 0, OPT_VALUE, 'n'},
		{"each", 0, OPT_FLAG, 'E'},
		{"help", 'h', OPT_FLAG, 'h'},
		{NULL, 0, 0, 0},
	};
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
			fputs(usage, stdout);
			return fflush(stdout) || ferror(stdout) ? VX_EXIT_FAIL : VX_EXIT_OK;
		default:
			fputs(usage, stderr);
			return VX_EXIT_USAGE;
		}
	}
	if (per_record) {
		if (one || it.noperands > 0) {
			err_warn("--each takes its tasks from stdin: no other option, no operand");
			fputs(usage, stderr);
			return VX_EXIT_USAGE;
		}
		jsonl_out_init();
		code = each();
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
		fputs(usage, stderr);
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	if (judge(request, traced ? trace : NULL, network, exit_given, code, &fail))
		return VX_EXIT_USAGE;
	code = jsonl_out_finish();
	return code ? code : fail ? VX_EXIT_FAIL : VX_EXIT_OK;
}
