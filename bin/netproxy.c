/* netproxy.c: starting vx-proxy for a run and collecting its denies (netproxy.h). */
#include "netproxy.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "child.h"
#include "netreq.h"
#include "proc.h"
#include "ui.h"

/* How long vx run waits for vx-proxy's answer (a socket listening, a task's
 * last decisions: its header timeout bounds those). */
#define NP_WAIT_MS 30000

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One record from vx-proxy: true when it is the one the caller waits for
 * (want_type of want_task). Denies never come here: each task's go to its
 * control socket, to its vx-sandbox. */
static bool take(cJSON *rec, const char *want_type, const char *want_task)
{
	const char *type = str(rec, "type"), *task = str(rec, "task");
	bool found = type && task && want_type && strcmp(type, want_type) == 0 &&
		     strcmp(task, want_task) == 0;
	cJSON_Delete(rec);
	return found;
}

/* Wait for vx-proxy's record of this type for this task. */
static bool wait_for(struct netproxy *np, const char *type, const char *task)
{
	double end = ui_now_ms() + NP_WAIT_MS;
	cJSON *rec;
	while (!np->broken) {
		double left = end - ui_now_ms();
		if (left <= 0)
			return false;
		int got = stage_wait(&np->st, &rec, (int)left);
		if (got == STAGE_BAD)
			continue; /* named on stderr; the next one may be it */
		if (got < 0)
			np->broken = true;
		if (got <= 0)
			return false;
		if (take(rec, type, task))
			return true;
	}
	return false;
}

static bool send_line(struct netproxy *np, cJSON *rec)
{
	if (stage_send(&np->st, rec) < 0)
		np->broken = true;
	return !np->broken;
}

static bool start(struct netproxy *np, const cJSON *graph)
{
	char tmpl[] = "/tmp/vx-net-XXXXXX";
	/* 0700, under /tmp: every sandbox has a private /tmp, so no task sees
	 * another's socket */
	if (!mkdtemp(tmpl)) {
		err_warn_errno("unable to make a directory for vx-proxy's sockets");
		return false;
	}
	np->dir = xstrdup(tmpl);
	char *prog = proc_stage_path("vx-proxy");
	char *argv[] = {prog, "--request", "-", NULL};
	/* its own process group: a terminal's Ctrl-C stops the tasks, and vx
	 * stops the proxy last, once their denies are in */
	struct spawn_opts o = {.own_group = true};
	int to, from;
	pid_t pid = proc_spawn(argv, &o, &to, &from);
	free(prog);
	if (pid < 0) {
		err_warn_errno("unable to start vx-proxy");
		return false;
	}
	stage_attach(&np->st, "vx-proxy", pid, to, from);
	signal(SIGPIPE, SIG_IGN);
	cJSON *rec = netreq_proxy(graph);
	bool ok = send_line(np, rec);
	cJSON_Delete(rec);
	return ok;
}

bool netproxy_start(struct netproxy *np, const cJSON *graph)
{
	if (!np->broken && !np->st.pid && !start(np, graph))
		np->broken = true;
	return !np->broken;
}

char *netproxy_task(struct netproxy *np, const cJSON *graph, const cJSON *task,
	size_t idx, char **control)
{
	const char *id = str(task, "id");
	if (np->broken || !id)
		return NULL;
	if (!netproxy_start(np, graph))
		return NULL;
	char *path = xasprintf("%s/%zu.sock", np->dir, idx);
	char *ctl = xasprintf("%s/%zu.ctl", np->dir, idx);
	cJSON *rec = netreq_task(task, id, path, ctl);
	bool ok = send_line(np, rec) && wait_for(np, "listening", id);
	cJSON_Delete(rec);
	if (!ok) {
		err_warn("vx-proxy did not open the socket of %s", id);
		free(path);
		free(ctl);
		return NULL;
	}
	*control = ctl;
	return path;
}

int netproxy_fd(const struct netproxy *np)
{
	return np->st.pid && !np->broken ? stage_fd(&np->st) : -1;
}

void netproxy_read(struct netproxy *np)
{
	cJSON *rec;
	if (stage_fill(&np->st) < 0)
		np->broken = true;
	for (int got; (got = stage_next(&np->st, &rec));)
		if (got == 1)
			take(rec, NULL, NULL);
}

void netproxy_stop(struct netproxy *np)
{
	if (np->st.pid) {
		close(np->st.to);
		np->st.to = -1;
		/* vx-proxy ends on EOF; a wedged one is stopped after a grace */
		pid_t w = child_wait_for(np->st.pid, 3000, NULL);
		if (w == 0)
			kill(np->st.pid, SIGKILL);
		else
			np->st.pid = 0; /* reaped here */
		stage_finish(&np->st);
	}
	if (np->dir) {
		rmdir(np->dir);
		free(np->dir);
		np->dir = NULL;
	}
}
