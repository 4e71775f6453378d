/* memo.h: the one framing of the files vx writes to remember work between
 * runs (vx-graph's saved output, vx-key's stat cache, vx run's replay memo,
 * the cache's stamp and in-place memo).
 *
 * A memo file is one header line, then its body, nothing after:
 *
 *   vx-memo <kind> <version> <body bytes> <XXH3-64 of the body, 16 hex>\n
 *   <the body>
 *
 * memo_save writes it whole or not at all (atomicw.h: a fresh temporary,
 * renamed over the name). memo_load reads it back with every check: a
 * regular file, the header whole, this kind and version, the length exact
 * (a short or longer file is refused) and the checksum right. Whatever
 * fails is a miss, never a part of a memo trusted: MEMO_ABSENT (no file),
 * MEMO_STALE (another kind or version, or not a memo at all: a file of an
 * older vx, silently replaced by the next save) or MEMO_DAMAGED (ours, but
 * short, long or corrupt: one line on stderr says which file and that it
 * is ignored, and the next save rewrites it).
 */
#ifndef VX_MEMO_H
#define VX_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct memo {
	char *data;    /* the whole file, malloc'd, NUL-terminated; body is in it */
	char *body;    /* len bytes, then a NUL */
	size_t len;
	int64_t mtime; /* the file's mtime (ns since the epoch): the racy rule's limit */
};

enum memo_status { MEMO_OK, MEMO_ABSENT, MEMO_STALE, MEMO_DAMAGED };

/* path's memo of kind (a word) and version into m (zeroed unless MEMO_OK). */
enum memo_status memo_load(struct memo *m, const char *path, const char *kind,
	unsigned version);
void memo_free(struct memo *m);

/* body as path's memo of kind and version: 0, or -1 with errno (the file
 * as it was). mode as for open(2). */
int memo_save(const char *path, const char *kind, unsigned version, const void *body,
	size_t len, mode_t mode);

#endif
