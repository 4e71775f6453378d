/* statsnap.h: what a memo file remembers of a file's stat, and git's racy
 * rule; the one snapshot the memo files share (vx-key's stat cache, the
 * cache's stamp and in-place memo, vx-graph's config memo).
 *
 * A snapshot matches a later stat when size, mtime, ctime, inode, device
 * and mode are all unchanged (git's ie_match_stat; the ctime catches a
 * `touch -d` back to the old mtime). Times are nanoseconds since the epoch.
 * A memo written at time W vouches for a file only when the file's mtime is
 * strictly before W (git's is_racy_timestamp): a rewrite of the same size
 * in the tick the memo was written could leave every field unchanged.
 */
#ifndef VX_STATSNAP_H
#define VX_STATSNAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

struct statsnap {
	int64_t size;
	int64_t mtime, ctime; /* ns since the epoch */
	uint64_t ino, dev;
	uint32_t mode;
};

int64_t statsnap_ns(struct timespec t);
/* ns split back into seconds and nanoseconds (0..999999999), as a stat has it */
int64_t statsnap_sec(int64_t ns);
long statsnap_nsec(int64_t ns);
/* Every byte set, padding included: a snapshot may be hashed as bytes. */
void statsnap_take(struct statsnap *s, const struct stat *st);
bool statsnap_same(const struct statsnap *a, const struct statsnap *b);
/* s still describes the file st was just taken of */
bool statsnap_matches(const struct statsnap *s, const struct stat *st);
/* The racy rule: may a memo written at time written (ns) vouch for s? */
bool statsnap_trusted(const struct statsnap *s, int64_t written);

/* The text form the line-based memo files write (the stamp, vx-graph's):
 * "<size> <mtime s> <mtime ns> <ctime s> <ctime ns> <inode> <device>
 * <mode, octal>". statsnap_print writes it to f; statsnap_parse reads it
 * at *p, followed by one space, and moves *p past that space: false (and
 * *p unmoved) when malformed. */
void statsnap_print(FILE *f, const struct statsnap *s);
bool statsnap_parse(char **p, struct statsnap *s);

#endif
