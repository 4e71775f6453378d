#include "notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "strmap.h"

static struct strmap said;
static unsigned count;

void note(const char *file, const char *key, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *line = xasprintf("%s: %s: not carried over: %s", file, key, msg);
	if (!said.cap)
		strmap_init(&said);
	if (strmap_get(&said, line)) {
		free(line);
		return;
	}
	strmap_put(&said, line, line);
	count++;
	err_warn("%s", line);
}

unsigned notes_count(void)
{
	return count;
}
