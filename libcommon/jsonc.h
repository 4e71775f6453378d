/* jsonc.h: vx.json as JSON with comments (issue 22 item 2), the way
 * tsconfig.json is written: "//" to the end of the line and "/ * ... * /"
 * comments, and a trailing comma before a closing '}' or ']'.
 *
 * jsonc_strip blanks each of them in place with spaces, keeping every
 * newline, so the text that cJSON then parses has the same byte offsets and
 * line numbers as the file: an error still names the file's own line.
 * Inside strings nothing is touched ("http://x" stays). */
#ifndef VX_JSONC_H
#define VX_JSONC_H

#include <stdbool.h>
#include <stddef.h>

/* true, or false with *off at a block comment that never ends (the text is
 * then left for the JSON parser to refuse). */
bool jsonc_strip(char *text, size_t *off);

#endif
