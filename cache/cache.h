/* cache.h: the local cache of task results, linked into the
 * driver and into vx-cache.
 *
 * The caller resolves the directory (VX_CACHE_DIR, else <root>/.vx/cache)
 * and opens it; several checkouts and processes may share one, so an entry
 * holds nothing absolute and correctness rests on atomic renames, not locks.
 * Threads: lookups, cache_entry_log and the restore calls may run on several
 * threads at once on one handle (the driver writes hits on a pool);
 * cache_open, cache_close, cache_save, cache_verify and cache_clean run
 * alone, with no other call on the handle in flight; so does remote.h's
 * fetch, which writes what it downloads into the local cache. A lookup is
 * a hit only when the manifest is whole and every blob it names is present
 * with its size; a restore verifies every blob's hash and replaces nothing
 * unless all of them check out.
 * Outputs are never written through a symlink. The per-checkout state
 * directory (the driver's <root>/.vx) keeps stamps that let a rerun skip
 * outputs already identical without rehashing them, a memo of entries
 * found whole in place that lets a rerun skip their manifests too, and a
 * shadow (shadow.h): a second hard link to each output written, so that an
 * output deleted since is restored by a link, after its bytes are hashed,
 * instead of a copy.
 *
 * Ownership: struct cache and struct cache_entry belong to the caller and are
 * freed with cache_close and cache_entry_free; strings returned by
 * cache_entry_log are malloc'd for the caller. Functions that fail have
 * already said why on stderr (err.h), except a lookup's miss, which is
 * quiet and says why through *why.
 */
#ifndef VX_CACHE_H
#define VX_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#define CACHE_MANIFEST_VERSION 1

struct cache;

struct cache_entry {
	char key[33];
	cJSON *manifest; /* the whole record, as parsed; owned by the entry */
	double ms;       /* the saved run's duration */
};

/* dir: the cache directory (need not exist yet). statedir: the checkout's
 * own directory for stamps (<root>/.vx), or NULL to always compare bytes. */
struct cache *cache_open(const char *dir, const char *statedir);
void cache_close(struct cache *c);

/* 1: a hit, *out set; 0: a miss, *why (if not NULL) a static reason. */
int cache_lookup(struct cache *c, const char *key, struct cache_entry **out, const char **why);
/* The same with the manifest's checks only, no blob looked at: for a caller
 * that restores next (cache_restore checks every blob it needs, and fails,
 * a miss, when one is gone) and need touch no blob when the outputs are
 * already in place. */
int cache_lookup_manifest(struct cache *c, const char *key, struct cache_entry **out);
void cache_entry_free(struct cache_entry *e);

/* A hit whose outputs are all in projdir (absolute) as this checkout last
 * found them: when cache_restore_check found every output of key's entry
 * in place, it noted their stats and the manifest's in the checkout's state
 * directory; if the manifest and each output still have those very stats
 * (and none is as new as the note), the entry is a hit in place without
 * its manifest being read. 1 with the log in *log (malloc'd) and *len; 0
 * when the memo cannot say: take cache_lookup's road. outputs_vouched: the
 * caller knows no output changed since this memo last vouched for them (a
 * vx-watch token, bin/replay.h): their stats are not taken again. */
int cache_hit_in_place(struct cache *c, const char *key, const char *projdir, bool outputs_vouched,
	char **log, size_t *len);

/* The logged stdout+stderr of e, checked against its hash: malloc'd bytes
 * and *len, or NULL when the log blob is gone or corrupt (then a miss). */
char *cache_entry_log(struct cache *c, const struct cache_entry *e, size_t *len);

/* Write e's outputs into projdir (absolute). 0 when they were all in place
 * already, 1 when some were written, or -1 with nothing of the entry left
 * half-written (a failed restore is a miss: run the task). */
int cache_restore(struct cache *c, const struct cache_entry *e, const char *projdir);

/* cache_restore in two halves, for a caller that writes on other threads
 * while it checks the next hit. The check writes nothing: 0 when every
 * output is in place already, -1 when the restore is refused (a symlink or
 * a directory in the way: a miss), or 1 with *w what is left to write. The
 * write stages and renames those: 1, or -1 with nothing of the entry left
 * half-written; it frees w either way. e must outlive w. */
struct cache_writes;
int cache_restore_check(struct cache *c, const struct cache_entry *e, const char *projdir,
	struct cache_writes **w);
