/* test_vxedit.c: vx init --sandbox's splice (init/vxedit.c) edits the task
 * it parsed, never a commented-out copy or a string, keeps every other
 * byte, and refuses a file it cannot edit safely in one line. */
#include <stdlib.h>
#include <unistd.h>

#include "err.h"
#include "unit.h"
#include "vxedit.h"

static const char *SB = "\"sandbox\": {}";

/* The edit's text, or "refused: " and the line it printed. */
static const char *edit(const char *text, const char *name, const char *wfiles)
{
	static char buf[4096];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	char *out = vxedit_sandbox("p/vx.json", text, name, SB, wfiles);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (out) {
		snprintf(buf, sizeof(buf), "%s", out);
		free(out);
	} else {
		rewind(tmp);
		size_t n = fread(buf + 9, 1, sizeof(buf) - 10, tmp);
		memcpy(buf, "refused: ", 9);
		buf[9 + n - (n && buf[8 + n] == '\n')] = '\0';
	}
	fclose(tmp);
	return buf;
}

int main(void)
{
	err_init("vx-init");
	/* the shape vx init writes: the block ends the exec line; the files open
	 * the cache on a line of their own */
	CHECK_STR(edit("{\n  \"tasks\": {\n    \"build\": {\n      \"exec\": { \"command\": \"x\" },\n"
		       "      \"cache\": {\n        \"outputs\": { \"files\": [\"dist/**\"] }\n      }\n"
		       "    }\n  }\n}\n",
			  "build", "[\"a.txt\"]"),
		"{\n  \"tasks\": {\n    \"build\": {\n      \"exec\": { \"command\": \"x\", \"sandbox\": {} },\n"
		"      \"cache\": {\n        \"inputs\": { \"workspaceFiles\": [\"a.txt\"] },\n"
		"        \"outputs\": { \"files\": [\"dist/**\"] }\n      }\n    }\n  }\n}\n");
	/* commented-out copies, before and inside, stay as they are */
	CHECK_STR(edit("{ \"tasks\": {\n// \"build\": { \"exec\": { \"command\": \"old\" } },\n"
		       "/* \"build\": { \"exec\": { \"command\": \"older\" } }, */\n"
		       "\"build\": { /* \"exec\": {}, */ \"exec\": { \"command\": \"x\" /* } */ } } } } // }",
			  "build", NULL),
		"{ \"tasks\": {\n// \"build\": { \"exec\": { \"command\": \"old\" } },\n"
		"/* \"build\": { \"exec\": { \"command\": \"older\" } }, */\n"
		"\"build\": { /* \"exec\": {}, */ \"exec\": { \"command\": \"x\", \"sandbox\": {} /* } */ } } } } // }");
	/* a string that spells the task, and a key spelled with an escape */
	CHECK_STR(edit("{\"tasks\": {\"say\": {\"exec\": {\"command\": \"echo '\\\"build\\\": {\\\"exec\\\": {'\"}}, "
		       "\"b\\u0075ild\": {\"exec\": {\"command\": \"x\"}}}}",
			  "build", NULL),
		"{\"tasks\": {\"say\": {\"exec\": {\"command\": \"echo '\\\"build\\\": {\\\"exec\\\": {'\"}}, "
		"\"b\\u0075ild\": {\"exec\": {\"command\": \"x\", \"sandbox\": {}}}}}");
	/* an exec on lines of its own; a trailing comma; an empty exec */
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\n\t\t\"command\": \"x\"\n\t}}}}", "b", NULL),
		"{\"tasks\": {\"b\": {\"exec\": {\n\t\t\"command\": \"x\",\n\t\t\"sandbox\": {}\n\t}}}}");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\",},},},}", "b", NULL),
		"{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\", \"sandbox\": {},},},},}");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {}}}}", "b", NULL),
		"{\"tasks\": {\"b\": {\"exec\": { \"sandbox\": {} }}}}");
	/* workspaceFiles: merged first; added to inputs; a cache {}; no cache */
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}, \"cache\": {\"inputs\": "
		       "{\"workspaceFiles\": [\"c\"]}}}}}",
			  "b", "[\"a\", \"b\"]"),
		"{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\", \"sandbox\": {}}, \"cache\": {\"inputs\": "
		"{\"workspaceFiles\": [\"a\", \"b\", \"c\"]}}}}}");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"cache\": {\"inputs\": {\"workspaceFiles\": [ ]}}, "
		       "\"exec\": {\"command\": \"x\"}}}}",
			  "b", "[\"a\"]"),
		"{\"tasks\": {\"b\": {\"cache\": {\"inputs\": {\"workspaceFiles\": [\"a\" ]}}, "
		"\"exec\": {\"command\": \"x\", \"sandbox\": {}}}}}");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}, \"cache\": {\"inputs\": "
		       "{ \"files\": [\"s\"] }}}}}",
			  "b", "[\"a\"]"),
		"{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\", \"sandbox\": {}}, \"cache\": {\"inputs\": "
		"{ \"workspaceFiles\": [\"a\"], \"files\": [\"s\"] }}}}}");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}, \"cache\": {}}}}", "b", "[\"a\"]"),
		"{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\", \"sandbox\": {}}, \"cache\": { \"inputs\": "
		"{ \"workspaceFiles\": [\"a\"] } }}}}");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}}}}", "b", "[\"a\"]"),
		"{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\", \"sandbox\": {}}}}}");

	/* refused, in one line naming the file, the key and the fix */
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}},\n\"b\": {\"exec\": {\"command\": \"y\"}}}}",
			  "b", NULL),
		"refused: vx-init: p/vx.json: tasks.b: appears twice (again at line 2); fix: keep one of them");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}, \"exec\": {\"command\": \"y\"}}}}",
			  "b", NULL),
		"refused: vx-init: p/vx.json: tasks.b.exec: appears twice (again at line 1); fix: keep one of them");
	CHECK_STR(edit("{\"tasks\": {}, \"tasks\": {}}", "b", NULL),
		"refused: vx-init: p/vx.json: tasks: appears twice (again at line 1); fix: keep one of them");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}, \"cache\": {\"inputs\": {}, "
		       "\"inputs\": {}}}}}",
			  "b", "[\"a\"]"),
		"refused: vx-init: p/vx.json: tasks.b.cache.inputs: appears twice (again at line 1); fix: keep one "
		"of them");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\", \"sandbox\": {}}}}}", "b", NULL),
		"refused: vx-init: p/vx.json: tasks.b.exec.sandbox: there already: left as it is; fix: edit it by "
		"hand, or drop it and run vx init --sandbox again");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"dependsOn\": [\"x\"]}}}", "b", NULL),
		"refused: vx-init: p/vx.json: tasks.b: a group (no exec): nothing runs to sandbox; fix: give it an "
		"exec.command, or leave it as it is");
	CHECK_STR(edit("{\"tasks\": {/* \"b\": {\"exec\": {\"command\": \"x\"}} */}}", "b", NULL),
		"refused: vx-init: p/vx.json: tasks.b: not found; fix: add the task, then run vx init --sandbox "
		"again");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": \"x\"}}}", "b", NULL),
		"refused: vx-init: p/vx.json: tasks.b.exec: expected an object; fix: make it an object");
	CHECK_STR(edit("{\"tasks\": {\"b\": {\"exec\": {\"command\": \"x\"}}}}\n,", "b", NULL),
		"refused: vx-init: p/vx.json: (file): invalid JSON at line 2; fix: correct the JSON syntax");
	CHECK_STR(edit("{\"tasks\": {}}\n/* open", "b", NULL),
		"refused: vx-init: p/vx.json: (file): a comment that never ends, at line 2; fix: close it with */");
	CHECK_STR(edit("[]", "b", NULL),
		"refused: vx-init: p/vx.json: (file): not a JSON object; fix: make the file one JSON object");
	return UNIT_END("vxedit");
}
