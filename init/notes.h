/* notes.h: what vx init could not carry over, one line each on stderr:
 * "vx-init: <file>: <key>: not carried over: <why>". A line said once is not
 * said again (a root turbo.json entry applies to many projects). */
#ifndef VX_INIT_NOTES_H
#define VX_INIT_NOTES_H

void note(const char *file, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* How many distinct lines were said. */
unsigned notes_count(void);

#endif
