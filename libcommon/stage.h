/* stage.h: the one way the driver talks to a stage (vx-key, vx-proxy,
 * vx-report...): JSON lines down its stdin, JSON lines up its stdout.
 *
 * The caller starts the process with child.h's child_start (it knows the
 * environment and the process group a stage gets: the driver's proc_spawn)
 * and hands its pid and pipe ends to stage_attach, which owns them from
 * then on. stage_send writes one record as one line (it
 * blocks until the pipe took it; SIGPIPE must be ignored, and a stage that
 * is gone makes it fail). Reading never blocks unless asked to:
 * stage_fill takes what the pipe holds now, stage_next hands over the next
 * whole record read, stage_wait waits for one up to a timeout. A line that
 * is not one JSON object (or is longer than JSONL_MAX_LINE) is named on
 * stderr ("<name>:<line>: ...") and reported as STAGE_BAD, so a caller whose
 * answers pair with its questions by order can stop there. stage_finish closes its pipes (a stage still writing gets EPIPE:
 * nobody reads it any more), waits for the exit and frees
 * everything: the exit status as the shell says it (err_wait_status).
 */
#ifndef VX_STAGE_H
#define VX_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "strbuf.h"

struct stage {
	const char *name;  /* in messages (not owned) */
	pid_t pid;         /* 0: none */
	int to, from;      /* its stdin (-1: closed) and stdout (-1: none) */
	struct strbuf in;  /* bytes read; those from at on not taken yet */
	size_t at;
	struct strbuf out; /* lines queued, not yet written */
	size_t line;       /* lines taken so far */
	bool eof;          /* its stdout ended (or failed) */
	bool broken;       /* a write to it failed */
	bool keep_text;    /* set by the caller: each record's line is kept in text
			    * (set after stage_attach, which clears it) */
	struct strbuf text; /* keep_text: the line the last record came from */
};

/* Take over a started stage. from is made non-blocking; to or from may be
 * -1 (no pipe that way). */
void stage_attach(struct stage *s, const char *name, pid_t pid, int to, int from);
/* One record, as one line: the bytes sent (with the newline), or -1 (and
 * s->broken) when it was not taken. Lines queued before it go first. */
long stage_send(struct stage *s, const cJSON *rec);
/* The same, held until stage_flush (or the next stage_send), so that
 * several records go down in one write: the bytes queued, or -1. A caller
 * that waits for answers flushes first. */
long stage_queue(struct stage *s, const cJSON *rec);
/* The same for a record already printed: text, len bytes of one line
 * without its newline (a caller that kept a record's line, keep_text). */
long stage_queue_text(struct stage *s, const char *text, size_t len);
/* Write every queued line (blocking until the pipe took them): 0 or -1. */
int stage_flush(struct stage *s);
/* The fd a poll loop watches for its records, -1 once it ended. */
int stage_fd(const struct stage *s);
/* Read what its stdout holds now, without blocking: 0, or -1 at its end. */
int stage_fill(struct stage *s);
#define STAGE_BAD (-2)
/* The next whole record already read (1, *rec the caller's), 0 when there
 * is none yet, or STAGE_BAD for a line that is none (skipped). */
int stage_next(struct stage *s, cJSON **rec);
/* The next record, waiting up to timeout_ms (< 0: no limit): 1 with *rec,
 * 0 when the time ran out, -1 when its stdout ended first, STAGE_BAD. */
int stage_wait(struct stage *s, cJSON **rec, int timeout_ms);
/* Close its stdin (it sees EOF), wait for it, free the rest: its exit
 * status, or -1 when there was none to wait for. */
int stage_finish(struct stage *s);

#endif
