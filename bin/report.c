/* report.c: the run's vx-report and each sandboxed task's verdict (see report.h). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "proc.h"
#include "stage.h"

static void say(struct strbuf *out, const char *m)
{
	strbuf_add(out, m, strlen(m));
}

/* The run's one vx-report --each, started beside the first sandboxed task
 * (report.h): a process start (~1 ms on a VM) saved for every task after,
 * and the first one's off the path from a task's end to its dependents. */
static struct stage judge;

/* A verdict read, with the lines of the records before it: vx-report
 * writes each task's together, its verdict last, so they are that task's.
 * Kept until its task's end asks for it: the tasks' streams end in any
 * order. */
struct judged {
	char *who;          /* the verdict's id */
	struct strbuf lines;
	bool fail;
	char *off;
	struct judged *next;
};
static struct judged *stash;
static struct strbuf group; /* lines whose verdict has not come yet */

bool report_start(void)
{
	if (judge.pid)
		return true;
	char *prog = proc_stage_path("vx-report");
	char *argv[] = {prog, "--each", NULL};
	/* its stdin a socket: the tasks' record streams come attached */
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		free(prog);
		return false;
	}
	struct spawn_opts o = {.in_fd = sv[1]};
	int from;
	pid_t pid = proc_spawn(argv, &o, NULL, &from);
	free(prog);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return false;
	}
	stage_attach(&judge, "vx-report", pid, sv[0], from);
	return true;
}

static void judged_free(struct judged *j)
{
	free(j->who);
	strbuf_release(&j->lines);
	free(j->off);
	free(j);
}

void report_stop(void)
{
	if (judge.pid)
		stage_finish(&judge);
	memset(&judge, 0, sizeof(judge));
	strbuf_release(&group);
	while (stash) {
		struct judged *j = stash;
		stash = j->next;
		judged_free(j);
	}
}

static struct judged *unstash(const char *id)
{
	for (struct judged **pp = &stash, *j; (j = *pp); pp = &j->next)
		if (!strcmp(j->who, id)) {
			*pp = j->next;
			return j;
		}
	return NULL;
}

/* The verdict on task id, read from vx-report, others kept for their
 * tasks; NULL when vx-report ended first (it is then stopped, and the next
 * task starts another). */
static struct judged *verdict_of(const char *id)
{
	struct judged *j = unstash(id);
	cJSON *rec;
	for (int got; !j && (got = stage_wait(&judge, &rec, -1)) != -1;) {
		if (got != 1)
			continue; /* named on stderr; a verdict may still come */
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		const char *line = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "line"));
		if (type && !strcmp(type, "verdict")) {
			const char *who = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "id"));
			struct judged *v = xcalloc(1, sizeof(*v));
			v->who = xstrdup(who ? who : "");
			v->lines = group;
			memset(&group, 0, sizeof(group));
			/* the boundary's judgement: the exit status is vx's own */
			v->fail = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "violated"));
			const char *tr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "trace"));
			const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "reason"));
			if (tr && !strcmp(tr, "off"))
				v->off = xstrdup(why ? why : "");
			if (!strcmp(v->who, id)) {
				j = v;
			} else {
				v->next = stash;
				stash = v;
			}
		} else if (line) {
			say(&group, line);
			say(&group, "\n");
		}
		cJSON_Delete(rec);
	}
	if (!j)
		report_stop();
	return j;
}

/* Hand j over: its lines to out, *off; true when it fails the task. A
 * missing verdict fails it, said in out. */
static bool take_verdict(struct judged *j, struct strbuf *out, char **off)
{
	if (!j) {
		say(out, "vx: vx-report gave no verdict: the task's accesses go unjudged\n");
		return true;
	}
	strbuf_add(out, j->lines.buf, j->lines.len);
	*off = j->off;
	j->off = NULL;
	bool fail = j->fail;
	judged_free(j);
	return fail;
}

int report_stream(const char *id, int *wfd)
{
	int p[2];
	if (!report_start() || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	cJSON *q = cJSON_CreateObject();
	cJSON_AddStringToObject(q, "type", "stream");
	cJSON_AddStringToObject(q, "id", id);
	char *text = cJSON_PrintUnformatted(q);
	cJSON_Delete(q);
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = {.iov_base = text, .iov_len = strlen(text)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
		.msg_controllen = sizeof(ctl.space)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &p[0], sizeof(int));
	ssize_t n;
	while ((n = sendmsg(judge.to, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	cJSON_free(text);
	close(p[0]); /* vx-report holds it now */
	if (n < 0) {
		close(p[1]);
		report_stop();
		return -1;
	}
	*wfd = p[1];
	return 0;
}

bool report_stream_verdict(const char *id, struct strbuf *out, char **off)
{
	*off = NULL;
	return take_verdict(judge.pid ? verdict_of(id) : NULL, out, off);
}
