/* stage.c: records to and from a stage over its pipes (stage.h). */
#include "stage.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "jsonl.h"

void stage_attach(struct stage *s, const char *name, pid_t pid, int to, int from)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->pid = pid;
	s->to = to;
	s->from = from;
	if (from >= 0)
		fcntl(from, F_SETFL, fcntl(from, F_GETFL) | O_NONBLOCK);
	else
		s->eof = true;
}

long stage_queue(struct stage *s, const cJSON *rec)
{
	if (s->broken || s->to < 0)
		return -1;
	char *text = cJSON_PrintUnformatted(rec);
	long n = stage_queue_text(s, text, strlen(text));
	cJSON_free(text);
	return n;
}

long stage_queue_text(struct stage *s, const char *text, size_t len)
{
	if (s->broken || s->to < 0)
		return -1;
	strbuf_add(&s->out, text, len);
	strbuf_addch(&s->out, '\n');
	return (long)len + 1;
}

int stage_flush(struct stage *s)
{
	size_t off = 0;
	while (!s->broken && off < s->out.len) {
		ssize_t w = write(s->to, s->out.buf + off, s->out.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			s->broken = true;
		else
			off += (size_t)w;
	}
	strbuf_reset(&s->out);
	return s->broken ? -1 : 0;
}

long stage_send(struct stage *s, const cJSON *rec)
{
	long n = stage_queue(s, rec);
	return n < 0 || stage_flush(s) != 0 ? -1 : n;
}

int stage_fd(const struct stage *s)
{
	return s->eof ? -1 : s->from;
}

int stage_fill(struct stage *s)
{
	/* the lines taken go: the unread bytes move to the front once, here,
	 * not after every line (a 600 KB graph is 1,000 lines) */
	if (s->at) {
		memmove(s->in.buf, s->in.buf + s->at, s->in.len - s->at);
		strbuf_setlen(&s->in, s->in.len - s->at);
		s->at = 0;
	}
	while (!s->eof) {
		strbuf_grow(&s->in, 65536);
		ssize_t n = read(s->from, s->in.buf + s->in.len, s->in.alloc - s->in.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			s->eof = true;
			break;
		}
		s->in.len += (size_t)n; /* read into the room strbuf_grow made */
		s->in.buf[s->in.len] = '\0';
	}
	return -1;
}

/* One line into a record: a JSON object and nothing after it. */
static cJSON *parse(struct stage *s, const char *line)
{
	const char *end = NULL;
	cJSON *rec = cJSON_ParseWithOpts(line, &end, 0);
	if (rec && cJSON_IsObject(rec) && end && !end[strspn(end, " \t\r")])
		return rec;
	cJSON_Delete(rec);
	err_warn("%s:%zu: not one JSON object", s->name, s->line);
	return NULL;
}

/* Take the line of n bytes at the unread bytes' start (a NUL in place of
 * its newline): 1 with *rec, 0 for a blank one, STAGE_BAD. */
static int take_line(struct stage *s, size_t n, size_t took, cJSON **rec)
{
	int got = 0;
	char *line = s->in.buf + s->at;
	line[n] = '\0';
	s->line++;
	if (line[strspn(line, " \t\r")])
		got = (*rec = parse(s, line)) ? 1 : STAGE_BAD;
	if (got == 1 && s->keep_text) {
		strbuf_reset(&s->text);
		strbuf_add(&s->text, line, n);
	}
	s->at += took;
	if (s->at == s->in.len) {
		strbuf_reset(&s->in);
		s->at = 0;
	}
	return got;
}

int stage_next(struct stage *s, cJSON **rec)
{
	char *nl;
	int got;
	*rec = NULL;
	while (s->in.len > s->at && (nl = memchr(s->in.buf + s->at, '\n', s->in.len - s->at))) {
		size_t n = (size_t)(nl - (s->in.buf + s->at));
		if ((got = take_line(s, n, n + 1, rec)))
			return got;
	}
	if (s->in.len - s->at > JSONL_MAX_LINE) {
		/* no stage writes a line this long: drop it and end the hop */
		err_warn("%s:%zu: a line longer than %u bytes", s->name, s->line + 1, JSONL_MAX_LINE);
		strbuf_reset(&s->in);
		s->at = 0;
		s->eof = true;
		return STAGE_BAD;
	}
	/* the last line of a stage that ended without its newline */
	if (s->eof && s->in.len > s->at)
		return take_line(s, s->in.len - s->at, s->in.len - s->at, rec);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int stage_wait(struct stage *s, cJSON **rec, int timeout_ms)
{
	double end = now_ms() + timeout_ms;
	for (;;) {
		int got = stage_next(s, rec);
		if (got)
			return got;
		if (s->eof)
			return -1;
		int left = timeout_ms < 0 ? -1 : (int)(end - now_ms());
		if (timeout_ms >= 0 && left <= 0)
			return 0;
		struct pollfd p = {.fd = s->from, .events = POLLIN};
		int r = poll(&p, 1, left);
		if (r < 0 && errno != EINTR) {
			s->eof = true;
			return -1;
		}
		if (r > 0)
			stage_fill(s);
	}
}

int stage_finish(struct stage *s)
{
	int st, code = -1;
	if (s->to >= 0) {
		stage_flush(s);
		close(s->to);
	}
	if (s->from >= 0)
		close(s->from);
	if (s->pid > 0) {
		pid_t w;
		while ((w = waitpid(s->pid, &st, 0)) < 0 && errno == EINTR)
			;
		if (w == s->pid)
			code = err_wait_status(st);
	}
	strbuf_release(&s->in);
	s->at = 0;
	strbuf_release(&s->out);
	strbuf_release(&s->text);
	s->to = s->from = -1;
	s->pid = 0;
	s->eof = true;
	return code;
}
