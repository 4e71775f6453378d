#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fileio.h"
#include "unit.h"

/* Write n bytes of a pattern to a temp file; both readers must return them. */
static void roundtrip(size_t n)
{
	char path[] = "/tmp/vx-test-fileio-XXXXXX";
	int fd = mkstemp(path);
	char *want = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		want[i] = (char)('a' + i % 26);
	CHECK(fd >= 0 && write(fd, want, n) == (ssize_t)n);
	close(fd);
	size_t a = 1;
	char *x = fileio_read_at(AT_FDCWD, path, &a);
	CHECK(x && a == n && memcmp(x, want, n) == 0 && x[n] == '\0');
	free(x);
	free(want);
	unlink(path);
}

int main(void)
{
	/* the sizes around the stack buffer and its doublings */
	size_t sizes[] = {0, 1, 100, 16383, 16384, 16385, 32767, 32768, 32769, 200000};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		roundtrip(sizes[i]);
	errno = 0;
	CHECK(fileio_read_at(AT_FDCWD, "/no/such/file", NULL) == NULL && errno == ENOENT);
	errno = 0;
	CHECK(fileio_read_at(AT_FDCWD, "/", NULL) == NULL && errno == EISDIR);
	return UNIT_END("fileio");
}
