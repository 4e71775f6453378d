/* The scheduler of vx run: the task table built from vx-graph's records,
 * the ready queue, the -j slots, each finished task releasing its
 * dependents (or skipping them after a failure), the signals, and the loop
 * that polls the tasks' pipes and reaps them. */
#include "run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "profile.h"
#include "strmap.h"

static int sigpipe_fds[2] = {-1, -1};
volatile sig_atomic_t run_stop_requested; /* SIGINT or SIGTERM came */

static void on_signal(int sig)
{
	int e = errno;
	if (sig == SIGINT || sig == SIGTERM)
		run_stop_requested = 1;
	unsigned char b = (unsigned char)sig;
	if (write(sigpipe_fds[1], &b, 1) < 0) {
		/* the pipe is full: the loop will wake anyway */
	}
	errno = e;
}

void run_release(struct run *r, struct rtask *t)
{
	bool bad = t->status == UI_FAIL || t->status == UI_SKIP;
	for (size_t i = 0; i < t->nrdeps; i++) {
		struct rtask *d = &r->t[t->rdeps[i]];
		/* --continue=always: it runs anyway, and its result is not saved */
		if (bad && r->cont == CONT_ALWAYS)
			d->dep_failed = true;
		else if (bad && !d->blocked)
			d->blocked = t;
		if (t->status != UI_HIT)
			d->all_hits = false;
		if (--d->pending == 0) {
			if (d->blocked)
				run_finish(r, d, UI_SKIP);
			else
				r->ready[r->nready++] = t->rdeps[i];
		}
	}
}

/* How t ended, kept for vx graph --dot/--html, which draw each task as its
 * last run left it. */
void run_keep_outcome(struct run *r, struct rtask *t, enum ui_status st)
{
	static const char *const outcome[UI_NSTATUS] = {[UI_HIT] = "hit", [UI_MISS] = "ran",
		[UI_DONE] = "ran", [UI_SKIP] = "skipped", [UI_STARTED] = "ran"};
	const char *o = st == UI_FAIL ? (t->viol.len ? "violation" : "failed") : outcome[st];
	if (o)
		runcache_outcome(&r->cache, r->root, t->id, o);
}

void run_finish(struct run *r, struct rtask *t, enum ui_status st)
{
	t->status = st;
	t->done = true;
	static const char *const said[UI_NSTATUS] = {[UI_HIT] = "hit", [UI_MISS] = "ran",
		[UI_FAIL] = "failed", [UI_SKIP] = "skipped", [UI_DONE] = "done",
		[UI_STARTED] = "started"};
	run_prof_end(t, said[st]);
	if (st == UI_FAIL && r->cont == CONT_NEVER && !r->halted_by)
		r->halted_by = t;
	r->done++;
	r->order[r->norder++] = (size_t)(t - r->t);
	struct ui_result res = {
		.id = t->id,
		.status = st,
		.ms = t->ms,
		.key = t->key[0] ? t->key : NULL,
		.exit_code = t->exit_code,
		.log = t->log.buf,
		.loglen = t->log.len,
		.full = &t->out,
		.blocked_by = t->blocked ? t->blocked->id : NULL,
		.stopped = t->stopped,
		.streamed = t->streamed,
		.violations = t->viol.buf,
		.vlen = t->viol.len,
		.untraced = t->untraced,
	};
	ui_result(&r->ui, &res);
	run_keep_outcome(r, t, st);
	tasklog_free(&t->out);
	run_release(r, t);
}

void run_fail_msg(struct run *r, struct rtask *t, const char *fmt, const char *arg)
{
	char *m = xasprintf(fmt, arg);
	strbuf_add(&t->log, m, strlen(m));
	strbuf_add(&t->log, "\n", 1);
	free(m);
	t->exit_code = -1;
	run_finish(r, t, UI_FAIL);
}

static void reap(struct run *r)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (size_t i = 0; i < r->n; i++)
			if (r->t[i].running && r->t[i].pid == pid) {
				r->steps.exited(r, &r->t[i], st);
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

void run_progress(struct run *r)
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

void run_loop(struct run *r)
{
	struct pollfd *pfd = xcalloc(r->n + 2, sizeof(*pfd));
	size_t *who = xcalloc(r->n + 2, sizeof(*who));
	for (;;) {
		if (!r->interrupted && r->nready && !r->halted_by)
			r->steps.pump(r);
		while (!r->interrupted && r->nready && r->running < r->jobs && !r->halted_by)
			r->steps.start(r, &r->t[r->ready[--r->nready]]);
		/* --continue=never: after a failure nothing more starts; what runs
		 * ends, what was to run is skipped */
		while (!r->interrupted && r->halted_by && r->nready) {
			struct rtask *t = &r->t[r->ready[--r->nready]];
			if (!t->blocked) {
				t->blocked = r->halted_by;
				t->stopped = true;
			}
			run_finish(r, t, UI_SKIP);
		}
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
			if (r->steps.served) {
				if (!r->served)
					r->steps.served(r);
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
				r->steps.drain(r, &r->t[who[p]]);
		if (pr > 0 && npx < np && pfd[npx].revents)
			netproxy_read(&r->net);
		reap(r);
		run_progress(r);
	}
	free(pfd);
	free(who);
	r->stopping = true;
	terminate(r);
}

void run_setup_signals(void)
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

void run_build(struct run *r)
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
		t->rec_line = r->g.lines ? r->g.lines[i] : NULL;
		if (r->g.lines)
			r->g.lines[i] = NULL;
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
