/* run_int.h: what the files of vx run share (run.h is what vx sees). One
 * run's state, struct run, and its task table, struct rtask, and the calls
 * between the files, each owned by one file:
 *   run.c        the options and run_main's wiring: vx watch's hooks
 *                (struct run_watch), --dry, --filter/--only, the replay
 *   run_sched.c  the scheduler: the task table, the ready queue, -j slots,
 *                dependency accounting, skips on failure, signals, the loop
 *   run_key.c    keying with vx-key and settling what needs no slot (groups,
 *                cache hits, their outputs written by the writers)
 *   run_launch.c the launch of one task: its request file, vx-sandbox or
 *                /bin/sh, its environment and pipe, its vx-proxy attach
 *   run_end.c    the end of one task: its output read, vx-report's verdict,
 *                the cache save, the outcome kept for vx graph
 *   run_prof.c   a task's span in the --profile trace (profile.h)
 * The files call downward only (scripts/linkcycles.py checks it): run.c
 * wires the others; run_launch.c, run_end.c and run_key.c call the
 * scheduler; the scheduler calls them back only through struct run_steps
 * (git's run_processes_parallel: the loop knows callbacks, not callers).
 * Everything here lives as long as the run: one process runs one run. */
#ifndef VX_BIN_RUN_INT_H
#define VX_BIN_RUN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "graphin.h"
#include "keyer.h"
#include "netproxy.h"
#include "run.h"
#include "runcache.h"
#include "tasklog.h"
#include "ui.h"
#include "workq.h"

struct rtask {
	cJSON *rec; /* graph record; replaced by the keyed record once keyed */
	char *rec_line; /* the graph record's line as vx-graph wrote it, until rec is
			 * changed or keyed (NULL then): sent to vx-key as it is */
	const char *id, *dir;
	enum { K_EXEC, K_GROUP, K_PERSISTENT } kind;
	bool cached, sandboxed;
	size_t *rdeps, nrdeps; /* dependents */
	size_t pending;        /* dependencies not yet finished */
	struct rtask *blocked; /* a dependency that failed or was skipped */
	enum ui_status status;
	bool done, running;
	char key[33];
	pid_t pid;
	int outfd;
	struct strbuf log;   /* its head, or a hit's replayed log */
	struct strbuf line;  /* streamed: the start of a line not yet ended (ui.h) */
	bool streamed;       /* its output is shown as it comes */
	struct tasklog out;  /* a run's whole output, past the head (tasklog.h) */
	double started, ms;
	int exit_code;
	bool all_hits; /* a group: every dependency was a hit */
	bool keyed;    /* its key was taken ahead, in the key pump */
	bool in_flight; /* sent to vx-key, not answered yet */
	bool probed;   /* keyed and looked up: a miss, to run */
	struct strbuf viol;  /* its sandbox violations */
	bool recorded; /* sandboxed: its records stream to vx-report (report.h) */
	bool traced;   /* and they hold its accesses: not a persistent task */
	bool untraced; /* sandboxed, but the kernel refused its trace: never saved (R-10a) */
	bool dep_failed; /* --continue=always: ran after a dependency failed; never saved */
	bool stopped;    /* --continue=never: skipped because the run stopped */
	bool remote_hit; /* its hit was fetched from the remote cache (summary.h) */
	int lane;        /* --profile: the trace's lane it holds (profile.h) */
	double spawned;  /* --profile: when its command started */
	bool profiled;   /* --profile: its span is in the trace */
};

/* What the scheduler's loop calls back (run.c fills them in): the key
 * pump before tasks start, a ready task's start, its pipe readable, its
 * process reaped, and vx watch's "the work is done, servers go on" (NULL
 * unless this run serves for vx watch). */
struct run;
struct run_steps {
	void (*pump)(struct run *r);
	void (*start)(struct run *r, struct rtask *t);
	void (*drain)(struct run *r, struct rtask *t);
	void (*exited)(struct run *r, struct rtask *t, int st);
	void (*served)(struct run *r);
};

/* --continue: what a failure stops (turbo's values; vx's default differs) */
enum run_continue { CONT_DEPS_OK, CONT_NEVER, CONT_ALWAYS };

