/* The request codec: what the driver writes, vx-sandbox and vx-report read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "taskreq.h"
#include "unit.h"

static FILE *mem(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

static int read_text(const char *text, cJSON **g, cJSON **t)
{
	struct jsonl_reader rd;
	FILE *f = mem(text);
	int rc;
	jsonl_reader_init(&rd, f, "<mem>");
	rc = taskreq_read(&rd, g, t);
	jsonl_reader_free(&rd);
	fclose(f);
	return rc;
}

int main(void)
{
	cJSON *g, *t;
	char *text;
	err_init("test_taskreq");

	/* a round trip: format then read gives the same records, plus the socket */
	g = cJSON_Parse("{\"type\":\"graph\",\"root\":\"/ws\",\"projects\":[]}");
	t = cJSON_Parse("{\"type\":\"task\",\"id\":\"a#b\",\"dir\":\"a\",\"command\":\"true\","
			"\"proxySocket\":\"/old.sock\"}");
	text = taskreq_format(g, t, "/tmp/vx-net-x/0.sock", NULL);
	CHECK(strchr(text, '\n') && strchr(text, '\n')[1] == '{');
	CHECK(text[strlen(text) - 1] == '\n');
	/* the caller's record is not changed */
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "proxySocket")), "/old.sock"));
	cJSON_Delete(g);
	cJSON_Delete(t);
	CHECK(read_text(text, &g, &t) == 0);
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(g, "root")), "/ws"));
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "proxySocket")),
		"/tmp/vx-net-x/0.sock"));
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "id")), "a#b"));
	cJSON_Delete(g);
	cJSON_Delete(t);
	free(text);

	/* vx run's way: the graph's line printed once, then each task's
	 * request from it, the same text as taskreq_format's, tasks as 1, and
	 * the caller's count put back */
	g = cJSON_Parse("{\"type\":\"graph\",\"root\":\"/ws\",\"tasks\":7,"
			"\"projects\":[{\"name\":\"a\",\"dir\":\"a\"}]}");
	{
		char *line = taskreq_graph_line(g);
		CHECK(!strchr(line, '\n') && strstr(line, "\"tasks\":1"));
		for (int i = 0; i < 2; i++) {
			t = cJSON_Parse(i ? "{\"type\":\"task\",\"id\":\"a#c\",\"dir\":\"a\"}"
					  : "{\"type\":\"task\",\"id\":\"a#b\",\"dir\":\"a\"}");
			char *one = taskreq_format(g, t, i ? NULL : "/s.sock", i ? NULL : "/c.sock");
			char *two = taskreq_format_line(line, t, i ? NULL : "/s.sock",
				i ? NULL : "/c.sock");
			CHECK(!strcmp(one, two));
			free(one);
			free(two);
			cJSON_Delete(t);
		}
		CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(g, "tasks")) == 7);
		free(line);
	}
	cJSON_Delete(g);

	/* vx-sandbox's records: the graph's line as read, byte for byte, not
	 * printed again; vx run's line comes out as taskreq_format's text; a
	 * count other than 1 is printed as before */
	{
		static const char *const graphs[] = {
			"{\"type\":\"graph\",\"root\":\"/ws\",\"tasks\":1,\"projects\":[{\"name\":\"a\",\"dir\":\"a\"}]}",
			"  { \"type\": \"graph\", \"root\": \"/ws\",\"x\":1.50 }\t\r",
			"{\"type\":\"graph\",\"root\":\"/ws\",\"tasks\":0}",
		};
		char *gtext;
		for (int i = 0; i < 3; i++) {
			char *in = xasprintf("%s\n{\"type\":\"task\",\"id\":\"a#b\",\"dir\":\"a\"}\n",
				graphs[i]), *path = xasprintf("/tmp/vx-unit-taskreq-%d", (int)getpid());
			FILE *f = fopen(path, "w");
			CHECK(f && fputs(in, f) >= 0 && fclose(f) == 0);
			CHECK(taskreq_read_file_text(path, &g, &t, &gtext) == 0 && gtext);
			char *got = taskreq_format_read(gtext, g, t), *printed = taskreq_format(g, t, NULL, NULL);
			if (i == 0)
				CHECK(!strcmp(got, in) && !strcmp(got, printed));
			if (i == 1)
				CHECK(!strncmp(got, graphs[1] + 2, strlen(graphs[1]) - 4) &&
				      got[strlen(graphs[1]) - 4] == '\n' && strcmp(got, printed));
			if (i == 2)
				CHECK(!strcmp(got, printed) && strstr(got, "\"tasks\":1"));
			free(got);
			free(printed);
			free(gtext);
			cJSON_Delete(g);
			cJSON_Delete(t);
			unlink(path);
			free(path);
			free(in);
		}
		CHECK(taskreq_read_file_text("/nonexistent/request", &g, &t, &gtext) == -1 && !gtext);
	}

	/* refused: one record, the records swapped, a task without a dir, a
	 * malformed line; nothing is handed back */
	CHECK(read_text("{\"type\":\"graph\",\"root\":\"/\"}\n", &g, &t) == -1 && !g && !t);
	CHECK(read_text("{\"type\":\"task\",\"dir\":\".\"}\n{\"type\":\"graph\",\"root\":\"/\"}\n",
		      &g, &t) == -1 && !g && !t);
	CHECK(read_text("{\"type\":\"graph\",\"root\":\"/\"}\n{\"type\":\"task\",\"id\":\"x\"}\n",
		      &g, &t) == -1 && !g && !t);
	CHECK(read_text("{\"type\":\"graph\",\"root\":\"/\"}\n{\"type\":\n", &g, &t) == -1 && !g);
	CHECK(taskreq_read_file("/nonexistent/request", &g, &t) == -1 && !g && !t);

	/* vx-key's members move as one set and drop as one set */
	g = cJSON_Parse("{\"id\":\"a#b\",\"key\":\"k2\",\"final\":true,\"explain\":[],"
			"\"linked\":[],\"other\":1}");
	t = cJSON_Parse("{\"id\":\"a#b\",\"key\":\"k1\",\"command\":\"c\"}");
	taskreq_move_key_members(t, g);
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "key")), "k2"));
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "final")));
	CHECK(cJSON_GetObjectItem(t, "explain") && cJSON_GetObjectItem(t, "linked"));
	CHECK(!cJSON_GetObjectItem(t, "other") && cJSON_GetObjectItem(g, "other"));
	CHECK(!cJSON_GetObjectItem(g, "key"));
	taskreq_drop_key_members(t);
	for (const char *const *m = taskreq_key_members; *m; m++)
		CHECK(!cJSON_GetObjectItem(t, *m));
	CHECK(cJSON_GetObjectItem(t, "command"));
	cJSON_Delete(g);
	cJSON_Delete(t);
	/* in their own order, at the end, each replacing the first of its name
	 * (a name twice in the answer: its first moves) */
	g = cJSON_Parse("{\"stamp\":{},\"type\":\"task\",\"kind\":1,\"key\":\"k2\",\"key\":\"k3\"}");
	t = cJSON_Parse("{\"key\":\"k1\",\"keyed\":[],\"stamp\":0,\"final\":false}");
	taskreq_move_key_members(t, g);
	text = cJSON_PrintUnformatted(t);
	CHECK_STR(text, "{\"keyed\":[],\"final\":false,\"key\":\"k2\",\"stamp\":{}}");
	free(text);
	text = cJSON_PrintUnformatted(g);
	CHECK_STR(text, "{\"type\":\"task\",\"kind\":1,\"key\":\"k3\"}");
	free(text);
	taskreq_move_key_members(t, NULL);
	cJSON_Delete(g);
	cJSON_Delete(t);
	return UNIT_END("taskreq");
}
