/* streams.c: the record streams of a run's tasks, judged as they end
 * (streams.h). */
#include "streams.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "report.h"
#include "strbuf.h"

#define MSG_MAX 65536

struct stream {
	int fd;
	char *id;
	struct strbuf buf;
	struct stream *next;
};

int streams_on_stdin(void)
{
	int type = 0;
	socklen_t len = sizeof(type);
	return getsockopt(STDIN_FILENO, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	       type == SOCK_SEQPACKET;
}

/* The stream's records, judged: its verdict and what comes before it. */
static void judge(struct stream *s)
{
	struct report r = {0};
	char *name = xasprintf("<the records of %s>", s->id);
	FILE *f = s->buf.len ? fmemopen(s->buf.buf, s->buf.len, "r") : NULL;
	int rc = f ? report_read_stream(&r, f, name) : -1;
	if (f)
		fclose(f);
	if (!rc && !r.task)
		err_warn("%s: no request: the stream does not start with the graph and task "
			 "records; fix: vx-sandbox --request FILE --trace-fd N", name);
	if (rc || !r.task)
		report_unjudged(s->id);
	else
		report_judge(&r, r.has_exit ? r.exit_status : 0);
	report_free(&r);
	free(name);
}

/* One message from stdin: a stream added, a judge record judged; 1 at EOF,
 * -1 for a malformed one (named), else 0. */
static int take(struct stream **list, size_t n, int (*judge_files)(const cJSON *, size_t))
{
	static char data[MSG_MAX + 1];
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = data, .iov_len = MSG_MAX };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
		.msg_controllen = sizeof(ctl.space) };
	ssize_t got = recvmsg(STDIN_FILENO, &m, MSG_CMSG_CLOEXEC);
	if (got < 0 && errno == EINTR)
		return 0;
	if (got <= 0)
		return 1;
	int fd = -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	data[got] = '\0';
	cJSON *rec = (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ? NULL : cJSON_Parse(data);
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "id"));
	int rc = 0;
	if (type && !strcmp(type, "stream") && id && fd >= 0) {
		struct stream *s = xcalloc(1, sizeof(*s));
		s->fd = fd;
		s->id = xstrdup(id);
		s->next = *list;
		*list = s;
		fd = -1;
	} else if (type && !strcmp(type, "judge") && fd < 0) {
		rc = judge_files(rec, n) ? -1 : 0;
	} else {
		err_warn("<stdin>:%zu: neither a stream record with its descriptor nor a judge "
			 "record; fix: {\"type\":\"stream\",\"id\":ID} with the stream's read end "
			 "attached", n);
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	cJSON_Delete(rec);
	return rc;
}

int streams_serve(int (*judge_files)(const cJSON *rec, size_t n))
{
	struct stream *list = NULL;
	struct pollfd *p = NULL;
	size_t cap = 0, n = 0;
	bool in = true;
	int code = VX_EXIT_OK;
	while (in || list) {
		size_t k = 0;
		for (struct stream *s = list; s; s = s->next)
			k++;
		XGROW(p, k + 1, cap);
		k = 0;
		if (in)
			p[k++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		for (struct stream *s = list; s; s = s->next)
			p[k++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		if (poll(p, k, -1) < 0) {
			if (errno == EINTR)
				continue;
			err_die_errno(VX_EXIT_FAIL, "poll");
		}
		k = 0;
		if (in && p[k++].revents) {
			int t = take(&list, ++n, judge_files);
			if (t < 0)
				code = VX_EXIT_USAGE;
			in = t != 1;
			continue; /* the list may have changed under p */
		}
		for (struct stream **pp = &list, *s; (s = *pp); k++) {
			if (!p[k].revents) {
				pp = &s->next;
				continue;
			}
			char chunk[65536];
			ssize_t got = read(s->fd, chunk, sizeof(chunk));
			if (got > 0 || (got < 0 && errno == EINTR)) {
				if (got > 0)
					strbuf_add(&s->buf, chunk, (size_t)got);
				pp = &s->next;
				continue;
			}
			/* its end: every writer (vx-sandbox, its sandbox) is gone */
			judge(s);
			*pp = s->next;
			close(s->fd);
			strbuf_release(&s->buf);
			free(s->id);
			free(s);
		}
	}
	free(p);
	return code;
}
