/* statcache.h: content hashes of files by their stat, so re-keying an
 * unchanged tree reads no file contents, and listings of directories by
 * theirs, so it lists no directory (<root>/.vx/key-stat, per checkout).
 *
 * An entry maps a root-relative path to the size, mtime, ctime (ns), inode
 * and device it had when hashed, and the hash. It is trusted while all five
 * are unchanged AND its mtime is older than its "racy limit" (git's racily
 * clean entries, read-cache.c is_racy_timestamp): a file rewritten with the
 * same size inside the timestamp tick it was hashed in keeps a matching stat,
 * so only a file last written strictly before the hashing can be believed.
 * The limit is the clock when the entry was hashed in this process, and for
 * entries loaded from disk the stat cache file's own mtime (the same
 * filesystem clock and granularity as the tree, as git uses the index's).
 * Saving drops entries that are still racy (ce_smudge_racily_clean_entry),
 * so a newer file mtime never whitewashes them. The file is a memo (memo.h):
 * written whole, and a missing, foreign or damaged one is an empty cache.
 *
 * Lookups and stores are not thread-safe: call them from one thread. */
#ifndef VX_KEY_STATCACHE_H
#define VX_KEY_STATCACHE_H

#include "statsnap.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct sc_entry {
	struct statsnap st;
	int64_t limit;        /* ns: trusted only when st.mtime < limit */
	uint8_t hash[16];
	const char *list;     /* a directory's: its listing (walk.h's blob) */
	uint32_t listlen;
	bool list_owned;      /* list was malloc'd by a store; else it points into
	                       * the loaded file (an empty one may point at its end) */
};

struct statcache;

/* Load <root>/.vx/key-stat (an empty cache when absent or malformed). */
struct statcache *statcache_load(const char *root);
/* The trusted hash of path for st, or NULL. */
const uint8_t *statcache_lookup(struct statcache *sc, const char *path, const struct stat *st);
/* Remember path's hash, hashed from content read at or after hashed_at
 * (statcache_now() taken before the read). */
void statcache_store(struct statcache *sc, const char *path, const struct stat *st,
	const uint8_t hash[16], int64_t hashed_at);
/* Directories, under the key "<root-relative path>/" ("/" for the root):
 * the listing (walk.h's blob) of the directory st describes, trusted by the
 * same rules as a file's hash, or NULL; and remembering one, listed after
 * listed_at (statcache_now()). */
/* git's preload_index: lstat every loaded path (file or directory) on
 * background threads (one fewer than the CPUs, at most 3) while the caller
 * walks, so the walk asks the kernel only about what is new and both run at
 * once. An entry is stat'ed once: by a thread, or by the walk when it gets
 * there first (statcache_prestat then says 1). A preloaded stat stands for
 * the path until statcache_preload_drop, which stops and joins the threads
 * (vx-key drops them at a rescan record: a task ran or was restored, and may
 * have written an input); statcache_save and statcache_free drop them too. */
void statcache_preload(struct statcache *sc, const char *root);
void statcache_preload_drop(struct statcache *sc);
/* The preloaded lstat of key (a file's path, or a directory's "path/"):
 * 0 with *st, -1 with errno as the lstat failed, 1 when there is none (not
 * loaded, dropped, not reached by the threads yet, or follow and a symlink:
 * stat() it yourself). *entry (when not NULL) is set either way to key's
 * entry, or NULL: statcache_lookup_entry takes it instead of finding it
 * again. Entries live until statcache_free (a store rewrites one in place). */
int statcache_prestat(struct statcache *sc, const char *key, bool follow, struct stat *st,
	const struct sc_entry **entry);
/* statcache_lookup on the entry statcache_prestat found (NULL: none). */
const uint8_t *statcache_lookup_entry(const struct sc_entry *e, const struct stat *st);
const char *statcache_dir_get(struct statcache *sc, const char *key, const struct stat *st,
	size_t *len);
/* A hint ahead of the lookups a walk makes next: the entries of the
 * children a directory's listing (key, list and len as statcache_dir_get
 * gave them) names, asked of the memory all at once. */
void statcache_prefetch_children(const struct statcache *sc, const char *key, const char *list,
	size_t len);
void statcache_dir_put(struct statcache *sc, const char *key, const struct stat *st,
	const char *list, size_t len, int64_t listed_at);
/* Write it back (temp + rename) when anything changed: 0, or -1 with errno. */
int statcache_save(struct statcache *sc);
bool statcache_dirty(const struct statcache *sc);
/* Now, in the coarse clock file timestamps come from (ns). */
int64_t statcache_now(void);
void statcache_free(struct statcache *sc);

#endif
