#include "jsonl.h"

#include <errno.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "strbuf.h"

void jsonl_reader_init(struct jsonl_reader *r, FILE *f, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->name = name;
	r->max = JSONL_MAX_LINE;
}

void jsonl_reader_free(struct jsonl_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}

/* Append the n bytes at p to the line being read, unless it is over. */
static void line_add(struct jsonl_reader *r, size_t *len, bool *over, const char *p, size_t n)
{
	if (*over)
		return;
	if (*len + n >= r->max) {
		*over = true;
		return;
	}
	XGROW(r->buf, *len + n + 1, r->cap);
	memcpy(r->buf + *len, p, n);
	*len += n;
}

/* Read one line into r->buf without its '\n'. Returns its length, -1 at end
 * of input, -2 when it was longer than r->max (the rest is skipped). What
 * the stream holds already is searched with memchr and copied at once
 * (glibc's FILE, as jsonl_reader_buffered): a byte at a time was most of
 * a reader's cost on a long stream of records. */
static long read_line(struct jsonl_reader *r)
{
	FILE *f = r->f;
	size_t len = 0;
	bool over = false, eof = false;

	XGROW(r->buf, 4096, r->cap);
	for (;;) {
		if (f->_IO_read_ptr >= f->_IO_read_end) {
			int c = getc_unlocked(f); /* refills the buffer */
			if (c == EOF) {
				eof = true;
				break;
			}
			if (c == '\n')
				break;
			char ch = (char)c;
			line_add(r, &len, &over, &ch, 1);
			continue;
		}
		char *p = f->_IO_read_ptr, *e = f->_IO_read_end;
		char *nl = memchr(p, '\n', (size_t)(e - p));
		line_add(r, &len, &over, p, (size_t)((nl ? nl : e) - p));
		f->_IO_read_ptr = nl ? nl + 1 : e;
		if (nl)
			break;
	}
	if (eof && len == 0 && !over)
		return -1;
	r->buf[len] = '\0';
	return over ? -2 : (long)len;
}

int jsonl_read_text(struct jsonl_reader *r, const char **text, size_t *len)
{
	for (;;) {
		long n = read_line(r);
		if (n == -1) {
			if (ferror(r->f)) {
				err_warn_errno("%s: read error", r->name);
				return -1;
			}
			return 0;
		}
		r->line++;
		if (n == -2) {
			err_warn("%s:%zu: line longer than %zu bytes", r->name, r->line, r->max);
			return -1;
		}
		const char *p = r->buf, *e = r->buf + n;
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			continue;
		if (strlen(p) != (size_t)(e - p)) {
			err_warn("%s:%zu: NUL byte in record", r->name, r->line);
			return -1;
		}
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		*text = p;
		*len = (size_t)(e - p);
		return 1;
	}
}

int jsonl_parse_text(const struct jsonl_reader *r, const char *text, cJSON **out)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
	if (!j) {
		size_t col = end ? (size_t)(end - r->buf) + 1 : 1;
		err_warn("%s:%zu: invalid JSON at column %zu", r->name, r->line, col);
		return -1;
	}
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		err_warn("%s:%zu: record is not a JSON object", r->name, r->line);
		return -1;
	}
	*out = j;
	return 1;
}

int jsonl_read(struct jsonl_reader *r, cJSON **out)
{
	const char *text;
	size_t len;
	int got = jsonl_read_text(r, &text, &len);
	return got == 1 ? jsonl_parse_text(r, text, out) : got;
}

static bool out_flush_each;
static bool out_batch; /* jsonl_out_batch on a pipe */

static void finish_at_die(void)
{
	jsonl_out_finish();
}

void jsonl_out_init(void)
{
	struct stat st;
	err_at_die(finish_at_die);
	signal(SIGPIPE, SIG_IGN);
	if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		out_flush_each = true;
	else if (isatty(STDOUT_FILENO))
		out_flush_each = true;
}

static _Noreturn void write_failed(void);

void jsonl_out_batch(void)
{
	out_batch = out_flush_each;
	out_flush_each = false;
}

void jsonl_out_flush(void)
{
	errno = 0;
	if (fflush(stdout) != 0)
		write_failed();
}

bool jsonl_reader_buffered(const struct jsonl_reader *r)
{
	/* glibc's FILE: the bytes read from the fd and not yet taken */
	return r->f->_IO_read_ptr < r->f->_IO_read_end;
}

static _Noreturn void write_failed(void)
{
	int e = errno;
	if (e != EPIPE)
		err_warn("write error: %s", strerror(e ? e : EIO));
	_exit(VX_EXIT_FAIL);
}

static struct {
	bool on;
	struct strbuf sb;
} kept;

void jsonl_out_keep(void)
{
	kept.on = true;
}

char *jsonl_out_kept(size_t *len)
{
	char *b = NULL;
	*len = 0;
	if (kept.sb.buf) /* NULL when nothing was kept */
		b = strbuf_detach(&kept.sb, len);
	kept.on = false;
	return b;
}

static void keep(const char *line, size_t len)
{
	strbuf_add(&kept.sb, line, len);
	strbuf_addch(&kept.sb, '\n');
}

void jsonl_write_raw(const char *line, size_t len)
{
	if (kept.on)
		keep(line, len);
	errno = 0;
	/* a record that would not fit what is pending goes after a flush, so
	 * records under 64 KiB reach stdout whole (vx run sizes the buffer
	 * for it: termsafe.h), never split by a stage's line on a shared 2>&1 */
	size_t pending = __fpending(stdout);
	if (pending && pending + len + 1 > 65536 && fflush(stdout) != 0)
		write_failed();
	if (fwrite(line, 1, len, stdout) != len || putc_unlocked('\n', stdout) == EOF)
		write_failed();
	if ((out_flush_each || (out_batch && __fpending(stdout) >= JSONL_BATCH)) &&
		fflush(stdout) != 0)
		write_failed();
}

void jsonl_write(const cJSON *rec)
{
	char *s = cJSON_PrintUnformatted(rec);
	if (!s)
		err_die(VX_EXIT_FAIL, "out of memory");
	jsonl_write_raw(s, strlen(s));
	cJSON_free(s);
}

int jsonl_out_finish(void)
{
	static bool done;
	if (done)
		return VX_EXIT_OK;
	done = true;
	errno = 0;
	bool bad = ferror(stdout);
	if (fflush(stdout) != 0)
		bad = true;
	int e = errno;
	if (fclose(stdout) != 0 && !bad) {
		bad = true;
		e = errno;
	}
	if (bad) {
		if (e != EPIPE)
			err_warn("write error: %s", strerror(e ? e : EIO));
		return VX_EXIT_FAIL;
	}
	return VX_EXIT_OK;
}

size_t jsonl_line_of(const char *text, size_t off)
{
	size_t line = 1;
	for (size_t i = 0; i < off && text[i]; i++)
		if (text[i] == '\n')
			line++;
	return line;
}
