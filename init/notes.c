#include "notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "strmap.h"

static struct strmap said;
static unsigned count;
/* the lines, said only once vx init is sure to go on (notes_print) */
static char **lines;

void note(const char *file, const char *key, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *line = xasprintf("%s: %s: not carried over: %s", file, key, msg);
	/* one line, and no control sequence from a hostile turbo.json or
	 * directory name reaches the terminal */
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (!said.cap)
		strmap_init(&said);
	if (strmap_get(&said, line)) {
		free(line);
		return;
	}
	strmap_put(&said, line, line);
	lines = xrealloc(lines, (count + 1) * sizeof(*lines));
	lines[count++] = line;
}

void notes_print(void)
{
	for (unsigned i = 0; i < count; i++)
		err_warn("%s", lines[i]);
}

unsigned notes_count(void)
{
	return count;
}
