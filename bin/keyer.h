/* keyer.h: vx-key as a co-process of the run. Keys are taken when a task is
 * ready (R-9a): the driver sends one task record and reads vx-key's answer
 * (what it added: key, final, stamp, explain) once, before the task runs;
 * after the run the answer's stamp tells whether an input moved meanwhile
 * (inputstamp.h), and only when it cannot say is the task keyed again.
 * vx-key remembers earlier keys for the folds. */
#ifndef VX_BIN_KEYER_H
#define VX_BIN_KEYER_H

#include <stdbool.h>

#include "stage.h"

struct keyer {
	struct stage st;
	long room; /* the bytes of records that may be in flight (keyer_send) */
};

/* Start vx-key --live --explain. It is started before vx-graph has
 * answered, so that it loads its stat cache meanwhile (from the workspace
 * around the current directory; the graph record's root decides). Both
 * pipes are asked for KEYER_PIPE bytes (F_SETPIPE_SZ; a refusal keeps the
 * kernel's default), and room is half of what the pipe to vx-key got
 * (KEYER_INFLIGHT when it cannot be told). 0 or -1. */
int keyer_spawn(struct keyer *k);
/* Hand it the graph record (--live: no echo comes back). 0 or -1. */
int keyer_begin(struct keyer *k, const cJSON *graph);
/* The keyed record for task (owned by the caller), or NULL after a message. */
cJSON *keyer_key(struct keyer *k, const cJSON *task);
/* The same in two halves, so several tasks can be in flight: answers come
 * back in the order sent. keyer_send queues (keyer_recv writes what is
 * queued in one write before it must wait for an answer not read yet,
 * keyer_flush at once) and returns the bytes queued, or -1. Keep what is
 * in flight under room, within the pipe's capacity, so that the driver's
 * write never blocks while vx-key waits for its answers to be read. */
#define KEYER_INFLIGHT 32768
#define KEYER_PIPE (1 << 20)
long keyer_send(struct keyer *k, const cJSON *task);
/* keyer_send for a task record still as vx-graph printed it (its line,
 * without the newline), with "explainedKey": explained added when that is
 * not NULL: the same record without printing it again. 0 when the line is
 * not one that can be sent so (no object's end, or explained no key):
 * the caller sends the record. */
long keyer_send_line(struct keyer *k, const char *line, const char *explained);
cJSON *keyer_recv(struct keyer *k);
/* Write what keyer_send queued now. 0 or -1. */
int keyer_flush(struct keyer *k);
/* A task ran or was restored: vx-key reads the root lockfiles again before
 * its next key (a task may rewrite them). No answer comes back. 0 or -1. */
int keyer_rescan(struct keyer *k);
/* Close its input and wait: its exit status, or -1. */
int keyer_stop(struct keyer *k);

#endif
