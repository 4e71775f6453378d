/* notes.h: what vx init could not carry over, one line each on stderr:
 * "vx-init: <file>: <key>: not carried over: <why>". A line noted twice is
 * said once (a root turbo.json entry applies to many projects). They are
 * kept until notes_print, so a refused run says only why it was refused. */
#ifndef VX_INIT_NOTES_H
#define VX_INIT_NOTES_H

void note(const char *file, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void notes_print(void);
/* How many distinct lines were noted. */
unsigned notes_count(void);

#endif
