/* The launch of one task of vx run: a cache hit restored instead, else its
 * command started in its own process group under /bin/sh -c, or under
 * vx-sandbox with its request on stdin, its records on a pipe to the run's
 * vx-report (report.h; a persistent task's untraced) and its vx-proxy
 * sockets, with vx's environment and its output on a pipe the loop reads. */
#include "run_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "path.h"
#include "taskenv.h"
#include "proc.h"
#include "profile.h"
#include "report.h"
#include "taskreq.h"

static char *path_env(const struct run *r, const struct rtask *t)
{
	char *proj = path_join(r->root, t->dir);
	char *s = taskenv_path(r->root, proj);
	free(proj);
	return s;
}

void run_start(struct run *r, struct rtask *t)
{
	t->started = ui_now_ms();
	if (run_served_elsewhere(r, t)) {
		/* running already, in the run that started it: not shown again */
		t->status = UI_STARTED;
		t->done = true;
		r->done++;
		run_release(r, t);
		return;
	}
	if (t->kind == K_GROUP) {
		if (!t->keyed && !run_key_task(r, t)) {
			run_fail_msg(r, t, "vx: unable to key %s", t->id);
			return;
		}
		run_finish(r, t, t->all_hits ? UI_HIT : UI_DONE);
		return;
	}
	/* --profile: the -j slot it takes, as a lane of the trace */
	t->lane = profile_take(PROFILE_SLOT);
	if (t->kind == K_EXEC) {
		double p = ui_now_ms();
		if (!t->keyed) {
			if (!run_key_task(r, t)) {
				run_fail_msg(r, t, "vx: unable to key %s", t->id);
				return;
			}
			profile_span(t->lane, "phase", "key", p, ui_now_ms(), (const char *)NULL);
		}
		if (run_may_hit(r, t) && !t->probed) {
			struct strbuf log = {0};
			p = ui_now_ms();
			int h = runcache_restore(&r->cache, t->key, r->root, t->dir, &log);
			t->remote_hit = r->cache.hit_remote;
			profile_span(t->lane, "phase", "cache lookup", p, ui_now_ms(), "cache",
				h ? "hit" : "miss", (const char *)NULL);
			if (h == 2)
				r->rescan = true; /* a lockfile may be an output */
			if (h) {
				run_hit(r, t, &log);
				return;
			}
			strbuf_release(&log);
		}
	}

	/* what it writes into its outputs must not reach the shadow's links */
	double launch = ui_now_ms();
	runcache_unshadow(&r->cache, r->root, t->dir);

	/* vx's environment without its own variables (proc.h), with
	 * node_modules/.bin of the project and the root first on PATH */
	char *pathvar = path_env(r, t);
	struct taskenv te;
	taskenv_of(t->rec, &te);
	char **envp = proc_env(t->sandboxed ? PROC_ENV_SANDBOX : PROC_ENV_TASK, pathvar, &te);

	char *cwd = path_join(r->root, t->dir);
	const char *cmd = graphin_str(t->rec, "command");
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL, NULL, NULL, NULL};
	char *sandbox_prog = NULL, *text = NULL; /* a traced task's request, for stdin */
	int wfd = -1, to = -1;
	if (t->sandboxed) {
		/* handed to vx-sandbox with its request; never run without it */
		char *sock = NULL, *ctl = NULL;
		/* every sandboxed task, granted or not: without a grant each
		 * request is refused and reported (issue 18); its denies go into
		 * its own records (vx-sandbox takes them on the control socket) */
		sock = netproxy_task(&r->net, r->g.graph, t->rec, (size_t)(t - r->t), &ctl);
		if (!sock) {
			free(envp);
			free(pathvar);
			free(cwd);
			run_fail_msg(r, t, "vx: unable to start vx-proxy for %s", t->id);
			return;
		}
		/* its records go on a pipe straight to vx-report, its request
		 * on vx-sandbox's stdin: no file */
		if (!r->graph_line)
			r->graph_line = taskreq_graph_line(r->g.graph);
		if (report_stream(t->id, &wfd) == 0)
			text = taskreq_format_line(r->graph_line, t->rec, sock, ctl);
		free(sock);
		free(ctl);
		if (!text) {
			free(envp);
			free(pathvar);
			free(cwd);
			run_fail_msg(r, t, "vx: unable to start vx-report for %s", t->id);
			return;
		}
		sandbox_prog = proc_stage_path("vx-sandbox");
		argv[0] = sandbox_prog;
		argv[1] = "--request";
		argv[2] = "-";
		argv[3] = "--trace-fd";
		argv[4] = "3"; /* pass_fd's */
		/* a persistent task is never traced: its records carry its
		 * network denies and its exit */
		if (t->kind == K_PERSISTENT)
			argv[5] = "--untraced";
		t->recorded = true;
		t->traced = t->kind != K_PERSISTENT;
	}
	struct spawn_opts o = {.cwd = cwd, .envp = envp, .own_group = true, .merge_stderr = true,
		.null_stdin = !text, .pass_fd = wfd > 0 ? wfd : 0};
	t->spawned = ui_now_ms();
	/* its environment, and for a sandboxed task vx-proxy and the request */
	profile_span(t->lane, "phase", "launch", launch, t->spawned, (const char *)NULL);
	t->pid = proc_spawn(argv, &o, text ? &to : NULL, &t->outfd);
	if (wfd >= 0)
		close(wfd); /* vx-sandbox's now: the stream ends when it does */
	if (to >= 0) {
		/* a vx-sandbox gone already fails on its own: EPIPE is no news */
		(void)fileio_write_all(to, text, strlen(text));
		close(to);
	}
	free(text);
	free(envp);
	free(pathvar);
	free(sandbox_prog);
	if (t->pid < 0) {
		run_fail_msg(r, t, "vx: unable to start the task in '%s'", cwd);
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
		run_keep_outcome(r, t, UI_STARTED);
		run_release(r, t);
	}
	run_progress(r);
}
