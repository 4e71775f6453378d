/* inputstamp.h: the stats of what one key folded, so that a caller can tell
 * after the task ran, with one lstat per path and no read, that its inputs
 * did not move (vx-key's "stamp" member, docs/protocol.md; checked by the
 * driver and by vx-cache save before a result is saved under the key).
 *
 * A stamp is the list of root-relative paths vx-key looked at for the key,
 * in the order it looked (the input files, the directories walked to find
 * them with a trailing '/', package.json and the root lockfiles, present or
 * not) and a signature: XXH3-128 over each path, a NUL, then 0 (absent) or
 * 1 and its lstat's statsnap (statsnap.h). An added or removed input moves
 * its directory's stat; an edited one its own. A stamp is only given when
 * every path was last changed strictly before the keying began (the racy
 * rule, statsnap.h): otherwise it is null, and the caller keys again. */
#ifndef VX_INPUTSTAMP_H
#define VX_INPUTSTAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "strbuf.h"

struct inputstamp {
	cJSON *paths;       /* array of strings */
	struct strbuf sig;  /* the bytes hashed */
	int64_t since;      /* statsnap ns: when the keying began */
	bool racy;
};

/* since: statcache_now() before the first stat of the key. */
void inputstamp_begin(struct inputstamp *s, int64_t since);
/* path (root-relative, a directory's ending in '/') had st, or was absent
 * (st NULL). */
void inputstamp_add(struct inputstamp *s, const char *path, const struct stat *st);
/* {"sig":"<32 hex>","paths":[...]}, or a JSON null when racy; s is emptied
 * (call inputstamp_begin again before reusing it). */
cJSON *inputstamp_take(struct inputstamp *s);
void inputstamp_free(struct inputstamp *s);
/* 1: every path of stamp (a record's "stamp" member) still has the stat it
 * had under root; 0: one moved; -1: no stamp to go by (absent, null or
 * malformed): key again to know. */
int inputstamp_check(const char *root, const cJSON *stamp);

#endif
