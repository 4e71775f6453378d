/* canonmemo.h: path_canonical_would_be (path.h), memoised directory by
 * directory: each path's parent is resolved once, then one lstat per new
 * component, a link followed in full, instead of realpath's readlink per
 * component of every path. For many paths under one tree (a workspace's
 * projects, the grants' directories) that is one lstat a path, not one a
 * component. Answers reflect the disk when each directory was first asked
 * about: a memo is for one setup, not for watching a tree change. Paths
 * are absolute and normalised (path_normalize); the memo owns its copies. */
#ifndef VX_CANONMEMO_H
#define VX_CANONMEMO_H

#include "strmap.h"

struct canonmemo {
	struct strmap map; /* path -> where it resolves, both owned */
};

void canonmemo_init(struct canonmemo *m);
/* Where path resolves (path_canonical_would_be's answer), malloc'd. */
char *canonmemo_get(struct canonmemo *m, const char *path);
void canonmemo_free(struct canonmemo *m);

#endif
