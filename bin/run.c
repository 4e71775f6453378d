/* vx run. Runs the tasks of vx-graph's records by the graph
 * with -j, keys each one with vx-key when it is ready (R-9a), restores hits
 * from the cache, runs misses under /bin/sh -c in their project, saves
 * successes, skips the dependents of a failure, and prints a line per task
 * . SIGINT/SIGTERM stop every task's process group and save nothing
 * (R-43). */
/* This file: the options and the wiring of one run; run_int.h says which
 * file holds the rest. */
#include "opt.h"
#include "run.h"
#include "run_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dry.h"
#include "err.h"
#include "jsonl.h"
#include "profile.h"
#include "replay.h"
#include "report.h"
#include "summary.h"
#include "watchq.h"
#include "wsroot.h"

static struct run_watch run_watch_hook; /* vx watch's hold on this run (run.h) */

void run_watch_set(const struct run_watch *w)
{
	run_watch_hook = *w;
}

static size_t ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/* The summary of a run whose work is done, and whether it failed. */
static bool run_failed(struct run *r)
{
	bool failed = r->keyer_broken;
	size_t n = 0; /* a server another run of vx watch serves is not this run's */
	for (size_t i = 0; i < r->n; i++) {
		failed |= r->t[i].status == UI_FAIL || r->t[i].status == UI_SKIP;
		n += !run_served_elsewhere(r, &r->t[i]);
	}
	ui_summary(&r->ui, n, ui_now_ms() - r->t0);
	return failed;
}

/* Tell vx watch the run is over (run.h): its exit code, one byte, then 's'
 * in the same write when it goes on serving; once its report is out
 * (stdout flushed by the caller, or closed) */
static void watch_done(int code, bool serving)
{
	if (!run_watch_hook.on || run_watch_hook.done_fd < 0)
		return;
	fflush(stderr);
	unsigned char b[2] = {(unsigned char)code, 's'};
	size_t n = serving ? 2 : 1;
	if (write(run_watch_hook.done_fd, b, n) != (ssize_t)n) {
		/* vx watch is gone: its SIGTERM follows, or nobody waits */
	}
	close(run_watch_hook.done_fd);
	run_watch_hook.done_fd = -1;
}

/* vx watch, serving: the run's work is done while its servers run on */
static void run_watch_served(struct run *r)
{
	r->served = true;
	/* stdout stays open: the servers' lines still go there */
	bool failed = run_failed(r);
	watch_done(failed || fflush(stdout) != 0 || ferror(stdout) ? VX_EXIT_FAIL : 0, true);
}

/* Remember this run for vx-watch's next token when every task was a hit
 * with its outputs in place (so the cache's memo holds each; replay.h says
 * what else it needs). */
static void save_replay(struct run *r, char *const *names, int nnames, const char *tok)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].status != UI_HIT || r->t[i].kind == K_PERSISTENT)
			return;
	if (r->restored || r->norder != r->n)
		return;
	cJSON **recs = xcalloc(r->n ? r->n : 1, sizeof(*recs));
	for (size_t i = 0; i < r->n; i++)
		recs[i] = r->t[r->order[i]].rec;
	replay_save(r->root, names, nnames, tok, recs, r->n);
	free(recs);
}

static const char run_head[] =
	"usage: vx run TASK... [-j N] [--force] [--no-cache] [--dry[=json]] [--json] [--root DIR]\n"
	"                     [--remote-cache URL] [--log-order ORDER] [--output-logs WHAT]\n"
	"                     [--filter SEL]... [--affected] [--only] [--env-mode MODE]\n"
	"                     [--continue[=WHEN]] [--concurrency N|N%] [--cache-dir DIR]\n"
	"                     [--cache SPEC] [--log-prefix PREFIX] [--summarize] [--profile FILE]\n"
	"                     [-- ARG...]\n"
	"\n"
	"Run the tasks (a name: every project that has it; or an id, project#name)\n"
	"and everything they depend on, dependencies first, restoring cache hits.\n"
	"\n";
