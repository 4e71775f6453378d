/* vx run. Runs the tasks of vx-graph's records by the graph
 * with -j, keys each one with vx-key when it is ready (R-9a), restores hits
 * from the cache, runs misses under /bin/sh -c in their project, saves
 * successes, skips the dependents of a failure, and prints a line per task
 * . SIGINT/SIGTERM stop every task's process group and save nothing
 * (R-43). */
/* This file: the options and the wiring of one run; run_int.h says which
 * file holds the rest. */
#include "run.h"
#include "run_int.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dry.h"
#include "err.h"
#include "jsonl.h"
#include "replay.h"
#include "report.h"
#include "watchq.h"
#include "wsroot.h"

struct run_watch run_watch_hook; /* vx watch's hold on this run (run.h) */

void run_watch_set(const struct run_watch *w)
{
	run_watch_hook = *w;
}

/* vx watch, a rerun: a persistent task is served by an earlier run still */
bool run_served_elsewhere(const struct rtask *t)
{
	return t->kind == K_PERSISTENT && run_watch_hook.on && !run_watch_hook.serve;
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
		n += !run_served_elsewhere(&r->t[i]);
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
void run_watch_served(struct run *r)
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

static const char run_usage[] =
	"usage: vx run TASK... [-j N] [--force] [--no-cache] [--dry] [--json] [--root DIR]\n"
	"                     [--remote-cache URL] [--log-order ORDER] [--output-logs WHAT]\n"
	"                     [--filter SEL]... [--only] [--env-mode MODE]\n"
	"\n"
	"Run the tasks (a name: every project that has it; or an id, project#name)\n"
	"and everything they depend on, dependencies first, restoring cache hits.\n"
	"\n"
	"  -j, --jobs N      tasks at once (default: the number of cores)\n"
	"  --force           run every task, ignoring hits (results are still saved)\n"
	"  --no-cache        neither restore nor save\n"
	"  --dry             say hit or miss for each task, with its key; run nothing\n"
	"  --json            machine-readable result records instead of the report\n"
	"  --log-order ORDER stream: each line of output as it comes; grouped: a task's\n"
	"                    whole output as it ends; auto (default): stream on a terminal\n"
	"  --output-logs WHAT  whose output: full (default; hits replay theirs), new-only\n"
	"                    (misses), errors-only (failed tasks), hash-only (each key), none\n"
	"  --root DIR        the workspace root (default: VX_ROOT, else found from cwd)\n"
	"  --remote-cache URL  also a remote HTTP cache (VX_REMOTE_CACHE, else TURBO_API): local\n"
	"                    first, then remote; successes uploaded (not with\n"
	"                    VX_REMOTE_CACHE_READONLY=1); turbo+http(s)://... speaks Turborepo's API\n"
	"  --filter SEL      only in the projects SEL selects (turbo's grammar: web, @acme/*,\n"
	"                    ./apps/web, web..., ...web, ...^web, web^..., [main], !web;\n"
	"                    see vx-graph --help); several union, then exclusions subtract\n"
	"  --only            the tasks asked for without their dependencies\n"
	"  --env-mode MODE   strict (default): a task gets only PATH, HOME, USER, LOGNAME,\n"
	"                    SHELL, TMPDIR and the variables its cache.inputs.env and\n"
	"                    passThroughEnv name; loose: the whole environment (R-8a)\n"
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

/* what the command line asks beyond struct run's own fields */
struct run_args {
	const char *remote; /* the remote cache's URL, or NULL */
	bool dry;
	bool git_sel; /* a --filter names a git ref */
	/* vx-graph's selection arguments, then the TASKs: what the stages get
	 * and what a replayed run is keyed by */
	char **sel;
	int nsel;
};

/* Reads the options into r and a. Returns -1 to go on, else the exit status
 * (usage error, or --help done). */
static int parse_args(int argc, char **argv, struct run *r, struct run_args *a)
{
	static const struct option opts[] = {
		{"jobs", required_argument, NULL, 'j'},
		{"force", no_argument, NULL, 'f'},
		{"no-cache", no_argument, NULL, 'n'},
		{"dry", no_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'J'},
		{"root", required_argument, NULL, 'r'},
		{"remote-cache", required_argument, NULL, 'R'},
		{"log-order", required_argument, NULL, 'O'},
		{"output-logs", required_argument, NULL, 'L'},
		{"filter", required_argument, NULL, 'F'},
		{"only", no_argument, NULL, 'o'},
		{"env-mode", required_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *root_opt = getenv("VX_ROOT");
	int c;
	char *end;

	r->use_cache = true;
	r->jobs = ncpus();
	a->remote = getenv("VX_REMOTE_CACHE");
	a->sel = xcalloc((size_t)argc * 2 + 1, sizeof(*a->sel));
	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			r->jobs = (size_t)strtoul(optarg, &end, 10);
			if (*end || !*optarg || r->jobs == 0) {
				err_warn("-j '%s': expected a number of tasks, 1 or more", optarg);
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
			break;
		case 'J':
			r->json = true;
			break;
		case 'r':
			root_opt = optarg;
			break;
		case 'R':
			a->remote = optarg;
			break;
		case 'O':
			if (!ui_parse_order(optarg, &r->show.order))
				return VX_EXIT_USAGE;
			break;
		case 'L':
			if (!ui_parse_logs(optarg, &r->show.logs))
				return VX_EXIT_USAGE;
			break;
		case 'F':
			a->sel[a->nsel++] = "--filter";
			a->sel[a->nsel++] = optarg;
			a->git_sel |= strchr(optarg, '[') != NULL;
			break;
		case 'o':
			a->sel[a->nsel++] = "--only";
			break;
		case 'E':
			/* vx-graph checks the spelling and sets every task's envMode */
			a->sel[a->nsel++] = "--env-mode";
			a->sel[a->nsel++] = optarg;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return jsonl_out_finish();
		default:
			fputs(run_usage, stderr);
			return VX_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		err_warn("name a task to run: vx run TASK...");
		fputs(run_usage, stderr);
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
	a->sel[a->nsel++] = "--";
	for (int i = optind; i < argc; i++)
		a->sel[a->nsel++] = argv[i];
	return -1;
}

/* Graphs, keys and runs the selected tasks, then stops the run's stages.
 * Returns 0, or the status vx-graph's refusal gives. */
static int run_tasks(struct run *r, const struct run_args *a)
{
	/* vx-key starts first and loads its stat cache while vx-graph works;
	 * the graph record reaches it as soon as it is read */
	r->keyer_spawned = keyer_spawn(&r->keyer) == 0;
	int rc = graphin_load_then(&r->g, r->root, a->sel, a->nsel, false, false, run_graph_read, r);
	if (rc) {
		if (r->keyer_spawned)
			keyer_stop(&r->keyer);
		return rc;
	}
	r->root = graphin_str(r->g.graph, "root");
	ui_init(&r->ui, &r->show);
	r->t0 = ui_now_ms();
	runcache_open(&r->cache, r->root);
	if (a->remote && r->use_cache)
		runcache_remote(&r->cache, a->remote);
	/* as many writers as tasks may run at once, up to the cores: creating
	 * a file is kernel work that runs on every core (-j1: none, the pump
	 * writes each hit itself, in order). None with a remote cache: a
	 * remote hit is written into the local cache (a save, cache.h), which
	 * must not run beside restores */
	size_t writers = r->jobs < ncpus() ? r->jobs : ncpus();
	r->writers = workq_new(r->jobs > 1 && !r->cache.remote ? writers : 0, runcache_write);
	run_build(r);
	if (run_watch_hook.header) {
		size_t n = 0;
		for (size_t i = 0; i < r->n; i++)
			n += !run_served_elsewhere(&r->t[i]);
		run_watch_hook.header(n);
	}
	run_setup_signals();
	run_loop(r);
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
	int rc = parse_args(argc, argv, &r, &a);
	if (rc >= 0)
		return rc;
	jsonl_out_init();
	if (a.dry)
		return dry_main(&(struct dry_opts){.root = r.root, .args = a.sel, .nargs = a.nsel,
			.json = r.json, .use_cache = r.use_cache, .force = r.force,
			.remote = a.remote});

	/* vx-watch's token first, before anything is read: the run it vouches
	 * for is replayed whole; else one taken now lets this run be. Not with
	 * a git ref in a filter: a commit moves what it selects without a
	 * change vx-watch sees */
	char tok[WATCHQ_TOKEN_MAX];
	bool watched = r.use_cache && !r.force && !a.remote && !a.git_sel &&
		       wsroot_find(".", r.root, false, &r.wroot) == 0 && watchq_token(r.wroot, tok);
	if (watched && !(run_watch_hook.on && !run_watch_hook.serve)) {
		int out = replay_try(r.wroot, a.sel, a.nsel, tok, &r.show, false);
		if (out >= 0)
			return out;
	}
	rc = run_tasks(&r, &a);
	if (rc)
		return rc;
	if (watched && !r.interrupted && !r.keyer_broken && strcmp(r.root, r.wroot) == 0)
		save_replay(&r, a.sel, a.nsel, tok);
	return run_exit(&r);
}
