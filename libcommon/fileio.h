/* fileio.h: whole-file reads, and the one write-all loop. */
#ifndef VX_FILEIO_H
#define VX_FILEIO_H

#include <stddef.h>

/* The whole regular file name (relative to dirfd, or AT_FDCWD),
 * NUL-terminated, in a malloc'd buffer; *len gets its size. NULL with errno
 * set on failure (EISDIR for a directory). Few system calls (open, read,
 * close): a first read shorter than the buffer is taken as the end of the
 * file, which holds for regular files, not for pipes or /proc. */
char *fileio_read_at(int dirfd, const char *name, size_t *len);
/* The same from an open fd, which stays open. */
char *fileio_read_fd(int fd, size_t *len);

/* write(2) all n bytes of buf, retrying on EINTR and short writes: 0, or -1
 * with errno. */
int fileio_write_all(int fd, const void *buf, size_t n);

#endif
