/* strbuf.h: the one growable byte buffer (git's strbuf, simplified).
 *
 * buf holds len bytes and, once anything was added, a NUL after them, so it
 * reads as a C string when the bytes hold none; alloc is what is allocated.
 * STRBUF_INIT (or zeroing) makes an empty one that owns nothing yet. Growth
 * doubles, so n adds cost O(n) copies; allocation never fails (err.h's
 * xrealloc dies instead). strbuf_release() frees and empties it;
 * strbuf_detach() hands the bytes over.
 */
#ifndef VX_STRBUF_H
#define VX_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, alloc;
};

#define STRBUF_INIT {NULL, 0, 0}

/* Room for extra more bytes (and the NUL) without another allocation. */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append what fd holds until end of file (a pipe's writers all gone),
 * read(2) retried on EINTR, room made hint bytes at a time at first (8192
 * when 0), then doubling. 0, or -1 with errno; what was read stays either
 * way. */
int strbuf_read(struct strbuf *sb, int fd, size_t hint);
/* Cut to n bytes (n <= len). strbuf_reset is strbuf_setlen(sb, 0). */
void strbuf_setlen(struct strbuf *sb, size_t n);
void strbuf_reset(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* The bytes, NUL-terminated (never NULL), now the caller's; sb is empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

#endif
