/* path.h: path helpers shared by every stage.
 *
 * Paths are plain C strings with '/' separators. Every function returning
 * char * returns a malloc'd string the caller frees, or NULL where stated.
 * "Lexical" functions never touch the filesystem.
 */
#ifndef VX_PATH_H
#define VX_PATH_H

#include <stdbool.h>

/* a + "/" + b, lexically normalised; b absolute wins. */
char *path_join(const char *a, const char *b);
/* Lexical: drops "." and empty segments, folds "x/.." ("/.." is "/"), keeps
 * leading ".." of a relative path; "" becomes ".". */
char *path_normalize(const char *p);
/* realpath(3): symlinks resolved; NULL (errno set) when it does not exist. */
char *path_canonical(const char *p);
/* Where absolute p would land once made: its longest existing ancestor
 * resolved, the rest appended lexically. Never NULL. */
char *path_canonical_would_be(const char *p);
/* p relative to root when p is root or under it ("." for root itself);
 * NULL otherwise. Both absolute and normalised. */
char *path_under(const char *root, const char *p);
/* The relative path from directory "from" to "to" (both absolute,
 * normalised), with ".." segments where needed. */
char *path_relative(const char *from, const char *to);
/* "~" and "~/x" become $HOME and $HOME/x; anything else is copied. */
char *path_expand_home(const char *p);
/* The directory holding absolute path p, lexically: "/" for "/x" and "/". */
char *path_dirname(const char *p);
/* The program called name in this program's own directory (the stages sit
 * side by side in bin/), from /proc/self/exe; NULL when that cannot be read. */
char *path_beside_self(const char *name);
/* Is p equal to base or below it (segment-wise)? */
bool path_is_within(const char *base, const char *p);
/* mkdir -p: dir and every missing parent (mode 0777 less the umask); one
 * that exists is fine. 0, or -1 with errno. */
int path_mkdirs(const char *dir);

#endif
