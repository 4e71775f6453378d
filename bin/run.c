/* vx run: the scheduler. Runs the tasks of vx-graph's records by the graph
 * with -j, keys each one with vx-key when it is ready (R-9a), restores hits
 * from the cache, runs misses under /bin/sh -c in their project, saves
 * successes, skips the dependents of a failure, and prints a line per task
 * . SIGINT/SIGTERM stop every task's process group and save nothing
 * (R-43). */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dry.h"
#include "err.h"
#include "explain.h"
#include "graphin.h"
#include "jsonl.h"
#include "keyer.h"
#include "netproxy.h"
#include "path.h"
#include "proc.h"
#include "runcache.h"
#include "replay.h"
#include "report.h"
#include "strmap.h"
#include "tasklog.h"
#include "taskreq.h"
#include "ui.h"
#include "watchq.h"
#include "workq.h"
#include "wsroot.h"

struct rtask {
	cJSON *rec; /* graph record; replaced by the keyed record once keyed */
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
	struct ui_buf log;   /* its head, or a hit's replayed log */
	struct ui_buf line;  /* streamed: the start of a line not yet ended (ui.h) */
	bool streamed;       /* its output is shown as it comes */
	struct tasklog out;  /* a run's whole output, past the head (tasklog.h) */
	double started, ms;
	int exit_code;
	bool all_hits; /* a group: every dependency was a hit */
	bool keyed;    /* its key was taken ahead, in the key pump */
	bool in_flight; /* sent to vx-key, not answered yet */
	bool probed;   /* keyed and looked up: a miss, to run */
	char *request; /* vx-sandbox's request file while it runs */
	bool networked;      /* served by vx-proxy: its denies are collected at exit */
	struct ui_buf viol;  /* its sandbox violations */
	char *trace;   /* its access records (report.h), one-shot tasks only */
};

struct run {
	struct graphin g;
	struct rtask *t;
	size_t n, done, running, jobs;
	const char *root;
	char *wroot; /* the root found before vx-graph ran, for vx-watch (replay.h) */
	size_t *ready, nready;
	size_t *order, norder; /* the tasks in the order they finished */
	struct keyer keyer;
	bool keyer_spawned; /* started at the outset, to load while vx-graph works */
	bool keyer_up, keyer_broken; /* up: handed the graph record */
	bool rescan; /* a task ran or was restored since vx-key last read the lockfiles */
	size_t restored; /* hits whose outputs were written */
	struct runcache cache;
	struct workq *writers; /* hits' outputs written while the pump goes on */
	bool use_cache, force, json, interrupted;
	bool stopping; /* the run is over: servers stopped now did not fail */
	int signo;
	double t0;
	struct ui ui;
	struct ui_opts show; /* --json, --log-order, --output-logs */
	size_t log_max; /* VX_LOG_MAX: the head of a task's output kept */
	struct netproxy net; /* started on the first task with a network grant */
	bool served; /* vx watch: the run's report is out, its servers go on (run.h) */
};

static struct run_watch watch_hook; /* vx watch's hold on this run (run.h) */

void run_watch_set(const struct run_watch *w)
{
	watch_hook = *w;
}

/* vx watch, a rerun: a persistent task is served by an earlier run still */
static bool served_elsewhere(const struct rtask *t)
{
	return t->kind == K_PERSISTENT && watch_hook.on && !watch_hook.serve;
}

static int sigpipe_fds[2] = {-1, -1};
static volatile sig_atomic_t stop_requested; /* SIGINT or SIGTERM came */

static void on_signal(int sig)
{
	int e = errno;
	if (sig == SIGINT || sig == SIGTERM)
		stop_requested = 1;
	unsigned char b = (unsigned char)sig;
	if (write(sigpipe_fds[1], &b, 1) < 0) {
		/* the pipe is full: the loop will wake anyway */
	}
	errno = e;
}

static size_t ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

static void finish(struct run *r, struct rtask *t, enum ui_status st);
static void progress(struct run *r);

static void release(struct run *r, struct rtask *t)
{
	bool bad = t->status == UI_FAIL || t->status == UI_SKIP;
	for (size_t i = 0; i < t->nrdeps; i++) {
		struct rtask *d = &r->t[t->rdeps[i]];
		if (bad && !d->blocked)
			d->blocked = t;
		if (t->status != UI_HIT)
			d->all_hits = false;
		if (--d->pending == 0) {
			if (d->blocked)
				finish(r, d, UI_SKIP);
			else
				r->ready[r->nready++] = t->rdeps[i];
		}
	}
}

/* How t ended, kept for vx graph --dot/--html, which draw each task as its
 * last run left it. */
