/* vx why and vx clean. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "graphin.h"
#include "jsonl.h"
#include "opt.h"
#include "run.h"
#include "explain.h"
#include "runcache.h"
#include "summary.h"

static const char why_head[] =
	"usage: vx why TASK... [--root DIR]\n"
	"       vx why --summary [[A.json] B.json] [--root DIR]\n"
	"\n"
	"Say, file by file, which inputs moved each task's key (R-12): first what\n"
	"moved the key of the last run against the run before it (why it missed;\n"
	"runs that kept the key count as one), then what moved since the last run.\n"
	"Input files changed, added or removed, env values, runtime outputs,\n"
	"package.json, the root lockfiles, the command, exec.sandbox, dependency\n"
	"keys.\n"
	"\n";

enum { ROOT = 1, SUMMARY, HELP };
#define ROOT_SPEC {"root", 0, OPT_VALUE, ROOT, "DIR", "the workspace root (default: VX_ROOT, else found from cwd)"}
#define HELP_SPEC {"help", 'h', OPT_FLAG, HELP, NULL, "this text"}
static const struct opt_spec why_specs[] = {
	{"summary", 0, OPT_FLAG, SUMMARY, NULL,
		"compare two run summaries (vx run --summarize) task by\n"
		"task instead: B with A, B with the one before it, or\n"
		"the last two under <root>/.vx/runs"},
	ROOT_SPEC,
	HELP_SPEC,
	{NULL, 0, 0, 0, NULL, NULL},
};

static const char clean_head[] =
	"usage: vx clean [--root DIR]\n"
	"\n"
	"Empty the local cache (VX_CACHE_DIR, else <root>/.vx/cache).\n"
	"\n";
static const struct opt_spec clean_specs[] = {ROOT_SPEC, HELP_SPEC, {NULL, 0, 0, 0, NULL, NULL}};

/* The options of vx why (specs why_specs) and vx clean (clean_specs):
 * --root DIR, --help, and vx why's --summary. Returns -1 to go on, with
 * the operands in it, else the exit code. */
static int root_options(struct opt_iter *it, int argc, char **argv, const char *head,
	const struct opt_spec *specs, const char **root, bool *summary)
{
	int c;
	*root = getenv("VX_ROOT");
	opt_init(it, argc, argv, specs);
	while ((c = opt_next(it)) != OPT_END) {
		if (c == ROOT) {
			*root = it->value;
		} else if (c == SUMMARY) {
			*summary = true;
		} else if (c == HELP) {
			return opt_help(head, specs, NULL);
		} else {
			opt_usage(stderr, head, specs, NULL);
			return VX_EXIT_USAGE;
		}
	}
	return -1;
}

/* What moved between two records' explains, one indented line each. */
static void diff(const cJSON *was, const cJSON *now)
{
	size_t n = explain_diff(cJSON_GetObjectItemCaseSensitive(was, "explain"),
		cJSON_GetObjectItemCaseSensitive(now, "explain"), stdout, "  ");
	if (!n)
		printf("  the key format changed\n");
}

int why_main(int argc, char **argv)
{
	const char *root;
	bool summary = false;
	static struct opt_iter o; /* its operands live as long as the run */
	int rc = root_options(&o, argc, argv, why_head, why_specs, &root, &summary);
	if (rc >= 0)
		return rc;
	if (summary)
		return summary_why(o.operands, o.noperands, root);
	if (o.noperands == 0) {
		opt_usage(stderr, why_head, why_specs, NULL);
		return VX_EXIT_USAGE;
	}
	jsonl_out_init();
	struct graphin g;
	rc = graphin_load(&g, root, o.operands, o.noperands, true, true);
	if (rc)
		return rc;
	const char *wsroot = graphin_str(g.graph, "root");
	for (size_t i = 0; i < g.n; i++) {
		const cJSON *t = g.tasks[i];
		const char *id = graphin_str(t, "id"), *name = graphin_str(t, "name");
		bool asked = false;
		for (int a = 0; a < o.noperands; a++)
			asked |= strcmp(o.operands[a], id) == 0 || strcmp(o.operands[a], name) == 0;
		if (!asked)
			continue;
		const char *key = graphin_str(t, "key");
		if (!key) {
			printf("%s: a persistent task has no key\n", id);
			continue;
		}
		cJSON *last = runcache_recall(wsroot, id, false);
		cJSON *before = runcache_recall(wsroot, id, true);
		const char *was = last ? graphin_str(last, "key") : NULL;
		const char *prior = before ? graphin_str(before, "key") : NULL;
		if (!was) {
			printf("%s: key %s; no earlier run recorded\n", id, key);
			cJSON_Delete(last);
			cJSON_Delete(before);
			continue;
		}
		/* why the last run missed: its key against the one before it */
		if (!prior || strcmp(prior, was) == 0) {
			printf("%s: last run vs the run before: no run before it with another key "
			       "recorded\n", id);
		} else {
			printf("%s: last run vs the run before: key moved from %s to %s\n", id, prior, was);
			diff(before, last);
		}
		/* and what moved since */
		if (strcmp(was, key) == 0) {
			printf("%s: key %s unchanged since the last run\n", id, key);
		} else {
			printf("%s: key %s moved since the last run (was %s)\n", id, key, was);
			diff(last, t);
		}
		cJSON_Delete(last);
		cJSON_Delete(before);
	}
	graphin_free(&g);
	return jsonl_out_finish();
}

int clean_main(int argc, char **argv)
{
	const char *root;
	static struct opt_iter o;
	int rc = root_options(&o, argc, argv, clean_head, clean_specs, &root, NULL);
	if (rc >= 0)
		return rc;
	if (o.noperands > 0) {
		opt_usage(stderr, clean_head, clean_specs, NULL);
		return VX_EXIT_USAGE;
	}
	struct graphin g;
	rc = graphin_load(&g, root, NULL, 0, false, false);
	if (rc)
		return rc;
	struct runcache cache;
	runcache_open(&cache, graphin_str(g.graph, "root"));
	graphin_free(&g);
	int failed = runcache_clean(&cache) != 0;
	if (failed)
		err_warn("unable to empty the cache '%s'", cache.dir);
	else
		printf("vx: emptied the cache %s\n", cache.dir);
	runcache_close(&cache);
	return failed ? VX_EXIT_FAIL : jsonl_out_finish();
}
