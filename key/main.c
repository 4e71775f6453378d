/* vx-key: add each task's key to vx-graph's records (docs/protocol.md).
 * Reads records on stdin, writes each back with "key" and "final" (and
 * "explain" with --explain) as soon as it is read: the driver keys a task
 * only when it is ready (--live) and waits for the answer line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "jsonl.h"
#include "key.h"

static const char usage[] =
	"usage: vx-key [--root DIR] [--explain] [--live] < RECORDS\n"
	"\n"
	"Read vx-graph's records and write each one back, a task record with its\n"
	"cache key (\"key\", XXH3-128 hex; null for a persistent task) and whether it\n"
	"is final (no upstream task may still write its inputs, R-9a).\n"
	"\n"
	"  --root DIR   the workspace root (default: the graph record's root)\n"
	"  --explain    add \"explain\": every input the key folded, for vx why\n"
	"  --live       the caller sends each task when it is ready to run, after\n"
	"               its dependencies ran: every key is final\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 success, 1 failure (bad input, unreadable file, a write),\n"
	"2 usage.\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"explain", no_argument, NULL, 'e'},
		{"live", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *root = NULL;
	bool explain = false, live = false;
	int c;
	err_init(argv[0]);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'e':
			explain = true;
			break;
		case 'l':
			live = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return jsonl_out_finish();
		default:
			fputs(usage, stderr);
			return VX_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fputs(usage, stderr);
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();

	static struct keyer k;
	bool started = false;
	int rc = VX_EXIT_OK;
	struct jsonl_reader r;
	jsonl_reader_init(&r, stdin, "<stdin>");
	cJSON *rec;
	int got;
	while ((got = jsonl_read(&r, &rec)) != 0) {
		if (got < 0) {
			rc = VX_EXIT_FAIL;
			break;
		}
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		if (type && strcmp(type, "graph") == 0 && !started) {
			const char *gr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "root"));
			if (!root)
				root = gr ? xstrdup(gr) : NULL;
			if (!root) {
				err_warn("<stdin>:%zu: the graph record names no root", r.line);
				rc = VX_EXIT_FAIL;
				cJSON_Delete(rec);
				break;
			}
			key_init(&k, root, rec);
			started = true;
		} else if (type && strcmp(type, "task") == 0) {
			if (!started) {
				err_warn("<stdin>:%zu: a task record before the graph record", r.line);
				rc = VX_EXIT_FAIL;
				cJSON_Delete(rec);
				break;
			}
			if (key_task(&k, rec, explain) != 0) {
				err_warn("<stdin>:%zu: unable to key this task", r.line);
				rc = VX_EXIT_FAIL;
				cJSON_Delete(rec);
				break;
			}
			cJSON_DeleteItemFromObjectCaseSensitive(rec, "final");
			cJSON_AddBoolToObject(rec, "final", live || key_final(&k, rec));
		}
		jsonl_write(rec);
		cJSON_Delete(rec);
	}
	jsonl_reader_free(&r);
	if (started) {
		statcache_save(k.in.sc);
		if (getenv("VX_KEY_STATS"))
			err_warn("hashed %zu files, %zu from the stat cache", k.in.hashed, k.in.cached);
	}
	int out = jsonl_out_finish();
	return rc ? rc : out;
}
