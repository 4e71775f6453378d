/* inputstamp.h: the stats of what one key folded, so that a caller can tell
 * after the task ran, with one lstat per path and no read, that its inputs
 * did not move (vx-key's "stamp" member, docs/protocol.md; checked by the
 * driver and by vx-cache save before a result is saved under the key).
 *
 * A stamp is the list of paths vx-key looked at for the key, in the order it
 * looked (the input files, the directories walked to find them, with a
 * trailing '/', the package.json), written relative to the task's dir ("./"
 * for the dir itself) or, outside it, root-relative after a '/' ("/" for the
 * root); the root lockfiles (wsroot.h) come after them, unlisted. Its
 * signature is XXH3-128 over each path as written, a NUL, then 0 (absent)
 * or 1 and its lstat's statsnap (statsnap.h), then the same for each root
 * lockfile. An added or removed input moves its directory's stat, an edit
 * its own. A stamp is only given when every path was last changed strictly
 * before the keying began (the racy rule, statsnap.h): otherwise it is null,
 * and the caller keys again. */
#ifndef VX_INPUTSTAMP_H
#define VX_INPUTSTAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "strbuf.h"

struct inputstamp {
	struct strbuf paths; /* the paths' JSON array, being written */
	size_t n;            /* paths written */
	void *sig;           /* XXH3_state_t *: the signature so far */
	struct strbuf dir;   /* the task's dir, root-relative ("" for the root) */
	int64_t since;       /* statsnap ns: when the keying began */
	bool on, racy;       /* begun and not taken; a path too new */
};

/* dir: the task's (root-relative, "." for the root); since:
 * statcache_now() before the first stat of the key. */
void inputstamp_begin(struct inputstamp *s, const char *dir, int64_t since);
/* path (root-relative, a directory's ending in '/', the root "/") had st,
 * or was absent (st NULL). */
void inputstamp_add(struct inputstamp *s, const char *path, const struct stat *st);
/* The root lockfiles, after every path: sts[i] for wsroot_fingerprint[i],
 * NULL when absent. */
void inputstamp_lockfiles(struct inputstamp *s, const struct stat *const *sts);
/* {"sig":"<32 hex>","paths":[...]} (a raw item: written as made, one
 * allocation), or a JSON null when racy; s keeps its buffers for the next
 * inputstamp_begin. */
cJSON *inputstamp_take(struct inputstamp *s);
void inputstamp_free(struct inputstamp *s);
/* 1: every path of stamp (a task record's "stamp" member; dir its "dir")
 * still has the stat it had under root; 0: one moved; -1: no stamp to go
 * by (absent, null or malformed): key again to know. */
int inputstamp_check(const char *root, const char *dir, const cJSON *stamp);

#endif