static const char run_tail[] =
	"\n"
	"  -- ARG...           handed to the command of each task asked for by name, each\n"
	"                      quoted for /bin/sh; they are part of its key\n"
	"\n"
	"A run of the same tasks in an unchanged workspace is replayed from the last\n"
	"one (vx-watch, started by the first run, says whether anything changed);\n"
	"VX_WATCH=0 checks every file instead. A task's output is shown whole, each\n"
	"line prefixed with its id; the first VX_LOG_MAX bytes of it (default 4M) are\n"
	"kept for --json and the cache. On a terminal, a status line shows the tasks\n"
	"done, the hits and the running tasks.\n"
	"\n"
	"Exit status: 0 every task passed or hit, 1 a task failed, 2 refused before\n"
	"running (usage, config), 130/143 interrupted.\n";

static const struct opt_spec run_specs[] = {
	{"jobs", 'j', OPT_VALUE, 'j', "N", "tasks at once (default: the number of cores)"},
	{"concurrency", 0, OPT_VALUE, 'c', "N|N%", "the same as -j, or that share of the cores (at least 1)"},
	{"continue", 0, OPT_OPTIONAL, 'C', "WHEN",
		"after a failure: dependencies-successful (default) runs on\n"
		"all but the failed task's dependents; never starts nothing\n"
		"more; always (bare --continue) runs dependents too, unsaved"},
	{"force", 0, OPT_FLAG, 'f', NULL, "run every task, ignoring hits (results are still saved)"},
	{"no-cache", 0, OPT_FLAG, 'n', NULL, "neither restore nor save"},
	{"cache", 0, OPT_VALUE, 'K', "SPEC",
		"turbo's local:rw,remote:r: r restores, w saves, a source\n"
		"left out or empty is off (local: and no remote = --no-cache)"},
	{"cache-dir", 0, OPT_VALUE, 'D', "DIR", "the local cache (the same as VX_CACHE_DIR=DIR)"},
	{"dry", 0, OPT_OPTIONAL, 'd', "json|text", "say hit or miss for each task, with its key; run nothing"},
	{"dry-run", 0, OPT_OPTIONAL, 'd', NULL, NULL},
	{"json", 0, OPT_FLAG, 'J', NULL, "machine-readable result records instead of the report"},
	{"log-order", 0, OPT_VALUE, 'O', "ORDER",
		"stream: each line of output as it comes; grouped: a task's\n"
		"whole output as it ends; auto (default): stream on a terminal"},
	{"log-prefix", 0, OPT_VALUE, 'P', "PREFIX",
		"task (or auto, the default): each output line begins\n"
		"'<id>: '; none: the line as the task wrote it"},
	{"output-logs", 0, OPT_VALUE, 'L', "WHAT",
		"whose output: full (default; hits replay theirs), new-only\n"
		"(misses), errors-only (failed tasks), hash-only (each key), none"},
	{"root", 0, OPT_VALUE, 'r', "DIR", "the workspace root (default: VX_ROOT, else found from cwd)"},
	{"remote-cache", 0, OPT_VALUE, 'R', "URL",
		"also a remote HTTP cache (VX_REMOTE_CACHE, else TURBO_API): local\n"
		"first, then remote; successes uploaded (not with\n"
		"VX_REMOTE_CACHE_READONLY=1); turbo+http(s)://... speaks Turborepo's API"},
	{"filter", 0, OPT_VALUE, 'F', "SEL",
		"only in the projects SEL selects (turbo's grammar: web, @acme/*,\n"
		"./apps/web, web..., ...web, ...^web, web^..., [main], !web;\n"
		"see vx-graph --help); several union, then exclusions subtract"},
	{"affected", 0, OPT_FLAG, 'A', NULL,
		"--filter '...[BASE]': what changed since TURBO_SCM_BASE (default\n"
		"main), committed or not, and its dependents"},
	{"only", 0, OPT_FLAG, 'o', NULL, "the tasks asked for without their dependencies"},
	{"summarize", 0, OPT_OPTIONAL, 'S', NULL,
		"write a run summary, .vx/runs/<id>.json (vx why --summary\n"
		"compares two); --summarize=false: none"},
	{"profile", 0, OPT_VALUE, 'p', "FILE",
		"write a Chrome trace of the run to FILE (Perfetto and\n"
		"chrome://tracing open it): a lane per -j slot, a span per task"},
	{"env-mode", 0, OPT_VALUE, 'E', "MODE",
		"strict (default): a task gets only PATH, HOME, USER, LOGNAME,\n"
		"SHELL, TMPDIR and the variables its cache.inputs.env and\n"
		"passThroughEnv name; loose: the whole environment (R-8a)"},
	{"help", 'h', OPT_FLAG, 'h', NULL, "this text"},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* what the command line asks beyond struct run's own fields */
struct run_args {
	const char *remote; /* the remote cache's URL, or NULL */
	bool dry;
	bool git_sel; /* a --filter names a git ref */
	bool cache_set; /* --cache given: its remote part says whether a remote is used */
	bool remote_ro;  /* --cache=...,remote:r */
	bool remote_off; /* --cache without remote:r or remote:rw */
	const char *profile; /* --profile FILE */
	/* vx-graph's selection arguments, then the TASKs: what the stages get
	 * and what a replayed run is keyed by */
	char **sel;
	int nsel;
};

/* --concurrency N or N% (of the cores, at least 1); false after a message */
static bool parse_concurrency(const char *s, size_t *jobs)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);
	if (*s >= '0' && *s <= '9' && n > 0 && strcmp(end, "%") == 0 && n <= 100) {
		*jobs = ncpus() * n / 100 ? ncpus() * n / 100 : 1;
		return true;
	}
	if (*s >= '0' && *s <= '9' && n > 0 && !*end) {
		*jobs = n;
		return true;
	}
	err_warn("--concurrency '%s': expected a number of tasks (1 or more) or a share of the "
		 "cores (1%% to 100%%)", s);
	return false;
}