static void keep_outcome(struct run *r, struct rtask *t, enum ui_status st)
{
	static const char *const outcome[UI_NSTATUS] = {[UI_HIT] = "hit", [UI_MISS] = "ran",
		[UI_DONE] = "ran", [UI_SKIP] = "skipped", [UI_STARTED] = "ran"};
	const char *o = st == UI_FAIL ? (t->viol.len ? "violation" : "failed") : outcome[st];
	if (o)
		runcache_outcome(&r->cache, r->root, t->id, o);
}

static void finish(struct run *r, struct rtask *t, enum ui_status st)
{
	t->status = st;
	t->done = true;
	r->done++;
	r->order[r->norder++] = (size_t)(t - r->t);
	struct ui_result res = {
		.id = t->id,
		.status = st,
		.ms = t->ms,
		.key = t->key[0] ? t->key : NULL,
		.exit_code = t->exit_code,
		.log = t->log.data,
		.loglen = t->log.len,
		.full = &t->out,
		.blocked_by = t->blocked ? t->blocked->id : NULL,
		.streamed = t->streamed,
		.violations = t->viol.data,
		.vlen = t->viol.len,
	};
	ui_result(&r->ui, &res);
	keep_outcome(r, t, st);
	tasklog_free(&t->out);
	release(r, t);
}

static void fail_msg(struct run *r, struct rtask *t, const char *fmt, const char *arg)
{
	char *m = xasprintf(fmt, arg);
	ui_buf_add(&t->log, m, strlen(m));
	ui_buf_add(&t->log, "\n", 1);
	free(m);
	t->exit_code = -1;
	finish(r, t, UI_FAIL);
}

/* vx-key is ready for the next record: up (started at the outset and handed
 * the graph record by graph_read; when either failed it said so then) and
 * told of a rescan if one is owed. false after a message. */
static bool keyer_ready(struct run *r)
{
	if (!r->keyer_up)
		r->keyer_broken = true;
	if (r->keyer_broken)
		return false;
	if (r->rescan) {
		if (keyer_rescan(&r->keyer) != 0) {
			r->keyer_broken = true;
			return false;
		}
		r->rescan = false;
	}
	return true;
}

/* graphin's hook: the graph record, before the task records are read. */
static void graph_read(void *arg, const cJSON *graph)
{
	struct run *r = arg;
	if (!r->keyer_spawned || r->keyer_up)
		return;
	if (keyer_begin(&r->keyer, graph) != 0)
		r->keyer_broken = true;
	else
		r->keyer_up = true;
}

/* Take in vx-key's answer for t. */
static bool take_key(struct run *r, struct rtask *t, cJSON *k)
{
	const char *key = k ? graphin_str(k, "key") : NULL;
	if (!key || strlen(key) != 32) {
		cJSON_Delete(k);
		r->keyer_broken = true;
		return false;
	}
	memcpy(t->key, key, 33);
	/* the answer holds only what vx-key added: into the task's record */
	taskreq_move_key_members(t->rec, k);
	cJSON_Delete(k);
	runcache_remember(&r->cache, r->root, t->id, t->rec);
	t->keyed = true;
	return true;
}

/* Take t's key now that its dependencies are done. false after a message. */
static bool key_task(struct run *r, struct rtask *t)
{
	if (!keyer_ready(r))
		return false;
	return take_key(r, t, keyer_key(&r->keyer, t->rec));
}

static bool needs_key(const struct rtask *t)
{
	return !t->keyed && t->kind != K_PERSISTENT;
}

static void ready_remove(struct run *r, size_t ti)
{
	for (size_t i = 0; i < r->nready; i++)
		if (r->ready[i] == ti) {
			r->ready[i] = r->ready[--r->nready];
			return;
		}
}

/* t is a hit; its replayed log is *log, or t->log already when NULL. */
static void hit(struct run *r, struct rtask *t, struct ui_buf *log)
{
	if (log) {
		ui_buf_free(&t->log);
		t->log = *log;
	}
	t->ms = ui_now_ms() - t->started;
	finish(r, t, UI_HIT);
}

/* A keyed task that needs no job slot is settled at once: a group is done, a
 * cached task whose result is in the cache is a hit (in place, or its
 * outputs handed to the writers: written() finishes it). A miss is
 * remembered so start() does not look again. */
