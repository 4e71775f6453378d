/* report.c: vx-report for one finished task (see report.h). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "proc.h"
#include "stage.h"

char *report_trace_path(const char *request)
{
	return xasprintf("%s.trace", request);
}

/* The deny records, one line each, beside the request (its private 0700
 * directory): the path, or NULL when they could not be written. */
static char *write_denies(const char *request, const cJSON *denies)
{
	char *path = xasprintf("%s.net", request);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	const cJSON *d;
	bool ok = fd >= 0;
	cJSON_ArrayForEach(d, denies) {
		char *line = ok ? cJSON_PrintUnformatted(d) : NULL;
		ok = line && fileio_write_all(fd, line, strlen(line)) == 0 &&
		     fileio_write_all(fd, "\n", 1) == 0;
		cJSON_free(line);
	}
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

static void say(struct strbuf *out, const char *m)
{
	strbuf_add(out, m, strlen(m));
}

/* The run's one vx-report --each, started beside the first sandboxed task
 * (report.h): a process start (~1 ms on a VM) saved for every task after,
 * and the first one's off the path from a task's end to its dependents. */
static struct stage judge;

bool report_start(void)
{
	if (judge.pid)
		return true;
	char *prog = proc_stage_path("vx-report");
	char *argv[] = {prog, "--each", NULL};
	struct spawn_opts o = {0};
	int to, from;
	pid_t pid = proc_spawn(argv, &o, &to, &from);
	free(prog);
	if (pid < 0)
		return false;
	stage_attach(&judge, "vx-report", pid, to, from);
	return true;
}

void report_stop(void)
{
	if (judge.pid)
		stage_finish(&judge);
	memset(&judge, 0, sizeof(judge));
}

/* One judge record: the task's verdict (true: it fails), each line of
 * its other records appended to out; *judged false when vx-report gave
 * none (it is then stopped, and the next task starts another); *off as
 * report_task's. */
static bool ask(const cJSON *q, struct strbuf *out, bool *judged, char **off)
{
	cJSON *rec;
	bool fail = true;
	*judged = false;
	if (!report_start())
		return true;
	if (stage_send(&judge, q) < 0) {
		report_stop();
		return true;
	}
	for (int got; !*judged && (got = stage_wait(&judge, &rec, -1)) != -1;) {
		if (got != 1)
			continue; /* named on stderr; a verdict may still come */
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		const char *line = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "line"));
		if (type && !strcmp(type, "verdict")) {
			*judged = true;
			/* the boundary's judgement: the exit status is vx's own */
			fail = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "violated"));
			const char *tr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "trace"));
			const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "reason"));
			if (tr && !strcmp(tr, "off"))
				*off = xstrdup(why ? why : "");
		} else if (line) {
			say(out, line);
			say(out, "\n");
		}
		cJSON_Delete(rec);
	}
	if (!*judged)
		report_stop();
	return fail;
}

bool report_task(const char *request, const char *trace, const cJSON *denies, int exit_code,
	struct strbuf *out, char **off)
{
	char *net = cJSON_GetArraySize(denies) ? write_denies(request, denies) : NULL;
	cJSON *q;
	bool fail, judged;

	*off = NULL;
	if (cJSON_GetArraySize(denies) && !net) {
		say(out, "vx: unable to hand vx-proxy's denies to vx-report: the task's "
			 "network goes unjudged\n");
		if (trace)
			unlink(trace);
		return true;
	}
	q = cJSON_CreateObject();
	cJSON_AddStringToObject(q, "type", "judge");
	cJSON_AddStringToObject(q, "request", request);
	if (trace)
		cJSON_AddStringToObject(q, "trace", trace);
	else
		cJSON_AddNullToObject(q, "trace");
	if (net)
		cJSON_AddStringToObject(q, "network", net);
	else
		cJSON_AddNullToObject(q, "network");
	cJSON_AddNumberToObject(q, "exit", exit_code);
	fail = ask(q, out, &judged, off);
	cJSON_Delete(q);
	if (!judged) {
		say(out, "vx: vx-report gave no verdict: the task's accesses go unjudged\n");
		fail = true;
	}
	if (net) {
		unlink(net);
		free(net);
	}
	if (trace)
		unlink(trace);
	return fail;
}