/* --continue[=never|dependencies-successful|always]: bare is always, as turbo */
static bool parse_continue(const char *s, enum run_continue *out)
{
	if (!s || strcmp(s, "always") == 0 || strcmp(s, "true") == 0)
		*out = CONT_ALWAYS;
	else if (strcmp(s, "never") == 0 || strcmp(s, "false") == 0)
		*out = CONT_NEVER;
	else if (strcmp(s, "dependencies-successful") == 0)
		*out = CONT_DEPS_OK;
	else {
		err_warn("--continue=%s: expected never, dependencies-successful or always", s);
		return false;
	}
	return true;
}

/* turbo's --cache=local:rw,remote:r: each source r (restore), rw (and
 * save) or empty (off); a source left out is off. vx saves to a remote
 * only what it saves locally, and restores a remote hit through the local
 * cache, so write-only sources and a remote without the local cache are
 * refused. false after a message. */
static bool parse_cache(const char *spec, struct run *r, struct run_args *a)
{
	int local = 0, remote = 0; /* 0 off, 1 r, 2 rw */
	char *dup = xstrdup(spec), *save = NULL;
	bool ok = true;
	for (char *p = strtok_r(dup, ",", &save); p && ok; p = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(p, ':');
		int *which = NULL;
		if (colon && (size_t)(colon - p) == 5 && strncmp(p, "local", 5) == 0)
			which = &local;
		else if (colon && (size_t)(colon - p) == 6 && strncmp(p, "remote", 6) == 0)
			which = &remote;
		const char *m = colon ? colon + 1 : "";
		if (!which || (*m && strcmp(m, "r") != 0 && strcmp(m, "rw") != 0))
			ok = false;
		else
			*which = !*m ? 0 : strcmp(m, "r") == 0 ? 1 : 2;
	}
	free(dup);
	if (!ok) {
		err_warn("--cache=%s: expected local:rw, local:r or local:, then ,remote:rw, "
			 "remote:r or remote: (vx has no write-only cache)", spec);
		return false;
	}
	if (remote && !local) {
		err_warn("--cache=%s: vx restores a remote hit through its local cache; write "
			 "local:r (saves nothing) or local:rw", spec);
		return false;
	}
	if (remote == 2 && local == 1) {
		err_warn("--cache=%s: vx uploads only what it saves locally; write local:rw,remote:rw "
			 "or local:r,remote:r", spec);
		return false;
	}
	a->cache_set = true;
	r->use_cache = local > 0;
	r->no_save = local == 1;
	a->remote_off = remote == 0;
	a->remote_ro = remote == 1;
	return true;
}

/* Reads the options into r and a. Returns -1 to go on, else the exit status
 * (usage error, or --help done). */
