/* summary.h: vx run --summarize's run summary (turbo's spelling) and
 * vx why --summary, which compares two.
 *
 * summary_start() notes the wall clock and the command line when the run
 * begins; summary_write() writes <root>/.vx/runs/<run id>.json whole or not
 * at all (atomicw.h) once the run is over: per task its key, what the key
 * folded (vx-key's explain: file and env hashes, never an env value),
 * cache status and source, timings, exit code, sandbox flags and
 * violations; the format is docs/protocol.md's "Run summaries". Nothing is
 * kept or costs anything when --summarize is off: the run reads its own
 * task table only at the end.
 *
 * summary_why() compares two summaries task by task (vx why --summary):
 * whether each key moved and, from the inputs recorded, why; it prints to
 * stdout and returns the exit code (2 after a one-line error naming the
 * file that is not a summary, and the fix). */
#ifndef VX_BIN_SUMMARY_H
#define VX_BIN_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

struct run;

/* The format's version: a reader refuses another. */
#define SUMMARY_VERSION 1

/* argv: vx run's (argv[0] "run"); kept, not copied. */
void summary_start(int argc, char **argv);
/* Writes the summary of r, which exits with exit_code; says where on
 * stderr ("vx: run summary: <path>"). false after a message (the run's
 * exit code is not changed by it). */
bool summary_write(const struct run *r, int exit_code);

/* A summary is wanted: summary_start() was called. */
bool summary_wanted(void);
/* The summary of a run replayed whole (replay.h): each task a hit from
 * cache.source "replay" (a group's "none"), its times ui_now_ms() values,
 * and no inputs: the replay keeps none. */
struct summary_replayed {
	char kind; /* replay.h's: 'e' exec, 's' sandboxed exec, 'g' group */
	const char *key, *dir, *id;
	double started, ms;
};
bool summary_write_replayed(const char *root, const struct summary_replayed *t, size_t n,
	int exit_code);

/* vx why --summary [A [B]]: files A and B; B alone compared with the
 * summary before it in its directory; none: the last two under
 * <root>/.vx/runs (root: the --root given, or NULL to find it). */
int summary_why(char **files, int nfiles, const char *root);

#endif
