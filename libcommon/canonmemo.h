/* canonmemo.h: path_canonical_would_be (path.h), memoised directory by
 * directory: each path's parent is resolved once, then one lstat per new
 * component, a link followed in full, instead of realpath's readlink per
 * component of every path. For many paths under one tree (a workspace's
 * projects, the grants' directories) that is one lstat a path, not one a
 * component. Answers reflect the disk when each directory was first asked
 * about: a memo is for one setup, not for watching a tree change. Paths
 * are absolute and normalised (path_normalize); the memo owns its copies.
 * A directory whose children are asked about CANONMEMO_LIST_AFTER times is
 * read once instead (one getdents, not an lstat a child): an entry whose
 * type is a directory is no link and resolves beside its parent; a link, an
 * entry of unknown type or a name not listed still takes its lstat. A
 * workspace's hundreds of projects under packages/ are then a few calls a
 * task, not one each (vx-sandbox resolves every project of the graph). */
#ifndef VX_CANONMEMO_H
#define VX_CANONMEMO_H

#include "strmap.h"

struct canonmemo {
	struct strmap map;  /* path -> where it resolves, both owned */
	struct strmap kids; /* a directory (as asked) -> its children asked
			     * so far, or a mark that it was read (canonmemo.c); keys owned */
	size_t lstats;      /* the lstat calls made (for tests) */
};

#define CANONMEMO_LIST_AFTER 8

void canonmemo_init(struct canonmemo *m);
/* Where path resolves (path_canonical_would_be's answer), malloc'd. */
char *canonmemo_get(struct canonmemo *m, const char *path);
void canonmemo_free(struct canonmemo *m);

#endif