static int parse_args(int argc, char **argv, struct run *r, struct run_args *a)
{
	const char *root_opt = getenv("VX_ROOT");
	int c;
	char *end;

	r->use_cache = true;
	r->jobs = ncpus();
	a->remote = getenv("VX_REMOTE_CACHE");
	a->sel = xcalloc((size_t)argc * 2 + 1, sizeof(*a->sel));
	/* turbo's "-- ARG...": what follows the first "--" is the tasks' */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			r->pass = argv + i + 1;
			r->npass = argc - i - 1;
			argc = i;
			break;
		}
	static struct opt_iter it; /* its operands live as long as the run */
	opt_init(&it, argc, argv, run_specs);
	while ((c = opt_next(&it)) != OPT_END) {
		switch (c) {
		case 'j':
			r->jobs = (size_t)strtoul(it.value, &end, 10);
			if (*end || !*it.value || r->jobs == 0) {
				err_warn("-j '%s': expected a number of tasks, 1 or more", it.value);
				return VX_EXIT_USAGE;
			}
			break;
		case 'f':
			r->force = true;
			break;
		case 'n':
			r->use_cache = false;
			break;
		case 'd':
			a->dry = true;
			if (it.value && strcmp(it.value, "json") == 0) {
				r->json = true;
			} else if (it.value && strcmp(it.value, "text") != 0) {
				err_warn("--dry=%s: expected json or text", it.value);
				return VX_EXIT_USAGE;
			}
			break;
		case 'c':
			if (!parse_concurrency(it.value, &r->jobs))
				return VX_EXIT_USAGE;
			break;
		case 'C':
			if (!parse_continue(it.value, &r->cont))
				return VX_EXIT_USAGE;
			break;
		case 'D':
			if (!*it.value) {
				err_warn("--cache-dir wants a directory");
				return VX_EXIT_USAGE;
			}
			setenv("VX_CACHE_DIR", it.value, 1);
			break;
		case 'K':
			if (!parse_cache(it.value, r, a))
				return VX_EXIT_USAGE;
			break;
		case 'P':
			if (strcmp(it.value, "none") == 0) {
				r->show.no_prefix = true;
			} else if (strcmp(it.value, "task") == 0 || strcmp(it.value, "auto") == 0) {
				r->show.no_prefix = false;
			} else {
				err_warn("--log-prefix %s: expected auto, none or task", it.value);
				return VX_EXIT_USAGE;
			}
			break;
		case 'A': {
			/* turbo's --affected: ...[TURBO_SCM_BASE] (TURBO_SCM_HEAD too) */
			const char *base = getenv("TURBO_SCM_BASE"), *head = getenv("TURBO_SCM_HEAD");
			a->sel[a->nsel++] = "--filter";
			if (head && *head)
				a->sel[a->nsel++] = xasprintf("...[%s...%s]", base && *base ? base : "main", head);
			else
				a->sel[a->nsel++] = xasprintf("...[%s]", base && *base ? base : "main");
			a->git_sel = true;
			break;
		}
		case 'J':
			r->json = true;
			break;
		case 'r':
			root_opt = it.value;
			break;
		case 'R':
			a->remote = it.value;
			break;
		case 'O':
			if (!ui_parse_order(it.value, &r->show.order))
				return VX_EXIT_USAGE;
			break;
		case 'L':
			if (!ui_parse_logs(it.value, &r->show.logs))
				return VX_EXIT_USAGE;
			break;
		case 'F':
			a->sel[a->nsel++] = "--filter";
			a->sel[a->nsel++] = (char *)it.value;
			a->git_sel |= strchr(it.value, '[') != NULL;
			break;
		case 'o':
			a->sel[a->nsel++] = "--only";
			break;
		case 'E':
			/* vx-graph checks the spelling and sets every task's envMode */
			a->sel[a->nsel++] = "--env-mode";
			a->sel[a->nsel++] = (char *)it.value;
			break;
		case 'S': /* turbo's --summarize[=true|false] */
			r->summarize = !it.value || strcmp(it.value, "true") == 0;
			if (it.value && !r->summarize && strcmp(it.value, "false") != 0) {
				err_warn("--summarize=%s: expected true or false", it.value);
				return VX_EXIT_USAGE;
			}
			break;
		case 'p':
			if (!profile_check(it.value))
				return VX_EXIT_USAGE;
			a->profile = it.value;
			break;
		case 'h':
			return opt_help(run_head, run_specs, run_tail);
		default:
			opt_usage(stderr, run_head, run_specs, run_tail);
			return VX_EXIT_USAGE;
		}
	}
	if (it.noperands == 0) {
		err_warn("name a task to run: vx run TASK...");
		opt_usage(stderr, run_head, run_specs, run_tail);
		return VX_EXIT_USAGE;
	}
	long long log_max = tasklog_max();
	if (log_max < 0)
		return VX_EXIT_USAGE;
	r->log_max = (size_t)log_max;
	r->show.json = r->json;
	r->root = root_opt && *root_opt ? root_opt : NULL;
	if (a->remote && !*a->remote)
		a->remote = NULL;
	/* Turborepo's own settings, so a CI's secrets serve as they are */
	static char *turbo_api;
	const char *api = getenv("TURBO_API");
	if (!a->remote && api && *api)
		a->remote = turbo_api = xasprintf("turbo+%s", api);
	if (a->cache_set && a->remote_off)
		a->remote = NULL;
	if (a->cache_set && a->remote_ro)
		setenv("VX_REMOTE_CACHE_READONLY", "1", 1);
	a->sel[a->nsel++] = "--";
	for (int i = 0; i < it.noperands; i++)
		a->sel[a->nsel++] = it.operands[i];
	return -1;
}

