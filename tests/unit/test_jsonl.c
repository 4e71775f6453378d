#include <stdlib.h>

#include "err.h"
#include "jsonl.h"
#include "unit.h"

static FILE *mem(const char *s)
{
	return fmemopen((void *)s, strlen(s), "r");
}

int main(void)
{
	struct jsonl_reader r;
	cJSON *j = NULL;
	err_init("test_jsonl");

	FILE *f = mem("{\"a\":1}\n\n  \n{\"b\":2}\n{\"c\":3}");
	jsonl_reader_init(&r, f, "<mem>");
	CHECK(jsonl_read(&r, &j) == 1 && cJSON_GetObjectItem(j, "a"));
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == 1 && cJSON_GetObjectItem(j, "b"));
	CHECK(r.line == 4);
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == 1 && cJSON_GetObjectItem(j, "c")); /* no final newline */
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == 0);
	jsonl_reader_free(&r);
	fclose(f);

	/* malformed, not an object, trailing garbage: errors that name the line */
	f = mem("{\"a\":1}\n{\"a\":\n[1,2]\n{} x\n{\"ok\":true}\n");
	jsonl_reader_init(&r, f, "<mem>");
	CHECK(jsonl_read(&r, &j) == 1);
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == -1 && r.line == 2);
	CHECK(jsonl_read(&r, &j) == -1 && r.line == 3);
	CHECK(jsonl_read(&r, &j) == -1 && r.line == 4);
	CHECK(jsonl_read(&r, &j) == 1 && r.line == 5); /* reading goes on */
	cJSON_Delete(j);
	jsonl_reader_free(&r);
	fclose(f);

	/* over-long line: reported, skipped, the next one still reads */
	f = mem("{\"long\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n{\"n\":1}\n");
	jsonl_reader_init(&r, f, "<mem>");
	r.max = 16;
	CHECK(jsonl_read(&r, &j) == -1 && r.line == 1);
	CHECK(jsonl_read(&r, &j) == 1 && r.line == 2);
	cJSON_Delete(j);
	jsonl_reader_free(&r);
	fclose(f);

	/* lines across the stream's buffer refills (taken a buffer at a time,
	 * not a byte at a time): a tiny buffer splits every line, a line of
	 * max - 1 bytes still reads and one of max is over */
	f = mem("{\"a\":\"0123456789abcdef\"}\n{\"b\":22}\n\n{\"c\":333}\n{\"n\":1234}\n{\"d\":\"z\"}");
	setvbuf(f, NULL, _IOFBF, 5);
	jsonl_reader_init(&r, f, "<mem>");
	CHECK(jsonl_read(&r, &j) == 1 &&
		strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "a")), "0123456789abcdef") == 0);
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == 1 && cJSON_GetObjectItem(j, "b")->valueint == 22 && r.line == 2);
	cJSON_Delete(j);
	r.max = 10; /* {"c":333} is 9 bytes, {"n":1234} 10 */
	CHECK(jsonl_read(&r, &j) == 1 && cJSON_GetObjectItem(j, "c")->valueint == 333 && r.line == 4);
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == -1 && r.line == 5);
	r.max = JSONL_MAX_LINE;
	CHECK(jsonl_read(&r, &j) == 1 && r.line == 6 &&
		strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "d")), "z") == 0);
	cJSON_Delete(j);
	CHECK(jsonl_read(&r, &j) == 0);
	jsonl_reader_free(&r);
	fclose(f);

	/* NUL byte inside a line */
	static const char nul[] = "{\"a\":1}\0x\n";
	f = fmemopen((void *)nul, sizeof(nul) - 1, "r");
	jsonl_reader_init(&r, f, "<mem>");
	CHECK(jsonl_read(&r, &j) == -1);
	jsonl_reader_free(&r);
	fclose(f);

	CHECK(jsonl_line_of("a\nb\nc", 4) == 3);
	CHECK(jsonl_line_of("abc", 0) == 1);

	return UNIT_END("jsonl");
}
