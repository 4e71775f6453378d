/* watch.h: a workspace tree under inotify, vx-watch's core.
 *
 * wtree_open watches every directory under root except those named
 * node_modules, .git or .vx at any depth (walk_walled, the names walk.h prunes:
 * neither a key nor the graph reads there), plus <root>/.vx itself for the
 * sync cookies only, and the tree of <root>/.vx/shadow (shadow.h: its
 * files are second names of outputs) like any other. gen counts what was seen: every event under a watched
 * directory (an entry created, removed, moved, written, closed after a
 * write, its attributes changed) adds one. A directory created or moved in
 * is watched at once, then listed, so nothing made inside it is missed. A
 * directory moved or a lost event queue (IN_Q_OVERFLOW) makes the watches'
 * paths unreliable (stale): gen moves, and wtree_fresh sets every watch
 * again, moving gen once more, before the next token is given (not at each
 * move: a build renaming directories costs one walk per query, not one per
 * rename). wtree_read takes the queued events in order and reports each
 * cookie ".vx/watch-cookie-<n>" created, so a query is answered only after
 * every change made before it was counted (the kernel queues events in the
 * order they happen). gone: the root or its .vx was removed, moved or
 * unmounted.
 *
 * A directory on a network or FUSE file system (changes made by another
 * host or the serving process send no event) refuses the tree: EREMOTE.
 * Not seen by inotify either: writes through a shared mmap with no write(2),
 * truncate or close after them; and a hard link made from outside the tree
 * to a file in it (only the file's own watchers hear of it), after which
 * writes through the outside name reach no directory here. vx-key flags
 * inputs already linked ("linked") and the cache's memo holds no linked
 * output, so only a link made while a run is remembered goes unseen until
 * the next full run.
 */
#ifndef VX_WATCH_WATCH_H
#define VX_WATCH_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wtree {
	int fd;       /* the inotify instance */
	char *root;
	int rootwd, vxwd;
	char **paths; /* by watch descriptor */
	size_t npaths;
	uint64_t gen;
	bool stale;   /* the watches' paths may be wrong: wtree_fresh before a token */
	bool gone;
	int err;      /* errno of a watch that could not be set (ENOSPC: the limit) */
};

/* 0, or -1 with errno (w->err) when the tree could not be watched whole. */
int wtree_open(struct wtree *w, const char *root);
/* Take every queued event; cookie(arg, n) for each cookie created. */
void wtree_read(struct wtree *w, void (*cookie)(void *arg, uint64_t n), void *arg);
/* Set every watch again if they are stale: 1 done (gen moved past every
 * query made before, and a cookie created meanwhile may never be reported:
 * answer every waiting query), 0 nothing to do, -1 with errno when they
 * could not be set. */
int wtree_fresh(struct wtree *w);
void wtree_close(struct wtree *w);

#endif
