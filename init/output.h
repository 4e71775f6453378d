/* output.h: a planned vx.json as text, and putting it on disk.
 *
 * output_render gives the JSON-with-comments text of one project's vx.json
 * (comments mark what was carried over approximately; vx.json may hold
 * them). output_diff prints the unified diff from the file on disk (or
 * nothing) to that text, writing nothing. output_write puts the text in
 * place atomically: a temporary file beside it created with
 * O_EXCL|O_NOFOLLOW, synced, then renamed over the name, so a reader sees
 * the old file or the new one, never half of one, and a symlink planted at
 * the temporary name is never followed. */
#ifndef VX_INIT_OUTPUT_H
#define VX_INIT_OUTPUT_H

#include <stdbool.h>

#include "plan.h"

char *output_render(const struct oproj *op);
/* Does file (root-relative) exist, as any kind of file, symlinks too? */
bool output_exists(int rootfd, const char *file);
/* 0, or -1 after printing why. */
int output_diff(int rootfd, const char *file, const char *text);
int output_write(int rootfd, const char *file, const char *text);

#endif