static void settle(struct run *r, size_t ti)
{
	struct rtask *t = &r->t[ti];
	if (t->kind == K_GROUP) {
		ready_remove(r, ti);
		t->started = ui_now_ms();
		finish(r, t, t->all_hits ? UI_HIT : UI_DONE);
		return;
	}
	if (t->kind != K_EXEC || !t->cached || !r->use_cache || r->force)
		return;
	t->started = ui_now_ms();
	struct ui_buf log = {0};
	struct runcache_write *job;
	int h = runcache_hit(&r->cache, t->key, r->root, t->dir, &log, &job);
	if (!h) {
		ui_buf_free(&log);
		t->probed = true;
		return;
	}
	ready_remove(r, ti);
	if (h == 1) {
		hit(r, t, &log);
		return;
	}
	ui_buf_free(&t->log);
	t->log = log;
	job->task = ti;
	workq_put(r->writers, job);
}

/* A hit's writes are done: a hit, or (nothing half-written) a miss to run. */
static void written(struct run *r, struct runcache_write *job)
{
	struct rtask *t = &r->t[job->task];
	if (runcache_written(job)) {
		r->rescan = true; /* a lockfile may be an output */
		r->restored++;
		hit(r, t, NULL);
		return;
	}
	ui_buf_free(&t->log);
	t->probed = true;
	r->ready[r->nready++] = (size_t)(t - r->t);
}

/* Stream every ready task through vx-key, several in flight, settling each
 * answer as it comes while vx-key keys the next: the dependents a hit
 * releases join the same stream, so an all-hit run is one pipeline, vx-key
 * hashing while the driver restores. What stays in ready needs a job slot. */
static void key_pump(struct run *r)
{
	bool any = false;
	for (size_t i = 0; i < r->nready && !any; i++)
		any = needs_key(&r->t[r->ready[i]]);
	if (!any || !keyer_ready(r))
		return;
	size_t *fifo = xcalloc(r->n, sizeof(*fifo)), head = 0, tail = 0;
	long *size = xcalloc(r->n, sizeof(*size)), inflight = 0;
	struct runcache_write *job;
	while (!r->keyer_broken && !stop_requested) {
		while ((job = workq_get(r->writers, false)))
			written(r, job);
		for (size_t i = 0; i < r->nready && inflight < KEYER_INFLIGHT; i++) {
			size_t ti = r->ready[i];
			struct rtask *t = &r->t[ti];
			if (!needs_key(t) || t->in_flight)
				continue;
			if (!keyer_ready(r)) /* a rescan owed since the last record */
				break;
			long sz = keyer_send(&r->keyer, t->rec);
			if (sz < 0) {
				r->keyer_broken = true;
				break;
			}
			t->in_flight = true;
			fifo[tail] = ti;
			size[tail++] = sz;
			inflight += sz;
		}
		if (head == tail) {
			if (!workq_pending(r->writers))
				break;
			written(r, workq_get(r->writers, true));
			continue;
		}
		size_t ti = fifo[head];
		inflight -= size[head++];
		r->t[ti].in_flight = false;
		if (!take_key(r, &r->t[ti], keyer_recv(&r->keyer)))
			break; /* take_key marked the keyer broken */
		settle(r, ti);
	}
	/* unanswered (broken keyer, or a signal): start() keys them again, or
	 * fails them, or the run stops; answers still owed mean the stream is
	 * out of step, so it is not used again */
	if (head != tail)
		r->keyer_broken = true;
	for (; head < tail; head++)
		r->t[fifo[head]].in_flight = false;
	/* a hit being written is never left half-done, even on a signal */
	while ((job = workq_get(r->writers, true)))
		written(r, job);
	free(fifo);
	free(size);
}

static char *path_env(const struct run *r, const struct rtask *t)
{
	const char *path = getenv("PATH");
	char *proj = path_join(r->root, t->dir);
	char *s = xasprintf("PATH=%s/node_modules/.bin:%s/node_modules/.bin:%s", proj, r->root,
		path ? path : "/usr/bin:/bin");
	free(proj);
	return s;
}

/* Remove a request, its trace if one is left, and their private directory;
 * frees PATH. */
static void remove_request(char *path)
{
	char *trace = report_trace_path(path);
	unlink(trace);
	free(trace);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	free(path);
}

/* vx-sandbox's request: the graph record and the task's, in a file of a
 * private directory (mkdtemp, 0700) so that nothing another local user
 * plants in the shared TMPDIR can stand at its name or at its trace's
 * (report_trace_path puts the trace beside it). */
static char *write_request(struct run *r, struct rtask *t, const char *proxy_socket)
{
	const char *tmpdir = getenv("TMPDIR");
	char *dir = xasprintf("%s/vx-task-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	char *path = xasprintf("%s/request", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rmdir(dir);
		free(dir);
		free(path);
		return NULL;
	}
	free(dir);
	/* with the task's vx-proxy socket, for its bridge */
	char *text = taskreq_format(r->g.graph, t->rec, proxy_socket);
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	if (close(fd) != 0)
		ok = false;
	free(text);
	if (!ok) {
		remove_request(path);
		return NULL;
	}
	return path;
}

