/* The end of one task of vx run: the rest of its output read, vx-report's
 * verdict on its record stream (a persistent task's: on its network denies),
 * its result saved to the cache
 * (unless an input moved while it ran), and its outcome kept. */
#include "run_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "explain.h"
#include "inputstamp.h"
#include "profile.h"
#include "report.h"
#include "traceprobe.h"

void run_drain(struct run *r, struct rtask *t)
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

/* May t's result be saved under its key? An input edited while the task
 * ran moves the key: that result belongs to no key we can name. The stamp
 * vx-key answered with says so from stats alone; only when a stat moved
 * (or it could not vouch) is the task keyed again, which tells a real edit
 * from a touched directory, and the note names what moved. */
static bool inputs_held(struct run *r, struct rtask *t)
{
	if (inputstamp_check(r->root, t->dir, cJSON_GetObjectItemCaseSensitive(t->rec, "stamp")) == 1)
		return true;
	char before[33];
	memcpy(before, t->key, 33);
	/* what the key folded before the run: vx-key's explain, or the
	 * remembered one it left out (the same key, explainedKey) */
	cJSON *was = cJSON_GetObjectItemCaseSensitive(t->rec, "explain")
		? cJSON_Duplicate(t->rec, 1) : runcache_recall(r->root, t->id, false);
	bool held = false;
	if (!run_key_task(r, t)) {
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
	} else {
		held = true;
	}
	cJSON_Delete(was);
	return held;
}

void run_exited(struct run *r, struct rtask *t, int st)
{
	r->rescan = true; /* its command ran: a lockfile may have changed */
	double pt = ui_now_ms();
	profile_span(t->lane, "phase", t->sandboxed ? "sandbox run" : "command", t->spawned, pt,
		(const char *)NULL);
	if (t->outfd >= 0) {
		run_drain(r, t);
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
		strbuf_release(&t->line);
	}
	if (t->kind != K_PERSISTENT)
		tasklog_end(&t->out, &t->log, r->log_max);
	/* a violation, file or network, fails the task, even one whose
	 * command exited 0; vx-report judges both, from the task's records
	 * (its vx-sandbox took the network denies from vx-proxy) */
	char *off = NULL;
	bool violated = !r->interrupted && t->recorded &&
		report_stream_verdict(t->id, &t->viol, &off);
	if (t->recorded)
		profile_span(t->lane, "phase", "report", pt, ui_now_ms(), "violation",
			violated ? "yes" : "no", (const char *)NULL);
	/* R-10a: the kernel refused to trace it (a persistent task is never
	 * traced: not this); the run says so once */
	if (off && t->traced) {
		char *line = traceprobe_line(*off ? off : "refused");
		t->untraced = true;
		if (line)
			ui_warn(&r->ui, line);
		free(line);
	}
	free(off);
	t->traced = t->recorded = false;
	t->ms = ui_now_ms() - t->started;
	t->exit_code = err_wait_status(st);
	if (t->kind == K_PERSISTENT) {
		if (r->interrupted || r->stopping) {
			ui_stream_flush(&r->ui, t->id, &t->log);
			run_prof_end(t, "stopped");
			return;
		}
		ui_stream_flush(&r->ui, t->id, &t->log);
		bool bad = t->exit_code || t->viol.len;
		struct ui_result res = {.id = t->id, .status = bad ? UI_FAIL : UI_DONE,
			.ms = t->ms, .exit_code = t->exit_code,
			.violations = t->viol.buf, .vlen = t->viol.len};
		ui_result(&r->ui, &res);
		if (bad) {
			t->status = UI_FAIL;
			run_keep_outcome(r, t, UI_FAIL);
		}
		run_prof_end(t, bad ? "failed" : "done");
		return;
	}
	if (r->interrupted) {
		run_prof_end(t, "interrupted");
		return;
	}
	if (t->exit_code != 0 || violated || t->viol.len) {
		/* a violation fails the task, which is never cached */
		run_finish(r, t, UI_FAIL);
		return;
	}
	if (t->dep_failed)
		ui_note(&r->ui, t->id, "ran after a dependency failed (--continue); result not saved");
	if (t->cached && r->use_cache && !t->untraced && !t->dep_failed && !r->no_save) {
		pt = ui_now_ms();
		if (inputs_held(r, t) && runcache_save(&r->cache, t->key, r->root, t->dir, t->rec,
					     t->log.buf, t->log.len, (long)t->ms) != 0)
			ui_note(&r->ui, t->id, "unable to save the result to the cache");
		profile_span(t->lane, "phase", "save", pt, ui_now_ms(), (const char *)NULL);
	}
	run_finish(r, t, UI_MISS);
}
