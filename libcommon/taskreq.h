/* taskreq.h: the request of one sandboxed task, one codec for every stage.
 *
 * A request is two JSON lines (docs/protocol.md "vx-sandbox"): vx-graph's
 * graph record (type "graph", a "root"), then the task's record (type
 * "task", a "dir", usually an "id"), as vx-key left it, plus "proxySocket"
 * and "proxyControl" when vx run serves the task's network. The driver writes it
 * (taskreq_format), vx-sandbox and vx-report read it (taskreq_read,
 * taskreq_check), so the three agree on one shape. taskreq_key_members
 * names the members vx-key adds to a task record: the driver moves them
 * from vx-key's answer, vx-key's --live answer carries only them, and a
 * request built for another command drops them. Readers return -1 after one
 * line "prog: <file>[:<line>]: <what>; fix: <fix>".
 */
#ifndef VX_TASKREQ_H
#define VX_TASKREQ_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "jsonl.h"

/* "key", "final", "explain", "linked", "stamp", then NULL. */
extern const char *const taskreq_key_members[];

/* Move each of vx-key's members present in from into to, replacing any
 * there; to's others stay. */
void taskreq_move_key_members(cJSON *to, cJSON *from);
/* Remove vx-key's members from a task record (the first of each name, as
 * a lookup by name finds it; one pass over the record). */
void taskreq_drop_key_members(cJSON *task);

/* Is this a graph record with a root and then a task record with a dir?
 * line is the graph record's (0: unknown). */
int taskreq_check(const cJSON *graph, const cJSON *task, const char *file, size_t line);
/* The next two records of rd, checked: 0 with both (the caller's to free),
 * or -1 with neither after one line. */
int taskreq_read(struct jsonl_reader *rd, cJSON **graph, cJSON **task);
/* The same from FILE ("-" is stdin). */
int taskreq_read_file(const char *file, cJSON **graph, cJSON **task);
/* The same, and the graph record's line as read (malloc'd, without its
 * '\n' and the blanks at its ends; NULL on -1) when graph_text is not NULL. */
int taskreq_read_file_text(const char *file, cJSON **graph, cJSON **task, char **graph_text);
/* The two lines, each ending in '\n' (malloc'd); proxy_socket, when not
 * NULL, is set as the task record's "proxySocket", and proxy_control (may
 * be NULL) as its "proxyControl" (vx-sandbox takes the task's denies
 * there: sandbox/netctl.h). The graph record's
 * "tasks" is written as 1 (a request is one task; vx-sandbox refuses more):
 * graph's own count is set for the print and put back, so two threads
 * must not format from one graph record at once. */
char *taskreq_format(const cJSON *graph, const cJSON *task, const char *proxy_socket,
	const char *proxy_control);
/* The same in two steps, for a caller formatting many tasks of one graph
 * (vx run: the graph record, every project, printed once a run, not once
 * a task): the graph record's line (malloc'd, without its '\n'), then a
 * request from that line and a task record. */
char *taskreq_graph_line(const cJSON *graph);
char *taskreq_format_line(const char *graph_line, const cJSON *task, const char *proxy_socket,
	const char *proxy_control);

/* The request's two lines as a reader of them passes them on (vx-sandbox's
 * records, for vx-report): the graph record's text as read (graph_text,
 * from taskreq_read_file_text, graph its parse), byte for byte, not
 * printed again (a graph of 1,000 projects is ~40 KB a task), then the
 * task record printed. The text parses to what a print of graph would,
 * so a reader judges the same; its bytes are the print's when it was one
 * (vx run's, vx-pick's). A graph whose "tasks" is a number other than 1,
 * or no text, is printed as taskreq_format does. */
char *taskreq_format_read(const char *graph_text, const cJSON *graph, const cJSON *task);

#endif
