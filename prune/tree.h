/* tree.h: the files vx prune writes into its output directory.
 *
 * tree_prepare makes the output directory, refusing one that exists and is
 * not empty (nothing of an earlier prune is left to mix with this one).
 * tree_write creates a file that must not exist yet (parents made as
 * needed). tree_copy_dir copies every regular file and symlink under the
 * workspace directory src into dst, keeping modes and link targets, except
 * node_modules, .git, .vx (walk.h), the directories skip lists (root-relative
 * project directories copied on their own or not at all) and the output
 * directory itself. Each returns 0, or -1 after one error line.
 */
#ifndef VX_PRUNE_TREE_H
#define VX_PRUNE_TREE_H

#include <stddef.h>
#include <sys/types.h>

#include "model.h"

int tree_prepare(const char *out);
/* The names of the regular files and symlinks directly in the workspace
 * root, sorted, in a NULL-terminated array (each name and the array
 * malloc'd); NULL after an error line. */
char **tree_root_files(const struct workspace *ws);
int tree_write(const char *path, const char *data, size_t n, mode_t mode);
/* root-relative file rel of the workspace copied to dst; 1 when it is absent */
int tree_copy_file(const struct workspace *ws, const char *rel, const char *dst);
int tree_copy_dir(const struct workspace *ws, const struct project *src, const char *dst,
	const char *out_abs);

#endif
