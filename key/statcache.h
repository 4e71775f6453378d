/* statcache.h: content hashes of files by their stat, so re-keying an
 * unchanged tree reads no file contents (<root>/.vx/key-stat, per checkout).
 *
 * An entry (root-relative path -> size, mtime, ctime, inode, hash, and the
 * time it was hashed) is trusted only while the file's size, mtime, ctime and
 * inode are unchanged AND its mtime is older than the moment it was hashed:
 * a file rewritten within the same timestamp tick as its hashing could
 * otherwise keep an old hash with a matching stat (git's "racily clean"
 * entries, read-cache.c). Such an entry is hashed again every time until its
 * mtime falls behind. The file is written whole to a temporary name and
 * renamed; a missing or malformed one is an empty cache. */
#ifndef VX_KEY_STATCACHE_H
#define VX_KEY_STATCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct sc_entry {
	uint64_t size, ino;
	int64_t mtime, ctime, hashed_at; /* ns */
	uint8_t hash[16];
};

struct statcache;

struct statcache *statcache_load(const char *root);
/* The trusted hash of path for st, or NULL. */
const uint8_t *statcache_lookup(struct statcache *sc, const char *path, const struct stat *st);
void statcache_store(struct statcache *sc, const char *path, const struct stat *st,
	const uint8_t hash[16], int64_t hashed_at);
/* Write it back when anything changed. 0 or -1. */
int statcache_save(struct statcache *sc);
/* Now, in the coarse clock file timestamps come from (ns). */
int64_t statcache_now(void);

#endif