/* the request, its trace if one is left, and their private directory */
static void drop_request(struct rtask *t)
{
	if (t->request) {
		remove_request(t->request);
		t->request = NULL;
	}
}

static void start(struct run *r, struct rtask *t)
{
	t->started = ui_now_ms();
	if (served_elsewhere(t)) {
		/* running already, in the run that started it: not shown again */
		t->status = UI_STARTED;
		t->done = true;
		r->done++;
		release(r, t);
		return;
	}
	if (t->kind == K_GROUP) {
		if (!t->keyed && !key_task(r, t)) {
			fail_msg(r, t, "vx: unable to key %s", t->id);
			return;
		}
		finish(r, t, t->all_hits ? UI_HIT : UI_DONE);
		return;
	}
	if (t->kind == K_EXEC) {
		if (!t->keyed && !key_task(r, t)) {
			fail_msg(r, t, "vx: unable to key %s", t->id);
			return;
		}
		if (t->cached && r->use_cache && !r->force && !t->probed) {
			struct ui_buf log = {0};
			int h = runcache_restore(&r->cache, t->key, r->root, t->dir, &log);
			if (h == 2)
				r->rescan = true; /* a lockfile may be an output */
			if (h) {
				hit(r, t, &log);
				return;
			}
			ui_buf_free(&log);
		}
	}

	/* what it writes into its outputs must not reach the shadow's links */
	runcache_unshadow(&r->cache, r->root, t->dir);

	/* vx's environment without its own variables (proc.h), with
	 * node_modules/.bin of the project and the root first on PATH */
	char *pathvar = path_env(r, t);
	char **envp = proc_env(t->sandboxed ? PROC_ENV_SANDBOX : PROC_ENV_TASK, pathvar);

	char *cwd = path_join(r->root, t->dir);
	const char *cmd = graphin_str(t->rec, "command");
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL, NULL, NULL};
	char *sandbox_prog = NULL;
	if (t->sandboxed) {
		/* handed to vx-sandbox with its request; never run without it */
		char *sock = NULL;
		/* every sandboxed task, granted or not: without a grant each
		 * request is refused and reported (issue 18) */
		t->networked = true;
		sock = netproxy_task(&r->net, r->g.graph, t->rec, (size_t)(t - r->t));
		if (!sock) {
			free(envp);
			free(pathvar);
			free(cwd);
			fail_msg(r, t, "vx: unable to start vx-proxy for %s", t->id);
			return;
		}
		t->request = write_request(r, t, sock);
		free(sock);
		if (!t->request) {
			free(envp);
			free(pathvar);
			free(cwd);
			fail_msg(r, t, "vx: unable to write the sandbox request of %s", t->id);
			return;
		}
		sandbox_prog = proc_stage_path("vx-sandbox");
		argv[0] = sandbox_prog;
		argv[1] = "--request";
		argv[2] = t->request;
		if (t->kind != K_PERSISTENT) {
			t->trace = report_trace_path(t->request);
			argv[3] = "--trace";
			argv[4] = t->trace;
		}
	}
	struct spawn_opts o = {
		.cwd = cwd, .envp = envp, .own_group = true, .merge_stderr = true, .null_stdin = true};
	t->pid = proc_spawn(argv, &o, NULL, &t->outfd);
	free(envp);
	free(pathvar);
	free(sandbox_prog);
	if (t->pid < 0) {
		fail_msg(r, t, "vx: unable to start the task in '%s'", cwd);
		free(cwd);
		return;
	}
	free(cwd);
	fcntl(t->outfd, F_SETFL, fcntl(t->outfd, F_GETFL) | O_NONBLOCK);
	if (t->kind == K_EXEC && ui_live(&r->ui)) {
		/* the user sees it as it comes: only the head is kept, no spool */
		t->streamed = true;
		tasklog_no_spool(&t->out);
	}
	t->running = true;
	r->running++;
	if (t->kind == K_PERSISTENT) {
		/* a server: its dependents go on once it started; it runs until the run ends */
		t->status = UI_STARTED;
		r->done++;
		ui_result(&r->ui, &(struct ui_result){.id = t->id, .status = UI_STARTED});
		keep_outcome(r, t, UI_STARTED);
		release(r, t);
	}
	progress(r);
}