int cache_restore_write(struct cache *c, struct cache_writes *w);

/* Before a task runs in projdir: its outputs' second links in the
 * checkout's shadow (shadow.h) are removed, so that the task's writes to
 * them reach nothing outside the project. Failures only cost speed (a
 * later restore verifies the shadow's bytes before it links them). */
void cache_shadow_drop(struct cache *c, const char *projdir);

/* Size limits (issue 20): an entry whose outputs hold a regular file of
 * more than VX_CACHE_MAX_OUTPUT_SIZE bytes, or more than
 * VX_CACHE_MAX_ENTRY_SIZE bytes in all, is not saved (nor fetched from a
 * remote), so that a sparse file or a runaway task cannot fill the cache
 * with bytes it never wrote. Read by cache_open: bytes, or a number with
 * K, M, G or T (powers of 1024); 0 for no limit; a bad value is one
 * warning and the default. */
#define CACHE_MAX_OUTPUT_DEFAULT "512M"
#define CACHE_MAX_ENTRY_DEFAULT "2G"

struct cache_save {
	const char *label;         /* the task, named in messages; may be NULL */
	const char *key;
	const char *projdir;       /* absolute */
	const char *const *globs;  /* cache.outputs.files, "!" excludes */
	size_t nglobs;
	const char *log;           /* combined stdout+stderr */
	size_t loglen;
	int exit;                  /* anything but 0 is refused */
	double ms;
};

/* Save a successful run: blobs, then the manifest. 0 or -1. */
int cache_save(struct cache *c, const struct cache_save *s);
/* cache_save for a task record (vx-graph's, keyed): its outputs are its
 * cache.outputs.files, its project root/dir, its label its "id";
 * log and ms as in struct cache_save. vx run and vx-cache save share it. */
int cache_save_task(struct cache *c, const char *root, const char *dir, const cJSON *rec,
	const char *key,
	const char *log, size_t loglen, double ms);

/* Check every entry and every blob's bytes; report(key, what, arg) per bad
 * entry. The number of bad entries, or -1 when the cache is unreadable. */
int cache_verify(struct cache *c, void (*report)(const char *key, const char *what, void *arg),
	void *arg);

/* Empty the cache directory: renamed aside, then removed. 0 or -1. */
int cache_clean(struct cache *c);

/* The cap (issue 36, R-11; prune.c): VX_CACHE_MAX_SIZE, read by cache_open
 * like the limits above (default 10G; 0: none). The size counted is the
 * bytes of every blob and manifest (apparent sizes; tmp/ and the
 * checkout's shadow not counted). */
#define CACHE_MAX_SIZE_DEFAULT "10G"
unsigned long long cache_max_size(const struct cache *c);
/* The root vx.json's cacheMaxSize, which VX_CACHE_MAX_SIZE (when set)
 * overrides: the driver's, once the graph is read. */
void cache_config_max_size(struct cache *c, unsigned long long cap);

/* Note that key's entry was hit: the handle keeps the key (no system
 * call), its own cache_prune never evicts it, and cache_close appends the
 * keys, dated then, to <dir>/hits in one write. An entry's last use is the
 * later of its last line there and its manifest's mtime (its save).
 * Failures are quiet (an older last use only makes the entry go sooner).
 * Any thread. */
void cache_touch(struct cache *c, const char *key);

struct cache_pruned {
	unsigned long long before, after; /* bytes counted */
	size_t entries, evicted, blobs;   /* blobs: files removed from cas/ */
};

/* Over cap bytes (0: no cap): evict entries least recently used first
 * until the cache holds at most 90% of cap, never one used at or after
 * keep (NULL: none kept) nor one this handle touched, then remove the blobs no manifest names any
 * more. Under an flock of <dir>/prune.lock. by_hand: wait for the lock
 * and, over the cap or not, also remove orphan blobs (no manifest names
 * them) older than CACHE_STALE_SECONDS; else (the driver's) return 0 at
 * once when another prune holds the lock, and read no manifest when the
 * stats say the cache is under the cap. Nothing outside the directory is
 * touched, no symlink in it followed; an entry goes by its manifest's
 * unlink first, so a reader sees a miss, never half an entry. 0 (*out
 * filled, may be NULL), or -1 after a message. Alone on the handle. */
int cache_prune(struct cache *c, unsigned long long cap, const struct timespec *keep, bool by_hand,
	struct cache_pruned *out);

#endif
