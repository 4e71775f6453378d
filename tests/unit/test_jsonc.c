/* test_jsonc.c: jsonc_strip blanks comments and trailing commas in place,
 * keeping every offset and newline, and touches nothing inside a string;
 * the offset walk (jsonc_root, jsonc_next, jsonc_find) finds the members
 * cJSON finds, never one in a comment or a string. */
#include <stdlib.h>

#include "jsonc.h"
#include "unit.h"

static const char *strip(const char *in)
{
	static char buf[512];
	size_t off = 0;
	strcpy(buf, in);
	if (!jsonc_strip(buf, &off))
		snprintf(buf, sizeof(buf), "unclosed at %zu", off);
	return buf;
}

/* The value at path (keys split by '.') of text, as its bytes, or
 * "absent", "twice at N" (the second's key offset), "bad". */
static const char *at(const char *text, const char *path)
{
	static char buf[512];
	struct jsonc_span v;
	if (!jsonc_root(text, &v))
		return "bad";
	char keys[128];
	strcpy(keys, path);
	char *save = NULL;
	for (char *k = strtok_r(keys, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		struct jsonc_member m;
		int r = jsonc_find(text, v, k, &m);
		if (r == 0)
			return "absent";
		if (r < 0)
			return "bad";
		if (r == 2) {
			snprintf(buf, sizeof(buf), "twice at %zu", m.key);
			return buf;
		}
		v = m.val;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)(v.end - v.start), text + v.start);
	return buf;
}

/* The keys of the root object, as the text spells them, by jsonc_next. */
static const char *keys(const char *text)
{
	static char buf[512];
	struct jsonc_span v;
	struct jsonc_member m;
	size_t pos = 0, n = 0;
	int r;
	buf[0] = '\0';
	if (!jsonc_root(text, &v))
		return "bad";
	while ((r = jsonc_next(text, v, &pos, &m)) == 1) {
		const char *k = text + m.key;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%.*s", n ? " " : "",
			(int)(strchr(k + 1, ':') - k), k);
	}
	return r < 0 ? "bad" : buf;
}

int main(void)
{
	CHECK_STR(strip("{\"a\": 1} // x\n"), "{\"a\": 1}     \n");
	CHECK_STR(strip("/* a\nb */{}"), "    \n    {}");
	CHECK_STR(strip("{\"a\": [1, 2,],}"), "{\"a\": [1, 2 ] }");
	CHECK_STR(strip("[1, /* c */ ]"), "[1" "          " "]");
	CHECK_STR(strip("[1 // c\n, ]"), "[1     \n  ]");
	/* strings: comment markers, escaped quotes, a comma before a bracket */
	CHECK_STR(strip("[\"// /* ,]\", \"a\\\"//\"]"), "[\"// /* ,]\", \"a\\\"//\"]");
	CHECK_STR(strip("[\",\"]"), "[\",\"]");
	/* a comma after no value stays for the parser to refuse */
	CHECK_STR(strip("[,]"), "[,]");
	CHECK_STR(strip("{,}"), "{,}");
	CHECK_STR(strip("[1,,]"), "[1,,]");
	/* blanks are cJSON's: every byte up to the space (fuzz_config found
	 * "{\b,}" read as "{}" by the parse and refused by the walk) */
	CHECK_STR(strip("{\b,}"), "{\b,}");
	CHECK_STR(strip("[1,\f]"), "[1 \f]");
	CHECK_STR(strip("[1 /* open"), "unclosed at 3");
	/* a lone '/' and an unterminated string are the parser's to refuse */
	CHECK_STR(strip("[1 / 2]"), "[1 / 2]");
	CHECK_STR(strip("[\"abc"), "[\"abc");
	CHECK_STR(strip("[\"a\\"), "[\"a\\");
	CHECK_STR(strip(""), "");

	/* the offset walk: a member's value as its bytes, nested */
	CHECK_STR(at("{\"a\": 1, \"b\": {\"c\": [1, {\"d\": 2}]}}", "b.c"), "[1, {\"d\": 2}]");
	CHECK_STR(at("{\"a\": 1, \"b\": {\"c\": true}}", "a"), "1");
	CHECK_STR(at("{\"a\": 1}", "b"), "absent");
	CHECK_STR(at("{}", "a"), "absent");
	CHECK_STR(at("[1]", "a"), "bad");
	/* a commented-out copy and a string that spells the key are no member */
	CHECK_STR(at("{ // \"a\": 9,\n /* \"a\": 8, */ \"a\": 1 }", "a"), "1");
	CHECK_STR(at("{\"x\": \"\\\"a\\\": 2\", \"a\": 3}", "a"), "3");
	CHECK_STR(at("{\"x\": \"/* \", \"a\": \"*/ 4\"}", "a"), "\"*/ 4\"");
	/* comments between the tokens of a member; its value's span has none */
	CHECK_STR(at("{\"a\" /* c */ : // c\n {\"b\": 5 /* c */} /* c */ }", "a.b"), "5");
	CHECK_STR(at("{\"a\": {\"b\": 5 /* c */}}", "a"), "{\"b\": 5 /* c */}");
	/* a trailing comma; blanks as cJSON's (any control byte); a BOM */
	CHECK_STR(at("{\"a\": [1, 2,], \"b\": 2,}", "b"), "2");
	CHECK_STR(at("{\f\"a\":\v1}", "a"), "1");
	CHECK_STR(at("\xEF\xBB\xBF {\"a\": 1} // end", "a"), "1");
	/* a repeated key: the second is named, the one cJSON would not see */
	CHECK_STR(at("{\"a\": 1, \"a\": 2}", "a"), "twice at 9");
	CHECK_STR(at("{\"a\": {\"b\": 1, \"b\": 2}}", "a.b"), "twice at 15");
	/* escapes decoded as cJSON does ("\u0000" ends the name there) */
	CHECK_STR(at("{\"\\u0061\": 1}", "a"), "1");
	CHECK_STR(at("{\"a\\u0000b\": 1}", "a"), "1");
	CHECK_STR(at("{\"a\\\"\": 1}", "a\""), "1");
	CHECK_STR(at("{\"ab\": 1}", "a"), "absent");
	/* malformed: each refused, never read past */
	CHECK_STR(at("{\"a\" 1}", "a"), "bad");
	CHECK_STR(at("{\"a\": }", "a"), "bad");
	CHECK_STR(at("{,}", "a"), "bad");
	CHECK_STR(at("{\"a\": 1,, \"b\": 2}", "b"), "bad");
	CHECK_STR(at("{\"a\": 1 \"b\": 2}", "b"), "bad");
	CHECK_STR(at("{\"a\": [1 2]}", "a"), "bad");
	CHECK_STR(at("{\"a\": \"open}", "a"), "bad");
	CHECK_STR(at("{\"a\": 1} /* open", "a"), "bad");
	CHECK_STR(at("{\"a\": 1} x", "a"), "bad");
	CHECK_STR(at("{\"a\": 1", "a"), "bad");
	CHECK_STR(at("", "a"), "bad");
	/* every member in order, none from a comment */
	CHECK_STR(keys("{\"a\": 1, /* \"x\": 0, */ \"b\": [\"c\"], // \"y\"\n \"\\u0061\": {},}"),
		"\"a\" \"b\" \"\\u0061\"");
	CHECK_STR(keys("{}"), "");
	/* jsonc_blank: past blanks and comments, not into a token */
	CHECK(jsonc_blank(" /* a */ // b\n x", 0) == 15);
	CHECK(jsonc_blank("/* open", 0) == 0);
	return UNIT_END("jsonc");
}
