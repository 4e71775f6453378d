/* tasklog.h: a one-shot task's output while it runs, in bounded memory
 * (issue 20: 200 MB of output once held 208 MB of vx).
 *
 * tasklog_add keeps the first max bytes in kept (VX_LOG_MAX, default
 * 4 MiB): the log the cache saves (replayed on a hit) and --json reports.
 * Once the output outgrows that, all of it, from the first byte, goes to an
 * unnamed file in TMPDIR (spool, else -1), so the user still sees every
 * byte: tasklog_print writes it through termsafe as lines. tasklog_end,
 * when the task is over, appends to kept one line saying how much was cut.
 * tasklog_max reads VX_LOG_MAX ("<n>", "<n>K", "<n>M", "<n>G", at least
 * 1K): -1 after a message when it is not such a size.
 */
#ifndef VX_BIN_TASKLOG_H
#define VX_BIN_TASKLOG_H

#include <stdio.h>

#include "ui.h"

struct tasklog {
	/* the whole output; -1 while kept holds it all; -2 none (it failed,
	 * or tasklog_no_spool) */
	int spool;
	size_t total; /* bytes the task wrote */
};

long long tasklog_max(void);
void tasklog_init(struct tasklog *l);
/* The output is shown as it comes (ui.h's streaming): only the head is
 * kept, nothing spooled, tasklog_print has nothing to print. */
void tasklog_no_spool(struct tasklog *l);
void tasklog_add(struct tasklog *l, struct strbuf *kept, size_t max, const char *s, size_t n);
void tasklog_end(struct tasklog *l, struct strbuf *kept, size_t max);
/* Every byte of the spool as "<prefix><line>" lines; false when there is
 * no spool (kept holds the whole output). */
bool tasklog_print(const struct tasklog *l, FILE *f, const char *prefix);
void tasklog_free(struct tasklog *l);

#endif
