/* grantkind.h: the one table of exec.sandbox's members (issue 37 item 3).
 *
 * Each row is one member: where it sits (section "allow", "deny",
 * "ignore", or "" for the block itself), its name, the shape of its value
 * (how vx-graph validates it: config.c's one case per shape), its flags
 * (no effect on Linux; an empty list that says the default; a host
 * pattern list), how the grants a report names merge into it, and the
 * example a config error or a hint spells. vx-graph accepts exactly the
 * rows (an unknown member's error names the row it meant), vx-key
 * canonicalises by the flags, vx-report merges its fix block by the merge
 * column. What a grant does (its enforcement) stays in vx-sandbox and
 * vx-proxy: docs/grants.md says how many files a new one takes.
 * The table is static and read-only; nothing here allocates.
 */
#ifndef VX_GRANTKIND_H
#define VX_GRANTKIND_H

#include <stdbool.h>
#include <stddef.h>

enum grant_shape {
	GRANT_PATHS,       /* a list of path globs, project-relative, ~/ or absolute */
	GRANT_STRINGS,     /* a list of names (macOS members) */
	GRANT_HOSTS,       /* a list of host patterns (netpat.h, by section) */
	GRANT_HOSTS_OR_TRUE, /* true, or a list of host patterns */
	GRANT_BOOL,
	GRANT_BOOL_OR_STRINGS, /* true/false, or a list of socket paths */
	GRANT_BOOL_OR_PORTS,   /* true/false, or a list of ports 1..65535 */
};

enum grant_merge {
	GRANT_MERGE_NONE,  /* a report never proposes it */
	GRANT_MERGE_NEST,  /* a set of paths, a directory grant ("dist/") holding what is under it */
};

#define GRANT_MACOS_ONLY    0x1 /* no effect on Linux: dropped from the key */
#define GRANT_EMPTY_DEFAULT 0x2 /* an empty list says the default: dropped from the key */

struct grantkind {
	const char *section;     /* "allow", "deny", "ignore", or "" (the block) */
	const char *name;        /* the member's name in its section */
	const char *path;        /* section.name, as keys, docs and hints spell it */
	enum grant_shape shape;
	unsigned flags;
	enum grant_merge merge;
	const char *example;     /* a value, as a fix writes it */
};

extern const struct grantkind grantkinds[];
extern const size_t ngrantkinds;

/* The row of section.name (section "" for the block's own members), or NULL. */
const struct grantkind *grantkind_find(const char *section, const char *name);
/* The row spelled path ("allow.read", "weakerWhenNested"), or NULL. */
const struct grantkind *grantkind_at(const char *path);
/* The names of section's rows, ", "-joined into buf (truncated to size). */
void grantkind_names(const char *section, char *buf, size_t size);
/* For an unknown name in section: the row the user likely meant (the same
 * name in another section, or one differing in case or by one or two
 * letters), or NULL. */
const struct grantkind *grantkind_guess(const char *section, const char *name);

#endif
