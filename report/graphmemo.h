/* graphmemo.h: the graph record of a run's task streams, parsed once.
 *
 * vx-report --each reads one stream a task, each starting with the graph
 * record vx run printed once a run: the same line, every project of the
 * workspace (~40 KB at 1,000 projects), parsed again a task. A memo holds
 * the last graph line read and its parse; a line of the very same bytes
 * gets that parse back (same bytes, same parse: nothing of one graph is
 * trusted for another). A memo is counted: each holder takes a reference
 * (graphmemo_hold) and drops it (graphmemo_drop); one replaced by another
 * line lives until its last holder drops it. Not thread-safe (one a
 * process: vx-report judges one stream at a time).
 */
#ifndef VX_REPORT_GRAPHMEMO_H
#define VX_REPORT_GRAPHMEMO_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct graphmemo {
	char *text;
	size_t len;
	cJSON *graph; /* the parse of text: read it, never change it */
	unsigned refs;
};

/* The memo of exactly these bytes, held for the caller, or NULL. */
struct graphmemo *graphmemo_find(const char *text, size_t len);
/* A memo of text and its parse graph (taken), held for the caller; it
 * replaces the last one for graphmemo_find. */
struct graphmemo *graphmemo_put(const char *text, size_t len, cJSON *graph);
struct graphmemo *graphmemo_hold(struct graphmemo *m);
/* Drop a reference (NULL: nothing); the memo goes with its last one
 * once another replaced it. */
void graphmemo_drop(struct graphmemo *m);

#endif
