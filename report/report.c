/* report.c: reading a task's request, trace and network records (report.h);
 * the judging is rules.c's. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "graphmemo.h"
#include "jsonl.h"
#include "lookup.h"
#include "path.h"
#include "taskreq.h"


static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int bad(const char *file, size_t line, const char *what, const char *fix)
{
	if (line)
		err_warn("%s:%zu: %s; fix: %s", file, line, what, fix);
	else
		err_warn("%s: %s; fix: %s", file, what, fix);
	return -1;
}

static FILE *open_in(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f)
		err_warn_errno("unable to open '%s'", file);
	return f;
}

/* The request's two records, read from file at line (the graph record's):
 * 0 and kept, or -1 after one line. The records are the caller's to free;
 * with m (graph its parse), the projects are m's, held, not taken. */
static int take_request(struct report *r, cJSON *graph, cJSON **task, const char *file,
	size_t line, struct graphmemo *m)
{
	const char *id;
	if (taskreq_check(graph, *task, file, line))
		return -1;
	r->root = path_canonical(str(graph, "root"));
	if (!r->root)
		r->root = xstrdup(str(graph, "root"));
	r->id = xstrdup((id = str(*task, "id")) ? id : "(unnamed task)");
	if (!r->project)
		r->project = path_join(r->root, str(*task, "dir"));
	if (m) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(graph, "projects");
		r->projects = cJSON_CreateArrayReference(p ? p->child : NULL);
		r->graph = graphmemo_hold(m);
	} else {
		r->projects = cJSON_DetachItemFromObjectCaseSensitive(graph, "projects");
	}
	r->task = *task;
	*task = NULL;
	return 0;
}

int report_read_request(struct report *r, const char *file)
{
	cJSON *graph, *task;
	int rc = taskreq_read_file(file, &graph, &task);
	if (!rc)
		rc = take_request(r, graph, &task, file, 1, NULL);
	cJSON_Delete(graph);
	cJSON_Delete(task);
	return rc;
}

/* One deny record of vx-proxy's, kept (rec is then the report's): 0, or
 * -1 after one line (rec freed). */
static int take_deny(struct report *r, cJSON *rec, const char *file, size_t line)
{
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(rec, "port");
	if (!str(rec, "host") || !cJSON_IsNumber(port) || !(port->valuedouble >= 0 &&
		port->valuedouble <= 65535)) {
		cJSON_Delete(rec);
		return bad(file, line, "a deny record needs a host and a port (0 to 65535)",
			"pass the records vx-proxy wrote");
	}
	if (!r->denies)
		r->denies = cJSON_CreateArray();
	cJSON_AddItemToArray(r->denies, rec);
	return 0;
}

int report_read_trace(struct report *r, const char *file)
{
	FILE *f = open_in(file);
	if (!f)
		return -1;
	int rc = report_read_stream(r, f, file);
	if (f != stdin)
		fclose(f);
	return rc;
}

