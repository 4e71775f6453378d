/* runcache.h: the driver's side of the cache: where it lives (VX_CACHE_DIR,
 * else <root>/.vx/cache, R-11), restoring a hit into a project, saving a
 * success, and the per-checkout record of what each task's key last folded
 * (<root>/.vx/why/), which vx why compares against. */
#ifndef VX_BIN_RUNCACHE_H
#define VX_BIN_RUNCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "strmap.h"
#include "ui.h"

struct cache;
struct cache_entry;
struct cache_writes;
struct remote;

struct runcache {
	char *dir;
	struct cache *c; /* cache.h */
	struct remote *remote; /* remote.h, or NULL */
	bool why_dir_made;
	/* <root>/.vx/why/keys: the key each task's record holds, so that a run
	 * whose keys did not move reads no record, and how the task's last run
	 * ended: "<xxh3-64 of id> <key or -> [<outcome>]" lines */
	char *keys_path;
	struct strmap keys; /* hex id hash -> key, both malloc'd */
	bool keys_loaded, keys_dirty;
	/* the run saved or fetched an entry: at runcache_close the cache is
	 * pruned to its cap (cache.h), keeping every entry used since start */
	bool grew;
	struct timespec start;
	bool hit_remote; /* the last runcache_hit's hit was fetched from the remote */
};

/* No entry at all in root's cache (its directory absent, or no manifest):
 * every lookup would miss. Makes nothing. */
bool runcache_empty(const char *root);
/* Also makes <root>/.vx, with a .gitignore of "*" when it has none. */
void runcache_open(struct runcache *rc, const char *root);
/* The graph record's cacheMaxSize (the root vx.json's), the cap unless
 * VX_CACHE_MAX_SIZE is set. */
void runcache_config(struct runcache *rc, const cJSON *graph);
/* Use the remote cache at url as well (local first, then remote; a save is
 * uploaded): VX_REMOTE_CACHE_TOKEN is its bearer token,
 * VX_REMOTE_CACHE_READONLY=1 downloads only. A bad url is one warning and
 * no remote. */
void runcache_remote(struct runcache *rc, const char *url);
/* A hit (local, else remote written through to the local cache), its log in
 * *log: 1 with its outputs already in place, 2 when some were restored into
 * root/dir; 0: a miss. */
int runcache_restore(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct strbuf *log);
/* The same in two halves, so that the writes run on other threads (a
 * workq.h pool) while the driver keys and checks the next hits. runcache_hit
 * looks up, reads the log into *log and checks the outputs, on the
 * driver's thread: 0 a miss, 1 a hit in place, 2 a hit whose outputs differ,
 * *job then what is left to write. runcache_write(job) writes them, on any
 * thread, several at once; runcache_written(job), back on the driver's
 * thread, says whether they were (else a miss, nothing half-written: run the
 * task) and frees job. */
struct runcache_write {
	size_t task; /* the caller's own */
	struct cache *c;
	struct cache_entry *e;
	struct cache_writes *w;
	int r;
};
int runcache_hit(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct strbuf *log, struct runcache_write **job);
void runcache_write(void *job);
/* A hit in place by the memo alone, its outputs vouched for by vx-watch
 * (replay.h): 1 with its log added to *log, else 0. */
int runcache_hit_vouched(struct runcache *rc, const char *key, const char *root, const char *dir,
	struct strbuf *log);
bool runcache_written(struct runcache_write *job);
/* Save a success: the outputs its record declares, and its log, then
 * upload it to the remote (which never fails the save). 0 or -1. */
int runcache_save(struct runcache *rc, const char *key, const char *root, const char *dir,
	const cJSON *rec, const char *log, size_t loglen, long ms);
/* A task is about to run in root/dir: its project's outputs lose their
 * second links in the checkout's shadow (cache.h), so that what the task
 * writes into them stays in the project. */
void runcache_unshadow(struct runcache *rc, const char *root, const char *dir);
void runcache_close(struct runcache *rc);
/* Empty the cache. 0 or -1 (after a message). */
int runcache_clean(struct runcache *rc);
/* Keep what the key folded (the record's "explain") for vx why, when the
 * key moved; the record it replaces is kept as the one before. */
void runcache_remember(struct runcache *rc, const char *root, const char *id, const cJSON *keyed);
/* The key whose record (its explain) is remembered for id, or NULL: vx-key
 * need not send that explain again (its "explainedKey", docs/protocol.md). */
const char *runcache_remembered_key(struct runcache *rc, const char *root, const char *id);
/* The last remembered record of id (before: the one it replaced), or NULL. */
cJSON *runcache_recall(const char *root, const char *id, bool before);
/* How id's run ended ("hit", "ran", "failed", "violation", "skipped"),
 * kept in the index beside its key; written at runcache_close, and only when
 * some outcome or key moved. */
void runcache_outcome(struct runcache *rc, const char *root, const char *id, const char *outcome);
/* The outcome of id's last run, or NULL when none is kept (never run).
 * Needs no runcache_open: a zeroed rc reads the index, runcache_close frees. */
const char *runcache_last_outcome(struct runcache *rc, const char *root, const char *id);

#endif
