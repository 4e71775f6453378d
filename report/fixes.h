/* fixes.h: the grants a task's report names, and what its report ends with
 * (issue 35 item 3: every report line can be finished from).
 *
 * rules.c hands over each grant its hint lines name as it prints them
 * (fixes_grant by its grantkind.h row, fixes_read, fixes_write, fixes_key:
 * spelled as in the line, from the project), each write the sandbox denied inside the project
 * (fixes_inside), and that a write past the wall was named
 * (fixes_wrote). fixes_put_inside() writes the hints for the writes inside
 * the project: one per grant, the directory a write landed in (a mkdir's
 * own, a file at the project root by name, a declared output's directory),
 * the writes under one directory collapsed into its grant, with the
 * outputs glob that already declares it. fixes_put_end() ends a failed
 * task's report: one hint holding the task's whole sandbox with every grant
 * named merged in (and its cache.inputs.workspaceFiles), as JSON to merge
 * into its vx.json entry, then, when the task exited non-zero after a
 * denied write, the line naming the learner. Both return the hint records
 * written. A path that is not UTF-8 is named in its line, never in the
 * JSON. The struct owns what it holds; fixes_free() releases it.
 */
#ifndef VX_REPORT_FIXES_H
#define VX_REPORT_FIXES_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct fixes {
	cJSON *grants; /* {"read":[..],"write":[..]}: each allow grant named, once */
	cJSON *keys;   /* the cache.inputs.workspaceFiles entries named, each once */
	cJSON *inside;              /* [{"rel":..,"shown":..,"bin":..,"rec":{..}}] */
	bool wrote;                 /* a denied write was named */
};

/* kind: an allow row of grantkind.h ("read"); the block merges each kind
 * by its row's merge column */
void fixes_grant(struct fixes *f, const char *kind, const char *grant);
void fixes_read(struct fixes *f, const char *grant);
void fixes_key(struct fixes *f, const char *entry);
void fixes_write(struct fixes *f, const char *grant);
void fixes_wrote(struct fixes *f);
/* rec: the access record; rel: its path from the project (raw bytes);
 * shown: the same for a text line; bin: rel is not UTF-8. */
void fixes_inside(struct fixes *f, const cJSON *rec, const char *rel, const char *shown,
	bool bin);
/* task: the task record (its cache.outputs.files) */
size_t fixes_put_inside(struct fixes *f, const char *id, const cJSON *task);
/* failed: the verdict fails the task or its command exited non-zero */
size_t fixes_put_end(struct fixes *f, const char *id, const cJSON *task, int exit_code,
	bool failed);
void fixes_free(struct fixes *f);

#endif