static void drain(struct run *r, struct rtask *t)
{
	char buf[65536];
	for (;;) {
		ssize_t n = read(t->outfd, buf, sizeof(buf));
		if (n > 0) {
			if (t->kind == K_PERSISTENT)
				ui_stream(&r->ui, t->id, &t->log, buf, (size_t)n);
			else
				tasklog_add(&t->out, &t->log, r->log_max, buf, (size_t)n);
			if (t->streamed)
				ui_stream(&r->ui, t->id, &t->line, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			close(t->outfd);
			t->outfd = -1;
		}
		return;
	}
}

static void exited(struct run *r, struct rtask *t, int st)
{
	r->rescan = true; /* its command ran: a lockfile may have changed */
	if (t->outfd >= 0) {
		drain(r, t);
		if (t->outfd >= 0) {
			/* a background grandchild still holds the pipe: stop reading it */
			close(t->outfd);
			t->outfd = -1;
		}
	}
	t->running = false;
	r->running--;
	if (t->streamed) {
		/* the last line, even one with no line end */
		ui_stream_flush(&r->ui, t->id, &t->line);
		ui_buf_free(&t->line);
	}
	if (t->kind != K_PERSISTENT)
		tasklog_end(&t->out, &t->log, r->log_max);
	/* the sandbox is gone: every deny of the task is in once vx-proxy says done */
	cJSON *denies = cJSON_CreateArray();
	bool confirmed = !t->networked || netproxy_task_done(&r->net, t->rec, denies);
	/* a violation, file or network, fails the task, even one whose
	 * command exited 0; vx-report judges both */
	bool violated = !r->interrupted && (t->trace || cJSON_GetArraySize(denies)) &&
		report_task(t->request, t->trace, denies, err_wait_status(st), &t->viol);
	cJSON_Delete(denies);
	if (!confirmed) {
		const char *m = "vx-proxy did not confirm the task's last network decisions\n";
		ui_buf_add(&t->viol, m, strlen(m));
	}
	if (t->trace)
		unlink(t->trace);
	free(t->trace);
	t->trace = NULL;
	drop_request(t);
	t->ms = ui_now_ms() - t->started;
	t->exit_code = err_wait_status(st);
	if (t->kind == K_PERSISTENT) {
		if (r->interrupted || r->stopping) {
			ui_stream_flush(&r->ui, t->id, &t->log);
			return;
		}
		ui_stream_flush(&r->ui, t->id, &t->log);
		bool bad = t->exit_code || t->viol.len;
		struct ui_result res = {.id = t->id, .status = bad ? UI_FAIL : UI_DONE,
			.ms = t->ms, .exit_code = t->exit_code,
			.violations = t->viol.data, .vlen = t->viol.len};
		ui_result(&r->ui, &res);
		if (bad) {
			t->status = UI_FAIL;
			keep_outcome(r, t, UI_FAIL);
		}
		return;
	}
	if (r->interrupted)
		return;
	if (t->exit_code != 0 || violated || t->viol.len) {
		/* a violation fails the task, which is never cached */
		finish(r, t, UI_FAIL);
		return;
	}
	if (t->cached && r->use_cache) {
		/* an input edited while the task ran moves the key: that result
		 * belongs to no key we can name, so it is not saved */
		char before[33];
		memcpy(before, t->key, 33);
		cJSON *was = cJSON_Duplicate(t->rec, 1);
		if (!key_task(r, t)) {
			ui_note(&r->ui, t->id, "unable to re-key after the run; not saved");
		} else if (strcmp(before, t->key) != 0) {
			char *what = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&what, &len);
			explain_diff(cJSON_GetObjectItemCaseSensitive(was, "explain"),
				cJSON_GetObjectItemCaseSensitive(t->rec, "explain"), m, "");
			fclose(m);
			while (len && what[len - 1] == '\n')
				what[--len] = '\0';
			for (char *p = what; p && *p; p++)
				if (*p == '\n')
					*p = ',';
			char *note = xasprintf("inputs changed while the task ran%s%s%s; result not saved",
				len ? " (" : "", len ? what : "", len ? ")" : "");
			ui_note(&r->ui, t->id, note);
			free(note);
			free(what);
		} else if (runcache_save(&r->cache, t->key, r->root, t->dir, t->rec, t->log.data,
				   t->log.len, (long)t->ms) != 0) {
			ui_note(&r->ui, t->id, "unable to save the result to the cache");
		}
		cJSON_Delete(was);
	}
	finish(r, t, UI_MISS);
}

static void reap(struct run *r)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (size_t i = 0; i < r->n; i++)
			if (r->t[i].running && r->t[i].pid == pid) {
				exited(r, &r->t[i], st);
				break;
			}
	}
}

