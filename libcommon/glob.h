/* glob.h: the one glob matcher every vx stage uses.
 *
 * Patterns are '/'-separated and matched against relative paths with no
 * leading "./" and no trailing '/':
 *   *         any run of characters but '/'
 *   ?         one character but '/'
 *   [abc] [a-z] [!a-z] [^a-z]   one character (never '/') in, or not in, the
 *             class; a ']' right after '[' or '[!' is literal; a '[' with no
 *             closing ']' is literal
 *   **        as a whole segment: zero or more whole segments; elsewhere as '*'
 *   \c        the character c itself (so "pages/\[id\].tsx" is a literal)
 * Names starting with '.' are not special: "*" matches ".env".
 * Functions returning char * return malloc'd strings the caller frees.
 */
#ifndef VX_GLOB_H
#define VX_GLOB_H

#include <stdbool.h>

bool glob_match(const char *pat, const char *path);
/* True when pat holds an unescaped '*', '?' or '['. */
bool glob_has_magic(const char *pat);
// "dir/**" and "dir/**/*" become "dir"; "**" and "**/*" become ".";
// a trailing '/' is dropped; anything else is returned as is.
char *glob_collapse(const char *pat);
// The leading whole segments free of magic, unescaped ("src/**" -> "src",
// "*.js" -> "", "a/b" -> "a/b").
char *glob_static_prefix(const char *pat);
/* pat with its backslash escapes removed. */
char *glob_unescape(const char *pat);
/* Could dir itself, or any path under it, match pat? Used to prune walks. */
bool glob_may_match_under(const char *pat, const char *dir);

#endif
