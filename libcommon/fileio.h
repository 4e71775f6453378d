/* fileio.h: whole-file reads. */
#ifndef VX_FILEIO_H
#define VX_FILEIO_H

#include <stddef.h>

/* The whole file name (relative to dirfd, or AT_FDCWD), NUL-terminated, in a
 * malloc'd buffer; *len gets its size. NULL with errno set on failure. */
char *fileio_read_at(int dirfd, const char *name, size_t *len);

#endif
