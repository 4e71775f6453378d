/* vx-cache: the local cache's operations by hand (docs/protocol.md,
 * "vx-cache"): the same module the driver links, one verb per call. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"
#include "fileio.h"
#include "jsonl.h"
#include "opt.h"
#include "path.h"
#include "records.h"
#include "size.h"

static const char usage[] =
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
	"  --dir DIR      the cache directory (default: $VX_CACHE_DIR, else ./.vx/cache;\n"
	"                 records: else the graph record's root/.vx/cache)\n"
	"  --state DIR    where stamps of restored outputs go (default: PROJECTDIR/.vx;\n"
	"                 records: root/.vx)\n"
	"  --request FILE the records of the task to save, read before stdin's\n"
	"  -h, --help     this text\n"
	"\n"
	"A save refuses outputs over VX_CACHE_MAX_OUTPUT_SIZE (default 512M) each or\n"
	"VX_CACHE_MAX_ENTRY_SIZE (default 2G) in all (0: no limit), fifos, sockets,\n"
	"devices and symlinks out of the project; setuid, setgid and sticky bits are\n"
	"stripped, and never restored.\n"
	"\n"
	"SIZE: bytes, or a number with K, M, G or T (powers of 1024), B or iB may\n"
	"follow: 500M, 500MB, 10GiB.\n"
	"\n"
	"Exit status: 0 success or a hit, 1 a miss or a failure, 2 usage.\n";

static _Noreturn void bad_usage(const char *what)
{
	err_warn("%s", what);
	fputs(usage, stderr);
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

/* PROJECTDIR made absolute, as the cache module wants it. */
static char *project(const char *dir)
{
	char *abs = path_canonical(dir);
	if (!abs)
		err_die_errno(VX_EXIT_FAIL, "unable to open '%s'", dir);
	return abs;
}

static int cmd_get(struct cache *c, const char *key)
{
	struct cache_entry *e;
	const char *why;
	if (!cache_lookup(c, key, &e, &why)) {
		err_warn("%s: a miss (%s)", key, why);
		return VX_EXIT_FAIL;
	}
	jsonl_write(e->manifest);
	cache_entry_free(e);
	return VX_EXIT_OK;
}

static int cmd_restore(struct cache *c, const char *key, const char *dir)
{
	struct cache_entry *e;
	const char *why;
	if (!cache_lookup(c, key, &e, &why)) {
		err_warn("%s: a miss (%s)", key, why);
		return VX_EXIT_FAIL;
	}
	size_t len;
	char *log = cache_entry_log(c, e, &len);
	int r = log && cache_restore(c, e, dir) >= 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	if (r == VX_EXIT_OK && fwrite(log, 1, len, stdout) != len)
		r = VX_EXIT_FAIL; /* reported by jsonl_out_finish */
	free(log);
	cache_entry_free(e);
	return r;
}

static void report_bad(const char *key, const char *what, void *arg)
{
	(void)arg;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "bad");
	cJSON_AddStringToObject(rec, "key", key);
	cJSON_AddStringToObject(rec, "error", what);
	jsonl_write(rec);
	cJSON_Delete(rec);
}

static int cmd_prune(struct cache *c, const char *max)
{
	unsigned long long cap = cache_max_size(c);
	if (max)
		size_parse(max, &cap); /* checked by main */
	struct cache_pruned p;
	if (cache_prune(c, cap, NULL, true, &p) != 0)
		return VX_EXIT_FAIL;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "type", "pruned");
	cJSON_AddNumberToObject(rec, "maxSize", (double)cap);
	cJSON_AddNumberToObject(rec, "entries", (double)p.entries);
	cJSON_AddNumberToObject(rec, "evicted", (double)p.evicted);
	cJSON_AddNumberToObject(rec, "blobs", (double)p.blobs);
	cJSON_AddNumberToObject(rec, "before", (double)p.before);
	cJSON_AddNumberToObject(rec, "after", (double)p.after);
	jsonl_write(rec);
	cJSON_Delete(rec);
	return VX_EXIT_OK;
}

/* save's options, parsed with the others */
struct save_opts {
	const char **globs;
	size_t nglobs;
	bool outputs, given; /* --outputs given; any of save's options given */
	const char *logfile;
	double ms;
	int exit;
};

static int cmd_save(struct cache *c, char **args, const struct save_opts *so)
{
	struct cache_save s = {.key = args[0], .nglobs = so->nglobs, .ms = so->ms, .exit = so->exit};
	const char **globs = so->globs;
	const char *logfile = so->logfile;
	char *log = NULL;
	if (logfile && !(log = fileio_read_at(AT_FDCWD, logfile, &s.loglen)))
		err_die_errno(VX_EXIT_FAIL, "unable to read '%s'", logfile);
	s.log = log;
	char *dir = project(args[1]);
	s.projdir = dir;
	s.globs = globs;
	int r = cache_save(c, &s) == 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	free(dir);
	free(log);
	return r;
}

