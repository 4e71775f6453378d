/* diag.c: the config error line every graph module reports through
 * (model.h's diag_config), here and not in a main.c, so that the modules
 * linked into vx-graph and vx-init never call up into a program's main. */
#include <stdarg.h>
#include <stdio.h>

#include "err.h"
#include "model.h"

void diag_config(struct workspace *ws, const char *file, const char *key, const char *fix,
	const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_warn("%s: %s: %s; fix: %s", file, key, msg, fix);
	ws->errors++;
}
