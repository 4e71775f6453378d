/* shadow.h: the checkout's shadow of its outputs, <root>/.vx/shadow.
 *
 * Each regular output a save or a restore wrote into a project keeps a
 * second hard link there, so that restoring it after it was deleted is a
 * link instead of a copy (creating a file costs an inode; on ext4 right
 * after a delete, ~250 us each). Named by the project's path from the root
 * (projrel, as path_under gives it: normalized, "." for the root itself, so
 * that the names hold when the checkout moves) and the output's path in the project,
 * shadow/<xxh3-64 of projrel>/<xxh3-64 of rel>: one inode per output path,
 * linked to at most one output at a time.
 * Nothing trusts a shadow file's bytes: the output's own name writes the
 * same inode, so a restore hashes them before it links (cache/restore.c).
 * Before any task runs in a project its shadow is dropped, so that a task's
 * writes to its outputs reach nothing outside the project.
 *
 * statedir is <root>/.vx. Every directory is opened without following a
 * symlink and made 0700. */
#ifndef VX_SHADOW_H
#define VX_SHADOW_H

#include <stdbool.h>
#include <sys/stat.h>

#define SHADOW_NAME_LEN 16

/* The two names: the project's directory and the output's file in it. */
void shadow_names(const char *projrel, const char *rel, char dir[SHADOW_NAME_LEN + 1],
	char name[SHADOW_NAME_LEN + 1]);
/* The second alone, for a caller holding the project's directory open. */
void shadow_name(const char *rel, char name[SHADOW_NAME_LEN + 1]);
/* name in the project's shadow directory pfd becomes a second link of
 * dfd/file, replacing what it was. Failures are ignored: they only cost a
 * later restore its link. */
void shadow_put(int pfd, const char *name, int dfd, const char *file);
/* statedir/shadow (made when create), or -1 with errno set. */
int shadow_root_open(const char *statedir, bool create);
/* projrel's directory under an open shadow root, or -1 with errno set. */
int shadow_proj_open(int rootfd, const char *projrel, bool create);
/* Is st (an output's lstat) the inode its shadow name holds? Then its second
 * link is the checkout's own, which only vx writes (by link and unlink,
 * never into the bytes): as good as none for vx-watch's replay. */
bool shadow_holds(const char *statedir, const char *projrel, const char *rel,
	const struct stat *st);
/* Remove projrel's shadow: every output of the project is its only link
 * again. 0, or -1 with errno set (a missing shadow is 0). */
int shadow_drop(int rootfd, const char *projrel);

#endif
