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

bool report_task(const char *request, const char *trace, const cJSON *denies, int exit_code,
	struct strbuf *out)
{
	char code[16];
	char *prog = proc_stage_path("vx-report");
	char *net = cJSON_GetArraySize(denies) ? write_denies(request, denies) : NULL;
	char *argv[11] = {prog, "--request", (char *)request};
	size_t n = 3;
	struct spawn_opts o = {.null_stdin = true};
	struct stage vr;
	cJSON *rec;
	bool fail = true, judged = false;
	int fd;
	pid_t pid;

	if (cJSON_GetArraySize(denies) && !net) {
		say(out, "vx: unable to hand vx-proxy's denies to vx-report: the task's "
			 "network goes unjudged\n");
		free(prog);
		if (trace)
			unlink(trace);
		return true;
	}
	if (trace) {
		argv[n++] = "--trace";
		argv[n++] = (char *)trace;
	} else {
		argv[n++] = "--no-trace";
	}
	if (net) {
		argv[n++] = "--network";
		argv[n++] = net;
	}
	snprintf(code, sizeof(code), "%d", exit_code);
	argv[n++] = "--exit";
	argv[n++] = code;
	pid = proc_spawn(argv, &o, NULL, &fd);
	free(prog);
	if (pid < 0) {
		say(out, "vx: unable to start vx-report: the task's accesses go unjudged\n");
		goto out;
	}
	stage_attach(&vr, "vx-report", pid, -1, fd);
	for (int got; (got = stage_wait(&vr, &rec, -1)) != -1;) {
		if (got != 1)
			continue; /* named on stderr; a verdict may still come */
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		const char *line = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "line"));
		if (type && !strcmp(type, "verdict")) {
			judged = true;
			fail = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "fail"));
		} else if (line) {
			say(out, line);
			say(out, "\n");
		}
		cJSON_Delete(rec);
	}
	stage_finish(&vr);
	if (!judged) {
		say(out, "vx: vx-report gave no verdict: the task's accesses go unjudged\n");
		fail = true;
	}
out:
	if (net) {
		unlink(net);
		free(net);
	}
	if (trace)
		unlink(trace);
	return fail;
}
