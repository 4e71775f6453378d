#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

char *fileio_read_at(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	char *text = fileio_read_fd(fd, len);
	int e = errno;
	close(fd);
	errno = e;
	return text;
}

char *fileio_read_fd(int fd, size_t *len)
{
	/* read into a stack buffer and copy out exactly: most config files are
	 * small, and touching fresh heap pages costs more than the copy */
	char stackbuf[16384];
	ssize_t r;
	while ((r = read(fd, stackbuf, sizeof(stackbuf))) < 0 && errno == EINTR)
		;
	if (r < 0)
		return NULL;
	size_t n = (size_t)r;
	char *heap;
	if (n < sizeof(stackbuf)) {
		heap = xmalloc(n + 1);
		memcpy(heap, stackbuf, n);
	} else {
		/* a big regular file is read into its size at once (and the
		 * read that sees its end): no doubling copies */
		struct stat st;
		size_t cap = sizeof(stackbuf) * 2;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size + 2 > cap)
			cap = (size_t)st.st_size + 2;
		heap = xmalloc(cap);
		memcpy(heap, stackbuf, n);
		for (;;) {
			XGROW(heap, n + 2, cap);
			r = read(fd, heap + n, cap - n - 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				free(heap);
				return NULL;
			}
			if (r == 0)
				break;
			n += (size_t)r;
		}
	}
	heap[n] = '\0';
	if (len)
		*len = n;
	return heap;
}

int fileio_write_all(int fd, const void *buf, size_t n)
{
	const char *s = buf;
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}
