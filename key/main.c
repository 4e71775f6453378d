/* vx-key: add each task's key to vx-graph's records (docs/protocol.md).
 * Options and wiring; stream.h reads and writes the records. */
#include <stdio.h>

#include "err.h"
#include "heap.h"
#include "jsonl.h"
#include "opt.h"
#include "stream.h"

static const char head[] =
	"usage: vx-key [--root DIR] [--explain] [--stamp] [--live] < RECORDS\n"
	"\n"
	"Read vx-graph's records and write each one back, a task record with its\n"
	"cache key (\"key\", XXH3-128 hex; null for a persistent task) and whether it\n"
	"is final (no upstream task may still write its inputs, R-9a).\n"
	"\n";
static const char tail[] =
	"\n"
	"Exit status: 0 success, 1 failure (bad input, unreadable file, a write),\n"
	"2 usage.\n";

enum { ROOT = 1, EXPLAIN, STAMP, LIVE, HELP };
static const struct opt_spec specs[] = {
	{"root", 0, OPT_VALUE, ROOT, "DIR", "the workspace root (default: the graph record's root)"},
	{"explain", 0, OPT_FLAG, EXPLAIN, NULL, "add \"explain\": every input the key folded, for vx why"},
	{"stamp", 0, OPT_FLAG, STAMP, NULL, "add \"stamp\": the stats of what the key folded, so that\n"
		"vx-cache save can tell no input moved while the task ran"},
	{"live", 0, OPT_FLAG, LIVE, NULL, "the caller sends each task when it is ready to run, after\n"
		"its dependencies ran: every key is final and stamped;\n"
		"each task is answered with its id and what vx-key added,\n"
		"and no other record is written back; a record\n"
		"{\"type\":\"rescan\"} (no answer) says tasks ran since\n"
		"the last one: the root lockfiles are read again"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int main(int argc, char **argv)
{
	heap_reserve(16);
	struct key_stream_opts ko = {0};
	int c;
	err_init(argv[0]);
	struct opt_iter o;
	opt_init(&o, argc, argv, specs);
	while ((c = opt_next(&o)) != OPT_END) {
		switch (c) {
		case ROOT: ko.root = o.value; break;
		case EXPLAIN: ko.explain = true; break;
		case STAMP: ko.stamps = true; break;
		case LIVE: ko.live = true; break;
		case HELP: opt_free(&o); return opt_help(head, specs, tail);
		default: opt_free(&o); opt_usage(stderr, head, specs, tail); return VX_EXIT_USAGE;
		}
	}
	int extra = o.noperands;
	opt_free(&o);
	if (extra) {
		err_warn("no operands: the records come on stdin");
		opt_usage(stderr, head, specs, tail);
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	int rc = key_stream(&ko);
	int out = jsonl_out_finish();
	return rc ? rc : out;
}