/* turbo's "-- ARG...": each argument, quoted for /bin/sh, appended to the
 * command of each task asked for by name or id (not their dependencies'),
 * before any is keyed: vx-key folds the command, so other arguments are
 * another key. */
static void pass_args(struct run *r, const struct run_args *a)
{
	int from = 0;
	while (from < a->nsel && strcmp(a->sel[from], "--") != 0)
		from++;
	for (size_t i = 0; r->npass && i < r->n; i++) {
		struct rtask *t = &r->t[i];
		const char *name = graphin_str(t->rec, "name"), *cmd = graphin_str(t->rec, "command");
		bool asked = false;
		for (int k = from + 1; k < a->nsel && !asked; k++)
			asked = strcmp(a->sel[k], t->id) == 0 || (name && strcmp(a->sel[k], name) == 0);
		if (!asked || !cmd || t->kind == K_GROUP)
			continue;
		struct strbuf b = {0};
		strbuf_add(&b, cmd, strlen(cmd));
		for (int k = 0; k < r->npass; k++) {
			strbuf_add(&b, " '", 2);
			for (const char *p = r->pass[k]; *p; p++)
				if (*p == '\'')
					strbuf_add(&b, "'\\''", 4);
				else
					strbuf_add(&b, p, 1);
			strbuf_add(&b, "'", 1);
		}
		strbuf_add(&b, "", 1);
		cJSON_ReplaceItemInObjectCaseSensitive(t->rec, "command", cJSON_CreateString(b.buf));
		free(t->rec_line); /* no longer the record */
		t->rec_line = NULL;
		strbuf_release(&b);
	}
}

/* Graphs, keys and runs the selected tasks, then stops the run's stages.
 * Returns 0, or the status vx-graph's refusal gives. */
static int run_tasks(struct run *r, const struct run_args *a)
{
	/* vx-key starts first and loads its stat cache while vx-graph works;
	 * the graph record reaches it as soon as it is read */
	r->keyer_spawned = keyer_spawn(&r->keyer) == 0;
	/* tasks with no dependency go to vx-key as they are read; not when
	 * "-- ARG" is to change commands first (pass_args) */
	r->early_ok = r->keyer_spawned && !r->npass;
	double p = ui_now_ms();
	struct graphin_calls calls = {.on_graph = run_graph_read, .on_task = run_task_read, .arg = r};
	int rc = graphin_load_then(&r->g, r->root, a->sel, a->nsel, false, false, true, &calls);
	r->early_ok = false;
	profile_span(PROFILE_MAIN, "phase", "graph", p, ui_now_ms(), (const char *)NULL);
	if (rc) {
		if (r->keyer_spawned)
			keyer_stop(&r->keyer);
		if (r->cache_open)
			runcache_close(&r->cache);
		free(r->early);
		return rc;
	}
	if (r->nearly && keyer_flush(&r->keyer) != 0)
		r->keyer_broken = true;
	run_cache_open(r, r->g.graph); /* opened already on the graph record */
	ui_init(&r->ui, &r->show);
	r->t0 = ui_now_ms();
	if (a->remote && r->use_cache)
		runcache_remote(&r->cache, a->remote);
	/* as many writers as tasks may run at once, up to the cores: creating
	 * a file is kernel work that runs on every core (-j1: none, the pump
	 * writes each hit itself, in order). None with a remote cache: a
	 * remote hit is written into the local cache (a save, cache.h), which
	 * must not run beside restores */
	size_t writers = r->jobs < ncpus() ? r->jobs : ncpus();
	r->writers = workq_new(r->jobs > 1 && !r->cache.remote ? writers : 0, runcache_write);
	r->steps = (struct run_steps){.pump = run_key_pump, .start = run_start,
		.drain = run_drain, .exited = run_exited,
		.served = run_watch_hook.on && run_watch_hook.serve ? run_watch_served : NULL};
	run_build(r);
	pass_args(r, a);
	if (run_watch_hook.header) {
		size_t n = 0;
		for (size_t i = 0; i < r->n; i++)
			n += !run_served_elsewhere(r, &r->t[i]);
		run_watch_hook.header(n);
	}
	run_setup_signals();
	p = ui_now_ms();
	run_loop(r);
	profile_span(PROFILE_MAIN, "phase", "tasks", p, ui_now_ms(), (const char *)NULL);
	free(r->graph_line);
	r->graph_line = NULL;
	free(r->early);
	r->early = NULL;
	workq_free(r->writers);
	if (r->keyer_spawned)
		keyer_stop(&r->keyer);
	netproxy_stop(&r->net);
	report_stop();
	runcache_close(&r->cache); /* the remote's connections and libcurl too */
	return 0;
}

