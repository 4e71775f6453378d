/* cache_int.h: what the cache module's own files share (cache.c, save.c,
 * restore.c, stamp.c); nothing here is for callers of cache.h.
 *
 * On disk under the cache directory:
 *   ac/<key>.json     one manifest per key
 *   cas/<hh>/<hash>   blobs, named by the XXH3-128 of their bytes
 *   tmp/              every temporary file, renamed out of it when whole;
 *                     names there never match a lookup
 *   hits              the entries' last hits, appended once a run (hits.c)
 *   prune.lock        flock'ed by a prune, so that two never run at once
 *   size              the ledger: the bytes the last walk counted, plus
 *                     what saves added since (prune.c)
 */
#ifndef VX_CACHE_INT_H
#define VX_CACHE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <xxhash.h>

#include "cache.h"
#include "strmap.h"

/* temporaries left behind by a killed process are removed after this long
 * (a live writer keeps touching its own) */
#define CACHE_STALE_SECONDS 3600

/* a restore's temporary names beside their targets; save never collects them */
#define CACHE_RESTORE_TMP ".vx-tmp."

/* Shared by the threads that look up and restore at once (cache.h): seq,
 * openat2_off and the fds are atomics; the stamp is behind stamp_mu. The
 * rest is set by cache_open or by calls that run alone. */
struct cache {
	char *dir;
	char *statedir;   /* NULL: no stamps */
	unsigned seq;     /* temporary names */
	unsigned nonce;   /* tells apart processes of other pid namespaces */
	bool swept;       /* stale temporaries removed once per process */
	bool openat2_off; /* the kernel (or a seccomp filter) refused openat2 */
	int acfd, casfd;  /* ac/ and cas/ for lookups, -1 until needed */
	int shadowfd;     /* <statedir>/shadow (shadow.h), -1 until needed */
	struct cache_stamp *stamp; /* stamp.c's, loaded on first use */
	struct cache_inplace *inplace; /* inplace.c's, the same way */
	pthread_mutex_t stamp_mu; /* both of them */
	int pid;          /* for temporary names (glibc's getpid is a system call) */
	mode_t umask;     /* the process's, read once */
	uid_t euid;       /* the same */
	unsigned long long max_output, max_entry; /* cache.h's limits; 0: none */
	unsigned long long max_size; /* the cache's cap (prune.c); 0: none */
	unsigned long long added;    /* bytes this handle's saves added (prune.c) */
	struct strmap touched;       /* keys cache_touch saw (malloc'd), under stamp_mu */
};

/* One element of a manifest's "files", checked by cache_file_parse. */
struct cache_file {
	const char *path;
	const char *hash; /* a regular file */
	const char *link; /* a symlink */
	size_t size;
	mode_t mode; /* rwx bits only: never setuid, setgid or sticky */
	bool privileged; /* the record asked for those (a regular file) */
};

/* hits.c: the record of hits (prune.c reads it). Append the keys of
 * cache_touch, dated now, in one write; compact the file when it doubled. */
void cache_hits_flush(struct cache *c);
/* Merge the hits file's lines from offset from into into (malloc'd key ->
 * malloc'd int64_t ns, the latest kept); the offset after its last whole
 * line. top: the cache directory. */
off_t cache_hits_read(int top, off_t from, struct strmap *into);
/* Rewrite the file, under its exclusive flock, with each key's latest time
 * (its own and extra's, which may be NULL) whose manifest is there. */
void cache_hits_compact(int top, const struct strmap *extra);
/* Free a map that cache_hits_read filled. */
void cache_hits_free(struct strmap *m);

/* cache.c */
bool cache_path_ok(const char *rel);
/* NULL when a symlink at rel to target stays in the project (relative,
 * never climbing above it), else why not. */
const char *cache_link_why(const char *rel, const char *target);
/* NULL when f is a valid record (*out filled), else why not. */
const char *cache_file_parse(const cJSON *f, struct cache_file *out);
char *cache_blob_path(const struct cache *c, const char *hash);
/* lstat or open a blob relative to cas/ (fewer path lookups in the hit
 * path); -1 with errno set when it cannot. */
int cache_blob_stat(struct cache *c, const char *hash, struct stat *st);
int cache_blob_open(struct cache *c, const char *hash);
/* The whole blob, checked against its size and hash: malloc'd (NUL-ended),
 * or NULL and *why. */
