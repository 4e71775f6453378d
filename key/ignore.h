/* ignore.h: the workspace's .gitignore files, as git reads them.
 *
 * Rules come from the .gitignore of the root and of every directory between
 * the root and a path; deeper files and later lines win. A line is a glob
 * (glob.h); "!" re-includes; a trailing "/" matches directories only; a "/"
 * anywhere else anchors the pattern to its .gitignore's directory, and
 * otherwise it matches a name at any depth; blank lines and "#" comments are
 * skipped. Files are loaded once, on first need (an edit to a .gitignore
 * during a --live session is seen by the next process). Paths are
 * root-relative; matching is with glob_match (glob.h), so "**" spans
 * directories.
 */
#ifndef VX_KEY_IGNORE_H
#define VX_KEY_IGNORE_H

#include <stdbool.h>

struct ignore;

struct ignore *ignore_open(const char *root);
bool ignore_match(struct ignore *ig, const char *path, bool is_dir);
/* A walker listed dir (root-relative, "" for the root) and saw no
 * .gitignore in it: its rules are known to be empty without opening one. */
void ignore_dir_without_file(struct ignore *ig, const char *dir);
void ignore_free(struct ignore *ig);

#endif
