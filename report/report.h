/* report.h: the violation policy over one task's saved access
 * records (vx-sandbox --trace, docs/protocol.md "vx-sandbox trace").
 *
 * report_read_request() takes the task's request file (the graph record and
 * the task record vx run hands vx-sandbox); report_read_trace() the access
 * records, and the request too when the trace starts with it and none was
 * read (vx-sandbox --request - --trace - writes it so), the task's network
 * deny records vx-sandbox took from vx-proxy and their "done" (confirmed
 * false: the verdict fails, the trace "incomplete"), and the task's exit
 * status when vx-sandbox's exit record ends it; report_read_network() the
 * proxy's deny records, each not silenced by ignore.network a violation
 * `deny network-outbound <host>:<port> (<reason>)`; report_judge() (rules.c: a table of
 * rules, one small function a report line) writes, through jsonl.h, one "violation" record per
 * denial inside the project or under a withheld linked package that no
 * ignore glob silences, the hint records (on a failed task: past-wall writes
 * with the directory to grant, hidden reads of host paths with the grant
 * spelled from the project, untouched placeholders; beside a withheld
 * package's violation: the dependsOn hint; a write denied inside the
 * project: its grant; a failed task's last: its whole grant and the
 * learner, fixes.h), then one "verdict" record. The
 * report owns every string it holds; report_free() releases them. Readers
 * return -1 after one line naming the file and the fix.
 */
#ifndef VX_REPORT_REPORT_H
#define VX_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

struct report {
	char *id, *root, *project;
	cJSON *task;      /* the task record (ignore globs) */
	cJSON *projects;  /* the graph's projects (withheld packages' names) */
	struct graphmemo *graph; /* the parse projects refers to, held, or NULL */
	cJSON *accesses;  /* the access records, in order */
	cJSON *withheld;  /* the start record's withheld links */
	cJSON *placeholders;
	cJSON *lookups;   /* names the task looked up or proxied (lookup.h), or NULL */
	cJSON *denies;    /* vx-proxy's deny records of this task, or NULL */
	const char *state; /* "end", "off", or NULL: the trace never ended */
	char *off_reason;  /* the "off" record's reason: why the kernel refused */
	double declared;   /* the end record's count */
	bool started;
	bool has_exit;     /* the trace carried vx-sandbox's exit record */
	bool net_lost;     /* its "done" record: vx-proxy did not confirm the denies */
	int exit_status;   /* its status */
};

int report_read_request(struct report *r, const char *file);
int report_read_trace(struct report *r, const char *file);
/* The same from an open stream (not closed), named file in messages. */
int report_read_stream(struct report *r, FILE *f, const char *file);
/* vx-proxy's records (docs/protocol.md "vx-proxy"): its deny records of
 * this task (r->id, so after the request) are kept, the others skipped. */
int report_read_network(struct report *r, const char *file);
/* Write the records; exit_code is the task's (0: it passed). Returns true
 * when the verdict fails the task: a violation, a trace that did not end,
 * or a non-zero exit_code (the verdict's "violated" is the first two). */
bool report_judge(struct report *r, int exit_code);
/* The verdict of a task whose inputs could not be read (named on stderr
 * already): failed, "trace":"unreadable", the request's path for its id. */
void report_unreadable(const char *request);
/* The same for a task's record stream that held no request: its id. */
void report_unjudged(const char *id);
void report_free(struct report *r);

#endif
