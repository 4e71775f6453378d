/* trace_records.c: the trace's records (docs/protocol.md "vx-sandbox
 * trace"): the trace file, the out buffer, each access and connect
 * record, the start, end, off and placeholder records (see trace_int.h). */
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

int trace_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd >= 0)
		return fd;
	if (errno == EEXIST) {
		/* no O_TRUNC before the checks: a hard link to another's file
		 * must not be emptied; O_NONBLOCK: a FIFO does not hang us */
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
			st.st_nlink == 1 && !ftruncate(fd, 0) &&
			!fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
			return fd;
		if (fd >= 0) {
			close(fd);
			err_warn("the trace file '%s' exists and is not a regular file of yours "
				"with one link, so it is left alone; fix: remove it or pick a new name",
				path);
			return -1;
		}
	}
	err_warn_errno("unable to open the trace file '%s'%s", path,
		errno == ELOOP ? " (a symlink is never followed)" : "");
	return -1;
}

void trace_out_init(struct out *o, int fd)
{
	struct stat st;
	o->fd = fd;
	o->piped = fstat(fd, &st) || !S_ISREG(st.st_mode);
}

/* n bytes from s, written on after a short write or EINTR. */
static void out_write(struct out *o, const char *s, size_t n)
{
	while (n && !o->failed) {
		ssize_t k = write(o->fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			o->failed = true;
		else
			s += k, n -= (size_t)k;
	}
}

/* The bridge's relay writes its dns lines to the same trace, each in one
 * write() of less than PIPE_BUF bytes, so each lands whole; a record of
 * ours must not be cut by one. Into a regular file each write() lands
 * whole (the kernel holds the shared file position across it), so the
 * buffer goes in one. Into a pipe (--trace -) only a write of at most
 * PIPE_BUF bytes does: a longer one that meets a full pipe goes in parts,
 * and the relay's line can land inside a record. There the buffer goes in
 * runs of whole lines of at most PIPE_BUF bytes; a longer line alone. */
static void out_flush(struct out *o)
{
	size_t off = 0;
	while (off < o->len && !o->failed) {
		const char *s = o->buf + off, *nl;
		size_t n = o->len - off;
		if (o->piped && n > PIPE_BUF) {
			nl = memrchr(s, '\n', PIPE_BUF);
			if (!nl)
				nl = memchr(s + PIPE_BUF, '\n', n - PIPE_BUF);
			if (nl)
				n = (size_t)(nl - s) + 1;
		}
		out_write(o, s, n);
		off += n;
	}
	o->len = 0;
}

static void out_line(struct out *o)
{
	const char *s = o->w.sb.buf;
	size_t n = o->w.sb.len;
	if (o->len + n + 1 > sizeof(o->buf))
		out_flush(o);
	if (n + 1 > sizeof(o->buf)) {
		/* a record larger than the buffer goes out on its own, with its
		 * newline in the same write(), so no line of the relay's lands
		 * between the two */
		strbuf_addch(&o->w.sb, '\n');
		out_write(o, o->w.sb.buf, n + 1);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len++] = '\n';
}

/* s as valid UTF-8 (each invalid byte as U+FFFD); *bad set when it was not. */
static char *utf8_clean(const char *s, bool *bad)
{
	size_t n = strlen(s), j = 0;
	char *o = xmalloc(3 * n + 1);
	const unsigned char *u = (const unsigned char *)s;
	*bad = false;
	for (size_t i = 0; i < n;) {
		size_t len = u[i] < 0x80 ? 1 : (u[i] & 0xe0) == 0xc0 ? 2 :
			(u[i] & 0xf0) == 0xe0 ? 3 : (u[i] & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++)
			ok = (u[i + k] & 0xc0) == 0x80;
		if (ok && len == 2 && u[i] < 0xc2)
			ok = false; /* overlong */
		if (ok && len == 3 && ((u[i] == 0xe0 && u[i + 1] < 0xa0) ||
			(u[i] == 0xed && u[i + 1] >= 0xa0)))
			ok = false; /* overlong, or a surrogate */
		if (ok && len == 4 && ((u[i] == 0xf0 && u[i + 1] < 0x90) || u[i] > 0xf4 ||
			(u[i] == 0xf4 && u[i + 1] >= 0x90)))
			ok = false;
		if (ok) {
			memcpy(o + j, s + i, len);
			j += len;
			i += len;
		} else {
			memcpy(o + j, "\xef\xbf\xbd", 3);
			j += 3;
			i++;
			*bad = true;
		}
	}
	o[j] = 0;
	return o;
}

/* "key": the path, plus "key_hex": its bytes when they are not UTF-8. */
static void put_path(struct jsonw *w, const char *key, const char *s)
{
	bool bad;
	char *clean = utf8_clean(s, &bad);
	jsonw_key(w, key);
	jsonw_str(w, clean);
	free(clean);
	if (bad) {
		size_t n = strlen(s);
		char *hex = xmalloc(2 * n + 1), *k = xasprintf("%s_hex", key);
		for (size_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
		jsonw_key(w, k);
		jsonw_str(w, hex);
		free(hex);
		free(k);
	}
}

/* Every errno by its name (glibc's table), never a number (issue 18 item 4). */
static const char *errno_name(int e)
{
	return e ? strerrorname_np(e) : NULL;
}

void trace_ev_clear(struct ev *e)
{
	free(e->path);
	free(e->resolved);
	memset(e, 0, sizeof(*e));
}

void trace_emit(struct tracer *t, pid_t pid, const struct ev *e, int err, bool unfinished)
{
	struct jsonw *w = &t->o->w;
	const char *en = errno_name(err);
	char num[16];
	jsonw_reset(w);
	jsonw_open(w, '{');
	jsonw_key(w, "op");
	jsonw_str(w, e->op);
	jsonw_key(w, "access");
	jsonw_str(w, e->access == 'w' ? "write" : e->access == 'u' ? "unix" : "read");
	put_path(w, "path", e->path);
	put_path(w, "resolved", e->resolved);
	jsonw_key(w, "errno");
	if (err && !en) {
		snprintf(num, sizeof(num), "E%d", err);
		jsonw_str(w, num);
	} else {
		jsonw_str(w, en);
	}
	if (e->widened) {
		jsonw_key(w, "widened");
		jsonw_bool(w, true);
	}
	if (e->grant) {
		jsonw_key(w, "grant");
		jsonw_str(w, e->grant);
	}
	if (unfinished) {
		jsonw_key(w, "unfinished");
		jsonw_bool(w, true);
	}
	jsonw_key(w, "pid");
	jsonw_num(w, pid);
	jsonw_close(w, '}');
	out_line(t->o);
	t->o->events++;
}

/* {"op":"connect","access":"net","addr":...,"port":...,"proto":...}: a
 * direct dial out of the sandbox (issue 18 item 5). */
void trace_emit_net(struct tracer *t, pid_t pid, const char *host, unsigned port, int sock,
	long rc)
{
	struct jsonw *w = &t->o->w;
	int type = 0;
	socklen_t tl = sizeof(type);
	(void)getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl);
	jsonw_reset(w);
	jsonw_open(w, '{');
	jsonw_key(w, "op");
	jsonw_str(w, "connect");
	jsonw_key(w, "access");
	jsonw_str(w, "net");
	jsonw_key(w, "addr");
	jsonw_str(w, host);
	jsonw_key(w, "port");
	jsonw_num(w, port);
	jsonw_key(w, "proto");
	jsonw_str(w, type == SOCK_DGRAM ? "udp" : type == SOCK_STREAM ? "tcp" : "other");
	jsonw_key(w, "errno");
	jsonw_str(w, errno_name((int)-rc));
	jsonw_key(w, "pid");
	jsonw_num(w, pid);
	jsonw_close(w, '}');
	out_line(t->o);
	t->o->events++;
}

void trace_end_record(struct out *o, const char *state, const char *why)
{
	jsonw_reset(&o->w);
	jsonw_open(&o->w, '{');
	jsonw_key(&o->w, "trace");
	jsonw_str(&o->w, state);
	if (why) {
		jsonw_key(&o->w, "reason");
		jsonw_str(&o->w, why);
	}
	jsonw_key(&o->w, "events");
	jsonw_num(&o->w, (double)o->events);
	jsonw_close(&o->w, '}');
	out_line(o);
	out_flush(o);
}

/* What the report needs beside the accesses: the links withheld. */
void trace_start_record(struct tracer *t)
{
	struct jsonw *w = &t->o->w;
	jsonw_reset(w);
	jsonw_open(w, '{');
	jsonw_key(w, "trace");
	jsonw_str(w, "start");
	jsonw_key(w, "v");
	jsonw_num(w, 1);
	jsonw_key(w, "task");
	jsonw_str(w, t->r->task_id);
	put_path(w, "root", t->r->root);
	put_path(w, "project", t->r->project);
	jsonw_key(w, "withheld");
	jsonw_open(w, '[');
	for (size_t i = 0; i + 1 < t->p->withheld.n; i += 2) {
		jsonw_open(w, '{');
		put_path(w, "link", t->p->withheld.v[i]);
		put_path(w, "dir", t->p->withheld.v[i + 1]);
		jsonw_close(w, '}');
	}
	jsonw_close(w, ']');
	jsonw_close(w, '}');
	out_line(t->o);
}

void trace_placeholders(const struct sb_request *r, const struct plan *p)
{
	static struct out o;
	trace_out_init(&o, r->trace_fd);
	for (size_t i = 0; i < p->nph; i++) {
		const struct placeholder *ph = &p->ph[i];
		if (!plan_placeholder_untouched(ph))
			continue;
		jsonw_reset(&o.w);
		jsonw_open(&o.w, '{');
		jsonw_key(&o.w, "trace");
		jsonw_str(&o.w, "placeholder");
		put_path(&o.w, "path", ph->path);
		jsonw_key(&o.w, "grant");
		jsonw_str(&o.w, ph->grant);
		jsonw_close(&o.w, '}');
		out_line(&o);
	}
	out_flush(&o);
	jsonw_free(&o.w);
}

void trace_off(const struct sb_request *r, const char *why)
{
	static struct out o;
	fprintf(stderr, "%s: %s: the kernel refuses to trace the task (%s), so its "
		"denied reads and writes go unreported; the sandbox still enforces them\n",
		err_prog(), r->task_id, why);
	trace_out_init(&o, r->trace_fd);
	trace_end_record(&o, "off", why);
	jsonw_free(&o.w);
}