static void stop_all(struct run *r, int sig)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].running)
			kill(-r->t[i].pid, sig);
}

/* Stop every running task: SIGTERM to each process group, SIGKILL after a
 * grace period, and reap them all. */
static void terminate(struct run *r)
{
	stop_all(r, SIGTERM);
	double deadline = ui_now_ms() + 3000;
	while (r->running && ui_now_ms() < deadline) {
		reap(r);
		if (r->running)
			usleep(10000);
	}
	if (r->running) {
		stop_all(r, SIGKILL);
		while (r->running) {
			reap(r);
			if (r->running)
				usleep(1000);
		}
	}
}

static void progress(struct run *r)
{
	if (!ui_interactive(&r->ui))
		return;
	char names[256] = "";
	size_t shown = 0, more = 0, hits = 0;
	for (size_t i = 0; i < r->n; i++)
		hits += r->t[i].done && r->t[i].status == UI_HIT;
	for (size_t i = 0; i < r->n; i++) {
		if (!r->t[i].running)
			continue;
		if (shown < 3 && strlen(names) + strlen(r->t[i].id) + 3 < sizeof(names)) {
			if (shown++)
				strcat(names, ", ");
			strcat(names, r->t[i].id);
		} else {
			more++;
		}
	}
	if (more) {
		size_t l = strlen(names);
		snprintf(names + l, sizeof(names) - l, " and %zu more", more);
	}
	ui_progress(&r->ui, r->done, r->n, hits, names);
}

static bool has_work(const struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].kind == K_EXEC && !r->t[i].sandboxed)
			return true;
	return false;
}

/* The summary of a run whose work is done, and whether it failed. */
static bool run_failed(struct run *r)
{
	bool failed = r->keyer_broken;
	size_t n = 0; /* a server another run of vx watch serves is not this run's */
	for (size_t i = 0; i < r->n; i++) {
		failed |= r->t[i].status == UI_FAIL || r->t[i].status == UI_SKIP;
		n += !served_elsewhere(&r->t[i]);
	}
	ui_summary(&r->ui, n, ui_now_ms() - r->t0);
	return failed;
}

/* Tell vx watch the run is over (run.h): its exit code, one byte, then 's'
 * in the same write when it goes on serving; once its report is out
 * (stdout flushed by the caller, or closed) */
static void watch_done(int code, bool serving)
{
	if (!watch_hook.on || watch_hook.done_fd < 0)
		return;
	fflush(stderr);
	unsigned char b[2] = {(unsigned char)code, 's'};
	size_t n = serving ? 2 : 1;
	if (write(watch_hook.done_fd, b, n) != (ssize_t)n) {
		/* vx watch is gone: its SIGTERM follows, or nobody waits */
	}
	close(watch_hook.done_fd);
	watch_hook.done_fd = -1;
}

/* vx watch, serving: the run's work is done while its servers run on */
static void watch_served(struct run *r)
{
	r->served = true;
	/* stdout stays open: the servers' lines still go there */
	bool failed = run_failed(r);
	watch_done(failed || fflush(stdout) != 0 || ferror(stdout) ? VX_EXIT_FAIL : 0, true);
}

static void loop(struct run *r)
{
	struct pollfd *pfd = xcalloc(r->n + 2, sizeof(*pfd));
	size_t *who = xcalloc(r->n + 2, sizeof(*who));
	for (;;) {
		if (!r->interrupted && r->nready)
			key_pump(r);
		while (!r->interrupted && r->nready && r->running < r->jobs)
			start(r, &r->t[r->ready[--r->nready]]);
		if (r->interrupted)
			break;
		size_t persistent_running = 0;
		for (size_t i = 0; i < r->n; i++)
			if (r->t[i].running && r->t[i].kind == K_PERSISTENT)
				persistent_running++;
		if (r->done == r->n && r->running == persistent_running) {
			/* the run's work is done; servers stop with it, unless serving
			 * was all the run asked for, or vx watch keeps them */
			if (!persistent_running)
				break;
			if (watch_hook.on && watch_hook.serve) {
				if (!r->served)
					watch_served(r);
			} else if (has_work(r)) {
				break;
			}
		}
		size_t np = 0;
		pfd[np++] = (struct pollfd){.fd = sigpipe_fds[0], .events = POLLIN};
		for (size_t i = 0; i < r->n; i++)
			if (r->t[i].running && r->t[i].outfd >= 0) {
				who[np] = i;
				pfd[np++] = (struct pollfd){.fd = r->t[i].outfd, .events = POLLIN};
			}
		size_t npx = np; /* vx-proxy's records, read as they come */
		if (netproxy_fd(&r->net) >= 0)
			pfd[np++] = (struct pollfd){.fd = netproxy_fd(&r->net), .events = POLLIN};
		ui_flush(&r->ui);
		int pr = poll(pfd, np, ui_interactive(&r->ui) ? 250 : -1);
		if (pr < 0 && errno != EINTR)
			err_die_errno(VX_EXIT_FAIL, "poll");
		if (pr > 0 && (pfd[0].revents & POLLIN)) {
			unsigned char sigs[64];
			ssize_t n = read(sigpipe_fds[0], sigs, sizeof(sigs));
			for (ssize_t i = 0; i < n; i++)
				if (sigs[i] == SIGINT || sigs[i] == SIGTERM) {
					r->interrupted = true;
					r->signo = sigs[i];
				}
		}
		for (size_t p = 1; pr > 0 && p < npx; p++)
			if (pfd[p].revents & (POLLIN | POLLHUP | POLLERR))
				drain(r, &r->t[who[p]]);
		if (pr > 0 && npx < np && pfd[npx].revents)
			netproxy_read(&r->net);
		reap(r);
		progress(r);
	}
	free(pfd);
	free(who);
	r->stopping = true;
	terminate(r);
}

