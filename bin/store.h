/* store.h: the local cache on disk.
 *
 * Layout under the cache directory (VX_CACHE_DIR, else <root>/.vx/cache;
 * several checkouts may share one, so nothing absolute is stored):
 *   ac/<key>.json          one manifest per key
 *   cas/<hh>/<hash>        content-addressed blobs (XXH3-128 of the bytes)
 * A save writes the blobs, then the manifest to a temporary name, fsyncs it
 * and renames it into place: a run killed at any point leaves either no
 * manifest or a whole one. Blobs are not fsynced one by one: every blob is
 * verified against its hash when it is restored, so one lost to a crash makes
 * that entry a miss, never a bad restore. A manifest that does not parse,
 * names a path outside the project, or a blob that is gone or of the wrong
 * size, is a miss.
 *
 * Restoring writes each output to a temporary name beside its target and
 * renames it, opening every directory on the way with O_NOFOLLOW, so a
 * symlink planted in the project cannot redirect a write out of it. A stamp
 * per project and key (<root>/.vx/stamps/) records each restored or saved
 * output's size, mtime and inode: when every output still matches it, and
 * none was modified within the stamp's own second (git's racy rule), the
 * restore writes nothing.
 */
#ifndef VX_BIN_STORE_H
#define VX_BIN_STORE_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct store_entry {
	cJSON *manifest;
};

/* 0 and *e filled for a usable entry; -1 for a miss. */
int store_get(const char *cachedir, const char *key, struct store_entry *e);
void store_entry_free(struct store_entry *e);
/* Restore e's outputs into projdir; its log into *log (malloc'd, *loglen).
 * 0, or -1 after a note on stderr (the entry is then treated as a miss). */
int store_restore(const char *cachedir, const struct store_entry *e, const char *root,
	const char *projdir, char **log, size_t *loglen);
/* Save the outputs matching globs under projdir, and log, under key. */
int store_save(const char *cachedir, const char *key, const char *root, const char *projdir,
	const char *const *globs, size_t nglobs, const char *log, size_t loglen, long ms);
/* Empty the cache directory: renamed aside first, then removed. */
int store_clean(const char *cachedir);

#endif