int main(int argc, char **argv)
{
	err_init(argv[0]);
	jsonl_out_init();
	const char *dir = getenv("VX_CACHE_DIR"), *state = NULL;
	if (dir && !*dir)
		dir = NULL;
	const char *max = NULL, *request = NULL;
	enum { HELP = 1, CACHEDIR, STATE, OUTPUTS, LOG, MS, EXIT, MAXSIZE, REQUEST };
	static const struct opt_spec specs[] = {
		{"help", 'h', OPT_FLAG, HELP},
		{"dir", 0, OPT_VALUE, CACHEDIR},
		{"state", 0, OPT_VALUE, STATE},
		{"outputs", 0, OPT_LIST, OUTPUTS},
		{"log", 0, OPT_VALUE, LOG},
		{"ms", 0, OPT_VALUE, MS},
		{"exit", 0, OPT_VALUE, EXIT},
		{"max-size", 0, OPT_VALUE, MAXSIZE},
		{"request", 0, OPT_VALUE, REQUEST},
		{NULL, 0, 0, 0},
	};
	struct save_opts so = {.globs = xcalloc((size_t)argc + 1, sizeof(*so.globs))};
	struct opt_iter o;
	int opt;
	opt_init(&o, argc, argv, specs);
	while ((opt = opt_next(&o)) != OPT_END) {
		switch (opt) {
		case HELP:
			opt_free(&o);
			free(so.globs);
			fputs(usage, stdout);
			return jsonl_out_finish();
		case CACHEDIR:
			dir = o.value;
			break;
		case STATE:
			state = o.value;
			break;
		case OUTPUTS:
			so.outputs = so.given = true;
			for (int k = 0; k < o.nlist; k++)
				so.globs[so.nglobs++] = o.list[k];
			break;
		case LOG:
			so.logfile = o.value;
			so.given = true;
			break;
		case MS:
			so.ms = (double)number(o.value, "--ms");
			so.given = true;
			break;
		case EXIT:
			so.exit = (int)number(o.value, "--exit");
			so.given = true;
			break;
		case MAXSIZE:
			max = o.value;
			break;
		case REQUEST:
			request = o.value;
			break;
		default:
			opt_free(&o);
			free(so.globs);
			fputs(usage, stderr);
			return VX_EXIT_USAGE;
		}
	}
	if (o.noperands == 0)
		bad_usage("no command");
	const char *cmd = o.operands[0];
	int nargs = o.noperands - 1;
	char **args = o.operands + 1;
	/* the verb and its operands are checked before anything is touched */
	bool save = strcmp(cmd, "save") == 0, prune = strcmp(cmd, "prune") == 0;
	bool lookup = strcmp(cmd, "lookup") == 0 && nargs == 0;
	bool records = lookup || (save && nargs == 0);
	bool ok = records || (strcmp(cmd, "get") == 0 && nargs == 1) ||
		  (strcmp(cmd, "restore") == 0 && nargs == 2) ||
		  (save && nargs == 2) ||
		  ((strcmp(cmd, "verify") == 0 || strcmp(cmd, "clean") == 0 || prune) && nargs == 0);
	if (!ok)
		bad_usage(xasprintf("'%s': an unknown command or the wrong operands", cmd));
	if (so.given && !save)
		bad_usage(xasprintf("%s: --outputs, --log, --ms and --exit are save's options", cmd));
	if (max && !prune)
		bad_usage(xasprintf("%s: --max-size is prune's option", cmd));
	unsigned long long ignored;
	if (max && size_parse(max, &ignored) != 0) /* before the cache is opened */
		err_die(VX_EXIT_USAGE, "--max-size: '%s' is not a size; fix: bytes, or a number "
				       "with K, M, G or T, as in 500M or 10GB (0: no cap)", max);
	if (request && !(save && records))
		bad_usage(xasprintf("%s: --request is the records save's option", cmd));
	if (records && (so.outputs || so.ms || so.exit))
		bad_usage(xasprintf("%s: --outputs, --ms and --exit are for save KEY PROJECTDIR; the "
				    "records say what to save", cmd));
	if (records) {
		int rr = lookup ? records_lookup(dir, state) : records_save(dir, state, request, so.logfile);
		free(so.globs);
		opt_free(&o);
		int rw = jsonl_out_finish();
		return rr ? rr : rw;
	}
	if (save && !so.outputs)
		bad_usage("save: --outputs is required");

	char *projdir = nargs >= 2 ? project(args[1]) : NULL;
	char *statedir = state ? xstrdup(state) : projdir ? path_join(projdir, ".vx") : NULL;
	struct cache *c = cache_open(dir ? dir : ".vx/cache", statedir);
	int r;
	if (strcmp(cmd, "get") == 0) {
		r = cmd_get(c, args[0]);
	} else if (strcmp(cmd, "restore") == 0) {
		r = cmd_restore(c, args[0], projdir);
	} else if (strcmp(cmd, "save") == 0) {
		r = cmd_save(c, args, &so);
	} else if (strcmp(cmd, "verify") == 0) {
		int bad = cache_verify(c, report_bad, NULL);
		if (bad < 0)
			err_warn_errno("unable to read '%s/ac'", dir ? dir : ".vx/cache");
		r = bad == 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	} else if (prune) {
		r = cmd_prune(c, max);
	} else {
		r = cache_clean(c) == 0 ? VX_EXIT_OK : VX_EXIT_FAIL;
	}
	cache_close(c);
	free(statedir);
	free(projdir);
	free(so.globs);
	opt_free(&o);
	int w = jsonl_out_finish();
	return r ? r : w;
}
