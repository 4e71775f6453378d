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

int stage_send(struct stage *s, const cJSON *rec)
{
	char *text;
	size_t n, off = 0;
	if (s->broken || s->to < 0)
		return -1;
	text = cJSON_PrintUnformatted(rec);
	n = strlen(text);
	text[n] = '\n'; /* replaces the NUL: written by length */
	while (off <= n) {
		ssize_t w = write(s->to, text + off, n + 1 - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->broken = true;
			break;
		}
		off += (size_t)w;
	}
	cJSON_free(text);
	return s->broken ? -1 : 0;
}

int stage_fd(const struct stage *s)
{
	return s->eof ? -1 : s->from;
}

int stage_fill(struct stage *s)
{
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

int stage_next(struct stage *s, cJSON **rec)
{
	char *nl;
	*rec = NULL;
	while (s->in.len && (nl = memchr(s->in.buf, '\n', s->in.len))) {
		size_t took = (size_t)(nl - s->in.buf) + 1;
		*nl = '\0';
		s->line++;
		if (s->in.buf[strspn(s->in.buf, " \t\r")])
			*rec = parse(s, s->in.buf);
		memmove(s->in.buf, s->in.buf + took, s->in.len - took);
		strbuf_setlen(&s->in, s->in.len - took);
		if (*rec)
			return 1;
	}
	/* the last line of a stage that ended without its newline */
	if (s->eof && s->in.len) {
		s->line++;
		if (s->in.buf[strspn(s->in.buf, " \t\r")])
			*rec = parse(s, s->in.buf);
		strbuf_reset(&s->in);
		return *rec != NULL;
	}
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
		if (stage_next(s, rec))
			return 1;
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
	if (s->to >= 0)
		close(s->to);
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
	s->to = s->from = -1;
	s->pid = 0;
	s->eof = true;
	return code;
}
