/* judge.c: vx-report's two modes, one task or one per record (judge.h). */
#include "judge.h"

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"
#include "report.h"
#include "streams.h"

/* One task: read what is named (request NULL: the trace carries it; trace
 * NULL: untraced), judge, write the records. *fail the verdict; returns
 * VX_EXIT_USAGE after one line when an input could not be read. */
int judge_one(const char *request, const char *trace, const char *network,
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
	if (judge_one(request, trace, net, true, (int)x->valuedouble, &fail))
		report_unreadable(request);
	return 0;
}

/* --each on a pipe: judge records; on vx run's socket, streams (streams.h) */
int judge_each(void)
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
