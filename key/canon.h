/* canon.h: a task's exec.sandbox block in the one spelling its meaning has,
 * so that it folds into the key (issue 18 item 3: outputs made under another
 * boundary are another result) without a reordering re-running anything.
 *
 * The canonical form is compact JSON with: object members sorted by name;
 * every list a set (strings sorted bytewise and deduplicated, localBinding
 * ports sorted numerically and deduplicated); network entries (allow, deny,
 * ignore) lowercased with a trailing dot dropped, as they are matched
 * members that say the default dropped (false, an empty read, write
 * or ignore list, an object left empty); the macOS-only members dropped
 * (allow.systemInfo, allow.machLookup, allow.pty, weakerNetworkIsolation,
 * ignore.systemInfo: no effect on Linux): both by the flags of their rows
 * in grantkind.h, the one table of members. Paths are kept as written: two
 * spellings of one grant are two keys, a miss, never a stale hit.
 * A block vx-graph did not validate still canonicalises (unknown members
 * sorted and kept). */
#ifndef VX_KEY_CANON_H
#define VX_KEY_CANON_H

#include <cjson/cJSON.h>

/* The canonical text (malloc'd) of sb, an object; NULL when sb is absent or
 * null (no sandbox). */
char *canon_sandbox(const cJSON *sb);

#endif