char *cache_blob_read(struct cache *c, const char *hash, size_t size, const char **why);
/* dir/rel in *buf, grown as needed (*buf may start NULL, *cap 0). */
const char *cache_join(char **buf, size_t *cap, const char *dir, const char *rel);
/* Is path (absolute) the directory that holds the state directory, or
 * under it? The stamp's and the memo's lines of any other path are from
 * before the checkout moved (their absolute paths are all that differ):
 * nothing asks for them again, and they are not written back. */
bool cache_in_checkout(const struct cache *c, const char *path);
/* <statedir>/shadow, made and opened on first use: an fd the cache keeps,
 * or -1 (no state directory, or it cannot be made: every output is then
 * copied). */
int cache_shadow_root(struct cache *c);
/* projdir's path from the checkout's root (shadow.h's projrel, malloc'd),
 * or NULL: no state directory, or projdir is not in the checkout. */
char *cache_shadow_rel(const struct cache *c, const char *projdir);
/* projdir's directory in the shadow, made when missing: an fd for the
 * caller to close, or -1 (then outputs are copied and not shadowed). */
int cache_shadow_proj(struct cache *c, const char *projdir);
/* lstat ac/<key>.json: 0, or -1 with errno set. */
int cache_manifest_stat(struct cache *c, const char *key, struct stat *st);
/* Drop the directory fds: after a save made the directories, or a clean
 * moved them aside. */
void cache_forget_dirs(struct cache *c);
void cache_hex128(XXH128_hash_t h, char out[33]);
/* NULL when m is a whole manifest of key (and, with blobs, every blob it
 * names is present with its size: what makes a lookup a hit), else why not. */
const char *cache_entry_check(struct cache *c, const char *key, const cJSON *m, bool blobs);
/* A temporary file in <dir>/tmp, open for writing; *path gets its name. */
int cache_tmp_open(struct cache *c, char **path);

/* save.c: make ac/, cas/ and tmp/. 0, or -1 after a message. */
int cache_dirs_make(struct cache *c);
/* save.c: write m as ac/<key>.json (under tmp/, renamed; fsynced with ac/
 * when durable); ac/, cas/ and tmp/ must exist. 0, or -1 after a message.
 * Not durable: a copy of an entry held elsewhere (the remote), which a
 * crash may only turn into a miss (an empty or torn manifest does not
 * parse). */
int cache_manifest_write(struct cache *c, const char *key, const cJSON *m, bool durable);

/* restore.c: the directory reldir ("" for the project itself) under projfd,
 * reached without following any symlink; created part by part when create
 * is set. An fd, or -1 with errno set (ELOOP or ENOTDIR for a symlink or
 * a file in the way). */
int cache_open_beneath(struct cache *c, int projfd, const char *reldir, bool create);

/* stamp.c: what the checkout last wrote or saw of each output: a stat and
 * the hash of the bytes it had then, by absolute path (projdir/rel). Does
 * the stamp vouch that rel, as st says it is now, holds hash? Not when its
 * mtime is as late as the stamp's own (git's racy rule). No state directory:
 * nothing is vouched for. */
bool cache_stamp_vouches(struct cache *c, const char *projdir, const char *rel,
	const struct stat *st, const char *hash);
void cache_stamp_set(struct cache *c, const char *projdir, const char *rel,
	const struct stat *st, const char *hash);
/* Load it now (it is loaded on first use otherwise): on the thread whose
 * heap should hold it. */
void cache_stamp_load(struct cache *c);
/* Write it back when something was set (failures only cost speed); free. */
void cache_stamp_close(struct cache *c);

/* inplace.c: the checkout's memo of entries found whole in a project
 * (cache.h's cache_hit_in_place reads it). Note that every output of e,
 * rels[k] with the lstat sts[k], was found in place in projdir by a check
 * that began at since (CLOCK_REALTIME_COARSE): nothing is noted when a
 * file or the manifest has an mtime that late, or when the log is inline.
 * Written back, when something changed, by cache_inplace_close (cache_close
 * calls it). Both under stamp_mu. */
void cache_inplace_note(struct cache *c, const struct cache_entry *e, const char *projdir,
	const char *const *rels, const struct stat *sts, size_t n, const struct timespec *since);
void cache_inplace_close(struct cache *c);

#endif