static void setup_signals(void)
{
	if (pipe2(sigpipe_fds, O_CLOEXEC | O_NONBLOCK) != 0)
		err_die_errno(VX_EXIT_FAIL, "pipe");
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void build(struct run *r)
{
	r->n = r->g.n;
	r->t = xcalloc(r->n ? r->n : 1, sizeof(*r->t));
	r->ready = xcalloc(r->n ? r->n : 1, sizeof(*r->ready));
	r->order = xcalloc(r->n ? r->n : 1, sizeof(*r->order));
	struct strmap idx;
	strmap_init(&idx);
	for (size_t i = 0; i < r->n; i++) {
		struct rtask *t = &r->t[i];
		t->rec = r->g.tasks[i];
		r->g.tasks[i] = NULL;
		t->id = xstrdup(graphin_str(t->rec, "id"));
		t->dir = xstrdup(graphin_str(t->rec, "dir"));
		const char *kind = graphin_str(t->rec, "kind");
		t->kind = strcmp(kind, "group") == 0 ? K_GROUP
			  : strcmp(kind, "persistent") == 0 ? K_PERSISTENT
							      : K_EXEC;
		t->cached = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(t->rec, "cache"));
		t->sandboxed = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(t->rec, "sandbox"));
		t->outfd = -1;
		tasklog_init(&t->out);
		t->all_hits = true;
		strmap_put(&idx, t->id, (void *)(i + 1));
	}
	for (size_t i = 0; i < r->n; i++) {
		const cJSON *deps = cJSON_GetObjectItemCaseSensitive(r->t[i].rec, "deps"), *d;
		cJSON_ArrayForEach(d, deps) {
			size_t j = (size_t)strmap_get(&idx, d->valuestring);
			if (!j--)
				continue;
			struct rtask *dep = &r->t[j];
			dep->rdeps = xrealloc(dep->rdeps, (dep->nrdeps + 1) * sizeof(size_t));
			dep->rdeps[dep->nrdeps++] = i;
			r->t[i].pending++;
		}
	}
	strmap_free(&idx);
	/* ready in reverse so the stack pops them in graph order */
	for (size_t i = r->n; i-- > 0;)
		if (r->t[i].pending == 0)
			r->ready[r->nready++] = i;
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
	"                     [--filter SEL]... [--only]\n"
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
	"  --remote-cache URL  also a remote HTTP cache (VX_REMOTE_CACHE): local first, then\n"
	"                    remote; successes uploaded (not with VX_REMOTE_CACHE_READONLY=1)\n"
	"  --filter SEL      only in the projects SEL selects (turbo's grammar: web, @acme/*,\n"
	"                    ./apps/web, web..., ...web, ...^web, web^..., [main], !web;\n"
	"                    see vx-graph --help); several union, then exclusions subtract\n"
	"  --only            the tasks asked for without their dependencies\n"
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

