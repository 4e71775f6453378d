/* verbs.h: vx-cache's verbs (docs/man/vx-cache.md), main's options given.
 *
 * verbs_check says whether a verb, its operand count and the options given
 * go together, before anything is touched: NULL, or the usage complaint
 * (malloc'd; a bad --max-size dies with exit 2 itself). verbs_records is
 * true for the two verbs that read records on stdin (lookup, save with no
 * operand: records.h). verbs_run runs a checked verb: get, restore, save
 * KEY PROJECTDIR, verify, clean, prune, or the record verbs; its exit
 * status (0, or 1 a miss or a failure after a line on stderr).
 */
#ifndef VX_CACHE_VERBS_H
#define VX_CACHE_VERBS_H

#include <stdbool.h>
#include <stddef.h>

struct verb_opts {
	const char *dir, *state; /* --dir (else $VX_CACHE_DIR), --state */
	const char *max;         /* prune --max-size */
	const char *request;     /* records save --request */
	const char **globs;      /* save --outputs */
	size_t nglobs;
	bool outputs, given;     /* --outputs given; any of save's options given */
	const char *logfile;
	double ms;
	int exit;
};

const char *verbs_check(const char *cmd, int nargs, const struct verb_opts *vo);
bool verbs_records(const char *cmd, int nargs);
int verbs_run(const char *cmd, char **args, int nargs, const struct verb_opts *vo);

#endif
