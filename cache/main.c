/* vx-cache: the local cache's operations by hand (docs/protocol.md,
 * "vx-cache"): the same module the driver links, one verb per call.
 * Options and wiring; verbs.h runs the verbs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "jsonl.h"
#include "opt.h"
#include "verbs.h"

static const char head[] =
	"usage: vx-cache [--dir DIR] [--state DIR] get KEY\n"
	"       vx-cache [--dir DIR] [--state DIR] restore KEY PROJECTDIR\n"
	"       vx-cache [--dir DIR] [--state DIR] save KEY PROJECTDIR --outputs GLOB...\n"
	"                [--log FILE] [--ms N] [--exit N]\n"
	"       vx-cache [--dir DIR] [--state DIR] lookup < RECORDS\n"
	"       vx-cache [--dir DIR] [--state DIR] save [--request FILE] [--log FILE] < RECORDS\n"
	"       vx-cache [--dir DIR] verify\n"
	"       vx-cache [--dir DIR] clean\n"
	"       vx-cache [--dir DIR] prune [--max-size SIZE]\n"
	"\n"
	"The local cache of task results (R-10, R-11).\n"
	"\n"
	"  get KEY        print KEY's manifest as one JSON line (exit 1: a miss)\n"
	"  restore KEY PROJECTDIR\n"
	"                 write the entry's outputs into PROJECTDIR, then its log\n"
	"                 to stdout (exit 1: a miss or a failed restore)\n"
	"  save KEY PROJECTDIR --outputs GLOB... [--log FILE] [--ms N] [--exit N]\n"
	"                 save the files under PROJECTDIR matching the globs\n"
	"                 (\"!GLOB\" excludes) and FILE's bytes as the log; a\n"
	"                 non-zero --exit is refused\n"
	"  lookup         records: vx-key's records in, each written back; a cached\n"
	"                 task found in the cache is restored into its project, its\n"
	"                 log to stderr, and marked \"hit\":true, else \"hit\":false\n"
	"                 (exit 1: one missed)\n"
	"  save [--request FILE] [--log FILE]\n"
	"                 records: the request (FILE's records, then stdin's) and\n"
	"                 vx-report's verdicts on stdin, written back; each task\n"
	"                 that passed, was no hit and whose inputs' stamp has not\n"
	"                 moved is saved with FILE's bytes as its log, and a\n"
	"                 {\"type\":\"saved\"} record says so (exit 1: one was not)\n"
	"  verify         check every entry's blobs; one JSON line per bad entry\n"
	"  clean          empty the cache directory\n"
	"  prune [--max-size SIZE]\n"
	"                 over SIZE (default $VX_CACHE_MAX_SIZE, else 10G; 0: no cap),\n"
	"                 evict least recently used entries down to 90% of it, then\n"
	"                 remove blobs no entry names; one JSON line says what went\n"
	"\n";
static const char tail[] =
	"\n"
	"A save refuses outputs over VX_CACHE_MAX_OUTPUT_SIZE (default 512M) each or\n"
	"VX_CACHE_MAX_ENTRY_SIZE (default 2G) in all (0: no limit), fifos, sockets,\n"
	"devices and symlinks out of the project; setuid, setgid and sticky bits are\n"
	"stripped, and never restored.\n"
	"\n"
	"SIZE: bytes, or a number with K, M, G or T (powers of 1024), B or iB may\n"
	"follow: 500M, 500MB, 10GiB.\n"
	"\n"
	"Exit status: 0 success or a hit, 1 a miss or a failure (a failed write to stdout\n"
	"included), 2 usage.\n";

enum { HELP = 1, CACHEDIR, STATE, OUTPUTS, LOG, MS, EXIT, MAXSIZE, REQUEST };
static const struct opt_spec specs[] = {
	{"dir", 0, OPT_VALUE, CACHEDIR, "DIR", "the cache directory (default: $VX_CACHE_DIR, else ./.vx/cache;\n"
		"records: else the graph record's root/.vx/cache)"},
	{"state", 0, OPT_VALUE, STATE, "DIR", "where stamps of restored outputs go (default: PROJECTDIR/.vx;\n"
		"records: root/.vx)"},
	{"outputs", 0, OPT_LIST, OUTPUTS, "GLOB", "save: the outputs to save"},
	{"log", 0, OPT_VALUE, LOG, "FILE", "save: the log's bytes"},
	{"ms", 0, OPT_VALUE, MS, "N", "save: the task's duration"},
	{"exit", 0, OPT_VALUE, EXIT, "N", "save: the task's exit status (non-zero is refused)"},
	{"max-size", 0, OPT_VALUE, MAXSIZE, "SIZE", "prune's cap: bytes, or a number with K, M, G or T (powers\n"
		"of 1024), B or iB may follow: 500M, 500MB, 10GiB"},
	{"request", 0, OPT_VALUE, REQUEST, "FILE", "the records of the task to save, read before stdin's"},
	{"help", 'h', OPT_FLAG, HELP, NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

static _Noreturn void bad_usage(char *what)
{
	err_warn("%s", what);
	opt_usage(stderr, head, specs, tail);
	exit(VX_EXIT_USAGE);
}

static long number(const char *s, const char *opt)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || !*s || *end)
		bad_usage(xasprintf("%s wants a number, not '%s'", opt, s));
	return v;
}

int main(int argc, char **argv)
{
	err_init(argv[0]);
	jsonl_out_init();
	struct verb_opts vo = {.dir = getenv("VX_CACHE_DIR"),
		.globs = xcalloc((size_t)argc + 1, sizeof(*vo.globs))};
	if (vo.dir && !*vo.dir)
		vo.dir = NULL;
	struct opt_iter o;
	int opt;
	opt_init(&o, argc, argv, specs);
	while ((opt = opt_next(&o)) != OPT_END) {
		switch (opt) {
		case HELP:
			free(vo.globs);
			opt_free(&o);
			return opt_help(head, specs, tail);
		case CACHEDIR: vo.dir = o.value; break;
		case STATE: vo.state = o.value; break;
		case OUTPUTS:
			vo.outputs = vo.given = true;
			for (int k = 0; k < o.nlist; k++)
				vo.globs[vo.nglobs++] = o.list[k];
			break;
		case LOG: vo.logfile = o.value; vo.given = true; break;
		case MS: vo.ms = (double)number(o.value, "--ms"); vo.given = true; break;
		case EXIT: vo.exit = (int)number(o.value, "--exit"); vo.given = true; break;
		case MAXSIZE: vo.max = o.value; break;
		case REQUEST: vo.request = o.value; break;
		default:
			free(vo.globs);
			opt_free(&o);
			opt_usage(stderr, head, specs, tail);
			return VX_EXIT_USAGE;
		}
	}
	if (o.noperands == 0)
		bad_usage(xstrdup("no command"));
	/* the verb and its operands are checked before anything is touched */
	const char *cmd = o.operands[0], *bad = verbs_check(cmd, o.noperands - 1, &vo);
	if (bad)
		bad_usage((char *)bad);
	int r = verbs_run(cmd, o.operands + 1, o.noperands - 1, &vo);
	free(vo.globs);
	opt_free(&o);
	int w = jsonl_out_finish();
	return r ? r : w;
}
