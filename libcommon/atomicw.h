/* atomicw.h: write a file whole or not at all (git's lockfile, simplified).
 *
 * atomicw_open() creates a new temporary beside the target, O_EXCL and
 * O_NOFOLLOW under a name with a random part: nothing planted there first
 * (a symlink, another writer's file) is followed, truncated or shared. The
 * caller writes through w->fd, or the FILE from atomicw_stdio(). Then
 * atomicw_commit() closes it and renames it onto the target, so a reader
 * sees the old file or the new one, never a part; atomicw_abort() drops it.
 * Every failure removes the temporary and leaves the target as it was.
 * atomicw_openat() does the same relative to an open directory (the
 * caller keeps dirfd open until commit or abort), so a path swapped above
 * it after it was opened changes nothing; w->sync set before the commit
 * asks for fsync(2) of the data first (a file a person edits, not a memo).
 * The memo files (.vx/key-stat, graph, stamps, in-place records, keys, why)
 * are written this way; they are speed, so their callers may ignore errors.
 */
#ifndef VX_ATOMICW_H
#define VX_ATOMICW_H

#include <stdio.h>
#include <sys/types.h>

struct atomicw {
	char *dst; /* the target */
	char *tmp; /* the temporary beside it */
	int fd;
	FILE *f; /* once atomicw_stdio() was asked */
	int dirfd; /* what dst and tmp are relative to (AT_FDCWD: the cwd) */
	int sync;  /* 0 after open; set by the caller: fsync before the rename */
};

/* 0, or -1 with errno (w holds nothing to release). mode as for open(2). */
int atomicw_open(struct atomicw *w, const char *path, mode_t mode);
int atomicw_openat(struct atomicw *w, int dirfd, const char *path, mode_t mode);
/* The temporary as a stdio stream (buffered; commit flushes and checks). */
FILE *atomicw_stdio(struct atomicw *w);
/* write(2) of all n bytes, retrying short writes: 0, or -1 with errno. */
int atomicw_write(struct atomicw *w, const void *buf, size_t n);
/* Close and rename onto the target: 0, or -1 with errno (target untouched). */
int atomicw_commit(struct atomicw *w);
void atomicw_abort(struct atomicw *w);

#endif
