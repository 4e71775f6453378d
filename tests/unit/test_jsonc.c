/* test_jsonc.c: jsonc_strip blanks comments and trailing commas in place,
 * keeping every offset and newline, and touches nothing inside a string. */
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
	CHECK_STR(strip("[1 /* open"), "unclosed at 3");
	/* a lone '/' and an unterminated string are the parser's to refuse */
	CHECK_STR(strip("[1 / 2]"), "[1 / 2]");
	CHECK_STR(strip("[\"abc"), "[\"abc");
	CHECK_STR(strip("[\"a\\"), "[\"a\\");
	CHECK_STR(strip(""), "");
	return UNIT_END("jsonc");
}
