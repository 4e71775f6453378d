/* memo: a memo saved loads back whole; every truncation, every flipped
 * byte, bytes appended, another kind or version, a file of another format
 * and a symlink are refused (never MEMO_OK), so a damaged memo is a miss. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "memo.h"
#include "unit.h"

static char dir[] = "/tmp/test_memo.XXXXXX";
static char path[64], other[64];

static void put(const char *p, const char *data, size_t n)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && fileio_write_all(fd, data, n) == 0);
	close(fd);
}

static enum memo_status load(const char *p, const char *kind, unsigned version)
{
	struct memo m;
	enum memo_status s = memo_load(&m, p, kind, version);
	memo_free(&m);
	return s;
}

int main(void)
{
	err_init("test_memo");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/m", dir);
	snprintf(other, sizeof(other), "%s/o", dir);
	CHECK(load(path, "graph", 1) == MEMO_ABSENT);

	/* a body with a NUL and newlines in it loads back byte for byte */
	static const char body[] = "line one\nbinary \0 byte\nend\n";
	CHECK(memo_save(path, "graph", 3, body, sizeof(body), 0644) == 0);
	struct memo m;
	CHECK(memo_load(&m, path, "graph", 3) == MEMO_OK);
	CHECK(m.len == sizeof(body) && memcmp(m.body, body, sizeof(body)) == 0);
	CHECK(m.body[m.len] == '\0' && m.mtime > 0);
	size_t n;
	char *file = fileio_read_at(AT_FDCWD, path, &n);
	CHECK(file && strncmp(file, "vx-memo graph 3 28 ", 19) == 0);
	memo_free(&m);
	CHECK(m.data == NULL);

	/* another kind or version, or no memo at all: stale, silently */
	CHECK(load(path, "grap", 3) == MEMO_STALE);
	CHECK(load(path, "graph", 2) == MEMO_STALE);
	CHECK(load(path, "graph", 30) == MEMO_STALE);
	put(other, "vx-graph-cache 2 0123\n", 22);
	CHECK(load(other, "graph", 3) == MEMO_STALE);

	/* every truncation is refused: the header cut, or the body short */
	int trusted = 0;
	for (size_t k = 0; k < n; k++) {
		put(other, file, k);
		trusted += load(other, "graph", 3) == MEMO_OK;
	}
	CHECK(trusted == 0);
	put(other, file, n - 1);
	CHECK(load(other, "graph", 3) == MEMO_DAMAGED);
	/* one byte more, or every single byte flipped in turn */
	char *more = malloc(n + 1);
	memcpy(more, file, n);
	more[n] = '\n';
	put(other, more, n + 1);
	CHECK(load(other, "graph", 3) == MEMO_DAMAGED);
	for (size_t k = 0; k < n; k++) {
		memcpy(more, file, n);
		more[k] ^= 0x20;
		put(other, more, n);
		trusted += load(other, "graph", 3) == MEMO_OK;
	}
	CHECK(trusted == 0);
	/* a flipped body byte is the checksum's to catch */
	memcpy(more, file, n);
	more[n - 3] ^= 1;
	put(other, more, n);
	CHECK(load(other, "graph", 3) == MEMO_DAMAGED);
	free(more);

	/* a symlink where the memo goes is not followed */
	unlink(other);
	CHECK(symlink(path, other) == 0);
	CHECK(load(other, "graph", 3) != MEMO_OK);
	/* and a save replaces the link, never writes through it */
	CHECK(memo_save(other, "graph", 3, "x", 1, 0644) == 0);
	CHECK(load(path, "graph", 3) == MEMO_OK);
	CHECK(load(other, "graph", 3) == MEMO_OK);
	/* an empty body is a memo too */
	CHECK(memo_save(path, "graph", 3, "", 0, 0644) == 0);
	CHECK(memo_load(&m, path, "graph", 3) == MEMO_OK && m.len == 0);
	memo_free(&m);

	free(file);
	unlink(path);
	unlink(other);
	rmdir(dir);
	return UNIT_END("memo");
}
