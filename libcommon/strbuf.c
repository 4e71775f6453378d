#include "strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (extra > (size_t)-1 / 2 - sb->len)
		err_die(VX_EXIT_FAIL, "out of memory");
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t a = sb->alloc ? sb->alloc : 64;
	while (a < need)
		a *= 2;
	sb->buf = xrealloc(sb->buf, a);
	sb->alloc = a;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	if (n)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	strbuf_grow(sb, 64);
	va_start(ap, fmt);
	int n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		err_die(VX_EXIT_FAIL, "a format failed");
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

int strbuf_read(struct strbuf *sb, int fd, size_t hint)
{
	strbuf_grow(sb, hint ? hint : 8192);
	for (;;) {
		ssize_t r = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			sb->buf[sb->len] = '\0';
			return r < 0 ? -1 : 0;
		}
		sb->len += (size_t)r;
		if (sb->alloc - sb->len < 2)
			strbuf_grow(sb, 1); /* doubles */
	}
}

void strbuf_setlen(struct strbuf *sb, size_t n)
{
	if (n > sb->len)
		err_die(VX_EXIT_FAIL, "strbuf_setlen past the end");
	sb->len = n;
	if (sb->buf)
		sb->buf[n] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	strbuf_grow(sb, 0);
	sb->buf[sb->len] = '\0';
	char *p = sb->buf;
	if (len)
		*len = sb->len;
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}
