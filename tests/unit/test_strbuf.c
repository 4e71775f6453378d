#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "unit.h"

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	/* empty until something is added; then always NUL-terminated */
	CHECK(sb.len == 0 && sb.buf == NULL);
	strbuf_addstr(&sb, "ab");
	strbuf_addch(&sb, 'c');
	strbuf_addf(&sb, "-%d-%s", 42, "x");
	CHECK_STR(sb.buf, "abc-42-x");
	CHECK(sb.len == 8 && sb.alloc > sb.len);

	/* bytes with a NUL inside keep their length */
	strbuf_add(&sb, "\0z", 2);
	CHECK(sb.len == 10 && sb.buf[8] == '\0' && sb.buf[9] == 'z' && sb.buf[10] == '\0');

	/* a format longer than the room at hand takes the second pass */
	char big[5000];
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_reset(&sb);
	strbuf_addf(&sb, "<%s>", big);
	CHECK(sb.len == sizeof(big) + 1 && sb.buf[0] == '<' && sb.buf[sb.len - 1] == '>');
	CHECK(sb.buf[sb.len] == '\0');

	/* many small adds: doubling keeps allocations few */
	strbuf_reset(&sb);
	size_t grows = 0, last = sb.alloc;
	for (int i = 0; i < 100000; i++) {
		strbuf_addch(&sb, (char)('a' + i % 26));
		if (sb.alloc != last) {
			grows++;
			last = sb.alloc;
		}
	}
	CHECK(sb.len == 100000 && grows < 20);

	strbuf_setlen(&sb, 3);
	CHECK_STR(sb.buf, "abc");
	size_t n;
	char *p = strbuf_detach(&sb, &n);
	CHECK(n == 3 && strcmp(p, "abc") == 0 && sb.buf == NULL && sb.len == 0);
	free(p);
	/* detach of an empty one gives "" */
	p = strbuf_detach(&sb, &n);
	CHECK(p && n == 0 && p[0] == '\0');
	free(p);
	strbuf_release(&sb);

	/* strbuf_read: a file to its end, appended, past the first room */
	FILE *f = tmpfile();
	for (int i = 0; i < 20000; i++)
		fputc('a' + i % 26, f);
	fflush(f);
	rewind(f);
	strbuf_addstr(&sb, "<");
	CHECK(strbuf_read(&sb, fileno(f), 100) == 0);
	CHECK(sb.len == 20001 && sb.buf[0] == '<' && sb.buf[1] == 'a' && sb.buf[20000] == 'a' + 19999 % 26);
	CHECK(sb.buf[sb.len] == '\0');
	/* at the end already: nothing more, still terminated */
	CHECK(strbuf_read(&sb, fileno(f), 0) == 0 && sb.len == 20001 && sb.buf[sb.len] == '\0');
	fclose(f);
	/* a bad fd: -1, what was there kept */
	CHECK(strbuf_read(&sb, -1, 0) == -1 && sb.len == 20001);
	strbuf_release(&sb);
	return UNIT_END("strbuf");
}
