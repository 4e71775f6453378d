/* vx-report's graph memo: a run's streams share one parse of the very same
 * graph line, and no stream is judged with another's graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphmemo.h"
#include "report.h"
#include "unit.h"

#define GRAPH(p) "{\"type\":\"graph\",\"root\":\"/nonexistent-ws\",\"tasks\":1," \
	"\"projects\":[{\"name\":\"" p "\",\"dir\":\"" p "\"}]}\n"
#define TASK "{\"type\":\"task\",\"id\":\"a#b\",\"dir\":\"a\"}\n{\"trace\":\"end\",\"events\":0}\n"

/* A stream read as vx-report --each reads one: the report (the caller's). */
static int stream(struct report *r, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	memset(r, 0, sizeof(*r));
	int rc = report_read_stream(r, f, "<stream>");
	fclose(f);
	return rc;
}

static const char *first_project(const struct report *r)
{
	const cJSON *p = r->projects ? r->projects->child : NULL;
	return p ? cJSON_GetStringValue(cJSON_GetObjectItem(p, "name")) : NULL;
}

int main(void)
{
	struct report a, b, c, d;

	/* two tasks of one run: the second gets the first's parse */
	CHECK(stream(&a, GRAPH("a") TASK) == 0 && a.graph);
	CHECK(stream(&b, GRAPH("a") TASK) == 0 && b.graph == a.graph);
	CHECK_STR(first_project(&a), "a");
	CHECK_STR(first_project(&b), "a");
	/* another graph, one byte apart: parsed, its own projects, while a
	 * and b keep theirs (a replaced memo lives while held) */
	CHECK(stream(&c, GRAPH("e") TASK) == 0 && c.graph && c.graph != a.graph);
	CHECK_STR(first_project(&c), "e");
	CHECK_STR(first_project(&a), "a");
	report_free(&a);
	CHECK_STR(first_project(&b), "a");
	report_free(&b);
	/* the same bytes as a's again after c: parsed again, not a's (gone) */
	CHECK(stream(&d, GRAPH("a") TASK) == 0 && d.graph != c.graph);
	CHECK_STR(first_project(&d), "a");
	report_free(&c);
	report_free(&d);

	/* the memo alone: the very same bytes only, a prefix or a longer
	 * line is another graph */
	cJSON *g = cJSON_Parse("{\"type\":\"graph\"}");
	struct graphmemo *m = graphmemo_put("{\"type\":\"graph\"}", 16, g);
	CHECK(graphmemo_find("{\"type\":\"graph\"}", 16) == m && m->refs == 2);
	CHECK(!graphmemo_find("{\"type\":\"graph\"}", 15));
	CHECK(!graphmemo_find("{\"type\":\"graph\"} ", 17));
	CHECK(!graphmemo_find("{\"type\":\"graqh\"}", 16));
	graphmemo_drop(m);
	graphmemo_drop(m);
	graphmemo_drop(NULL);
	return UNIT_END("report_graphmemo");
}