int report_read_stream(struct report *r, FILE *f, const char *file)
{
	struct jsonl_reader rd;
	struct graphmemo *graph = NULL, *same;
	cJSON *rec;
	const char *text;
	size_t len;
	int got;
	jsonl_reader_init(&rd, f, file);
	r->accesses = cJSON_CreateArray();
	r->placeholders = cJSON_CreateArray();
	while ((got = jsonl_read_text(&rd, &text, &len)) == 1) {
		/* the graph record of the stream before, the very same bytes:
		 * its parse again, not a parse of every project again */
		if (!r->task && (same = graphmemo_find(text, len))) {
			graphmemo_drop(graph);
			graph = same;
			continue;
		}
		if ((got = jsonl_parse_text(&rd, text, &rec)) != 1)
			break;
		const char *kind = str(rec, "trace"), *type = str(rec, "type");
		if (!kind && type && (!strcmp(type, "graph") || !strcmp(type, "task"))) {
			/* vx-sandbox --request - --trace - starts with the request;
			 * one read from --request already wins */
			if (r->task) {
				cJSON_Delete(rec);
			} else if (!strcmp(type, "graph")) {
				graphmemo_drop(graph);
				graph = graphmemo_put(text, len, rec);
			} else if (graph) {
				got = take_request(r, graph->graph, &rec, file, rd.line - 1, graph);
				cJSON_Delete(rec);
				if (got < 0)
					break;
			} else {
				cJSON_Delete(rec);
				got = bad(file, rd.line, "a task record before any graph record",
					"the request is a graph record, then the task's record");
				break;
			}
			continue;
		}
		if (!kind && type && !strcmp(type, "deny")) {
			/* vx-sandbox's: the task's denies, taken from vx-proxy */
			if ((got = take_deny(r, rec, file, rd.line)) < 0)
				break;
			continue;
		}
		if (!kind && type && !strcmp(type, "done")) {
			/* their end: false when vx-proxy did not confirm them */
			r->net_lost |= !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "confirmed"));
			cJSON_Delete(rec);
			continue;
		}
		if (!kind) {
			bool net = str(rec, "access") && !strcmp(str(rec, "access"), "net");
			if (!str(rec, "op") || !str(rec, "access") || (net ? !str(rec, "addr") ||
				!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "port"))
				: !str(rec, "resolved"))) {
				bad(file, rd.line, "an access record needs op, access and resolved "
					"(a net one addr and port)",
					"pass the file vx-sandbox --trace wrote");
				cJSON_Delete(rec);
				got = -1;
				break;
			}
			cJSON_AddItemToArray(r->accesses, rec);
			continue;
		}
		if (!strcmp(kind, "start")) {
			const char *p = str(rec, "project");
			r->started = true;
			if (p) {
				free(r->project);
				r->project = xstrdup(p);
			}
			cJSON_Delete(r->withheld);
			r->withheld = cJSON_DetachItemFromObjectCaseSensitive(rec, "withheld");
		} else if (!strcmp(kind, "end") || !strcmp(kind, "off")) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(rec, "events");
			r->state = !strcmp(kind, "end") ? "end" : "off";
			if (!strcmp(kind, "off") && str(rec, "reason")) {
				free(r->off_reason);
				r->off_reason = xstrdup(str(rec, "reason"));
			}
			r->declared = cJSON_IsNumber(n) ? n->valuedouble : -1;
		} else if (!strcmp(kind, "placeholder")) {
			cJSON_AddItemToArray(r->placeholders, rec);
			continue;
		} else if (!strcmp(kind, "exit")) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(rec, "status");
			r->has_exit = cJSON_IsNumber(n);
			r->exit_status = r->has_exit ? n->valueint : 0;
		} else if (!strcmp(kind, "dns") || !strcmp(kind, "proxied")) {
			lookup_add(&r->lookups, rec);
		}
		cJSON_Delete(rec);
	}
	graphmemo_drop(graph);
	jsonl_reader_free(&rd);
	return got < 0 ? -1 : 0;
}

int report_read_network(struct report *r, const char *file)
{
	struct jsonl_reader rd;
	cJSON *rec;
	FILE *f = open_in(file);
	int got;
	if (!f)
		return -1;
	jsonl_reader_init(&rd, f, strcmp(file, "-") ? file : "<stdin>");
	if (!r->denies)
		r->denies = cJSON_CreateArray();
	while ((got = jsonl_read(&rd, &rec)) == 1) {
		const char *type = str(rec, "type"), *task = str(rec, "task");
		if (!type || strcmp(type, "deny") || !task || strcmp(task, r->id)) {
			cJSON_Delete(rec); /* listening, done, another task's */
			continue;
		}
		if ((got = take_deny(r, rec, rd.name, rd.line)) < 0)
			break;
	}
	jsonl_reader_free(&rd);
	if (f != stdin)
		fclose(f);
	return got < 0 ? -1 : 0;
}

void report_free(struct report *r)
{
	free(r->id);
	free(r->root);
	free(r->project);
	free(r->off_reason);
	cJSON_Delete(r->task);
	cJSON_Delete(r->projects);
	graphmemo_drop(r->graph);
	cJSON_Delete(r->accesses);
	cJSON_Delete(r->withheld);
	cJSON_Delete(r->placeholders);
	cJSON_Delete(r->lookups);
	cJSON_Delete(r->denies);
	memset(r, 0, sizeof(*r));
}
