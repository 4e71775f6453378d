/* walk.h: the one directory walker (inputs for vx-key, outputs for the cache).
 *
 * walk_tree visits every regular file and symlink (with opts.specials, every
 * fifo, socket and device too) under base whose path
 * relative to base matches the glob list (glob.h): an entry matches when some
 * positive glob matches it and no later "!glob" does (last match wins, as in
 * .gitignore). Directories named node_modules, .git and .vx are never entered,
 * nor is a directory skip() refuses. Walks are pruned with glob_may_match_under,
 * and each directory's entries are visited in byte order of their names. Entries
 * are typed by getdents' d_type: only the files that match are stat'ed. The
 * callback gets the relative path and the lstat of the entry; returning non-zero stops
 * the walk with that value. Symlinks are not followed.
 */
#ifndef VX_WALK_H
#define VX_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

typedef int (*walk_fn)(const char *rel, const struct stat *st, void *arg);

/* Is name one of the directories no walk enters (node_modules, .git, .vx)?
 * vx-graph's project search and vx-watch prune the same ones. */
bool walk_walled(const char *name);

/* A cache of directory listings (vx-key's stat cache). A listing is a blob:
 * per entry, sorted by name, its d_type byte, its name and a NUL. get returns
 * the listing of directory rel (base-relative, "" for base) when st, the
 * directory's lstat now, still describes the one it was taken from, else
 * NULL; put remembers a fresh listing, read after st was taken and after
 * the coarse clock read listed_at (ns). With a cache the walk reaches
 * everything by path from base: a directory whose listing is cached costs
 * one lstat instead of an open, two getdents and a close. */
struct walk_cache {
	const char *(*get)(void *arg, const char *rel, const struct stat *st, size_t *len);
	void (*put)(void *arg, const char *rel, const struct stat *st, const char *list,
		size_t len, int64_t listed_at);
	/* may be NULL: a stat taken earlier for rel (dir: a directory's, for
	 * walking; follow: stat, not lstat), as lstat returns, or 1 for none */
	int (*stat)(void *arg, const char *rel, bool dir, bool follow, struct stat *st);
};
/* Should the directory rel (relative to base) be left out entirely? */
typedef bool (*walk_skip_fn)(const char *rel, void *arg);

struct walk_opts {
	const char *const *globs; /* "!x" entries exclude */
	size_t nglobs;
	walk_skip_fn skip; /* may be NULL */
	/* may be NULL: called for every directory entered (rel "" for base)
	 * with its entry names, NUL-separated in directory order, len bytes */
	void (*enter)(const char *rel, const char *names, size_t len, void *arg);
	const struct walk_cache *cache; /* may be NULL */
	bool specials;     /* fn also gets the fifos, sockets and devices that match */
	void *arg;         /* passed to skip, enter, the cache and fn */
	/* > 0: a relative base is resolved from this directory (an O_PATH fd
	 * kept open), so each stat walks the few names below it and not an
	 * absolute path's every component again; 0: from the working directory */
	int base_fd;
};

/* 0, the callback's non-zero value, or -1 with errno set when base cannot be
 * opened. Unreadable subdirectories are skipped. */
int walk_tree(const char *base, const struct walk_opts *o, walk_fn fn);
/* Does rel match the glob list (positive then "!" exclusions, last wins)? */
bool walk_globs_match(const char *const *globs, size_t n, const char *rel);

#endif