struct run {
	struct graphin g;
	char *graph_line; /* g's graph record as a request's first line, once
			   * (taskreq_graph_line), for every sandboxed task */
	struct rtask *t;
	size_t n, done, running, jobs;
	const char *root;
	char *wroot; /* the root found before vx-graph ran, for vx-watch (replay.h) */
	size_t *ready, nready;
	size_t *order, norder; /* the tasks in the order they finished */
	struct keyer keyer;
	bool keyer_spawned; /* started at the outset, to load while vx-graph works */
	bool keyer_up, keyer_broken; /* up: handed the graph record */
	/* tasks sent to vx-key while the graph was still being read (no deps,
	 * so ready at once): the pump takes their answers first, in order */
	bool early_ok;
	struct early_key {
		size_t task;
		long size;
	} *early;
	size_t nearly;
	long early_bytes;
	bool rescan; /* a task ran or was restored since vx-key last read the lockfiles */
	size_t restored; /* hits whose outputs were written */
	struct runcache cache;
	bool cache_open; /* run_cache_open: once the graph record came */
	struct workq *writers; /* hits' outputs written while the pump goes on */
	bool use_cache, force, json, interrupted;
	bool stopping; /* the run is over: servers stopped now did not fail */
	int signo;
	double t0;
	struct ui ui;
	struct ui_opts show; /* --json, --log-order, --output-logs */
	size_t log_max; /* VX_LOG_MAX: the head of a task's output kept */
	struct netproxy net; /* started on the first task with a network grant */
	enum run_continue cont;
	struct rtask *halted_by; /* --continue=never: the failure that stopped the run */
	bool no_save;            /* --cache=local:r: restore, never save */
	char **pass;             /* "-- ARG...": the asked-for tasks' arguments */
	int npass;
	bool served; /* vx watch: the run's report is out, its servers go on (run.h) */
	bool summarize; /* --summarize: the run summary is written at the end (summary.h) */
	bool rerun; /* vx watch, a rerun: its persistent tasks are served by an earlier run */
	struct run_steps steps;
};

/* vx watch, a rerun: a persistent task is served by an earlier run still */
static inline bool run_served_elsewhere(const struct run *r, const struct rtask *t)
{
	return t->kind == K_PERSISTENT && r->rerun;
}

/* run_sched.c */
extern volatile sig_atomic_t run_stop_requested; /* SIGINT or SIGTERM came */
void run_release(struct run *r, struct rtask *t);
void run_finish(struct run *r, struct rtask *t, enum ui_status st);
void run_fail_msg(struct run *r, struct rtask *t, const char *fmt, const char *arg);
void run_progress(struct run *r);
/* How t ended, kept for vx graph --dot/--html */
void run_keep_outcome(struct run *r, struct rtask *t, enum ui_status st);
void run_loop(struct run *r);
void run_setup_signals(void);
void run_build(struct run *r);

/* run_key.c */
/* graphin's hooks (graphin.h): the graph record (the run cache opened, vx-key
 * handed it), then each task record (one with no dependency sent to vx-key
 * at once, while early_ok) */
void run_graph_read(void *arg, const cJSON *graph);
/* Open the run's cache for graph's root, which r->root becomes; once. */
void run_cache_open(struct run *r, const cJSON *graph);
void run_task_read(void *arg, size_t i, const cJSON *task, const char *line);
bool run_key_task(struct run *r, struct rtask *t);
/* Can t come from the cache this run (an exec task with a cache block, the
 * cache on, no --force, and when sandboxed, a run that can trace it:
 * traceprobe.h)? Else it runs once keyed. */
bool run_may_hit(const struct run *r, const struct rtask *t);
void run_hit(struct run *r, struct rtask *t, struct strbuf *log);
void run_key_pump(struct run *r);

/* run_launch.c */
void run_start(struct run *r, struct rtask *t);

/* run_end.c */
void run_drain(struct run *r, struct rtask *t);
void run_exited(struct run *r, struct rtask *t, int st);

/* run_prof.c: t's span in the --profile trace, once, ending now; its lane
 * given back. Nothing without --profile. */
void run_prof_end(struct rtask *t, const char *status);

#endif