/* The exit status of a run that ran: interrupted, served by vx watch,
 * failed or passed. */
static int run_exit(struct run *r)
{
	if (r->interrupted) {
		ui_interrupted(&r->ui, r->signo);
		jsonl_out_finish();
		return r->signo == SIGINT ? VX_EXIT_SIGINT : VX_EXIT_SIGTERM;
	}
	if (r->served) /* its report is out; its servers have all exited */
		return jsonl_out_finish();
	bool failed = run_failed(r);
	int out = jsonl_out_finish();
	if (failed)
		out = VX_EXIT_FAIL;
	watch_done(out, false);
	return out;
}

int run_main(int argc, char **argv)
{
	/* the run's state lives as long as the process (and stays reachable) */
	static struct run r;
	static struct run_args a;
	/* the command line as given, for the summary: getopt reorders argv */
	static char **given;
	given = xcalloc((size_t)argc + 1, sizeof(*given));
	memcpy(given, argv, (size_t)argc * sizeof(*given));
	int rc = parse_args(argc, argv, &r, &a);
	if (rc >= 0)
		return rc;
	r.rerun = run_watch_hook.on && !run_watch_hook.serve;
	jsonl_out_init();
	if (a.dry && r.npass) {
		err_warn("--dry with '-- ARG...': not yet; --dry shows the keys without the arguments");
		return VX_EXIT_USAGE;
	}
	if (a.dry && r.summarize)
		err_warn("--summarize: a --dry run writes no summary");
	if (a.dry)
		return dry_main(&(struct dry_opts){.root = r.root, .args = a.sel, .nargs = a.nsel,
			.json = r.json, .use_cache = r.use_cache, .force = r.force,
			.remote = a.remote});

	/* vx-watch's token first, before anything is read: the run it vouches
	 * for is replayed whole; else one taken now lets this run be. Not with
	 * a git ref in a filter: a commit moves what it selects without a
	 * change vx-watch sees */
	char tok[WATCHQ_TOKEN_MAX];
	bool watched = r.use_cache && !r.force && !a.remote && !a.git_sel && !r.npass && !r.no_save &&
		       wsroot_find(".", r.root, false, &r.wroot) == 0 && watchq_token(r.wroot, tok);
	if (r.summarize) /* a replay writes one too, without inputs (summary.h) */
		summary_start(argc, given);
	watched = watched && !a.profile; /* --profile: the run itself, not a replay */
	if (watched && !(run_watch_hook.on && !run_watch_hook.serve)) {
		int out = replay_try(r.wroot, a.sel, a.nsel, tok, &r.show, false);
		if (out >= 0)
			return out;
	}
	double p = ui_now_ms();
	if (a.profile)
		profile_open(a.profile);
	rc = run_tasks(&r, &a);
	if (rc)
		return rc;
	profile_span(PROFILE_MAIN, "run", "vx run", p, ui_now_ms(), (const char *)NULL);
	bool profile_failed = profile_write() != 0;
	if (watched && !r.interrupted && !r.keyer_broken && strcmp(r.root, r.wroot) == 0)
		save_replay(&r, a.sel, a.nsel, tok);
	int out = run_exit(&r);
	if (r.summarize)
		summary_write(&r, out);
	return out == 0 && profile_failed ? VX_EXIT_FAIL : out;
}
