/* taskreq.c: the request's two records (taskreq.h). */
#include "taskreq.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

#define NKEY_MEMBERS 5
const char *const taskreq_key_members[NKEY_MEMBERS + 1] = {"key", "final", "explain", "linked",
	"stamp", NULL};

/* Each key member's first item in o, by the member's index. */
static void find_key_members(const cJSON *o, cJSON *at[NKEY_MEMBERS])
{
	memset(at, 0, NKEY_MEMBERS * sizeof(*at));
	for (cJSON *c = o ? o->child : NULL; c; c = c->next)
		for (int m = 0; c->string && m < NKEY_MEMBERS; m++)
			if (!at[m] && c->string[0] == taskreq_key_members[m][0] &&
				strcmp(c->string, taskreq_key_members[m]) == 0)
				at[m] = c;
}

/* One pass over each object, not one lookup a member in each (the driver
 * does this a task, and a task record has some twenty members): the same
 * items moved, in the same order, as detaching and replacing member by
 * member would. */
void taskreq_move_key_members(cJSON *to, cJSON *from)
{
	cJSON *v[NKEY_MEMBERS], *was[NKEY_MEMBERS];
	find_key_members(from, v);
	bool any = false;
	for (int m = 0; m < NKEY_MEMBERS; m++)
		any |= v[m] != NULL;
	if (!any)
		return;
	find_key_members(to, was);
	for (int m = 0; m < NKEY_MEMBERS; m++) {
		if (!v[m])
			continue;
		cJSON_DetachItemViaPointer(from, v[m]);
		if (was[m])
			cJSON_Delete(cJSON_DetachItemViaPointer(to, was[m]));
		cJSON_AddItemToObject(to, taskreq_key_members[m], v[m]);
	}
}

void taskreq_drop_key_members(cJSON *task)
{
	cJSON *at[NKEY_MEMBERS];
	find_key_members(task, at);
	for (int m = 0; m < NKEY_MEMBERS; m++)
		if (at[m])
			cJSON_Delete(cJSON_DetachItemViaPointer(task, at[m]));
}

static const char *str(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int bad(const char *file, size_t line, const char *what)
{
	const char *fix = "pass vx-graph's graph record, then the task's record (docs/protocol.md)";
	if (line)
		err_warn("%s:%zu: %s; fix: %s", file, line, what, fix);
	else
		err_warn("%s: %s; fix: %s", file, what, fix);
	return -1;
}

int taskreq_check(const cJSON *graph, const cJSON *task, const char *file, size_t line)
{
	const char *t = str(graph, "type");
	if (!t || strcmp(t, "graph") || !str(graph, "root"))
		return bad(file, line, "the first record is not a graph record with a root");
	t = str(task, "type");
	if (!t || strcmp(t, "task") || !str(task, "dir"))
		return bad(file, line ? line + 1 : 0, "the second record is not a task record with a dir");
	return 0;
}

/* The next record of rd, and its text (malloc'd) when text is not NULL:
 * 1, 0 at the end, -1 (reported). */
static int read_kept(struct jsonl_reader *rd, cJSON **rec, char **text)
{
	const char *t;
	size_t len;
	int got = jsonl_read_text(rd, &t, &len);
	if (got == 1 && text)
		*text = xstrndup(t, len);
	return got == 1 ? jsonl_parse_text(rd, t, rec) : got;
}

static int read_two(struct jsonl_reader *rd, cJSON **graph, cJSON **task, char **graph_text)
{
	size_t first;
	int a, b = 0;
	*graph = *task = NULL;
	a = read_kept(rd, graph, graph_text);
	first = rd->line;
	if (a == 1)
		b = jsonl_read(rd, task);
	if (a == 1 && b == 1 && !taskreq_check(*graph, *task, rd->name, first))
		return 0;
	/* a malformed line was named by the reader already */
	if (a == 0 || (a == 1 && b == 0))
		bad(rd->name, 0, "expected two records, a graph record then a task record");
	cJSON_Delete(*graph);
	cJSON_Delete(*task);
	*graph = *task = NULL;
	if (graph_text) {
		free(*graph_text);
		*graph_text = NULL;
	}
	return -1;
}

int taskreq_read(struct jsonl_reader *rd, cJSON **graph, cJSON **task)
{
	return read_two(rd, graph, task, NULL);
}

int taskreq_read_file_text(const char *file, cJSON **graph, cJSON **task, char **graph_text)
{
	bool in = !strcmp(file, "-");
	FILE *f = in ? stdin : fopen(file, "r");
	struct jsonl_reader rd;
	int rc;
	*graph = *task = NULL;
	if (graph_text)
		*graph_text = NULL;
	if (!f) {
		err_warn_errno("unable to open '%s'", file);
		return -1;
	}
	jsonl_reader_init(&rd, f, in ? "<stdin>" : file);
	rc = read_two(&rd, graph, task, graph_text);
	jsonl_reader_free(&rd);
	if (!in)
		fclose(f);
	return rc;
}

int taskreq_read_file(const char *file, cJSON **graph, cJSON **task)
{
	return taskreq_read_file_text(file, graph, task, NULL);
}

char *taskreq_graph_line(const cJSON *graph)
{
	/* a request is one task: its graph record counts one, as vx-pick's
	 * does (vx-sandbox refuses a count over one); the caller's record is
	 * put back as it was */
	cJSON *count = cJSON_GetObjectItemCaseSensitive(graph, "tasks");
	double was = cJSON_IsNumber(count) ? count->valuedouble : 1;
	if (cJSON_IsNumber(count))
		cJSON_SetNumberValue(count, 1);
	char *g = cJSON_PrintUnformatted(graph), *line = xstrdup(g ? g : "");
	if (cJSON_IsNumber(count))
		cJSON_SetNumberValue(count, was);
	cJSON_free(g);
	return line;
}

char *taskreq_format_line(const char *graph_line, const cJSON *task, const char *proxy_socket,
	const char *proxy_control)
{
	cJSON *t = NULL;
	if (proxy_socket) {
		t = cJSON_Duplicate(task, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(t, "proxySocket");
		cJSON_DeleteItemFromObjectCaseSensitive(t, "proxyControl");
		cJSON_AddStringToObject(t, "proxySocket", proxy_socket);
		if (proxy_control)
			cJSON_AddStringToObject(t, "proxyControl", proxy_control);
		task = t;
	}
	char *k = cJSON_PrintUnformatted(task);
	char *text = xasprintf("%s\n%s\n", graph_line, k);
	cJSON_free(k);
	cJSON_Delete(t);
	return text;
}

char *taskreq_format(const cJSON *graph, const cJSON *task, const char *proxy_socket,
	const char *proxy_control)
{
	char *g = taskreq_graph_line(graph);
	char *text = taskreq_format_line(g, task, proxy_socket, proxy_control);
	free(g);
	return text;
}

char *taskreq_format_read(const char *graph_text, const cJSON *graph, const cJSON *task)
{
	/* its count is what taskreq_graph_line would change: 1 already (vx
	 * run's and vx-pick's requests) or no number, the text stands */
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(graph, "tasks");
	if (graph_text && (!cJSON_IsNumber(count) || count->valuedouble == 1))
		return taskreq_format_line(graph_text, task, NULL, NULL);
	return taskreq_format(graph, task, NULL, NULL);
}
