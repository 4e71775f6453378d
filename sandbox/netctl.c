/* netctl.c: the task's deny records from vx-proxy, and a vx-proxy of its
 * own for a request without one (netctl.h). */
#include "netctl.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "err.h"
#include "fileio.h"
#include "jsonw.h"
#include "netreq.h"
#include "path.h"

#define NETCTL_WAIT_S 30

/* vx-proxy, beside this program */
static char *proxy_path(void)
{
	return path_beside_self("vx-proxy");
}

/* Send rec without dying of SIGPIPE (the task must not inherit SIG_IGN):
 * the signal is blocked, and taken back if the write raised it. */
static bool send_rec(struct stage *st, const cJSON *rec)
{
	sigset_t pipe, old;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	bool ok = stage_send(st, rec) >= 0;
	struct timespec zero = {0};
	while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ok;
}

static int start(struct sb_request *r, struct netctl *n, const cJSON *graph, const cJSON *task)
{
	char tmpl[] = "/tmp/vx-sandbox-net-XXXXXX";
	char *prog = proxy_path();
	if (!prog || !mkdtemp(tmpl)) {
		err_warn_errno("unable to make a directory for the task's vx-proxy");
		free(prog);
		return -1;
	}
	n->dir = xstrdup(tmpl);
	char *argv[] = {prog, "--request", "-", NULL};
	struct spawn_opts o = {0};
	int to, from;
	pid_t pid = child_start(argv, &o, &to, &from);
	if (pid < 0) {
		err_warn_errno("unable to start %s for the task's network", prog);
		free(prog);
		return -1;
	}
	free(prog);
	stage_attach(&n->st, "vx-proxy", pid, to, from);
	r->proxy_socket = xasprintf("%s/task.sock", n->dir);
	r->proxy_control = xasprintf("%s/task.ctl", n->dir);
	cJSON *p = netreq_proxy(graph), *t = netreq_task(task, r->task_id, r->proxy_socket,
						       r->proxy_control);
	bool ok = send_rec(&n->st, p) && send_rec(&n->st, t);
	cJSON_Delete(p);
	cJSON_Delete(t);
	cJSON *rec = NULL;
	while (ok) {
		int got = stage_wait(&n->st, &rec, NETCTL_WAIT_S * 1000);
		if (got == STAGE_BAD)
			continue;
		const char *type = got == 1 ? cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(rec, "type")) : NULL;
		bool listening = type && !strcmp(type, "listening");
		cJSON_Delete(rec);
		if (got != 1 || listening)
			ok = listening;
		if (listening)
			break;
	}
	if (!ok)
		err_warn("vx-proxy did not open the task's socket; its network cannot be judged");
	return ok ? 0 : -1;
}

int netctl_start(struct sb_request *r, struct netctl *n)
{
	memset(n, 0, sizeof(*n));
	if (r->proxy_socket || !r->records)
		return 0;
	/* the request's two records, as request_read kept them */
	const char *nl = strchr(r->records, '\n');
	char *g = nl ? xstrndup(r->records, (size_t)(nl - r->records)) : NULL;
	cJSON *graph = g ? cJSON_Parse(g) : NULL, *task = nl ? cJSON_Parse(nl + 1) : NULL;
	free(g);
	int rc = graph && task ? start(r, n, graph, task) : -1;
	cJSON_Delete(graph);
	cJSON_Delete(task);
	return rc;
}

/* Connect to the control socket: the fd, or -1. */
static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct timeval tv = { .tv_sec = NETCTL_WAIT_S };
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Copy vx-proxy's answer to out: its deny lines; true once its "done" came. */
static bool copy(int in, int out)
{
	struct strbuf b = {0};
	char chunk[4096];
	bool done = false;
	for (;;) {
		ssize_t k = read(in, chunk, sizeof(chunk));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		strbuf_add(&b, chunk, (size_t)k);
	}
	size_t at = 0;
	for (char *nl; !done && (nl = memchr(b.buf + at, '\n', b.len - at)); at = (size_t)(nl - b.buf) + 1) {
		cJSON *rec = cJSON_ParseWithLength(b.buf + at, (size_t)(nl - b.buf) - at);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
		if (type && !strcmp(type, "deny"))
			fileio_write_all(out, b.buf + at, (size_t)(nl - b.buf) + 1 - at);
		done = type && !strcmp(type, "done");
		cJSON_Delete(rec);
	}
	strbuf_release(&b);
	return done;
}

void netctl_collect(const struct sb_request *r, int fd)
{
	if (!r->proxy_control)
		return;
	int c = dial(r->proxy_control);
	bool confirmed = c >= 0 && copy(c, fd);
	if (c >= 0)
		close(c);
	if (!confirmed)
		err_warn("vx-proxy did not confirm the last network decisions of %s", r->task_id);
	struct jsonw w = {0};
	jsonw_open(&w, '{');
	jsonw_key(&w, "type");
	jsonw_str(&w, "done");
	jsonw_key(&w, "task");
	jsonw_str(&w, r->task_id);
	jsonw_key(&w, "confirmed");
	jsonw_bool(&w, confirmed);
	jsonw_close(&w, '}');
	strbuf_add(&w.sb, "\n", 1);
	if (fileio_write_all(fd, w.sb.buf, w.sb.len) != 0)
		err_warn_errno("unable to write the task's network records");
	jsonw_free(&w);
}

void netctl_stop(struct netctl *n)
{
	if (n->st.pid)
		stage_finish(&n->st);
	if (n->dir) {
		rmdir(n->dir);
		free(n->dir);
		n->dir = NULL;
	}
}