int run_main(int argc, char **argv)
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
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	/* the run's state lives as long as the process (and stays reachable) */
	static struct run r;
	r.use_cache = true;
	r.jobs = ncpus();
	const char *root_opt = getenv("VX_ROOT");
	const char *remote = getenv("VX_REMOTE_CACHE");
	bool dry = false;
	/* vx-graph's selection arguments, then the TASKs: what the stages get
	 * and what a replayed run is keyed by */
	static char **sel;
	int nsel = 0;
	bool git_sel = false;
	sel = xcalloc((size_t)argc * 2 + 1, sizeof(*sel));
	int c;
	char *end;

	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			r.jobs = (size_t)strtoul(optarg, &end, 10);
			if (*end || !*optarg || r.jobs == 0) {
				err_warn("-j '%s': expected a number of tasks, 1 or more", optarg);
				return VX_EXIT_USAGE;
			}
			break;
		case 'f':
			r.force = true;
			break;
		case 'n':
			r.use_cache = false;
			break;
		case 'd':
			dry = true;
			break;
		case 'J':
			r.json = true;
			break;
		case 'r':
			root_opt = optarg;
			break;
		case 'R':
			remote = optarg;
			break;
		case 'O':
			if (!ui_parse_order(optarg, &r.show.order))
				return VX_EXIT_USAGE;
			break;
		case 'L':
			if (!ui_parse_logs(optarg, &r.show.logs))
				return VX_EXIT_USAGE;
			break;
		case 'F':
			sel[nsel++] = "--filter";
			sel[nsel++] = optarg;
			git_sel |= strchr(optarg, '[') != NULL;
			break;
		case 'o':
			sel[nsel++] = "--only";
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
	r.log_max = (size_t)log_max;
	r.show.json = r.json;
	jsonl_out_init();
	r.root = root_opt && *root_opt ? root_opt : NULL;
	sel[nsel++] = "--";
	for (int i = optind; i < argc; i++)
		sel[nsel++] = argv[i];
	if (dry)
		return dry_main(&(struct dry_opts){.root = r.root, .args = sel, .nargs = nsel,
			.json = r.json, .use_cache = r.use_cache, .force = r.force,
			.remote = remote && *remote ? remote : NULL});

	/* vx-watch's token first, before anything is read: the run it vouches
	 * for is replayed whole; else one taken now lets this run be */
	char tok[WATCHQ_TOKEN_MAX];
	/* not with a git ref in a filter: a commit moves what it selects
	 * without a change vx-watch sees */
	bool watched = r.use_cache && !r.force && !(remote && *remote) && !git_sel &&
		       wsroot_find(".", r.root, false, &r.wroot) == 0 && watchq_token(r.wroot, tok);
	if (watched && !(watch_hook.on && !watch_hook.serve)) {
		int out = replay_try(r.wroot, sel, nsel, tok, &r.show, false);
		if (out >= 0)
			return out;
	}

	/* vx-key starts first and loads its stat cache while vx-graph works;
	 * the graph record reaches it as soon as it is read */
	r.keyer_spawned = keyer_spawn(&r.keyer) == 0;
	int rc = graphin_load_then(&r.g, r.root, sel, nsel, false, false, graph_read, &r);
	if (rc) {
		if (r.keyer_spawned)
			keyer_stop(&r.keyer);
		return rc;
	}
	r.root = graphin_str(r.g.graph, "root");
	ui_init(&r.ui, &r.show);
	r.t0 = ui_now_ms();
	runcache_open(&r.cache, r.root);
	if (remote && *remote && r.use_cache)
		runcache_remote(&r.cache, remote);
	/* as many writers as tasks may run at once, up to the cores: creating
	 * a file is kernel work that runs on every core (-j1: none, the pump
	 * writes each hit itself, in order). None with a remote cache: a
	 * remote hit is written into the local cache (a save, cache.h), which
	 * must not run beside restores */
	size_t writers = r.jobs < ncpus() ? r.jobs : ncpus();
	r.writers = workq_new(r.jobs > 1 && !r.cache.remote ? writers : 0, runcache_write);
	build(&r);
	if (watch_hook.header) {
		size_t n = 0;
		for (size_t i = 0; i < r.n; i++)
			n += !served_elsewhere(&r.t[i]);
		watch_hook.header(n);
	}
	setup_signals();
	loop(&r);
	workq_free(r.writers);
	if (r.keyer_spawned)
		keyer_stop(&r.keyer);
	netproxy_stop(&r.net);
	runcache_close(&r.cache); /* the remote's connections and libcurl too */
	if (watched && !r.interrupted && !r.keyer_broken && strcmp(r.root, r.wroot) == 0)
		save_replay(&r, sel, nsel, tok);

	if (r.interrupted) {
		ui_interrupted(&r.ui, r.signo);
		jsonl_out_finish();
		return r.signo == SIGINT ? VX_EXIT_SIGINT : VX_EXIT_SIGTERM;
	}
	if (r.served) /* its report is out; its servers have all exited */
		return jsonl_out_finish();
	bool failed = run_failed(&r);
	int out = jsonl_out_finish();
	if (failed)
		out = VX_EXIT_FAIL;
	watch_done(out, false);
	return out;
}
