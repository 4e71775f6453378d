/* report.c: vx-report for one finished task (see report.h). */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "proc.h"

char *report_trace_path(const char *request)
{
	return xasprintf("%s.trace", request);
}

bool report_task(const char *request, const char *trace, int exit_code, struct ui_buf *out)
{
	char code[16], buf[65536];
	char *prog = proc_stage_path("vx-report");
	char *argv[] = {prog, "--request", (char *)request, "--trace", (char *)trace,
		"--exit", code, NULL};
	struct spawn_opts o = {.null_stdin = true};
	struct ui_buf text = {0};
	bool fail = true, judged = false;
	int fd, st;
	pid_t pid;

	snprintf(code, sizeof(code), "%d", exit_code);
	pid = proc_spawn(argv, &o, NULL, &fd);
	free(prog);
	if (pid < 0) {
		const char *m = "vx: unable to start vx-report: the task's accesses go unjudged\n";
		ui_buf_add(out, m, strlen(m));
		unlink(trace);
		return true;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		ui_buf_add(&text, buf, (size_t)n);
	}
	close(fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ui_buf_add(&text, "", 1);
	for (char *line = text.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		cJSON *rec, *type, *l;
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (!(rec = cJSON_Parse(line)))
			continue;
		type = cJSON_GetObjectItemCaseSensitive(rec, "type");
		l = cJSON_GetObjectItemCaseSensitive(rec, "line");
		if (cJSON_IsString(type) && !strcmp(type->valuestring, "verdict")) {
			judged = true;
			fail = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "fail"));
		} else if (cJSON_IsString(l)) {
			ui_buf_add(out, l->valuestring, strlen(l->valuestring));
			ui_buf_add(out, "\n", 1);
		}
		cJSON_Delete(rec);
	}
	ui_buf_free(&text);
	if (!judged) {
		const char *m = "vx: vx-report gave no verdict: the task's accesses go unjudged\n";
		ui_buf_add(out, m, strlen(m));
		fail = true;
	}
	unlink(trace);
	return fail;
}
