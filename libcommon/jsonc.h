/* jsonc.h: vx.json as JSON with comments (issue 22 item 2), the way
 * tsconfig.json is written: "//" to the end of the line and "/ * ... * /"
 * comments, and a trailing comma before a closing '}' or ']'.
 *
 * jsonc_strip blanks each of them in place with spaces, keeping every
 * newline, so the text that cJSON then parses has the same byte offsets and
 * line numbers as the file: an error still names the file's own line.
 * Inside strings nothing is touched ("http://x" stays).
 *
 * jsonc_root and jsonc_next read the same text in place, unstripped, by byte
 * offsets, for an editor that splices into the file and keeps every other
 * byte (vx init --sandbox): blanks and comments between tokens are skipped,
 * a trailing comma is allowed, nothing is allocated. They check the
 * structure they walk (brackets, strings, ':' and ','), not each scalar:
 * parse the text first (jsonc_strip, then cJSON) to refuse a bad one; on
 * text that parses they see the values cJSON sees, at the file's offsets. */
#ifndef VX_JSONC_H
#define VX_JSONC_H

#include <stdbool.h>
#include <stddef.h>

/* true, or false with *off at a block comment that never ends (the text is
 * then left for the JSON parser to refuse). */
bool jsonc_strip(char *text, size_t *off);

/* A value in the text: text[start] is its first byte ('{', '[', '"', ...),
 * end is one past its last. */
struct jsonc_span {
	size_t start, end;
};

/* A member of an object: key is the offset of its name's opening quote. */
struct jsonc_member {
	size_t key;
	struct jsonc_span val;
};

/* The one value of the whole text (a UTF-8 byte order mark, blanks and
 * comments around it allowed); false when the text is not one. */
bool jsonc_root(const char *text, struct jsonc_span *v);

/* The offset past the blanks and comments at off. */
size_t jsonc_blank(const char *text, size_t off);

/* The members of object obj, one per call, in the text's order: *pos starts
 * at 0 and is the walk's place after. 1 with *m, 0 past the last member,
 * -1 when obj is not a well-formed object there. */
int jsonc_next(const char *text, struct jsonc_span obj, size_t *pos, struct jsonc_member *m);

/* Does the name at key (its opening quote) spell name, escapes decoded as
 * cJSON decodes them? */
bool jsonc_key_is(const char *text, size_t key, const char *name);

/* The member name of object obj: 1 with *m, 0 when there is none, 2 when
 * there are two or more (*m the second, which cJSON would not see), -1 when
 * obj is not a well-formed object. */
int jsonc_find(const char *text, struct jsonc_span obj, const char *name, struct jsonc_member *m);

#endif
